//! ns-2.35's retransmission timer and RTT estimator (`RtoRule::Ns2`, docs/ns2-reading.md), as
//! `tcp/tcp.cc`'s TcpAgent has them.
//!
//! One segment is timed at a time (`TcpAgent::output`: a new segment when none is), its RTT
//! counted in whole ticks of `tcp_tick_` (`RtoConfig::granularity`) on the agent's own clock,
//! whose phase `boot_time_` is drawn uniformly within one tick (`TcpAgent::reset`). srtt and
//! rttvar are BSD's fixed point (`TickEstimator`) without BSD's origin of 1; the RTO is srtt +
//! 4·rttvar in whole ticks (`rtt_update`), raised to `minrto_` before the backoff multiplies
//! it (`rtt_timeout`, Tom Kelly's RFC 2988 correction), at most `maxrto_` and at least two
//! ticks. Unlike BSD's, the timer runs from when it is set, not from a tick.

use super::ticks::TickEstimator;
use super::RtoConfig;
use crate::time::{Duration, Time};

/// `rttvar_init_` (tcl/lib/ns-default.tcl): rttvar before the first sample, 12 s. The first
/// sample replaces it, so it shows only in what `rttvar()` reports before one.
const RTTVAR_INIT: Duration = Duration::from_secs(12);
/// `rtt_backoff`: t_backoff_ doubles up to 64 (beyond, only while the RTO is under `maxrto_`).
const MAX_BACKOFF: u32 = 64;
/// `rtt_backoff`: past this backoff srtt is folded into rttvar and dropped.
const FORGET_BACKOFF: u32 = 8;

/// An agent's timing state, as TcpAgent holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ns2Timer {
    /// The clock of `tcp_tick_` in the phase `boot_time_`, the segment of `rtt_active_`,
    /// `t_srtt_` and `t_rttvar_`.
    pub(super) est: TickEstimator,
    /// `minrto_` and `maxrto_`.
    min: Duration,
    max: Duration,
    /// `t_rtxcur_`: the RTO before the backoff and the bounds; `rtxcur_init_` before a sample.
    rtxcur: Duration,
    /// `t_backoff_`.
    backoff: u32,
}

impl Ns2Timer {
    /// `TcpAgent::rtt_init` with `srtt_init_` 0: no estimate, the RTO `cfg.initial`
    /// (`rtxcur_init_`), the clock's phase 0 until `seed_phase`.
    pub(super) fn new(cfg: &RtoConfig) -> Self {
        let tick = Duration(cfg.granularity.0.max(1));
        let rttvar = i32::try_from(RTTVAR_INIT.0 / tick.0).unwrap_or(i32::MAX >> 2) << 2;
        Ns2Timer { est: TickEstimator::new(tick, rttvar), min: cfg.min, max: cfg.max, rtxcur: cfg.initial, backoff: 1 }
    }

    /// `boot_time_ = Random::uniform(tcp_tick_)`, from the connection's random stream.
    pub(super) fn seed_phase(&mut self, seed: u64) {
        self.est.set_phase(Duration(seed));
    }

    /// `TcpAgent::rtt_timeout`: `minrto_` × backoff if t_rtxcur_ is below it, else t_rtxcur_ ×
    /// backoff; at most `maxrto_`, at least two ticks.
    pub(super) fn rto(&self) -> Duration {
        Duration(self.rtxcur.max(self.min).0.saturating_mul(u64::from(self.backoff))).min(self.max).max(Duration(2 * self.est.tick.0))
    }

    pub(super) fn backed_off(&self) -> bool {
        self.backoff > 1
    }

    /// An ACK that advances snd_una to `ack` at `now`. `TcpAgent::newack`: an ACK at or beyond
    /// rtt_seq_ ends the timing, sets t_backoff_ to 1 and gives `rtt_update` its sample: the
    /// ticks of the agent's clock between the send and now (`int((tao + fmod(sendtime +
    /// boot_time_, tcp_tick_)) / tcp_tick_)`), at least 1. Returns it.
    pub(super) fn on_ack(&mut self, now: Time, ack: u64) -> Option<u32> {
        let crossed = self.est.ticks_since_timed(now, ack)?;
        self.backoff = 1;
        let rtt = u32::try_from(crossed).unwrap_or(u32::MAX).max(1);
        self.est.sample(rtt, 0);
        self.rtxcur = Duration(self.est.tick.0.saturating_mul(u64::from(self.est.rexmtval())));
        Some(rtt)
    }

