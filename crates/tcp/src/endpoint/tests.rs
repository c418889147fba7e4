//! Endpoint tests named `test_<state>_<event>`, built on the fixtures of `test_util`.

use super::*;
use crate::config::RtoTiming;
use crate::pacing::{PacingConfig, PacingRate};
use crate::recovery::RecoveryKind;
use crate::test_util::*;

fn events(ep: &mut Endpoint) -> Vec<Event> {
    std::iter::from_fn(|| ep.poll_event()).collect()
}

/// `established` with `segments` written and the initial window (two segments) sent at 20 ms.
#[track_caller]
fn sending(cfg: TcpConfig, segments: u64) -> Endpoint {
    let mut ep = established(cfg);
    ep.write(segments * MSS);
    let sent = send_data(&mut ep, at(20));
    assert_eq!(sent.iter().map(|s| s.seq).collect::<Vec<_>>(), [seg_start(0), seg_start(1)]);
    ep
}

/// `established` with an initial window of ten segments, all sent at 20 ms, more written.
#[track_caller]
fn ten_in_flight(cfg: TcpConfig) -> Endpoint {
    let mut ep = established(TcpConfig { initial_window_segments: 10, ..cfg });
    ep.write(30 * MSS);
    assert_eq!(send_data(&mut ep, at(20)).len(), 10);
    ep
}

// ---- handshake ----

#[test]
fn test_syn_received_duplicate_syn_makes_the_handshake_rtt_ambiguous() {
    let mut ep = syn_received(config());
    // The peer timed out and sent its SYN again; we answer with a second SYN-ACK.
    recv(&mut ep, at(900), SYN);
    assert!(send(&mut ep, at(900))[0].flags.syn);
    // This ACK may answer either SYN-ACK (Karn's rule): no sample.
    recv_ack(&mut ep, at(910), 1);
    assert_eq!(ep.state(), State::Established);
    assert_eq!(ep.measure().srtt(), None);
}

#[test]
fn test_syn_received_single_syn_ack_gives_an_rtt_sample() {
    let ep = established_passive(config());
    assert_eq!(ep.measure().srtt(), Some(HANDSHAKE_RTT));
}

#[test]
fn test_syn_sent_syn_ack_window_limits_the_first_flight() {
    let mut ep = syn_sent(config());
    ep.write(10 * MSS);
    recv(&mut ep, at(10), Segment { window: MSS as u32, ..SYN_ACK });
    assert_eq!(send_data(&mut ep, at(10)).len(), 1, "the peer's window holds one segment; the initial window two");
}

#[test]
fn test_established_first_data_timeout_after_a_syn_timeout_sets_ssthresh() {
    let mut ep = syn_sent(config());
    ep.write(10 * MSS);
    // The SYN is lost: the timer backs off; the SYN-ACK of the second SYN gives no
    // sample (Karn's rule), and RFC 6298 §5.7 sets the RTO to 3 s for the data.
    assert!(timeout(&mut ep, at(1000))[0].flags.syn);
    recv(&mut ep, at(1010), SYN_ACK);
    assert!(!ep.measure().is_backed_off());
    assert_eq!(ep.measure().rto(), Duration::from_secs(3));
    assert_eq!(send_data(&mut ep, at(1010)).len(), 2);
    // The initial window is lost. Its first timeout is not a repeated one.
    let rto = ep.measure().rto();
    let rtx = timeout(&mut ep, at(1010) + rto);
    assert_eq!(rtx.len(), 1);
    assert_eq!(ep.stats().timeouts, 1);
    assert_eq!(ep.snapshot().ssthresh, 2 * MSS, "RFC 5681 eq. (4): max(FlightSize / 2, 2 SMSS)");
    assert_eq!(ep.snapshot().cwnd, MSS);
}

