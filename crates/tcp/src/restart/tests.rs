//! Restart after idle through one sender `Endpoint`, in smoltcp's style: the peer's ACKs
//! come from a template, helpers send and receive, a fixture builds the state, and each test
//! is named by state and event.
//!
//! The fixture `idle_after_slow_start`: 14 segments sent in slow start (2, 4, 8) with every
//! ACK 100 ms after its segment, all acknowledged. That leaves cwnd = 16 segments,
//! srtt = 100 ms, RTO = 1 s (the minimum), and a last rate epoch of 4 segments acknowledged
//! in 100 ms: 320 kb/s. The last data went out at 200 ms.

use super::{IdleThreshold, Restart};
use crate::config::TcpConfig;
use crate::endpoint::{Endpoint, Role};
use crate::test_util::{self, ms, recv_ack, send_data as send, send_nothing, MSS};
use crate::time::{Duration, Rate, Time};

const RTT: Duration = Duration::from_millis(100);
/// When the fixture sent its last data segment.
const LAST_SEND: Time = Time(200_000_000);

fn config(restart: Restart) -> TcpConfig {
    TcpConfig { handshake: false, initial_window_segments: 2, restart, ..test_util::config() }
}

/// Run the endpoint's timers from `from` to `until` (no ACKs arrive): the departure time of
/// each data segment.
#[track_caller]
fn departures(ep: &mut Endpoint, from: Time, until: Time) -> Vec<Time> {
    let mut now = from;
    let mut out = Vec::new();
    loop {
        out.extend(send(ep, now).iter().map(|_| now));
        match ep.poll_timeout() {
            Some(t) if t <= until => {
                now = t;
                ep.handle_timeout(now);
            }
            _ => return out,
        }
    }
}

fn idle_after_slow_start(cfg: TcpConfig) -> Endpoint {
    let mut ep = Endpoint::new(cfg, Role::Active);
    ep.write(14 * MSS);
    let mut now = Time::ZERO;
    while !ep.all_acked() {
        let sent = send(&mut ep, now);
        now += RTT;
        for s in sent {
            recv_ack(&mut ep, now, s.seq_end());
        }
    }
    assert_eq!(ep.sender().last_send(), Some(LAST_SEND));
    assert_eq!(ep.snapshot().cwnd, 16 * MSS);
    assert_eq!(ep.measure().srtt(), Some(RTT));
    assert_eq!(ep.measure().rto(), Duration::from_secs(1));
    assert_eq!(ep.measure().last_rate().map(|s| s.actual_rate()), Some(Rate(320_000)));
    ep
}

/// The fixture, then the application writes 20 segments `idle` after the last send.
fn restart_after(cfg: TcpConfig, idle: Duration) -> (Endpoint, Time) {
    let mut ep = idle_after_slow_start(cfg);
    ep.write(20 * MSS);
    (ep, LAST_SEND + idle)
}

#[test]
fn test_idle_nssr_write_sends_full_cwnd_back_to_back() {
    let (mut ep, now) = restart_after(config(Restart::Nssr), ms(1500));
    assert_eq!(send(&mut ep, now).len(), 16);
    assert_eq!(ep.stats().idle_restarts, 1);
}

#[test]
fn test_idle_ssr_write_sends_restart_window() {
    let (mut ep, now) = restart_after(config(Restart::Ssr), ms(1500));
    assert_eq!(send(&mut ep, now).len(), 2, "RW = min(IW, cwnd) = 2 segments");
    send_nothing(&mut ep, now + ms(50));
    assert_eq!(ep.snapshot().ssthresh, u64::MAX, "ssthresh is kept");
}

/// ns-2.35 `tcp/tcp.cc`, `TcpAgent::timeout`: with nothing outstanding the expiry calls
/// `slowdown(CLOSE_CWND_ONE | NO_OUTSTANDING_DATA)`: one segment with an initial window of 2.
#[test]
fn test_idle_ssr_ns2_write_sends_one_segment_whatever_the_initial_window() {
    // (segments sent at the write, ssthresh after it)
    let restart = |policy| {
        let (mut ep, now) = restart_after(config(policy), ms(1500));
        let sent = send(&mut ep, now).len();
        (sent, ep.snapshot().ssthresh)
    };
    assert_eq!(restart(Restart::SsrNs2), (1, u64::MAX), "cwnd = 1, ssthresh kept");
    assert_eq!(restart(Restart::Ssr).0, 2, "where RFC 5681's RW = min(IW, cwnd) = 2");
}

