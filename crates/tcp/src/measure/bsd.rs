//! 4.4BSD-Lite's retransmission timer and RTT estimator (`RtoRule::Bsd44`, docs/bsd44.md).
//!
//! BSD keeps time for TCP in ticks of the slow timer (`tcp_slowtimo`, PR_SLOWHZ = 2 a
//! second: the tick is `RtoConfig::granularity`, 500 ms in the `bsd44` profile). One segment
//! is timed at a time, its RTT counted in whole ticks; srtt and rttvar are fixed-point
//! numbers of ticks; the RTO is a whole number of ticks, counted down on the ticks, so that
//! the retransmit timer fires on a tick.
//!
//! The clock is free-running and every endpoint's is in the same phase: it ticks at each
//! multiple of the tick after time zero (P, 2P, 3P, ...). A tick at instant T comes before
//! anything else the endpoint does at T: a segment sent at T is not counted by it, an ACK
//! that arrives at T is, and a timer armed at T counts down from the tick after. (One
//! exception, from the simulator's order at one instant, arrivals before timers: an ACK that
//! arrives at the very instant the retransmit timer is due is taken first, and restarts it.)

use super::ticks::TickEstimator;
use super::RtoConfig;
use crate::time::{Duration, Time};

/// TCP_MAXRXTSHIFT (tcp_timer.h). BSD drops the connection at the 13th timeout of the same
/// data; rampup does not, and stays at the last backoff.
const MAX_RXT_SHIFT: usize = 12;
/// `tcp_backoff[]` (tcp_timer.c): the RTO's multiplier after each timeout.
const BACKOFF: [u32; MAX_RXT_SHIFT + 1] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];
/// The slow timer's tick when the configuration gives none: 4.4BSD's PR_SLOWHZ = 2.
pub const SLOW_TICK: Duration = Duration::from_millis(500);

/// The first tick of a free-running clock of `period` strictly after `now` (a tick at `now`
/// itself came before whatever happens at `now`). `tcp_fasttimo` sends a delayed ACK at the
/// next 200 ms tick this way.
pub fn next_tick(now: Time, period: Duration) -> Time {
    let p = period.0.max(1);
    Time((now.0 / p).saturating_add(1).saturating_mul(p))
}

/// A connection's timing state, as `struct tcpcb` holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Bsd44 {
    /// The slow timer (its phase 0: every endpoint's ticks together), `t_rtt`'s segment,
    /// `t_srtt` and `t_rttvar`.
    pub(super) est: TickEstimator,
    /// `t_rttmin`: the least RTO, in ticks (TCPTV_MIN = 2 ticks; `min_rto`, rounded up).
    rttmin: u32,
    /// TCPTV_REXMTMAX: the largest RTO, in ticks (64 s; `max_rto`, rounded down).
    rexmtmax: u32,
    /// `t_rxtshift`: timeouts since the last sample.
    rxtshift: usize,
    /// `t_rxtcur`: the current RTO in ticks, backoff included.
    rxtcur: u32,
}

impl Bsd44 {
    /// `tcp_newtcpcb`: no srtt, rttvar such that the RTO before any sample is `cfg.initial`
    /// (there: rttvar = 4·TCPTV_SRTTDFLT and t_rxtcur = rttvar / 2, 6 s from a default RTT of
    /// 3 s); t_rttmin from `cfg.min`, TCPTV_REXMTMAX from `cfg.max`.
    pub(super) fn new(cfg: &RtoConfig) -> Self {
        let tick = if cfg.granularity.0 == 0 { SLOW_TICK } else { cfg.granularity };
        let ticks_up = |d: Duration| u32::try_from(d.0.div_ceil(tick.0)).unwrap_or(u32::MAX);
        let rttmin = ticks_up(cfg.min).max(1);
        let rexmtmax = u32::try_from(cfg.max.0 / tick.0).unwrap_or(u32::MAX).max(rttmin);
        let initial = ticks_up(cfg.initial).max(1);
        let rttvar = i32::try_from(initial.saturating_mul(2)).unwrap_or(i32::MAX);
        Bsd44 { est: TickEstimator::new(tick, rttvar), rttmin, rexmtmax, rxtshift: 0, rxtcur: initial.clamp(rttmin, rexmtmax) }
    }

