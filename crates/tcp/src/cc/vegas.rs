//! TCP Vegas (Brakmo & Peterson, 1995): once per RTT it compares the expected rate
//! cwnd/BaseRTT with the actual one and keeps between α and β of its own segments queued
//! in the network. Its slow start doubles the window only every other RTT and ends when
//! the backlog exceeds γ.

use super::{AckCtx, CongestionControl, Window};
use crate::measure::RateEpoch;
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};

/// Which RTT of the last round Vegas compares with BaseRTT. Brakmo & Peterson time one
/// distinguished segment per RTT; implementations differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VegasRtt {
    /// The smallest sample of the round (Linux `tcp_vegas`: "the min RTT seen in the last RTT",
    /// which filters out delayed ACKs and bursts of the sender's own making).
    Min,
    /// The mean of the round's samples (ns-2 `Agent/TCP/Vegas`: `v_sumRTT_ / v_cntRTT_`). In
    /// slow start the segment pairs that each ACK releases queue at the bottleneck, so the mean
    /// sees about half of a round's growth as queueing, and slow start ends early.
    Mean,
}

impl VegasRtt {
    pub const ALL: [VegasRtt; 2] = [VegasRtt::Min, VegasRtt::Mean];

    pub const fn name(self) -> &'static str {
        match self {
            VegasRtt::Min => "min",
            VegasRtt::Mean => "mean",
        }
    }
}

/// How Vegas leaves slow start when the backlog exceeds γ (Brakmo & Peterson switch to
/// linear increase/decrease there but leave the window to the implementation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VegasSlowStartExit {
    /// The window that keeps about one segment queued, cwnd × BaseRTT / RTT + 1 (Linux).
    Target,
    /// cwnd −= cwnd / 8 and ssthresh = 2 segments (ns-2 `Agent/TCP/Vegas`, from the
    /// NetBSD Vegas: "slow-down a bit to ensure the net is not so congested").
    Eighth,
}

impl VegasSlowStartExit {
    pub const ALL: [VegasSlowStartExit; 2] = [VegasSlowStartExit::Target, VegasSlowStartExit::Eighth];

    pub const fn name(self) -> &'static str {
        match self {
            VegasSlowStartExit::Target => "target",
            VegasSlowStartExit::Eighth => "eighth",
        }
    }
}

/// How congestion avoidance adds its segment when the backlog is below α.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VegasGrowth {
    /// One segment at the end of the epoch (Brakmo & Peterson §3.2, Linux's `tcp_vegas_cong_avoid`).
    Epoch,
    /// 1/cwnd segment on every new ACK of the next epoch while cwnd is at most three segments
    /// above what is outstanding (ns-2.35 `tcp/tcp-vegas.cc`, `VegasTcpAgent::recv`: `v_incr_ =
    /// 1/cwnd_`, applied per ACK): one segment per RTT with an ACK per segment, half of one with
    /// delayed ACKs.
    PerAck,
}

impl VegasGrowth {
    pub const ALL: [VegasGrowth; 2] = [VegasGrowth::Epoch, VegasGrowth::PerAck];

    pub const fn name(self) -> &'static str {
        match self {
            VegasGrowth::Epoch => "epoch",
            VegasGrowth::PerAck => "per-ack",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Lower bound of the backlog, in segments.
    pub alpha: f64,
    /// Upper bound of the backlog, in segments.
    pub beta: f64,
    /// Backlog that ends slow start, in segments.
    pub gamma: f64,
    pub rtt: VegasRtt,
    pub slow_start_exit: VegasSlowStartExit,
    pub growth: VegasGrowth,
}

impl Default for VegasConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl VegasConfig {
    /// Brakmo & Peterson's α = 1, β = 3, γ = 1 with Linux's RTT and slow-start exit; also the
    /// registry's defaults.
    pub const DEFAULT: VegasConfig =
        VegasConfig { alpha: 1.0, beta: 3.0, gamma: 1.0, rtt: VegasRtt::Min, slow_start_exit: VegasSlowStartExit::Target, growth: VegasGrowth::Epoch };

