use super::*;
use crate::cc::{Avoidance, NewReno};
use crate::measure::RtoConfig;
use crate::restart::Restart;

const MSS: u64 = 1000;

fn config(recovery: RecoveryKind) -> SenderConfig {
    SenderConfig {
        mss_bytes: MSS,
        initial_window_segments: 10,
        initial_ssthresh_bytes: u64::MAX,
        max_window_bytes: u64::MAX,
        recovery,
        sack_pipe: SackPipe::Rfc6675,
        prr: false,
        dupthresh: 3,
        limited_transmit: false,
        loss_window: LossWindow::FlightSize,
        rto_in_recovery: RtoInRecovery::KeepSsthresh,
        nagle: false,
        rack_tlp: false,
        rate_limited_increase: false,
        rto_samples: true,
    }
}

/// A sender of unlimited data.
fn sender(recovery: RecoveryKind, f: impl FnOnce(&mut SenderConfig)) -> (Sender, Measure) {
    let mut cfg = config(recovery);
    f(&mut cfg);
    let mut s = Sender::new(&cfg, Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), Restart::Ssr.build(0), 0);
    s.write_unlimited();
    (s, Measure::new(RtoConfig::default()))
}

fn drain(s: &mut Sender) -> Vec<TxData> {
    std::iter::from_fn(|| s.poll::<false>(Time(0))).collect()
}

/// Segment k (0-based) of the first window starts at 1 + k * MSS.
fn sacked(k: u64) -> SeqRange {
    SeqRange { start: 1 + MSS, end: 1 + (k + 1) * MSS }
}

/// Send ten segments, lose the first, and deliver `n` duplicate ACKs SACKing 2..=n+1.
fn lose_first(s: &mut Sender, m: &mut Measure, n: u64) {
    assert_eq!(drain(s).len(), 10);
    for k in 1..=n {
        s.on_ack::<false>(Time(1), 1, [sacked(k)], true, m);
    }
}

/// RFC 1122 §4.2.3.4: with Nagle, the short tail of a write waits for the ACK of all that
/// is outstanding; without, it goes with the rest.
#[test]
fn nagle_holds_a_short_segment_while_data_is_unacknowledged() {
    for nagle in [false, true] {
        let cfg = SenderConfig { nagle, ..config(RecoveryKind::NewReno) };
        let (mut s, mut m) =
            (Sender::new(&cfg, Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), Restart::Ssr.build(0), 0), Measure::new(RtoConfig::default()));
        s.write(2 * MSS + 300);
        let lens: Vec<u32> = drain(&mut s).iter().map(|t| t.len).collect();
        if !nagle {
            assert_eq!(lens, [1000, 1000, 300]);
            continue;
        }
        assert_eq!(lens, [1000, 1000]);
        s.on_ack::<false>(Time(1), 1 + MSS, [], true, &mut m);
        assert!(drain(&mut s).is_empty(), "one segment still unacknowledged");
        s.on_ack::<false>(Time(2), 1 + 2 * MSS, [], true, &mut m);
        assert_eq!(drain(&mut s).iter().map(|t| t.len).collect::<Vec<_>>(), [300]);
    }
}

#[test]
fn sack_fast_retransmit_goes_out_even_when_pipe_exceeds_cwnd() {
    let (mut s, mut m) = sender(RecoveryKind::Sack, |_| {});
    lose_first(&mut s, &mut m, 3);
    // cwnd = 5 segments; RFC 6675 pipe = 6 (segments 5..=10). Step 4.3 retransmits anyway.
    assert!(s.in_recovery());
    let tx = drain(&mut s);
    assert_eq!(tx.len(), 1);
    assert!(tx[0].retransmission && tx[0].seq == 1);
}