    /// TCPT_RANGESET (tcp_timer.h): `ticks` within [t_rttmin, TCPTV_REXMTMAX].
    fn range(&self, ticks: u32) -> u32 {
        ticks.clamp(self.rttmin, self.rexmtmax)
    }

    /// TCP_REXMTVAL (tcp_var.h).
    fn rexmtval(&self) -> u32 {
        self.est.rexmtval()
    }

    /// The current RTO, backoff included.
    pub(super) fn rto(&self) -> Duration {
        Duration(self.est.tick.0.saturating_mul(self.rxtcur as u64))
    }

    /// When a retransmit timer armed at `now` fires: t_timer[TCPT_REXMT] = t_rxtcur, one
    /// down per tick (`tcp_slowtimo`), so on the t_rxtcur-th tick after `now`.
    pub(super) fn deadline(&self, now: Time) -> Time {
        Time(self.est.ticks_at(now).saturating_add(self.rxtcur as u64).saturating_mul(self.est.tick.0))
    }

    pub(super) fn backed_off(&self) -> bool {
        self.rxtshift > 0
    }

    /// An ACK that advances snd_una to `ack` at `now` (or the SYN's ACK). `tcp_input`: when it
    /// ends the timing, t_rtt is the sample. Returns it, in ticks: 1, plus each tick since the
    /// send.
    pub(super) fn on_ack(&mut self, now: Time, ack: u64) -> Option<u32> {
        let crossed = self.est.ticks_since_timed(now, ack)?;
        let rtt = u32::try_from(1 + crossed).unwrap_or(u32::MAX);
        self.xmit_timer(rtt);
        Some(rtt)
    }

    /// `tcp_xmit_timer` (tcp_input.c) with a sample of `rtt` ticks: t_rtt's origin of 1 is
    /// taken off ("adjust rtt to origin 0").
    fn xmit_timer(&mut self, rtt: u32) {
        self.est.sample(rtt, 1);
        self.rxtshift = 0;
        self.rxtcur = self.range(self.rexmtval());
    }

    /// `tcp_timers`, TCPT_REXMT: the retransmit timer fired. The RTO backs off by
    /// tcp_backoff[] over TCP_REXMTVAL, within [t_rttmin, TCPTV_REXMTMAX]; after the fourth
    /// timeout in a row (t_rxtshift > TCP_MAXRXTSHIFT / 4) srtt is dropped, moved into rttvar
    /// so that the RTO holds until the next sample starts the estimate afresh; the timed
    /// segment is forgotten (Karn).
    pub(super) fn on_timeout(&mut self) {
        self.rxtshift = (self.rxtshift + 1).min(MAX_RXT_SHIFT);
        self.rxtcur = self.range(self.rexmtval().saturating_mul(BACKOFF[self.rxtshift]));
        if self.rxtshift > MAX_RXT_SHIFT / 4 {
            self.est.forget_srtt();
        }
        self.est.stop_timing();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Measure, RtoRule};
    use crate::test_util::{at, ms};

    /// The bsd44 profile's timers: 500 ms ticks, RTO from 6 s, at least 1 s (2 ticks), at
    /// most 64 s.
    fn cfg() -> RtoConfig {
        RtoConfig { initial: ms(6000), min: ms(1000), max: ms(64_000), granularity: ms(500), rule: RtoRule::Bsd44 }
    }

    fn bsd() -> Bsd44 {
        Bsd44::new(&cfg())
    }

