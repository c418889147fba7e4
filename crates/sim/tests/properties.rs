//! Property tests over random topologies with loss, reordering and duplication: every
//! byte arrives exactly once and in order, packets are conserved, and runs are
//! deterministic.

use proptest::prelude::*;
use rampup_sim::partition::{plan, Split};
use rampup_sim::{run_toml, RunOutput};

mod common;
use common::{cases, conserved, network, schedule, topology, Link};

#[derive(Debug, Clone)]
struct Flow {
    from: usize,
    to: usize,
    /// `None`: unlimited data for the whole run.
    bytes: Option<u64>,
    /// Start time in microseconds: flows that start together run in lockstep, and their
    /// simultaneous events make the order of equal-time events matter.
    start_us: u64,
    /// The recovery part's keys (`recovery = "sack", rack_tlp = true`).
    recovery: &'static str,
    delayed_ack: bool,
    /// Its connection goes through a vrate group (`group = "g"`) on each of its hosts.
    grouped: bool,
    /// Its connection shares one window with the others that do on its hosts (`share = "e"`).
    shared: bool,
}

fn flows(n: usize) -> impl Strategy<Value = Vec<Flow>> {
    // Half the flows start at 0: together, so that their events coincide.
    let flow = (
        0..n,
        1..n,
        1u64..150_000,
        prop_oneof![Just(0u64), 0u64..200_000],
        prop_oneof![Just("recovery = \"reno\""), Just("recovery = \"newreno\""), Just("recovery = \"sack\""), Just("recovery = \"sack\", rack_tlp = true")],
        any::<bool>(),
        any::<(bool, bool)>(),
    )
        .prop_map(move |(from, off, bytes, start_us, recovery, delayed_ack, (grouped, shared))| Flow {
            from,
            to: (from + off) % n,
            bytes: Some(bytes),
            start_us,
            recovery,
            delayed_ack,
            grouped,
            shared,
        });
    prop::collection::vec(flow, 1..4)
}

fn scenario(n: usize, links: &[Link], flows: &[Flow], duration: &str) -> String {
    let mut s = network(n, links, duration);
    for f in flows {
        let bytes = f.bytes.map_or(String::new(), |b| format!(", bytes = {b}"));
        s += &format!(
            "[[flow]]\nfrom = \"n{}\"\nto = \"n{}\"\nstart = \"{}us\"\napp = {{ kind = \"bulk\"{} }}\ntcp = {{ {}, delayed_ack = {} }}\n",
            f.from, f.to, f.start_us, bytes, f.recovery, f.delayed_ack
        );
        if f.grouped {
            s += "group = \"g\"\n";
        }
        if f.shared {
            s += "share = \"e\"\n";
        }
    }
    // A period short enough that the groups shape at these rates (`rampup_sim::vrate`).
    s += "[vrate]\nperiod = \"50us\"\n";
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), ..ProptestConfig::default() })]

    #[test]
    fn every_byte_once_in_order_and_packets_conserved(
        (n, links, flows) in topology().prop_flat_map(|(n, links)| (Just(n), Just(links), flows(n))),
        seed in any::<u64>(),
    ) {
        let text = scenario(n, &links, &flows, "3600s");
        let out = run_toml(&text, Some(seed)).expect("generated scenarios are valid");
        let t = out.table("flows");
        for (i, f) in flows.iter().enumerate() {
            // The receiver's delivered count only grows by in-order bytes (see the tcp
            // crate's pair test for the byte-level check); here the whole transfer must
            // arrive once: not more (duplicates), not less (losses).
            prop_assert_eq!(Some(t.u64s("bytes_received")[i]), f.bytes, "flow {} in\n{}", i, text);
            prop_assert_eq!(Some(t.u64s("bytes_acked")[i]), f.bytes);
        }
        prop_assert!(conserved(&out), "packets not conserved: {:?}", out.table("packet_totals"));
    }

    #[test]
    fn packets_are_conserved_when_the_run_stops_mid_transfer(
        (n, links, flows) in topology().prop_flat_map(|(n, links)| (Just(n), Just(links), flows(n))),
        seed in any::<u64>(),
        stop_ms in 1u64..500,
    ) {
        let text = scenario(n, &links, &flows, &format!("{stop_ms}ms"));
        let out = run_toml(&text, Some(seed)).expect("generated scenarios are valid");
        prop_assert!(conserved(&out), "packets not conserved: {:?}", out.table("packet_totals"));
    }
}