#[test]
fn sack1_pipe_counts_acks_and_a_partial_ack_releases_two_segments() {
    let (mut s, mut m) = sender(RecoveryKind::Sack, |c| c.sack_pipe = SackPipe::Sack1);
    lose_first(&mut s, &mut m, 3);
    assert_eq!(drain(&mut s).len(), 1, "the fast retransmit; pipe = 10 - 3 = 7 segments");
    for k in 4..=6 {
        s.on_ack::<false>(Time(2), 1, [sacked(k)], true, &mut m);
    }
    assert_eq!(drain(&mut s).len(), 1, "pipe 4 < cwnd 5: one segment, pipe back to 5");
    // A partial ACK (the retransmission arrived, segment 8 is still missing).
    s.on_ack::<false>(Time(3), 1 + 7 * MSS, [], true, &mut m);
    assert_eq!(drain(&mut s).len(), 2);
}

/// RFC 6937 §3 against RFC 6675: twenty segments out, the first lost, ssthresh 10. RFC 6675
/// sends nothing until pipe has fallen below cwnd, then one segment per ACK; PRR spreads the
/// reduction, one segment for every two delivered from the start of recovery, until pipe
/// reaches ssthresh, and then as the slow-start reduction bound allows (ssthresh − pipe).
#[test]
fn rfc_6937_prr_sends_one_segment_for_every_two_delivered() {
    let new_segments_at = |prr: bool| {
        let (mut s, mut m) = sender(RecoveryKind::Sack, |c| {
            c.prr = prr;
            c.initial_window_segments = 20;
        });
        assert_eq!(drain(&mut s).len(), 20);
        for k in 1..=3 {
            s.on_ack::<false>(Time(1), 1, [sacked(k)], true, &mut m);
        }
        assert_eq!(drain(&mut s).len(), 1, "the fast retransmit");
        let mut at = vec![];
        for k in 4..=19 {
            s.on_ack::<false>(Time(2), 1, [sacked(k)], true, &mut m);
            at.extend(drain(&mut s).iter().map(|_| k));
        }
        at
    };
    assert_eq!(new_segments_at(false), (11..=19).collect::<Vec<_>>(), "RFC 6675: once pipe < cwnd");
    // PRR: by the k-th duplicate ACK k − 2 delivered since recovery began (the third the
    // first), CEIL((k − 2) / 2) segments due, the fast retransmit the first of them. The 15th
    // finds pipe at ssthresh (20 − 15 + 5 new): from there the bound, ssthresh − pipe.
    assert_eq!(new_segments_at(true), [5, 7, 9, 11, 13, 16, 17, 18, 19]);
}

/// NewReno recovery whose inflation sent five new segments; then the RTO fires.
fn rto_after_inflated_recovery(f: impl FnOnce(&mut SenderConfig)) -> Window {
    let (mut s, mut m) = sender(RecoveryKind::NewReno, f);
    lose_first(&mut s, &mut m, 10);
    assert_eq!(s.window().ssthresh, 5 * MSS);
    assert_eq!(drain(&mut s).len(), 1 + 5, "the retransmission and five new segments");
    assert_eq!(s.flight(), 15 * MSS);
    s.on_rto(Time(0), false, &mut m);
    s.window()
}

#[test]
fn rto_in_recovery_ssthresh_rules() {
    let keep = rto_after_inflated_recovery(|_| {});
    assert_eq!(keep.ssthresh, 5 * MSS);
    let flight = rto_after_inflated_recovery(|c| c.rto_in_recovery = RtoInRecovery::Halve);
    assert_eq!(flight.ssthresh, 7500, "FlightSize / 2 counts what recovery sent");
    let ns2 = rto_after_inflated_recovery(|c| {
        c.rto_in_recovery = RtoInRecovery::Halve;
        c.loss_window = LossWindow::Cwnd;
    });
    assert_eq!(ns2.ssthresh, 2500, "half the uninflated window (ns-2)");
    assert_eq!((keep.cwnd, flight.cwnd, ns2.cwnd), (MSS, MSS, MSS));
}

