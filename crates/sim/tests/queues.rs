//! Queue disciplines at a dumbbell's bottleneck, end to end: the run's tables against what
//! each discipline is for (docs/queues.md).

use rampup_sim::output::Column;
use rampup_sim::run_toml;

/// `flows` NewReno bulk flows for `secs` through a 20 Mb/s, 40 ms RTT dumbbell whose
/// bottleneck queue is `queue` (an inline table's contents).
fn dumbbell(queue: &str, flows: u32, secs: u32) -> String {
    let mut s = format!(
        "duration = \"{secs}s\"\n[topology]\nkind = \"dumbbell\"\npairs = {flows}\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\n\
         bottleneck_rate = \"20Mbps\"\nbottleneck_delay = \"18ms\"\nbottleneck_queue = {{ {queue} }}\n"
    );
    for i in 0..flows {
        s += &format!("[[flow]]\nfrom = \"s{i}\"\nto = \"r{i}\"\nstart = \"{}ms\"\napp = {{ kind = \"bulk\" }}\n", 10 * i);
    }
    s
}

fn u64s(c: Option<&Column>) -> Vec<u64> {
    match c {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("not a u64 column: {other:?}"),
    }
}

/// The bottleneck's median queueing delay after `from_s` seconds, in ms, from the queues
/// trace (its bytes at each change, at 20 Mb/s), and the bytes all flows received.
fn median_delay_ms(text: &str, from_s: f64) -> (f64, u64) {
    let out = run_toml(&format!("{text}[trace]\nqueues = true\n"), None).unwrap_or_else(|e| panic!("{e}"));
    let q = out.table("queues");
    let (t, bytes) = (u64s(q.column("t_ns")), u64s(q.column("bytes")));
    let Some(Column::Str(names)) = q.column("queue") else { panic!("no queue column") };
    let mut delays: Vec<f64> =
        (0..t.len()).filter(|&i| names[i] == "left->right" && t[i] as f64 >= from_s * 1e9).map(|i| bytes[i] as f64 * 8.0 / 20e6 * 1e3).collect();
    delays.sort_by(f64::total_cmp);
    let received = u64s(out.table("flows").column("bytes_received")).iter().sum();
    (delays[delays.len() / 2], received)
}

#[test]
fn each_discipline_keeps_its_queue_near_its_target() {
    // Drop-tail with 1000 packets lets one flow keep a standing queue of hundreds of ms.
    let (tail, _) = median_delay_ms(&dumbbell("packets = 1000", 1, 10), 2.0);
    assert!(tail > 100.0, "drop-tail: {tail} ms");
    // CoDel and FQ-CoDel aim at 5 ms (RFC 8289 §4.4), PIE at 15 ms (RFC 8033 §4.2), RED
    // between its thresholds of 5 and 15 packets (2 to 6 ms at 20 Mb/s).
    for (kind, bound_ms) in [("codel", 10.0), ("fq-codel", 10.0), ("pie", 30.0), ("red", 12.0)] {
        let (median, received) = median_delay_ms(&dumbbell(&format!("kind = \"{kind}\""), 1, 10), 2.0);
        assert!(median < bound_ms, "{kind}: median queueing delay {median} ms");
        assert!(received > 0, "{kind} delivers");
    }
}
#[test]
fn a_run_with_a_discipline_is_deterministic() {
    let text = dumbbell("kind = \"fq-codel\"", 4, 3);
    let a = run_toml(&text, Some(7)).unwrap();
    let b = run_toml(&text, Some(7)).unwrap();
    assert_eq!(format!("{:?}", a.table("flows")), format!("{:?}", b.table("flows")));
    assert_eq!(format!("{:?}", a.table("links")), format!("{:?}", b.table("links")));
}