const LOSSY: &str = r#"
duration = "20s"
[topology]
kind = "dumbbell"
pairs = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
bottleneck_queue = { packets = 30 }
loss = 0.01
[[flow]]
from = "s0"
to = "r0"
app = { kind = "bulk" }
[[flow]]
from = "s1"
to = "r1"
start = "1s"
app = { kind = "bulk", bytes = 2000000 }
tcp = { recovery = "sack", delayed_ack = true }
"#;

/// `flows` over `links` for 3 s with queue and state traces, a UDP source (from, offset to
/// its destination, Mb/s) and a link change (link, n, at ms) if drawn: of the rate to n Mb/s,
/// the delay to n ms or the loss to (n mod 10)% as n mod 3 says; and its text.
fn traced_scenario(
    n: usize,
    links: &[Link],
    flows: &[Flow],
    udp: Option<(usize, usize, u32)>,
    change: Option<(usize, u32, u64)>,
) -> (rampup_sim::Scenario, String) {
    let mut text = scenario(n, links, flows, "3s");
    text += "[trace]\nqueues = true\ntimeseries = true\nthroughput = \"50ms\"\nrtt = true\n";
    if let Some((from, off, mbps)) = udp {
        let (from, to) = (from % n, (from + off % n.max(2)) % n);
        if from != to {
            text += &format!("[[udp]]\nfrom = \"n{from}\"\nto = \"n{to}\"\nrate = \"{mbps}Mbps\"\npacket_bytes = 500\nstart = \"0.2s\"\nstop = \"1s\"\n");
        }
    }
    if let Some((link, mbps, at_ms)) = change {
        let l = &links[link % links.len()];
        let what = match mbps % 3 {
            0 => format!("rate = \"{mbps}Mbps\""),
            1 => format!("delay = \"{mbps}ms\""),
            _ => format!("loss = {}", f64::from(mbps % 10) / 100.0),
        };
        text += &format!("[[change]]\nat = \"{at_ms}ms\"\nlink = \"n{}-n{}\"\n{what}\n", l.a, l.b);
    }
    (rampup_sim::scenario::parse(&text).expect("generated scenarios are valid"), text)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), ..ProptestConfig::default() })]

    /// Admissions computed ahead (`Net::plan_cut_through`) and segments taken ahead
    /// (`World::receive_ahead`) change nothing: the same tables, queue and state rows
    /// included, as a run that takes every packet hop by hop. With unlimited flows (whose
    /// senders may take ACKs ahead), UDP cross traffic and a change of some link's rate, delay or loss (whose
    /// ports are then taken hop by hop).
    #[test]
    fn cutting_through_routers_changes_no_result(
        (n, links, flows) in topology().prop_flat_map(|(n, links)| (Just(n), Just(links), flows(n))),
        unlimited in prop::collection::vec(any::<bool>(), 4),
        udp in prop::option::of((0usize..7, 1usize..7, 1u32..30)),
        change in prop::option::of((0usize..8, 1u32..100, 1u64..3000)),
        seed in any::<u64>(),
    ) {
        let flows: Vec<Flow> = flows.into_iter().zip(unlimited).map(|(f, u)| Flow { bytes: f.bytes.filter(|_| !u), ..f }).collect();
        let (sc, text) = traced_scenario(n, &links, &flows, udp, change);
        let fast = rampup_sim::run(&sc, seed, &mut rampup_sim::to_the_end).unwrap();
        let reference = rampup_sim::run_hop_by_hop(&sc, seed);
        // Fewer events on one thread; split over two, each packet taken across the cut counts
        // as an event too, so that count may pass the hop-by-hop one.
        prop_assert!(rampup_sim::run_on_one_thread(&sc, seed, &mut rampup_sim::to_the_end).unwrap().events <= reference.events);
        prop_assert_eq!(fast.packet_hops, reference.packet_hops, "the same hops, cut through or not, in\n{}", text);
        prop_assert_eq!(spilled(&sc, seed).digest(), fast.digest(), "traces through temporary files in\n{}", text);
        for (name, table) in &reference.tables {
            // Compared as text: NaN (a flow that did not finish) is not equal to itself.
            prop_assert_eq!(format!("{:?}", fast.table(name)), format!("{:?}", table), "table {} in\n{}", name, text);
        }
    }
}