#[test]
fn limited_transmit_segments_do_not_count_in_the_flight_that_ssthresh_halves() {
    let (mut s, mut m) = sender(RecoveryKind::NewReno, |c| c.limited_transmit = true);
    assert_eq!(drain(&mut s).len(), 10);
    for _ in 0..2 {
        s.on_ack::<false>(Time(1), 1, [], true, &mut m);
        assert_eq!(drain(&mut s).len(), 1, "RFC 3042: one new segment per duplicate ACK");
    }
    assert_eq!(s.flight(), 12 * MSS);
    s.on_ack::<false>(Time(1), 1, [], true, &mut m);
    assert!(s.in_recovery());
    // RFC 5681 §3.2 step 2: FlightSize / 2 of the ten segments, not of twelve.
    assert_eq!(s.window().ssthresh, 5 * MSS);
}

#[test]
fn unlimited_sender_counts_acked_bytes() {
    let (mut s, mut m) = sender(RecoveryKind::NewReno, |_| {});
    drain(&mut s);
    s.on_ack::<false>(Time(1), 1 + 3 * MSS, [], true, &mut m);
    assert_eq!(s.bytes_acked(0), 3 * MSS);
}

/// Regression: default Vegas on the paper-001 dumbbell at 150 Mb/s sat at cwnd = 1
/// segment for 6.6 s after a timeout (3.41 s to 10 s), delivering two segments per RTT.
/// Its slow start grows only in every other rate epoch, and the epoch in progress at the
/// timeout waited for the ACK of a segment beyond the old snd_nxt, 12,000 segments ahead
/// of the go-back-N. The timeout now begins a new epoch (`Measure::on_timeout`).
#[test]
fn vegas_slow_start_grows_after_a_timeout_with_much_outstanding() {
    use crate::cc::{Vegas, VegasConfig};
    let cfg = SenderConfig { initial_window_segments: 100, ..config(RecoveryKind::NewReno) };
    let mut s = Sender::new(&cfg, Cc::slow_start(Avoidance::Vegas(Vegas::new(VegasConfig::default()))), Restart::Ssr.build(0), 0);
    s.write_unlimited();
    let mut m = Measure::new(RtoConfig::default());
    let ms = |v: u64| Time(v * 1_000_000);
    assert_eq!(drain(&mut s).len(), 100);
    // The first segment is acknowledged (an epoch begins, ending beyond segment 100); the
    // second is lost and everything after it waits at the receiver.
    s.on_ack::<false>(ms(100), 1 + MSS, [], true, &mut m);
    assert_eq!(drain(&mut s).len(), 1);
    s.on_rto(Time(0), false, &mut m);
    assert_eq!(s.window().cwnd, MSS);
    // Go-back-N: each round resends what the window allows; the receiver acknowledges each
    // segment as it fills the hole (retransmissions: no RTT sample, Karn's rule).
    for round in 1..=8u64 {
        let sent = std::iter::from_fn(|| s.poll::<false>(ms(1000 + 100 * round))).collect::<Vec<_>>();
        assert!(!sent.is_empty() && sent.iter().all(|t| t.retransmission));
        for t in sent {
            s.on_ack::<false>(ms(1100 + 100 * round), t.seq + t.len as u64, [], true, &mut m);
        }
    }
    // Doubling every other round from one segment: 1, 1, 2, 2, 4, 4, 8, 8 → 16.
    assert!(s.window().cwnd >= 8 * MSS, "cwnd {} after 8 rounds of go-back-N", s.window().cwnd);
    assert!(s.snd_una() < 1 + 100 * MSS, "still below the old snd_nxt: the test covers the stall");
}

fn rack_tlp_sender(iw: u32) -> Sender {
    let cfg = SenderConfig { rack_tlp: true, initial_window_segments: iw, ..config(RecoveryKind::Sack) };
    Sender::new(&cfg, Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), Restart::Ssr.build(0), 0)
}

