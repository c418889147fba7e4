//! TCP Vegas (Brakmo & Peterson, 1995): once per RTT it compares the expected rate
//! cwnd/BaseRTT with the actual one and keeps between α and β of its own segments queued
//! in the network. Its slow start doubles the window only every other RTT and ends when
//! the backlog exceeds γ.

use super::{AckCtx, Window};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Lower bound of the backlog, in segments.
    pub alpha: f64,
    /// Upper bound of the backlog, in segments.
    pub beta: f64,
    /// Backlog that ends slow start, in segments.
    pub gamma: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig { alpha: 1.0, beta: 3.0, gamma: 1.0 }
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    /// In slow start, whether this RTT is one in which the window grows.
    grow_this_rtt: bool,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Self {
        Vegas { cfg, grow_this_rtt: true }
    }

    /// Backlog estimate in segments: cwnd × (RTT − BaseRTT) / RTT.
    pub fn backlog_segments(cwnd: u64, mss: u64, rtt_ns: u64, base_rtt_ns: u64) -> f64 {
        if rtt_ns == 0 {
            return 0.0;
        }
        let cwnd_segs = cwnd as f64 / mss as f64;
        cwnd_segs * rtt_ns.saturating_sub(base_rtt_ns) as f64 / rtt_ns as f64
    }

    pub fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        let mss = ctx.mss;
        let in_slow_start = w.cwnd < w.ssthresh;
        if in_slow_start && self.grow_this_rtt {
            w.cwnd += ctx.acked_bytes.min(mss);
        }
        if !ctx.rate_epoch_done {
            return;
        }
        let (Some(sample), Some(base)) = (ctx.measure.last_rate(), ctx.measure.min_rtt()) else {
            return;
        };
        let diff = Self::backlog_segments(w.cwnd, mss, sample.rtt.0, base.0);
        if in_slow_start {
            if diff > self.cfg.gamma {
                // Leave slow start at the window that keeps about γ segments queued, as the
                // Linux implementation does (target = cwnd × BaseRTT / RTT, plus one).
                let target = (w.cwnd as u128 * base.0 as u128 / sample.rtt.0.max(1) as u128) as u64;
                w.cwnd = w.cwnd.min(target + mss).max(2 * mss);
                w.ssthresh = w.cwnd;
            } else {
                self.grow_this_rtt = !self.grow_this_rtt;
            }
        } else if diff < self.cfg.alpha {
            w.cwnd += mss;
        } else if diff > self.cfg.beta {
            w.cwnd = w.cwnd.saturating_sub(mss).max(2 * mss);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backlog_is_zero_at_base_rtt_and_grows_with_queueing() {
        assert_eq!(Vegas::backlog_segments(10_000, 1000, 100, 100), 0.0);
        assert_eq!(Vegas::backlog_segments(10_000, 1000, 200, 100), 5.0);
    }
}