#[test]
fn test_syn_sent_close_waits_for_the_handshake() {
    // RFC 9293 §3.10.4 queues a CLOSE in SYN-RECEIVED until established; we do the same in
    // SYN-SENT so that an application may open, write and close at once.
    let mut ep = syn_sent(config());
    ep.write(MSS);
    ep.close();
    assert_eq!(ep.state(), State::SynSent);
    recv(&mut ep, at(20), SYN_ACK);
    assert_eq!(ep.state(), State::FinWait1);
    let sent = send_data(&mut ep, at(20));
    assert!(sent.len() == 1 && sent[0].len == MSS as u32 && sent[0].flags.fin, "the FIN rides on the data: {sent:?}");
}

#[test]
fn test_listen_sack_permitted_is_answered_only_when_both_offer_it_rfc2018_2() {
    let sack = TcpConfig { recovery: RecoveryKind::Sack, ..config() };
    for (ours, theirs, expected) in [(true, true, true), (true, false, false), (false, true, false)] {
        let cfg = if ours { sack.clone() } else { config() };
        let mut ep = Endpoint::new(cfg, Role::Passive);
        recv(&mut ep, at(0), Segment { sack_permitted: theirs, ..SYN });
        let syn_ack = send(&mut ep, at(0));
        assert_eq!(syn_ack[0].sack_permitted, expected, "ours {ours}, theirs {theirs}");
        recv_ack(&mut ep, at(20), 1);
        assert_eq!(ep.sack_ok(), expected);
    }
    let mut active = Endpoint::new(sack, Role::Active);
    assert!(send(&mut active, at(0))[0].sack_permitted, "a SACK sender offers it in its SYN");
}

#[test]
fn test_established_without_sack_permitted_a_sack_receiver_sends_no_blocks() {
    let cfg = TcpConfig { recovery: RecoveryKind::Sack, ..config() };
    let mut ep = syn_sent(cfg);
    recv(&mut ep, at(20), SYN_ACK); // no SACK-permitted
    assert!(!ep.sack_ok());
    send(&mut ep, at(20));
    // A hole: the peer's segment at 1001 arrives before the one at 1.
    recv(&mut ep, at(30), Segment { seq: 1001, len: 1000, ..ACK });
    let ack = send(&mut ep, at(30));
    assert!(ack.len() == 1 && ack[0].ack == 1 && ack[0].sack.is_empty(), "{ack:?}");
}

// ---- the data path ----

#[test]
fn test_established_third_duplicate_ack_fast_retransmits_rfc5681_3_2() {
    let mut ep = ten_in_flight(config());
    for _ in 0..2 {
        recv_ack(&mut ep, at(40), seg_start(0));
    }
    // Limited transmit (RFC 3042) sent one new segment per duplicate ACK.
    assert_eq!(send_data(&mut ep, at(40)).len(), 2);
    recv_ack(&mut ep, at(40), seg_start(0));
    let rtx = send_data(&mut ep, at(40));
    assert_eq!(rtx.iter().map(|s| s.seq).collect::<Vec<_>>(), [seg_start(0)]);
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!(ep.snapshot().ssthresh, 5 * MSS, "FlightSize / 2 of the ten, limited transmit left out");
}

#[test]
fn test_established_partial_ack_retransmits_the_next_hole_rfc6582_3_2() {
    let mut ep = ten_in_flight(config());
    for _ in 0..3 {
        recv_ack(&mut ep, at(40), seg_start(0));
    }
    send_data(&mut ep, at(40));
    // The retransmission filled the first hole; segment 4 was lost too.
    recv_ack(&mut ep, at(60), seg_start(4));
    let rtx = send_data(&mut ep, at(60));
    assert_eq!(rtx.first().map(|s| (s.seq, s.len)), Some((seg_start(4), MSS as u32)), "{rtx:?}");
    assert!(ep.sender().in_recovery());
}

#[test]
fn test_established_delayed_ack_timer_sends_the_ack_rfc5681_4_2() {
    let mut ep = established_passive(TcpConfig { delayed_ack: true, ..config() });
    recv(&mut ep, at(30), Segment { len: MSS as u32, ..ACK });
    send_nothing(&mut ep, at(30));
    assert_eq!(ep.timer(Timer::DelayedAck), Some(at(230)));
    let ack = timeout(&mut ep, at(230));
    assert!(ack.len() == 1 && ack[0].ack == 1 + MSS, "{ack:?}");
    // A second segment within the timeout: the ACK goes at once (every second segment).
    recv(&mut ep, at(240), Segment { seq: 1 + MSS, len: MSS as u32, ..ACK });
    send_nothing(&mut ep, at(240));
    recv(&mut ep, at(250), Segment { seq: 1 + 2 * MSS, len: MSS as u32, ..ACK });
    assert_eq!(send(&mut ep, at(250)).len(), 1);
    assert_eq!(ep.timer(Timer::DelayedAck), None);
}