/// `sc` run on one thread with its traces going to temporary files every few rows or bytes
/// (`spill`), as a long run's do.
fn spilled(sc: &rampup_sim::Scenario, seed: u64) -> rampup_sim::RunOutput {
    let world = rampup_sim::world::World::new(sc, seed).spill_after(37, 1000);
    rampup_sim::collected(|sink| world.run(&mut rampup_sim::to_the_end, sink)).unwrap()
}

/// The tables of `sc` run split over two threads at `cut` and run on one, then the digests
/// of the two runs (tables and packet captures). (Called directly, not through
/// `rampup_sim::run`, which keeps to one thread while other tests run.)
fn split_and_whole(sc: &rampup_sim::Scenario, seed: u64, cut: &Split) -> Vec<(String, String, String)> {
    let split = rampup_sim::collected(|sink| rampup_sim::world::World::run_split(sc, seed, cut, None, &mut rampup_sim::to_the_end, sink)).unwrap();
    let whole = rampup_sim::run_on_one_thread(sc, seed, &mut rampup_sim::to_the_end).unwrap();
    // Compared as text: NaN (a flow that did not finish) is not equal to itself.
    let tables = whole.tables.iter().map(|(name, t)| (name.clone(), format!("{:?}", split.table(name)), format!("{t:?}")));
    let hops = ("packet_hops".to_string(), split.packet_hops.to_string(), whole.packet_hops.to_string());
    tables.chain([("digest".to_string(), split.digest(), whole.digest()), hops]).collect()
}

proptest! {
    // About one drawn network in four can be split; the others are drawn again.
    #![proptest_config(ProptestConfig { cases: cases(128), max_global_rejects: 4096, ..ProptestConfig::default() })]

    /// A run split in two halves gives the same tables, queue and state rows included, as
    /// one world: random topologies with loss, duplication and reordering, unlimited flows
    /// (the only ones a split takes), UDP cross traffic and a change of some link.
    #[test]
    fn splitting_a_run_in_two_changes_no_result(
        (n, links, flows) in topology().prop_flat_map(|(n, links)| (Just(n), Just(links), flows(n))),
        udp in prop::option::of((0usize..7, 1usize..7, 1u32..30)),
        change in prop::option::of((0usize..8, 1u32..100, 1u64..3000)),
        seed in any::<u64>(),
    ) {
        let flows: Vec<Flow> = flows.into_iter().map(|f| Flow { bytes: None, ..f }).collect();
        let (sc, text) = traced_scenario(n, &links, &flows, udp, change);
        let cut = plan(&sc);
        prop_assume!(cut.is_some(), "a network that splits");
        for (name, split, whole) in split_and_whole(&sc, seed, &cut.unwrap()) {
            prop_assert_eq!(split, whole, "table {} in\n{}", name, text);
        }
    }
}