/// One CUBIC flow with ECN through FQ-CoDel with ECN, 100 Mb/s, 50 ms RTT (issue 53's
/// acceptance): the queue marks instead of dropping, and holds the delay under the target.
/// (One CUBIC flow mostly keeps the queue empty: each mark takes cwnd to 0.7 of a window
/// near the BDP, and CUBIC's plateau lies near the old maximum; docs/queues.md.)
#[test]
fn cubic_with_ecn_through_fq_codel_is_marked_not_dropped() {
    let text = "duration = \"40s\"\n[topology]\nkind = \"dumbbell\"\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\n\
                bottleneck_rate = \"100Mbps\"\nbottleneck_delay = \"23ms\"\nbottleneck_queue = { kind = \"fq-codel\", ecn = true }\n\
                [[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = { kind = \"bulk\" }\ntcp = { cc = \"cubic\", ecn = true }\n[trace]\nqueues = true\n";
    let out = run_toml(text, None).unwrap();
    let links = out.table("links");
    let (drops, marks) = (u64s(links.column("drops"))[0], u64s(links.column("marks"))[0]);
    let flows = out.table("flows");
    assert_eq!(u64s(flows.column("marks")), vec![marks], "the flow's marks are the link's");
    assert_eq!(drops, 0, "no drops: {marks} marks");
    assert!(marks > 0);
    let q = out.table("queues");
    let (t, bytes) = (u64s(q.column("t_ns")), u64s(q.column("bytes")));
    let Some(Column::Str(names)) = q.column("queue") else { panic!("no queue column") };
    let mut d: Vec<f64> = (0..t.len()).filter(|&i| names[i] == "left->right" && t[i] >= 10_000_000_000).map(|i| bytes[i] as f64 * 8.0 / 100e6 * 1e3).collect();
    d.sort_by(f64::total_cmp);
    let (median, p90) = (d[d.len() / 2], d[d.len() * 9 / 10]);
    let goodput = match flows.column("goodput_bps") {
        Some(Column::F64(v)) => v[0],
        _ => panic!(),
    };
    println!("fq-codel+ecn, cubic: drops {drops}, marks {marks}, queueing delay after 10 s: median {median:.2} ms, p90 {p90:.2} ms; goodput {goodput:.0} b/s");
    // CoDel's target is 5 ms (RFC 8289 §4.4): the standing queue stays below it.
    assert!(median < 5.0, "median queueing delay {median} ms, target 5 ms");
    assert!(goodput > 0.0);
}

/// A `[[change]]` of the rate on a CoDel or FQ-CoDel port: the link carries at the new rate
/// from then on, and the queue settles as on a link of that rate throughout (CoDel reads
/// sojourn times only, RFC 8289 §5); under RED and PIE, which take the rate as fixed, the
/// change is refused.
#[test]
fn codel_and_fq_codel_take_a_change_of_rate_red_and_pie_refuse_it() {
    let halved = |queue: &str, secs: u32| format!("{}[[change]]\nat = \"5s\"\nlink = \"left-right\"\nrate = \"10Mbps\"\n", dumbbell(queue, 4, secs));
    for queue in ["kind = \"codel\"", "kind = \"fq-codel\""] {
        let received = |secs| -> u64 {
            let out = run_toml(&halved(queue, secs), None).unwrap_or_else(|e| panic!("{queue}: {e}"));
            u64s(out.table("flows").column("bytes_received")).iter().sum()
        };
        // From 6 s to 10 s, at 10 Mb/s less headers (1000 of 1040 bytes): 4.8 MB.
        let later = received(10) - received(6);
        let at_10_mbps = 10e6 / 8.0 * 4.0 * 1000.0 / 1040.0;
        println!("{queue}: {later} bytes from 6 s to 10 s, {at_10_mbps:.0} at 10 Mb/s");
        assert!((later as f64 - at_10_mbps).abs() < 0.05 * at_10_mbps, "{queue}: {later} bytes, not 10 Mb/s");
        let (after, _) = median_delay_ms(&halved(queue, 30), 15.0);
        let (throughout, _) = median_delay_ms(&dumbbell(queue, 4, 30).replace("\"20Mbps\"", "\"10Mbps\""), 15.0);
        println!("{queue}: median queue after the change {after:.2} ms, at 10 Mb/s throughout {throughout:.2} ms (both read at 20 Mb/s)");
        assert!((after - throughout).abs() <= 0.25 * throughout, "{queue}: {after} ms after the change, {throughout} ms at 10 Mb/s throughout");
    }
    for (queue, kind) in [("kind = \"red\"", "red"), ("kind = \"pie\"", "pie")] {
        let e = rampup_sim::check_toml(&halved(queue, 10)).unwrap_err().to_string();
        assert!(e.starts_with(&format!("change[0].rate: link \"left-right\" runs {kind}, which takes the link's rate as fixed")), "{e}");
    }
}

