//! CUBIC (RFC 9438): after a reduction the window follows a cubic of the time since the
//! congestion-avoidance stage began, concave up to the window before the reduction (W_max),
//! convex beyond it; below a Reno flow's estimated window it follows that estimate instead
//! (the Reno-friendly region). Slow start is the controller's as NewReno's (RFC 9438 §4.10);
//! HyStart or HyStart++ bound it as startup parts.
//!
//! Exact integer arithmetic, as the rest of the engine: windows in bytes, time in
//! microseconds, the cube in 128 bits; C = 0.4 as the ratio 2/5, β in thousandths.

use super::newreno::slow_start;
use super::{AckCtx, CongestionControl, CongestionEvent, Window};
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::{Duration, Time};

/// β is given in thousandths.
const BETA_DEN: u64 = 1000;
/// RFC 9438 §5.1 C = 0.4 segments/s³, as NUM/DEN.
const C_NUM: i128 = 2;
const C_DEN: i128 = 5;
const US_PER_S3: i128 = 1_000_000_000_000_000_000;
/// The cubic's argument is held within ±2^33 µs (2.4 hours), where its cube still fits.
const MAX_T_US: i128 = 1 << 33;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubicConfig {
    /// RFC 9438 §4.7: a reduction below the last W_max lowers W_max further.
    pub fast_convergence: bool,
    /// Slow start by RFC 3465 with L = 2 (as NewReno's `byte_counting`).
    pub byte_counting: bool,
    /// β_cubic, the share of the window kept at a reduction, in thousandths: RFC 9438 §5.1's
    /// 0.7 (Linux's 717/1024 today). Older kernels, whose module ns-2.35's Linux agent
    /// runs, kept 819/1024.
    pub beta_permille: u64,
}

impl CubicConfig {
    pub const RFC_9438_BETA_PERMILLE: u64 = 700;
    /// RFC 9438 with fast convergence (§4.7) and without byte counting; also the registry's
    /// defaults.
    pub const DEFAULT: CubicConfig = CubicConfig { fast_convergence: true, byte_counting: false, beta_permille: Self::RFC_9438_BETA_PERMILLE };

    pub const INFO: PartInfo = PartInfo {
        family: Family::Cc,
        name: "cubic",
        doc: "RFC 9438 CUBIC, as Linux's default (docs/modern.md)",
        keys: &[
            Key {
                name: "fast_convergence",
                unit: Unit::Flag,
                default: Value::Flag(Self::DEFAULT.fast_convergence),
                doc: "§4.7: a reduction below the last W_max lowers W_max further",
            },
            Key {
                name: "beta",
                unit: Unit::Number,
                default: Value::Number(Self::DEFAULT.beta_permille as f64 / BETA_DEN as f64),
                doc: "β_cubic, the share of the window kept at a reduction (§5.1; ns-2.35's Linux agent: 0.8)",
            },
        ],
        per_segment: false,
    };

    /// The settings, with slow start counting bytes or not (the `tcp` table's
    /// `byte_counting`, which NewReno shares).
    pub fn read(s: &Settings, byte_counting: bool) -> Result<CubicConfig, Refusal> {
        let beta = s.number("beta");
        // Thousandths: RFC 9438's 0.7 exactly; ns-2.35's 819/1024 as 0.8.
        if !(0.001..=0.999).contains(&beta) {
            return Err(Refusal { key: "beta", why: format!("must be a number above 0 and below 1, like 0.7 (got {beta})") });
        }
        Ok(CubicConfig { fast_convergence: s.flag("fast_convergence"), byte_counting, beta_permille: (beta * 1000.0).round() as u64 })
    }

    /// RFC 9438 §4.3 α_cubic = 3 (1 − β) / (1 + β), as NUM/DEN (9/17 for β = 0.7).
    fn alpha(&self) -> (u64, u64) {
        (3 * (BETA_DEN - self.beta_permille), BETA_DEN + self.beta_permille)
    }
}