    pub const INFO: PartInfo = PartInfo {
        family: Family::Cc,
        name: "vegas",
        doc: "TCP Vegas: delay-based, with its own slow start",
        keys: &[
            Key {
                name: "alpha",
                unit: Unit::Number,
                default: Value::Number(Self::DEFAULT.alpha),
                doc: "α, the backlog in segments below which the window grows",
            },
            Key {
                name: "beta",
                unit: Unit::Number,
                default: Value::Number(Self::DEFAULT.beta),
                doc: "β, the backlog in segments above which the window shrinks",
            },
            Key { name: "gamma", unit: Unit::Number, default: Value::Number(Self::DEFAULT.gamma), doc: "γ, the backlog in segments that ends slow start" },
            Key {
                name: "rtt",
                unit: Unit::Choice(&[VegasRtt::Min.name(), VegasRtt::Mean.name()]),
                default: Value::Choice(Self::DEFAULT.rtt.name()),
                doc: "the round's RTT compared with BaseRTT: its smallest sample (Linux) or the mean (ns-2)",
            },
            Key {
                name: "slow_start_exit",
                unit: Unit::Choice(&[VegasSlowStartExit::Target.name(), VegasSlowStartExit::Eighth.name()]),
                default: Value::Choice(Self::DEFAULT.slow_start_exit.name()),
                doc: "the window slow start leaves with: one segment queued (Linux), or cwnd less an eighth (ns-2)",
            },
            Key {
                name: "growth",
                unit: Unit::Choice(&[VegasGrowth::Epoch.name(), VegasGrowth::PerAck.name()]),
                default: Value::Choice(Self::DEFAULT.growth.name()),
                doc: "congestion avoidance's increase: a segment at the epoch's end (Linux), or 1/cwnd per ACK of the next (ns-2)",
            },
        ],
        per_segment: false,
    };