/// ns-2.35 `tcp/tcp.cc`, `TcpAgent::newack` → `newtimer`: the last ACK (at 300 ms) arms the
/// retransmission timer for one RTO (1 s), and its expiry is the idle: a write 1.05 s after
/// the last send (0.95 s after the ACK) finds no idle, one 1.15 s after it does.
#[test]
fn test_idle_rtx_timer_counts_from_the_last_ack() {
    let cfg = TcpConfig { idle_threshold: IdleThreshold::RtxTimer, ..config(Restart::Ssr) };
    let (mut ep, now) = restart_after(cfg.clone(), ms(1050));
    assert_eq!(send(&mut ep, now).len(), 16, "the timer has not expired yet");
    assert_eq!(ep.stats().idle_restarts, 0);
    let (mut ep, now) = restart_after(cfg, ms(1150));
    assert_eq!(send(&mut ep, now).len(), 2);
    let (mut ep, now) = restart_after(config(Restart::Ssr), ms(1050));
    assert_eq!(send(&mut ep, now).len(), 2, "RFC 5681 §4.1 counts from the last send");
}

#[test]
fn test_idle_ssr_linux_write_halves_once_per_rto() {
    let (mut ep, now) = restart_after(config(Restart::SsrLinux), ms(1500));
    assert_eq!(send(&mut ep, now).len(), 8, "one RTO elapsed: 16 / 2");
    let (mut ep, now) = restart_after(config(Restart::SsrLinux), ms(3500));
    assert_eq!(send(&mut ep, now).len(), 2, "three RTOs: 16 / 8");
}

#[test]
fn test_idle_rbp_rate_write_paces_what_one_srtt_carries_at_the_rate() {
    let (mut ep, now) = restart_after(config(Restart::RbpRate { scale: 1.0 }), ms(1500));
    // 320 kb/s × 100 ms = 4 segments, one every 1000 B / 320 kb/s = 25 ms.
    let d = departures(&mut ep, now, now + ms(99));
    assert_eq!(d, vec![now, now + ms(25), now + ms(50), now + ms(75)]);
    assert!(ep.snapshot().pacing);
}

#[test]
fn test_idle_rbp_rate_scale_lowers_rate_and_count() {
    let (mut ep, now) = restart_after(config(Restart::RbpRate { scale: 0.5 }), ms(1500));
    let d = departures(&mut ep, now, now + ms(99));
    assert_eq!(d, vec![now, now + ms(50)]);
}

#[test]
fn test_idle_rbp_cwnd_write_spreads_cwnd_over_srtt() {
    let (mut ep, now) = restart_after(config(Restart::RbpCwnd { fraction: 1.0 }), ms(1500));
    let d = departures(&mut ep, now, now + ms(99));
    let expect: Vec<Time> = (0..16).map(|k| now + Duration(k * 6_250_000)).collect();
    assert_eq!(d, expect, "16 segments, one every 100 ms / 16 = 6.25 ms");
}

#[test]
fn test_idle_rbp_cwnd_fraction_paces_part_of_cwnd() {
    let (mut ep, now) = restart_after(config(Restart::RbpCwnd { fraction: 0.25 }), ms(1500));
    let d = departures(&mut ep, now, now + ms(99));
    assert_eq!(d, vec![now, now + ms(25), now + ms(50), now + ms(75)]);
}

#[test]
fn test_idle_rbp_rate_high_rate_paces_no_more_than_cwnd() {
    let (mut ep, now) = restart_after(config(Restart::RbpRate { scale: 8.0 }), ms(1500));
    // 2.56 Mb/s carries 32 segments per srtt; cwnd caps them at 16, still at the rate.
    let d = departures(&mut ep, now, now + ms(99));
    let expect: Vec<Time> = (0..16).map(|k| now + Duration(k * 3_125_000)).collect();
    assert_eq!(d, expect, "never more than NSSR would send");
}

#[test]
fn test_idle_rbp_rate_low_rate_paces_two_segments() {
    let cfg = config(Restart::RbpRate { scale: 0.1 });
    let (mut ep, now) = restart_after(cfg, ms(1500));
    // 32 kb/s carries 0.4 segment per srtt; the floor is two, over one srtt.
    let d = departures(&mut ep, now, now + ms(99));
    assert_eq!(d, vec![now, now + ms(50)]);
}