/// ns-2.35 `tcp/tcp-sink.cc`, `DelAckSink::recv` with `SYN_immediate_ack_`: seqno 0 (the
/// connection's first data segment) is ACKed at once, the next one waits for the timer as
/// any in-order segment that finds no timer pending.
#[test]
fn test_established_ns2_delack_sink_acks_the_first_segment_at_once() {
    let mut ep = established_passive(TcpConfig { delayed_ack: true, quickack: QuickAck::FirstSegment, ..config() });
    recv(&mut ep, at(30), Segment { len: MSS as u32, ..ACK });
    let ack = send(&mut ep, at(30));
    assert!(ack.len() == 1 && ack[0].ack == 1 + MSS, "{ack:?}");
    recv(&mut ep, at(40), Segment { seq: 1 + MSS, len: MSS as u32, ..ACK });
    send_nothing(&mut ep, at(40));
    assert_eq!(ep.timer(Timer::DelayedAck), Some(at(240)));
}

#[test]
fn test_established_the_segment_that_ends_a_write_carries_psh_rfc9293_3_9_1() {
    let mut ep = established(TcpConfig { initial_window_segments: 4, ..config() });
    ep.write(2 * MSS + 100);
    let sent = send_data(&mut ep, at(20));
    assert_eq!(sent.iter().map(|s| s.flags.psh).collect::<Vec<_>>(), [false, false, true], "only the last of the write");
}

/// Linux's receiver (`quickack`): 16 quick ACKs from the first data segment (its initial
/// receive window of 64,240 bytes), then one ACK per two segments, except that the segment
/// ending a write (PSH) is acknowledged at once (`tcp_cleanup_rbuf`).
#[test]
fn test_established_linux_receiver_acks_16_segments_and_then_a_push_at_once() {
    let mut ep = established_passive(TcpConfig { delayed_ack: true, quickack: QuickAck::Linux, ..config() });
    let seg = |k: u64, psh: bool| Segment { seq: 1 + k * MSS, len: MSS as u32, flags: Flags { psh, ..ACK.flags }, ..ACK };
    for k in 0..16 {
        recv(&mut ep, at(30 + k), seg(k, false));
        assert_eq!(send(&mut ep, at(30 + k)).len(), 1, "quick ACK {k}");
    }
    recv(&mut ep, at(50), seg(16, false));
    send_nothing(&mut ep, at(50));
    recv(&mut ep, at(51), seg(17, false));
    assert_eq!(send(&mut ep, at(51)).len(), 1, "the second of two");
    recv(&mut ep, at(52), seg(18, true));
    assert_eq!(send(&mut ep, at(52)).len(), 1, "the end of a write, alone");
    // Without quickack, the same segment waits for a second one or the timer.
    let mut plain = established_passive(TcpConfig { delayed_ack: true, ..config() });
    recv(&mut plain, at(30), seg(0, true));
    send_nothing(&mut plain, at(30));
}

#[test]
fn test_established_ack_above_snd_max_is_ignored_rfc9293_3_10_7_4() {
    let mut ep = sending(config(), 4);
    recv_ack(&mut ep, at(30), seg_start(3));
    assert_eq!(ep.sender().snd_una(), seg_start(0), "it acknowledges data never sent");
    assert_eq!(ep.stats().retransmits, 0);
    recv_ack(&mut ep, at(40), seg_start(2));
    assert_eq!(ep.sender().snd_una(), seg_start(2));
}

