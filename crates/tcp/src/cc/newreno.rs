//! Slow start and congestion avoidance of RFC 5681 §3.1 (the window growth that Reno,
//! NewReno and SACK senders share).

use super::{AckCtx, CongestionControl, Window};
use crate::registry::{Family, PartInfo};

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// Appropriate Byte Counting (RFC 3465) with L = 2; off by default as in RFC 5681.
    pub byte_counting: bool,
    /// Bytes acknowledged in congestion avoidance not yet turned into window (ABC only).
    ca_acked: u64,
    /// The remainder of SMSS * SMSS / cwnd that whole bytes could not hold (see `on_ack`).
    ca_credit: u64,
}

impl NewReno {
    pub const INFO: PartInfo = PartInfo {
        family: Family::Cc,
        name: "newreno",
        doc: "RFC 5681 slow start and AIMD congestion avoidance (byte counting: the tcp table's byte_counting)",
        keys: &[],
        per_segment: false,
    };

    pub fn new(byte_counting: bool) -> Self {
        NewReno { byte_counting, ca_acked: 0, ca_credit: 0 }
    }

    /// RFC 5681 §3.1: slow start while cwnd < ssthresh, congestion avoidance above.
    pub fn phase_name(w: &Window) -> &'static str {
        if w.cwnd < w.ssthresh {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

/// RFC 5681 eq. (2): cwnd += min(N, SMSS) for `acked` bytes newly acknowledged; RFC 3465
/// (`byte_counting`) allows up to L = 2 SMSS. The slow start NewReno and CUBIC share.
#[inline]
pub(super) fn slow_start(w: &mut Window, acked: u64, mss: u64, byte_counting: bool) {
    let limit = if byte_counting { 2 * mss } else { mss };
    w.cwnd += acked.min(limit);
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        let mss = ctx.mss;
        if w.cwnd < w.ssthresh {
            slow_start(w, ctx.acked_bytes, mss, self.byte_counting);
        } else if self.byte_counting {
            // RFC 3465 §2.1: one SMSS per cwnd of bytes acknowledged.
            self.ca_acked += ctx.acked_bytes;
            if self.ca_acked >= w.cwnd {
                self.ca_acked -= w.cwnd;
                w.cwnd += mss;
            }
        } else {
            // RFC 5681 eq. (3): cwnd += SMSS * SMSS / cwnd. In whole bytes the quotient is
            // truncated, which at large windows loses much of the growth (at 600 segments,
            // 1.67 bytes per ACK become 1); carrying the remainder to the next ACK keeps the
            // intended one SMSS per window of ACKs, as ns-2's float cwnd does.
            self.ca_credit += mss * mss;
            let (grow, rest) = (self.ca_credit / w.cwnd, self.ca_credit % w.cwnd);
            w.cwnd += grow;
            // The credit left is the remainder modulo the grown cwnd. The credit equals
            // grow * cwnd + rest before the growth, so grow * cwnd + (rest - grow²) after it:
            // the remainder is rest - grow² unless that is negative (only when rest < grow²,
            // rare), which a second division settles. One division per ACK, not two.
            self.ca_credit = match rest.checked_sub(grow.saturating_mul(grow)) {
                Some(left) => left,
                None => self.ca_credit % w.cwnd,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;
    use crate::time::Time;

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window_of_acks_even_at_large_windows() {
        let measure = Measure::new(RtoConfig::default());
        let mss = 1000;
        for segments in [10u64, 600, 5000] {
            let mut cc = NewReno::new(false);
            let mut w = Window { cwnd: segments * mss, ssthresh: 0 };
            let ctx = ack_ctx(Time::ZERO, mss, &measure);
            for _ in 0..segments {
                cc.on_ack(&mut w, &ctx);
            }
            let grown = w.cwnd - segments * mss;
            // One window of ACKs: SMSS, less what the growth during the window itself costs.
            assert!(grown <= mss && grown + 2 * mss / segments.max(1) + 1 >= mss, "{segments}: grew {grown}");
        }
    }

    /// `on_ack` divides once where the carried remainder of eq. (3) reads as two divisions:
    /// cwnd += credit / cwnd, then credit %= the grown cwnd. Both must agree to the byte,
    /// also when a loss shrank cwnd below the credit carried (the case of the second division).
    #[test]
    fn congestion_avoidance_one_division_matches_the_two_division_formula() {
        let measure = Measure::new(RtoConfig::default());
        for mss in [1u64, 536, 1000, 1460, 65_535] {
            for start in [1, 2, mss, 3 * mss + 1, 100 * mss, 999_983, mss * mss, 5 * mss * mss + 7] {
                let mut cc = NewReno::new(false);
                let mut w = Window { cwnd: start, ssthresh: 0 };
                let (mut cwnd, mut credit) = (start, 0u64);
                let ctx = ack_ctx(Time::ZERO, mss, &measure);
                for ack in 1..=1000 {
                    cc.on_ack(&mut w, &ctx);
                    credit += mss * mss;
                    cwnd += credit / cwnd;
                    credit %= cwnd;
                    assert_eq!((w.cwnd, cc.ca_credit), (cwnd, credit), "mss {mss}, start {start}, ACK {ack}");
                    if ack % 97 == 0 {
                        cwnd = (cwnd / 2).max(1);
                        w.cwnd = cwnd;
                    }
                }
            }
        }
    }
}
