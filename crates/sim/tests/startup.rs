//! Startup parts on the dumbbell of paper 001 (SSthreshless Start, §II): 40 Mb/s bottleneck
//! with 48 ms one-way delay, 1 Gb/s side links with 1 ms, 250-packet drop-tail buffer (BDP/2),
//! 1000-byte segments, one bulk flow for 10 s. Base RTT 100 ms, BDP about 480 packets.

mod common;

use rampup_sim::{check_toml, run_toml, Column, RunOutput};

/// Payload bytes the bottleneck carries in 10 s at 40 Mb/s (the paper's 100 % = 50 000 segments).
const CAPACITY_BYTES: f64 = 40e6 / 8.0 * 10.0;

fn paper_dumbbell(tcp: &str, flow: &str) -> String {
    common::paper_001_dumbbell(&format!("handshake = false, mss = 1000, initial_window = 2, {tcp}"), flow, "queues = false")
}

fn run(tcp: &str) -> RunOutput {
    run_toml(&paper_dumbbell(tcp, ""), None).expect("valid scenario")
}

fn flow_u64(out: &RunOutput, column: &str) -> u64 {
    out.table("flows").u64s(column)[0]
}

fn modes(out: &RunOutput) -> &[String] {
    match out.table("timeseries").column("cc_mode") {
        Some(Column::Str(v)) => v,
        other => panic!("cc_mode column: {other:?}"),
    }
}

