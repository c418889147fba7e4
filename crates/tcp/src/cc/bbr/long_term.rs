//! BBR's long-term bandwidth sampling (`bbr_lt_bw_sampling`): a token-bucket policer lets
//! a burst through and then delivers at its rate, dropping the rest. Two sampling
//! intervals in a row (4 to 16 rounds each, from one loss to a later one) with a high loss
//! rate (20 %) and a consistent delivery rate (within 1/8 or 4 kbit/s) say a policer is
//! there; BBR then uses their average rate as its bandwidth for 48 rounds, at gain 1.

use crate::time::Time;

/// bbr_lt_intvl_min_rtts.
const INTERVAL_MIN_ROUNDS: u32 = 4;
/// bbr_lt_loss_thresh, in 1/256: lost/delivered of 50/256 (about 20 %) is lossy.
const LOSS_THRESH: u64 = 50;
/// bbr_lt_bw_ratio, in 1/256: two rates within 1/8 are consistent.
const BW_RATIO: u64 = 256 / 8;
/// bbr_lt_bw_diff: or within 4 kbit/s (bytes/s).
const BW_DIFF_BYTES_PER_SEC: u64 = 4000 / 8;
/// bbr_lt_bw_max_rtts: rounds the policed rate is used for.
pub const MAX_ROUNDS: u32 = 48;

/// What the sampling reads at an ACK: the connection's counts, this ACK's sample.
#[derive(Clone, Copy, Debug)]
pub struct LtInput {
    /// C.delivered and tp->delivered_mstamp.
    pub delivered: u64,
    pub delivered_time: Time,
    /// Bytes counted lost so far (tp->lost) and by this sample (rs->losses).
    pub lost: u64,
    pub losses: u64,
    pub round_start: bool,
    pub app_limited: bool,
    pub probe_bw: bool,
}

/// What BBR does after a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtDecision {
    Nothing,
    /// A policer is found: its rate is the bandwidth from now on, pacing at gain 1.
    Policed,
    /// The policed rate has been used for 48 rounds: back to the gain cycle.
    Expired,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LongTerm {
    is_sampling: bool,
    rtt_cnt: u32,
    use_bw: bool,
    /// Bytes/s: the last interval's rate, or the policed rate while `use_bw`.
    bw: u64,
    last_delivered: u64,
    /// The interval's start, in whole ms as the kernel keeps it.
    last_stamp_ms: u64,
    last_lost: u64,
}

impl LongTerm {
    /// The policed rate, while it is in use (`lt_use_bw`).
    pub fn bw(&self) -> Option<u64> {
        self.use_bw.then_some(self.bw)
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_interval(&mut self, x: &LtInput) {
        self.last_stamp_ms = x.delivered_time.as_nanos() / 1_000_000;
        self.last_delivered = x.delivered;
        self.last_lost = x.lost;
        self.rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`: forget everything (also `bbr_undo_cwnd`'s, and a
    /// connection's start).
    pub fn reset(&mut self, x: &LtInput) {
        self.bw = 0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(x);
    }

    /// `bbr_lt_bw_interval_done`: an interval's rate `bw`, consistent with the last one's
    /// or not.
    fn interval_done(&mut self, bw: u64, x: &LtInput) -> LtDecision {
        if self.bw > 0 {
            let diff = bw.abs_diff(self.bw);
            // `bbr_rate_bytes_per_sec` with gain 1 keeps its 1 % margin.
            if diff * 256 <= BW_RATIO * self.bw || diff * 99 / 100 <= BW_DIFF_BYTES_PER_SEC {
                self.bw = (bw + self.bw) / 2;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtDecision::Policed;
            }
        }
        self.bw = bw;
        self.reset_interval(x);
        LtDecision::Nothing
    }

    /// `bbr_lt_bw_sampling`: an interval starts at a loss and ends at a later one at least
    /// 4 rounds on; one with 20 % loss gives a rate.
    pub fn on_sample(&mut self, x: &LtInput) -> LtDecision {
        if self.use_bw {
            if x.probe_bw && x.round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= MAX_ROUNDS {
                    self.reset(x);
                    return LtDecision::Expired;
                }
            }
            return LtDecision::Nothing;
        }
        // The first loss starts sampling: the policer's tokens are spent by then.
        if !self.is_sampling {
            if x.losses == 0 {
                return LtDecision::Nothing;
            }
            self.reset_interval(x);
            self.is_sampling = true;
        }
        // An app-limited sample would underestimate the policed rate.
        if x.app_limited {
            self.reset(x);
            return LtDecision::Nothing;
        }
        if x.round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < INTERVAL_MIN_ROUNDS {
            return LtDecision::Nothing;
        }
        if self.rtt_cnt > 4 * INTERVAL_MIN_ROUNDS {
            self.reset(x);
            return LtDecision::Nothing;
        }
        // The interval ends at a loss, when the tokens are spent again.
        if x.losses == 0 {
            return LtDecision::Nothing;
        }
        let lost = x.lost - self.last_lost;
        let delivered = x.delivered - self.last_delivered;
        if delivered == 0 || lost * 256 < LOSS_THRESH * delivered {
            return LtDecision::Nothing;
        }
        let t_ms = (x.delivered_time.as_nanos() / 1_000_000).saturating_sub(self.last_stamp_ms);
        if t_ms < 1 {
            return LtDecision::Nothing;
        }
        self.interval_done(delivered * 1000 / t_ms, x)
    }
}
