//! Today's TCP on paper 001's dumbbell (40 Mb/s bottleneck, 48 ms one way with 1 ms access
//! links: base RTT 100 ms; 250-packet drop-tail buffer; one bulk flow for 10 s): CUBIC
//! (RFC 9438) with Linux's HyStart, and HyStart++ (RFC 9406).

mod common;

use rampup_sim::{run_toml, RunOutput};

/// Payload bytes per second the 40 Mb/s bottleneck carries with 1000-byte segments and
/// 40-byte headers.
const LINK_PAYLOAD_BYTES_PER_S: f64 = 40e6 / 8.0 * 1000.0 / 1040.0;

fn dumbbell(tcp: &str) -> String {
    common::paper_001_dumbbell(&format!("mss = 1000, initial_window = 10, recovery = \"sack\", {tcp}"), "", "queues = true\nthroughput = \"100ms\"")
}

fn run(tcp: &str) -> RunOutput {
    run_toml(&dumbbell(tcp), None).expect("valid scenario")
}

/// When ssthresh was first set (slow start ended), and when the bottleneck first dropped.
fn exit_and_first_drop(out: &RunOutput) -> (Option<u64>, Option<u64>) {
    let ts = out.table("timeseries");
    let exit = ts.f64s("ssthresh_bytes").iter().position(|s| !s.is_nan()).map(|i| ts.u64s("t_ns")[i]);
    let q = out.table("queues");
    let drop = q.u64s("drops").iter().position(|&d| d > 0).map(|i| q.u64s("t_ns")[i]);
    (exit, drop)
}

/// The share of the bottleneck's payload rate the flow got from `from_s` to `to_s`.
fn utilization(out: &RunOutput, from_s: f64, to_s: f64) -> f64 {
    let t = out.table("throughput");
    let bytes: u64 = t.u64s("t_ns").iter().zip(t.u64s("bytes")).filter(|(&t, _)| t as f64 / 1e9 >= from_s && (t as f64 / 1e9) < to_s).map(|(_, &b)| b).sum();
    bytes as f64 / ((to_s - from_s) * LINK_PAYLOAD_BYTES_PER_S)
}

