//! Restart after idle between two endpoints (a sender and a delayed-ACK receiver) over a
//! channel with a fixed one-way delay and no serialisation, so that segments sent back to
//! back leave at the same instant. Each test sends a response, waits, sends a second one and
//! reads the departure times of the second.

mod common;

use common::Pair;
use rampup_tcp::time::Duration;
use rampup_tcp::{IdleThreshold, Rate, Restart, TcpConfig, Time};

const MSS: u64 = 1000;
const DELAY: Duration = Duration::from_millis(50);

fn pair(cfg: TcpConfig) -> Pair {
    Pair::new(cfg, Pair::fixed_delay(DELAY))
}

/// Departure times of end 0's data segments.
fn data_sent(p: &Pair) -> Vec<Time> {
    p.departures[0].iter().filter(|(_, seg)| seg.len > 0).map(|&(t, _)| t).collect()
}

/// Arrival times of the segments (ACKs) that reach end 0.
fn acks_at(p: &Pair) -> Vec<Time> {
    p.arrivals[0].iter().map(|&(t, _)| t).collect()
}

fn config(restart: Restart) -> TcpConfig {
    TcpConfig { mss_bytes: MSS as u32, initial_window_segments: 2, delayed_ack: true, restart, ..TcpConfig::default() }
}

fn at_secs(s: u64) -> Time {
    Time::ZERO + Duration::from_secs(s)
}

/// What the sender looked like when the second response was written.
struct Before {
    cwnd_segments: u64,
    srtt: Duration,
    rate: Option<Rate>,
}

/// A 24-segment response at 0 s, an idle of about 5 s, a 30-segment response at 5 s.
/// Returns the sender's state before the second write and the departures of its segments.
fn second_response(cfg: TcpConfig, idle_end: Time) -> (Pair, Before, Vec<Time>) {
    let mut p = pair(cfg);
    p.ends[0].write(24 * MSS);
    p.run_until(idle_end);
    assert!(p.ends[0].all_acked());
    let e = &p.ends[0];
    let before = Before { cwnd_segments: e.snapshot().cwnd / MSS, srtt: e.measure().srtt().unwrap(), rate: e.measure().last_rate().map(|s| s.actual_rate()) };
    let first = data_sent(&p).len();
    p.ends[0].write(30 * MSS);
    p.run_until(idle_end + Duration::from_secs(3));
    assert!(p.ends[0].all_acked());
    let times = data_sent(&p)[first..].to_vec();
    (p, before, times)
}

/// Segments that left at the instant the second response was written.
fn burst(times: &[Time], start: Time) -> usize {
    times.iter().take_while(|&&t| t == start).count()
}

#[test]
fn ssr_restart_sends_at_most_the_restart_window_back_to_back() {
    let (p, before, times) = second_response(config(Restart::Ssr), at_secs(5));
    assert!(before.cwnd_segments > 2, "the first response opened the window");
    assert_eq!(burst(&times, at_secs(5)), 2, "RW = IW = 2 segments");
    assert_eq!(p.ends[0].stats().idle_restarts, 1);
}

#[test]
fn nssr_restart_sends_a_full_cwnd_back_to_back() {
    let (_, before, times) = second_response(config(Restart::Nssr), at_secs(5));
    assert_eq!(burst(&times, at_secs(5)) as u64, before.cwnd_segments);
}

/// Checks a paced restart: `n` segments `interval` apart from `start`, at least 2 and at
/// most cwnd; then pacing ends at the first ACK and every later segment leaves at the arrival
/// of an ACK.
#[track_caller]
fn assert_paced(p: &Pair, times: &[Time], start: Time, n: u64, interval: Duration, cwnd_segments: u64) {
    assert!((2..=cwnd_segments).contains(&n), "{n} segments, cwnd {cwnd_segments}");
    let acks_at = acks_at(p);
    let first_ack = *acks_at.iter().find(|&&t| t > start).expect("an ACK after the restart");
    let paced: Vec<Time> = times.iter().copied().filter(|&t| t < first_ack).collect();
    let expect: Vec<Time> = (0..n).map(|k| start + Duration(k * interval.as_nanos())).collect();
    assert_eq!(paced, expect, "{n} segments {interval} apart");
    for &t in times.iter().filter(|&&t| t >= first_ack) {
        assert!(acks_at.contains(&t), "a segment at {t} left between ACKs: ACK clocking did not resume");
    }
    assert!(!p.ends[0].snapshot().pacing);
}

