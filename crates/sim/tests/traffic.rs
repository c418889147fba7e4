//! Property tests of the traffic layer over random lossy, duplicating and reordering
//! networks: connections opened and closed at run time by request/response flows, beside
//! one-connection bulk and write-schedule flows. Every connection closes and carries what
//! its applications wrote, once; packets are conserved; and the engine's fast paths change
//! no result (cut-through and receive-ahead against hop by hop, traces through temporary
//! files against memory; the split over two threads refuses such runs, by the one rule of
//! `traffic::App::fast_paths`).

use proptest::prelude::*;
use rampup_sim::traffic::{Http, PackMime};

mod common;
use common::{cases, conserved, network, schedule, topology, Link};

#[derive(Debug, Clone)]
enum AppDraw {
    Bulk(Option<u64>),
    Writes(Vec<(u64, u64)>),
    Exchange {
        request: u64,
        response: u64,
        pairs: u32,
        think_ms: u64,
        client_closes: bool,
        connections: u64,
        mean_gap_ms: u64,
        poisson: bool,
    },
    /// PackMime-HTTP connections (`traffic::packmime`).
    Web {
        rate: u32,
        http11: bool,
        connections: u64,
    },
    /// A rate-limited source (`traffic::RateLimitedSpec`): its rate in kb/s, chunk, phases
    /// (at ms, kb/s, within ms) and padding. Drawn only for runs cut short: it never ends.
    Rate {
        kbps: u64,
        chunk: u64,
        phases: Vec<(u64, u64, u64)>,
        padding: bool,
    },
}

#[derive(Debug, Clone)]
struct FlowDraw {
    from: usize,
    to: usize,
    start_us: u64,
    app: AppDraw,
    recovery: &'static str,
    delayed_ack: bool,
    /// TIME-WAIT: none or short, so that slots are reused while segments of the
    /// connection that held them may still be on their way.
    time_wait: &'static str,
}

/// Applications; `unlimited` also draws bulk flows without an end (for runs cut short).
fn app_draw(unlimited: bool) -> impl Strategy<Value = AppDraw> {
    let exchange = (1u64..20_000, 1u64..60_000, 1u32..4, prop_oneof![Just(0u64), 1u64..30], any::<bool>(), 1u64..25, 1u64..300, any::<bool>()).prop_map(
        |(request, response, pairs, think_ms, client_closes, connections, mean_gap_ms, poisson)| AppDraw::Exchange {
            request,
            response,
            pairs,
            think_ms,
            client_closes,
            connections,
            mean_gap_ms,
            poisson,
        },
    );
    let writes = prop::collection::vec((0u64..2_000, 1u64..50_000), 1..3).prop_map(|w| AppDraw::Writes(schedule(w)));
    let web = (1u32..60, any::<bool>(), 1u64..6).prop_map(|(rate, http11, connections)| AppDraw::Web { rate, http11, connections });
    // Phases in order, each at least its draw after the one before.
    let phases = prop::collection::vec((1u64..800, prop_oneof![Just(0u64), 1u64..2_000], prop_oneof![Just(0u64), 1u64..300]), 0..4).prop_map(|ps| {
        let mut at = 0;
        ps.into_iter()
            .map(|(gap, kbps, within)| {
                at += gap;
                let p = (at, kbps, within);
                at += within;
                p
            })
            .collect()
    });
    let rate = (1u64..4_000, 100u64..5_000, phases, any::<bool>()).prop_map(|(kbps, chunk, phases, padding)| AppDraw::Rate { kbps, chunk, phases, padding });
    prop_oneof![
        3 => exchange,
        1 => web,
        1 => (1u64..100_000, any::<bool>()).prop_map(move |(b, u)| AppDraw::Bulk(Some(b).filter(|_| !(u && unlimited)))),
        1 => writes,
        if unlimited { 1 } else { 0 } => rate,
    ]
}

fn flows(n: usize, unlimited: bool) -> impl Strategy<Value = Vec<FlowDraw>> {
    // The recovery part's keys, RACK-TLP (RFC 8985) beside SACK among them.
    let recovery =
        prop_oneof![Just("recovery = \"reno\""), Just("recovery = \"newreno\""), Just("recovery = \"sack\""), Just("recovery = \"sack\", rack_tlp = true")];
    let time_wait = prop_oneof![Just("0s"), Just("10ms"), Just("2s")];
    let flow = (0..n, 1..n, prop_oneof![Just(0u64), 0u64..200_000], app_draw(unlimited), recovery, any::<bool>(), time_wait).prop_map(
        move |(from, off, start_us, app, recovery, delayed_ack, time_wait)| FlowDraw {
            from,
            to: (from + off) % n,
            start_us,
            app,
            recovery,
            delayed_ack,
            time_wait,
        },
    );
    prop::collection::vec(flow, 1..4)
}

