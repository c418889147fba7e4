//! Linux's HyStart (Ha and Rhee, "Taming the elephants", 2011; `tcp_cubic.c`, Linux 6.x):
//! from a window of 16 segments, slow start ends (ssthresh = cwnd) when either
//! - the delay trigger: the least of a round's first 8 RTT samples exceeds the least RTT
//!   seen by clamp(least / 8, 4 ms, 16 ms) (`hystart_update`, HYSTART_DELAY), or
//! - the ACK-train trigger: ACKs arriving at most 2 ms apart (`hystart_ack_delta_us`) have
//!   spanned, from the round's start, more than half the least RTT (HYSTART_ACK_TRAIN).
//!
//! Linux runs it again in the slow start after a timeout (`bictcp_state` resets it).

use super::startup::Rounds;
use super::{AckCtx, CongestionEvent, CongestionKind, Startup, Window};
use crate::time::{Duration, Time};

/// `hystart_low_window`: no trigger below 16 segments.
const LOW_WINDOW_SEGMENTS: u64 = 16;
/// HYSTART_MIN_SAMPLES.
const MIN_SAMPLES: u32 = 8;
/// HYSTART_DELAY_MIN and HYSTART_DELAY_MAX, the clamp of the delay threshold.
const DELAY_MIN: Duration = Duration::from_millis(4);
const DELAY_MAX: Duration = Duration::from_millis(16);
/// `hystart_ack_delta_us`: ACKs this close belong to one train.
const ACK_DELTA: Duration = Duration::from_millis(2);
/// `hystart_ack_delay`: the ACK-train threshold allows for ACKs delayed by TSO/GSO bursts,
/// min(1 ms, 4 GSO segments of 64 KB at the pacing rate, which in slow start is twice
/// cwnd per srtt: `tcp_update_pacing_rate`).
const GSO_BYTES: u64 = 65_536;

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    found: bool,
    rounds: Rounds,
    round_start: Time,
    last_ack: Time,
    /// The least of the round's first samples, and how many were taken.
    curr_rtt: Option<Duration>,
    samples: u32,
}

impl HyStart {
    pub fn new() -> Self {
        Self::default()
    }

    fn ack_delay(w: &Window, srtt: Option<Duration>) -> Duration {
        let Some(srtt) = srtt else { return Duration::ZERO };
        // 4 × GSO_BYTES / (2 cwnd / srtt).
        srtt.mul_div(2 * GSO_BYTES, w.cwnd).min(Duration::from_millis(1))
    }
}

registered_without_settings!(HyStart, "hystart", "Linux's HyStart: delay and ACK-train exits from 16 segments", HyStart::new());