/// RFC 8985 §7.3: the probe sends new data when the application has some and the peer's
/// window takes it, whatever cwnd says; else the highest segment sent, again.
#[test]
fn rfc_8985_7_3_the_probe_is_new_data_if_any_else_the_last_segment() {
    let srtt = Some(Duration(20_000_000));
    let mut s = rack_tlp_sender(2);
    s.write(3 * MSS);
    assert_eq!(drain(&mut s).len(), 2, "cwnd is 2 segments");
    assert_eq!(s.probe_at(Time(0), srtt, None), Some(Time(40_000_000)), "2·SRTT with two segments out");
    s.on_probe_timer();
    let probe = drain(&mut s);
    assert_eq!(probe.len(), 1);
    assert!(probe[0].probe && !probe[0].retransmission && probe[0].seq == 1 + 2 * MSS, "{probe:?}");
    assert_eq!(s.probe_at(Time(0), srtt, None), None, "one probe in flight");

    let mut s = rack_tlp_sender(2);
    s.write(2 * MSS);
    drain(&mut s);
    s.on_probe_timer();
    let probe = drain(&mut s);
    assert!(probe.len() == 1 && probe[0].probe && probe[0].retransmission && probe[0].seq == 1 + MSS, "{probe:?}");
    assert_eq!(s.stats().tlp_probes, 1);
}

/// RFC 8985 §7.2: a probe is scheduled with data outstanding, not in recovery and with
/// nothing SACKed; with one segment out it waits WCDelAckT more; never past the RTO.
#[test]
fn rfc_8985_7_2_when_a_probe_may_be_scheduled() {
    let (srtt, mut m) = (Some(Duration(20_000_000)), Measure::new(RtoConfig::default()));
    let mut s = rack_tlp_sender(10);
    assert_eq!(s.probe_at(Time(0), srtt, None), None, "nothing outstanding");
    s.write(MSS);
    drain(&mut s);
    assert_eq!(s.probe_at(Time(0), srtt, None), Some(Time(240_000_000)), "one segment out: + WCDelAckT");
    assert_eq!(s.probe_at(Time(0), srtt, Some(Time(100))), Some(Time(100)), "the RTO comes first");
    let mut s = rack_tlp_sender(10);
    s.write_unlimited();
    assert_eq!(drain(&mut s).len(), 10);
    s.on_ack::<false>(Time(1), 1, [sacked(1)], true, &mut m);
    assert_eq!(s.probe_at(Time(1), srtt, None), None, "SACKed data outstanding: RACK's to find");
    let (mut s, mut m) = sender(RecoveryKind::Sack, |c| c.rack_tlp = true);
    lose_first(&mut s, &mut m, 3);
    assert!(s.in_recovery());
    assert_eq!(s.probe_at(Time(1), srtt, None), None, "in recovery");
    // After a timeout, none while go-back-N repairs its window (Linux: no probe in Loss).
    let mut s = rack_tlp_sender(10);
    s.write_unlimited();
    drain(&mut s);
    s.on_rto(Time(1), false, &mut m);
    drain(&mut s);
    assert_eq!(s.probe_at(Time(1), srtt, None), None, "a timeout's window being repaired");
    s.on_ack::<false>(Time(2), 1 + 10 * MSS, [], true, &mut m);
    assert!(!drain(&mut s).is_empty());
    assert!(s.probe_at(Time(2), srtt, None).is_some(), "the window repaired, new data out");
}

/// Without RTO samples (ns-2's FullTcp), an ACK's RTT is observed (the least RTT) but the
/// RTO stays at its initial value.
#[test]
fn rtt_observed_without_setting_the_rto() {
    let cfg = SenderConfig { rto_samples: false, ..config(RecoveryKind::NewReno) };
    let mut s = Sender::new(&cfg, Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), Restart::Ssr.build(0), 0);
    let mut m = Measure::new(RtoConfig::default());
    s.write(3 * MSS);
    drain(&mut s);
    let r = s.on_ack::<false>(Time(20_000_000), 1 + MSS, [], true, &mut m);
    assert_eq!(r.rtt_sample, Some(Duration(20_000_000)));
    assert_eq!((m.min_rtt(), m.srtt(), m.rto()), (Some(Duration(20_000_000)), None, RtoConfig::default().initial));
}

