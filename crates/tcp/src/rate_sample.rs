//! The delivery-rate estimator (draft-cheng-iccrg-delivery-rate-estimation, Linux's
//! `tcp_rate.c`): at each transmission a segment takes a snapshot of the connection's
//! delivery state; when it is delivered (cumulatively acknowledged or SACKed) the snapshot
//! of the most recently sent of the segments an ACK delivers gives a rate sample, the data
//! delivered over the longer of its send and ACK phases.
//!
//! The sender keeps one `RateSampler` only when its controller reads rate samples
//! (`CongestionControl::wants_rate_samples`); the snapshots live here, beside the send
//! queue's records, which stay as small as the scoreboard wants them.
//!
//! Counts are in bytes (the draft's unit; Linux counts packets). In flight is FlightSize
//! less the SACKed bytes: loss marks are the recovery part's and are not seen here.

use std::collections::VecDeque;

use crate::segment::SeqRange;
use crate::time::{Duration, Time};

/// One transmission's snapshot (draft §3.2, "Transmitting a data packet": P.delivered,
/// P.delivered_time, P.first_sent_time, P.is_app_limited, P.sent_time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TxSnapshot {
    seq: u64,
    end: u64,
    sent_at: Time,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    is_app_limited: bool,
    retransmitted: bool,
    /// Delivered by a SACK: not counted again when the cumulative ACK covers it (Linux
    /// clears `tx.delivered_mstamp` in `tcp_rate_skb_delivered`).
    sacked: bool,
}

/// A rate sample (draft §3.3, "Upon receiving ACK"; Linux's `struct rate_sample`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered between the chosen segment's send and this ACK (rs.delivered).
    pub delivered: u64,
    /// max(send_elapsed, ack_elapsed) (draft §3.3; rs.interval_us).
    pub interval: Duration,
    pub send_elapsed: Duration,
    pub ack_elapsed: Duration,
    /// The chosen segment was sent while the application limited the sender (draft §3.4).
    pub is_app_limited: bool,
    /// C.delivered when the chosen segment was sent (rs.prior_delivered).
    pub prior_delivered: u64,
    /// Bytes this ACK newly delivered, acknowledged or SACKed (rs.acked_sacked).
    pub newly_delivered: u64,
    /// In flight just before this ACK (rs.prior_in_flight).
    pub prior_in_flight: u64,
    /// In flight after it.
    pub in_flight: u64,
    /// C.delivered after this ACK (tp->delivered).
    pub total_delivered: u64,
    /// RTT of the most recently sent segment this ACK delivered, none when it delivered a
    /// retransmitted one (Karn's rule; Linux's ca_rtt_us, what BBR reads as rs->rtt_us).
    pub rtt: Option<Duration>,
    /// Bytes counted lost since the previous sample (rs.losses): retransmitted since then.
    pub losses: u64,
    /// Bytes counted lost so far (tp->lost).
    pub total_lost: u64,
    /// Whether the interval is a valid observation: a snapshot was found and the interval
    /// is at least the least RTT seen (Linux's `tcp_rate_gen` gives -1 otherwise).
    pub valid: bool,
}

#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    snapshots: VecDeque<TxSnapshot>,
    /// C.delivered: bytes delivered so far.
    delivered: u64,
    /// C.delivered_time: when C.delivered last grew.
    delivered_time: Time,
    /// C.first_sent_time: the send time of the most recently delivered segment, where the
    /// next send phase starts.
    first_sent_time: Time,
    /// C.app_limited: the C.delivered mark beyond which the app-limited phase is over;
    /// zero when none (draft §3.4; Linux's `tp->app_limited`).
    app_limited_until: u64,
    /// Bytes SACKed and not yet cumulatively acknowledged.
    sacked_bytes: u64,
    /// Bytes sent and not cumulatively acknowledged.
    flight_bytes: u64,
    /// Bytes retransmitted so far: what this model counts as lost (Linux's `tp->lost`
    /// counts the segments marked lost, each of which is then retransmitted).
    lost: u64,
    /// `lost` at the last sample.
    lost_reported: u64,
    /// The end of what was outstanding at the last timeout, which counted it all lost at
    /// once: its go-back-N retransmissions below this add nothing to `lost`.
    lost_through: u64,
}

impl RateSampler {
    /// Bytes in flight as this estimator counts them: sent, not acknowledged, not SACKed.
    pub fn in_flight(&self) -> u64 {
        self.flight_bytes - self.sacked_bytes
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Segments sent now are marked app-limited (C.app_limited is set).
    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until != 0
    }

