//! SSthreshless Start (Lu, Zhang, Fu & Foh, "SSthreshless Start: A Sender-Side TCP
//! Intelligence for Long Fat Network", §IV): a startup without ssthresh. Slow start watches
//! the Vegas backlog estimate N on every ACK; once N first exceeds γ, the window alternates
//! between a Linear Increase Mode (while N > γ) and an Adjustive Increase Mode (while N ≤ γ)
//! whose growth shrinks with every congestive event. The first loss ends it, and the
//! controller's (NewReno's in the paper) recovery and congestion avoidance take over.

use super::{AckCtx, CongestionEvent, RegisteredStartup, Startup, StartupMetrics, Vegas, Window};
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::Duration;

/// How the Adjustive Increase Mode's per-ACK increment shrinks with the congestive-event
/// count c. The paper's Algorithm 1 was lost in extraction; §IV-B says the increment lies
/// between 1/cwnd and 1 segment per ACK and shrinks as c grows, §V-D that the growth rate
/// "halves ... each time when congestive event happens".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdjustiveSchedule {
    /// max(1/cwnd, 2^−c) segments per ACK: our reading of §V-D.
    Halving,
    /// max(1/cwnd, 1/(c + 1)) segments per ACK: a milder alternative reading.
    Harmonic,
}

impl AdjustiveSchedule {
    /// The 2^−c or 1/(c + 1) segments, in bytes, after `events` congestive events; the
    /// controller takes the larger of this and 1/cwnd.
    pub fn increment_bytes(self, events: u32, mss: u64) -> u64 {
        match self {
            AdjustiveSchedule::Halving => mss.checked_shr(events).unwrap_or(0),
            AdjustiveSchedule::Harmonic => mss / (events as u64 + 1),
        }
    }
}

/// One segment per RTT in whole bytes: cwnd += SMSS·SMSS/cwnd per ACK (RFC 5681 eq. (3)),
/// carrying the remainder to the next ACK. Without the carry, integer bytes lose up to half
/// of the growth (1000-byte segments, cwnd 600 segments: 1.67 bytes per ACK becomes 1).
#[derive(Clone, Debug, Default)]
struct OnePerRtt {
    remainder: u64,
}