#[test]
fn test_paced_rbp_rate_first_ack_resumes_ack_clocking() {
    let (mut ep, now) = restart_after(config(Restart::RbpRate { scale: 1.0 }), ms(1500));
    let first = ep.sender().snd_nxt();
    assert_eq!(departures(&mut ep, now, now + ms(99)).len(), 4);
    // The ACK of the first paced segment: pacing ends; cwnd = 4 outstanding + 1 (slow
    // start), 3 outstanding: two segments go at once.
    let t = now + ms(100);
    recv_ack(&mut ep, t, first + MSS);
    assert!(!ep.snapshot().pacing);
    assert_eq!(send(&mut ep, t).len(), 2);
    assert_eq!(ep.snapshot().cwnd, 5 * MSS);
    assert!(ep.poll_timeout() > Some(t + ms(100)), "no pacing timer left: {:?}", ep.poll_timeout());
}

#[test]
fn test_paced_rbp_cwnd_early_ack_sends_no_burst() {
    let (mut ep, now) = restart_after(config(Restart::RbpCwnd { fraction: 1.0 }), ms(1500));
    let first = ep.sender().snd_nxt();
    // Three segments paced (0, 6.25, 12.5 ms) when the first ACK comes at 15 ms.
    assert_eq!(departures(&mut ep, now, now + ms(15)).len(), 3);
    let t = now + ms(15);
    recv_ack(&mut ep, t, first + MSS);
    // cwnd = 3 outstanding, + 1 in slow start; 2 outstanding: two go, not 13 of the 16.
    assert_eq!(send(&mut ep, t).len(), 2);
    assert_eq!(ep.snapshot().cwnd, 4 * MSS);
}

#[test]
fn test_idle_rbp_rate_without_rate_sample_paces_two_over_srtt() {
    // Two segments, both acknowledged 100 ms later by one ACK: no rate epoch completes.
    let mut ep = Endpoint::new(config(Restart::RbpRate { scale: 1.0 }), Role::Active);
    ep.write(2 * MSS);
    assert_eq!(send(&mut ep, Time::ZERO).len(), 2);
    recv_ack(&mut ep, Time::ZERO + RTT, 1 + 2 * MSS);
    assert_eq!(ep.measure().last_rate(), None);
    ep.write(10 * MSS);
    let now = Time::ZERO + ms(2000);
    assert_eq!(departures(&mut ep, now, now + ms(99)), vec![now, now + ms(50)]);
}

#[test]
fn test_idle_shorter_than_rto_write_runs_no_restart_policy() {
    for restart in [Restart::Ssr, Restart::SsrLinux, Restart::RbpRate { scale: 1.0 }, Restart::RbpCwnd { fraction: 1.0 }] {
        let (mut ep, now) = restart_after(config(restart.clone()), ms(900));
        assert_eq!(send(&mut ep, now).len(), 16, "{restart:?}: the whole cwnd, back to back");
        assert_eq!(ep.stats().idle_restarts, 0);
    }
}

#[test]
fn test_idle_exactly_rto_write_runs_no_restart_policy() {
    let (mut ep, now) = restart_after(config(Restart::Ssr), ms(1000));
    assert_eq!(send(&mut ep, now).len(), 16, "idle must be longer than the threshold");
}

#[test]
fn test_idle_longer_than_fixed_threshold_write_restarts() {
    let cfg = TcpConfig { idle_threshold: IdleThreshold::Fixed(ms(300)), ..config(Restart::Ssr) };
    let (mut ep, now) = restart_after(cfg.clone(), ms(400));
    assert_eq!(send(&mut ep, now).len(), 2);
    let (mut ep, now) = restart_after(cfg, ms(250));
    assert_eq!(send(&mut ep, now).len(), 16);
}

#[test]
fn test_idle_without_data_runs_no_restart_policy_until_a_write() {
    let mut ep = idle_after_slow_start(config(Restart::SsrLinux));
    let later = LAST_SEND + ms(1500);
    send_nothing(&mut ep, later);
    assert_eq!(ep.stats().idle_restarts, 0);
    ep.write(20 * MSS);
    // The policy runs once, with the idle measured up to the write: 3.5 s, three halvings.
    assert_eq!(send(&mut ep, LAST_SEND + ms(3500)).len(), 2);
    assert_eq!(ep.stats().idle_restarts, 1);
}
