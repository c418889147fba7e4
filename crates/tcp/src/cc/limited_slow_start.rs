//! Limited Slow-Start (RFC 3742): above max_ssthresh, slow start adds about
//! max_ssthresh/2 segments per RTT instead of doubling; below it, and in congestion
//! avoidance, the controller's own rule (RFC 5681).

use super::{AckCtx, RegisteredStartup, Startup, Window};
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitedSlowStartConfig {
    /// RFC 3742 §2 max_ssthresh in bytes (the RFC suggests 100 MSS).
    pub max_ssthresh_bytes: u64,
}

#[derive(Clone, Debug)]
pub struct LimitedSlowStart {
    cfg: LimitedSlowStartConfig,
}

impl LimitedSlowStart {
    pub fn new(cfg: LimitedSlowStartConfig) -> Self {
        LimitedSlowStart { cfg }
    }

    /// In slow start above max_ssthresh: the limited phase of RFC 3742.
    pub fn limits(&self, w: &Window) -> bool {
        w.cwnd < w.ssthresh && w.cwnd > self.cfg.max_ssthresh_bytes
    }
}

impl RegisteredStartup for LimitedSlowStart {
    const INFO: PartInfo = PartInfo {
        family: Family::Startup,
        name: "limited-slow-start",
        doc: "RFC 3742: slower growth above max_ssthresh",
        // RFC 3742 §2 suggests max_ssthresh = 100 MSS.
        keys: &[Key { name: "max_ssthresh", unit: Unit::Segments, default: Value::Segments(100), doc: "RFC 3742 §2's max_ssthresh, at least 2" }],
        per_segment: false,
    };
    type Config = LimitedSlowStartConfig;
    fn config(s: &Settings) -> Result<LimitedSlowStartConfig, Refusal> {
        // At most 2^32 - 1 segments, so that bytes of an mss (at most 2^16) cannot overflow.
        match s.segments("max_ssthresh") {
            n @ 2..=0xFFFF_FFFF => Ok(LimitedSlowStartConfig { max_ssthresh_bytes: n * s.mss_bytes }),
            n @ 0..=1 => Err(Refusal { key: "max_ssthresh", why: format!("must be at least 2 segments (got {n})") }),
            n => Err(Refusal { key: "max_ssthresh", why: format!("must be at most 4294967295 segments (got {n})") }),
        }
    }
    fn new(cfg: &LimitedSlowStartConfig) -> Self {
        LimitedSlowStart::new(*cfg)
    }
}

impl Startup for LimitedSlowStart {
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        if !self.limits(w) {
            // RFC 3742 §2: "If (cwnd <= max_ssthresh) cwnd += MSS", else RFC 5681.
            return false;
        }
        // RFC 3742 §2: K = int(cwnd/(0.5 max_ssthresh)); cwnd += int(MSS/K). K moves up as
        // cwnd crosses each multiple of max_ssthresh/2, and crossing the band that starts at
        // K·max_ssthresh/2 takes K·max_ssthresh/2 ACKs, so one window of ACKs adds
        // max_ssthresh/2 segments (give or take the one ACK that crosses a band).
        let k = w.cwnd / (self.cfg.max_ssthresh_bytes / 2).max(1);
        w.cwnd += ctx.mss / k.max(1);
        true
    }

    fn mode_name(&self, w: &Window) -> Option<&'static str> {
        self.limits(w).then_some("limited_slow_start")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Avoidance, Cc, CongestionControl, NewReno, StartupPart};
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;
    use crate::time::Time;

    const MSS: u64 = 1000;

    fn lss(window: Window, acks: u64) -> Window {
        let m = Measure::new(RtoConfig::default());
        let ctx = ack_ctx(Time(0), MSS, &m);
        let lss = LimitedSlowStart::new(LimitedSlowStartConfig { max_ssthresh_bytes: 100 * MSS });
        // RFC 3742 with RFC 5681 below max_ssthresh and in congestion avoidance.
        let mut lss = Cc::new(StartupPart::LimitedSlowStart(lss), Avoidance::NewReno(NewReno::new(false)));
        let mut w = window;
        for _ in 0..acks {
            lss.on_ack(&mut w, &ctx);
        }
        w
    }

    #[test]
    fn test_growth_above_max_ssthresh_is_at_most_half_max_ssthresh_per_rtt() {
        // Rounds of one ACK per segment of the window, from 2 segments.
        let mut w = Window { cwnd: 2 * MSS, ssthresh: u64::MAX };
        let mut r = vec![];
        for _ in 0..25 {
            r.push(w.cwnd as f64 / MSS as f64);
            w = lss(w, w.cwnd / MSS);
        }
        assert_eq!(&r[..7], &[2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 114.5], "slow start up to max_ssthresh");
        // At most max_ssthresh/2 = 50 segments, plus what the one ACK that crosses into the
        // next K overshoots (at most its own increment, half a segment).
        for p in r.windows(2).filter(|p| p[0] > 100.0) {
            let g = p[1] - p[0];
            assert!((49.0..=50.5).contains(&g), "grew {g} segments in one RTT: {r:?}");
        }
        // Rounds starting anywhere in a band of K, including just below a multiple of 50.
        for start in [101, 120, 149, 150, 199, 333, 1000] {
            let w = lss(Window { cwnd: start * MSS, ssthresh: u64::MAX }, start);
            let g = (w.cwnd - start * MSS) as f64 / MSS as f64;
            assert!((49.0..=50.5).contains(&g), "from {start}: grew {g} segments in one RTT");
        }
    }

    #[test]
    fn test_limited_slow_start_per_ack_increment_is_mss_over_k() {
        // cwnd 149 segments: K = int(149/50) = 2, half a segment per ACK.
        assert_eq!(lss(Window { cwnd: 149 * MSS, ssthresh: u64::MAX }, 1).cwnd, 149 * MSS + 500);
        // cwnd 150: K = 3.
        assert_eq!(lss(Window { cwnd: 150 * MSS, ssthresh: u64::MAX }, 1).cwnd, 150 * MSS + 333);
        // At or below max_ssthresh: one segment per ACK.
        assert_eq!(lss(Window { cwnd: 100 * MSS, ssthresh: u64::MAX }, 1).cwnd, 101 * MSS);
    }

    #[test]
    fn test_limited_slow_start_ends_at_ssthresh() {
        let w = lss(Window { cwnd: 200 * MSS, ssthresh: 200 * MSS }, 1);
        assert_eq!(w.cwnd, 200 * MSS + 5, "congestion avoidance: MSS²/cwnd");
    }
}
