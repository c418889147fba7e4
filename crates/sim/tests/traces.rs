//! The traces' options agree with each other: the queues sampled at an interval are the
//! queues recorded on change, read at those times.

mod common;

use rampup_sim::run_toml;

#[test]
fn sampled_queues_are_the_changes_read_at_each_interval() {
    // Two flows through a 10 Mb/s bottleneck with a short queue: it fills, drops and drains.
    let flows = "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = { kind = \"bulk\" }\n\
                 [[flow]]\nfrom = \"s0\"\nto = \"r0\"\nstart = \"300ms\"\napp = { kind = \"bulk\", bytes = 200000 }\n";
    let text = common::dumbbell(("100Mbps", "1ms"), ("10Mbps", "20ms"), flows).replace("pairs = 1\n", "pairs = 1\nbottleneck_queue = { packets = 20 }\n")
        + "[trace]\ntimeseries = false\n";
    let on_change = run_toml(&text, Some(1)).unwrap();
    let sampled = run_toml(&(text.clone() + "queues_interval = \"7ms\"\n"), Some(1)).unwrap();
    let (c, s) = (on_change.table("queues"), sampled.table("queues"));
    let ports = on_change.table("links").rows();
    // Every port at 0, 7 ms, …, 994 ms (the run is 1 s).
    assert_eq!(s.rows(), ports * 143);
    assert!(c.u64s("drops").iter().any(|&d| d > 0), "the queue should overflow");
    let (ct, cq) = (c.u64s("t_ns"), c.strs("queue"));
    for i in 0..s.rows() {
        let (t, q) = (s.u64s("t_ns")[i], &s.strs("queue")[i]);
        assert_eq!(t, (i / ports) as u64 * 7_000_000);
        // The last change of that queue at or before t, if any.
        let last = (0..c.rows()).rev().find(|&j| ct[j] <= t && &cq[j] == q);
        for col in ["packets", "bytes", "drops"] {
            let expected = last.map_or(0, |j| c.u64s(col)[j]);
            assert_eq!(s.u64s(col)[i], expected, "{col} of {q} at {t} ns");
        }
    }
    // The other tables are the same.
    assert_eq!(sampled.table("flows").u64s("bytes_received"), on_change.table("flows").u64s("bytes_received"));
}

/// A dumbbell whose bottleneck drops (a short queue), loses (random loss) and slows down
/// mid-run (a `[[change]]` re-times what waits), with a UDP source beside a TCP flow.
fn lossy(extra_trace: &str) -> String {
    let rest = "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = { kind = \"bulk\" }\n\
                [[udp]]\nfrom = \"s0\"\nto = \"r0\"\nrate = \"2Mbps\"\n\
                [[change]]\nat = \"400ms\"\nlink = \"left-right\"\nrate = \"4Mbps\"\n";
    common::dumbbell(("100Mbps", "1ms"), ("10Mbps", "20ms"), rest).replace("pairs = 1\n", "pairs = 1\nbottleneck_queue = { packets = 8 }\nloss = 0.02\n")
        + "[trace]\ntimeseries = false\n"
        + extra_trace
}

#[test]
fn the_packet_trace_agrees_with_the_links_and_the_queues() {
    let out = run_toml(&lossy("packets = true\n"), Some(3)).unwrap();
    let (pk, links, q) = (out.table("packets"), out.table("links"), out.table("queues"));
    let (t, event, link) = (pk.u64s("t_ns"), pk.strs("event"), pk.strs("link"));
    let count = |l: &str, e: &str| (0..pk.rows()).filter(|&i| link[i] == l && event[i] == e).count() as u64;
    for (i, l) in links.strs("link").iter().enumerate() {
        assert_eq!(count(l, "enqueue"), links.u64s("tx_packets")[i], "{l}: admissions");
        assert_eq!(count(l, "drop"), links.u64s("drops")[i], "{l}: drops");
        assert_eq!(count(l, "lost"), links.u64s("lost")[i], "{l}: losses");
    }
    assert!(count("left->right", "drop") > 0 && count("left->right", "lost") > 0, "the bottleneck should drop and lose");
    // A queue's length after each of its changes is its admissions less its departures so
    // far, departures re-timed by the rate change included.
    let (qt, qname, qlen) = (q.u64s("t_ns"), q.strs("queue"), q.u64s("packets"));
    for j in 0..q.rows() {
        if j + 1 < q.rows() && qt[j + 1] == qt[j] && qname[j + 1] == qname[j] {
            continue; // the last row of a queue at one time is its state after that time
        }
        let upto = t.partition_point(|&x| x <= qt[j]);
        let n = |e: &str| (0..upto).filter(|&i| link[i] == qname[j] && event[i] == e).count() as u64;
        assert_eq!(qlen[j], n("enqueue") - n("depart"), "{} at {} ns", qname[j], qt[j]);
    }
    // Rows are in time order, and the trace changes no other table.
    assert!(t.windows(2).all(|w| w[0] <= w[1]));
    let without = run_toml(&lossy(""), Some(3)).unwrap();
    for table in ["flows", "links", "udp", "packet_totals", "queues", "connections"] {
        assert_eq!(format!("{:?}", out.table(table)), format!("{:?}", without.table(table)), "{table}");
    }
}

