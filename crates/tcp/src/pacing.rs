//! The pacer: it decides when the next data segment may go. Two things set its spacing:
//! - a paced restart after idle (paper 000 §3): one segment per the plan's interval, the
//!   first at once, until the endpoint stops it at the first ACK;
//! - pacing all the time (`PacingConfig`), as Linux and QUIC do: each segment's spacing
//!   from the rate that cwnd and srtt give when it leaves.
//!
//! The restart's interval wins while it runs. The endpoint gates its data segments on
//! `may_send` and runs `Timer::Pace` to the release time `on_send` returns.

use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::{Duration, Rate, Time};

const UNPACED: Key = Key {
    name: "unpaced",
    unit: Unit::Segments,
    default: Value::Segments(PacingConfig::LINUX_UNPACED_SEGMENTS as u64),
    doc: "the connection's first data segments that go unpaced (Linux: 10)",
};

/// Pacing all the time in the registry: `none`, then `PacingRate`'s order. A paced endpoint
/// times every data segment it sends.
pub const PARTS: [PartInfo; 3] = [
    PartInfo { family: Family::Pacing, name: "none", doc: "no pacing, but for a paced restart after idle", keys: &[], per_segment: false },
    PartInfo {
        family: Family::Pacing,
        name: "linux",
        doc: "Linux's rate, 200 % of cwnd/srtt in slow start and 120 % after, from the 11th segment",
        keys: &[UNPACED],
        per_segment: true,
    },
    PartInfo {
        family: Family::Pacing,
        name: "quic",
        doc: "RFC 9002 §7.7: N x cwnd/srtt",
        keys: &[
            Key {
                name: "n",
                unit: Unit::Number,
                default: Value::Number(PacingConfig::QUIC_N_PERCENT as f64 / 100.0),
                doc: "N, the rate's multiple of cwnd/srtt (RFC 9002 §7.7's example: 1.25)",
            },
            UNPACED,
        ],
        per_segment: true,
    },
];

/// The rate of pacing all the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacingRate {
    /// Linux's `tcp_update_pacing_rate`: `ratio × max(cwnd, flight) / srtt`, the ratio 200 %
    /// while cwnd < ssthresh/2 (`sysctl_tcp_pacing_ss_ratio`) and 120 % after
    /// (`sysctl_tcp_pacing_ca_ratio`).
    Linux,
    /// RFC 9002 §7.7: `N × cwnd / srtt`, N in percent (the RFC's example 1.25 is 125).
    Quic { n_percent: u32 },
}