/// An application that writes one segment per RTT of 100 ms, each acknowledged before the
/// next: the cwnd after 40 such rounds under `restart`.
fn cwnd_after_one_segment_per_rtt(restart: Restart, rate_limited_increase: bool) -> u64 {
    let cfg = SenderConfig { initial_window_segments: 4, rate_limited_increase, ..config(RecoveryKind::Sack) };
    let mut s = Sender::new(&cfg, Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), restart.build(4 * MSS), 0);
    let mut m = Measure::new(RtoConfig::default());
    for k in 0..40u64 {
        let t = Time(k * 100_000_000);
        s.write(MSS);
        assert_eq!(drain_at(&mut s, t).len(), 1);
        assert!(s.poll::<false>(t).is_none() && s.app_limited(), "round {k}: the application has nothing more");
        m.on_rtt_sample(Duration::from_millis(100));
        s.on_ack::<false>(Time(t.0 + 99_000_000), 1 + (k + 1) * MSS, [], true, &mut m);
    }
    s.window().cwnd
}

fn drain_at(s: &mut Sender, now: Time) -> Vec<TxData> {
    std::iter::from_fn(|| s.poll::<false>(now)).collect()
}

/// RFC 5681 (paper 003 §2): a standard sender grows cwnd on every ACK even while the
/// application keeps it far below the window (slow start: one segment per ACK); new-CWV
/// (RFC 7661 §4.3) holds it once pipeACK (one segment per RTT) is under half of cwnd.
#[test]
fn standard_tcp_grows_while_application_limited_and_new_cwv_holds() {
    assert_eq!(cwnd_after_one_segment_per_rtt(Restart::Ssr, false), (4 + 40) * MSS);
    let held = cwnd_after_one_segment_per_rtt(Restart::NewCwv(Default::default()), false);
    // The first ACK begins the first rate epoch: pipeACK is still undefined and cwnd grows
    // to 5; from the second on, pipeACK = 1 segment < 5 / 2.
    assert_eq!(held, 5 * MSS, "new-CWV");
}

/// draft-ietf-ccwg-ratelimited-increase §3: maxFS starts at the initial window (4 segments)
/// and the flight never passes it, so slow start stops at 2·maxFS = 8 segments.
#[test]
fn the_rate_limited_increase_rule_caps_growth_at_twice_the_largest_flight() {
    assert_eq!(cwnd_after_one_segment_per_rtt(Restart::Ssr, true), 8 * MSS);
}

/// §3: in congestion avoidance the limit is maxFS + SMSS; a window above the limit is held,
/// not cut.
#[test]
fn the_rate_limited_increase_rule_in_congestion_avoidance() {
    use crate::cc::Window;
    let mut c = Congestion::new(Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), Window { cwnd: 10 * MSS, ssthresh: 5 * MSS });
    c.set_by_restart(Window { cwnd: 10 * MSS + 100, ssthresh: 5 * MSS });
    c.limit_increase(10 * MSS, 6 * MSS, MSS);
    assert_eq!(c.cwnd(), 10 * MSS, "above maxFS + SMSS = 7 segments: held at the window before the ACK");
    c.set_by_restart(Window { cwnd: 6 * MSS + 500, ssthresh: 5 * MSS });
    c.limit_increase(6 * MSS, 6 * MSS, MSS);
    assert_eq!(c.cwnd(), 6 * MSS + 500, "below the limit: the growth stands");
}

