//! Limited Slow-Start (RFC 3742): above max_ssthresh, slow start adds about
//! max_ssthresh/2 segments per RTT instead of doubling; below it, and in congestion
//! avoidance, the controller's own rule (RFC 5681). `LssRule::Ns2` is ns-2.35's reading
//! instead, which limits the growth above ssthresh after a timeout too.

use super::{AckCtx, CongestionEvent, CongestionKind, RegisteredStartup, Startup, Window};
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};

/// Where the limited growth applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LssRule {
    /// RFC 3742 §2: in slow start (cwnd < ssthresh) while cwnd > max_ssthresh.
    Rfc3742,
    /// ns-2.35 `tcp/tcp.cc`, `TcpAgent::opencwnd` and `limited_slow_start`: in the linear
    /// branch (cwnd ≥ ssthresh, with ssthresh at most max_ssthresh from the start as
    /// `TcpAgent::reset` sets it) while the last window cut was a timeout or none
    /// (`last_cwnd_action_` 0 or `CWND_ACTION_TIMEOUT`), the per-ACK increment is
    /// max(1/cwnd, 1/int(cwnd/(max_ssthresh/2))) segments; below ssthresh, plain slow start.
    Ns2,
}

impl LssRule {
    pub const ALL: [LssRule; 2] = [LssRule::Rfc3742, LssRule::Ns2];

    pub const fn name(self) -> &'static str {
        match self {
            LssRule::Rfc3742 => "rfc3742",
            LssRule::Ns2 => "ns2",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitedSlowStartConfig {
    /// RFC 3742 §2 max_ssthresh in bytes (the RFC suggests 100 MSS).
    pub max_ssthresh_bytes: u64,
    pub rule: LssRule,
}

/// ns-2's `last_cwnd_action_`: which window cut came last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastCut {
    /// None yet (0): ssthresh is at most max_ssthresh (`TcpAgent::reset`).
    None,
    /// A timeout (`CWND_ACTION_TIMEOUT`).
    Timeout,
    /// A fast retransmit or an ECN echo (`CWND_ACTION_DUPACK`, `_ECN`).
    Other,
}

#[derive(Clone, Debug)]
pub struct LimitedSlowStart {
    cfg: LimitedSlowStartConfig,
    /// Only `LssRule::Ns2` reads it.
    last_cut: LastCut,
}

impl LimitedSlowStart {
    pub fn new(cfg: LimitedSlowStartConfig) -> Self {
        LimitedSlowStart { cfg, last_cut: LastCut::None }
    }

    /// The limited phase: RFC 3742's, in slow start above max_ssthresh; or ns-2's, at and
    /// above ssthresh (its `cwnd_ >= ssthresh_`) while no cut but a timeout has been made.
    pub fn limits(&self, w: &Window) -> bool {
        let max = self.cfg.max_ssthresh_bytes;
        match self.cfg.rule {
            LssRule::Rfc3742 => w.cwnd < w.ssthresh && w.cwnd > max,
            LssRule::Ns2 => match self.last_cut {
                LastCut::None => w.cwnd >= w.ssthresh.min(max),
                LastCut::Timeout => w.cwnd >= w.ssthresh,
                LastCut::Other => false,
            },
        }
    }
}

impl RegisteredStartup for LimitedSlowStart {
    const INFO: PartInfo = PartInfo {
        family: Family::Startup,
        name: "limited-slow-start",
        doc: "RFC 3742: slower growth above max_ssthresh",
        // RFC 3742 §2 suggests max_ssthresh = 100 MSS.
        keys: &[
            Key { name: "max_ssthresh", unit: Unit::Segments, default: Value::Segments(100), doc: "RFC 3742 §2's max_ssthresh, at least 2" },
            Key {
                name: "rule",
                unit: Unit::Choice(&[LssRule::Rfc3742.name(), LssRule::Ns2.name()]),
                default: Value::Choice(LssRule::Rfc3742.name()),
                doc: "rfc3742: limited in slow start above max_ssthresh; ns2: ns-2.35's, above ssthresh until a fast retransmit, again after a timeout",
            },
        ],
        per_segment: false,
    };
    type Config = LimitedSlowStartConfig;
    fn config(s: &Settings) -> Result<LimitedSlowStartConfig, Refusal> {
        // At most 2^32 - 1 segments, so that bytes of an mss (at most 2^16) cannot overflow.
        let rule = LssRule::ALL.into_iter().find(|r| r.name() == s.choice("rule")).expect("one of the key's choices");
        match s.segments("max_ssthresh") {
            n @ 2..=0xFFFF_FFFF => Ok(LimitedSlowStartConfig { max_ssthresh_bytes: n * s.mss_bytes, rule }),
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
            // RFC 3742 §2: "If (cwnd <= max_ssthresh) cwnd += MSS", else RFC 5681; ns-2:
            // slow start below ssthresh, the linear increment after a fast retransmit.
            return false;
        }
        // RFC 3742 §2: K = int(cwnd/(0.5 max_ssthresh)); cwnd += int(MSS/K). K moves up as
        // cwnd crosses each multiple of max_ssthresh/2, and crossing the band that starts at
        // K·max_ssthresh/2 takes K·max_ssthresh/2 ACKs, so one window of ACKs adds
        // max_ssthresh/2 segments (give or take the one ACK that crosses a band).
        let k = w.cwnd / (self.cfg.max_ssthresh_bytes / 2).max(1);
        match self.cfg.rule {
            LssRule::Rfc3742 => w.cwnd += ctx.mss / k.max(1),
            // ns-2's `limited_slow_start`: 1/K when K > 0, else nothing, and never less than
            // the linear branch's 1/cwnd.
            LssRule::Ns2 => w.cwnd += ctx.mss.checked_div(k).unwrap_or(0).max(ctx.mss * ctx.mss / w.cwnd.max(1)),
        }
        true
    }