#[test]
fn test_established_passive_end_sends_data_and_the_active_end_acknowledges_it() {
    let mut server = established_passive(config());
    server.write(3 * MSS);
    let sent = send_data(&mut server, at(20));
    assert_eq!(sent.len(), 2, "the initial window");
    let mut client = established(config());
    client.enable_events();
    for s in &sent {
        recv(&mut client, at(30), *s);
    }
    assert_eq!(client.bytes_received(), 2 * MSS);
    assert_eq!(events(&mut client), [Event::Delivered { bytes: MSS }, Event::Delivered { bytes: MSS }]);
    let acks = send(&mut client, at(30));
    recv(&mut server, at(40), *acks.last().unwrap());
    assert_eq!(server.bytes_acked(), 2 * MSS);
    assert_eq!(send_data(&mut server, at(40)).len(), 1);
}

#[test]
fn test_established_data_both_ways_carries_the_acks_on_data() {
    let mut ep = sending(config(), 4);
    // The peer's data acknowledges our first segment.
    recv(&mut ep, at(40), Segment { ack: seg_start(1), len: 500, ..ACK });
    assert_eq!(ep.sender().snd_una(), seg_start(1));
    let out = send(&mut ep, at(40));
    assert!(out.iter().all(|s| s.len > 0 && s.ack == 501), "our data carries the ACK of the peer's: {out:?}");
}

// ---- closing: a FIN in each state, close from either end ----

#[test]
fn test_established_fin_enters_close_wait_and_we_may_still_send() {
    let mut ep = close_wait(config());
    ep.write(MSS);
    assert_eq!(send_data(&mut ep, at(50)).len(), 1);
    assert_eq!(ep.state(), State::CloseWait);
}

#[test]
fn test_close_wait_retransmitted_fin_is_acknowledged_again() {
    let mut ep = close_wait(config());
    recv(&mut ep, at(60), peer_fin(1));
    let ack = send(&mut ep, at(60));
    assert!(ack.len() == 1 && ack[0].ack == 2);
    assert_eq!(ep.state(), State::CloseWait);
}

#[test]
fn test_last_ack_ack_of_our_fin_closes() {
    let mut ep = last_ack(config());
    ep.enable_events();
    recv_ack(&mut ep, at(60), 2);
    assert_eq!(ep.state(), State::Closed);
    // The ACK of the FIN gave an RTT sample first.
    assert!(matches!(events(&mut ep)[..], [Event::RttSample { .. }, Event::Closed { reset: false }]));
    assert_eq!(ep.poll_timeout(), None);
    send_nothing(&mut ep, at(60));
}

#[test]
fn test_last_ack_fin_is_retransmitted_on_timeout() {
    let mut ep = last_ack(config());
    let rto = ep.timer(Timer::Rto).expect("the FIN is outstanding");
    let rtx = timeout(&mut ep, rto);
    assert!(rtx.len() == 1 && rtx[0].flags.fin && rtx[0].seq == 1, "{rtx:?}");
}

#[test]
fn test_fin_wait_1_ack_of_our_fin_enters_fin_wait_2() {
    let ep = fin_wait_2(config());
    assert_eq!(ep.timer(Timer::Rto), None, "nothing outstanding");
}

#[test]
fn test_fin_wait_1_fin_enters_closing_simultaneous_close() {
    let mut ep = fin_wait_1(config());
    // The peer's FIN does not acknowledge ours.
    recv(&mut ep, at(30), peer_fin(1));
    assert_eq!(ep.state(), State::Closing);
    assert_eq!(send(&mut ep, at(30))[0].ack, 2);
    recv_ack(&mut ep, at(40), 2);
    assert_eq!(ep.state(), State::TimeWait);
}

#[test]
fn test_fin_wait_1_fin_acknowledging_ours_enters_time_wait() {
    let mut ep = fin_wait_1(config());
    recv(&mut ep, at(40), peer_fin(2));
    assert_eq!(ep.state(), State::TimeWait);
}

#[test]
fn test_fin_wait_2_data_is_delivered_then_fin_enters_time_wait() {
    let mut ep = fin_wait_2(config());
    ep.enable_events();
    recv(&mut ep, at(50), Segment { ack: 2, len: 700, ..ACK });
    assert_eq!(ep.state(), State::FinWait2);
    recv(&mut ep, at(60), Segment { seq: 701, ..peer_fin(2) });
    assert_eq!(ep.state(), State::TimeWait);
    assert_eq!(events(&mut ep), [Event::Delivered { bytes: 700 }, Event::PeerFinished]);
    assert_eq!(ep.timer(Timer::TimeWait), Some(at(60) + ep.config().time_wait));
}