#[test]
fn red_marks_up_to_mark_p_which_defaults_to_max_p() {
    // ns-2's mark_p_: unset, marks stop where pb reaches max_p (docs/queues.md).
    let red = |keys: &str| dumbbell(&format!("kind = \"red\", ecn = true{keys}"), 1, 1);
    let marks = |keys: &str| -> u64 {
        let s = red(keys).replace("app = {", "tcp = { ecn = true }\napp = {");
        let out = run_toml(&s, None).unwrap_or_else(|e| panic!("{keys}: {e}"));
        u64s(out.table("links").column("marks")).iter().sum()
    };
    // With max_p 0.1, marks at pb up to 0.1 differ from marks at pb up to 0.02, so the
    // default follows max_p rather than keeping a number of its own.
    let at_max_p = marks(", max_p = 0.1");
    println!("marks: default {}, max_p 0.1 {at_max_p}, with mark_p 0.02 {}", marks(""), marks(", max_p = 0.1, mark_p = 0.02"));
    assert!(at_max_p > marks(", max_p = 0.1, mark_p = 0.02"), "the runs mark in the range between");
    assert_eq!(at_max_p, marks(", max_p = 0.1, mark_p = 0.1"));
    let default = marks("");
    assert!(default > 0);
    assert_eq!(default, marks(", mark_p = 0.02"));
    assert!(marks(", mark_p = 1.0") > default, "mark_p 1 marks gentle RED's upper region too");
    let e = rampup_sim::check_toml(&red(", mark_p = 1.5")).unwrap_err().to_string();
    assert_eq!(e, "topology.bottleneck_queue.mark_p: must be a probability in (0, 1] (got 1.5)");
}

/// `control_law` chooses CoDel's root for the spacing of drops, under CoDel and FQ-CoDel:
/// `"linux"` (Linux's and ns-3's Newton steps) drops a little sooner in a dropping state
/// than RFC 8289's exact root, the default; a red queue has no such key, and a value
/// other than the two is refused.
#[test]
fn codel_control_law_is_a_key_of_codel_and_fq_codel() {
    for kind in ["codel", "fq-codel"] {
        let drops = |law: &str| -> u64 {
            let out = run_toml(&dumbbell(&format!("kind = \"{kind}\"{law}"), 4, 5), None).unwrap_or_else(|e| panic!("{kind}{law}: {e}"));
            u64s(out.table("links").column("drops")).iter().sum()
        };
        let (rfc, linux) = (drops(""), drops(", control_law = \"linux\""));
        println!("{kind}: drops rfc8289 {rfc}, linux {linux}");
        assert_eq!(rfc, drops(", control_law = \"rfc8289\""), "{kind}: RFC 8289's is the default");
        assert_ne!(rfc, linux, "{kind}: the law changes the drops");
    }
    let e = rampup_sim::check_toml(&dumbbell("kind = \"codel\", control_law = \"bsd\"", 1, 1)).unwrap_err().to_string();
    assert!(e.contains("control_law") && e.contains("rfc8289") && e.contains("linux"), "{e}");
    let e = rampup_sim::check_toml(&dumbbell("kind = \"red\", control_law = \"linux\"", 1, 1)).unwrap_err().to_string();
    assert!(e.starts_with("topology.bottleneck_queue.control_law: not a key of a red queue"), "{e}");
}