impl Default for CubicConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One congestion-avoidance stage (RFC 9438 §4.2): its curve and the Reno estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Epoch {
    /// When the stage began (moved later by an idle, as Linux does).
    start: Time,
    /// W_max of the curve, in bytes, and K, the time it takes to get back to it.
    w_max: u64,
    k_us: u64,
    /// RFC 9438 §4.3 W_est, in bytes, and the remainder its growth could not add yet, over
    /// α's denominator × cwnd (the same denominator once α is 1, so that the remainder keeps
    /// its worth: less than a byte).
    w_est: u64,
    est_credit: u64,
    /// The cwnd growth not yet whole bytes (numerator over cwnd).
    credit: u64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// RFC 9438 W_max: the window before the last reduction; `None` before the first.
    w_max: Option<u64>,
    /// RFC 9438 §4.6 cwnd_prior: cwnd at the last reduction, where α_cubic becomes 1.
    cwnd_prior: u64,
    epoch: Option<Epoch>,
    /// §4.8: the next stage follows a timeout (K = 0, W_max = cwnd at its start).
    after_timeout: bool,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        Cubic { cfg, w_max: None, cwnd_prior: 0, epoch: None, after_timeout: false }
    }

    /// RFC 9438 eq. (1): W_cubic(t) = C (t − K)³ + W_max, in bytes, t in µs since the stage began.
    fn w_cubic(e: &Epoch, t_us: u64, mss: u64) -> u64 {
        let d = (t_us as i128 - e.k_us as i128).clamp(-MAX_T_US, MAX_T_US);
        let grow = C_NUM * mss as i128 * d * d * d / (C_DEN * US_PER_S3);
        (e.w_max as i128 + grow).max(0) as u64
    }

    /// A stage begins with the window `cwnd` (RFC 9438 §4.2 cwnd_epoch): K from eq. (2),
    /// K = ∛((W_max − cwnd_epoch) / C); at or above W_max (no reduction yet, or after a
    /// timeout, §4.8) the curve starts at the window itself with K = 0, as Linux does.
    fn begin_epoch(&mut self, now: Time, cwnd: u64, mss: u64) -> Epoch {
        if self.after_timeout {
            self.w_max = Some(cwnd);
            self.after_timeout = false;
        }
        let (w_max, k_us) = match self.w_max {
            Some(w_max) if w_max > cwnd => {
                let k3 = (w_max - cwnd) as u128 * (C_DEN * US_PER_S3) as u128 / (C_NUM as u128 * mss as u128);
                (w_max, icbrt(k3))
            }
            _ => (cwnd, 0),
        };
        Epoch { start: now, w_max, k_us, w_est: cwnd, est_credit: 0, credit: 0 }
    }
}