#[test]
fn test_time_wait_retransmitted_fin_is_acknowledged_and_restarts_the_timer() {
    let mut ep = time_wait(config());
    assert_eq!(send(&mut ep, at(60)).len(), 1, "the ACK of the FIN");
    recv(&mut ep, at(1060), peer_fin(2));
    let ack = send(&mut ep, at(1060));
    assert!(ack.len() == 1 && ack[0].ack == 2, "{ack:?}");
    assert_eq!(ep.timer(Timer::TimeWait), Some(at(1060) + ep.config().time_wait));
}

#[test]
fn test_time_wait_timeout_closes() {
    let mut ep = time_wait(config());
    send(&mut ep, at(60));
    ep.enable_events();
    let end = at(60) + ep.config().time_wait;
    assert!(timeout(&mut ep, end).is_empty());
    assert_eq!(ep.state(), State::Closed);
    assert_eq!(events(&mut ep), [Event::Closed { reset: false }]);
    assert!(ep.all_acked());
}

#[test]
fn test_closed_segment_is_answered_with_a_reset_rfc9293_3_10_7_1() {
    let mut ep = last_ack(config());
    recv_ack(&mut ep, at(60), 2);
    // The peer, in TIME-WAIT too briefly or in CLOSING, sends its FIN again.
    recv(&mut ep, at(70), Segment { ack: 2, ..peer_fin(2) });
    assert_eq!(ep.state(), State::Closed);
    let rst = send(&mut ep, at(70));
    assert!(rst.len() == 1 && rst[0].flags.rst && !rst[0].flags.ack && rst[0].seq == 2, "{rst:?}");
    // A reset is never answered.
    recv(&mut ep, at(80), Segment { flags: Flags { rst: true, ..Flags::default() }, ..ACK });
    send_nothing(&mut ep, at(80));
}

/// The peer's reset at sequence number `seq`.
fn reset(seq: u64) -> Segment {
    Segment { seq, flags: Flags { rst: true, ..Flags::default() }, ..ACK }
}

#[test]
fn test_last_ack_reset_at_rcv_nxt_closes() {
    let mut ep = last_ack(config());
    ep.enable_events();
    recv(&mut ep, at(50), reset(1));
    assert_eq!(ep.state(), State::LastAck, "RFC 5961 §3.2: only the exact next sequence number");
    recv(&mut ep, at(60), reset(2));
    assert_eq!(ep.state(), State::Closed);
    assert_eq!(events(&mut ep), [Event::Closed { reset: true }]);
    assert_eq!(ep.poll_timeout(), None);
}

#[test]
fn test_time_wait_reset_is_ignored_rfc1337() {
    let mut ep = time_wait(config());
    recv(&mut ep, at(70), reset(2));
    assert_eq!(ep.state(), State::TimeWait);
}

// ---- what Measure and the ACK context report ----

#[test]
fn test_syn_received_ack_gives_the_passive_end_its_handshake_rtt() {
    let ep = established_passive(config());
    assert_eq!(ep.measure().handshake_rtt(), Some(HANDSHAKE_RTT), "SYN-ACK to ACK");
    assert_eq!(established(config()).measure().handshake_rtt(), Some(HANDSHAKE_RTT), "SYN to SYN-ACK");
}

#[test]
fn test_established_sender_is_app_limited_only_when_the_window_had_room() {
    let mut ep = established(config());
    ep.write(MSS);
    assert_eq!(send_data(&mut ep, at(20)).len(), 1);
    assert!(ep.sender().app_limited(), "one segment out of a window of two, nothing more written");
    ep.write(10 * MSS);
    assert_eq!(send_data(&mut ep, at(21)).len(), 1);
    assert!(!ep.sender().app_limited(), "the window stopped the second");
}

