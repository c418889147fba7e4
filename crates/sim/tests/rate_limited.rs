//! A rate-limited source (paper 003 §4) on a clean path: scenarios/rate-limited.toml, a
//! 512 kb/s application over 100 Mb/s with 100 ms one way (RTT 200 ms), idle from 10 s to
//! 15 s and at 12 kb/s from 20 s to 25 s. How soon it is back at its rate after each under
//! standard TCP, TCP-CWV and new-CWV; what its receiver got, with and without padding.

use rampup_sim::RunOutput;

const SCENARIO: &str = include_str!("../../../scenarios/rate-limited.toml");
/// The application's rate, in bytes per second, and the path's one-way delay.
const RATE_BYTES_PER_S: f64 = 64_000.0;
const ONE_WAY_S: f64 = 0.1;

fn run(restart: &str, padding: bool) -> RunOutput {
    // The keys replaced below must be in the scenario, else a run would test it unchanged.
    assert!(SCENARIO.contains("restart = \"new-cwv\"") && SCENARIO.contains("chunk = 1000,"), "the scenario's keys moved");
    let text = SCENARIO.replace("restart = \"new-cwv\"", &format!("restart = \"{restart}\""));
    let text = if padding { text.replace("chunk = 1000,", "chunk = 1000, padding = true,") } else { text };
    rampup_sim::run_toml(&text, Some(1)).expect("the scenario is valid")
}

/// Seconds after `from` during which the data received since then (100 ms bins of the
/// throughput table) fell behind what the application wrote one one-way delay earlier, by
/// more than two writes: how long the restart took to reach the application's rate (0: it
/// never fell behind). Looks at the 4 s after `from`.
fn behind_for(out: &RunOutput, from: f64) -> f64 {
    let t = out.table("throughput");
    let (times, data) = (t.u64s("t_ns"), t.u64s("data_bytes"));
    let (mut got, mut last_behind) = (0.0, from);
    for (&t_ns, &bytes) in times.iter().zip(data) {
        let start = t_ns as f64 / 1e9;
        if start < from - 1e-9 || start >= from + 4.0 {
            continue;
        }
        got += bytes as f64;
        let end = start + 0.1;
        if got < RATE_BYTES_PER_S * (end - from - ONE_WAY_S) - 2000.0 {
            last_behind = end;
        }
    }
    ((last_behind - from) * 10.0).round() / 10.0
}

/// Paper 003 §4, Fig. 2 and 3: after a 5 s idle, new-CWV is back at the application's rate
/// in the first RTT (its data arrives one one-way delay after it is written, plus a bin);
/// standard TCP restarts from the restart window (RFC 5681 §4.1) and TCP-CWV from a window
/// halved per RTO of idle (RFC 2861), both slow-starting for several RTTs. After the
/// application-limited period, standard TCP's window has grown meanwhile and it is back at
/// once, as new-CWV; TCP-CWV's window decayed toward what was used and it lags.
#[test]
fn after_an_idle_new_cwv_resumes_within_one_rtt_and_the_others_slow_start() {
    let (ssr, cwv, new_cwv) = (run("ssr", false), run("cwv", false), run("new-cwv", false));
    let idle = [behind_for(&ssr, 15.0), behind_for(&cwv, 15.0), behind_for(&new_cwv, 15.0)];
    assert_eq!(idle, [1.1, 0.7, 0.0], "seconds behind the application after the idle: standard, TCP-CWV, new-CWV");
    let limited = [behind_for(&ssr, 25.0), behind_for(&cwv, 25.0), behind_for(&new_cwv, 25.0)];
    assert_eq!(limited, [0.0, 0.3, 0.0], "after the application-limited period");
}

/// The phases table adds up to the throughput table, phase by phase, and each phase's mean
/// received rate is the application's (less what is still on its way at the phase's end).
#[test]
fn the_phases_table_counts_what_arrived_in_each_phase() {
    let out = run("new-cwv", false);
    let p = out.table("phases");
    assert_eq!(p.strs("name"), ["start", "idle", "after-idle", "limited", "after-limited"]);
    let t = out.table("throughput");
    for k in 0..p.rows() {
        let (from, to) = (p.u64s("start_ns")[k], p.u64s("end_ns")[k]);
        let in_bins: u64 = t.u64s("t_ns").iter().zip(t.u64s("bytes")).filter(|(&t, _)| t >= from && t < to).map(|(_, &b)| b).sum();
        assert_eq!(p.u64s("received_bytes")[k], in_bins, "phase {k}");
    }
    let bps = p.f64s("received_bps");
    assert!((bps[2] - 512_000.0).abs() < 16_000.0, "after the idle: {}", bps[2]);
    assert!(bps[1] < 10_000.0, "idle: only what was on its way: {}", bps[1]);
}

/// Padding (paper 003 §1): the application keeps writing at 512 kb/s through the idle and
/// the application-limited period; the receiver gets as many bytes as ever, but the data
/// among them is what the application had: none while idle, 12 kb/s while limited.
#[test]
fn padding_fills_the_idle_and_is_not_counted_as_data() {
    let out = run("ssr", true);
    let p = out.table("phases");
    let (bytes, data) = (p.u64s("received_bytes"), p.u64s("data_bytes"));
    assert!(bytes[1] > 300_000, "the idle phase carried padding: {}", bytes[1]);
    assert!(data[1] < 7_000, "only data written before the idle: {}", data[1]);
    // What arrives while limited was written from one one-way delay before: 0.1 s at
    // 512 kb/s (6,000 bytes in whole writes), then 4.9 s at 12 kb/s (7,350 bytes), among
    // 320,000.
    assert_eq!(bytes[3], 320_000);
    assert!((12_500..14_000).contains(&data[3]), "limited: {}", data[3]);
    let t = out.table("throughput");
    assert_eq!(t.u64s("data_bytes").iter().sum::<u64>(), data.iter().sum::<u64>());
    assert_eq!(t.u64s("bytes").iter().sum::<u64>(), bytes.iter().sum::<u64>());
}

/// Regression (a fast-path property case): 1 kb/s of data padded to 3,779 kb/s in 100-byte
/// writes. A fast path delivers each write before the next is made and the receiver keeps
/// pace; hop by hop it lags. Both count the same data: 1 kb/s, 6 or 7 bytes a 50 ms bin.
#[test]
fn padding_counts_the_same_data_with_fast_paths_and_hop_by_hop() {
    let text = r#"
        duration = "1788ms"
        [topology]
        kind = "dumbbell"
        pairs = 1
        access_rate = "1Gbps"
        access_delay = "0ms"
        bottleneck_rate = "20Mbps"
        bottleneck_delay = "4ms"
        bottleneck_queue = { packets = 99 }
        [trace]
        throughput = "50ms"
        [[flow]]
        from = "s0"
        to = "r0"
        app = { kind = "rate-limited", rate = "3779kbps", chunk = 100, phases = [ { at = "1ms", rate = "1kbps" } ], padding = true }
        tcp = { delayed_ack = false }
    "#;
    let sc = rampup_sim::scenario::parse(text).expect("valid");
    let fast = rampup_sim::run(&sc, 1, &mut rampup_sim::to_the_end).unwrap();
    let reference = rampup_sim::run_hop_by_hop(&sc, 1);
    let data = |out: &RunOutput| out.table("throughput").u64s("data_bytes").to_vec();
    assert_eq!(data(&fast), data(&reference));
    assert!(data(&fast)[1..35].iter().all(|&b| (6..=7).contains(&b)), "{:?}", data(&fast));
}
