//! new-CWV (Sathiaseelan, Secchi and Fairhurst, paper 003 §3; RFC 7661 its later standard
//! form): a rate-limited sender keeps its cwnd. pipeACK, the data the path acknowledged per
//! RTT, says whether the window is in use; below half of cwnd the sender is in the
//! non-validated phase, where cwnd neither grows nor decays (after an idle too), until the
//! sender fills it again, a congestion event, or the non-validated period (NVP, 5 minutes)
//! runs out.

use super::{ssr, IdleDecision, RestartCtx, RestartPolicy, Validation};
use crate::cc::{AckCtx, CongestionEvent, CongestionKind, Window};
use crate::measure::RateEpoch;
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::{Duration, Time};

/// Which description of new-CWV a part follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewCwvForm {
    /// Paper 003 §3: pipeACK is the data acknowledged in the last measured RTT (0 after an
    /// idle); a loss in the non-validated phase is recovered as usual and the response comes
    /// at its end.
    Paper,
    /// RFC 7661: pipeACK is the largest sample of the last max(3 RTT, 1 s) (§4.2); a loss
    /// halves max(pipeACK, LossFlightSize) at once and again less R at the end (§4.4.1).
    Rfc7661,
}

/// How a sender in the non-validated phase answers a loss (paper 003 §3 and §4 compare the
/// three).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NvpLossResponse {
    /// "(D − R)/2" (paper §3, after Jump Start): at the end of recovery cwnd = (D − R) / 2,
    /// D the flight when the loss was found (with the RFC form, max(pipeACK, D)) and R what
    /// recovery resent; ssthresh = cwnd.
    HalfUsed,
    /// cwnd = the restart window at the end of recovery.
    RestartWindow,
    /// The standard fast retransmit and fast recovery.
    Standard,
}

impl NewCwvForm {
    pub const ALL: [NewCwvForm; 2] = [NewCwvForm::Paper, NewCwvForm::Rfc7661];

    pub const fn name(self) -> &'static str {
        match self {
            NewCwvForm::Paper => "paper",
            NewCwvForm::Rfc7661 => "rfc7661",
        }
    }
}

impl NvpLossResponse {
    pub const ALL: [NvpLossResponse; 3] = [NvpLossResponse::HalfUsed, NvpLossResponse::RestartWindow, NvpLossResponse::Standard];