/// ⌊∛n⌋.
fn icbrt(n: u128) -> u64 {
    let (mut lo, mut hi) = (0u64, 1u64 << 43);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if (mid as u128).pow(3) <= n {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

impl CongestionControl for Cubic {
    // Out of line: the dispatch on every ACK stays small enough to inline for the parts
    // most runs use (NewReno, plain slow start); see docs/performance.md.
    #[inline(never)]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        let mss = ctx.mss;
        if w.cwnd < w.ssthresh {
            slow_start(w, ctx.acked_bytes, mss, self.cfg.byte_counting);
            return;
        }
        let mut e = match self.epoch.take() {
            Some(e) => e,
            None => self.begin_epoch(ctx.now, w.cwnd, mss),
        };
        let t_us = ctx.now.since(e.start).as_nanos() / 1_000;
        let rtt_us = ctx.measure.srtt().or(ctx.measure.min_rtt()).unwrap_or(Duration::ZERO).as_nanos() / 1_000;
        // §4.2: the target is the curve one RTT ahead, between cwnd and 1.5 cwnd.
        let target = Self::w_cubic(&e, t_us + rtt_us, mss).clamp(w.cwnd, w.cwnd + w.cwnd / 2);
        // §4.3: the Reno estimate grows by α_cubic segments per window acknowledged; by one
        // once it has passed the window before the reduction.
        let (alpha, den) = self.cfg.alpha();
        let num = if e.w_est >= self.cwnd_prior { den } else { alpha };
        let est = e.est_credit + num * mss * ctx.acked_bytes;
        e.w_est += est / (den * w.cwnd);
        e.est_credit = est % (den * w.cwnd);
        if Self::w_cubic(&e, t_us, mss) < e.w_est {
            // The Reno-friendly region: cwnd follows W_est.
            w.cwnd = w.cwnd.max(e.w_est);
        } else {
            // §4.4, §4.5: cwnd += (target − cwnd) / cwnd per segment acknowledged.
            let grow = e.credit + (target - w.cwnd) * ctx.acked_bytes;
            e.credit = grow % w.cwnd;
            w.cwnd += grow / w.cwnd;
        }
        self.epoch = Some(e);
    }

    /// §4.6: ssthresh = β_cubic × the loss window (at least 2 segments, RFC 5681 eq. (4));
    /// W_max = the window at the event, lowered by fast convergence (§4.7) when it is below
    /// the last W_max. The stage ends; the next begins at the first ACK after recovery.
    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) -> u64 {
        let cwnd = w.cwnd;
        self.w_max = Some(match self.w_max {
            Some(last) if self.cfg.fast_convergence && cwnd < last => cwnd * (BETA_DEN + self.cfg.beta_permille) / (2 * BETA_DEN),
            _ => cwnd,
        });
        self.cwnd_prior = cwnd;
        self.epoch = None;
        (ev.loss_window_bytes * self.cfg.beta_permille / BETA_DEN).max(2 * ev.mss)
    }

    /// §4.8: after a timeout the next stage's curve starts at its own window, K = 0.
    fn on_rto(&mut self, _now: Time) {
        self.epoch = None;
        self.after_timeout = true;
    }

    /// Linux (`cubictcp_cwnd_event`, CA_EVENT_TX_START): data sent with nothing in flight
    /// moves the stage's start later by the time the sender was quiet, so that an idle does
    /// not count as time on the curve.
    fn on_sent(&mut self, now: Time, _bytes: u64, quiet: Option<Duration>) {
        if let (Some(e), Some(quiet)) = (&mut self.epoch, quiet) {
            e.start = Time((e.start + quiet).0.min(now.0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionKind;
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;

    const MSS: u64 = 1000;

    fn measure(rtt_ms: u64) -> Measure {
        let mut m = Measure::new(RtoConfig::default());
        m.on_rtt_sample(Duration::from_millis(rtt_ms));
        m
    }

    fn ack(c: &mut Cubic, w: &mut Window, m: &Measure, at_ms: u64) {
        let now = Time(Duration::from_millis(at_ms).0);
        let ctx = ack_ctx(now, MSS, m);
        c.on_ack(w, &ctx);
    }

    fn loss(c: &mut Cubic, w: &mut Window, kind: CongestionKind) {
        let ev = CongestionEvent { now: Time::ZERO, kind, mss: MSS, loss_window_bytes: w.cwnd, flight_bytes: w.cwnd, lost_sent_at: None };
        w.ssthresh = c.on_congestion_event(w, &ev);
        w.cwnd = w.ssthresh;
    }

    #[test]
    fn rfc_9438_4_2_k_and_the_window_at_t_after_a_loss() {
        // W_max = 100 segments, β = 0.7: cwnd_epoch = 70, K = ∛(30 / 0.4) = 4.2172 s.
        let mut c = Cubic::new(CubicConfig::default());
        let e = c.begin_epoch(Time::ZERO, 70 * MSS, MSS);
        assert_eq!(e.k_us, 0, "no W_max yet: the curve starts at the window");
        c.w_max = Some(100 * MSS);
        let e = c.begin_epoch(Time::ZERO, 70 * MSS, MSS);
        assert_eq!(e.k_us, 4_217_163, "K = ∛75 s, to the µs");
        for t_s in [0.0f64, 1.0, 2.5, 4.217163, 6.0, 10.0] {
            let want = 0.4 * (t_s - 4.217163f64).powi(3) * MSS as f64 + 100_000.0;
            let got = Cubic::w_cubic(&e, (t_s * 1e6) as u64, MSS) as f64;
            assert!((got - want).abs() <= 1.0, "t = {t_s} s: {got} bytes, eq. (1) gives {want}");
        }
    }

    /// β is a parameter (RFC 9438 §5.1 gives 0.7): with ns-2.35's 0.8 the reduction keeps
    /// 80 %, fast convergence lowers W_max to W (1 + β) / 2, and α_cubic = 3 (1 − β) / (1 + β)
    /// = 1/3 (§4.3).
    #[test]
    fn rfc_9438_5_1_beta_sets_the_reduction_fast_convergence_and_alpha() {
        let cfg = CubicConfig { beta_permille: 800, ..CubicConfig::default() };
        let mut c = Cubic::new(cfg);
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
        loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        assert_eq!(w.ssthresh, 80 * MSS);
        w.cwnd = 90 * MSS;
        loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        assert_eq!((w.ssthresh, c.w_max), (72 * MSS, Some(81 * MSS)));
        let (num, den) = cfg.alpha();
        assert_eq!(num * 3, den, "α = 1/3");
        assert_eq!(CubicConfig::default().alpha(), (900, 1700), "α = 9/17 for β = 0.7");
    }

    #[test]
    fn rfc_9438_4_6_the_reduction_and_4_7_fast_convergence() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
        loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        assert_eq!((w.ssthresh, c.w_max), (70 * MSS, Some(100 * MSS)), "ssthresh = 0.7 W, W_max = W");
        // A second loss at 80 < W_max = 100: fast convergence sets W_max = 80 (1 + β) / 2 = 68.
        w.cwnd = 80 * MSS;
        loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        assert_eq!((w.ssthresh, c.w_max), (56 * MSS, Some(68 * MSS)));
        let mut plain = Cubic::new(CubicConfig { fast_convergence: false, ..CubicConfig::default() });
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
        loss(&mut plain, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        w.cwnd = 80 * MSS;
        loss(&mut plain, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        assert_eq!(plain.w_max, Some(80 * MSS), "without fast convergence W_max is the window");
    }

    /// §4.3-4.5: on a short RTT the cubic is slower than Reno, and W_est sets the window
    /// (the Reno-friendly region); on a long RTT the cubic is faster and sets it.
    #[test]
    fn rfc_9438_4_3_the_reno_friendly_switch() {
        let run = |rtt_ms: u64, rtts: u64| {
            let m = measure(rtt_ms);
            let mut c = Cubic::new(CubicConfig::default());
            let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
            loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
            for r in 0..rtts {
                let n = w.cwnd / MSS;
                for i in 0..n {
                    ack(&mut c, &mut w, &m, r * rtt_ms + i * rtt_ms / n);
                }
            }
            let e = c.epoch.unwrap();
            (w.cwnd, e.w_est, Cubic::w_cubic(&e, rtts * rtt_ms * 1000, MSS))
        };
        // 2 ms RTT, 20 RTTs (40 ms): W_est = 70 + 20 × 9/17 ≈ 80.6 segments; the cubic is
        // still near 70.
        let (cwnd, w_est, w_cubic) = run(2, 20);
        assert!(w_cubic < 71 * MSS && (80 * MSS..81 * MSS).contains(&w_est), "{w_cubic} {w_est}");
        assert_eq!(cwnd, w_est, "Reno-friendly: cwnd follows W_est");
        // 200 ms RTT, 40 RTTs (8 s, past K = 4.2 s): the cubic is far above W_est.
        let (cwnd, w_est, _) = run(200, 40);
        assert!(cwnd > 105 * MSS && w_est < 100 * MSS, "cubic region: cwnd {cwnd}, W_est {w_est}");
    }

    /// §4.3: once W_est has passed cwnd_prior it grows by one segment per window acknowledged:
    /// mss × acked / cwnd per ACK, and the remainder the α phase left (under one byte) adds
    /// at most one byte. (Counted over another denominator, that remainder once added up to
    /// den − 1 bytes at the switch.)
    #[test]
    fn rfc_9438_4_3_w_est_past_cwnd_prior_grows_one_segment_per_window() {
        let m = measure(100);
        let mut c = Cubic::new(CubicConfig::default());
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
        loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        ack(&mut c, &mut w, &m, 0);
        let mut e = c.epoch.unwrap();
        let (_, den) = c.cfg.alpha();
        e.w_est = c.cwnd_prior;
        e.est_credit = den * w.cwnd - 1;
        c.epoch = Some(e);
        let per_ack = MSS * MSS / w.cwnd;
        ack(&mut c, &mut w, &m, 1);
        let grown = c.epoch.unwrap().w_est - e.w_est;
        assert!((per_ack..=per_ack + 1).contains(&grown), "W_est grew {grown} bytes for one ACK of a segment; {per_ack} expected");
    }

    /// §4.4 and §4.5: per ACK, cwnd grows by (target − cwnd) / cwnd, the target held to
    /// 1.5 cwnd; after K the window passes W_max (convex region).
    #[test]
    fn rfc_9438_4_4_the_window_follows_the_curve_one_rtt_ahead() {
        let m = measure(100);
        let mut c = Cubic::new(CubicConfig::default());
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
        loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        let mut t_ms = 0;
        while t_ms < 10_000 {
            let before = w.cwnd;
            let n = w.cwnd / MSS;
            for i in 0..n {
                ack(&mut c, &mut w, &m, t_ms + i * 100 / n);
            }
            assert!(w.cwnd <= before + before / 2 + MSS, "at most 1.5× per RTT");
            t_ms += 100;
            let e = c.epoch.unwrap();
            let ahead = Cubic::w_cubic(&e, (t_ms + 100) * 1000, MSS);
            assert!(w.cwnd <= ahead.max(e.w_est) + MSS, "at {t_ms} ms: cwnd {} above the curve one RTT ahead {ahead}", w.cwnd);
        }
        assert!(w.cwnd > 150 * MSS, "convex beyond K: {}", w.cwnd);
    }

    #[test]
    fn rfc_9438_4_8_after_a_timeout_the_curve_starts_at_the_window() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
        loss(&mut c, &mut w, CongestionKind::Rto);
        c.on_rto(Time::ZERO);
        let e = c.begin_epoch(Time::ZERO, 8 * MSS, MSS);
        assert_eq!((e.k_us, e.w_max, c.w_max), (0, 8 * MSS, Some(8 * MSS)));
    }

    /// Linux shifts the stage by the idle time: 5 s without data leave the curve where it was.
    #[test]
    fn an_idle_moves_the_epoch_start() {
        let m = measure(100);
        let mut c = Cubic::new(CubicConfig::default());
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX };
        loss(&mut c, &mut w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        ack(&mut c, &mut w, &m, 1_000);
        c.on_sent(Time(Duration::from_millis(6_000).0), MSS, Some(Duration::from_secs(5)));
        assert_eq!(c.epoch.unwrap().start, Time(Duration::from_millis(6_000).0));
        c.on_sent(Time(Duration::from_millis(6_100).0), MSS, None);
        assert_eq!(c.epoch.unwrap().start, Time(Duration::from_millis(6_000).0), "data in flight: no shift");
    }

    #[test]
    fn the_integer_cube_root_is_exact() {
        for n in [0u128, 1, 7, 8, 26, 27, 75_000_000_000_000_000_000, u64::MAX as u128 * 1000] {
            let r = icbrt(n) as u128;
            assert!(r.pow(3) <= n && (r + 1).pow(3) > n, "{n}");
        }
    }
}