    /// Time one segment sent at `sent` and acknowledged at `acked` (both in ms); its t_rtt.
    fn timed(b: &mut Bsd44, sent: u64, acked: u64) -> Option<u32> {
        b.est.on_sent(at(sent), 1, false);
        b.on_ack(at(acked), 1001)
    }

    #[test]
    fn the_first_rto_is_6_s_and_backs_off_from_rexmtval_to_24_s_48_s_and_64_s() {
        // tcp_newtcpcb: t_rxtcur 12 ticks, t_rttvar 24 (REXMTVAL 24 ticks, 12 s); a SYN that
        // times out again and again goes again 6 s after the first, then 24 s, 48 s and 64 s
        // after the one before (REXMTVAL × tcp_backoff[1..], within TCPTV_REXMTMAX).
        let mut b = bsd();
        assert_eq!(b.rto(), ms(6000));
        let mut rtos = vec![];
        for _ in 0..5 {
            b.on_timeout();
            rtos.push(b.rto().0 / 1_000_000);
        }
        assert_eq!(rtos, [24_000, 48_000, 64_000, 64_000, 64_000], "24 × 2, × 4, × 8 and more ticks, at most 128");
    }

    #[test]
    fn rtt_is_counted_in_whole_ticks_of_a_free_running_clock() {
        // An ACK 700 ms after its segment: the segment crosses one tick or two, as the clock's
        // phase has it. t_rtt starts at 1 and each tick adds one.
        assert_eq!(timed(&mut bsd(), 100, 800), Some(2), "tick at 500 ms only");
        assert_eq!(timed(&mut bsd(), 400, 1100), Some(3), "ticks at 500 ms and 1 s");
        assert_eq!(timed(&mut bsd(), 600, 1300), Some(2), "tick at 1 s only");
        // A tick at the instant of the send comes before it; one at the ACK's instant, too.
        assert_eq!(timed(&mut bsd(), 500, 1000), Some(2), "sent on the 500 ms tick: only the 1 s tick counts");
        assert_eq!(timed(&mut bsd(), 10, 20), Some(1), "no tick between: t_rtt is still 1");
    }

    #[test]
    fn the_first_sample_sets_srtt_to_rtt_and_rttvar_to_half_of_it() {
        // tcp_xmit_timer's first sample, t_rtt = 2: t_srtt = 2 << 3 = 16, t_rttvar = 2 << 1 = 4;
        // RTO = (16 >> 3) + 4 = 6 ticks (3 s, three times the RTT).
        let mut b = bsd();
        assert_eq!(timed(&mut b, 100, 800), Some(2));
        assert_eq!((b.est.srtt, b.est.rttvar, b.rxtcur), (16, 4, 6));
        assert_eq!((b.est.srtt(), b.est.rttvar(), b.rto()), (Some(ms(1000)), ms(500), ms(3000)));
    }

    #[test]
    fn later_samples_update_srtt_and_rttvar_in_fixed_point_with_the_origin_correction() {
        // Samples of t_rtt 2, 3, 1, 1, worked by hand (srtt in eighths, rttvar in quarters of
        // a tick; delta = rtt - 1 - srtt/8; srtt += delta; rttvar += |delta| - rttvar/4):
        //   t_rtt 2 (first): srtt = 16, rttvar = 4;                   RTO = 2 + 4 = 6 ticks
        //   t_rtt 3: delta = 3-1-2 = 0,  srtt = 16; 0-1 = -1, rttvar = 3; RTO = 2 + 3 = 5
        //   t_rtt 1: delta = 1-1-2 = -2, srtt = 14; 2-0 = 2,  rttvar = 5; RTO = 1 + 5 = 6
        //   t_rtt 1: delta = 1-1-1 = -1, srtt = 13; 1-1 = 0,  rttvar = 5; RTO = 1 + 5 = 6
        let mut b = bsd();
        let mut seen = vec![];
        for rtt in [2, 3, 1, 1] {
            b.xmit_timer(rtt);
            seen.push((b.est.srtt, b.est.rttvar, b.rxtcur));
        }
        assert_eq!(seen, [(16, 4, 6), (16, 3, 5), (14, 5, 6), (13, 5, 6)]);
        assert_eq!(b.est.srtt(), Some(Duration(812_500_000)), "13/8 of a tick");
        assert_eq!(b.est.rttvar(), ms(625), "5/4 of a tick");
        // On a LAN every sample is t_rtt = 1: srtt falls to 7 (under one tick, srtt >> 3 = 0)
        // and rttvar settles at 3 (3 >> 2 = 0): the RTO settles at 3 ticks, 1.5 s.
        for _ in 0..40 {
            b.xmit_timer(1);
        }
        assert_eq!((b.est.srtt, b.est.rttvar, b.rxtcur, b.rto()), (7, 3, 3, ms(1500)));
    }