/// Issue 20's scenario check: CUBIC with HyStart leaves slow start on a delay or ACK-train
/// signal before the buffer overflows, then fills the link: at least 90% from 2 s to 10 s.
#[test]
fn cubic_with_hystart_leaves_slow_start_before_the_first_loss_and_fills_the_link() {
    let out = run(r#"cc = "cubic", startup = "hystart""#);
    let (exit, drop) = exit_and_first_drop(&out);
    let exit = exit.expect("HyStart ended slow start");
    assert!(drop.is_none_or(|d| exit < d), "slow start ended at {exit} ns, the first drop at {drop:?}");
    let u = utilization(&out, 2.0, 10.0);
    assert!(u >= 0.90, "utilization 2-10 s: {u:.3}");
    // Without HyStart, slow start runs into the buffer.
    let plain = run(r#"cc = "cubic""#);
    let (exit, drop) = exit_and_first_drop(&plain);
    assert!(drop.is_some_and(|d| exit.is_some_and(|e| e >= d)), "plain slow start ends at a loss: {exit:?} {drop:?}");
}

/// HyStart++ watches each round's least RTT, which rises only once a standing queue outlasts
/// the round's first ACKs: one round after the window passed the BDP (480 packets). With a
/// buffer of half the BDP, slow start's bursts overflow it in the very round the window
/// passes the BDP (the queue grows by one packet per ACK), so HyStart++ sees nothing and
/// runs as slow start does, to the same loss. With 1000 packets it enters CSS before the
/// first drop and overshoots far less than slow start.
#[test]
fn hystart_plus_plus_over_newreno_enters_css_before_a_loss_where_a_round_sees_the_queue() {
    let modes = |o: &RunOutput| o.table("timeseries").strs("cc_mode").to_vec();
    let drops = |o: &RunOutput| o.table("flows").u64s("drops")[0];
    let (hpp, ss) = (run(r#"startup = "hystart++""#), run(r#"startup = "slow-start""#));
    assert!(!modes(&hpp).iter().any(|m| m == "conservative_slow_start"));
    assert_eq!(drops(&hpp), drops(&ss), "250 packets: the same loss as slow start");
    let deep = |startup: &str| run_toml(&dumbbell(&format!("startup = \"{startup}\"")).replace("packets = 250", "packets = 1000"), None).expect("valid");
    let (hpp, ss) = (deep("hystart++"), deep("slow-start"));
    let ts = hpp.table("timeseries");
    let css = ts.strs("cc_mode").iter().position(|m| m == "conservative_slow_start").map(|i| ts.u64s("t_ns")[i]).expect("CSS");
    let (_, drop) = exit_and_first_drop(&hpp);
    assert!(drop.is_none_or(|d| css < d), "1000 packets: CSS at {css} ns, the first drop at {drop:?}");
    assert!(3 * drops(&hpp) < drops(&ss), "drops: HyStart++ {}, slow start {}", drops(&hpp), drops(&ss));
}

fn tcp_of(tcp: &str, defaults: &str) -> rampup_tcp::TcpConfig {
    let text = dumbbell(tcp).replace("[[flow]]", &format!("[tcp]\n{defaults}\n[[flow]]"));
    // A recovery given replaces the test scenario's own.
    let text = if tcp.contains("recovery") { text.replacen("recovery = \"sack\", ", "", 1) } else { text };
    rampup_sim::scenario::parse(&text).expect("valid").flows[0].tcp.clone()
}

/// `profile = "linux"` sets Linux 6.x's defaults; a key the flow or `[tcp]` gives wins; a
/// recovery other than SACK drops the SACK-only parts, Vegas the startup.
#[test]
fn the_linux_profile_sets_linux_defaults_under_the_keys_given() {
    use rampup_tcp::{CcKind, RecoveryKind, StartupKind};
    // The test scenario's own keys (mss 1000, IW 10, recovery "sack") are given: they stay.
    let t = tcp_of("profile = \"linux\"", "");
    assert!(matches!(t.cc, CcKind::Cubic(c) if c.fast_convergence && c.byte_counting));
    assert_eq!((t.startup, t.recovery, t.rack_tlp, t.prr), (StartupKind::HyStart(()), RecoveryKind::Sack, true, true));
    assert_eq!((t.rto.min.as_nanos(), t.rto.initial.as_nanos(), t.delack_timeout.as_nanos()), (200_000_000, 1_000_000_000, 40_000_000));
    assert_eq!(t.mss_bytes, 1000, "the flow's own key wins over the profile's 1448");
    let from_defaults = tcp_of("", "profile = \"linux\"\nmin_rto = \"1s\"");
    assert!(matches!(from_defaults.cc, CcKind::Cubic(_)) && from_defaults.rto.min.as_nanos() == 1_000_000_000, "[tcp] keys win too");
    let newreno = tcp_of("profile = \"linux\", recovery = \"newreno\"", "");
    assert_eq!((newreno.recovery, newreno.rack_tlp, newreno.prr), (RecoveryKind::NewReno, false, false));
    let vegas = tcp_of("profile = \"linux\", cc = \"vegas\"", "");
    assert!(matches!(vegas.cc, CcKind::Vegas(_)) && vegas.startup == StartupKind::SlowStart(()));
    let e = rampup_sim::check_toml(&dumbbell("profile = \"bsd\"")).unwrap_err().to_string();
    assert!(e.contains("flow[0].tcp.profile") && e.contains("linux") && e.contains("ns2"), "{e}");
}

/// Linux's quick-ACK mode: with delayed ACKs (one per two segments), the first 16 ACKs of a
/// connection go one per segment, and again after an idle longer than the RTO.
#[test]
fn quick_ack_mode_acks_each_segment_at_the_start_and_after_an_idle() {
    let acks = |quickack: bool| {
        let text = dumbbell(&format!("delayed_ack = true, quickack = {quickack}"))
            .replace(r#"app = { kind = "bulk" }"#, r#"app = { kind = "writes", schedule = [ { at = "0s", bytes = 20000 }, { at = "3s", bytes = 20000 } ] }"#)
            .replace("[trace]", "[trace]\npackets = true");
        let out = run_toml(&text, None).expect("valid");
        let p = out.table("packets");
        // Pure ACKs the receiver put on its access link, in the two bursts.
        let rows = (0..p.rows()).filter(|&i| p.strs("event")[i] == "enqueue" && p.strs("link")[i].starts_with("r0") && p.strs("kind")[i] == "ack");
        let times: Vec<u64> = rows.map(|i| p.u64s("t_ns")[i]).collect();
        (times.iter().filter(|&&t| t < 1_000_000_000).count(), times.iter().filter(|&&t| t > 3_000_000_000).count())
    };
    // 20 segments a burst: delayed ACKs give 10 ACKs; quick-ACK mode 16 for the first 16
    // segments and 2 for the last 4 (the last, ending the write, ACKed at once either way).
    assert_eq!(acks(false), (10, 10));
    assert_eq!(acks(true), (18, 18), "16 quick ACKs at the start and after the 3 s idle, then 2 for the last 4");
}

/// Pacing (Linux's 200 % of cwnd/srtt in slow start; RFC 9002's 1.25 × cwnd/srtt) against a
/// buffer of 30 packets, a sixteenth of the 480-packet BDP. Unpaced, each ACK of slow start
/// releases two segments at the access link's 1 Gb/s, so the queue grows by a packet per
/// ACK and overflows in the round whose window passes about the buffer: slow start ends
/// with ssthresh below a quarter of the BDP. Paced, the queue grows only by the rate's
/// excess over the link, and slow start ends past half the BDP.
#[test]
fn pacing_carries_slow_start_past_a_small_buffer() {
    let first_ssthresh_segments = |tcp: &str| {
        let out = run_toml(&dumbbell(tcp).replace("packets = 250", "packets = 30"), None).expect("valid");
        let ss = out.table("timeseries").f64s("ssthresh_bytes").iter().copied().find(|s| !s.is_nan()).expect("slow start ended");
        ss / 1000.0
    };
    let unpaced = first_ssthresh_segments("");
    assert!(unpaced < 120.0, "unpaced: ssthresh {unpaced} segments");
    for pacing in ["linux", "quic"] {
        let paced = first_ssthresh_segments(&format!("pacing = \"{pacing}\""));
        assert!(paced > 240.0, "{pacing} pacing: ssthresh {paced} segments");
    }
}

/// N belongs to QUIC's form and is at least 1 (RFC 9002 §7.7); the deprecated flat keys
/// are the same settings.
#[test]
fn pacing_keys_are_checked() {
    let e = |tcp: &str| rampup_sim::check_toml(&dumbbell(tcp)).unwrap_err().to_string();
    assert!(e("pacing = { kind = \"linux\", n = 2.0 }").contains("flow[0].tcp.pacing.n: applies to pacing kind \"quic\" only"));
    assert!(e("pacing = { kind = \"quic\", n = 0.5 }").contains("flow[0].tcp.pacing.n: must be a number from 1 to 100"));
    assert!(e("pacing = \"quic\", pacing_n = 0.5").contains("flow[0].tcp.pacing_n: must be a number from 1 to 100"));
    assert!(e("pacing = { kind = \"none\", unpaced = 4 }").contains("flow[0].tcp.pacing.unpaced: applies to pacing kind \"linux\" or \"quic\" only"));
    assert!(e("pacing = \"fq\"").contains("flow[0].tcp.pacing"));
    let quic = tcp_of("pacing = { kind = \"quic\", n = 2.0, unpaced = 4 }", "").pacing.expect("paced");
    assert_eq!((quic.rate, quic.unpaced_segments), (rampup_tcp::PacingRate::Quic { n_percent: 200 }, 4));
    assert_eq!(tcp_of("pacing = \"quic\", pacing_n = 2.0, pacing_unpaced = 4", "").pacing, Some(quic));
}

/// CUBIC's `beta` (RFC 9438 §5.1's β) lies between 0 and 1; in a `cc` table CUBIC's `beta`
/// is it, Vegas' its own.
#[test]
fn cubic_beta_is_checked_and_routed_by_the_cc_table() {
    use rampup_tcp::CcKind;
    let e = |tcp: &str| rampup_sim::check_toml(&dumbbell(tcp)).unwrap_err().to_string();
    assert!(e("cc = { kind = \"cubic\", beta = 1.0 }").contains("flow[0].tcp.cc.beta: must be a number above 0 and below 1"));
    assert!(e("cc = \"cubic\", cubic_beta = 1.0").contains("flow[0].tcp.cubic_beta: must be a number above 0 and below 1"));
    assert!(matches!(tcp_of("cc = { kind = \"cubic\", beta = 0.8 }", "").cc, CcKind::Cubic(c) if c.beta_permille == 800));
    assert!(matches!(tcp_of("cc = { kind = \"vegas\", beta = 4.0 }", "").cc, CcKind::Vegas(v) if v.beta == 4.0));
    // A part's settings do nothing where the flow chooses another part.
    assert_eq!(tcp_of("cc = \"newreno\", cubic_beta = 0.8", "").cc, CcKind::NewReno { byte_counting: false });
}

/// `profile = "bsd44"` sets 4.4BSD-Lite's TCP as far as the keys reach: Reno without SACK or
/// limited transmit, ssthresh from cwnd, the 500 ms slow timer (RTO from 6 s, at least 1 s,
/// at most 64 s), delayed ACKs after 200 ms, slow-start restart.
#[test]
fn the_bsd44_profile_sets_4_4bsd_lites_tcp() {
    use rampup_tcp::{LossWindow, RecoveryKind, Restart};
    let bare = common::paper_001_dumbbell("profile = \"bsd44\"", "", "");
    let t = rampup_sim::scenario::parse(&bare).expect("valid").flows[0].tcp.clone();
    assert_eq!((t.initial_window_segments, t.recovery, t.offers_sack(), t.limited_transmit), (1, RecoveryKind::Reno, false, false));
    assert_eq!((t.loss_window, t.restart), (LossWindow::Cwnd, Restart::Ssr));
    let ms = |d: rampup_tcp::Duration| d.as_nanos() / 1_000_000;
    assert_eq!((ms(t.rto.initial), ms(t.rto.min), ms(t.rto.max), ms(t.rto.granularity)), (6000, 1000, 64_000, 500));
    assert_eq!((t.delayed_ack, ms(t.delack_timeout)), (true, 200));
    assert_eq!(tcp_of("profile = \"bsd44\"", "").initial_window_segments, 10, "the flow's own key wins over the profile's 1");
}

/// `profile = "bsd44"` also keeps 4.4BSD-Lite's clocks (docs/bsd44.md): `rto_rule = "bsd44"`
/// (one segment timed in 500 ms ticks, srtt in eighths of a tick, the retransmit timer
/// firing on a tick) and `delack_on_tick` (the delayed ACK at the next 200 ms tick); and it
/// does not hold the window to 64 KB. Three lone segments on paper 001's path (one way 50 ms
/// and a little): at 0 s (sent at the handshake's end, about 100 ms), at 3.3 s, lost (every
/// packet lost from 3.2 s to 4.2 s), and its retransmission.
#[test]
fn the_bsd44_profile_runs_on_bsd_lites_clocks() {
    use rampup_tcp::measure::RtoRule;
    let t = tcp_of("profile = \"bsd44\"", "");
    assert_eq!((t.rto.rule, t.delack_on_tick), (RtoRule::Bsd44, true));
    assert!(t.rcv_window_bytes > 65_535, "the window is not held to 64 KB: {}", t.rcv_window_bytes);
    let run = |tcp: &str| {
        let flow = format!(
            "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = {{ kind = \"writes\", schedule = [ {{ at = \"0s\", bytes = 1000 }}, {{ at = \"3.3s\", bytes = 1000 }} ] }}\ntcp = {{ {tcp} }}\n\
             [[change]]\nat = \"3.2s\"\nlink = \"left-right\"\nloss = 1.0\n[[change]]\nat = \"4.2s\"\nlink = \"left-right\"\nloss = 0.0\n[trace]\npackets = true\n"
        );
        let text = common::dumbbell(("1Gbps", "1ms"), ("40Mbps", "48ms"), &flow).replace("duration = \"1s\"", "duration = \"10s\"");
        let out = run_toml(&text, None).expect("valid");
        let p = out.table("packets");
        let sent = |from: &str, kind: &str| -> Vec<u64> {
            (0..p.rows())
                .filter(|&i| p.strs("event")[i] == "enqueue" && p.strs("link")[i].starts_with(from) && p.strs("kind")[i] == kind)
                .map(|i| p.u64s("t_ns")[i])
                .collect()
        };
        let srtt: Vec<f64> = out.table("timeseries").f64s("srtt_ns").iter().copied().filter(|s| !s.is_nan()).collect();
        (sent("s0", "data"), sent("r0", "ack"), srtt, out.table("flows").u64s("timeouts")[0])
    };
    let (data, acks, srtt, timeouts) = run("profile = \"bsd44\"");
    // The handshake: t_rtt 1 (no tick between SYN and SYN-ACK), srtt = 1 tick, rttvar 1/2,
    // RTO 3 ticks; the first segment's ACK, t_rtt 1 again: srtt 7/8 tick, rttvar 3/4, RTO 3
    // ticks, 1.5 s. The segment of 3.3 s, lost, times out on the third tick after it, at
    // 4.5 s, not 1.5 s after it.
    assert_eq!(timeouts, 1);
    assert_eq!((data.len(), data[1], data[2]), (3, 3_300_000_000, 4_500_000_000), "{data:?}");
    // The receiver's delayed ACKs go on the 200 ms ticks after the segments arrive (about
    // 150 ms and 4.55 s), not 200 ms after them.
    assert_eq!(acks, [200_000_000, 4_600_000_000]);
    assert_eq!(srtt.first().copied(), Some(500e6), "the handshake's one tick");
    assert!(srtt.iter().all(|s| s % 62.5e6 == 0.0), "srtt in eighths of a 500 ms tick: {srtt:?}");
    // The same keys without BSD's clocks: the timer and the ACKs run from their segments.
    let (data, acks, srtt, _) = run("profile = \"bsd44\", rto_rule = \"rfc6298\", delack_on_tick = false");
    assert!(data[2] != 4_500_000_000 && acks[0] > 300_000_000, "{data:?} {acks:?}");
    assert!(srtt.iter().any(|s| s % 62.5e6 != 0.0), "{srtt:?}");
}

/// BSD's timers count on their clocks: `rto_rule = "bsd44"` needs the slow timer's tick
/// (`clock_granularity`) and takes its own samples (not with `rto_timing = "ns2-full"`);
/// `delack_on_tick` needs a period (`delack_timeout`).
#[test]
fn the_bsd44_timers_need_their_clocks() {
    let e = |tcp: &str| rampup_sim::check_toml(&dumbbell(tcp)).unwrap_err().to_string();
    assert!(e("rto_rule = \"bsd44\"").contains("flow[0].tcp.clock_granularity"));
    assert!(e("profile = \"bsd44\", rto_timing = \"ns2-full\"").contains("flow[0].tcp.rto_timing"));
    assert!(e("delayed_ack = true, delack_on_tick = true, delack_timeout = \"0s\"").contains("flow[0].tcp.delack_timeout"));
    assert!(rampup_sim::check_toml(&dumbbell("rto_rule = \"bsd44\", clock_granularity = \"500ms\"")).is_ok());
}

/// `rto_rule = "ns2"` (ns-2.35's TcpAgent, docs/ns2-reading.md) counts the RTT in ticks of
/// `clock_granularity` on each agent's own clock, whose phase (`boot_time_`, uniform within a
/// tick) comes from the run's seed: a handshake of about 150 ms crosses one tick of 100 ms or
/// two as the phase has it, so its srtt is 100 or 200 ms, and each seed gives the same run
/// every time.
#[test]
fn the_ns2_rule_times_in_ticks_of_each_agents_own_clock() {
    let flow = "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = { kind = \"writes\", schedule = [ { at = \"0s\", bytes = 1000 } ] }\n\
                tcp = { rto_rule = \"ns2\", clock_granularity = \"100ms\" }\n[trace]\npackets = true\n";
    let text = common::dumbbell(("1Gbps", "1ms"), ("40Mbps", "73ms"), flow);
    let first_srtt = |seed: u64| -> f64 {
        let out = run_toml(&text, Some(seed)).expect("valid");
        out.table("timeseries").f64s("srtt_ns").iter().copied().find(|s| !s.is_nan()).expect("an srtt")
    };
    let seen: Vec<f64> = (1..=12).map(first_srtt).collect();
    assert!(seen.iter().all(|&s| s == 100e6 || s == 200e6), "{seen:?}");
    assert!(seen.contains(&100e6) && seen.contains(&200e6), "the phase varies with the seed: {seen:?}");
    assert_eq!(first_srtt(5), seen[4], "a seed gives the same run again");
    // Like BSD's, the rule needs its tick and takes its own samples.
    let e = |tcp: &str| rampup_sim::check_toml(&dumbbell(tcp)).unwrap_err().to_string();
    assert!(e("rto_rule = \"ns2\"").contains("flow[0].tcp.clock_granularity"));
    assert!(e("rto_rule = \"ns2\", clock_granularity = \"10ms\", rto_timing = \"ns2-full\"").contains("flow[0].tcp.rto_timing"));
}
