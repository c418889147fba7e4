//! Each flow's path as the engine routes it (`rampup_sim::paths`), against closed forms.

use rampup_sim::output::Column;
use rampup_sim::paths::{flow_paths, paths_table};
use rampup_sim::scenario::parse;
use rampup_tcp::{Duration, Rate};

mod common;

const BULK: &str = "app = { kind = \"bulk\" }";

/// Paper 001's dumbbell (SPEC.md §001): a 1040-byte segment and a 40-byte ACK serialised on
/// each link there and back, plus the delays.
#[test]
fn base_rtt_and_bdp_of_a_dumbbell() {
    let flow = format!("[[flow]]\nfrom = \"s0\"\nto = \"r0\"\n{BULK}\ntcp = {{ mss = 1000 }}\n");
    let text = "header_bytes = 40\nack_bytes = 40\n".to_owned() + &common::dumbbell(("1Gbps", "1ms"), ("40Mbps", "48ms"), &flow);
    let p = &flow_paths(&parse(&text).unwrap())[0];
    assert_eq!(p.hops, ["s0->left", "left->right", "right->r0"]);
    assert_eq!(p.bottleneck, Rate::from_bps(40_000_000));
    assert_eq!(p.propagation_rtt, Duration(100_000_000));
    // 1040 B: 208,000 ns at 40 Mb/s, 8,320 ns at 1 Gb/s; 40 B: 8,000 ns and 320 ns.
    assert_eq!(p.base_rtt.0, 100_000_000 + 208_000 + 2 * 8_320 + 8_000 + 2 * 320);
    assert_eq!(p.bdp_bytes(), 500_000.0);
}

/// On a custom graph each flow gets the route the engine forwards on.
#[test]
fn each_flow_gets_its_own_route() {
    let links = [common::Link::plain(0, 1, 10, 5), common::Link::plain(1, 2, 2, 20)];
    let flows = format!("[[flow]]\nfrom = \"n0\"\nto = \"n2\"\n{BULK}\n[[flow]]\nfrom = \"n1\"\nto = \"n0\"\n{BULK}\n");
    let sc = parse(&(common::network(3, &links, "1s") + &flows)).unwrap();
    let paths = flow_paths(&sc);
    assert_eq!(paths[0].hops, ["n0->n1", "n1->n2"]);
    assert_eq!(paths[0].bottleneck, Rate::from_bps(2_000_000));
    assert_eq!(paths[0].propagation_rtt, Duration(50_000_000));
    assert_eq!(paths[1].hops, ["n1->n0"]);
    assert_eq!(paths[1].propagation_rtt, Duration(10_000_000));
    assert_eq!(paths_table(&sc).column("bdp_bytes"), Some(&Column::F64(vec![2e6 * 0.05 / 8.0, 1e7 * 0.01 / 8.0])));
}