impl AppDraw {
    fn toml(&self) -> String {
        match self {
            AppDraw::Bulk(None) => "{ kind = \"bulk\" }".into(),
            AppDraw::Bulk(Some(b)) => format!("{{ kind = \"bulk\", bytes = {b} }}"),
            AppDraw::Writes(w) => {
                let entries: Vec<String> = w.iter().map(|(at, b)| format!("{{ at = \"{at}ms\", bytes = {b} }}")).collect();
                format!("{{ kind = \"writes\", schedule = [ {} ] }}", entries.join(", "))
            }
            AppDraw::Exchange { request, response, pairs, think_ms, client_closes, connections, mean_gap_ms, poisson } => format!(
                "{{ kind = \"request-response\", request = {request}, response = {response}, pairs = {pairs}, think = \"{think_ms}ms\", close = \"{}\", connections = {connections}, mean_gap = \"{mean_gap_ms}ms\", gaps = \"{}\" }}",
                if *client_closes { "client" } else { "server" },
                if *poisson { "exponential" } else { "fixed" },
            ),
            AppDraw::Web { rate, http11, connections } => {
                format!("{{ kind = \"web\", rate = {rate}, http = \"{}\", connections = {connections} }}", if *http11 { "1.1" } else { "1.0" })
            }
            AppDraw::Rate { kbps, chunk, phases, padding } => {
                let ps: Vec<String> =
                    phases.iter().map(|(at, kbps, within)| format!("{{ at = \"{at}ms\", rate = \"{kbps}kbps\", within = \"{within}ms\" }}")).collect();
                format!("{{ kind = \"rate-limited\", rate = \"{kbps}kbps\", chunk = {chunk}, phases = [ {} ], padding = {padding} }}", ps.join(", "))
            }
        }
    }
}