#[test]
fn test_established_measure_keeps_the_min_rtt_and_the_pipe_ack_sample() {
    let mut ep = established(config());
    ep.write(20 * MSS);
    let mut now = 20;
    // Three rounds of slow start, each segment acknowledged 30 ms after it left.
    for _ in 0..3 {
        let sent = send_data(&mut ep, at(now));
        now += 30;
        for s in sent {
            recv_ack(&mut ep, at(now), s.seq_end());
        }
    }
    let m = ep.measure();
    assert_eq!(m.min_rtt(), Some(HANDSHAKE_RTT), "the handshake's 20 ms is the least");
    assert_eq!(m.latest_rtt(), Some(ms(30)));
    // The last complete epoch ran from the second round's first ACK to the ACK of the first
    // segment sent after it began (the third round's first): four segments' worth.
    assert_eq!(m.delivered_last_rtt(), Some(4 * MSS));
}

/// `RtoTiming::Ns2Full`, as ns-2's FullTcpAgent: the handshake's RTT is measured (for
/// Preemptive) but no sample sets the RTO, which stays at its initial value through the
/// ACKs; RFC 6298 timing takes the handshake's sample from the start.
#[test]
fn test_established_ns2_full_timing_keeps_the_initial_rto() {
    let ns2_rto = crate::measure::RtoConfig { initial: Duration::from_secs(3), min: ms(200), ..config().rto };
    let cfg = |timing| TcpConfig { rto_timing: timing, rto: ns2_rto, ..config() };
    let restarts = |timing| {
        let mut server = established_passive(cfg(timing));
        assert_eq!(server.measure().handshake_rtt(), Some(HANDSHAKE_RTT), "measured in both timings, for Preemptive");
        server.write(10 * MSS);
        assert_eq!(send_data(&mut server, at(20)).len(), 2);
        let armed = server.timer(Timer::Rto).unwrap();
        recv_ack(&mut server, at(40), 1 + MSS);
        let first = server.timer(Timer::Rto).unwrap();
        send_data(&mut server, at(40));
        recv_ack(&mut server, at(41), 1 + 2 * MSS);
        (armed, first, server.timer(Timer::Rto).unwrap(), server.measure().min_rtt())
    };
    let initial = ns2_rto.initial;
    let (armed, first, second, min_rtt) = restarts(RtoTiming::Ns2Full);
    assert_eq!((armed, first, second), (at(20) + initial, at(40) + initial, at(41) + initial));
    assert_eq!(min_rtt, Some(ms(20)), "the RTT is observed");
    let (armed, first, _, _) = restarts(RtoTiming::Rfc6298);
    assert!(armed < at(20) + initial && first < at(40) + initial, "the handshake's sample sets the RTO");
}

/// Linux pacing (`tcp_update_pacing_rate`, `tcp_update_skb_after_send`): the first ten data
/// segments go at once; from the eleventh each is spaced one interval of
/// len × srtt / (200 % × max(cwnd, flight)) after the one before, less the time it left late
/// (at most one interval).
#[test]
fn test_established_linux_pacing_spaces_segments_after_the_first_ten() {
    let pacing = Some(PacingConfig { rate: PacingRate::Linux, unpaced_segments: PacingConfig::LINUX_UNPACED_SEGMENTS });
    let mut ep = ten_in_flight(TcpConfig { pacing, ..config() });
    assert!(ep.snapshot().pacing, "the next segment is paced");
    // Two segments acknowledged after the handshake's 20 ms: slow start opens cwnd to 11
    // segments, with 8 in flight; three may go. The eleventh left 20 ms after its slot (the
    // tenth's departure), so it is credited a whole interval and the twelfth goes with it.
    recv_ack(&mut ep, at(40), seg_start(2));
    assert_eq!(send_data(&mut ep, at(40)).len(), 2);
    // srtt 20 ms, cwnd 11 segments: 20 ms × 1000 / (2 × 11,000) = 909,090 ns.
    let next = at(40) + Duration::from_nanos(909_090);
    assert_eq!(timeout(&mut ep, next).len(), 1);
    assert_eq!(ep.sender().flight(), 11 * MSS);
}