/// At a port with a discipline the packet trace follows the discipline: a packet departs
/// only after it was enqueued, in the order the discipline gives them out (FQ-CoDel's
/// round robin is not the arrival order); CoDel's drops at dequeue follow the packet's
/// enqueue, RED's at arrival have none; each queue's length is what was enqueued less what
/// departed or was dropped from it; and the trace changes no other table.
#[test]
fn the_packet_trace_follows_a_queue_discipline() {
    use std::collections::{HashMap, VecDeque};
    // Four flows: a packet is known by its flow and sequence number (a UDP source's are
    // all alike, so one is left out here).
    let flows: String = (0..4).map(|i| format!("[[flow]]\nfrom = \"s0\"\nto = \"r0\"\nstart = \"{}ms\"\napp = {{ kind = \"bulk\" }}\n", 100 * i)).collect();
    for kind in ["red", "codel", "fq-codel", "pie"] {
        let text = common::dumbbell(("100Mbps", "1ms"), ("10Mbps", "20ms"), &flows)
            .replace("pairs = 1\n", &format!("pairs = 1\nbottleneck_queue = {{ kind = \"{kind}\" }}\nloss = 0.01\n"))
            .replace("duration = \"1s\"", "duration = \"5s\"")
            + "[trace]\ntimeseries = false\nqueues = true\n";
        let out = run_toml(&(text.clone() + "packets = true\n"), Some(2)).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let (pk, links, q) = (out.table("packets"), out.table("links"), out.table("queues"));
        let (t, event, link) = (pk.u64s("t_ns"), pk.strs("event"), pk.strs("link"));
        let (kinds, flow, seq, ack) = (pk.strs("kind"), pk.u64s("flow"), pk.u64s("seq"), pk.u64s("ack"));
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "{kind}: rows in time order");
        let bottleneck = links.strs("link").iter().position(|l| l == "left->right").unwrap();
        // The bottleneck's rows in order: what waits there, oldest first, and its length
        // after each time.
        let mut waiting = VecDeque::new();
        let (mut in_arrival_order, mut drops, mut drops_after_enqueue, mut lost) = (true, 0, 0, 0);
        let mut lengths = HashMap::new();
        for i in (0..pk.rows()).filter(|&i| link[i] == "left->right") {
            let key = (kinds[i].clone(), flow[i], seq[i], ack[i]);
            let queued = waiting.iter().position(|k| *k == key);
            match event[i].as_str() {
                "enqueue" => waiting.push_back(key),
                "depart" => {
                    let at = queued.unwrap_or_else(|| panic!("{kind}: {key:?} departs unqueued"));
                    in_arrival_order &= at == 0;
                    waiting.remove(at);
                }
                "drop" => {
                    drops += 1;
                    if let Some(at) = queued {
                        waiting.remove(at);
                        drops_after_enqueue += 1;
                    }
                }
                "lost" => lost += 1,
                "arrive" => {}
                e => panic!("{kind}: a bottleneck row {e}"),
            }
            lengths.insert(t[i], waiting.len() as u64);
        }
        assert_eq!(drops, links.u64s("drops")[bottleneck], "{kind}: drops");
        assert_eq!(lost, links.u64s("lost")[bottleneck], "{kind}: losses");
        assert!(drops > 0 && lost > 0, "{kind}: the bottleneck should drop and lose ({drops}, {lost})");
        assert_eq!(in_arrival_order, kind != "fq-codel", "{kind}: the departures' order");
        assert_eq!(drops_after_enqueue > 0, kind == "codel" || kind == "fq-codel", "{kind}: drops at dequeue ({drops_after_enqueue})");
        // Each change of the queue: its length then, the packet on the wire included.
        let (qt, qname, qlen) = (q.u64s("t_ns"), q.strs("queue"), q.u64s("packets"));
        let mut compared = 0;
        for j in (0..q.rows()).filter(|&j| qname[j] == "left->right") {
            let last_at = j + 1 == q.rows() || qt[j + 1] != qt[j] || qname[j + 1] != qname[j];
            if let (true, Some(&n)) = (last_at, lengths.get(&qt[j])) {
                assert_eq!(qlen[j], n, "{kind}: the queue at {} ns", qt[j]);
                compared += 1;
            }
        }
        assert!(compared > 1000, "{kind}: only {compared} queue rows compared");
        let without = run_toml(&text, Some(2)).unwrap();
        for table in ["flows", "links", "packet_totals", "queues", "connections"] {
            assert_eq!(format!("{:?}", out.table(table)), format!("{:?}", without.table(table)), "{kind}: {table}");
        }
    }
}