    fn on_congestion_event(&mut self, _w: &Window, ev: &CongestionEvent) {
        self.last_cut = if ev.kind == CongestionKind::Rto { LastCut::Timeout } else { LastCut::Other };
    }

    fn mode_name(&self, w: &Window) -> Option<&'static str> {
        self.limits(w).then_some("limited_slow_start")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Avoidance, Cc, CongestionControl, CongestionEvent, CongestionKind, NewReno, StartupPart};
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;
    use crate::time::Time;

    const MSS: u64 = 1000;

    /// The startup over NewReno (RFC 5681 below max_ssthresh and in congestion avoidance).
    fn cc(rule: LssRule) -> Cc {
        let lss = LimitedSlowStart::new(LimitedSlowStartConfig { max_ssthresh_bytes: 100 * MSS, rule });
        Cc::new(StartupPart::LimitedSlowStart(lss), Avoidance::NewReno(NewReno::new(false)))
    }

    fn acks(cc: &mut Cc, w: &mut Window, n: u64) {
        let m = Measure::new(RtoConfig::default());
        let ctx = ack_ctx(Time(0), MSS, &m);
        for _ in 0..n {
            cc.on_ack(w, &ctx);
        }
    }

    fn lss(window: Window, n: u64) -> Window {
        let mut w = window;
        acks(&mut cc(LssRule::Rfc3742), &mut w, n);
        w
    }

    fn cut(cc: &mut Cc, w: &Window, kind: CongestionKind) {
        let ev = CongestionEvent { now: Time(0), kind, mss: MSS, loss_window_bytes: w.cwnd, flight_bytes: w.cwnd, lost_sent_at: None };
        cc.on_congestion_event(w, &ev);
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

    #[test]
    fn ns2_limits_from_max_ssthresh_before_any_cut() {
        // tcp.cc TcpAgent::reset: ssthresh_ at most max_ssthresh_; at cwnd = 100 the linear
        // branch already takes limited_slow_start's 1/int(100/50) = 1/2 (RFC 3742: one more MSS).
        let mut c = cc(LssRule::Ns2);
        let mut w = Window { cwnd: 99 * MSS, ssthresh: u64::MAX };
        acks(&mut c, &mut w, 1);
        assert_eq!(w.cwnd, 100 * MSS, "slow start below max_ssthresh");
        acks(&mut c, &mut w, 1);
        assert_eq!(w.cwnd, 100 * MSS + 500);
        assert_eq!(lss(Window { cwnd: 100 * MSS, ssthresh: u64::MAX }, 1).cwnd, 101 * MSS, "RFC 3742 §2: cwnd <= max_ssthresh");
    }

    #[test]
    fn ns2_slow_starts_to_ssthresh_after_a_timeout_then_limits_above_it() {
        // tcp.cc opencwnd: cwnd_ < ssthresh_ is plain slow start, above max_ssthresh too; at
        // and above ssthresh_ with last_cwnd_action_ CWND_ACTION_TIMEOUT, 1/int(cwnd/50).
        let mut c = cc(LssRule::Ns2);
        let mut w = Window { cwnd: 400 * MSS, ssthresh: u64::MAX };
        cut(&mut c, &w, CongestionKind::Rto);
        w = Window { cwnd: 150 * MSS, ssthresh: 195 * MSS };
        acks(&mut c, &mut w, 1);
        assert_eq!(w.cwnd, 151 * MSS, "slow start above max_ssthresh, below ssthresh");
        let mut r = Window { cwnd: 150 * MSS, ssthresh: 195 * MSS };
        let mut rfc = cc(LssRule::Rfc3742);
        cut(&mut rfc, &r, CongestionKind::Rto);
        acks(&mut rfc, &mut r, 1);
        assert_eq!(r.cwnd, 150 * MSS + 333, "RFC 3742 limits between max_ssthresh and ssthresh");
        w.cwnd = 195 * MSS;
        acks(&mut c, &mut w, 1);
        assert_eq!(w.cwnd, 195 * MSS + 333, "K = int(195/50) = 3");
    }

    #[test]
    fn ns2_grows_linearly_after_a_fast_retransmit_and_below_half_max_ssthresh() {
        // CWND_ACTION_DUPACK ends the limited growth: 1/cwnd per ACK.
        let mut c = cc(LssRule::Ns2);
        let mut w = Window { cwnd: 200 * MSS, ssthresh: 200 * MSS };
        cut(&mut c, &w, CongestionKind::FastRetransmit { inflation_bytes: 0 });
        acks(&mut c, &mut w, 1);
        assert_eq!(w.cwnd, 200 * MSS + 5, "MSS²/cwnd");
        // After a timeout, at ssthresh 30 segments: K = int(30/50) = 0, and ns-2's
        // limited_slow_start keeps the linear 1/cwnd.
        let mut c = cc(LssRule::Ns2);
        cut(&mut c, &w, CongestionKind::Rto);
        let mut w = Window { cwnd: 30 * MSS, ssthresh: 30 * MSS };
        acks(&mut c, &mut w, 1);
        assert_eq!(w.cwnd, 30 * MSS + 33);
    }
}