    /// The application has nothing to send while the window has room (draft §3.4,
    /// Linux's `tcp_rate_check_app_limited`): the samples of what is sent until the data in
    /// flight now is delivered are app-limited.
    pub fn mark_app_limited(&mut self) {
        self.app_limited_until = (self.delivered + self.in_flight()).max(1);
    }

    /// A data segment `[seq, end)` goes out now (draft §3.2; Linux's `tcp_rate_skb_sent`).
    /// A retransmission reuses its record's boundaries and takes a fresh snapshot.
    pub fn on_sent(&mut self, now: Time, seq: u64, end: u64, retransmission: bool) {
        if end == seq {
            // Nothing that takes a sequence number: nothing to deliver.
            return;
        }
        if self.snapshots.is_empty() {
            // Nothing in flight: the send phase, and the ACK phase, start now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let snap = TxSnapshot {
            seq,
            end,
            sent_at: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            is_app_limited: self.app_limited_until != 0,
            retransmitted: retransmission,
            sacked: false,
        };
        if retransmission {
            self.lost += end.saturating_sub(seq.max(self.lost_through));
            let i = self.snapshots.partition_point(|s| s.seq < seq);
            if let Some(s) = self.snapshots.get_mut(i).filter(|s| s.seq == seq) {
                *s = TxSnapshot { end: s.end, sacked: s.sacked, ..snap };
            }
            return;
        }
        self.flight_bytes += end - seq;
        self.snapshots.push_back(snap);
    }