impl PacingRate {
    /// Its row in `PARTS`.
    pub(crate) fn index(self) -> usize {
        match self {
            PacingRate::Linux => 1,
            PacingRate::Quic { .. } => 2,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacingConfig {
    pub rate: PacingRate,
    /// The connection's first data segments go unpaced: Linux's `tcp_update_skb_after_send`
    /// paces from `data_segs_out >= 10`; RFC 9002 §7.7 lets a burst of the initial window go.
    pub unpaced_segments: u32,
}

impl PacingConfig {
    pub const LINUX_UNPACED_SEGMENTS: u32 = 10;
    /// RFC 9002 §7.7's example N, 1.25.
    pub const QUIC_N_PERCENT: u32 = 125;

    /// Pacing named `name` with `s` its settings (None for `none`); None for no such part.
    pub fn read(name: &str, s: &Settings) -> Option<Result<Option<PacingConfig>, Refusal>> {
        let unpaced = || u32::try_from(s.segments("unpaced")).map_err(|_| Refusal { key: "unpaced", why: format!("must be at most {} segments", u32::MAX) });
        let rate = match name {
            "none" => return Some(Ok(None)),
            "linux" => Ok(PacingRate::Linux),
            "quic" => {
                let n = s.number("n");
                // RFC 9002 §7.7: N small, but at least 1.
                if (1.0..=100.0).contains(&n) {
                    Ok(PacingRate::Quic { n_percent: (n * 100.0).round() as u32 })
                } else {
                    Err(Refusal { key: "n", why: format!("must be a number from 1 to 100, like 1.25 (got {n})") })
                }
            }
            _ => return None,
        };
        Some(rate.and_then(|rate| Ok(Some(PacingConfig { rate, unpaced_segments: unpaced()? }))))
    }
}

/// What the rate reads when a segment leaves.
#[derive(Clone, Copy, Debug)]
pub struct PaceCtx {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub flight: u64,
    pub srtt: Option<Duration>,
    /// The congestion controller's own pacing rate (`CongestionControl::pacing_rate`,
    /// BBR's pacing_gain × bw); when set it replaces the pacing part's rule.
    pub cc_rate: Option<Rate>,
}

impl PacingRate {
    const LINUX_SS_RATIO_PERCENT: u64 = 200;
    const LINUX_CA_RATIO_PERCENT: u64 = 120;

    /// The time `len` bytes take at the rate; `None` (unpaced) before the first RTT sample,
    /// as in Linux, where a zero srtt leaves the rate unlimited.
    pub fn interval(&self, len: u64, ctx: &PaceCtx) -> Option<Duration> {
        if let Some(rate) = ctx.cc_rate {
            return (rate.bps() > 0).then(|| rate.tx_time(len));
        }
        let srtt = ctx.srtt.filter(|s| *s > Duration::ZERO)?;
        let (percent, window) = match *self {
            PacingRate::Linux if ctx.cwnd < ctx.ssthresh / 2 => (Self::LINUX_SS_RATIO_PERCENT, ctx.cwnd.max(ctx.flight)),
            PacingRate::Linux => (Self::LINUX_CA_RATIO_PERCENT, ctx.cwnd.max(ctx.flight)),
            PacingRate::Quic { n_percent } => (n_percent as u64, ctx.cwnd),
        };
        // interval = len / (percent/100 × window / srtt)
        Some(srtt.mul_div(len * 100, percent * window.max(1)))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// A paced restart's interval, while it runs.
    restart: Option<Duration>,
    /// No data segment may go before this time.
    next_release: Time,
    /// Data segments sent (for `PacingConfig::unpaced_segments`), counted up to that limit.
    data_segments: u32,
    /// The restart policy paces past the first ACK (`Restart::paces_by_phase`): its paced
    /// restart ends when the policy says, not at the first ACK. Set when made.
    follows_phases: bool,
}

impl Pacer {
    /// A pacer for an endpoint whose restart policy paces by phase, or not.
    pub fn new(follows_phases: bool) -> Self {
        Pacer { follows_phases, ..Pacer::default() }
    }

    pub fn follows_phases(&self) -> bool {
        self.follows_phases
    }

    /// Start a paced restart at one segment per `interval`; a segment may go at `now`.
    pub fn start_restart(&mut self, now: Time, interval: Duration) {
        self.restart = Some(interval);
        self.next_release = now;
    }

    /// End the paced restart; nothing is held back until the next segment leaves.
    pub fn stop_restart(&mut self) {
        self.restart = None;
        self.next_release = Time::ZERO;
    }

    pub fn in_restart(&self) -> bool {
        self.restart.is_some()
    }

    /// The next data segment is paced: a paced restart runs, or the unpaced segments of
    /// pacing all the time are spent.
    pub fn is_pacing(&self, cfg: Option<&PacingConfig>) -> bool {
        self.in_restart() || cfg.is_some_and(|c| self.data_segments >= c.unpaced_segments)
    }

    /// A segment may go at `now`.
    pub fn may_send(&self, now: Time) -> bool {
        self.next_release <= now
    }

    /// A data segment of `len` bytes went at `now`. Returns the time the next may go when
    /// that is later than `now`. `ctx` is read only when the rate sets the spacing (a data
    /// segment is sent far more often than it is paced).
    ///
    /// A paced restart measures its spacing from the real departure: time a segment waited
    /// for the window is not credited. Pacing all the time credits a late departure with
    /// up to one interval, as Linux's `tcp_update_skb_after_send` does (`credit`), so
    /// that after a wait two segments may leave together.
    pub fn on_send(&mut self, now: Time, len: u64, cfg: Option<&PacingConfig>, ctx: impl FnOnce() -> PaceCtx) -> Option<Time> {
        if let Some(interval) = self.restart {
            self.next_release = now + interval;
            return Some(self.next_release);
        }
        let cfg = cfg?;
        if self.data_segments < cfg.unpaced_segments {
            self.data_segments += 1;
            // Linux moves its departure stamp to each send, paced or not: no credit carries over.
            self.next_release = now;
            return None;
        }
        let interval = cfg.rate.interval(len, &ctx())?;
        // Duration's `-` stops at zero: a departure later than one interval gets it all.
        self.next_release = now + (interval - now.since(self.next_release));
        (self.next_release > now).then_some(self.next_release)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const MSS: u64 = 1000;

    fn at(ms: u64) -> Time {
        Time(Duration::from_millis(ms).0)
    }

    fn ctx(cwnd_segments: u64, ssthresh_segments: u64, flight_segments: u64) -> PaceCtx {
        PaceCtx {
            cwnd: cwnd_segments * MSS,
            ssthresh: ssthresh_segments.saturating_mul(MSS),
            flight: flight_segments * MSS,
            srtt: Some(Duration::from_millis(100)),
            cc_rate: None,
        }
    }

    fn linux(unpaced_segments: u32) -> PacingConfig {
        PacingConfig { rate: PacingRate::Linux, unpaced_segments }
    }

    #[test]
    fn without_a_restart_or_pacing_nothing_is_held_back() {
        let mut p = Pacer::default();
        assert!(p.may_send(Time::ZERO));
        assert_eq!(p.on_send(Time::ZERO, MSS, None, || ctx(10, u64::MAX, 10)), None);
        assert!(p.may_send(Time::ZERO));
        assert!(!p.is_pacing(None));
    }

    #[test]
    fn paced_restart_releases_first_segment_at_once_then_one_per_interval() {
        let mut p = Pacer::default();
        p.start_restart(at(100), Duration::from_millis(50));
        assert!(p.may_send(at(100)));
        assert_eq!(p.on_send(at(100), MSS, None, || ctx(10, 20, 0)), Some(at(150)));
        assert!(!p.may_send(at(149)));
        assert!(p.may_send(at(150)));
    }

    #[test]
    fn paced_restart_after_a_wait_measures_spacing_from_departure() {
        let mut p = Pacer::default();
        p.start_restart(at(0), MS);
        p.on_send(at(0), MSS, None, || ctx(10, 20, 0));
        // The window held the segment back until 10 ms.
        assert_eq!(p.on_send(at(10), MSS, None, || ctx(10, 20, 1)), Some(at(11)));
    }

    #[test]
    fn stopped_restart_holds_nothing_back() {
        let mut p = Pacer::default();
        p.start_restart(at(0), Duration::from_secs(1));
        p.on_send(at(0), MSS, None, || ctx(10, 20, 0));
        p.stop_restart();
        assert!(p.may_send(at(0)));
        assert!(!p.in_restart());
    }

    /// Linux `tcp_update_pacing_rate`: 200 % of cwnd/srtt while cwnd < ssthresh/2.
    #[test]
    fn linux_rate_is_twice_cwnd_over_srtt_below_half_ssthresh() {
        // 20 segments per 100 ms at 200 %: one segment per 2.5 ms.
        assert_eq!(PacingRate::Linux.interval(MSS, &ctx(20, u64::MAX, 0)), Some(Duration::from_micros(2500)));
        assert_eq!(PacingRate::Linux.interval(MSS, &ctx(20, 41, 0)), Some(Duration::from_micros(2500)));
    }

    /// ... and 120 % from cwnd ≥ ssthresh/2 on.
    #[test]
    fn linux_rate_is_six_fifths_of_cwnd_over_srtt_from_half_ssthresh() {
        // 20 segments per 100 ms at 120 %: 100/24 ms = 4,166,666 ns.
        assert_eq!(PacingRate::Linux.interval(MSS, &ctx(20, 40, 0)), Some(Duration::from_nanos(4_166_666)));
    }

    /// Linux paces by max(cwnd, packets_out): a flight above cwnd (after a reduction) sets
    /// the rate.
    #[test]
    fn linux_rate_reads_the_flight_when_it_exceeds_cwnd() {
        assert_eq!(PacingRate::Linux.interval(MSS, &ctx(10, 20, 30)), PacingRate::Linux.interval(MSS, &ctx(30, 60, 0)));
    }

    /// RFC 9002 §7.7: interval = srtt × packet_size / cwnd / N.
    #[test]
    fn quic_rate_is_n_times_cwnd_over_srtt() {
        let quic = PacingRate::Quic { n_percent: 125 };
        // 100 ms × 1000 / 20,000 / 1.25 = 4 ms, whatever the flight or ssthresh.
        assert_eq!(quic.interval(MSS, &ctx(20, 40, 0)), Some(Duration::from_millis(4)));
        assert_eq!(quic.interval(MSS, &ctx(20, u64::MAX, 35)), Some(Duration::from_millis(4)));
    }

    /// A controller's pacing rate (BBR's `bbr_set_pacing_rate`) replaces the part's rule:
    /// 8 Mb/s spaces 1000-byte segments 1 ms apart whatever cwnd and srtt say.
    #[test]
    fn a_controllers_rate_replaces_the_rule() {
        let c = PaceCtx { cc_rate: Some(Rate::from_bps(8_000_000)), srtt: None, ..ctx(20, 40, 0) };
        assert_eq!(PacingRate::Linux.interval(MSS, &c), Some(MS));
        assert_eq!(PacingRate::Quic { n_percent: 125 }.interval(MSS, &c), Some(MS));
    }

    #[test]
    fn no_rate_before_the_first_rtt_sample() {
        let c = PaceCtx { srtt: None, ..ctx(10, 20, 0) };
        assert_eq!(PacingRate::Linux.interval(MSS, &c), None);
    }

    /// Linux `tcp_update_skb_after_send`: pacing starts at `data_segs_out >= 10`.
    #[test]
    fn first_ten_data_segments_go_unpaced_then_one_per_interval() {
        let mut p = Pacer::default();
        let cfg = linux(PacingConfig::LINUX_UNPACED_SEGMENTS);
        let c = ctx(20, u64::MAX, 0);
        for _ in 0..10 {
            assert!(p.may_send(at(0)));
            assert!(!p.is_pacing(Some(&cfg)));
            assert_eq!(p.on_send(at(0), MSS, Some(&cfg), || c), None);
        }
        assert!(p.is_pacing(Some(&cfg)));
        // The 11th holds the 12th back by one interval.
        assert_eq!(p.on_send(at(0), MSS, Some(&cfg), || c), Some(Time(Duration::from_micros(2500).0)));
        assert!(!p.may_send(at(2)));
    }

    /// Linux credits a late departure with at most one interval.
    #[test]
    fn pacing_credits_a_late_departure_with_at_most_one_interval() {
        let mut p = Pacer::default();
        let cfg = linux(0);
        let c = ctx(20, u64::MAX, 0); // 2.5 ms per segment
        assert_eq!(p.on_send(at(0), MSS, Some(&cfg), || c), Some(Time(Duration::from_micros(2500).0)));
        // Sent 1 ms late at 3.5 ms: the next may go 1.5 ms later.
        let t = Time(Duration::from_micros(3500).0);
        assert_eq!(p.on_send(t, MSS, Some(&cfg), || c), Some(Time(Duration::from_micros(5000).0)));
        // After a long wait, the next goes at once, and the one after one interval later.
        assert_eq!(p.on_send(at(100), MSS, Some(&cfg), || c), None);
        assert_eq!(p.on_send(at(100), MSS, Some(&cfg), || c), Some(Time(Duration::from_micros(102_500).0)));
    }

    #[test]
    fn a_paced_restart_sets_the_spacing_over_pacing_all_the_time() {
        let mut p = Pacer::default();
        let cfg = linux(0);
        p.start_restart(at(0), Duration::from_millis(30));
        assert_eq!(p.on_send(at(0), MSS, Some(&cfg), || ctx(20, 40, 0)), Some(at(30)));
    }
}