impl OnePerRtt {
    fn increment_bytes(&mut self, cwnd: u64, mss: u64) -> u64 {
        let cwnd = cwnd.max(1);
        let numerator = mss * mss + self.remainder;
        self.remainder = numerator % cwnd;
        numerator / cwnd
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsthreshlessConfig {
    /// γ: the backlog, in segments, above which the bottleneck is taken to be building a
    /// queue (§IV-B; §V-A recommends a small value).
    pub gamma_segments: f64,
    pub schedule: AdjustiveSchedule,
    /// Zero: N uses the RTT samples as measured. Otherwise RTT and BaseRTT are rounded to
    /// whole ticks of this clock, as ns-2's `rtt_update()` rounds a timestamp sample
    /// (`int(tao / tcp_tick_ + 0.5)`, at least one tick; `tcpTick_` is 10 ms in ns-2.35). The
    /// paper's §V-A speaks of "the inaccuracy of TCP timers [53, 54], which affects the
    /// backlog estimation"; the authors ran ns-2.
    pub rtt_tick: Duration,
}

impl Default for SsthreshlessConfig {
    fn default() -> Self {
        // The registry's defaults: one place for them (`Ssthreshless::INFO`).
        <Ssthreshless as RegisteredStartup>::config(&Settings::defaults(&<Ssthreshless as RegisteredStartup>::INFO)).expect("the defaults pass the checks")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshlessMode {
    /// Ordinary exponential growth, before N first exceeds γ.
    SlowStart,
    /// N > γ: one segment per RTT (§IV-B).
    LinearIncrease,
    /// N ≤ γ after at least one congestive event: growth set by the schedule (§IV-B).
    AdjustiveIncrease,
    /// After the first loss: the controller's slow start and congestion avoidance.
    Ended,
}

#[derive(Clone, Debug)]
pub struct Ssthreshless {
    cfg: SsthreshlessConfig,
    mode: SsthreshlessMode,
    /// Congestive_Event_No of §IV-B: how often N fell back to γ or below from above.
    congestive_events: u32,
    one_per_rtt: OnePerRtt,
}

impl Ssthreshless {
    pub fn new(cfg: SsthreshlessConfig) -> Self {
        Ssthreshless { cfg, mode: SsthreshlessMode::SlowStart, congestive_events: 0, one_per_rtt: OnePerRtt::default() }
    }

    pub fn mode(&self) -> SsthreshlessMode {
        self.mode
    }

    /// N of §IV-A, eq. (1): cwnd × (RTT − BaseRTT) / RTT in segments, with RTT the latest
    /// sample (the ACK's own when it gave one) and BaseRTT the smallest. No sample yet: 0.
    pub fn backlog_segments(&self, w: &Window, ctx: &AckCtx) -> f64 {
        let (Some(rtt), Some(base)) = (ctx.measure.latest_rtt(), ctx.measure.min_rtt()) else {
            return 0.0;
        };
        let tick = self.cfg.rtt_tick.as_nanos();
        if tick == 0 {
            return Vegas::backlog_segments(w.cwnd, ctx.mss, rtt.0, base.0);
        }
        // ns-2 tcp.cc rtt_update() with timestamps: t_rtt_ = int(tao / tcp_tick_ + 0.5), >= 1.
        let ticks = |d: Duration| ((d.as_nanos() + tick / 2) / tick).max(1);
        Vegas::backlog_segments(w.cwnd, ctx.mss, ticks(rtt), ticks(base))
    }
}

impl RegisteredStartup for Ssthreshless {
    const INFO: PartInfo = PartInfo {
        family: Family::Startup,
        name: "ssthreshless",
        doc: "paper 001: SSthreshless Start, no ssthresh needed",
        keys: &[
            Key { name: "gamma", unit: Unit::Number, default: Value::Number(3.0), doc: "γ of §IV-B, the backlog in segments taken as a queue building" },
            Key {
                name: "schedule",
                unit: Unit::Choice(&["halving", "harmonic"]),
                default: Value::Choice("halving"),
                doc: "how the Adjustive Increase Mode's growth shrinks per congestive event",
            },
            Key { name: "rtt_tick", unit: Unit::Time, default: Value::Time(Duration::ZERO), doc: "RTTs rounded to ticks of this clock, as ns-2's; 0s: exact" },
        ],
        per_segment: false,
    };
    type Config = SsthreshlessConfig;
    fn config(s: &Settings) -> Result<SsthreshlessConfig, Refusal> {
        let gamma_segments = s.number("gamma");
        if !(gamma_segments.is_finite() && gamma_segments >= 0.0) {
            return Err(Refusal { key: "gamma", why: "must be a number of segments >= 0".into() });
        }
        let schedule = if s.choice("schedule") == "harmonic" { AdjustiveSchedule::Harmonic } else { AdjustiveSchedule::Halving };
        Ok(SsthreshlessConfig { gamma_segments, schedule, rtt_tick: s.time("rtt_tick") })
    }
    fn new(cfg: &SsthreshlessConfig) -> Self {
        Ssthreshless::new(*cfg)
    }
}

impl Startup for Ssthreshless {
    /// New data was acknowledged outside loss recovery: first the mode follows N, then the
    /// window grows as the mode says.
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        use SsthreshlessMode::*;
        if self.mode == Ended {
            return false;
        }
        let queue_building = self.backlog_segments(w, ctx) > self.cfg.gamma_segments;
        self.mode = match (self.mode, queue_building) {
            // §IV-B: "it always starts in Linear Increase Mode".
            (SlowStart | AdjustiveIncrease, true) => LinearIncrease,
            // §IV-B: "Once the backlog is clear below γ, the TCP sender is said to have
            // experienced one congestive event."
            (LinearIncrease, false) => {
                self.congestive_events += 1;
                AdjustiveIncrease
            }
            (mode, _) => mode,
        };
        let mss = ctx.mss;
        w.cwnd += match self.mode {
            // RFC 5681 eq. (2), as NewReno's slow start.
            SlowStart => ctx.acked_bytes.min(mss),
            LinearIncrease => self.one_per_rtt.increment_bytes(w.cwnd, mss),
            // max(1/cwnd, schedule(c)) segments (§IV-B: "between 1/cwnd and 1").
            AdjustiveIncrease => {
                let by_count = self.cfg.schedule.increment_bytes(self.congestive_events, mss);
                if by_count.saturating_mul(w.cwnd) >= mss * mss {
                    by_count
                } else {
                    self.one_per_rtt.increment_bytes(w.cwnd, mss)
                }
            }
            Ended => unreachable!("handled above"),
        };
        true
    }

    /// Loss was detected (three duplicate ACKs or RTO): SSthreshless Start ends for good
    /// (§IV-B, "SSthreshless Start exits when packet losses occur").
    fn on_congestion_event(&mut self, _w: &Window, _ev: &CongestionEvent) {
        self.mode = SsthreshlessMode::Ended;
    }

    /// §IV-B: slow start lasts until the backlog N first exceeds γ and Linear Increase
    /// Mode begins; ssthresh plays no part.
    fn in_slow_start(&self, _w: &Window) -> bool {
        self.mode == SsthreshlessMode::SlowStart
    }

    /// The name a trace shows: the mode, or None (the controller's phase) once it ended.
    fn mode_name(&self, _w: &Window) -> Option<&'static str> {
        match self.mode {
            SsthreshlessMode::SlowStart => Some("slow_start"),
            SsthreshlessMode::LinearIncrease => Some("linear_increase"),
            SsthreshlessMode::AdjustiveIncrease => Some("adjustive_increase"),
            SsthreshlessMode::Ended => None,
        }
    }

    fn metrics(&self) -> StartupMetrics {
        StartupMetrics { congestive_events: self.congestive_events }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Avoidance, Cc, CongestionControl, NewReno, StartupPart};
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;
    use crate::time::{Duration, Time};

    const MSS: u64 = 1000;
    const BASE_RTT_US: u64 = 100_000;

    /// Feeds SSthreshless Start composed with NewReno (the paper's pairing) ACKs, each with
    /// an RTT sample chosen so that N has a given value.
    struct Harness {
        cc: Cc,
        w: Window,
        m: Measure,
    }

    impl Harness {
        fn new(cfg: SsthreshlessConfig, cwnd_segments: u64) -> Self {
            let mut m = Measure::new(RtoConfig::default());
            m.on_rtt_sample(Duration::from_micros(BASE_RTT_US));
            let cc = Cc::new(StartupPart::Ssthreshless(Ssthreshless::new(cfg)), Avoidance::NewReno(NewReno::new(false)));
            Harness { cc, w: Window { cwnd: cwnd_segments * MSS, ssthresh: u64::MAX }, m }
        }

        /// One ACK of one segment whose RTT sample makes N = `backlog` segments at the
        /// current cwnd: RTT = BaseRTT × cwnd / (cwnd − N), rounded down (so N never exceeds
        /// `backlog`).
        #[track_caller]
        fn ack(&mut self, backlog: f64) {
            let cwnd = self.w.cwnd as f64 / MSS as f64;
            assert!(backlog < cwnd);
            let rtt_ns = (BASE_RTT_US as f64 * 1e3 * cwnd / (cwnd - backlog)).floor() as u64;
            self.m.on_rtt_sample(Duration(rtt_ns));
            let ctx = ack_ctx(Time(0), MSS, &self.m);
            self.cc.on_ack(&mut self.w, &ctx);
        }

        /// One RTT: as many ACKs as the window held segments at its start.
        fn round(&mut self, backlog: f64) {
            for _ in 0..self.w.cwnd / MSS {
                self.ack(backlog);
            }
        }

        fn sls(&self) -> &Ssthreshless {
            match self.cc.startup() {
                StartupPart::Ssthreshless(s) => s,
                other => unreachable!("{other:?}"),
            }
        }

        fn cwnd_segments(&self) -> f64 {
            self.w.cwnd as f64 / MSS as f64
        }
    }

    #[test]
    fn test_slow_start_doubles_per_rtt_while_backlog_at_most_gamma() {
        let mut h = Harness::new(SsthreshlessConfig::default(), 4);
        for expected in [8, 16, 32, 64, 128] {
            // N exactly γ does not exceed it.
            h.round(3.0);
            assert_eq!(h.w.cwnd, expected * MSS);
            assert_eq!(h.sls().mode(), SsthreshlessMode::SlowStart);
        }
        assert_eq!(h.w.ssthresh, u64::MAX, "no ssthresh is used");
    }

    #[test]
    fn test_linear_increase_adds_one_segment_per_rtt_while_backlog_above_gamma() {
        let mut h = Harness::new(SsthreshlessConfig::default(), 100);
        h.ack(3.5);
        assert_eq!(h.sls().mode(), SsthreshlessMode::LinearIncrease, "the first crossing enters Linear Increase");
        for _ in 0..5 {
            let before = h.cwnd_segments();
            h.round(10.0);
            let grown = h.cwnd_segments() - before;
            assert!((0.98..=1.0).contains(&grown), "grew {grown} segments in one RTT");
        }
        assert_eq!(h.cc.startup_metrics().congestive_events, 0);
    }

    #[test]
    fn test_congestive_event_counted_exactly_when_backlog_falls_back() {
        let mut h = Harness::new(SsthreshlessConfig::default(), 50);
        // (N, mode after the ACK, events after the ACK)
        use SsthreshlessMode::*;
        let steps = [
            (2.0, SlowStart, 0),
            (4.0, LinearIncrease, 0),
            (5.0, LinearIncrease, 0),
            (3.0, AdjustiveIncrease, 1),
            (1.0, AdjustiveIncrease, 1),
            (3.1, LinearIncrease, 1),
            (0.0, AdjustiveIncrease, 2),
            (0.0, AdjustiveIncrease, 2),
            (6.0, LinearIncrease, 2),
            (2.9, AdjustiveIncrease, 3),
        ];
        for (i, (n, mode, events)) in steps.into_iter().enumerate() {
            h.ack(n);
            assert_eq!((h.sls().mode(), h.cc.startup_metrics().congestive_events), (mode, events), "step {i}: N = {n}");
        }
    }

    #[test]
    fn test_adjustive_increment_follows_the_schedule() {
        let halving: Vec<u64> = (1..=8).map(|c| AdjustiveSchedule::Halving.increment_bytes(c, MSS)).collect();
        assert_eq!(halving, [500, 250, 125, 62, 31, 15, 7, 3]);
        let harmonic: Vec<u64> = (1..=4).map(|c| AdjustiveSchedule::Harmonic.increment_bytes(c, MSS)).collect();
        assert_eq!(harmonic, [500, 333, 250, 200]);
        assert_eq!(AdjustiveSchedule::Halving.increment_bytes(200, MSS), 0, "no shift overflow");

        // The controller applies it: after two events each ACK adds a quarter segment.
        let mut h = Harness::new(SsthreshlessConfig::default(), 100);
        for n in [4.0, 0.0, 4.0, 0.0] {
            h.ack(n);
        }
        assert_eq!((h.sls().mode(), h.cc.startup_metrics().congestive_events), (SsthreshlessMode::AdjustiveIncrease, 2));
        let before = h.w.cwnd;
        h.ack(0.0);
        assert_eq!(h.w.cwnd - before, 250);
        let harmonic = SsthreshlessConfig { schedule: AdjustiveSchedule::Harmonic, ..Default::default() };
        let mut h = Harness::new(harmonic, 100);
        for n in [4.0, 0.0, 4.0, 0.0] {
            h.ack(n);
        }
        let before = h.w.cwnd;
        h.ack(0.0);
        assert_eq!(h.w.cwnd - before, 333);

        // Once 2^−c is below 1/cwnd, the window still grows one segment per RTT.
        let mut h = Harness::new(SsthreshlessConfig::default(), 100);
        for _ in 0..8 {
            h.ack(4.0);
            h.ack(0.0);
        }
        assert_eq!(h.cc.startup_metrics().congestive_events, 8);
        let before = h.cwnd_segments();
        h.round(0.0);
        let grown = h.cwnd_segments() - before;
        assert!((0.98..=1.0).contains(&grown), "grew {grown} segments in one RTT");
    }

    #[test]
    fn test_rtt_tick_rounds_rtt_and_base_rtt_to_whole_ticks() {
        let cfg = SsthreshlessConfig { rtt_tick: Duration::from_millis(10), ..Default::default() };
        let cc = Ssthreshless::new(cfg);
        let w = Window { cwnd: 110 * MSS, ssthresh: u64::MAX };
        let mut m = Measure::new(RtoConfig::default());
        let mut backlog = |rtt_us: u64| {
            m.on_rtt_sample(Duration::from_micros(rtt_us));
            let ctx = ack_ctx(Time(0), MSS, &m);
            cc.backlog_segments(&w, &ctx)
        };
        assert_eq!(backlog(100_200), 0.0, "BaseRTT: 10 ticks");
        assert_eq!(backlog(104_900), 0.0, "under half a tick of queueing is invisible");
        assert_eq!(backlog(105_000), 10.0, "11 ticks against 10: 110 × 1/11");
    }

    #[test]
    fn test_first_loss_hands_over_to_newreno() {
        let mut h = Harness::new(SsthreshlessConfig::default(), 100);
        for n in [4.0, 0.0] {
            h.ack(n);
        }
        let ev = CongestionEvent {
            now: Time(0),
            kind: crate::cc::CongestionKind::Rto,
            mss: MSS,
            loss_window_bytes: h.w.cwnd,
            flight_bytes: h.w.cwnd,
            lost_sent_at: None,
        };
        assert_eq!(h.cc.on_congestion_event(&h.w, &ev), h.w.cwnd / 2, "RFC 5681 eq. (4)");
        assert_eq!(h.sls().mode(), SsthreshlessMode::Ended);
        // Fast recovery leaves cwnd = ssthresh: congestion avoidance, whatever N says.
        h.w = Window { cwnd: 50 * MSS, ssthresh: 50 * MSS };
        let mut reference = NewReno::new(false);
        let mut w = h.w;
        for n in [0.0, 10.0, 0.0, 20.0] {
            h.ack(n);
            let ctx = ack_ctx(Time(0), MSS, &h.m);
            reference.on_ack(&mut w, &ctx);
            assert_eq!(h.w, w);
        }
        assert_eq!(h.cc.mode_name(&h.w), "congestion_avoidance");
        // After an RTO: NewReno slow start up to ssthresh.
        h.w = Window { cwnd: MSS, ssthresh: 10 * MSS };
        h.ack(0.0);
        assert_eq!(h.w.cwnd, 2 * MSS);
        assert_eq!(h.cc.mode_name(&h.w), "slow_start");
        assert_eq!(h.cc.startup_metrics().congestive_events, 1, "the count stays as it was at the loss");
    }
}