/// A dumbbell whose access delays are listed per pair gives each pair its own RTT (issue:
/// flows of different RTTs need no custom topology).
#[test]
fn a_dumbbell_takes_one_access_delay_per_pair() {
    let flows: String = (0..3).map(|i| format!("[[flow]]\nfrom = \"s{i}\"\nto = \"r{i}\"\n{BULK}\n")).collect();
    let text = common::dumbbell(("100Mbps", "1ms"), ("10Mbps", "20ms"), &flows)
        .replace("pairs = 1", "pairs = 3")
        .replace("access_delay = \"1ms\"", "access_delay = [\"1ms\", \"5ms\", \"20ms\"]\nright_access_rate = [\"1Gbps\", \"1Gbps\", \"2Mbps\"]");
    let paths = flow_paths(&parse(&text).unwrap());
    let rtts: Vec<u64> = paths.iter().map(|p| p.propagation_rtt.0 / 1_000_000).collect();
    // 2 x (access + 20 ms + access): both sides take the pair's access delay.
    assert_eq!(rtts, [44, 60, 120]);
    assert_eq!(paths[2].bottleneck, Rate::from_bps(2_000_000), "pair 2's right access link is its bottleneck");
    for (list, expect) in [
        (r#"["1ms", "5ms"]"#, "topology.access_delay: a list of 2 values for 3 pairs: give one per pair, or one value for all"),
        (r#"["1ms", 5, "20ms"]"#, "topology.access_delay[1]"),
        ("5", "topology.access_delay: 5 is not a time with a unit"),
    ] {
        let bad = text.replace(r#"["1ms", "5ms", "20ms"]"#, list);
        let e = parse(&bad).map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with(expect) && !e.contains('\n'), "{e}");
    }
}

/// Paper 004 §5's second configuration: clients and servers on two switches joined by an
/// inter-switch link. A server on switch 1 reaches a client on switch 2 over sw ── sw2, which
/// is its bottleneck when slower than both access links; hosts on one switch do not cross it.
#[test]
fn a_two_switch_lan_routes_across_the_inter_switch_link() {
    let text = format!(
        "duration = \"1s\"\n[topology]\nkind = \"lan\"\ninterswitch_rate = \"40Mbps\"\nhosts = [ {{ name = \"client\", rate = \"622Mbps\", switch = 2 }}, \
         {{ name = \"s1\", rate = \"100Mbps\" }}, {{ name = \"s2\", rate = \"100Mbps\", switch = 1 }} ]\n\
         [[flow]]\nfrom = \"s1\"\nto = \"client\"\n{BULK}\n[[flow]]\nfrom = \"s2\"\nto = \"s1\"\n{BULK}\n"
    );
    let paths = flow_paths(&parse(&text).unwrap());
    assert_eq!(paths[0].hops, ["s1->sw", "sw->sw2", "sw2->client"]);
    assert_eq!(paths[0].bottleneck, Rate::from_bps(40_000_000));
    assert_eq!(paths[0].propagation_rtt, Duration(6_000_000), "three links of the LAN's 1 ms, each way");
    assert_eq!(paths[1].hops, ["s2->sw", "sw->s1"]);
    for (from, to, expect) in [
        ("interswitch_rate = \"40Mbps\"\n", "", "topology.interswitch_rate: missing: a host is on switch 2"),
        (", switch = 2 }", " }", "topology.interswitch_rate: every host is on switch 1"),
        ("switch = 2", "switch = 3", "topology.hosts[0].switch: must be 1 or 2 (got 3)"),
        ("interswitch_rate = \"40Mbps\"", "interswitch_rate = \"0Mbps\"", "topology.interswitch_rate"),
    ] {
        let bad = text.replacen(from, to, 1);
        assert_ne!(bad, text, "{from:?} did not apply");
        let msg = parse(&bad).map(|_| ()).unwrap_err().to_string();
        assert!(msg.starts_with(expect) && !msg.contains('\n'), "{msg}");
    }
}

/// Paper 004 §5 gives 30 buffers per switch output port and nothing for the hosts' own
/// interfaces: `host_queue` sets a host's (host -> switch), the LAN's `queue` the switch's
/// ports (switch -> host, and the inter-switch link both ways). A server on 100 Mb/s sending
/// in slow start to a 622 Mb/s client queues at its own interface, so the drops move with it.
#[test]
fn a_lan_hosts_own_interface_takes_host_queue() {
    use rampup_sim::topology::QueueLimit::Packets;
    let text = "duration = \"5s\"\n[topology]\nkind = \"lan\"\nqueue = { packets = 30 }\nhost_queue = { packets = 1000 }\n\
         hosts = [ { name = \"client\", rate = \"622Mbps\" }, { name = \"s1\", rate = \"100Mbps\" } ]\n\
         [[flow]]\nfrom = \"s1\"\nto = \"client\"\napp = { kind = \"bulk\", bytes = 2000000 }\n";
    let sc = parse(text).unwrap();
    assert!(sc.net.links.iter().all(|l| l.queue == [Packets(1000), Packets(30)]), "{:?}", sc.net.links);
    let drops = |text: &str| match rampup_sim::run_toml(text, None).unwrap().table("flows").column("drops") {
        Some(Column::U64(v)) => v[0],
        other => panic!("no drops: {other:?}"),
    };
    let same = text.replace("host_queue = { packets = 1000 }\n", "");
    assert!(parse(&same).unwrap().net.links.iter().all(|l| l.queue == [Packets(30); 2]), "left out: the LAN's queue");
    assert_eq!(drops(text), 0, "the server's 1,000-packet interface holds slow start's overshoot");
    assert!(drops(&same) > 0, "its 30-packet interface does not");
}
