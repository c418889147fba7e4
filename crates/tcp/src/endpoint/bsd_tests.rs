//! The endpoint under 4.4BSD-Lite's timers (`RtoRule::Bsd44`, `delack_on_tick`;
//! docs/bsd44.md), tests named `test_<state>_<event>` as in `tests.rs`. The slow timer
//! ticks every 500 ms and the fast timer every 200 ms from time zero.

use super::*;
use crate::measure::{RtoConfig, RtoRule};
use crate::test_util::*;

/// The bsd44 profile's timers: 500 ms ticks, an RTO from 6 s between 1 s and 64 s, delayed
/// ACKs on the 200 ms fast timer.
fn bsd() -> TcpConfig {
    let rto = RtoConfig { initial: ms(6000), min: ms(1000), max: ms(64_000), granularity: ms(500), rule: RtoRule::Bsd44 };
    TcpConfig { rto, delayed_ack: true, delack_on_tick: true, ..config() }
}

fn data(seq: u64) -> Segment {
    Segment { seq, len: MSS as u32, ..ACK }
}

#[test]
fn test_established_delayed_ack_goes_at_the_next_200ms_tick() {
    // tcp_fasttimo: TF_DELACK is turned into an ACK at the fast timer's next tick, 200 ms
    // after time zero and every 200 ms on: a segment at 130 ms is ACKed at 200 ms, one at
    // 410 ms at 600 ms. Without `delack_on_tick`, 200 ms after each.
    for (on_tick, expected) in [(true, [200, 600]), (false, [330, 610])] {
        let mut ep = established(TcpConfig { delack_on_tick: on_tick, ..bsd() });
        for (k, (arrives, acked)) in [130, 410].into_iter().zip(expected).enumerate() {
            recv(&mut ep, at(arrives), data(1 + k as u64 * MSS));
            send_nothing(&mut ep, at(arrives));
            assert_eq!(ep.timer(Timer::DelayedAck), Some(at(acked)), "on_tick {on_tick}");
            let ack = timeout(&mut ep, at(acked));
            assert!(ack.len() == 1 && ack[0].ack == 1 + (k as u64 + 1) * MSS, "{ack:?}");
        }
    }
    // A segment that arrives on a tick waits for the next one: the tick came first.
    let mut ep = established(bsd());
    recv(&mut ep, at(400), data(1));
    assert_eq!(ep.timer(Timer::DelayedAck), Some(at(600)));
}

#[test]
fn test_syn_sent_syn_goes_again_at_6_s_then_24_s_later_and_its_ack_gives_no_sample() {
    // tcp_newtcpcb: t_rxtcur 12 ticks; the backoff multiplies TCP_REXMTVAL (24 ticks before
    // any sample) by tcp_backoff[1] = 2: 48 ticks. Karn's rule: the SYN-ACK of a second SYN
    // gives no sample, and BSD keeps the backed-off RTO for the data (no RFC 6298 §5.7).
    let mut ep = syn_sent(bsd());
    assert_eq!(ep.timer(Timer::Rto), Some(at(6000)));
    assert!(timeout(&mut ep, at(6000))[0].flags.syn);
    assert_eq!(ep.timer(Timer::Rto), Some(at(30_000)));
    recv(&mut ep, at(30_100), SYN_ACK);
    assert_eq!((ep.measure().srtt(), ep.measure().rtt_samples()), (None, 0));
    assert!(ep.measure().is_backed_off());
    assert_eq!(ep.measure().rto(), ms(24_000));
}

#[test]
fn test_syn_received_ack_of_the_syn_ack_gives_a_sample_in_ticks() {
    // The SYN-ACK is timed as any segment that advances snd_max; its ACK 20 ms later crosses
    // no tick: t_rtt 1, srtt one tick (500 ms), rttvar half a tick, RTO 1 + 2 = 3 ticks.
    let ep = established_passive(bsd());
    let m = ep.measure();
    assert_eq!((m.srtt(), m.rttvar(), m.rto(), m.rtt_samples()), (Some(ms(500)), ms(250), ms(1500), 1));
    assert_eq!(m.handshake_rtt(), Some(HANDSHAKE_RTT), "the handshake's own RTT is still measured exactly");
}