fn scenario(n: usize, links: &[Link], flows: &[FlowDraw], duration: &str, traced: bool) -> String {
    let mut s = network(n, links, duration);
    if traced {
        s += "[trace]\nqueues = true\ntimeseries = true\nthroughput = \"50ms\"\n";
    }
    for f in flows {
        s += &format!(
            "[[flow]]\nfrom = \"n{}\"\nto = \"n{}\"\nstart = \"{}us\"\napp = {}\ntcp = {{ {}, delayed_ack = {}, time_wait = \"{}\" }}\n",
            f.from,
            f.to,
            f.start_us,
            f.app.toml(),
            f.recovery,
            f.delayed_ack,
            f.time_wait
        );
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(64), ..ProptestConfig::default() })]

    /// Run to completion (an hour of simulated time): every request/response connection is
    /// opened, closes, and carried each request and response whole, once.
    #[test]
    fn every_connection_closes_carrying_what_was_written(
        (n, links, flows) in topology().prop_flat_map(|(n, links)| (Just(n), Just(links), flows(n, false))),
        seed in any::<u64>(),
    ) {
        let text = scenario(n, &links, &flows, "3600s", false);
        let out = rampup_sim::run_toml(&text, Some(seed)).expect("generated scenarios are valid");
        let c = out.table("connections");
        let (flow, up, down, close) = (c.u64s("flow"), c.u64s("bytes_up"), c.u64s("bytes_down"), c.f64s("close_ns"));
        prop_assert_eq!(c.u64s("conn").to_vec(), (0..flow.len() as u64).collect::<Vec<_>>(), "rows in the order opened");
        for (i, f) in flows.iter().enumerate() {
            let rows: Vec<usize> = (0..flow.len()).filter(|&r| flow[r] == i as u64).collect();
            match f.app {
                AppDraw::Exchange { request, response, pairs, connections, .. } => {
                    prop_assert_eq!(rows.len() as u64, connections, "flow {} in\n{}", i, text);
                    for r in rows {
                        prop_assert_eq!((up[r], down[r]), (request * pairs as u64, response * pairs as u64), "flow {} in\n{}", i, text);
                        prop_assert!(!close[r].is_nan(), "connection {} of flow {} still open in\n{}", r, i, text);
                    }
                }
                AppDraw::Web { rate, http11, connections } => {
                    // The connections carry what the flow's generator draws for this seed.
                    let http = if http11 { Http::V1_1 } else { Http::V1_0 };
                    let mut g = PackMime::new(rate as f64, http, seed, i as u32);
                    prop_assert_eq!(rows.len() as u64, connections, "flow {} in\n{}", i, text);
                    for r in rows {
                        let pairs = g.connection();
                        let want = (pairs.iter().map(|p| p.request_bytes).sum::<u64>(), pairs.iter().map(|p| p.response_bytes).sum::<u64>());
                        prop_assert_eq!((up[r], down[r]), want, "connection {} of flow {} in\n{}", r, i, text);
                        prop_assert_eq!((c.u64s("request_bytes")[r], c.u64s("response_bytes")[r]), want);
                        prop_assert!(!close[r].is_nan(), "connection {} of flow {} still open in\n{}", r, i, text);
                        prop_assert!(!c.f64s("duration_ns")[r].is_nan());
                    }
                }
                AppDraw::Bulk(Some(b)) => prop_assert_eq!(rows.iter().map(|&r| up[r]).collect::<Vec<_>>(), vec![b]),
                AppDraw::Writes(ref w) => prop_assert_eq!(rows.iter().map(|&r| up[r]).collect::<Vec<_>>(), vec![w.iter().map(|&(_, b)| b).sum::<u64>()]),
                AppDraw::Bulk(None) => prop_assert_eq!(rows.len(), 1),
                AppDraw::Rate { .. } => unreachable!("drawn only for runs cut short"),
            }
        }
        prop_assert!(conserved(&out), "packets not conserved: {:?}", out.table("packet_totals"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    /// Admissions computed ahead and segments taken ahead change nothing with connections
    /// coming and going: the same tables (connections, queue and state rows included) as a
    /// run that takes every packet hop by hop, and the same through temporary files. The
    /// runs stop in the middle of the traffic, with connections open, closing and reused.
    #[test]
    fn fast_paths_change_no_result_with_connections_coming_and_going(
        (n, links, flows) in topology().prop_flat_map(|(n, links)| (Just(n), Just(links), flows(n, true))),
        seed in any::<u64>(),
        stop_ms in 200u64..3000,
    ) {
        let text = scenario(n, &links, &flows, &format!("{stop_ms}ms"), true);
        let sc = rampup_sim::scenario::parse(&text).expect("generated scenarios are valid");
        let many = flows.iter().any(|f| matches!(f.app, AppDraw::Exchange { .. } | AppDraw::Web { .. }));
        prop_assert!(!many || rampup_sim::partition::plan(&sc).is_none(), "a split with connections opened at run time");
        let fast = rampup_sim::run(&sc, seed, &mut rampup_sim::to_the_end).unwrap();
        let reference = rampup_sim::run_hop_by_hop(&sc, seed);
        prop_assert_eq!(fast.packet_hops, reference.packet_hops, "in\n{}", text);
        let spilled = rampup_sim::collected(|sink| rampup_sim::world::World::new(&sc, seed).spill_after(37, 1000).run(&mut rampup_sim::to_the_end, sink)).unwrap();
        prop_assert_eq!(spilled.digest(), fast.digest(), "traces through temporary files in\n{}", text);
        for (name, table) in &reference.tables {
            // Compared as text: NaN (a moment that never came) is not equal to itself.
            prop_assert_eq!(format!("{:?}", fast.table(name)), format!("{:?}", table), "table {} in\n{}", name, text);
        }
        prop_assert!(conserved(&fast));
    }
}

/// A request that arrives in pieces is answered once, when whole; with a think time the
/// response waits for it; the handshake, byte and close times fall where the path's delays
/// put them.
#[test]
fn one_exchange_over_a_clean_path_takes_the_round_trips_it_should() {
    let text = r#"
duration = "10s"
[topology]
kind = "dumbbell"
access_rate = "1Gbps"
access_delay = "0ms"
bottleneck_rate = "1Gbps"
bottleneck_delay = "10ms"
[tcp]
mss = 1000
initial_window = 10
time_wait = "1s"
[[flow]]
from = "s0"
to = "r0"
app = { kind = "request-response", request = 3000, response = 5000, think = "7ms" }
"#;
    let out = rampup_sim::run_toml(text, None).unwrap();
    let c = out.table("connections");
    let ms = |col: &str| (c.f64s(col)[0] / 1e6).round() as u64;
    // RTT 20 ms (plus microseconds of serialisation, rounded away). SYN-ACK at 20 ms; the
    // request's three segments follow the handshake's ACK and arrive at 30 ms; the server
    // thinks 7 ms and its five segments arrive at 47 ms with its FIN; the client's FIN
    // reaches the server at 57 ms, whose TIME-WAIT ends a second later.
    assert_eq!(ms("established_ns"), 20);
    assert_eq!((ms("first_byte_up_ns"), ms("last_byte_up_ns")), (30, 30));
    assert_eq!((ms("first_byte_down_ns"), ms("last_byte_down_ns")), (47, 47));
    assert_eq!(ms("close_ns"), 1057);
    assert_eq!((c.u64s("bytes_up")[0], c.u64s("bytes_down")[0]), (3000, 5000));
    assert!((c.f64s("handshake_rtt_s")[0] - 0.020).abs() < 1e-4);
}

#[test]
fn the_old_name_of_the_write_schedule_says_the_new_one() {
    let text = "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\nbottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"1ms\"\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = { kind = \"requests\", schedule = [] }\n";
    let e = rampup_sim::check_toml(text).unwrap_err().to_string();
    assert!(e.starts_with("flow[0].app.kind: \"requests\" is now called \"writes\""), "{e}");
    let e = rampup_sim::check_toml(&text.replace("requests\", schedule = []", "request-response\", request = 1, response = 1, connections = 2"))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "flow[0].app.mean_gap: missing: the mean time between connections (e.g. \"10ms\")");
    let e = rampup_sim::check_toml(&text.replace("requests\", schedule = []", "bulk\", request = 1")).unwrap_err().to_string();
    assert!(e.starts_with("flow[0].app.request: not a key of kind = \"bulk\""), "{e}");
}

/// Connections that arrive faster than they finish pile up; past the limit of connections
/// open at once the run stops with a one-line error rather than exhausting memory.
#[test]
fn connections_piling_up_stop_the_run_with_an_error() {
    let text = r#"
duration = "10s"
[topology]
kind = "dumbbell"
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "1Mbps"
bottleneck_delay = "50ms"
[[flow]]
from = "s0"
to = "r0"
app = { kind = "request-response", request = 1000, response = 100000, connections = 100, mean_gap = "1ms" }
"#;
    let sc = rampup_sim::scenario::parse(text).unwrap();
    let run = |limit| rampup_sim::collected(|sink| rampup_sim::world::World::new(&sc, 1).open_at_most(limit).run(&mut rampup_sim::to_the_end, sink));
    let Err(e @ rampup_sim::RunError::TooManyOpen { max_open: 20, .. }) = run(20) else { panic!("20 open connections were enough") };
    assert!(e.to_string().starts_with("flow: more than 20 connections were open at once by "), "{e}");
    assert!(run(100).is_ok(), "with room for all of them");
}

/// A web flow's seed fixes its connections: under another TCP (here with Preemptive
/// Retransmission) the same connections open at the same times with the same requests and
/// responses, so that two TCPs' runs compare connection by connection; the run repeats
/// byte for byte.
#[test]
fn a_web_seed_gives_the_same_connections_under_any_tcp() {
    let base =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/web.toml")).unwrap().replace("duration = \"300s\"", "duration = \"20s\"");
    let preemptive = base.replace("[tcp]", "[tcp]\npreemptive = { factor = 2 }");
    assert_ne!(base, preemptive);
    let (a, b) = (rampup_sim::run_toml(&base, Some(5)).unwrap(), rampup_sim::run_toml(&preemptive, Some(5)).unwrap());
    let (ca, cb) = (a.table("connections"), b.table("connections"));
    assert!(ca.u64s("conn").len() > 500, "{} connections", ca.u64s("conn").len());
    for col in ["open_ns", "bytes_up", "requests"] {
        assert_eq!(ca.u64s(col), cb.u64s(col), "{col}");
    }
    // Every response completed in both runs carried the same bytes.
    let done = |c: &rampup_sim::output::Table, r: usize| !c.f64s("duration_ns")[r].is_nan();
    let n = ca.u64s("conn").len().min(cb.u64s("conn").len());
    assert!((0..n).filter(|&r| done(ca, r) && done(cb, r)).all(|r| ca.u64s("bytes_down")[r] == cb.u64s("bytes_down")[r]));
    assert!(cb.u64s("preemptive").iter().sum::<u64>() > 0, "Preemptive Retransmission never fired");
    assert_eq!(a.digest(), rampup_sim::run_toml(&base, Some(5)).unwrap().digest());
}