#[test]
fn ssthreshless_fills_the_link_where_slow_start_with_large_ssthresh_loses_heavily() {
    let ssl = run(r#"cc = "ssthreshless""#);
    let ss_l = run("initial_ssthresh = 5000");
    // SS (L): slow start doubles far past BDP + buffer (about 730 packets), the round that
    // overflows loses hundreds, and NewReno cannot repair a burst like that without a timeout.
    assert!(flow_u64(&ss_l, "drops") >= 100, "SS (L) drops: {}", flow_u64(&ss_l, "drops"));
    assert!(flow_u64(&ss_l, "timeouts") >= 1);
    // SSthreshless Start turns to linear growth as soon as the backlog exceeds γ, and its window
    // stays below BDP + buffer here: no loss at all, so no timeout.
    assert_eq!((flow_u64(&ssl, "drops"), flow_u64(&ssl, "timeouts")), (0, 0));
    let utilization = |o: &RunOutput| flow_u64(o, "bytes_received") as f64 / CAPACITY_BYTES;
    let (u_ssl, u_ss_l) = (utilization(&ssl), utilization(&ss_l));
    assert!(u_ssl > 0.5, "SSthreshless utilization {u_ssl:.3}");
    assert!(u_ssl > 1.3 * u_ss_l, "SSthreshless {u_ssl:.3} vs SS (L) {u_ss_l:.3}");
}

#[test]
fn ssthreshless_trace_follows_the_state_machine() {
    let out = run(r#"cc = "ssthreshless""#);
    let ts = out.table("timeseries");
    let (cwnd, events, modes) = (ts.u64s("cwnd_bytes"), ts.u64s("congestive_events"), modes(&out));
    assert_eq!(modes[0], "slow_start");
    let first_other = modes.iter().position(|m| m != "slow_start").expect("the backlog exceeded γ");
    assert_eq!(modes[first_other], "linear_increase", "§IV-B: it always starts in Linear Increase Mode");
    assert!(modes[first_other..].iter().all(|m| m == "linear_increase" || m == "adjustive_increase"), "no loss: no NewReno");
    for i in 1..modes.len() {
        // The count rises exactly at a Linear → Adjustive switch, by one.
        let fell_back = modes[i - 1] == "linear_increase" && modes[i] == "adjustive_increase";
        assert_eq!(events[i] - events[i - 1], fell_back as u64, "row {i}");
        assert!(cwnd[i] >= cwnd[i - 1], "cwnd never shrinks before a loss (row {i})");
    }
    assert!(events[events.len() - 1] >= 1);
    assert!(ts.f64s("ssthresh_bytes").iter().all(|s| s.is_nan()), "no ssthresh is used");
}

#[test]
fn ssthreshless_slow_start_is_newreno_slow_start_until_the_first_crossing() {
    let ssl = run(r#"cc = "ssthreshless""#);
    let nr = run(r#"cc = "newreno""#);
    let first_other = modes(&ssl).iter().position(|m| m != "slow_start").unwrap();
    for c in ["t_ns", "cwnd_bytes", "snd_una"] {
        assert_eq!(ssl.table("timeseries").u64s(c)[..first_other], nr.table("timeseries").u64s(c)[..first_other], "{c}");
    }
}

#[test]
fn ssthreshless_hands_over_to_newreno_at_the_first_loss() {
    // A 20-packet buffer overflows in the first slow start (γ = 30 lets it run long enough).
    let text = paper_dumbbell(r#"cc = { kind = "ssthreshless", gamma = 30.0 }"#, "").replace("packets = 250", "packets = 20");
    let out = run_toml(&text, None).unwrap();
    assert!(flow_u64(&out, "drops") > 0);
    let ts = out.table("timeseries");
    let modes = modes(&out);
    let ssthresh = ts.f64s("ssthresh_bytes");
    let lost = ssthresh.iter().position(|s| !s.is_nan()).expect("a loss set ssthresh");
    assert!(modes[lost..].iter().all(|m| m == "slow_start" || m == "congestion_avoidance"), "NewReno from the first loss on");
    assert!(modes[lost..].iter().any(|m| m == "congestion_avoidance"));
}

#[test]
fn hoe_sets_ssthresh_near_the_bdp_from_the_first_ack_pair() {
    let out = run(r#"cc = "hoe""#);
    let ssthresh = out.table("timeseries").f64s("ssthresh_bytes");
    let first = ssthresh.iter().find(|s| !s.is_nan()).copied().expect("an estimate");
    // 1040-byte packets at 40 Mb/s leave the bottleneck 208 µs apart: 1000 payload bytes per
    // 208 µs × BaseRTT (100.2 ms with serialisation) ≈ 481 700 bytes.
    assert!((470_000.0..=490_000.0).contains(&first), "Hoe's ssthresh {first}");
}

#[test]
fn limited_slow_start_leaves_max_ssthresh_slower_than_slow_start() {
    let out = run(r#"cc = { kind = "limited-slow-start", max_ssthresh = 100 }"#);
    // When each run's window first reaches 300 segments.
    let reach = |out: &RunOutput| {
        let ts = out.table("timeseries");
        let i = ts.u64s("cwnd_bytes").iter().position(|&c| c >= 300_000).expect("cwnd reaches 300 segments");
        ts.u64s("t_ns")[i]
    };
    assert!(modes(&out).iter().any(|m| m == "limited_slow_start"), "above max_ssthresh");
    // RFC 3742: above max_ssthresh (100 segments) at most max_ssthresh/2 = 50 segments per
    // RTT (100 ms here), so 100 to 300 segments take at least 4 RTTs; slow start doubles
    // per RTT and needs under 2. Limited Slow Start must arrive at least 2 RTTs later.
    let slow_start = run("");
    assert!(reach(&out) >= reach(&slow_start) + 200_000_000, "limited {} ns, slow start {} ns", reach(&out), reach(&slow_start));
    assert_eq!(out.table("flows").column("cc"), Some(&Column::Str(vec!["limited-slow-start".into()])));
}

#[test]
fn start_jitter_draws_a_start_per_seed_from_the_flow_stream() {
    let text = paper_dumbbell("", r#"start = "1s""#).replace("app = ", "start_jitter = \"100ms\"\napp = ");
    let start = |seed| run_toml(&text, Some(seed)).unwrap().table("flows").u64s("start_ns")[0];
    let starts: Vec<u64> = (1..=4).map(start).collect();
    assert!(starts.iter().all(|&s| (1_000_000_000..=1_100_000_000).contains(&s)), "{starts:?}");
    assert!(starts.windows(2).any(|p| p[0] != p[1]), "seeds must matter: {starts:?}");
    assert_eq!(start(2), starts[1], "the same seed gives the same start");
}

#[test]
fn startup_keys_name_their_path_and_allowed_values() {
    let error = |tcp: &str| check_toml(&paper_dumbbell(tcp, "")).unwrap_err().to_string();
    let e = error(r#"cc = "ssthreshles""#);
    assert!(e.contains("flow[0].tcp.cc") && e.contains("ssthreshless") && e.contains("limited-slow-start"), "{e}");
    let e = error(r#"cc = { kind = "ssthreshless", schedule = "linear" }"#);
    assert!(e.contains("flow[0].tcp.cc.schedule") && e.contains("halving") && e.contains("harmonic"), "{e}");
    let e = error(r#"startup = { kind = "ssthreshless", gamma = -1.0 }"#);
    assert!(e.contains("flow[0].tcp.startup.gamma"), "{e}");
    let e = error(r#"cc = { kind = "limited-slow-start", max_ssthresh = 1 }"#);
    assert!(e.contains("flow[0].tcp.cc.max_ssthresh") && e.contains("at least 2"), "{e}");
    // The flat keys of an earlier release name themselves.
    let e = error(r#"cc = "ssthreshless", ssthreshless_gamma = -1.0"#);
    assert!(e.contains("flow[0].tcp.ssthreshless_gamma"), "{e}");
}

#[test]
fn a_startup_composes_with_newreno_and_its_shorthand_is_the_same_run() {
    // `cc = "hoe"` is NewReno with Hoe's startup: the same tables, the same name in results.
    for startup in ["hoe", "limited-slow-start", "ssthreshless"] {
        let shorthand = run(&format!(r#"cc = "{startup}""#));
        let composed = run(&format!(r#"cc = "newreno", startup = "{startup}""#));
        for table in ["flows", "timeseries"] {
            // Compared as text: a column of NaN (no end time) is never == itself.
            let text = |o: &RunOutput| format!("{:?}", o.table(table));
            assert!(text(&shorthand) == text(&composed), "{startup}: {table}");
        }
        match composed.table("flows").column("cc") {
            Some(Column::Str(v)) => assert_eq!(v[0], startup),
            other => panic!("cc column: {other:?}"),
        }
    }
    // The startup leaves the controller's own rule to it: with RFC 3465 byte counting under
    // Hoe, delayed ACKs of two segments grow slow start by two segments, not one.
    let ack2 = "delayed_ack = true, startup = \"hoe\"";
    let plain = run(ack2);
    let abc = run(&format!("{ack2}, byte_counting = true"));
    assert!(flow_u64(&abc, "bytes_received") > flow_u64(&plain, "bytes_received"));
    let e = |tcp: &str| check_toml(&paper_dumbbell(tcp, "")).unwrap_err().to_string();
    let msg = e(r#"cc = "vegas", startup = "hoe""#);
    assert!(msg.starts_with("flow[0].tcp.startup: ") && msg.contains("own slow start"), "{msg}");
    let msg = e(r#"cc = "hoe", startup = "ssthreshless""#);
    assert!(msg.starts_with("flow[0].tcp.startup: ") && msg.contains("cc = \"newreno\""), "{msg}");
    let msg = e(r#"startup = "hystart3""#);
    assert!(msg.contains("flow[0].tcp.startup") && msg.contains("slow-start") && msg.contains("hystart++"), "{msg}");
    let msg = e(r#"cc = "vegas", byte_counting = true"#);
    assert!(msg.starts_with("flow[0].tcp.byte_counting: "), "{msg}");
    assert!(check_toml(&paper_dumbbell(r#"cc = "vegas", startup = "slow-start""#, "")).is_ok());
}

#[test]
fn an_initial_window_above_rfc_6928s_ten_is_sent_at_once() {
    // Startup studies use IW 16, 32, 64: the first flight is IW segments back to back, and
    // slow start doubles it in the first RTT (base RTT 100 ms, BDP about 480 packets).
    let text = paper_dumbbell(r#"cc = "newreno""#, "").replace("initial_window = 2", "initial_window = 64");
    let out = run_toml(&text, None).expect("valid scenario");
    let ts = out.table("timeseries");
    let (t, cwnd) = (ts.u64s("t_ns"), ts.u64s("cwnd_bytes"));
    assert_eq!(cwnd[0], 64_000);
    // The 64 ACKs come 208 µs apart (a 1,040-byte packet at 40 Mb/s) from about 102 ms on;
    // the next flight's, from about 200 ms.
    let one_rtt = t.iter().rposition(|&t| t < 150_000_000).expect("rows in the first RTT");
    assert_eq!(cwnd[one_rtt], 128_000, "one segment per ACK of the first 64");
}

#[test]
fn vegas_recovers_from_a_timeout_with_thousands_of_segments_outstanding() {
    // Table VI's dumbbell: 150 Mb/s, buffer 937 (BDP/2). Default Vegas overshoots in slow start
    // (87 drops); NewReno repairs one hole per RTT until the timeout at 3.41 s, when 12,386
    // segments are outstanding. Its slow start then grows at the end of every other rate epoch;
    // the epoch under way at the timeout ended beyond the old snd_nxt, so cwnd sat at one
    // segment to the end of the run and 6,115 segments arrived in 10 s. With the epoch begun
    // anew at the timeout, go-back-N is past the old snd_nxt by 4.8 s and 66,378 arrive.
    let text = paper_dumbbell(r#"cc = "vegas""#, "").replace("40Mbps", "150Mbps").replace("packets = 250", "packets = 937");
    let out = run_toml(&text, None).unwrap();
    assert_eq!(flow_u64(&out, "timeouts"), 1);
    let delivered = flow_u64(&out, "bytes_received") / 1000;
    assert!(delivered > 50_000, "delivered {delivered} segments");
    let ts = out.table("timeseries");
    let (t, cwnd) = (ts.u64s("t_ns"), ts.u64s("cwnd_bytes"));
    let timeout = (1..cwnd.len()).find(|&i| cwnd[i] == 1000 && cwnd[i - 1] > 1000).expect("the timeout");
    let grown = (timeout..cwnd.len()).find(|&i| cwnd[i] >= 8000).expect("slow start after the timeout");
    assert!(t[grown] - t[timeout] < 1_000_000_000, "cwnd reached 8 segments {} ms after the timeout", (t[grown] - t[timeout]) / 1_000_000);
}

/// The flows table's slow-start exit is where the trace first leaves slow start: the first
/// row whose mode is neither `slow_start` nor RFC 3742's `limited_slow_start` (HyStart++'s
/// `conservative_slow_start` counts as out, RFC 9406 §4.2). Its cwnd is that row's when an ACK
/// ended slow start, or the row before's when a loss did (the window the loss found; the row
/// shows the response, a new ssthresh).
#[test]
fn the_flows_slow_start_exit_is_where_the_trace_first_leaves_slow_start() {
    let startups = [
        r#"cc = "newreno""#,
        "initial_ssthresh = 100",
        r#"cc = "hoe""#,
        r#"cc = "vegas""#,
        r#"cc = "ssthreshless""#,
        r#"cc = { kind = "limited-slow-start", max_ssthresh = 100 }"#,
        r#"startup = "hystart++""#,
        r#"cc = "cubic", startup = "hystart""#,
    ];
    for tcp in startups {
        let out = run(tcp);
        let (flows, ts) = (out.table("flows"), out.table("timeseries"));
        let (t, cwnd, ssthresh) = (ts.u64s("t_ns"), ts.u64s("cwnd_bytes"), ts.f64s("ssthresh_bytes"));
        let i = modes(&out).iter().position(|m| m != "slow_start" && m != "limited_slow_start").expect("slow start ends");
        assert_eq!(flows.f64s("slow_start_exit_ns")[0], t[i] as f64, "{tcp}");
        let exit_cwnd = flows.f64s("slow_start_exit_cwnd_bytes")[0] as u64;
        let by_loss = i > 0 && ssthresh[i] != ssthresh[i - 1] && cwnd[i] < cwnd[i - 1];
        assert_eq!(exit_cwnd, if by_loss { cwnd[i - 1] } else { cwnd[i] }, "{tcp}: row {i}, by loss {by_loss}");
    }
}

#[test]
fn a_flow_that_never_leaves_slow_start_has_no_exit() {
    // 20 segments, no loss: slow start never reaches an ssthresh it does not have.
    let out = run_toml(&paper_dumbbell("", "").replace(r#"kind = "bulk""#, r#"kind = "bulk", bytes = 20000"#), None).unwrap();
    let flows = out.table("flows");
    assert!(flows.f64s("end_ns")[0].is_finite(), "the transfer finished");
    assert!(flows.f64s("slow_start_exit_ns")[0].is_nan() && flows.f64s("slow_start_exit_cwnd_bytes")[0].is_nan());
}
