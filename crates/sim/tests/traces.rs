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