    pub const fn name(self) -> &'static str {
        match self {
            NvpLossResponse::HalfUsed => "half-used",
            NvpLossResponse::RestartWindow => "restart-window",
            NvpLossResponse::Standard => "standard",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewCwvConfig {
    pub form: NewCwvForm,
    pub loss_response: NvpLossResponse,
    /// How long cwnd is kept without validation (paper §3 and RFC 7661: 300 s; XNU 180 s).
    pub nvp: Duration,
}

impl Default for NewCwvConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl NewCwvConfig {
    /// RFC 7661 with the paper's loss response and the RFC's 5-minute NVP (§4.4); also the
    /// registry's defaults.
    pub const DEFAULT: NewCwvConfig = NewCwvConfig { form: NewCwvForm::Rfc7661, loss_response: NvpLossResponse::HalfUsed, nvp: Duration::from_secs(300) };

    pub const INFO: PartInfo = PartInfo {
        family: Family::Restart,
        name: "new-cwv",
        doc: "paper 003 / RFC 7661: a rate-limited sender keeps cwnd for the NVP",
        keys: &[
            Key {
                name: "form",
                unit: Unit::Choice(&[NewCwvForm::Paper.name(), NewCwvForm::Rfc7661.name()]),
                default: Value::Choice(Self::DEFAULT.form.name()),
                doc: "pipeACK and the loss response as paper 003 §3 or as RFC 7661",
            },
            Key { name: "nvp", unit: Unit::Time, default: Value::Time(Self::DEFAULT.nvp), doc: "the non-validated period (RFC 7661 §4.4: 5 minutes)" },
            Key {
                name: "loss_response",
                unit: Unit::Choice(&[NvpLossResponse::HalfUsed.name(), NvpLossResponse::RestartWindow.name(), NvpLossResponse::Standard.name()]),
                default: Value::Choice(Self::DEFAULT.loss_response.name()),
                doc: "a loss in the non-validated phase: (D − R)/2, the restart window, or standard recovery",
            },
        ],
        per_segment: false,
    };

    pub fn read(s: &Settings) -> Result<NewCwvConfig, Refusal> {
        let nvp = s.time("nvp");
        if nvp == Duration::ZERO {
            return Err(Refusal { key: "nvp", why: "must be a time greater than 0, like \"300s\"".into() });
        }
        let form = NewCwvForm::ALL.into_iter().find(|f| f.name() == s.choice("form")).expect("one of the key's choices");
        let loss_response = NvpLossResponse::ALL.into_iter().find(|r| r.name() == s.choice("loss_response")).expect("one of the key's choices");
        Ok(NewCwvConfig { form, loss_response, nvp })
    }
}

/// pipeACK (RFC 7661 §4.2): the largest pipeACK sample of the sampling period PSP, kept as
/// the RFC's example keeps it (§4.5.1, and its authors' Linux module): in four bins of a
/// quarter PSP each, so that memory stays constant. Undefined until the first sample and
/// after `reset`; once defined, a period without samples (an idle) gives 0.
#[derive(Clone, Debug, Default)]
pub struct PipeAck {
    defined: bool,
    bins: [u64; 4],
    /// Which bin takes samples now, and when it began.
    current: usize,
    bin_start: Time,
}

impl PipeAck {
    /// RFC 7661 §4.2: PSP = max(3 × RTT, 1 s).
    pub fn sampling_period(srtt: Duration) -> Duration {
        Duration((3 * srtt.0).max(Duration::from_secs(1).0))
    }

    /// Move the bins on to `now`: every bin whose quarter of `psp` has passed empties.
    fn advance(&mut self, now: Time, psp: Duration) {
        let quarter = (psp.0 / 4).max(1);
        let steps = now.since(self.bin_start).0 / quarter;
        for _ in 0..steps.min(4) {
            self.current = (self.current + 1) % 4;
            self.bins[self.current] = 0;
        }
        self.bin_start += Duration(steps * quarter);
    }

    pub fn sample(&mut self, now: Time, bytes: u64, psp: Duration) {
        if !self.defined {
            *self = PipeAck { defined: true, bins: [0; 4], current: 0, bin_start: now };
        }
        self.advance(now, psp);
        self.bins[self.current] = self.bins[self.current].max(bytes);
    }

    /// pipeACK as of `now`, if defined.
    pub fn value(&mut self, now: Time, psp: Duration) -> Option<u64> {
        if !self.defined {
            return None;
        }
        self.advance(now, psp);
        self.bins.iter().copied().max()
    }

    pub fn reset(&mut self) {
        self.defined = false;
    }
}

#[derive(Clone, Debug)]
pub struct NewCwv {
    cfg: NewCwvConfig,
    initial_window_bytes: u64,
    pipe_ack: PipeAck,
    /// pipeACK as of the last ACK (the paper's form: the last sample).
    pipe_ack_bytes: Option<u64>,
    /// The sampling period as of the last ACK.
    psp: Duration,
    /// When the sender was last seen validated: the NVP runs from there.
    validated_at: Time,
    /// The phase as of the last ACK or restart.
    validated: bool,
    in_recovery: bool,
    /// A loss in the non-validated phase: what its response halves (D, or with the RFC
    /// form max(pipeACK, D)).
    nvp_loss: Option<u64>,
}

impl NewCwv {
    pub fn new(cfg: NewCwvConfig, initial_window_bytes: u64) -> Self {
        NewCwv {
            cfg,
            initial_window_bytes,
            pipe_ack: PipeAck::default(),
            pipe_ack_bytes: None,
            psp: Duration::from_secs(1),
            validated_at: Time::ZERO,
            validated: true,
            in_recovery: false,
            nvp_loss: None,
        }
    }

    /// RFC 7661 §4.3: validated while pipeACK ≥ cwnd / 2; an undefined pipeACK counts as
    /// validated.
    fn update_phase(&mut self, now: Time, cwnd: u64) {
        self.validated = self.pipe_ack_bytes.is_none_or(|p| 2 * p >= cwnd);
        if self.validated {
            self.validated_at = now;
        }
    }

    /// The NVP ran out (paper §3, RFC 7661 §4.4.3): ssthresh = max(ssthresh, 3/4 cwnd), then
    /// cwnd = max(cwnd / 2, IW). The clock starts again: another NVP halves it again.
    fn nvp_expired(&mut self, now: Time, w: Window) -> Option<Window> {
        if self.validated || now.since(self.validated_at) < self.cfg.nvp {
            return None;
        }
        self.validated_at = now;
        Some(Window { cwnd: (w.cwnd / 2).max(self.initial_window_bytes), ssthresh: ssr::remembered_ssthresh(w) })
    }

    /// pipeACK becomes undefined (after recovery and a timeout): the sender is validated.
    fn reset(&mut self) {
        self.pipe_ack.reset();
        self.pipe_ack_bytes = None;
        self.validated = true;
        self.nvp_loss = None;
    }
}

impl RestartPolicy for NewCwv {
    fn on_ack(&mut self, w: Window, ctx: &AckCtx) -> Validation {
        if self.in_recovery {
            // RFC 7661 §4.2: no pipeACK samples during loss recovery.
            return Validation::Grow;
        }
        if let (Some(srtt), RateEpoch::Sampled) = (ctx.measure.srtt(), ctx.rate_epoch) {
            self.psp = PipeAck::sampling_period(srtt);
            let sample = ctx.measure.delivered_last_rtt().unwrap_or(0);
            match self.cfg.form {
                NewCwvForm::Paper => self.pipe_ack_bytes = Some(sample),
                NewCwvForm::Rfc7661 => self.pipe_ack.sample(ctx.now, sample, self.psp),
            }
        }
        if self.cfg.form == NewCwvForm::Rfc7661 {
            self.pipe_ack_bytes = self.pipe_ack.value(ctx.now, self.psp);
        }
        self.update_phase(ctx.now, w.cwnd);
        if let Some(w) = self.nvp_expired(ctx.now, w) {
            return Validation::Set(w);
        }
        // RFC 7661 §4.3: in the non-validated phase cwnd grows only while the sender fills
        // it (cwnd-limited, §4.5.3), as it does when the application has more than cwnd.
        if self.validated || !ctx.app_limited {
            Validation::Grow
        } else {
            Validation::Hold
        }
    }

    /// Paper §3: idle and application-limited periods are alike: cwnd stays, with no
    /// restart window (the authors' Linux module turns `tcp_slow_start_after_idle` off),
    /// unless the NVP has run out.
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        self.pipe_ack_bytes = match self.cfg.form {
            // Nothing was acknowledged in the RTTs of the idle: the last measured volume is 0.
            NewCwvForm::Paper => self.pipe_ack_bytes.map(|_| 0),
            NewCwvForm::Rfc7661 => self.pipe_ack.value(ctx.now, self.psp),
        };
        self.update_phase(ctx.now, w.cwnd);
        IdleDecision { window: self.nvp_expired(ctx.now, w).unwrap_or(w), pace: None }
    }

    /// A fast retransmit in the non-validated phase: remember what the response halves; the
    /// RFC form halves max(pipeACK, LossFlightSize) at once (§4.4.1).
    fn on_congestion_event(&mut self, w: Window, ev: &CongestionEvent) -> Option<Window> {
        if ev.kind == CongestionKind::Rto {
            return None;
        }
        self.in_recovery = true;
        if self.validated || self.cfg.loss_response == NvpLossResponse::Standard {
            return None;
        }
        let used = match self.cfg.form {
            NewCwvForm::Paper => ev.flight_bytes,
            NewCwvForm::Rfc7661 => ev.flight_bytes.max(self.pipe_ack_bytes.unwrap_or(0)),
        };
        self.nvp_loss = Some(used);
        match (self.cfg.form, self.cfg.loss_response) {
            (NewCwvForm::Rfc7661, NvpLossResponse::HalfUsed) => {
                // RFC 5681 eq. (4)'s floor for ssthresh: 2 segments.
                let cwnd = (used / 2).max(2 * ev.mss);
                Some(Window { cwnd: cwnd + w.cwnd.saturating_sub(w.ssthresh), ssthresh: cwnd })
            }
            _ => None,
        }
    }

    /// Paper §3 and RFC 7661 §4.4.1: the end of a recovery that began in the non-validated
    /// phase sets cwnd from what was in use, less R; either way pipeACK starts again.
    fn on_recovery_end(&mut self, w: Window, resent_bytes: u64) -> Option<Window> {
        self.in_recovery = false;
        let loss = self.nvp_loss;
        self.reset();
        let used = loss?;
        let restart_window = ssr::rfc5681(w, self.initial_window_bytes);
        match self.cfg.loss_response {
            NvpLossResponse::HalfUsed => {
                let cwnd = (used.saturating_sub(resent_bytes) / 2).max(restart_window.cwnd);
                Some(Window { cwnd, ssthresh: cwnd })
            }
            NvpLossResponse::RestartWindow => Some(restart_window),
            NvpLossResponse::Standard => None,
        }
    }

    /// Paper §3, RFC 7661 §4.4.1: the standard RTO response; the sender leaves the
    /// non-validated phase and pipeACK starts again.
    fn on_rto(&mut self) {
        self.in_recovery = false;
        self.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;

    const MSS: u64 = 1000;
    const IW: u64 = 4 * MSS;
    const RTT: Duration = Duration::from_millis(100);

    fn at(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    /// A `Measure` whose last rate epoch acknowledged `bytes` in one RTT of 100 ms.
    fn measured(bytes: u64) -> Measure {
        let mut m = Measure::new(RtoConfig::default());
        m.on_ack(at(0), 1, 0, 1 + bytes);
        m.on_rtt_sample(RTT);
        assert_eq!(m.on_ack(at(100), 2 + bytes, bytes, 2 + bytes), RateEpoch::Sampled);
        m
    }

    /// The part hears a new ACK at `ms` that ends a rate epoch of `sample` bytes (or, with
    /// `None`, ends none); `app_limited` as the sender saw it.
    fn ack(p: &mut NewCwv, ms: u64, w: Window, sample: Option<u64>, app_limited: bool) -> Validation {
        let m = measured(sample.unwrap_or(0));
        let rate_epoch = if sample.is_some() { RateEpoch::Sampled } else { RateEpoch::Running };
        p.on_ack(w, &AckCtx { rtt_sample: Some(RTT), app_limited, rate_epoch, ..ack_ctx(at(ms), MSS, &m) })
    }

    fn part(form: NewCwvForm, loss_response: NvpLossResponse) -> NewCwv {
        NewCwv::new(NewCwvConfig { form, loss_response, nvp: Duration::from_secs(300) }, IW)
    }

    fn window(cwnd_segs: u64) -> Window {
        Window { cwnd: cwnd_segs * MSS, ssthresh: 100 * MSS }
    }

    fn loss(p: &mut NewCwv, w: Window, flight_segs: u64) -> Option<Window> {
        let ev = CongestionEvent {
            now: at(0),
            kind: CongestionKind::FastRetransmit { inflation_bytes: 0 },
            mss: MSS,
            loss_window_bytes: flight_segs * MSS,
            flight_bytes: flight_segs * MSS,
            lost_sent_at: None,
        };
        p.on_congestion_event(w, &ev)
    }

    /// RFC 7661 §4.2: pipeACK is undefined until the first sample, then the largest sample
    /// of the last PSP = max(3 RTT, 1 s), kept in quarter-PSP bins; an idle longer than the
    /// PSP leaves 0, not undefined.
    #[test]
    fn rfc_7661_4_2_pipeack_is_the_largest_sample_of_the_sampling_period() {
        let psp = PipeAck::sampling_period(RTT);
        assert_eq!(psp, Duration::from_secs(1), "3 × 100 ms is under the 1 s floor");
        assert_eq!(PipeAck::sampling_period(Duration::from_millis(500)), Duration::from_millis(1500));
        let mut p = PipeAck::default();
        assert_eq!(p.value(at(0), psp), None, "undefined before the first sample");
        p.sample(at(0), 8 * MSS, psp);
        p.sample(at(300), 3 * MSS, psp);
        p.sample(at(600), 5 * MSS, psp);
        assert_eq!(p.value(at(700), psp), Some(8 * MSS));
        // At 1000 ms the bin of the 8-segment sample (0-250 ms) has left the period.
        assert_eq!(p.value(at(1000), psp), Some(5 * MSS));
        assert_eq!(p.value(at(3000), psp), Some(0), "an idle empties every bin");
        p.reset();
        assert_eq!(p.value(at(3000), psp), None);
    }

    /// RFC 7661 §4.3: the sender is validated while pipeACK ≥ cwnd / 2 (or undefined) and
    /// cwnd grows; below, it is in the non-validated phase and cwnd holds while the sender is
    /// application-limited; filling the window (cwnd-limited) lets it grow; a sample of half
    /// the window validates it again.
    #[test]
    fn rfc_7661_4_3_entering_and_leaving_the_non_validated_phase() {
        for form in [NewCwvForm::Paper, NewCwvForm::Rfc7661] {
            let mut p = part(form, NvpLossResponse::HalfUsed);
            let w = window(20);
            assert_eq!(ack(&mut p, 0, w, None, true), Validation::Grow, "{form:?}: pipeACK undefined counts as validated");
            assert_eq!(ack(&mut p, 100, w, Some(10 * MSS), true), Validation::Grow, "{form:?}: half the window is validated");
            let below = if form == NewCwvForm::Paper { 100 } else { 1200 };
            assert_eq!(ack(&mut p, below, w, Some(9 * MSS), true), Validation::Hold, "{form:?}: under half, application-limited");
            assert_eq!(ack(&mut p, below + 100, w, None, false), Validation::Grow, "{form:?}: cwnd-limited");
            assert_eq!(ack(&mut p, below + 200, w, Some(10 * MSS), true), Validation::Grow, "{form:?}: validated again");
        }
    }

    /// Paper §3: in the non-validated phase cwnd is kept across an idle longer than the RTO
    /// (no restart window, no decay), where RFC 5681 would restart from the initial window.
    /// The idle leaves the sender non-validated in both forms, though it filled its window
    /// before: nothing was acknowledged in its RTTs (paper form), none of its samples is
    /// left in the PSP (RFC form).
    #[test]
    fn paper_3_cwnd_is_kept_across_an_idle() {
        for form in [NewCwvForm::Paper, NewCwvForm::Rfc7661] {
            let mut p = part(form, NvpLossResponse::HalfUsed);
            let w = window(20);
            assert_eq!(ack(&mut p, 100, w, Some(15 * MSS), true), Validation::Grow);
            let m = measured(0);
            let ctx =
                RestartCtx { now: at(10_100), mss: MSS, initial_window_bytes: IW, usable_window_bytes: w.cwnd, idle: Duration::from_secs(10), measure: &m };
            assert_eq!(p.on_idle_end(w, &ctx), IdleDecision { window: w, pace: None }, "{form:?}");
            assert_eq!((p.pipe_ack_bytes, p.validated), (Some(0), false), "{form:?}");
        }
    }

    /// Paper §3 and RFC 7661 §4.4.3: after the NVP (300 s) without validation,
    /// ssthresh = max(ssthresh, 3/4 cwnd) and cwnd = max(cwnd / 2, IW), once per NVP; at the
    /// end of an idle that outlasted it too.
    #[test]
    fn rfc_7661_4_4_3_the_end_of_the_nvp_halves_cwnd() {
        let mut p = part(NewCwvForm::Paper, NvpLossResponse::HalfUsed);
        let w = Window { cwnd: 40 * MSS, ssthresh: 10 * MSS };
        ack(&mut p, 0, w, Some(20 * MSS), true);
        assert_eq!(ack(&mut p, 100, w, Some(2 * MSS), true), Validation::Hold);
        assert_eq!(ack(&mut p, 299_999, w, Some(2 * MSS), true), Validation::Hold, "the NVP runs from the last validation");
        let halved = Window { cwnd: 20 * MSS, ssthresh: 30 * MSS };
        assert_eq!(ack(&mut p, 300_000, w, Some(2 * MSS), true), Validation::Set(halved));
        assert_eq!(ack(&mut p, 300_100, halved, Some(2 * MSS), true), Validation::Hold, "the next NVP starts");
        let small = Window { cwnd: 6 * MSS, ssthresh: 30 * MSS };
        assert_eq!(ack(&mut p, 600_000, small, Some(MSS), true), Validation::Set(Window { cwnd: IW, ssthresh: 30 * MSS }), "never below IW");

        let mut p = part(NewCwvForm::Rfc7661, NvpLossResponse::HalfUsed);
        ack(&mut p, 0, w, Some(20 * MSS), true);
        let m = measured(0);
        let ctx = RestartCtx { now: at(400_000), mss: MSS, initial_window_bytes: IW, usable_window_bytes: w.cwnd, idle: Duration::from_secs(400), measure: &m };
        assert_eq!(p.on_idle_end(w, &ctx).window, halved, "an idle of 400 s: pipeACK 0 since, the NVP ran out");
    }

    /// Paper §3, RFC 7661 §4.4.1: an RTO in the non-validated phase gets the standard
    /// response (the part changes nothing), and the sender leaves the phase: pipeACK is
    /// undefined again, so the next ACK lets cwnd grow.
    #[test]
    fn rfc_7661_4_4_1_an_rto_leaves_the_non_validated_phase() {
        let mut p = part(NewCwvForm::Rfc7661, NvpLossResponse::HalfUsed);
        let w = window(20);
        assert_eq!(ack(&mut p, 100, w, Some(2 * MSS), true), Validation::Hold);
        let ev = CongestionEvent { now: at(200), kind: CongestionKind::Rto, mss: MSS, loss_window_bytes: 2 * MSS, flight_bytes: 2 * MSS, lost_sent_at: None };
        assert_eq!(p.on_congestion_event(w, &ev), None);
        p.on_rto();
        assert_eq!(ack(&mut p, 1300, Window { cwnd: MSS, ssthresh: 10 * MSS }, None, true), Validation::Grow);
    }

    /// Paper §3: a loss in the non-validated phase is recovered as usual; at the end
    /// cwnd = (D − R) / 2, D the flight when it was found, R what recovery resent; ssthresh
    /// = cwnd. RFC 7661 §4.4.1: already during recovery cwnd = max(pipeACK, D) / 2, and at
    /// the end (max(pipeACK, D) − R) / 2.
    #[test]
    fn rfc_7661_4_4_1_d_minus_r_over_two_at_the_end_of_recovery() {
        let w = window(40);
        let mut p = part(NewCwvForm::Paper, NvpLossResponse::HalfUsed);
        ack(&mut p, 100, w, Some(4 * MSS), true);
        assert_eq!(loss(&mut p, Window { cwnd: 15 * MSS, ssthresh: 12 * MSS }, 24), None, "the standard response meanwhile");
        let end = p.on_recovery_end(Window { cwnd: 12 * MSS, ssthresh: 12 * MSS }, 6 * MSS);
        assert_eq!(end, Some(Window { cwnd: 9 * MSS, ssthresh: 9 * MSS }), "(24 − 6) / 2");

        let mut p = part(NewCwvForm::Rfc7661, NvpLossResponse::HalfUsed);
        ack(&mut p, 100, w, Some(4 * MSS), true);
        // Reno's inflation of 3 segments over ssthresh is kept over the new ssthresh.
        let during = loss(&mut p, Window { cwnd: 15 * MSS, ssthresh: 12 * MSS }, 24);
        assert_eq!(during, Some(Window { cwnd: 15 * MSS, ssthresh: 12 * MSS }), "max(4, 24) / 2 = 12, plus the inflation");
        let end = p.on_recovery_end(Window { cwnd: 12 * MSS, ssthresh: 12 * MSS }, 22 * MSS);
        assert_eq!(end, Some(Window { cwnd: IW, ssthresh: IW }), "(24 − 22) / 2 is below the restart window");
    }

    /// The two other responses of paper §4: the restart window at the end of recovery, and
    /// the standard one; a loss while validated always gets the standard response.
    #[test]
    fn paper_4_the_restart_window_and_the_standard_loss_responses() {
        let w = window(40);
        let after = Window { cwnd: 12 * MSS, ssthresh: 12 * MSS };
        let mut p = part(NewCwvForm::Paper, NvpLossResponse::RestartWindow);
        ack(&mut p, 100, w, Some(4 * MSS), true);
        loss(&mut p, after, 24);
        assert_eq!(p.on_recovery_end(after, 0), Some(Window { cwnd: IW, ssthresh: 12 * MSS }));
        let mut p = part(NewCwvForm::Rfc7661, NvpLossResponse::Standard);
        ack(&mut p, 100, w, Some(4 * MSS), true);
        assert_eq!(loss(&mut p, after, 24), None);
        assert_eq!(p.on_recovery_end(after, 0), None);
        let mut p = part(NewCwvForm::Rfc7661, NvpLossResponse::HalfUsed);
        ack(&mut p, 100, w, Some(30 * MSS), true);
        assert_eq!(loss(&mut p, after, 24), None, "validated");
        assert_eq!(p.on_recovery_end(after, 0), None);
    }

    /// RFC 7661 §4.2: no pipeACK sample during recovery: a small sample then leaves the
    /// phase as it was; after recovery pipeACK is undefined (validated).
    #[test]
    fn rfc_7661_4_2_no_samples_during_recovery() {
        let mut p = part(NewCwvForm::Paper, NvpLossResponse::Standard);
        let w = window(20);
        ack(&mut p, 100, w, Some(15 * MSS), true);
        loss(&mut p, w, 20);
        ack(&mut p, 200, w, Some(MSS), true);
        assert_eq!(p.pipe_ack_bytes, Some(15 * MSS), "the sample during recovery is not taken");
        p.on_recovery_end(w, 0);
        assert_eq!(p.pipe_ack_bytes, None);
        assert_eq!(ack(&mut p, 300, w, None, true), Validation::Grow);
    }
}
