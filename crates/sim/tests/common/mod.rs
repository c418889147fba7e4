//! Random networks for the property tests: connected graphs whose links lose, duplicate
//! and reorder packets some of the time; and the scenario texts several tests share.

// Each test file that includes this module uses some of its helpers.
#![allow(dead_code)]

use proptest::prelude::*;

#[derive(Debug, Clone)]
pub struct Link {
    pub a: usize,
    pub b: usize,
    rate_mbps: u32,
    delay_ms: u32,
    queue: u32,
    loss: f64,
    duplicate: f64,
    reorder: f64,
}

impl Link {
    /// A link without loss, duplication or reordering.
    pub fn plain(a: usize, b: usize, rate_mbps: u32, delay_ms: u32) -> Link {
        Link { a, b, rate_mbps, delay_ms, queue: 100, loss: 0.0, duplicate: 0.0, reorder: 0.0 }
    }
}

/// A scenario of 1 s on a dumbbell of one pair (s0, r0) with `access` and `bottleneck`
/// links (rate, delay), followed by `rest` (its `[tcp]` and `[[flow]]` tables).
pub fn dumbbell(access: (&str, &str), bottleneck: (&str, &str), rest: &str) -> String {
    format!(
        "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\npairs = 1\naccess_rate = \"{}\"\naccess_delay = \"{}\"\nbottleneck_rate = \"{}\"\nbottleneck_delay = \"{}\"\n{rest}",
        access.0, access.1, bottleneck.0, bottleneck.1
    )
}

/// A connected random graph: a random spanning tree plus a few extra links.
pub fn topology() -> impl Strategy<Value = (usize, Vec<Link>)> {
    (2usize..7).prop_flat_map(|n| {
        let tree = (1..n).map(|i| (0..i, link_params())).collect::<Vec<_>>();
        let extra = prop::collection::vec((0..n, 0..n, link_params()), 0..3);
        (Just(n), tree, extra).prop_map(|(n, tree, extra)| {
            let mut links: Vec<Link> = tree.into_iter().enumerate().map(|(i, (parent, l))| Link { a: parent, b: i + 1, ..l }).collect();
            for (a, b, l) in extra {
                if a != b {
                    links.push(Link { a, b, ..l });
                }
            }
            (n, links)
        })
    })
}

/// A random behaviour's probability: none half of the time (clean links let packets cut
/// through routers, see `Net::plan_cut_through`).
fn chance(max: f64) -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0..max]
}

/// A link's parameters; its ends are filled in by `topology`.
fn link_params() -> impl Strategy<Value = Link> {
    (1u32..100, 1u32..20, 3u32..100, chance(0.05), chance(0.05), chance(0.1)).prop_map(|(rate_mbps, delay_ms, queue, loss, duplicate, reorder)| Link {
        a: 0,
        b: 0,
        rate_mbps,
        delay_ms,
        queue,
        loss,
        duplicate,
        reorder,
    })
}

/// A scenario's head: its duration and a custom topology of nodes n0..n{n-1} over `links`.
pub fn network(n: usize, links: &[Link], duration: &str) -> String {
    let mut s = format!("duration = \"{duration}\"\n[topology]\nkind = \"custom\"\nnodes = [");
    s += &(0..n).map(|i| format!("\"n{i}\"")).collect::<Vec<_>>().join(", ");
    s += "]\n";
    for l in links {
        s += &format!(
            "[[topology.link]]\na = \"n{}\"\nb = \"n{}\"\nrate = \"{}Mbps\"\ndelay = \"{}ms\"\nqueue = {{ packets = {} }}\nloss = {}\nduplicate = {}\nreorder = {}\nreorder_delay = \"5ms\"\n",
            l.a, l.b, l.rate_mbps, l.delay_ms, l.queue, l.loss, l.duplicate, l.reorder
        );
    }
    s
}

/// The number of cases a property test runs: `default`, or `PROPTEST_CASES` when set (for a
/// longer search, e.g. `PROPTEST_CASES=4096 cargo test --release -p rampup-sim`).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Packets are conserved: created + duplicated = delivered + dropped + lost + in flight.
pub fn conserved(out: &rampup_sim::RunOutput) -> bool {
    let p = out.table("packet_totals");
    let v = |c: &str| p.u64s(c)[0];
    v("created") + v("duplicated") == v("delivered") + v("dropped") + v("lost") + v("in_flight")
}

/// A write schedule (ms after the start, bytes) from (gap before the write in ms, bytes).
pub fn schedule(gaps: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    let mut at = 0;
    gaps.into_iter()
        .map(|(gap, bytes)| {
            at += gap;
            (at, bytes)
        })
        .collect()
}

/// Paper 001's dumbbell (SSthreshless Start, §II): a 40 Mb/s bottleneck with 48 ms one way
/// and a 250-packet drop-tail queue, 1 Gb/s access links with 1 ms; one bulk flow s0 → r0
/// for 10 s with the `tcp` table's keys, the flow's `flow` lines and the `[trace]` lines.
pub fn paper_001_dumbbell(tcp: &str, flow: &str, trace: &str) -> String {
    let rest = format!(
        "bottleneck_queue = {{ packets = 250 }}\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ {tcp} }}\n{flow}\n[trace]\n{trace}\n"
    );
    dumbbell(("1Gbps", "1ms"), ("40Mbps", "48ms"), &rest).replacen("duration = \"1s\"", "duration = \"10s\"", 1)
}