    /// An ACK with cumulative point `ack` and these SACK blocks arrived now; `min_rtt` is
    /// the least RTT seen so far. Returns the rate sample (draft §3.3; Linux's
    /// `tcp_rate_skb_delivered` per segment delivered, then `tcp_rate_gen`); none when
    /// the ACK delivered nothing.
    pub fn on_ack(&mut self, now: Time, ack: u64, sack: impl IntoIterator<Item = SeqRange>, min_rtt: Option<Duration>) -> Option<RateSample> {
        let prior_in_flight = self.in_flight();
        let mut pick: Option<TxSnapshot> = None;
        let mut newly = 0;
        let mut any_retransmitted = false;
        let mut deliver = |s: &TxSnapshot, bytes: u64, pick: &mut Option<TxSnapshot>| {
            newly += bytes;
            any_retransmitted |= s.retransmitted;
            // The most recently sent of the segments delivered (by send time, then sequence).
            if pick.is_none_or(|p| (s.sent_at, s.end) > (p.sent_at, p.end)) {
                *pick = Some(*s);
            }
        };
        for b in sack {
            let i = self.snapshots.partition_point(|s| s.seq < b.start.max(ack));
            for s in self.snapshots.range_mut(i..) {
                if s.end > b.end {
                    break;
                }
                if !s.sacked {
                    s.sacked = true;
                    self.sacked_bytes += s.end - s.seq;
                    deliver(s, s.end - s.seq, &mut pick);
                }
            }
        }
        while let Some(front) = self.snapshots.front_mut() {
            if front.seq >= ack {
                break;
            }
            let len = front.end - front.seq;
            if front.end <= ack {
                let s = self.snapshots.pop_front().expect("the front");
                self.flight_bytes -= len;
                if s.sacked {
                    self.sacked_bytes -= len;
                } else {
                    deliver(&s, len, &mut pick);
                }
            } else {
                // Acknowledged part-way: the rest keeps its snapshot.
                let cut = ack - front.seq;
                front.seq = ack;
                self.flight_bytes -= cut;
                if front.sacked {
                    self.sacked_bytes -= cut;
                } else {
                    let s = *front;
                    deliver(&s, cut, &mut pick);
                }
                break;
            }
        }
        if newly == 0 {
            return None;
        }
        self.delivered += newly;
        self.delivered_time = now;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let p = pick.expect("something was delivered");
        // The next send phase starts at the chosen segment's send.
        self.first_sent_time = p.sent_at;
        let send_elapsed = p.sent_at.since(p.first_sent_time);
        let ack_elapsed = now.since(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        // An interval below the least RTT would overestimate the rate (ACK compression).
        let valid = min_rtt.is_none_or(|m| interval >= m) && interval > Duration::ZERO;
        let losses = self.lost - self.lost_reported;
        self.lost_reported = self.lost;
        Some(RateSample {
            delivered: self.delivered - p.delivered,
            interval,
            send_elapsed,
            ack_elapsed,
            is_app_limited: p.is_app_limited,
            prior_delivered: p.delivered,
            newly_delivered: newly,
            prior_in_flight,
            in_flight: self.in_flight(),
            total_delivered: self.delivered,
            rtt: (!any_retransmitted).then(|| now.since(p.sent_at)),
            losses,
            total_lost: self.lost,
            valid,
        })
    }

    /// The retransmission timer expired: what is outstanding and not SACKed is lost, all at
    /// once (Linux's `tcp_enter_loss` marks it, adding to `tp->lost`). What was SACKed
    /// stays delivered, as Linux keeps its marks unless the receiver reneged: the sender's
    /// scoreboard forgets them (RFC 2018 §8) and resends, but the cumulative ACK that later
    /// covers them delivers nothing new, so they do not count twice in a rate sample.
    pub fn on_rto(&mut self) {
        let through = self.snapshots.back().map_or(self.lost_through, |s| s.end);
        let from = self.lost_through;
        self.lost += self.snapshots.iter().filter(|s| !s.sacked && s.end > from).map(|s| s.end - s.seq.max(from)).sum::<u64>();
        self.lost_through = through;
    }
}

impl RateSample {
    /// The sample's delivery rate, delivered / interval, in bytes per second; none for an
    /// invalid sample.
    pub fn rate_bytes_per_sec(&self) -> Option<u64> {
        self.valid.then(|| (self.delivered as u128 * 1_000_000_000 / self.interval.as_nanos().max(1) as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn at_ms(ms: u64) -> Time {
        Time(ms * MS)
    }

    /// Draft §3.3: delivered over max(send phase, ACK phase). Ten segments sent 1 ms apart,
    /// each acknowledged 100 ms after its send. The tenth was sent before anything was
    /// delivered: its send phase runs from the first send (9 ms), its ACK phase from the
    /// first send too (C.delivered_time was set there), 109 ms, and that one counts.
    #[test]
    fn draft_3_3_the_interval_is_the_longer_of_the_send_and_ack_phases() {
        let mut r = RateSampler::default();
        for k in 0..10 {
            r.on_sent(at_ms(k), 1 + k * MSS, 1 + (k + 1) * MSS, false);
        }
        let first = r.on_ack(at_ms(100), 1 + MSS, [], Some(Duration(100 * MS))).expect("delivered");
        assert_eq!((first.delivered, first.ack_elapsed, first.send_elapsed), (MSS, Duration(100 * MS), Duration::ZERO));
        let mut last = first;
        for k in 1..10 {
            last = r.on_ack(at_ms(100 + k), 1 + (k + 1) * MSS, [], Some(Duration(100 * MS))).expect("delivered");
        }
        assert_eq!(last.prior_delivered, 0, "the tenth was sent before anything was delivered");
        assert_eq!(last.delivered, 10 * MSS);
        assert_eq!(last.send_elapsed, Duration(9 * MS));
        assert_eq!(last.ack_elapsed, Duration(109 * MS), "from the first send: nothing was delivered when it was sent");
        assert_eq!(last.interval, Duration(109 * MS));
        assert!(!last.is_app_limited);
    }

    /// Draft §3.4 (Linux's `tcp_rate_check_app_limited`): an application-limited flow. One
    /// segment every 10 ms on a 100 ms path: every sample is marked app-limited, its rate is
    /// the application's (1 segment per 10 ms), far below what the path could carry; when
    /// the application fills the window again the mark ends once the data in flight at the
    /// mark is delivered.
    #[test]
    fn draft_3_4_samples_of_an_app_limited_flow_are_marked() {
        let mut r = RateSampler::default();
        let rtt = Duration(100 * MS);
        let mut samples = Vec::new();
        let mut seq = 1;
        for k in 0..30u64 {
            // Before each write the sender found nothing to send with room in the window.
            r.mark_app_limited();
            r.on_sent(at_ms(10 * k), seq, seq + MSS, false);
            seq += MSS;
            if k >= 10 {
                // The segment sent 100 ms ago is acknowledged now.
                let acked = 1 + (k - 9) * MSS;
                samples.push(r.on_ack(at_ms(10 * k), acked, [], Some(rtt)).expect("delivered"));
            }
        }
        assert!(samples.iter().all(|s| s.is_app_limited), "every sample of the app-limited flow is marked");
        let last = samples.last().expect("samples");
        let rate = last.rate_bytes_per_sec().expect("valid");
        assert_eq!(rate, 10 * MSS * 1000 / 100, "the application's rate: 10 segments per 100 ms");
        println!("app-limited sample: {} bytes in {} -> {rate} B/s", last.delivered, last.interval);
        // The application now sends without pause: the mark covers what is in flight now.
        let mark = r.delivered() + r.in_flight();
        let mut acked = 1 + 21 * MSS;
        let mut unmarked = None;
        for now in 300..340 {
            r.on_sent(at_ms(now), seq, seq + MSS, false);
            seq += MSS;
            let s = r.on_ack(at_ms(now), acked, [], Some(rtt)).expect("delivered");
            if !s.is_app_limited {
                unmarked = Some(s);
                break;
            }
            acked += MSS;
        }
        let s = unmarked.expect("the mark ends");
        assert!(s.prior_delivered >= mark, "the first unmarked sample is of a segment sent after the mark was passed");
    }

    /// Linux's `tcp_rate_skb_delivered`: a SACKed segment is delivered once; the cumulative
    /// ACK that later covers it adds nothing.
    #[test]
    fn a_sacked_segment_is_delivered_once() {
        let mut r = RateSampler::default();
        for k in 0..4 {
            r.on_sent(at_ms(k), 1 + k * MSS, 1 + (k + 1) * MSS, false);
        }
        let s = r.on_ack(at_ms(100), 1, [SeqRange { start: 1 + MSS, end: 1 + 3 * MSS }], None).expect("SACKed");
        assert_eq!((s.newly_delivered, s.prior_in_flight, s.in_flight), (2 * MSS, 4 * MSS, 2 * MSS));
        assert_eq!(s.rtt, Some(Duration(98 * MS)), "from the newest SACKed segment, sent at 2 ms");
        let s = r.on_ack(at_ms(110), 1 + 3 * MSS, [], None).expect("the hole is filled");
        assert_eq!(s.newly_delivered, MSS);
        assert_eq!(s.total_delivered, 3 * MSS);
    }

    /// Linux's `tcp_rate_gen`: an interval below the least RTT is no observation.
    #[test]
    fn an_interval_below_the_least_rtt_is_not_valid() {
        let mut r = RateSampler::default();
        r.on_sent(at_ms(0), 1, 1 + MSS, false);
        let s = r.on_ack(at_ms(5), 1 + MSS, [], Some(Duration(10 * MS))).expect("delivered");
        assert!(!s.valid);
        assert_eq!(s.rate_bytes_per_sec(), None);
    }

    /// rs.losses: what was retransmitted since the previous sample (each retransmission
    /// follows a loss mark, Linux's `tp->lost`), reported once.
    #[test]
    fn a_retransmission_counts_as_lost_in_the_next_sample() {
        let mut r = RateSampler::default();
        for k in 0..3 {
            r.on_sent(at_ms(k), 1 + k * MSS, 1 + (k + 1) * MSS, false);
        }
        r.on_sent(at_ms(50), 1, 1 + MSS, true);
        let s = r.on_ack(at_ms(100), 1, [SeqRange { start: 1 + MSS, end: 1 + 2 * MSS }], None).expect("SACKed");
        assert_eq!((s.losses, s.total_lost), (MSS, MSS));
        let s = r.on_ack(at_ms(150), 1 + 3 * MSS, [], None).expect("acknowledged");
        assert_eq!((s.losses, s.total_lost), (0, MSS));
        assert_eq!(s.rtt, None, "Karn: the retransmitted segment was delivered");
    }

    /// Linux's `tcp_enter_loss`: a timeout marks everything outstanding and not SACKed lost
    /// at once; the go-back-N retransmissions of it then mark nothing more, and what is
    /// sent past it counts only when it is itself retransmitted.
    #[test]
    fn a_timeout_counts_the_outstanding_lost_once() {
        let mut r = RateSampler::default();
        for k in 0..4 {
            r.on_sent(at_ms(k), 1 + k * MSS, 1 + (k + 1) * MSS, false);
        }
        let s = r.on_ack(at_ms(100), 1, [SeqRange { start: 1 + 3 * MSS, end: 1 + 4 * MSS }], None).expect("SACKed");
        assert_eq!(s.losses, 0);
        r.on_rto();
        for k in 0..4 {
            r.on_sent(at_ms(1000 + k), 1 + k * MSS, 1 + (k + 1) * MSS, true);
        }
        let s = r.on_ack(at_ms(1100), 1 + MSS, [], None).expect("acknowledged");
        assert_eq!((s.losses, s.total_lost), (3 * MSS, 3 * MSS), "the three not SACKed, once");
        r.on_sent(at_ms(1101), 1 + 4 * MSS, 1 + 5 * MSS, false);
        r.on_sent(at_ms(1200), 1 + 4 * MSS, 1 + 5 * MSS, true);
        let s = r.on_ack(at_ms(1300), 1 + 2 * MSS, [], None).expect("acknowledged");
        assert_eq!((s.losses, s.total_lost), (MSS, 4 * MSS), "sent after the timeout, then resent");
        // The SACKed segment stays delivered: the ACK that covers it delivers the rest only.
        let before = r.delivered();
        let s = r.on_ack(at_ms(1400), 1 + 5 * MSS, [], None).expect("acknowledged");
        assert_eq!((s.newly_delivered, r.delivered() - before), (2 * MSS, 2 * MSS));
    }
}