#[test]
fn test_established_one_segment_is_timed_at_a_time_and_the_rto_runs_on_ticks() {
    // Established at 20 ms with srtt 1 tick, rttvar 2 quarters: RTO 3 ticks.
    let mut ep = established(TcpConfig { initial_window_segments: 3, ..bsd() });
    ep.enable_events();
    ep.write(10 * MSS);
    assert_eq!(send_data(&mut ep, at(100)).len(), 3);
    // tcp_output timed the first; the timer runs out on the third tick after 100 ms.
    assert_eq!(ep.timer(Timer::Rto), Some(at(1500)), "not 100 ms + 1.5 s");
    // Its ACK at 700 ms: t_rtt 2 (the 500 ms tick). delta = 2-1-1 = 0: srtt 8; rttvar
    // 2 + 0 - 0 = 2; RTO 3 ticks, restarted from 700 ms: the third tick after, 2 s.
    recv_ack(&mut ep, at(700), seg_start(1));
    assert_eq!(ep.measure().rtt_samples(), 2);
    assert_eq!(ep.timer(Timer::Rto), Some(at(2000)));
    // The segments sent with it are not timed; the first one sent at 700 ms is (seq 3001).
    let new = send_data(&mut ep, at(700));
    assert_eq!(new[0].seq, seg_start(3));
    for (t, k) in [(800, 2), (900, 3)] {
        recv_ack(&mut ep, at(t), seg_start(k));
        assert_eq!(ep.measure().rtt_samples(), 2, "the ACK of segment {k} gives no sample");
        let _ = send(&mut ep, at(t));
    }
    // The ACK of the segment sent at 700 ms, at 1.2 s: t_rtt 2 (the 1 s tick).
    recv_ack(&mut ep, at(1200), seg_start(4));
    assert_eq!(ep.measure().rtt_samples(), 3);
    // Every ACK's exact RTT is still reported (for the min RTT and the traces).
    let exact: Vec<Duration> = events(&mut ep).into_iter().filter_map(|e| if let Event::RttSample { rtt, .. } = e { Some(rtt) } else { None }).collect();
    assert_eq!(exact, [ms(600), ms(700), ms(800), ms(500)]);
    assert_eq!(ep.measure().min_rtt(), Some(HANDSHAKE_RTT));
}

#[test]
fn test_established_timeout_backs_off_on_ticks_and_karns_rule_holds_the_backoff() {
    let mut ep = established(bsd());
    ep.write(2 * MSS);
    assert_eq!(send_data(&mut ep, at(100)).len(), 2);
    // The timer fires at 1.5 s; the backoff doubles the 3-tick RTO (TCP_REXMTVAL × 2) and
    // the timer runs again from the tick: 6 ticks, at 4.5 s.
    let rtx = timeout(&mut ep, at(1500));
    assert_eq!((rtx.len(), rtx[0].seq), (1, seg_start(0)));
    assert_eq!((ep.measure().rto(), ep.timer(Timer::Rto)), (ms(3000), Some(at(4500))));
    // The ACK of everything at 1.7 s covers a retransmitted segment and the timing stopped
    // at the timeout: no sample, and the backoff stays (t_rxtshift is cleared only by one).
    recv_ack(&mut ep, at(1700), seg_start(2));
    assert_eq!(ep.measure().rtt_samples(), 1);
    assert!(ep.measure().is_backed_off());
    assert_eq!(ep.measure().rto(), ms(3000));
    // A new segment is timed; its ACK ends the backoff. t_rtt 1: delta = 1-1-1 = -1: srtt 7;
    // rttvar 2 + 1 - 0 = 3; RTO 0 + 3 = 3 ticks.
    ep.write(MSS);
    assert_eq!(send_data(&mut ep, at(1700)).len(), 1);
    assert_eq!(ep.timer(Timer::Rto), Some(at(4500)), "6 ticks after 1.7 s: the backed-off RTO");
    recv_ack(&mut ep, at(1800), seg_start(3));
    assert!(!ep.measure().is_backed_off());
    assert_eq!((ep.measure().srtt(), ep.measure().rto()), (Some(ms(437) + Duration(500_000)), ms(1500)));
}

fn events(ep: &mut Endpoint) -> Vec<Event> {
    std::iter::from_fn(|| ep.poll_event()).collect()
}
