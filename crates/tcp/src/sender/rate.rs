//! The sender's side of the delivery-rate estimator (`crate::rate_sample`), for a
//! controller that reads rate samples (BBR): the snapshot of each segment sent, each ACK's
//! sample, and the ACKs the controller hears beyond the window's own (in recovery, and
//! those that only SACK). Apart from `mod.rs` so that a sender without it pays one test of
//! an `Option` per send and per ACK.

use super::Sender;
use crate::cc::{AckCtx, CongestionControl};
use crate::measure::{Measure, RateEpoch};
use crate::rate_sample::RateSample;
use crate::recovery::Scoreboard;
use crate::segment::SeqRange;
use crate::time::Time;

impl Sender {
    /// The ACK's delivery-rate sample, for a controller that reads rate samples
    /// (`crate::rate_sample`): the estimator hears the ACK before the sender does.
    #[cold]
    pub(super) fn sample_ack(&mut self, now: Time, ack: u64, sack: impl IntoIterator<Item = SeqRange>, measure: &Measure) -> Option<RateSample> {
        self.rate.as_mut().and_then(|r| r.on_ack(now, ack, sack, measure.min_rtt()))
    }

    /// An ACK that delivered data by SACK alone, heard by a controller that reads rate
    /// samples and sets the window on every ACK.
    #[cold]
    pub(super) fn on_delivered_without_new_ack(&mut self, now: Time, ack: u64, measure: &Measure, rs: &RateSample) {
        if !self.congestion.sets_window_in_recovery() {
            return;
        }
        let counted = self.loss_aware(rs);
        let rate = Some(&counted);
        let ctx = AckCtx {
            now,
            mss: self.mss,
            acked_bytes: 0,
            rtt_sample: None,
            app_limited: self.app_limited,
            measure,
            rate_epoch: RateEpoch::Running,
            ack,
            snd_nxt: self.snd_nxt,
            rate,
            in_recovery: self.rec.in_recovery(),
        };
        self.congestion.on_ack_in_recovery(&ctx);
    }

    /// The sample with in flight as Linux counts it (`tcp_packets_in_flight`: lost
    /// segments out, retransmitted ones in): in SACK recovery RFC 6675's pipe from the
    /// scoreboard; in a go-back-N after a timeout, where everything above snd_nxt counts
    /// as lost, only what was resent. Outside both, the estimator's count.
    #[cold]
    pub(super) fn loss_aware(&self, rs: &RateSample) -> RateSample {
        let in_flight = if self.rec.in_recovery() {
            Scoreboard::of(&self.queue, self.rec.dupthresh(), self.mss).pipe
        } else if self.snd_nxt < self.snd_max {
            rs.in_flight.min(self.snd_nxt - self.snd_una)
        } else {
            rs.in_flight
        };
        RateSample { in_flight, ..*rs }
    }

    /// The estimator's snapshot of a segment sent now (draft-cheng-iccrg-delivery-rate-
    /// estimation §3.2, Linux's `tcp_rate_skb_sent`), after the app-limited check (§3.4):
    /// the sender last found no data with room in the window, or the controller asks.
    /// With nothing in flight before it, the controller hears of the start (CA_EVENT_TX_START).
    #[cold]
    pub(super) fn sample_sent(&mut self, now: Time, seq: u64, seq_end: u64, retransmission: bool, tx_start: bool) {
        let marks = self.app_limited || self.congestion.cc().marks_app_limited();
        // Linux marks once per write that finds the sender idle (`tcp_sendmsg`); the mark
        // then lasts until its data is delivered. The flag is spent here, or the first
        // idle poll of a bulk flow would mark all it ever sends.
        self.app_limited = false;
        let r = self.rate.as_mut().expect("sampled");
        if marks {
            r.mark_app_limited();
        }
        let app_limited = r.is_app_limited();
        r.on_sent(now, seq, seq_end, retransmission);
        if tx_start {
            self.congestion.on_tx_start(now, app_limited);
        }
    }
}