impl Startup for HyStart {
    // Out of line: the dispatch on every ACK stays small enough to inline for the parts
    // most runs use (NewReno, plain slow start); see docs/performance.md.
    #[inline(never)]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        if self.found || w.cwnd >= w.ssthresh {
            return false;
        }
        let now = ctx.now;
        // Rounds are counted from the first ACK, below the low window too, as
        // `hystart_update` resets them before it looks at cwnd: counted only from 16 segments,
        // a round would start in the middle of an ACK train, where the queue the train built
        // raises its first RTT samples and the delay trigger fires early (docs/testbed.md).
        if self.rounds.on_ack(ctx.ack, ctx.snd_nxt) {
            // `bictcp_hystart_reset`.
            self.round_start = now;
            self.last_ack = now;
            self.curr_rtt = None;
            self.samples = 0;
        }
        if w.cwnd < LOW_WINDOW_SEGMENTS * ctx.mss {
            return false;
        }
        let Some(delay_min) = ctx.measure.min_rtt() else { return false };
        if now.since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            let threshold = Duration((delay_min + Self::ack_delay(w, ctx.measure.srtt())).0 / 2);
            if now.since(self.round_start) > threshold {
                self.found = true;
            }
        }
        if let Some(rtt) = ctx.rtt_sample {
            if self.samples < MIN_SAMPLES {
                self.curr_rtt = Some(self.curr_rtt.map_or(rtt, |c| c.min(rtt)));
                self.samples += 1;
            } else if self.curr_rtt.is_some_and(|c| c > delay_min + Duration(delay_min.0 / 8).clamp(DELAY_MIN, DELAY_MAX)) {
                self.found = true;
            }
        }
        if self.found {
            w.ssthresh = w.cwnd;
        }
        false
    }

    /// A timeout starts HyStart afresh for the slow start that follows (`bictcp_state`).
    fn on_congestion_event(&mut self, _w: &Window, ev: &CongestionEvent) {
        if ev.kind == CongestionKind::Rto {
            *self = HyStart::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;

    const MSS: u64 = 1000;

    fn ack(h: &mut HyStart, w: &mut Window, m: &Measure, at_us: u64, una: u64, rtt_ms: Option<u64>) {
        let ctx = AckCtx { rtt_sample: rtt_ms.map(Duration::from_millis), ack: una, snd_nxt: una + w.cwnd, ..ack_ctx(Time(at_us * 1000), MSS, m) };
        h.on_ack(w, &ctx);
    }

    fn measure(min_ms: u64) -> Measure {
        let mut m = Measure::new(RtoConfig::default());
        m.on_rtt_sample(Duration::from_millis(min_ms));
        m
    }

    /// The least RTT and no srtt (no GSO allowance in the ACK train's spacing).
    fn least_rtt_only(min_ms: u64) -> Measure {
        let mut m = Measure::new(RtoConfig::default());
        m.on_rtt_observed(Duration::from_millis(min_ms));
        m
    }

    #[test]
    fn the_delay_trigger_after_eight_samples_above_min_plus_a_clamped_eighth() {
        // Least RTT 100 ms: threshold 100 + 12.5 ms. ACKs 5 ms apart (no train).
        let m = measure(100);
        let mut h = HyStart::new();
        let mut w = Window { cwnd: 20 * MSS, ssthresh: u64::MAX };
        for i in 0..9 {
            ack(&mut h, &mut w, &m, i * 5_000, (i + 1) * MSS, Some(112));
        }
        assert!(!h.found, "112 ms is within the threshold");
        let mut h = HyStart::new();
        for i in 0..8 {
            ack(&mut h, &mut w, &m, i * 5_000, (i + 1) * MSS, Some(113));
        }
        assert!(!h.found, "eight samples are taken first");
        ack(&mut h, &mut w, &m, 40_000, 9 * MSS, Some(113));
        assert!(h.found && w.ssthresh == w.cwnd, "the ninth sees 113 > 112.5");
    }

    #[test]
    fn the_ack_train_trigger_at_half_the_least_rtt() {
        // Least RTT 40 ms, srtt unknown (no GSO allowance): ACKs 1 ms apart from the round's
        // start trigger once they span more than 20 ms.
        let m = least_rtt_only(40);
        let mut h = HyStart::new();
        let mut w = Window { cwnd: 30 * MSS, ssthresh: u64::MAX };
        for i in 0..=20 {
            ack(&mut h, &mut w, &m, i * 1_000, (i + 1) * MSS, None);
        }
        assert!(!h.found, "20 ms is not more than half of 40 ms");
        ack(&mut h, &mut w, &m, 21_000, 22 * MSS, None);
        assert!(h.found);
        // A gap of more than 2 ms breaks the train for the rest of the round.
        let mut h = HyStart::new();
        ack(&mut h, &mut w, &m, 0, MSS, None);
        for i in 0..30 {
            ack(&mut h, &mut w, &m, 3_000 + i * 1_000, (i + 2) * MSS, None);
        }
        assert!(!h.found);
    }

    /// `hystart_update` counts rounds before it looks at cwnd: a round that began below 16
    /// segments runs on once cwnd passes 16, and its ACK train is timed from its first ACK.
    #[test]
    fn rounds_are_counted_below_sixteen_segments_too() {
        let m = least_rtt_only(40);
        let mut h = HyStart::new();
        // The round starts at 0 with 10 segments out (window end 11 MSS), ACKs 1 ms apart;
        // cwnd is 16 from the second.
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX };
        ack(&mut h, &mut w, &m, 0, MSS, None);
        w.cwnd = 16 * MSS;
        for i in 1..=20 {
            ack(&mut h, &mut w, &m, i * 1_000, MSS + i * 10, None);
        }
        assert!(!h.found, "20 ms of the round's train is not more than half of 40 ms");
        ack(&mut h, &mut w, &m, 21_000, MSS + 210, None);
        assert!(h.found, "21 ms from the round's first ACK, not from the first ACK at 16 segments");
    }

    #[test]
    fn nothing_below_sixteen_segments() {
        let m = measure(100);
        let mut h = HyStart::new();
        let mut w = Window { cwnd: 15 * MSS, ssthresh: u64::MAX };
        for i in 0..20 {
            ack(&mut h, &mut w, &m, i * 5_000, (i + 1) * MSS, Some(200));
        }
        assert!(!h.found && w.ssthresh == u64::MAX);
    }
}