    pub fn read(s: &Settings) -> Result<VegasConfig, Refusal> {
        let (alpha, beta, gamma) = (s.number("alpha"), s.number("beta"), s.number("gamma"));
        if !(alpha >= 0.0 && beta >= alpha && gamma >= 0.0) {
            return Err(Refusal { key: "beta", why: "need 0 <= alpha <= beta and gamma >= 0".into() });
        }
        let rtt = VegasRtt::ALL.into_iter().find(|r| r.name() == s.choice("rtt")).expect("one of the key's choices");
        let slow_start_exit = VegasSlowStartExit::ALL.into_iter().find(|e| e.name() == s.choice("slow_start_exit")).expect("one of the key's choices");
        let growth = VegasGrowth::ALL.into_iter().find(|g| g.name() == s.choice("growth")).expect("one of the key's choices");
        Ok(VegasConfig { alpha, beta, gamma, rtt, slow_start_exit, growth })
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    /// In slow start, whether this RTT is one in which the window grows.
    grow_this_rtt: bool,
    /// `VegasGrowth::PerAck`: the bytes each new ACK adds in congestion avoidance until the
    /// next epoch's end (ns-2's `v_incr_`, in bytes).
    increment: u64,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Self {
        // The first RTT has no rate to compare yet; it holds the window, and the window
        // first grows in the second (as ns-2, whose first rate epoch ends at the first ACK).
        Vegas { cfg, grow_this_rtt: false, increment: 0 }
    }

    /// Backlog estimate in segments: cwnd × (RTT − BaseRTT) / RTT.
    pub fn backlog_segments(cwnd: u64, mss: u64, rtt_ns: u64, base_rtt_ns: u64) -> f64 {
        if rtt_ns == 0 {
            return 0.0;
        }
        let cwnd_segs = cwnd as f64 / mss as f64;
        cwnd_segs * rtt_ns.saturating_sub(base_rtt_ns) as f64 / rtt_ns as f64
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        self.on_epoch(w, ctx);
        if self.cfg.growth == VegasGrowth::PerAck && self.increment > 0 && w.cwnd >= w.ssthresh {
            // tcp-vegas.cc: `if (v_incr_ > 0 && (cwnd_ - (t_seqno_ - last_ack_)) <= 2)`, on
            // the epoch-ending ACK too, after its once-per-RTT decision; `t_seqno_ −
            // last_ack_` is one more than the packets outstanding (ns-2 ACKs name the last
            // packet received).
            if w.cwnd <= ctx.snd_nxt.saturating_sub(ctx.ack) + 3 * ctx.mss {
                w.cwnd += self.increment;
            }
        }
    }
}

impl Vegas {
    /// The slow start of every other RTT, and at an epoch's end the once-per-RTT decision.
    fn on_epoch(&mut self, w: &mut Window, ctx: &AckCtx) {
        let mss = ctx.mss;
        let in_slow_start = w.cwnd < w.ssthresh;
        if in_slow_start && self.grow_this_rtt {
            w.cwnd += ctx.acked_bytes.min(mss);
        }
        match ctx.rate_epoch {
            RateEpoch::Running => return,
            RateEpoch::Unsampled => {
                // A round with no RTT sample (Karn's rule: only retransmissions were
                // acknowledged, as in the go-back-N after a timeout). `last_rate()` is an
                // older round's, taken at another window and another queue: comparing it with
                // this window could end slow start for nothing. Without a measurement the
                // round cannot say the backlog exceeds γ, so slow start goes on doubling every
                // other RTT (Linux falls back to Reno growth when a round has too few samples).
                if in_slow_start {
                    self.grow_this_rtt = !self.grow_this_rtt;
                }
                return;
            }
            RateEpoch::Sampled => {}
        }
        let (Some(sample), Some(base)) = (ctx.measure.last_rate(), ctx.measure.min_rtt()) else {
            return;
        };
        let rtt = match self.cfg.rtt {
            VegasRtt::Min => sample.rtt,
            VegasRtt::Mean => sample.mean_rtt,
        };
        let diff = Self::backlog_segments(w.cwnd, mss, rtt.0, base.0);
        // ns-2 decides `v_incr_` afresh at each epoch's end: none unless below α in
        // congestion avoidance.
        self.increment = 0;
        if in_slow_start {
            if diff > self.cfg.gamma {
                match self.cfg.slow_start_exit {
                    VegasSlowStartExit::Target => {
                        let target = (w.cwnd as u128 * base.0 as u128 / rtt.0.max(1) as u128) as u64;
                        w.cwnd = w.cwnd.min(target + mss).max(2 * mss);
                        w.ssthresh = w.cwnd;
                    }
                    VegasSlowStartExit::Eighth => {
                        w.cwnd = (w.cwnd - w.cwnd / 8).max(2 * mss);
                        w.ssthresh = 2 * mss;
                    }
                }
            } else {
                self.grow_this_rtt = !self.grow_this_rtt;
            }
        } else if diff < self.cfg.alpha {
            match self.cfg.growth {
                VegasGrowth::Epoch => w.cwnd += mss,
                VegasGrowth::PerAck => self.increment = mss * mss / w.cwnd.max(1),
            }
        } else if diff > self.cfg.beta {
            w.cwnd = w.cwnd.saturating_sub(mss).max(2 * mss);
            // The linear decrease is congestion avoidance: it must not take the window
            // below ssthresh, where the next ACK would count as slow start and grow it
            // back (Brakmo & Peterson leave slow start for good; Linux lowers ssthresh too).
            w.ssthresh = w.ssthresh.min(w.cwnd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::ack_ctx;

    #[test]
    fn backlog_is_zero_at_base_rtt_and_grows_with_queueing() {
        assert_eq!(Vegas::backlog_segments(10_000, 1000, 100, 100), 0.0);
        assert_eq!(Vegas::backlog_segments(10_000, 1000, 200, 100), 5.0);
    }

    /// BaseRTT 100 ms from one round, then a round whose RTT is `rtt_ms`, ended at an ACK of
    /// 10 001 with 13 001 sent.
    fn after_two_rounds(rtt_ms: u64) -> crate::measure::Measure {
        use crate::measure::{Measure, RtoConfig};
        use crate::time::{Duration, Time};
        let ms = Duration::from_millis;
        let mut m = Measure::new(RtoConfig::default());
        m.on_ack(Time(0), 1001, 1000, 5001);
        m.on_rtt_sample(ms(100));
        m.on_ack(Time(ms(100).0), 6001, 5000, 9001);
        m.on_rtt_sample(ms(rtt_ms));
        assert_eq!(m.on_ack(Time(ms(200).0), 10001, 4000, 13001), RateEpoch::Sampled);
        m
    }

    #[test]
    fn linear_decrease_does_not_fall_back_into_slow_start() {
        use crate::time::Time;
        let m = after_two_rounds(110);
        // Congestion avoidance at the initial ssthresh: 50 × 10/110 ≈ 4.5 segments queued > β.
        let mut v = Vegas::new(VegasConfig::default());
        let mut w = Window { cwnd: 50_000, ssthresh: 50_000 };
        let ctx = |rate_epoch| AckCtx { rate_epoch, ..ack_ctx(Time(0), 1000, &m) };
        v.on_ack(&mut w, &ctx(RateEpoch::Sampled));
        assert_eq!(w.cwnd, 49_000);
        v.on_ack(&mut w, &ctx(RateEpoch::Running));
        assert_eq!(w.cwnd, 49_000, "the next ACK must not grow the window as in slow start");
    }

    /// ns-2.35 `tcp/tcp-vegas.cc`, `VegasTcpAgent::recv`: below α in congestion avoidance
    /// the epoch's end sets `v_incr_` = 1/cwnd, added on that ACK and each new ACK after it
    /// while cwnd − (`t_seqno_` − `last_ack_`) ≤ 2, three segments above what is outstanding;
    /// the next epoch's end decides again.
    #[test]
    fn ns2_tcp_vegas_cc_grows_one_over_cwnd_per_ack_in_congestion_avoidance() {
        use crate::time::Time;
        // A round at BaseRTT: no backlog, below α.
        let m = after_two_rounds(100);
        let ctx = |rate_epoch, outstanding: u64| AckCtx { rate_epoch, ack: 10_001, snd_nxt: 10_001 + outstanding, ..ack_ctx(Time(0), 1000, &m) };
        let ca = || Window { cwnd: 8_000, ssthresh: 4_000 };
        let (mut w, mut v) = (ca(), Vegas::new(VegasConfig { growth: VegasGrowth::PerAck, ..Default::default() }));
        v.on_ack(&mut w, &ctx(RateEpoch::Sampled, 7_000));
        assert_eq!(w.cwnd, 8_125, "1/8 of a segment on the epoch-ending ACK");
        v.on_ack(&mut w, &ctx(RateEpoch::Running, 7_000));
        assert_eq!(w.cwnd, 8_250, "and on each new ACK of the next epoch");
        v.on_ack(&mut w, &ctx(RateEpoch::Running, 5_250));
        assert_eq!(w.cwnd, 8_375, "three segments above what is outstanding still grows");
        v.on_ack(&mut w, &ctx(RateEpoch::Running, 5_250));
        assert_eq!(w.cwnd, 8_375, "not more than three above it");
        let (mut w, mut v) = (ca(), Vegas::new(VegasConfig::default()));
        v.on_ack(&mut w, &ctx(RateEpoch::Sampled, 7_000));
        v.on_ack(&mut w, &ctx(RateEpoch::Running, 7_000));
        assert_eq!(w.cwnd, 9_000, "the epoch rule: one segment at the epoch's end");
    }

    #[test]
    fn mean_rtt_sees_queueing_that_min_rtt_hides() {
        use crate::measure::{Measure, RtoConfig};
        use crate::time::{Duration, Time};
        let ms = Duration::from_millis;
        let mut m = Measure::new(RtoConfig::default());
        m.on_ack(Time(0), 1001, 1000, 5001);
        m.on_rtt_sample(ms(100));
        m.on_ack(Time(ms(100).0), 6001, 5000, 9001);
        // A slow-start round: the first segment sees no queue, the later ones do.
        for r in [100, 104, 108, 112] {
            m.on_rtt_sample(ms(r));
        }
        assert_eq!(m.on_ack(Time(ms(200).0), 10001, 4000, 13001), RateEpoch::Sampled);
        let ctx = AckCtx { rate_epoch: RateEpoch::Sampled, ..ack_ctx(Time(0), 1000, &m) };
        let slow_start = || Window { cwnd: 32_000, ssthresh: u64::MAX };
        let mut w = slow_start();
        Vegas::new(VegasConfig::default()).on_ack(&mut w, &ctx);
        assert_eq!(w.ssthresh, u64::MAX, "min RTT = BaseRTT: no backlog, slow start goes on");
        let mut w = slow_start();
        Vegas::new(VegasConfig { rtt: VegasRtt::Mean, ..Default::default() }).on_ack(&mut w, &ctx);
        assert!(w.ssthresh < u64::MAX, "mean RTT 106 ms: 32 × 6/106 ≈ 1.8 segments > γ ends slow start");
        assert_eq!(w.cwnd, 31_188, "target: 32 000 × 100/106 + 1 000 bytes");
        let mut w = slow_start();
        let cfg = VegasConfig { rtt: VegasRtt::Mean, slow_start_exit: VegasSlowStartExit::Eighth, ..Default::default() };
        Vegas::new(cfg).on_ack(&mut w, &ctx);
        assert_eq!((w.cwnd, w.ssthresh), (28_000, 2_000), "ns-2: cwnd −= cwnd/8, ssthresh = 2");
    }

    #[test]
    fn a_round_without_rtt_samples_does_not_reuse_an_old_sample() {
        use crate::measure::{Measure, RtoConfig};
        use crate::time::{Duration, Time};
        let ms = Duration::from_millis;
        // BaseRTT 100 ms; the last sampled round saw 150 ms (a full queue before a loss).
        let mut m = Measure::new(RtoConfig::default());
        m.on_ack(Time(0), 1001, 1000, 5001);
        m.on_rtt_sample(ms(100));
        m.on_rtt_sample(ms(150));
        assert_eq!(m.on_ack(Time(ms(100).0), 6001, 5000, 9001), RateEpoch::Sampled);
        // Slow start after a timeout at 8 segments: with the old RTT, 8 × 50/150 ≈ 2.7 > γ.
        let mut v = Vegas::new(VegasConfig::default());
        let mut w = Window { cwnd: 8_000, ssthresh: 50_000 };
        let ctx = AckCtx { rate_epoch: RateEpoch::Unsampled, ..ack_ctx(Time(0), 1000, &m) };
        v.on_ack(&mut w, &ctx);
        assert_eq!(w, Window { cwnd: 8_000, ssthresh: 50_000 }, "slow start goes on");
        v.on_ack(&mut w, &AckCtx { rate_epoch: RateEpoch::Running, ..ctx });
        assert_eq!(w.cwnd, 9_000, "and grows in the next round");
    }
}
