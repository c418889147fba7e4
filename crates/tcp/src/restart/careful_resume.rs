//! Careful Resume (draft-ietf-tsvwg-careful-resume-24, published as RFC 9959): a connection
//! resumes with the capacity (saved_cwnd) and RTT (saved_rtt) that an earlier connection to
//! the same remote endpoint observed. After the initial window confirms the path
//! (Reconnaissance), the window jumps to at most half the saved capacity and the jump is
//! paced over one RTT (Unvalidated); the sender then waits for the ACKs of what it sent
//! (Validating), and on congestion drains the path at half of what was delivered (Safe
//! Retreat). Sections (§) are the draft's.
//!
//! The saved parameters come from outside the connection: `resume` gives them (the
//! simulator keeps one set per flow and end, `world::apps`), and `saved_path` hands over
//! what this connection observed when it ends (§3.1).

use super::{ssr, IdleDecision, RestartCtx, RestartMetrics, RestartPolicy, SentCtx, Validation};
use crate::cc::{AckCtx, CongestionEvent, CongestionKind, Window};
use crate::measure::{Measure, RateEpoch};
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::{Duration, Time};

/// The CC parameters one connection saves for a later one to the same remote endpoint (§3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedPath {
    /// §3.1 Observing (saved_cwnd): the bytes acknowledged in one RTT.
    pub saved_cwnd_bytes: u64,
    /// §3.1 Observing (saved_rtt): the minimum RTT.
    pub saved_rtt: Duration,
    /// When they were observed: the Lifetime runs from here (§4.3.1).
    pub observed_at: Time,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CarefulResumeConfig {
    /// §4.3.1: how long a set of saved parameters may be used.
    pub lifetime: Duration,
    /// §3.3, §5: the configured maximum jump_cwnd.
    pub max_jump_bytes: u64,
    /// §3.5: ssthresh on leaving Safe Retreat is PipeSize × Beta, Beta in [0.5, 1].
    pub beta: f64,
}

impl Default for CarefulResumeConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl CarefulResumeConfig {
    /// The draft's Beta (0.5); a Lifetime of RFC 7661's longest NVP, which §4.3.1 takes as
    /// its reference; a max_jump beyond any window of these paths.
    pub const DEFAULT: CarefulResumeConfig = CarefulResumeConfig { lifetime: Duration::from_secs(300), max_jump_bytes: 1 << 30, beta: 0.5 };

    pub const INFO: PartInfo = PartInfo {
        family: Family::Restart,
        name: "careful-resume",
        doc: "draft-ietf-tsvwg-careful-resume: jump to half the capacity a previous connection saved, paced, then validated",
        keys: &[
            Key { name: "lifetime", unit: Unit::Time, default: Value::Time(Self::DEFAULT.lifetime), doc: "how long saved parameters may be used (§4.3.1)" },
            Key { name: "max_jump", unit: Unit::Bytes, default: Value::Bytes(Self::DEFAULT.max_jump_bytes), doc: "the largest jump_cwnd (§3.3 max_jump)" },
            Key {
                name: "beta",
                unit: Unit::Number,
                default: Value::Number(Self::DEFAULT.beta),
                doc: "ssthresh = PipeSize × beta on leaving Safe Retreat (§3.5: 0.5 to 1)",
            },
        ],
        // Its Unvalidated Phase is paced (§3.3).
        per_segment: true,
    };

    pub fn read(s: &Settings) -> Result<CarefulResumeConfig, Refusal> {
        let lifetime = s.time("lifetime");
        if lifetime == Duration::ZERO {
            return Err(Refusal { key: "lifetime", why: "must be a time greater than 0, like \"300s\"".into() });
        }
        let max_jump_bytes = s.bytes("max_jump");
        if max_jump_bytes == 0 {
            return Err(Refusal { key: "max_jump", why: "must be a size greater than 0, like \"4MiB\"".into() });
        }
        let beta = s.number("beta");
        if !(0.5..=1.0).contains(&beta) {
            return Err(Refusal { key: "beta", why: format!("must be a number from 0.5 to 1 (§3.5; got {beta})") });
        }
        Ok(CarefulResumeConfig { lifetime, max_jump_bytes, beta })
    }
}

/// §3: the phases; Normal is also where a connection without saved parameters stays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Reconnaissance,
    Unvalidated,
    Validating,
    SafeRetreat,
    Normal,
}