    #[test]
    fn the_rto_is_at_least_t_rttmin_and_at_most_tcptv_rexmtmax() {
        // TCPT_RANGESET: below t_rttmin (TCPTV_MIN, 2 ticks) the RTO is t_rttmin. BSD's
        // arithmetic keeps rttvar at 2 or more after a sample, so only an rttvar brought to 1
        // (its floor in tcp_xmit_timer) with srtt under a tick shows it: REXMTVAL 0 + 1.
        let mut b = bsd();
        b.xmit_timer(1);
        (b.est.srtt, b.est.rttvar) = (7, 1);
        assert_eq!(b.rexmtval(), 1);
        assert_eq!(b.range(b.rexmtval()), 2);
        b.xmit_timer(1); // delta 0 - 0: srtt 7; rttvar 1 + 0 - 0 = 1
        assert_eq!((b.est.rttvar, b.rxtcur, b.rto()), (1, 2, ms(1000)), "REXMTVAL 1 tick, raised to TCPTV_MIN's 2");
        // A min_rto of 2 s is t_rttmin = 4 ticks: the LAN's 3 ticks become 4.
        let mut m2 = Bsd44::new(&RtoConfig { min: ms(2000), ..cfg() });
        for _ in 0..40 {
            m2.xmit_timer(1);
        }
        assert_eq!((m2.rexmtval(), m2.rto()), (3, ms(2000)));
        // A long RTT: t_rtt 100 ticks gives REXMTVAL 300 ticks, held at 128 (64 s).
        let mut long = bsd();
        long.xmit_timer(100);
        assert_eq!((long.rexmtval(), long.rto()), (300, ms(64_000)));
    }

    #[test]
    fn backoff_doubles_the_rto_up_to_64_s_and_a_sample_ends_it() {
        // After a sample of t_rtt 2 (REXMTVAL 6 ticks): timeouts multiply REXMTVAL by
        // tcp_backoff[] = 2, 4, 8, 16, 32, 64: 12, 24, 48, 96 ticks, then 192 held at 128.
        let mut b = bsd();
        b.xmit_timer(2);
        let mut rtos = vec![b.rto().0 / 1_000_000];
        for _ in 0..7 {
            b.on_timeout();
            rtos.push(b.rto().0 / 1_000_000);
        }
        assert_eq!(rtos, [3000, 6000, 12_000, 24_000, 48_000, 64_000, 64_000, 64_000]);
        assert!(b.backed_off());
        // From the fourth timeout srtt is gone (t_rxtshift > 3), moved into rttvar: 4 + 2.
        assert_eq!((b.est.srtt, b.est.rttvar, b.est.srtt()), (0, 6, None));
        // The next sample starts the estimate afresh, and the backoff ends.
        b.xmit_timer(3);
        assert_eq!((b.est.srtt, b.est.rttvar, b.rxtcur, b.backed_off()), (24, 6, 9, false));
    }