/// The window after a SACK recovery that starts with 20 segments out, the first lost:
/// before it, 40 segments of bulk data (slow start to 44 segments), then 5 RTTs of one
/// segment each (application-limited: pipeACK = 1 segment).
fn window_after_a_loss_following_a_quiet_spell(restart: Restart) -> crate::cc::Window {
    let cfg = SenderConfig { initial_window_segments: 4, ..config(RecoveryKind::Sack) };
    let mut s = Sender::new(&cfg, Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), restart.build(4 * MSS), 0);
    let mut m = Measure::new(RtoConfig::default());
    let rtt = 100_000_000;
    let mut t = 0;
    let round = |s: &mut Sender, m: &mut Measure, t: &mut u64| {
        let sent = drain_at(s, Time(*t));
        *t += rtt;
        for seg in sent {
            s.on_ack::<false>(Time(*t), seg.seq + seg.len as u64, [], true, m);
        }
    };
    s.write(40 * MSS);
    while s.outstanding() || s.has_unsent_data() {
        round(&mut s, &mut m, &mut t);
    }
    for _ in 0..5 {
        s.write(MSS);
        round(&mut s, &mut m, &mut t);
    }
    // 20 segments at once; the first is lost, the next three are SACKed (RFC 6675 §5).
    s.write(20 * MSS);
    let sent = drain_at(&mut s, Time(t));
    assert_eq!(sent.len(), 20);
    let una = sent[0].seq;
    t += rtt;
    for k in 1..=3 {
        s.on_ack::<false>(Time(t), una, [SeqRange { start: una + MSS, end: una + (k + 1) * MSS }], true, &mut m);
    }
    assert!(s.in_recovery());
    let resent = drain_at(&mut s, Time(t));
    assert_eq!((resent.len(), resent[0].seq, resent[0].retransmission), (1, una, true), "R = one segment");
    s.on_ack::<false>(Time(t + rtt), una + 20 * MSS, [], true, &mut m);
    assert!(!s.in_recovery());
    s.window()
}

/// Paper 003 §3, RFC 7661 §4.4.1: a loss in the non-validated phase ends its SACK recovery
/// with cwnd = (D − R) / 2 = (20 − 1) / 2 = 9.5 segments, ssthresh the same, R being what
/// the recovery resent; standard TCP halves the FlightSize, to 10.
#[test]
fn rfc_7661_4_4_1_a_sack_recovery_in_the_nvp_ends_at_d_minus_r_over_two() {
    use crate::restart::{NewCwvConfig, NewCwvForm};
    let paper = Restart::NewCwv(NewCwvConfig { form: NewCwvForm::Paper, ..Default::default() });
    let w = window_after_a_loss_following_a_quiet_spell(paper);
    assert_eq!((w.cwnd, w.ssthresh), (9 * MSS + MSS / 2, 9 * MSS + MSS / 2));
    let w = window_after_a_loss_following_a_quiet_spell(Restart::Ssr);
    assert_eq!((w.cwnd, w.ssthresh), (10 * MSS, 10 * MSS));
}

/// The estimator's snapshots are kept only for a controller that reads rate samples.
#[test]
fn only_a_controller_that_reads_rate_samples_gets_the_estimator() {
    let (s, _) = sender(RecoveryKind::Sack, |_| {});
    assert!(s.rate.is_none());
    let bbr = Sender::new(&config(RecoveryKind::Sack), Cc::slow_start(Avoidance::Bbr(Box::default())), Restart::Nssr.build(0), 0);
    assert!(bbr.rate.is_some());
}

/// `bbr_set_cwnd_to_recover_or_restore` with in flight as Linux's `tcp_packets_in_flight`
/// counts it: at recovery's entry cwnd = in flight + delivered, the lost segment not in
/// flight (RFC 6675's pipe: segments 5 to 10, six), the SACKed ones neither.
#[test]
fn bbr_conserves_packets_at_recovery_entry_with_the_lost_segment_out_of_flight() {
    let mut s = Sender::new(&config(RecoveryKind::Sack), Cc::slow_start(Avoidance::Bbr(Box::default())), Restart::Nssr.build(0), 0);
    s.write_unlimited();
    let mut m = Measure::new(RtoConfig::default());
    lose_first(&mut s, &mut m, 3);
    assert!(s.in_recovery());
    assert_eq!(s.window().cwnd, 7 * MSS, "pipe 6 segments + the one this ACK SACKed");
}