#[derive(Clone, Debug)]
pub struct CarefulResume {
    cfg: CarefulResumeConfig,
    iw_bytes: u64,
    mss: u64,
    phase: Phase,
    saved: Option<SavedPath>,
    /// Reconnaissance: the bytes acknowledged so far and the least RTT sample (§4.2.1 Note 1).
    recon_acked_bytes: u64,
    recon_min_rtt: Option<Duration>,
    /// §2.4: the validated capacity, from the acknowledged data.
    pipe_size: u64,
    /// The cumulative ACK, as the last new ACK left it.
    snd_una: u64,
    /// SND.NXT when the Unvalidated Phase began: an ACK past it acknowledges the first
    /// unvalidated packet (§3.3).
    first_unvalidated: u64,
    /// SND.NXT when it ended, or at a loss in it: the end of the last unvalidated packet.
    last_unvalidated: u64,
    unvalidated_at: Time,
    /// §2.4 current RTT when the jump was made: the Unvalidated Phase is paced by it and
    /// lasts at most one of it (§3.3).
    current_rtt: Duration,
    jump_cwnd: u64,
    retreat_cwnd: u64,
    /// Safe Retreat ended during fast recovery: ssthresh is set when recovery ends.
    exit_at_recovery_end: bool,
    /// §3.1, §4.1: the per-RTT delivered volume observed under normal CC outside recovery:
    /// the latest, or a larger one than an application-limited latest.
    observed_bytes: Option<u64>,
}