    #[test]
    fn one_segment_is_timed_at_a_time() {
        // tcp_output times a segment only when none is timed: the second and third segments
        // of a flight are not, and the ACK of the first gives the one sample.
        let mut b = bsd();
        b.est.on_sent(at(100), 1, false);
        b.est.on_sent(at(450), 1001, false);
        b.est.on_sent(at(550), 2001, false);
        assert_eq!(b.on_ack(at(300), 1), None, "an ACK that does not pass t_rtseq");
        assert_eq!(b.on_ack(at(600), 1001), Some(2), "the first segment: sent at 100 ms, one tick since");
        assert_eq!(b.on_ack(at(1200), 3001), None, "nothing is timed: the later segments give no sample");
        // The next segment sent is timed again.
        b.est.on_sent(at(1300), 3001, false);
        assert_eq!(b.on_ack(at(1400), 4001), Some(1));
    }

    #[test]
    fn karns_rule_a_retransmission_or_a_timeout_ends_the_timing() {
        // tcp_input's fast retransmit sets t_rtt = 0: the ACK that follows gives no sample.
        let mut b = bsd();
        b.est.on_sent(at(0), 1, false);
        b.est.on_sent(at(10), 1, true);
        assert_eq!(b.on_ack(at(700), 1001), None);
        // Retransmissions start no timing; the next new segment does.
        b.est.on_sent(at(800), 1001, true);
        assert_eq!(b.est.ticks_since_timed(at(850), 2001), None, "nothing is timed");
        // tcp_timers: a timeout forgets the timed segment too.
        b.est.on_sent(at(900), 2001, false);
        b.on_timeout();
        assert_eq!(b.on_ack(at(1600), 3001), None);
        assert_eq!(b.est.srtt(), None, "no sample was taken");
    }

    #[test]
    fn the_retransmit_timer_fires_on_a_tick() {
        // t_timer[TCPT_REXMT] = t_rxtcur ticks, one down per tick: armed at 1.3 s with an RTO
        // of 6 ticks it fires on the sixth tick after, at 4.0 s, not at 4.3 s; armed on a tick
        // (as after a timeout), a whole RTO later.
        let mut b = bsd();
        b.xmit_timer(2);
        assert_eq!(b.rto(), ms(3000));
        assert_eq!(b.deadline(at(1300)), at(4000));
        assert_eq!(b.deadline(at(4000)), at(7000));
    }

    #[test]
    fn next_tick_is_strictly_after_now() {
        assert_eq!(next_tick(at(0), ms(200)), at(200));
        assert_eq!(next_tick(at(130), ms(200)), at(200));
        assert_eq!(next_tick(at(200), ms(200)), at(400), "a tick at the instant came first");
        assert_eq!(next_tick(at(399), ms(200)), at(400));
    }

    #[test]
    fn measure_under_the_bsd44_rule_reports_the_tick_estimator() {
        // Measure keeps BSD's state: the RTO in whole ticks, srtt and rttvar converted to
        // time, each sample counted; backoff is BSD's, not 2^n over RFC 6298's RTO.
        let mut m = Measure::new(cfg());
        assert_eq!(m.rto(), ms(6000));
        assert_eq!(m.rto_deadline(at(100)), at(6000), "twelve ticks after 100 ms");
        m.on_segment_sent(at(100), 1, false);
        m.on_ack(at(800), 1001, 1000, 1001);
        assert_eq!((m.srtt(), m.rttvar(), m.rto(), m.rtt_samples()), (Some(ms(1000)), ms(500), ms(3000), 1));
        m.back_off();
        assert!(m.is_backed_off());
        assert_eq!(m.rto(), ms(6000));
        m.on_segment_sent(at(900), 1001, false);
        m.on_ack(at(1600), 2001, 1000, 2001);
        assert!(!m.is_backed_off(), "the sample ended the backoff");
        // t_rtt 3: delta = 3-1-2 = 0: srtt 16; rttvar 4 - 1 = 3; RTO 2 + 3 = 5 ticks.
        assert_eq!((m.srtt(), m.rto()), (Some(ms(1000)), ms(2500)));
    }
}