    /// The retransmission timer fired: `reset_rtx_timer(_, 1)` backs off (`rtt_backoff`) and
    /// ends the timing.
    pub(super) fn on_timeout(&mut self) {
        if self.backoff < MAX_BACKOFF || self.rto() < self.max {
            self.backoff <<= 1;
        }
        if self.backoff > FORGET_BACKOFF {
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

    /// rbp.tcl's agents: a 100 ms tick, minrto_ 1 s, maxrto_ 60 s, rtxcur_init_ 3 s.
    fn cfg() -> RtoConfig {
        RtoConfig { initial: ms(3000), min: ms(1000), max: ms(60_000), granularity: ms(100), rule: RtoRule::Ns2 }
    }

    /// Time one segment sent at `sent` and acknowledged at `acked` (both in ms); its t_rtt_.
    fn timed(t: &mut Ns2Timer, sent: u64, acked: u64) -> Option<u32> {
        t.est.on_sent(at(sent), 1, false);
        t.on_ack(at(acked), 1001)
    }

    #[test]
    fn the_first_rto_is_rtxcur_init_and_backs_off_by_doubling() {
        // rtt_init: t_rtxcur_ = rtxcur_init_ (3 s); rtt_timeout multiplies it by t_backoff_.
        let mut t = Ns2Timer::new(&cfg());
        let mut rtos = vec![t.rto().0 / 1_000_000];
        for _ in 0..6 {
            t.on_timeout();
            rtos.push(t.rto().0 / 1_000_000);
        }
        assert_eq!(rtos, [3000, 6000, 12_000, 24_000, 48_000, 60_000, 60_000], "at most maxrto_");
        assert!(t.backed_off());
    }

    #[test]
    fn rtt_is_the_ticks_of_the_agents_own_clock_between_send_and_ack() {
        // rtt_update: int((tao + fmod(sendtime + boot_time_, tcp_tick_)) / tcp_tick_), at
        // least 1: the ticks the segment's flight crossed, with no origin of 1 (BSD's t_rtt
        // would be one more).
        let mut t = Ns2Timer::new(&cfg());
        assert_eq!(timed(&mut t, 50, 120), Some(1), "one tick (100 ms) crossed");
        assert_eq!(timed(&mut t, 10, 90), Some(1), "none crossed: at least 1");
        assert_eq!(timed(&mut t, 150, 420), Some(3), "ticks at 200, 300 and 400 ms");
        // With boot_time_ 60 ms the clock ticks at 40, 140, 240 ms...
        let mut shifted = Ns2Timer::new(&cfg());
        shifted.seed_phase(60_000_000);
        assert_eq!(timed(&mut shifted, 30, 150), Some(2), "ticks at 40 and 140 ms (one at 100 ms in phase 0)");
        assert_eq!(timed(&mut shifted, 30, 250), Some(3), "ticks at 40, 140 and 240 ms (two in phase 0)");
    }

    #[test]
    fn samples_update_srtt_and_rttvar_without_the_origin_correction() {
        // Samples of 2, 3, 1 ticks, worked by hand from rtt_update (srtt in eighths, rttvar in
        // quarters; delta = rtt - srtt/8; srtt += delta; rttvar += |delta| - rttvar/4;
        // t_rtxcur_ = srtt/8 + rttvar ticks, truncated):
        //   2 (first): srtt = 16, rttvar = 4;                          RTO 2 + 4 = 6 ticks
        //   3: delta = 3-2 = 1,  srtt = 17; 1-1 = 0,  rttvar = 4;       RTO 2 + 4 = 6
        //   1: delta = 1-2 = -1, srtt = 16; 1-1 = 0,  rttvar = 4;       RTO 2 + 4 = 6
        // and with 100 ms ticks, minrto_ 1 s raises each 600 ms to 1 s.
        let mut t = Ns2Timer::new(&cfg());
        let mut seen = vec![];
        for (sent, acked) in [(0, 250), (300, 650), (700, 820)] {
            timed(&mut t, sent, acked);
            seen.push((t.est.srtt, t.est.rttvar, t.rtxcur));
        }
        assert_eq!(seen, [(16, 4, ms(600)), (17, 4, ms(600)), (16, 4, ms(600))]);
        assert_eq!((t.est.srtt(), t.est.rttvar(), t.rto()), (Some(ms(200)), ms(100), ms(1000)));
        // A 10 ms tick and minrto_ 200 ms (ns-2.35's defaults): 32 ticks of RTT give t_rtxcur_
        // 96 ticks, 960 ms, above the floor.
        let mut fine = Ns2Timer::new(&RtoConfig { granularity: ms(10), min: ms(200), ..cfg() });
        timed(&mut fine, 0, 320);
        assert_eq!(fine.rto(), ms(960));
    }

    #[test]
    fn minrto_is_applied_before_the_backoff_and_the_rto_is_at_least_two_ticks() {
        // rtt_timeout (rfc2988_): t_rtxcur_ 600 ms under minrto_ 1 s backs off from 1 s: 2 s,
        // 4 s (BSD's would back off from the 600 ms and then raise it).
        let mut t = Ns2Timer::new(&cfg());
        timed(&mut t, 0, 250);
        t.on_timeout();
        assert_eq!(t.rto(), ms(2000));
        t.on_timeout();
        assert_eq!(t.rto(), ms(4000));
        // Without minrto_, an rtxcur_init_ under two ticks is raised to two.
        assert_eq!(Ns2Timer::new(&RtoConfig { min: Duration::ZERO, initial: ms(50), ..cfg() }).rto(), ms(200));
        // A LAN's one-tick samples keep srtt at 8 and rttvar at 2 (2 >> 2 is 0, so it never
        // decays): t_rtxcur_ settles at 1 + 2 ticks.
        let mut lan = Ns2Timer::new(&RtoConfig { min: Duration::ZERO, ..cfg() });
        for k in 0..40 {
            timed(&mut lan, 1000 * k, 1000 * k + 5);
        }
        assert_eq!((lan.est.srtt, lan.est.rttvar, lan.rto()), (8, 2, ms(300)));
    }

    #[test]
    fn long_backoff_forgets_srtt_and_the_next_sample_starts_afresh() {
        // rtt_backoff: past t_backoff_ 8 (the fourth timeout) t_srtt_ goes into t_rttvar_.
        let mut t = Ns2Timer::new(&cfg());
        timed(&mut t, 0, 250); // srtt 16, rttvar 4
        for _ in 0..4 {
            t.on_timeout();
        }
        assert_eq!((t.backoff, t.est.srtt, t.est.rttvar, t.est.srtt()), (16, 0, 6, None));
        // The ACK of a newly timed segment ends the backoff and sets srtt and rttvar afresh.
        assert_eq!(timed(&mut t, 5000, 5450), Some(4));
        assert_eq!((t.backoff, t.est.srtt, t.est.rttvar, t.rtxcur), (1, 32, 8, ms(1200)));
    }

    #[test]
    fn one_segment_is_timed_at_a_time_and_karns_rule_holds() {
        let mut t = Ns2Timer::new(&cfg());
        t.est.on_sent(at(0), 1, false);
        t.est.on_sent(at(10), 1001, false);
        assert_eq!(t.on_ack(at(150), 1001), Some(1), "the first segment's ACK");
        assert_eq!(t.on_ack(at(160), 2001), None, "the second was not timed");
        // reset_rtx_timer clears rtt_active_: a retransmission, then its ACK, gives no sample.
        t.est.on_sent(at(200), 2001, false);
        t.est.on_sent(at(210), 2001, true);
        assert_eq!(t.on_ack(at(400), 3001), None);
        t.est.on_sent(at(500), 3001, false);
        t.on_timeout();
        assert_eq!(t.on_ack(at(900), 4001), None, "a timeout ends the timing too");
    }

    #[test]
    fn measure_under_the_ns2_rule_runs_its_timer_from_when_it_is_set() {
        let mut m = Measure::new(cfg());
        assert_eq!(m.rto(), ms(3000));
        assert_eq!(m.rto_deadline(at(130)), at(3130), "not on a tick");
        m.on_segment_sent(at(0), 1, false);
        m.on_ack(at(250), 1001, 1000, 1001);
        assert_eq!((m.srtt(), m.rttvar(), m.rto(), m.rtt_samples()), (Some(ms(200)), ms(100), ms(1000), 1));
        m.back_off();
        assert!(m.is_backed_off());
        assert_eq!(m.rto(), ms(2000));
        m.on_segment_sent(at(300), 1001, false);
        m.on_ack(at(650), 2001, 1000, 2001);
        assert!(!m.is_backed_off(), "the timed segment's ACK ended the backoff");
        assert_eq!(m.rto(), ms(1000));
    }
}