impl CarefulResume {
    pub fn new(cfg: CarefulResumeConfig, iw_bytes: u64) -> Self {
        CarefulResume {
            cfg,
            iw_bytes,
            mss: 0,
            phase: Phase::Normal,
            saved: None,
            recon_acked_bytes: 0,
            recon_min_rtt: None,
            pipe_size: 0,
            snd_una: 0,
            first_unvalidated: 0,
            last_unvalidated: 0,
            unvalidated_at: Time::ZERO,
            current_rtt: Duration::ZERO,
            jump_cwnd: 0,
            retreat_cwnd: 0,
            exit_at_recovery_end: false,
            observed_bytes: None,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// §3.2 (Path confirmed), on the ACK that acknowledged the initial data: the checks of
    /// §3.2 and §4.2.1, then the jump of §3.3.
    fn confirm(&mut self, w: Window, ctx: &AckCtx, saved: SavedPath) -> Validation {
        let (Some(min_rtt), Some(current_rtt)) = (self.recon_min_rtt, ctx.rtt_sample.or(ctx.measure.latest_rtt())) else {
            return Validation::Grow;
        };
        // §3.2 (Minimum RTT too small), §4.2.1: a minimum of half saved_rtt or less, or a
        // current RTT of ten times it or more, is another path; the window is left as is.
        if min_rtt <= saved.saved_rtt.mul_div(1, 2) || current_rtt >= saved.saved_rtt.mul_div(10, 1) {
            self.phase = Phase::Normal;
            return Validation::Grow;
        }
        // §3.3 (Setting the jump_cwnd): no more than half of saved_cwnd, nor max_jump.
        let jump = self.cfg.max_jump_bytes.min(saved.saved_cwnd_bytes / 2);
        if jump <= w.cwnd {
            // Normal CC already allows as much: there is nothing to resume.
            self.phase = Phase::Normal;
            return Validation::Grow;
        }
        // §3.3 (Initialising PipeSize): the flight_size on entry.
        self.pipe_size = ctx.snd_nxt - ctx.ack;
        self.first_unvalidated = ctx.snd_nxt;
        self.unvalidated_at = ctx.now;
        self.current_rtt = current_rtt;
        self.jump_cwnd = jump;
        self.phase = Phase::Unvalidated;
        Validation::Set(Window { cwnd: jump, ..w })
    }

    /// §3.3 (Check flight_size), on leaving the Unvalidated Phase with `flight` outstanding
    /// up to `snd_nxt`.
    fn leave_unvalidated(&mut self, w: Window, flight: u64, snd_nxt: u64) -> Window {
        self.last_unvalidated = snd_nxt;
        if flight < self.iw_bytes || flight <= self.pipe_size {
            // Rate-limited: the CWND is what was validated, never below IW without congestion.
            self.phase = Phase::Normal;
            Window { cwnd: self.pipe_size.max(self.iw_bytes), ..w }
        } else {
            self.phase = Phase::Validating;
            Window { cwnd: flight, ..w }
        }
    }

    /// §3.5: on leaving Safe Retreat, ssthresh is no larger than PipeSize × Beta.
    fn exit_ssthresh(&self) -> u64 {
        ((self.pipe_size as f64 * self.cfg.beta) as u64).max(2 * self.mss)
    }

    /// Whether the Unvalidated Phase is over: §3.3's three events.
    fn unvalidated_done(&self, now: Time, flight: u64, cwnd: u64, ack: u64) -> bool {
        // (Completed sending): the unused CWND is less than one packet.
        flight + self.mss > cwnd
            // (Receiving acknowledgement for an unvalidated packet)
            || ack > self.first_unvalidated
            // (Limiting time in the Unvalidated Phase): more than one RTT.
            || now.since(self.unvalidated_at) > self.current_rtt
    }
}

impl RestartPolicy for CarefulResume {
    /// §3.2 (Lifetime of saved CC parameters): expired parameters are not used; otherwise the
    /// connection starts in the Reconnaissance Phase.
    fn resume(&mut self, saved: SavedPath, now: Time) {
        if now.since(saved.observed_at) <= self.cfg.lifetime {
            self.saved = Some(saved);
            self.phase = Phase::Reconnaissance;
        }
    }

    fn saved_path(&self, now: Time, measure: &Measure) -> Option<SavedPath> {
        let saved_cwnd_bytes = self.observed_bytes?;
        // §3.1: a capacity under four IW is not worth saving.
        if saved_cwnd_bytes < 4 * self.iw_bytes {
            return None;
        }
        Some(SavedPath { saved_cwnd_bytes, saved_rtt: measure.min_rtt()?, observed_at: now })
    }

    fn pacing_interval(&self) -> Option<Duration> {
        // §3.3 (Pacing transmission), §4.3.2: ITT = current RTT × MPS / jump_cwnd.
        (self.phase == Phase::Unvalidated).then(|| self.current_rtt.mul_div(self.mss, self.jump_cwnd))
    }

    fn metrics(&self) -> RestartMetrics {
        RestartMetrics { jump_cwnd_bytes: self.jump_cwnd, retreat_cwnd_bytes: self.retreat_cwnd }
    }

    fn on_sent(&mut self, s: &SentCtx) -> Option<Window> {
        if self.phase != Phase::Unvalidated || !self.unvalidated_done(s.now, s.flight_bytes, s.window.cwnd, self.snd_una) {
            return None;
        }
        Some(self.leave_unvalidated(s.window, s.flight_bytes, self.snd_una + s.flight_bytes))
    }

    fn on_ack(&mut self, w: Window, ctx: &AckCtx) -> Validation {
        self.snd_una = ctx.ack;
        self.mss = ctx.mss;
        match self.phase {
            Phase::Reconnaissance => {
                if let Some(rtt) = ctx.rtt_sample {
                    self.recon_min_rtt = Some(self.recon_min_rtt.map_or(rtt, |m| m.min(rtt)));
                }
                self.recon_acked_bytes += ctx.acked_bytes;
                // §3.2 (Path confirmed): all the initial data acknowledged. §4.2: a
                // rate-limited sender stays until it has more to send than normal CC allows.
                match self.saved {
                    Some(saved) if self.recon_acked_bytes >= self.iw_bytes && !ctx.app_limited => self.confirm(w, ctx, saved),
                    // §3.2 (Received acknowledgment): normal CC grows the window.
                    _ => Validation::Grow,
                }
            }
            Phase::Unvalidated => {
                // §3.3 (Tracking PipeSize).
                self.pipe_size += ctx.acked_bytes;
                let flight = ctx.snd_nxt - ctx.ack;
                if self.unvalidated_done(ctx.now, flight, w.cwnd, ctx.ack) {
                    Validation::Set(self.leave_unvalidated(w, flight, ctx.snd_nxt))
                } else {
                    // Appendix A: the CWND is not increased in the Unvalidated Phase.
                    Validation::Hold
                }
            }
            Phase::Validating => {
                // §3.4 (Tracking PipeSize), (Updating CWND): normal CC grows the window.
                self.pipe_size += ctx.acked_bytes;
                if ctx.ack >= self.last_unvalidated {
                    // §3.4 (Receiving acknowledgement of the unvalidated packets).
                    self.phase = Phase::Normal;
                }
                Validation::Grow
            }
            Phase::SafeRetreat => {
                // §3.5 (Tracking PipeSize).
                self.pipe_size += ctx.acked_bytes;
                if ctx.ack < self.last_unvalidated {
                    // §3.5 (Maintaining CWND).
                    return Validation::Hold;
                }
                // §3.5 (Acknowledgement of unvalidated packets): ssthresh = PipeSize × Beta.
                if ctx.in_recovery {
                    self.exit_at_recovery_end = true;
                    return Validation::Hold;
                }
                self.phase = Phase::Normal;
                Validation::Set(Window { ssthresh: self.exit_ssthresh(), ..w })
            }
            Phase::Normal => {
                if let (RateEpoch::Sampled, false, Some(bytes)) = (ctx.rate_epoch, ctx.in_recovery, ctx.measure.delivered_last_rtt()) {
                    // §4.1: a rate-limited RTT is discounted where an earlier observation
                    // recorded more.
                    if !ctx.app_limited || self.observed_bytes.is_none_or(|o| bytes > o) {
                        self.observed_bytes = Some(bytes);
                    }
                }
                Validation::Grow
            }
        }
    }

    fn on_congestion_event(&mut self, w: Window, ev: &CongestionEvent) -> Option<Window> {
        match (self.phase, ev.kind) {
            // §3.2 (Detected congestion): normal CC reacts; the window is not touched.
            (Phase::Reconnaissance, _) => {
                self.phase = Phase::Normal;
                None
            }
            // §3.6: persistent congestion (an RTO) ends Careful Resume; normal CC reacts.
            (Phase::Unvalidated | Phase::Validating | Phase::SafeRetreat, CongestionKind::Rto) => {
                self.phase = Phase::Normal;
                None
            }
            // §3.3, §3.4 (Detected congestion): Safe Retreat.
            (Phase::Unvalidated | Phase::Validating, _) => {
                if self.phase == Phase::Unvalidated {
                    self.last_unvalidated = self.snd_una + ev.flight_bytes;
                }
                // §3.5 (Re-initializing CWND): no more than PipeSize/2; QUIC's floor of two
                // packets (RFC 9002 §4.8) keeps the ACK clock.
                self.retreat_cwnd = (self.pipe_size / 2).max(2 * ev.mss);
                self.phase = Phase::SafeRetreat;
                // Reno's inflation above ssthresh counts the segments that left: kept. ssthresh
                // at the retreat window, so that the end of recovery does not raise cwnd.
                let inflation = w.cwnd.saturating_sub(w.ssthresh);
                Some(Window { cwnd: self.retreat_cwnd + inflation, ssthresh: self.retreat_cwnd })
            }
            (Phase::SafeRetreat | Phase::Normal, _) => None,
        }
    }

    fn on_rto(&mut self) {
        // §3.6, a repeated timeout too.
        self.phase = Phase::Normal;
    }

    fn on_recovery_end(&mut self, w: Window, _resent_bytes: u64) -> Option<Window> {
        if self.phase != Phase::SafeRetreat {
            return None;
        }
        // §3.5 (Maintaining CWND): the end of fast recovery does not raise it.
        let cwnd = w.cwnd.min(self.retreat_cwnd);
        if !self.exit_at_recovery_end {
            return Some(Window { cwnd, ..w });
        }
        self.phase = Phase::Normal;
        Some(Window { cwnd, ssthresh: self.exit_ssthresh() })
    }

    /// The draft covers the start of a connection; an idle within it restarts as RFC 5681
    /// §4.1 says, and a jump under way is over (its RTT and pacing no longer hold).
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        if self.phase != Phase::Reconnaissance {
            self.phase = Phase::Normal;
        }
        IdleDecision { window: ssr::rfc5681(w, ctx.initial_window_bytes), pace: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::RtoConfig;
    use crate::test_util::ack_ctx;

    const MSS: u64 = 1000;
    const IW: u64 = 10 * MSS;
    const RTT: Duration = Duration::from_millis(100);
    /// A previous connection delivered 300 segments in one RTT of 100 ms.
    const SAVED: SavedPath = SavedPath { saved_cwnd_bytes: 300 * MSS, saved_rtt: RTT, observed_at: Time::ZERO };
    /// The first data byte; the initial window ends at 1 + IW.
    const ISS1: u64 = 1;

    fn at(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    fn measured(rtt: Duration) -> Measure {
        let mut m = Measure::new(RtoConfig::default());
        m.on_rtt_sample(rtt);
        m
    }

    fn part(cfg: CarefulResumeConfig) -> CarefulResume {
        let mut p = CarefulResume::new(cfg, IW);
        p.resume(SAVED, at(60_000));
        p
    }

    fn window(cwnd: u64) -> Window {
        Window { cwnd, ssthresh: u64::MAX }
    }

    /// A new ACK at `ms` of `acked` bytes up to `ack`, with `snd_nxt` sent, an RTT sample
    /// of `rtt`.
    fn ack(p: &mut CarefulResume, ms: u64, w: Window, acked: u64, ack: u64, snd_nxt: u64, rtt: Duration) -> Validation {
        let m = measured(rtt);
        p.on_ack(w, &AckCtx { acked_bytes: acked, ack, snd_nxt, rtt_sample: Some(rtt), ..ack_ctx(at(ms), MSS, &m) })
    }

    /// The initial window acknowledged at 100 ms in one ACK, 10 more segments in flight
    /// (slow start sent them on the earlier ACKs): the jump to 150 segments.
    fn jumped() -> CarefulResume {
        let mut p = part(CarefulResumeConfig::DEFAULT);
        let v = ack(&mut p, 100, window(20 * MSS), IW, ISS1 + IW, ISS1 + IW + 10 * MSS, RTT);
        assert_eq!(v, Validation::Set(window(150 * MSS)));
        p
    }

    fn loss(p: &mut CarefulResume, w: Window, flight: u64, kind: CongestionKind) -> Option<Window> {
        let ev = CongestionEvent { now: at(200), kind, mss: MSS, loss_window_bytes: flight, flight_bytes: flight, lost_sent_at: None };
        p.on_congestion_event(w, &ev)
    }

    const FAST: CongestionKind = CongestionKind::FastRetransmit { inflation_bytes: 0 };

    #[test]
    fn without_saved_parameters_the_connection_uses_normal_cc() {
        let mut p = CarefulResume::new(CarefulResumeConfig::DEFAULT, IW);
        assert_eq!(p.phase(), Phase::Normal);
        assert_eq!(ack(&mut p, 100, window(IW), IW, ISS1 + IW, ISS1 + IW, RTT), Validation::Grow);
        assert_eq!(p.pacing_interval(), None);
    }

    #[test]
    fn s3_2_lifetime_expired_parameters_are_not_used() {
        let mut p = CarefulResume::new(CarefulResumeConfig::DEFAULT, IW);
        p.resume(SAVED, at(300_001));
        assert_eq!(p.phase(), Phase::Normal, "observed 300.001 s before, the Lifetime is 300 s");
        p.resume(SAVED, at(300_000));
        assert_eq!(p.phase(), Phase::Reconnaissance);
    }

    /// §3.2 (Received acknowledgment), (Path confirmed): normal CC until the whole initial
    /// window is acknowledged; then §3.3: PipeSize = flight_size, CWND = jump_cwnd =
    /// saved_cwnd / 2, paced at current RTT × MPS / jump_cwnd.
    #[test]
    fn s3_2_path_confirmed_when_the_initial_window_is_acknowledged_then_s3_3_the_jump() {
        let mut p = part(CarefulResumeConfig::DEFAULT);
        assert_eq!(ack(&mut p, 100, window(IW), IW - MSS, IW, IW + 9 * MSS, RTT), Validation::Grow);
        assert_eq!(p.phase(), Phase::Reconnaissance);
        let v = ack(&mut p, 101, window(19 * MSS), MSS, ISS1 + IW, ISS1 + IW + 9 * MSS, RTT);
        assert_eq!(v, Validation::Set(window(150 * MSS)));
        assert_eq!((p.phase(), p.pipe_size, p.first_unvalidated), (Phase::Unvalidated, 9 * MSS, ISS1 + IW + 9 * MSS));
        assert_eq!(p.pacing_interval(), Some(RTT.mul_div(1, 150)), "150 segments over one RTT");
        assert_eq!(p.metrics().jump_cwnd_bytes, 150 * MSS);
    }

    /// §3.2 (Minimum RTT too small), §4.2.1: a minimum RTT of saved_rtt / 2 or less, or a
    /// current RTT of ten times saved_rtt or more, stops Careful Resume with the window as
    /// normal CC left it.
    #[test]
    fn s4_2_1_an_rtt_unlike_the_saved_one_stops_careful_resume() {
        for (rtt, confirmed) in [(50, false), (51, true), (999, true), (1000, false)] {
            let mut p = part(CarefulResumeConfig::DEFAULT);
            let v = ack(&mut p, 100, window(20 * MSS), IW, ISS1 + IW, ISS1 + IW + 10 * MSS, Duration::from_millis(rtt));
            let expect = if confirmed { (Phase::Unvalidated, Validation::Set(window(150 * MSS))) } else { (Phase::Normal, Validation::Grow) };
            assert_eq!((p.phase(), v), expect, "current RTT {rtt} ms, saved 100 ms");
        }
    }

    /// §4.2: a rate-limited sender stays in Reconnaissance until it has more to send.
    #[test]
    fn s4_2_a_rate_limited_sender_stays_in_reconnaissance() {
        let mut p = part(CarefulResumeConfig::DEFAULT);
        let m = measured(RTT);
        let ctx = AckCtx { acked_bytes: IW, ack: ISS1 + IW, snd_nxt: ISS1 + IW, rtt_sample: Some(RTT), app_limited: true, ..ack_ctx(at(100), MSS, &m) };
        assert_eq!(p.on_ack(window(20 * MSS), &ctx), Validation::Grow);
        assert_eq!(p.phase(), Phase::Reconnaissance);
        let v = ack(&mut p, 200, window(20 * MSS), MSS, ISS1 + IW + MSS, ISS1 + IW + 20 * MSS, RTT);
        assert_eq!((p.phase(), v), (Phase::Unvalidated, Validation::Set(window(150 * MSS))));
    }

    /// §3.2 (Detected congestion): normal CC reacts, the window untouched, no resume after.
    #[test]
    fn s3_2_congestion_in_reconnaissance_returns_to_normal_cc() {
        let mut p = part(CarefulResumeConfig::DEFAULT);
        assert_eq!(loss(&mut p, window(5 * MSS), 10 * MSS, FAST), None);
        assert_eq!(p.phase(), Phase::Normal);
        assert_eq!(ack(&mut p, 100, window(5 * MSS), IW, ISS1 + IW, ISS1 + IW, RTT), Validation::Grow);
    }

    /// §3.3 (Setting the jump_cwnd): at most max_jump; a jump no larger than the CWND that
    /// normal CC reached is no jump.
    #[test]
    fn s3_3_the_jump_is_bounded_by_max_jump_and_must_exceed_the_window() {
        let mut p = part(CarefulResumeConfig { max_jump_bytes: 100 * MSS, ..CarefulResumeConfig::DEFAULT });
        let v = ack(&mut p, 100, window(20 * MSS), IW, ISS1 + IW, ISS1 + IW, RTT);
        assert_eq!(v, Validation::Set(window(100 * MSS)));
        let mut p = part(CarefulResumeConfig::DEFAULT);
        assert_eq!(ack(&mut p, 100, window(150 * MSS), IW, ISS1 + IW, ISS1 + IW, RTT), Validation::Grow);
        assert_eq!(p.phase(), Phase::Normal);
    }

    /// §3.3: the CWND holds while PipeSize counts the ACKs; the ACK of the first unvalidated
    /// packet leads to Validating with CWND = flight_size.
    #[test]
    fn s3_3_the_ack_of_the_first_unvalidated_packet_leads_to_validating() {
        let mut p = jumped();
        let first = p.first_unvalidated;
        let w = window(150 * MSS);
        assert_eq!(ack(&mut p, 150, w, 10 * MSS, first, first + 80 * MSS, RTT), Validation::Hold);
        assert_eq!(p.pipe_size, 20 * MSS);
        let v = ack(&mut p, 199, w, MSS, first + MSS, first + 120 * MSS, RTT);
        assert_eq!(v, Validation::Set(window(119 * MSS)), "CWND = flight_size");
        assert_eq!((p.phase(), p.last_unvalidated, p.pacing_interval()), (Phase::Validating, first + 120 * MSS, None));
    }

    /// §3.3 (Completed sending all unvalidated packets): the send that leaves less than one
    /// packet of CWND unused ends the phase.
    #[test]
    fn s3_3_sending_the_whole_jump_leads_to_validating() {
        let mut p = jumped();
        let w = window(150 * MSS);
        assert_eq!(p.on_sent(&SentCtx { now: at(150), flight_bytes: 149 * MSS, window: w }), None);
        assert_eq!(p.on_sent(&SentCtx { now: at(151), flight_bytes: 150 * MSS, window: w }), Some(w));
        assert_eq!((p.phase(), p.last_unvalidated), (Phase::Validating, ISS1 + IW + 150 * MSS));
    }

    /// §3.3 (Limiting time), (Check flight_size): after one RTT a rate-limited sender whose
    /// flight is within PipeSize returns to normal CC with CWND = PipeSize.
    #[test]
    fn s3_3_after_one_rtt_a_rate_limited_sender_keeps_the_pipe_size() {
        let mut p = jumped();
        let w = window(150 * MSS);
        assert_eq!(p.on_sent(&SentCtx { now: at(200), flight_bytes: 15 * MSS, window: w }), None, "exactly one RTT: not more");
        assert_eq!(p.on_sent(&SentCtx { now: at(201), flight_bytes: 5 * MSS, window: w }), Some(window(IW)), "PipeSize 10, never below IW");
        assert_eq!(p.phase(), Phase::Normal);
        let mut p = jumped();
        let first = p.first_unvalidated;
        let v = ack(&mut p, 201, w, 20 * MSS, first - 10 * MSS + 20 * MSS, first + 30 * MSS, RTT);
        assert_eq!((p.phase(), v), (Phase::Normal, Validation::Set(window(30 * MSS))), "flight 20 ≤ PipeSize 30");
    }

    /// §3.4: normal CC grows the CWND; the ACK of the last unvalidated packet ends Careful
    /// Resume.
    #[test]
    fn s3_4_validating_ends_at_the_ack_of_the_last_unvalidated_packet() {
        let mut p = jumped();
        let w = window(150 * MSS);
        p.on_sent(&SentCtx { now: at(150), flight_bytes: 150 * MSS, window: w });
        let last = p.last_unvalidated;
        assert_eq!(ack(&mut p, 250, w, 100 * MSS, last - MSS, last + 100 * MSS, RTT), Validation::Grow);
        assert_eq!(p.phase(), Phase::Validating);
        assert_eq!(ack(&mut p, 251, w, MSS, last, last + 101 * MSS, RTT), Validation::Grow);
        assert_eq!(p.phase(), Phase::Normal);
    }

    /// §3.3 (Detected congestion), §3.5: a loss in the Unvalidated Phase retreats to
    /// PipeSize / 2 and holds it; the ACK of the last unvalidated packet sets ssthresh =
    /// PipeSize × Beta, CWND unchanged.
    #[test]
    fn s3_5_a_loss_in_the_unvalidated_phase_retreats_to_half_the_pipe_size() {
        let mut p = jumped();
        let first = p.first_unvalidated;
        ack(&mut p, 150, window(150 * MSS), 50 * MSS, first, first + 80 * MSS, RTT);
        assert_eq!(p.pipe_size, 60 * MSS);
        // The controller halved a flight of 90 segments.
        let w = loss(&mut p, Window { cwnd: 45 * MSS, ssthresh: 45 * MSS }, 90 * MSS, FAST);
        assert_eq!(w, Some(Window { cwnd: 30 * MSS, ssthresh: 30 * MSS }), "PipeSize 60 / 2");
        assert_eq!((p.phase(), p.last_unvalidated, p.metrics().retreat_cwnd_bytes), (Phase::SafeRetreat, first + 90 * MSS, 30 * MSS));
        let retreat = Window { cwnd: 30 * MSS, ssthresh: 30 * MSS };
        assert_eq!(ack(&mut p, 250, retreat, 40 * MSS, first + 40 * MSS, first + 90 * MSS, RTT), Validation::Hold);
        let v = ack(&mut p, 260, retreat, 50 * MSS, first + 90 * MSS, first + 100 * MSS, RTT);
        assert_eq!(v, Validation::Set(Window { cwnd: 30 * MSS, ssthresh: 75 * MSS }), "PipeSize 150 × 0.5");
        assert_eq!(p.phase(), Phase::Normal);
    }

    /// §3.4 (Detected congestion), §3.5: from Validating too, with Reno's inflation kept; an
    /// exit during fast recovery sets ssthresh when recovery ends, never raising CWND.
    #[test]
    fn s3_5_a_loss_in_validating_and_the_exit_at_the_end_of_recovery() {
        let mut p = jumped();
        let w = window(150 * MSS);
        p.on_sent(&SentCtx { now: at(150), flight_bytes: 150 * MSS, window: w });
        let last = p.last_unvalidated;
        ack(&mut p, 250, w, 50 * MSS, last - 100 * MSS, last + 50 * MSS, RTT);
        assert_eq!(p.pipe_size, 60 * MSS);
        let w = loss(&mut p, Window { cwnd: 78 * MSS, ssthresh: 75 * MSS }, 150 * MSS, FAST);
        assert_eq!(w, Some(Window { cwnd: 33 * MSS, ssthresh: 30 * MSS }));
        assert_eq!(p.last_unvalidated, last, "the end of the Unvalidated Phase's data");
        let m = measured(RTT);
        let ctx = AckCtx { acked_bytes: 100 * MSS, ack: last, snd_nxt: last + 50 * MSS, in_recovery: true, ..ack_ctx(at(350), MSS, &m) };
        assert_eq!(p.on_ack(Window { cwnd: 30 * MSS, ssthresh: 30 * MSS }, &ctx), Validation::Hold);
        assert_eq!(p.phase(), Phase::SafeRetreat);
        let end = p.on_recovery_end(Window { cwnd: 30 * MSS, ssthresh: 30 * MSS }, MSS);
        assert_eq!(end, Some(Window { cwnd: 30 * MSS, ssthresh: 80 * MSS }), "PipeSize 160 × 0.5");
        assert_eq!(p.phase(), Phase::Normal);
    }

    /// §3.5 (Maintaining CWND): recovery that ends before the last unvalidated packet is
    /// acknowledged leaves CWND at the retreat window; Beta is the configured one.
    #[test]
    fn s3_5_the_end_of_recovery_does_not_raise_the_retreat_window() {
        let mut p = part(CarefulResumeConfig { beta: 0.7, ..CarefulResumeConfig::DEFAULT });
        ack(&mut p, 100, window(20 * MSS), IW, ISS1 + IW, ISS1 + IW + 10 * MSS, RTT);
        loss(&mut p, Window { cwnd: 10 * MSS, ssthresh: 10 * MSS }, 20 * MSS, FAST);
        assert_eq!(p.retreat_cwnd, 5 * MSS);
        assert_eq!(p.on_recovery_end(Window { cwnd: 10 * MSS, ssthresh: 10 * MSS }, 0), Some(Window { cwnd: 5 * MSS, ssthresh: 10 * MSS }));
        let last = p.last_unvalidated;
        let v = ack(&mut p, 300, window(5 * MSS), 10 * MSS, last, last, RTT);
        assert_eq!(v, Validation::Set(Window { cwnd: 5 * MSS, ssthresh: 14 * MSS }), "PipeSize 20 × 0.7");
    }

    /// §3.6: a retransmission timeout ends Careful Resume in any phase; normal CC's timeout
    /// rule applies.
    #[test]
    fn s3_6_a_timeout_returns_to_normal_cc() {
        let mut p = jumped();
        assert_eq!(loss(&mut p, window(150 * MSS), 30 * MSS, CongestionKind::Rto), None);
        assert_eq!((p.phase(), p.pacing_interval()), (Phase::Normal, None));
        let mut p = jumped();
        p.on_rto();
        assert_eq!(p.phase(), Phase::Normal);
    }

    /// A `Measure` whose last rate epoch acknowledged `segments` in one RTT.
    fn epoch(segments: u64) -> Measure {
        let mut m = Measure::new(RtoConfig::default());
        m.on_ack(at(0), 1, 0, 1 + segments * MSS);
        m.on_rtt_sample(RTT);
        assert_eq!(m.on_ack(at(100), 2 + segments * MSS, segments * MSS, 2 + segments * MSS), RateEpoch::Sampled);
        m
    }

    /// §3.1, §4.1: saved_cwnd is the data acknowledged in one RTT under normal CC, the latest
    /// epoch's, but an application-limited epoch that saw less than an earlier one is
    /// discounted; saved_rtt is the minimum RTT; nothing under 4 IW is saved.
    #[test]
    fn s3_1_observing_saves_the_data_acknowledged_in_one_rtt() {
        let mut p = CarefulResume::new(CarefulResumeConfig::DEFAULT, IW);
        let observe = |p: &mut CarefulResume, segments: u64, app_limited: bool| {
            let m = epoch(segments);
            p.on_ack(window(IW), &AckCtx { rate_epoch: RateEpoch::Sampled, app_limited, ..ack_ctx(at(100), MSS, &m) });
            p.saved_path(at(1000), &m).map(|s| s.saved_cwnd_bytes / MSS)
        };
        assert_eq!(observe(&mut p, 30, true), None, "30 segments is under 4 × IW");
        assert_eq!(observe(&mut p, 50, true), Some(50), "rate-limited, but more than before");
        assert_eq!(observe(&mut p, 45, true), Some(50), "rate-limited and less: discounted");
        assert_eq!(observe(&mut p, 42, false), Some(42), "not limited: the current capacity");
        let m = epoch(42);
        assert_eq!(p.saved_path(at(1000), &m), Some(SavedPath { saved_cwnd_bytes: 42 * MSS, saved_rtt: RTT, observed_at: at(1000) }));
    }

    /// Through one endpoint: the jump after the initial window's ACKs is paced at one
    /// segment per current RTT / 150 (§3.3, §4.3.2), and three duplicate ACKs during the
    /// Unvalidated Phase retreat to PipeSize / 2 (§3.5), Reno's inflation of three on top.
    #[test]
    fn through_the_endpoint_the_jump_is_paced_and_a_loss_retreats() {
        use crate::config::TcpConfig;
        use crate::endpoint::{Endpoint, Role};
        use crate::test_util::{self, recv_ack, send_data};

        let cfg =
            TcpConfig { handshake: false, initial_window_segments: 10, restart: super::super::Restart::CarefulResume(Box::default()), ..test_util::config() };
        let mut ep = Endpoint::new(cfg, Role::Active);
        ep.resume_from(SAVED, at(0));
        ep.write(1000 * MSS);
        assert_eq!(send_data(&mut ep, at(0)).len(), 10, "Reconnaissance: the IW");
        let mut sent = 10;
        for k in 1..=10 {
            recv_ack(&mut ep, at(100), ISS1 + k * MSS);
            sent += send_data(&mut ep, at(100)).len() as u64;
        }
        // Slow start sent 2 per ACK for the first nine; the tenth jumped and the pacer let one go.
        assert_eq!((ep.snapshot().cwnd, sent), (150 * MSS, 29));
        let mut departures = Vec::new();
        while departures.len() < 5 {
            let t = ep.poll_timeout().expect("the pacer's wakeup");
            ep.handle_timeout(t);
            departures.extend(send_data(&mut ep, t).iter().map(|_| t));
        }
        let gaps: Vec<Duration> = departures.windows(2).map(|w| w[1].since(w[0])).collect();
        assert!(gaps.iter().all(|g| *g == RTT.mul_div(1, 150)), "{gaps:?}");
        let snd_una = ISS1 + IW;
        for _ in 0..3 {
            recv_ack(&mut ep, departures[4], snd_una);
        }
        // PipeSize = the flight at the jump, 28 sent less 10 acknowledged: the retreat to 9,
        // plus 3.
        assert_eq!(ep.restart_metrics().retreat_cwnd_bytes, 9 * MSS);
        assert_eq!(ep.snapshot().cwnd, 12 * MSS);
        assert!(!ep.snapshot().pacing, "Safe Retreat is not paced");
    }

    #[test]
    fn a_bad_setting_is_refused_with_its_key() {
        let bad = [("beta", Value::Number(0.4)), ("lifetime", Value::Time(Duration::ZERO)), ("max_jump", Value::Bytes(0))];
        for (key, v) in bad {
            let given = [(key, v)];
            let e = CarefulResumeConfig::read(&Settings { part: &CarefulResumeConfig::INFO, mss_bytes: MSS, given: &given }).unwrap_err();
            assert_eq!(e.key, key);
        }
    }
}