/// The benchmark's kind of network, lossy on the cut link: the run is split, and gives the
/// same tables and packet captures as one world. Then faster, with UDP cross traffic both ways between a third
/// pair: in each half, packets sent on a clock (events) reach the cut port among those that
/// the packets taken across the cut bring in, and more crossings come in one window than
/// are handed over at a time.
#[test]
fn a_split_dumbbell_gives_the_same_tables() {
    let mut text = LOSSY.replace(", bytes = 2000000", "");
    // Captured on both ports of the cut link, each simulated by the half it leads to.
    text += "[trace]\nqueues = true\ntimeseries = true\npcap = [\"left-right\", \"s0-left\"]\n";
    let udp =
        |from: &str, to: &str| format!("[[udp]]\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"30Mbps\"\npacket_bytes = 700\nstart = \"0.5s\"\nstop = \"15s\"\n");
    let fast = text.replace("pairs = 2", "pairs = 3").replace("\"100Mbps\"", "\"1Gbps\"").replace("\"10Mbps\"", "\"100Mbps\"");
    for text in [text.clone(), fast + &udp("s2", "r2") + &udp("r2", "s2")] {
        let sc = rampup_sim::scenario::parse(&text).unwrap();
        let split = plan(&sc).expect("the dumbbell is split");
        for (name, split, whole) in split_and_whole(&sc, 3, &split) {
            assert_eq!(split, whole, "table {name} in\n{text}");
        }
        let whole = rampup_sim::run_on_one_thread(&sc, 3, &mut rampup_sim::to_the_end).unwrap();
        assert_eq!(spilled(&sc, 3).digest(), whole.digest(), "traces and captures through temporary files");
    }
}

/// An observer that says stop ends the run at its next report, on one thread and split
/// over two (where the other half must not wait for the stopped one), with no result.
#[test]
fn a_stopped_run_ends_early_without_a_result() {
    let text = LOSSY.replace(", bytes = 2000000", "").replace("duration = \"20s\"", "duration = \"1000s\"");
    assert_ne!(text, LOSSY.replace(", bytes = 2000000", ""), "the duration was replaced");
    let sc = rampup_sim::scenario::parse(&text).unwrap();
    let split = plan(&sc).expect("the dumbbell is split");
    fn stop_at_five_percent(reports: &mut Vec<f64>) -> impl FnMut(f64) -> std::ops::ControlFlow<()> + '_ {
        move |f| {
            reports.push(f);
            if f >= 0.05 {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        }
    }
    let (mut one, mut two) = (Vec::new(), Vec::new());
    assert!(matches!(rampup_sim::run_on_one_thread(&sc, 1, &mut stop_at_five_percent(&mut one)), Err(rampup_sim::RunError::Stopped)));
    let mut traces = rampup_sim::Collect::default();
    assert!(matches!(
        rampup_sim::world::World::run_split(&sc, 1, &split, None, &mut stop_at_five_percent(&mut two), &mut traces),
        Err(rampup_sim::RunError::Stopped)
    ));
    for reports in [one, two] {
        let last = *reports.last().unwrap();
        assert!((0.05..0.2).contains(&last), "stopped soon after 5%, not at {last}");
    }
}

