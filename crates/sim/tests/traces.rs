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