#[test]
fn rbp_rate_restart_paces_the_computed_segments_and_resumes_ack_clocking() {
    let (p, b, times) = second_response(config(Restart::RbpRate { scale: 1.0 }), at_secs(5));
    let rate = b.rate.expect("a rate sample from the first response");
    // Paper 000 §3.1-3.2: what one srtt carries at the rate, within [2, cwnd].
    let n = (rate.bytes_in(b.srtt) / MSS).clamp(2, b.cwnd_segments);
    let interval = rate.tx_time(MSS).min(b.srtt.mul_div(1, n));
    println!("rbp-rate: rate {} b/s, srtt {}, cwnd {}: {n} segments every {interval}", rate.bps(), b.srtt, b.cwnd_segments);
    assert_paced(&p, &times, at_secs(5), n, interval, b.cwnd_segments);
}

#[test]
fn rbp_cwnd_restart_spreads_cwnd_over_srtt_and_resumes_ack_clocking() {
    let (p, b, times) = second_response(config(Restart::RbpCwnd { fraction: 1.0 }), at_secs(5));
    let n = b.cwnd_segments;
    println!("rbp-cwnd: srtt {}, cwnd {n}: one every {}", b.srtt, b.srtt.mul_div(1, n));
    assert_paced(&p, &times, at_secs(5), n, b.srtt.mul_div(1, n), b.cwnd_segments);
}

#[test]
fn rbp_cwnd_half_fraction_paces_half_the_window() {
    let (p, b, times) = second_response(config(Restart::RbpCwnd { fraction: 0.5 }), at_secs(5));
    let n = b.cwnd_segments / 2;
    assert_paced(&p, &times, at_secs(5), n, b.srtt.mul_div(1, n), b.cwnd_segments);
}

#[test]
fn idle_shorter_than_the_threshold_runs_no_restart_policy() {
    // The first response ends well before 1 s; the RTO is 1 s (its minimum), so a write
    // 0.6 s after the last send is no restart: every policy sends the whole window at once.
    for restart in [Restart::Ssr, Restart::SsrLinux, Restart::RbpRate { scale: 1.0 }, Restart::RbpCwnd { fraction: 1.0 }] {
        let mut p = pair(config(restart.clone()));
        p.ends[0].write(24 * MSS);
        p.run_until(at_secs(1));
        let last_send = *data_sent(&p).last().unwrap();
        let cwnd = p.ends[0].snapshot().cwnd / MSS;
        let write_at = last_send + Duration::from_millis(600);
        assert!(write_at > acks_at(&p).last().copied().unwrap(), "nothing outstanding");
        p.run_until(write_at);
        let first = data_sent(&p).len();
        p.ends[0].write(30 * MSS);
        p.run_until(write_at + Duration::from_secs(3));
        let times = data_sent(&p)[first..].to_vec();
        assert_eq!(burst(&times, write_at) as u64, cwnd, "{restart:?}");
        assert_eq!(p.ends[0].stats().idle_restarts, 0, "{restart:?}");
    }
}

#[test]
fn fixed_idle_threshold_below_the_idle_restarts() {
    let cfg = TcpConfig { idle_threshold: IdleThreshold::Fixed(Duration::from_millis(100)), ..config(Restart::Ssr) };
    let mut p = pair(cfg);
    p.ends[0].write(24 * MSS);
    p.run_until(at_secs(1));
    let first = data_sent(&p).len();
    p.ends[0].write(30 * MSS);
    p.run_until(at_secs(4));
    let times = data_sent(&p)[first..].to_vec();
    assert_eq!(burst(&times, at_secs(1)), 2);
}