/// A trace over its budget (`[trace] max_rows`) stops a run split over two threads as it
/// stops one on one thread.
#[test]
fn a_trace_over_its_budget_stops_a_split_run() {
    let text = LOSSY.replace(", bytes = 2000000", "") + "[trace]\nqueues = true\nmax_rows = 5000\n";
    let sc = rampup_sim::scenario::parse(&text).unwrap();
    let split = plan(&sc).expect("the dumbbell is split");
    let mut traces = rampup_sim::Collect::default();
    match rampup_sim::world::World::run_split(&sc, 1, &split, None, &mut rampup_sim::to_the_end, &mut traces) {
        Err(e @ rampup_sim::RunError::TraceRows { table: "queues", max_rows: 5000, .. }) => {
            assert!(e.to_string().starts_with("trace.max_rows: the queues trace passed 5000 rows by "), "{e}")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("ran to the end"),
    }
}

/// A segment taken ahead comes after the wakeups its end has due before it, and before
/// one due at its arrival (`receive_ahead`): behind a 1 Mb/s bottleneck the receiver's
/// segments come 8.32 ms apart, and its delayed-ACK timer runs out 5 ms after one of them,
/// or as the next arrives. Their arrival is known when the bottleneck admits them, queueing
/// included. The same tables as hop by hop, with less than half its events (where an end
/// refused a segment while a wakeup was due before it, the 5 ms run handled 65% of them);
/// and split over two threads, with one flow or two, the same tables as on one.
#[test]
fn a_segment_taken_ahead_comes_after_the_wakeups_due_before_it() {
    for delack in ["5ms", "8320us"] {
        let two_flows = LOSSY
            .replace("10Mbps", "1Mbps")
            .replace("loss = 0.01", "")
            .replace(", bytes = 2000000", "")
            .replace("delayed_ack = true", &format!("delayed_ack = true, delack_timeout = \"{delack}\""))
            + "[trace]\nqueues = true\ntimeseries = true\n";
        let sc = rampup_sim::scenario::parse(&two_flows).unwrap();
        let (fast, reference) = (rampup_sim::run_on_one_thread(&sc, 1, &mut rampup_sim::to_the_end).unwrap(), rampup_sim::run_hop_by_hop(&sc, 1));
        assert!(fast.events * 2 < reference.events, "segments are taken ahead: {} events of {}", fast.events, reference.events);
        for (name, table) in &reference.tables {
            assert_eq!(format!("{:?}", fast.table(name)), format!("{table:?}"), "table {name}, delayed ACK after {delack}");
        }
        let first = two_flows.find("[[flow]]").unwrap();
        let second = two_flows[first + 1..].find("[[flow]]").unwrap() + first + 1;
        let one_flow = format!("{}{}", &two_flows[..first], &two_flows[second..]);
        for text in [two_flows, one_flow] {
            let sc = rampup_sim::scenario::parse(&text).unwrap();
            for (name, split, whole) in split_and_whole(&sc, 1, &plan(&sc).expect("the dumbbell is split")) {
                assert_eq!(split, whole, "table {name} in\n{text}");
            }
        }
    }
}

#[test]
fn same_seed_gives_identical_results() {
    let a = run_toml(LOSSY, Some(5)).unwrap();
    let b = run_toml(LOSSY, Some(5)).unwrap();
    assert_eq!(a.digest(), b.digest());
    assert_eq!(a.events, b.events);
}

#[test]
fn different_seeds_differ_where_randomness_is_used() {
    let a = run_toml(LOSSY, Some(5)).unwrap();
    let b = run_toml(LOSSY, Some(6)).unwrap();
    assert_ne!(a.table("flows").u64s("bytes_received"), b.table("flows").u64s("bytes_received"));
    assert_ne!(a.digest(), b.digest());
    // Without any random element the seed changes nothing.
    let clean = LOSSY.replace("loss = 0.01", "");
    assert_eq!(run_toml(&clean, Some(5)).unwrap().digest(), run_toml(&clean, Some(6)).unwrap().digest());
}

// ---- every TCP configuration finishes under loss ----------------------------------------
//
// The test above draws topologies but uses default TCP (NewReno). This one draws the TCP
// configuration instead: every congestion controller and its variants, every recovery and
// loss-response option, initial window, window cap, handshake, delayed ACKs, RTO bounds and
// restart policies (request schedules with idle gaps), on a lossy dumbbell with transfers
// large enough for timeouts with many segments outstanding. Each transfer must complete
// exactly, and no window may stall in slow start (see `slow_start_stalls`).

#[derive(Debug, Clone)]
struct TcpDraw {
    /// The `cc` key's value as TOML: a name, or a part's table.
    cc: String,
    recovery: &'static str,
    extra: Vec<String>,
}

fn tcp_draw() -> impl Strategy<Value = TcpDraw> {
    let cc = prop_oneof![Just("newreno"), Just("vegas"), Just("ssthreshless"), Just("hoe"), Just("limited-slow-start")];
    let recovery = prop_oneof![Just("reno"), Just("newreno"), Just("sack")];
    let options = (
        (1u32..=10, prop::option::of(4u64..200), prop::option::of(2u64..400), any::<bool>(), any::<bool>()),
        (prop_oneof![Just("flight"), Just("cwnd")], prop_oneof![Just("keep_ssthresh"), Just("halve")], any::<bool>()),
        (prop_oneof![Just("min"), Just("mean")], prop_oneof![Just("target"), Just("eighth")], prop_oneof![Just("0s"), Just("10ms")]),
        (prop_oneof![Just("halving"), Just("harmonic")], 2u64..200, prop_oneof![Just("200ms"), Just("1s")]),
        prop_oneof![Just("ssr"), Just("ssr-linux"), Just("nssr"), Just("rbp-rate"), Just("rbp-cwnd")],
    );
    (cc, recovery, options).prop_map(|(cc, recovery, (basic, loss, vegas, sls, restart))| {
        let (iw, max_window, ssthresh, handshake, delayed_ack) = basic;
        let (loss_window, rto_in_recovery, sack1) = loss;
        let (vegas_rtt, vegas_exit, tick) = vegas;
        let (schedule, max_ssthresh, min_rto) = sls;
        let mut extra = vec![
            format!("initial_window = {iw}"),
            format!("handshake = {handshake}"),
            format!("delayed_ack = {delayed_ack}"),
            format!("loss_window = \"{loss_window}\""),
            format!("rto_in_recovery = \"{rto_in_recovery}\""),
            format!("min_rto = \"{min_rto}\""),
            format!("restart = \"{restart}\""),
        ];
        extra.extend(max_window.map(|w| format!("max_window = {w}")));
        extra.extend(ssthresh.map(|s| format!("initial_ssthresh = {s}")));
        if recovery == "sack" && sack1 {
            extra.push("sack_pipe = \"sack1\"".into());
        }
        let cc = match cc {
            "vegas" => format!("{{ kind = \"vegas\", rtt = \"{vegas_rtt}\", slow_start_exit = \"{vegas_exit}\" }}"),
            "ssthreshless" => format!("{{ kind = \"ssthreshless\", schedule = \"{schedule}\", rtt_tick = \"{tick}\" }}"),
            "limited-slow-start" => format!("{{ kind = \"limited-slow-start\", max_ssthresh = {max_ssthresh} }}"),
            name => format!("\"{name}\""),
        };
        TcpDraw { cc, recovery, extra }
    })
}

#[derive(Debug, Clone)]
enum AppDraw {
    Bulk(u64),
    /// (start ms, bytes) of each request, in order.
    Writes(Vec<(u64, u64)>),
}

fn app_draw() -> impl Strategy<Value = AppDraw> {
    prop_oneof![
        (1u64..3_000_000).prop_map(AppDraw::Bulk),
        prop::collection::vec((0u64..4_000, 1u64..300_000), 1..4).prop_map(|gaps| AppDraw::Writes(schedule(gaps))),
    ]
}

impl AppDraw {
    fn bytes(&self) -> u64 {
        match self {
            AppDraw::Bulk(b) => *b,
            AppDraw::Writes(r) => r.iter().map(|&(_, b)| b).sum(),
        }
    }
    fn toml(&self) -> String {
        match self {
            AppDraw::Bulk(b) => format!("{{ kind = \"bulk\", bytes = {b} }}"),
            AppDraw::Writes(r) => {
                let entries: Vec<String> = r.iter().map(|(at, b)| format!("{{ at = \"{at}ms\", bytes = {b} }}")).collect();
                format!("{{ kind = \"writes\", schedule = [ {} ] }}", entries.join(", "))
            }
        }
    }
}

fn lossy_dumbbell(rate_mbps: u32, delay_ms: u32, queue: u32, loss: f64, flows: &[(TcpDraw, AppDraw)]) -> String {
    let mut s = format!(
        "duration = \"3600s\"\n[topology]\nkind = \"dumbbell\"\npairs = {}\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\n\
         bottleneck_rate = \"{rate_mbps}Mbps\"\nbottleneck_delay = \"{delay_ms}ms\"\nbottleneck_queue = {{ packets = {queue} }}\nloss = {loss}\n",
        flows.len()
    );
    for (i, (tcp, app)) in flows.iter().enumerate() {
        s += &format!(
            "[[flow]]\nfrom = \"s{i}\"\nto = \"r{i}\"\napp = {}\n[flow.tcp]\ncc = {}\nrecovery = \"{}\"\n{}\n",
            app.toml(),
            tcp.cc,
            tcp.recovery,
            tcp.extra.join("\n")
        );
    }
    s + "[trace]\ntimeseries = true\nqueues = false\n"
}

/// Runs in slow start (cwnd < ssthresh) where ACKs advance snd_una but cwnd does not move:
/// every controller grows its window in slow start at least every other RTT (Vegas), most on
/// every ACK. A run longer than one window of ACKs plus a few, lasting more than four smoothed
/// RTTs, is a stall: the window would sit there for good, as default Vegas sat at one segment
/// after a timeout while go-back-N crept towards the end of its stale rate epoch. NewReno
/// recovery is left out: there a partial ACK of one segment deflates and re-inflates cwnd by
/// the same amount (RFC 6582 §3.2 step 5), which can leave it unchanged below ssthresh.
fn slow_start_stalls(out: &RunOutput, flow: u64, mss: u64) -> Option<String> {
    let ts = out.table("timeseries");
    let (flows, t, cwnd, ssthresh, srtt, una) =
        (ts.u64s("flow"), ts.u64s("t_ns"), ts.u64s("cwnd_bytes"), ts.f64s("ssthresh_bytes"), ts.f64s("srtt_ns"), ts.u64s("snd_una"));
    let rows: Vec<usize> = (0..ts.rows()).filter(|&i| flows[i] == flow).collect();
    let (mut acks, mut since) = (0u64, 0usize);
    for w in rows.windows(2) {
        let (a, b) = (w[0], w[1]);
        let slow_start = (cwnd[b] as f64) < ssthresh[b] || ssthresh[b].is_nan();
        if cwnd[b] != cwnd[a] || !slow_start {
            acks = 0;
            continue;
        }
        if una[b] > una[a] {
            if acks == 0 {
                since = a;
            }
            acks += 1;
            let span = t[b] - t[since];
            let rtt = if srtt[b].is_nan() { 0.0 } else { srtt[b] };
            if acks > cwnd[b] / mss + 4 && span as f64 > 4.0 * rtt {
                return Some(format!("cwnd {} unchanged in slow start for {acks} ACKs from {} ns to {} ns", cwnd[b], t[since], t[b]));
            }
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn every_tcp_configuration_finishes_under_loss_without_stalling(
        rate_mbps in 1u32..200,
        delay_ms in 1u32..100,
        queue in 5u32..300,
        loss in prop_oneof![Just(0.0), 0.0f64..0.03],
        flows in prop::collection::vec((tcp_draw(), app_draw()), 1..3),
        seed in any::<u64>(),
    ) {
        let text = lossy_dumbbell(rate_mbps, delay_ms, queue, loss, &flows);
        let out = run_toml(&text, Some(seed)).expect("generated scenarios are valid");
        let t = out.table("flows");
        for (i, (tcp, app)) in flows.iter().enumerate() {
            prop_assert_eq!(t.u64s("bytes_received")[i], app.bytes(), "flow {} in\n{}", i, text);
            prop_assert_eq!(t.u64s("bytes_acked")[i], app.bytes(), "flow {} in\n{}", i, text);
            if tcp.recovery != "newreno" {
                let stall = slow_start_stalls(&out, i as u64, 1000);
                prop_assert!(stall.is_none(), "flow {}: {:?} in\n{}", i, stall, text);
            }
        }
        let tr = out.table("transfers");
        prop_assert!(tr.f64s("elapsed_s").iter().all(|e| e.is_finite()), "unfinished transfer {:?} in\n{}", tr, text);
        prop_assert!(conserved(&out), "packets not conserved: {:?}", out.table("packet_totals"));
    }
}
