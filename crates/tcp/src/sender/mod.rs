//! The sending half: sequence variables (RFC 793 names) and the record of sent segments,
//! with the congestion window (`cc::Congestion`) and the loss-recovery machine
//! (`recovery::Recovery`) as parts. It reports ACKs and sends to the parts, applies their
//! decisions, and decides *what* to send next; the endpoint decides *when* (timers,
//! handshake) and builds the segment.

use crate::cc::{AckCtx, Cc, Congestion, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::measure::Measure;
use crate::rate_sample::{RateSample, RateSampler};
use crate::recovery::{self, DupAck, NewAck, NextSend, Recovery, RecoveryKind, SackPipe, SendCtx};
use crate::restart::{self, Plan, RestartCtx, RestartMetrics, RestartPolicy, SavedPath, SentCtx, Validation};
use crate::segment::SeqRange;
use crate::send_queue::SendQueue;
use crate::time::{Duration, Time};

mod rack_tlp;
mod rate;

pub use rack_tlp::{RackTlp, INFO as RACK_TLP};

/// The window that a loss halves to give the new ssthresh. RFC 5681 §3.1 says ssthresh
/// "MUST be set to no more than" max(FlightSize / 2, 2 * SMSS) (eq. (4)); its note warns that
/// cwnd "may incidentally increase well beyond rwnd", but FlightSize too can exceed the window
/// that lost: after fast recovery has sent new data, or after go-back-N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossWindow {
    /// FlightSize, as eq. (4) writes it.
    FlightSize,
    /// The congestion window without fast-recovery inflation (in recovery: the ssthresh that
    /// recovery set), capped by the window limit. This is ns-2's `slowdown()`, which halves
    /// `window()` = min(cwnd_, window_); Reno/NewReno keep their inflation in `dupwnd_`, which
    /// `timeout()` clears first.
    Cwnd,
}

impl LossWindow {
    pub fn name(self) -> &'static str {
        match self {
            LossWindow::FlightSize => "flight",
            LossWindow::Cwnd => "cwnd",
        }
    }
}

/// What a retransmission timeout during fast recovery does to ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoInRecovery {
    /// Keep the ssthresh that recovery set, as Linux does (`tcp_enter_loss`): the loss
    /// episode was already answered once. RFC 5681 eq. (4) is an upper bound, so this meets it.
    KeepSsthresh,
    /// Halve `LossWindow` again, as for any timeout (ns-2).
    Halve,
}

impl RtoInRecovery {
    pub fn name(self) -> &'static str {
        match self {
            RtoInRecovery::KeepSsthresh => "keep_ssthresh",
            RtoInRecovery::Halve => "halve",
        }
    }
}

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss_bytes: u64,
    pub initial_window_segments: u32,
    pub initial_ssthresh_bytes: u64,
    /// A hard cap on the usable window, like ns-2's `window_` (u64::MAX: none).
    pub max_window_bytes: u64,
    pub recovery: RecoveryKind,
    pub sack_pipe: SackPipe,
    /// SACK recovery sends as PRR (RFC 6937) says.
    pub prr: bool,
    pub dupthresh: u32,
    /// RFC 3042: send one new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    pub loss_window: LossWindow,
    pub rto_in_recovery: RtoInRecovery,
    /// Nagle's algorithm (RFC 896; RFC 1122 §4.2.3.4): a segment shorter than the MSS waits
    /// while data is unacknowledged.
    pub nagle: bool,
    /// RACK-TLP (RFC 8985) beside SACK recovery; off for other recoveries.
    pub rack_tlp: bool,
    /// See `TcpConfig::rate_limited_increase`.
    pub rate_limited_increase: bool,
    /// RTT samples set the RTO (RFC 6298); else they are only observed (min RTT, Vegas'
    /// epochs) and the RTO stays at its initial value, backed off after timeouts, as in
    /// ns-2's FullTcp (`RtoTiming::Ns2Full`).
    pub rto_samples: bool,
}

/// One data segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxData {
    pub seq: u64,
    pub len: u32,
    pub fin: bool,
    pub retransmission: bool,
    /// A tail loss probe (RFC 8985 §7.3): the RTO restarts from it.
    pub probe: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Restarts after an idle longer than the threshold (each ran the restart policy).
    pub idle_restarts: u64,
    /// Tail loss probes sent (RFC 8985 §7.3).
    pub tlp_probes: u64,
    /// Window reductions for an ECN echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
}

/// What an ACK changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckResult {
    pub new_data: bool,
    pub restart_rto: bool,
    /// The RTT sample this ACK gave (Karn's rule: none from a retransmitted segment).
    pub rtt_sample: Option<Duration>,
}

#[derive(Clone, Debug)]
pub struct Sender {
    mss: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// Highest sequence number sent plus one.
    snd_max: u64,
    /// Sequence number after the last byte the application wrote.
    app_end: u64,
    unlimited: bool,
    closing: bool,
    congestion: Congestion,
    /// The restart-after-idle policy (`restart::RestartPolicy`).
    restart: restart::Part,
    max_window: u64,
    peer_window: u64,
    queue: SendQueue,
    rec: Recovery,
    /// Bytes retransmitted in the current recovery (what it repaired: RFC 7661's R).
    resent_in_recovery: u64,
    /// Recovery decided that the first unacknowledged segment goes again now.
    retransmit_first_pending: bool,
    /// A mechanism outside recovery (Preemptive Retransmission) asked for the first
    /// unacknowledged segment to go again now.
    retransmit_first_requested: bool,
    loss_window: LossWindow,
    rto_in_recovery: RtoInRecovery,
    nagle: bool,
    /// RACK-TLP's state, when it runs (`SenderConfig::rack_tlp` with SACK in use); boxed, so
    /// that the many connections without it carry a pointer, not some 100 bytes.
    rack_tlp: Option<Box<RackTlp>>,
    /// The probe timer fired: the next `poll` sends the probe (RFC 8985 §7.3).
    probe_due: bool,
    rto_samples: bool,
    /// The rate-limited increase rule's maxFS: the largest flight since cwnd was last
    /// reduced; `None` when the rule is off.
    max_flight: Option<u64>,
    /// When the last data segment went out; `Time::MAX` before the first (a plain `Time`
    /// keeps the endpoint within its cache lines, `world::conns`).
    last_send: Time,
    /// See `cc::AckCtx::app_limited`.
    app_limited: bool,
    /// The ACK being processed may not grow the window (`hold_growth`).
    growth_held: bool,
    /// The delivery-rate estimator's snapshots, kept only for a controller that reads rate
    /// samples (`CongestionControl::wants_rate_samples`); boxed, as `rack_tlp`.
    rate: Option<Box<RateSampler>>,
    stats: SenderStats,
}

impl Sender {
    /// `iss` is our initial sequence number; data starts at `iss + 1`.
    pub fn new(cfg: &SenderConfig, cc: Cc, restart: restart::Part, iss: u64) -> Self {
        let first = iss + 1;
        let rate = cc.wants_rate_samples().then(Box::default);
        Sender {
            mss: cfg.mss_bytes,
            snd_una: first,
            snd_nxt: first,
            snd_max: first,
            app_end: first,
            unlimited: false,
            closing: false,
            congestion: Congestion::new(cc, Window { cwnd: cfg.initial_window_segments as u64 * cfg.mss_bytes, ssthresh: cfg.initial_ssthresh_bytes }),
            restart,
            max_window: cfg.max_window_bytes,
            peer_window: u64::MAX,
            queue: SendQueue::default(),
            rec: Recovery::new(cfg.recovery, cfg.dupthresh, cfg.sack_pipe, cfg.prr, cfg.limited_transmit),
            resent_in_recovery: 0,
            retransmit_first_pending: false,
            retransmit_first_requested: false,
            loss_window: cfg.loss_window,
            rto_in_recovery: cfg.rto_in_recovery,
            nagle: cfg.nagle,
            rack_tlp: (cfg.rack_tlp && cfg.recovery == RecoveryKind::Sack).then(Box::default),
            probe_due: false,
            rto_samples: cfg.rto_samples,
            max_flight: cfg.rate_limited_increase.then_some(cfg.initial_window_segments as u64 * cfg.mss_bytes),
            last_send: Time::MAX,
            app_limited: false,
            growth_held: false,
            rate,
            stats: SenderStats::default(),
        }
    }

    // ---- getters ----
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn window(&self) -> Window {
        self.congestion.window()
    }
    pub fn mss(&self) -> u64 {
        self.mss
    }
    /// RFC 5681 FlightSize: sent and not yet cumulatively acknowledged.
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    pub fn outstanding(&self) -> bool {
        self.snd_max > self.snd_una
    }
    /// The application has written payload that was never sent.
    pub fn has_unsent_data(&self) -> bool {
        self.unlimited || self.snd_max < self.app_end
    }
    pub fn in_recovery(&self) -> bool {
        self.rec.in_recovery()
    }
    /// The window an ensemble assigned (`Endpoint::share_window`).
    pub fn set_shared_cwnd(&mut self, cwnd: u64) {
        self.congestion.set_by_share(cwnd, self.mss);
    }
    pub fn stats(&self) -> SenderStats {
        self.stats
    }
    pub fn last_send(&self) -> Option<Time> {
        (self.last_send != Time::MAX).then_some(self.last_send)
    }
    /// See `cc::AckCtx::app_limited`.
    pub fn app_limited(&self) -> bool {
        self.app_limited
    }
    pub fn congestion(&self) -> &Congestion {
        &self.congestion
    }
    /// End (sequence number after it) of the first unacknowledged segment, if any.
    pub fn first_unacked_end(&self) -> Option<u64> {
        self.queue.get(self.snd_una).map(|s| s.seq_end())
    }
    /// A segment ending at `seq_end` ends what the application has written so far.
    pub fn ends_write(&self, seq_end: u64) -> bool {
        !self.unlimited && seq_end == self.app_end
    }
    /// All written data and, if the application closed, the FIN are acknowledged.
    pub fn all_acked(&self) -> bool {
        !self.unlimited && self.snd_una >= self.app_end + self.closing as u64
    }
    /// The application closed: a FIN follows the last written byte.
    pub fn is_closing(&self) -> bool {
        self.closing
    }
    /// Our FIN is acknowledged.
    pub fn fin_acked(&self) -> bool {
        self.closing && self.all_acked()
    }
    /// Payload bytes acknowledged so far (without the FIN's sequence number).
    pub fn bytes_acked(&self, iss: u64) -> u64 {
        let acked = self.snd_una - iss - 1;
        if self.unlimited {
            acked
        } else {
            acked.min(self.app_end - iss - 1)
        }
    }

    /// See `Endpoint::seed_random`.
    pub fn seed_random(&mut self, seed: u64) {
        self.congestion.seed_random(seed);
    }

    // ---- application commands ----
    pub fn write(&mut self, bytes: u64) {
        debug_assert!(!self.closing, "write after close");
        self.app_end += bytes;
    }
    pub fn write_unlimited(&mut self) {
        self.unlimited = true;
    }
    pub fn close(&mut self) {
        self.closing = true;
    }
    pub fn set_peer_window(&mut self, bytes: u64) {
        self.peer_window = bytes;
    }
    /// The handshake found that the peer will send no SACK blocks.
    pub fn on_peer_without_sack(&mut self) {
        self.rec.without_sack();
        // RFC 8985 needs SACK.
        self.rack_tlp = None;
    }

    // ---- input ----
    /// Process the acknowledgement fields of an incoming segment. `pure` is true when the
    /// segment carries no data, SYN or FIN (only such an ACK can be a duplicate ACK). Made
    /// twice as `Endpoint::handle_segment` is: `PLAIN` for a config that `is_plain()`, whose
    /// sender has neither rate samples nor RACK-TLP (both `PartInfo::per_segment`), without
    /// their tests. Always inlined: most segments a data receiver gets acknowledge nothing
    /// new, and neither of the endpoint's makes should pay a call to find that out; with two
    /// callers the compiler's heuristics keep it out of line.
    #[inline(always)]
    pub fn on_ack<const PLAIN: bool>(
        &mut self,
        now: Time,
        ack: u64,
        sack: impl IntoIterator<Item = SeqRange> + Clone,
        pure: bool,
        measure: &mut Measure,
    ) -> AckResult {
        debug_assert!(!PLAIN || (self.rate.is_none() && self.rack_tlp.is_none()), "the plain make for a sender with per-segment parts");
        if ack > self.snd_max {
            // Acknowledges data never sent: ignore it (RFC 793 §3.9, "SEG.ACK > SND.NXT").
            return AckResult::default();
        }
        let sampled = if !PLAIN && self.rate.is_some() { self.sample_ack(now, ack, sack.clone(), measure) } else { None };
        let rate = sampled.as_ref();
        if !PLAIN && self.rack_tlp.is_some() {
            return self.on_ack_with_rack_tlp(now, ack, sack, pure, measure, rate);
        }
        self.rec.on_sack(&mut self.queue, sack);
        if ack > self.snd_una {
            return self.on_new_ack(now, ack, measure, rate);
        }
        if ack == self.snd_una && pure && self.outstanding() {
            self.on_dupack(now);
        }
        if let Some(rs) = rate {
            self.on_delivered_without_new_ack(now, ack, measure, rs);
        }
        AckResult::default()
    }

    /// The cumulative ACK advanced to `ack`. Always inlined into both ACK paths (`on_ack`
    /// and the RACK-TLP one): it runs at every new ACK, where a call is a share of the
    /// benchmark's work worth saving (docs/performance.md, "Figures behind the comments").
    #[inline(always)]
    fn on_new_ack(&mut self, now: Time, ack: u64, measure: &mut Measure, rate: Option<&RateSample>) -> AckResult {
        let acked = self.queue.on_cumulative_ack(ack, now);
        let rtt_sample = acked.rtt_sample;
        if let Some(rtt) = rtt_sample {
            if self.rto_samples {
                measure.on_rtt_sample(rtt);
            } else {
                measure.on_rtt_observed(rtt);
            }
        }
        let acked_bytes = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        let rate_epoch = measure.on_ack(now, ack, acked_bytes, self.snd_nxt);
        let counted;
        let rate = match rate {
            Some(rs) => {
                counted = self.loss_aware(rs);
                Some(&counted)
            }
            None => None,
        };
        let ctx = AckCtx {
            now,
            mss: self.mss,
            acked_bytes,
            rtt_sample,
            app_limited: self.app_limited,
            measure,
            rate_epoch,
            ack,
            snd_nxt: self.snd_nxt,
            rate,
            // An ACK outside recovery (`NewAck::Outside`) or the one that ends it; a partial
            // ACK's context says otherwise below.
            in_recovery: false,
        };
        let validation = self.restart.on_ack(self.congestion.window(), &ctx);
        let restart_rto = match self.rec.on_new_ack(ack, acked_bytes, self.mss) {
            NewAck::Outside => {
                match validation {
                    // A controller that sets its window from its model reads every ACK.
                    Validation::Grow if self.growth_held && !self.congestion.sets_window_in_recovery() => {}
                    Validation::Grow => self.congestion.on_ack(&ctx, self.max_flight),
                    Validation::Hold => {}
                    Validation::Set(w) => self.congestion.set_by_restart(w),
                }
                true
            }
            NewAck::End => {
                self.recovery_ended(now);
                if rate.is_some() && self.congestion.sets_window_in_recovery() {
                    // The controller sets the window after recovery itself.
                    self.congestion.on_ack_in_recovery(&ctx);
                }
                true
            }
            NewAck::Partial(d) => {
                if let Some(change) = d.window {
                    self.congestion.on_recovery_ack(change, self.mss);
                }
                if rate.is_some() && self.congestion.sets_window_in_recovery() {
                    self.congestion.on_ack_in_recovery(&AckCtx { in_recovery: true, ..ctx });
                }
                self.retransmit_first_pending |= d.retransmit_first;
                d.restart_rto
            }
        };
        AckResult { new_data: true, restart_rto, rtt_sample }
    }

    fn on_dupack(&mut self, now: Time) {
        match self.rec.on_dupack(&self.queue, self.snd_una, self.mss) {
            DupAck::Nothing => {}
            DupAck::Window(change) => self.congestion.on_recovery_ack(change, self.mss),
            DupAck::LossDetected => self.enter_recovery(now),
        }
    }

    /// A loss is detected outside recovery (duplicate ACKs or RACK): report the congestion
    /// event, enter recovery and resend the first unacknowledged segment.
    fn enter_recovery(&mut self, now: Time) {
        // RFC 5681 §3.2 step 2: "When [RFC3042] is in use, additional data sent in limited
        // transmit MUST NOT be included in this calculation" (cwnd never includes it).
        let limited = if self.loss_window == LossWindow::FlightSize { self.rec.limited_transmit_bytes() } else { 0 };
        let loss_window = self.loss_window().saturating_sub(limited);
        let flight = self.flight();
        let inflation_bytes = self.rec.enter(&mut self.queue, self.snd_max, flight, self.mss);
        self.resent_in_recovery = 0;
        self.congestion_event(now, CongestionKind::FastRetransmit { inflation_bytes }, loss_window, flight);
        if let Some(rt) = &mut self.rack_tlp {
            // The recovery answers for the loss a probe in flight would reveal.
            rt.on_recovery();
        }
        // RFC 5681 §3.2 step 2 / RFC 6675 §5 step 4.3: the fast retransmit of the first
        // unacknowledged segment goes out at once; for SACK it does not wait for pipe < cwnd.
        self.retransmit_first_pending = true;
        self.stats.fast_retransmits += 1;
    }

    /// A congestion event with `flight_bytes` outstanding when the loss was found (what
    /// new-CWV's (D − R)/2 calls D).
    fn congestion_event(&mut self, now: Time, kind: CongestionKind, loss_window_bytes: u64, flight_bytes: u64) {
        let ev = CongestionEvent { now, kind, mss: self.mss, loss_window_bytes, flight_bytes, lost_sent_at: self.queue.get(self.snd_una).map(|s| s.sent_at) };
        self.congestion.on_congestion_event(&ev);
        // draft-ietf-ccwg-ratelimited-increase §3: a reduction resets maxFS.
        if let Some(m) = &mut self.max_flight {
            *m = 0;
        }
        if let Some(w) = self.restart.on_congestion_event(self.congestion.window(), &ev) {
            self.congestion.set_by_restart(w);
        }
    }

    /// Whether the next ACK may grow the window: not in the round after a reduction for an
    /// echoed mark (`ecn::EcnState::holds_growth`).
    pub fn hold_growth(&mut self, held: bool) {
        self.growth_held = held;
    }

    /// RFC 3168 §6.1.2: an ACK echoed a congestion mark and `ecn::EcnState::on_ece` allows
    /// a reduction: the window is reduced as for a loss, without retransmitting.
    pub fn on_ecn_echo(&mut self, now: Time) {
        self.congestion_event(now, CongestionKind::Ecn, self.loss_window(), self.flight());
        self.stats.ecn_reductions += 1;
    }

    /// Fast recovery is over: cwnd back at ssthresh, and the restart policy's say.
    pub(super) fn recovery_ended(&mut self, now: Time) {
        self.congestion.on_recovery_end(now);
        if let Some(w) = self.restart.on_recovery_end(self.congestion.window(), self.resent_in_recovery) {
            self.congestion.set_by_restart(w);
        }
    }

    /// The retransmission timer expired with data outstanding. `repeated` is true when the
    /// same data already timed out (the timer is backed off).
    pub fn on_rto(&mut self, now: Time, repeated: bool, measure: &mut Measure) {
        // RFC 5681 §3.1 eq. (4); on a repeated timeout ssthresh stays as it is.
        let keep = self.rec.in_recovery() && self.rto_in_recovery == RtoInRecovery::KeepSsthresh;
        if !repeated && !keep {
            self.congestion_event(now, CongestionKind::Rto, self.loss_window(), self.flight());
        }
        // RFC 5681 §3.1: the loss window is one segment; go back N from snd_una.
        self.congestion.on_rto(now, self.mss);
        self.restart.on_rto();
        self.snd_nxt = self.snd_una;
        // The rate epoch in progress ends at a sequence number that go-back-N reaches only
        // after resending everything outstanding (see `Measure::on_timeout`).
        measure.on_timeout();
        self.rec.on_rto(&mut self.queue, self.snd_max);
        if let Some(r) = &mut self.rate {
            r.on_rto();
        }
        if let Some(rt) = &mut self.rack_tlp {
            rt.on_rto();
        }
        self.probe_due = false;
        self.retransmit_first_pending = false;
        self.stats.timeouts += 1;
    }

    /// The window that a loss halves (see `LossWindow`). In fast recovery the uninflated
    /// window is ssthresh: Reno/NewReno set cwnd to ssthresh plus the inflation (RFC 5681
    /// §3.2 step 4), SACK recovery to ssthresh (RFC 6675 §5 step 4.2).
    fn loss_window(&self) -> u64 {
        match self.loss_window {
            LossWindow::FlightSize => self.flight(),
            LossWindow::Cwnd => {
                let w = self.congestion.window();
                let cwnd = if self.rec.in_recovery() { w.ssthresh } else { w.cwnd };
                cwnd.min(self.max_window)
            }
        }
    }

    /// The application has data after an idle (see `RestartPolicy::on_idle_end`).
    pub fn on_idle_end(&mut self, now: Time, ctx: &RestartCtx) -> Option<Plan> {
        self.stats.idle_restarts += 1;
        let d = self.restart.on_idle_end(self.congestion.window(), ctx);
        if let Some(m) = self.max_flight.as_mut().filter(|_| d.window.cwnd < self.congestion.cwnd()) {
            *m = 0;
        }
        self.congestion.on_idle_end(now, ctx.idle, d.window);
        d.pace
    }

    /// Resend the first unacknowledged segment at the next `poll`, outside the window as a
    /// fast retransmit goes, without touching the window or the recovery state (Preemptive
    /// Retransmission, paper 002 §5 step 4).
    pub fn request_retransmit_first(&mut self) {
        self.retransmit_first_requested = true;
    }

    /// The parameters an earlier connection to the same peer saved (`RestartPolicy::resume`).
    pub fn resume(&mut self, saved: SavedPath, now: Time) {
        self.restart.resume(saved, now);
    }

    /// What this connection saves for a later one (`RestartPolicy::saved_path`).
    pub fn saved_path(&self, now: Time, measure: &Measure) -> Option<SavedPath> {
        self.restart.saved_path(now, measure)
    }

    /// See `RestartPolicy::pacing_interval`.
    pub fn restart_pacing(&self) -> Option<Duration> {
        self.restart.pacing_interval()
    }

    pub fn restart_metrics(&self) -> RestartMetrics {
        self.restart.metrics()
    }

    /// The first ACK after a paced restart, before `on_ack` (see `RestartPolicy::on_pacing_end`).
    pub fn on_first_ack_after_pacing(&mut self) {
        let w = self.restart.on_pacing_end(self.congestion.window(), self.flight(), self.mss);
        self.congestion.set_by_restart(w);
    }

    // ---- output ----
    /// The next data segment to send now, if the window and the data allow one. Made twice
    /// as `on_ack` is (`PLAIN`: no rate samples to take per segment). Inlined into
    /// `Endpoint::poll_transmit`, which calls it several times per packet, mostly to learn
    /// that nothing can go; always, as `on_ack` is.
    #[inline(always)]
    pub fn poll<const PLAIN: bool>(&mut self, now: Time) -> Option<TxData> {
        // What a timer of a mechanism outside the window asked for: tested together, as both
        // are rare and this runs several times per packet.
        if self.probe_due | self.retransmit_first_requested {
            if let Some(tx) = self.poll_requested(now) {
                return Some(tx);
            }
        }
        if self.retransmit_first_pending {
            self.retransmit_first_pending = false;
            if let Some(tx) = self.retransmit(self.snd_una, now) {
                return Some(tx);
            }
        }
        // `in_recovery` first: nearly always false, it ends the test at once.
        if self.rec.in_recovery() {
            if let Some(tx) = self.poll_recovery(now) {
                return tx;
            }
        }
        if self.snd_nxt < self.snd_max {
            // Go-back-N after a timeout: resend the old segments in order.
            let next = recovery::next_unsacked_from(&self.queue, self.snd_nxt).map(|s| (s.seq, s.len as u64));
            match next {
                Some((seq, len)) if seq < self.snd_max => {
                    if seq - self.snd_una + len > self.usable_window() {
                        return None;
                    }
                    let tx = self.retransmit(seq, now)?;
                    self.snd_nxt = seq + len + tx.fin as u64;
                    return Some(tx);
                }
                _ => self.snd_nxt = self.snd_max,
            }
        }
        // The window is worked out only when there is new data for it: a receiver that
        // sends none asks here after every ACK it sends.
        let Some((len, fin)) = self.next_new_segment() else {
            self.app_limited = self.flight() < self.congestion.cwnd();
            return None;
        };
        self.send_new::<PLAIN>(now, len, fin, self.usable_window())
    }

    /// The tail loss probe (RFC 8985 §7.3) or a retransmission of the first unacknowledged
    /// segment that Preemptive Retransmission asked for (paper 002 §5 step 4).
    #[cold]
    fn poll_requested(&mut self, now: Time) -> Option<TxData> {
        if self.probe_due {
            return self.poll_probe(now);
        }
        self.retransmit_first_requested = false;
        // One copy serves a fast or partial-ACK retransmission due at the same moment.
        self.retransmit_first_pending = false;
        let tx = self.retransmit(self.snd_una, now)?;
        if self.snd_nxt == self.snd_una && self.snd_nxt < self.snd_max {
            // Go-back-N was about to resend this segment: it has now gone.
            self.snd_nxt = tx.seq + tx.len as u64 + tx.fin as u64;
        }
        Some(tx)
    }

    /// What the recovery part sends in recovery (SACK's NextSeg()); `None` when it leaves
    /// the choice to the window, as Reno and NewReno do.
    fn poll_recovery(&mut self, now: Time) -> Option<Option<TxData>> {
        let ctx = SendCtx { queue: &self.queue, snd_una: self.snd_una, cwnd: self.congestion.cwnd().min(self.max_window), mss: self.mss };
        let tx = match self.rec.next_send(&ctx) {
            NextSend::Window => return None,
            NextSend::Hold => None,
            NextSend::Retransmit(seq) => self.retransmit(seq, now),
            NextSend::NewData => self.next_new_segment().and_then(|(len, fin)| self.send_new::<false>(now, len, fin, u64::MAX)),
        };
        if tx.is_some() {
            self.rec.on_sent_in_recovery(self.mss);
        }
        Some(tx)
    }

    /// What the window allows in flight: cwnd plus limited transmit, capped by the window
    /// limit and the peer's window.
    pub fn usable_window(&self) -> u64 {
        let lt = self.rec.limited_transmit_allowance(self.mss);
        (self.congestion.cwnd() + lt).min(self.max_window).min(self.peer_window)
    }

    fn retransmit(&mut self, seq: u64, now: Time) -> Option<TxData> {
        let in_rec = self.rec.in_recovery();
        let s = self.queue.mark_retransmitted(seq, now, in_rec)?;
        if in_rec {
            self.resent_in_recovery += s.len as u64;
        }
        self.on_sent::<false>(now, s.seq, s.len as u64, s.fin, true);
        self.stats.retransmits += 1;
        Some(TxData { seq: s.seq, len: s.len, fin: s.fin, retransmission: true, probe: false })
    }

    /// A segment of `len` payload bytes went out (snd_max counts it): the parts hear of it,
    /// the counters count it. Always inlined into its two callers: once per segment.
    #[inline(always)]
    fn on_sent<const PLAIN: bool>(&mut self, now: Time, seq: u64, len: u64, fin: bool, retransmission: bool) {
        let flight_bytes = self.flight();
        let quiet = if flight_bytes <= len { self.last_send().map(|t| now.since(t)) } else { None };
        if !PLAIN && self.rate.is_some() {
            let tx_start = flight_bytes <= len && !retransmission;
            self.sample_sent(now, seq, seq + len + fin as u64, retransmission, tx_start);
        }
        self.congestion.on_sent(now, len, quiet);
        let sent = SentCtx { now, flight_bytes, window: self.congestion.window() };
        if let Some(m) = &mut self.max_flight {
            *m = (*m).max(sent.flight_bytes);
        }
        if let Some(w) = self.restart.on_sent(&sent) {
            self.congestion.set_by_restart(w);
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        self.last_send = now;
    }

    /// The payload length of the next new segment and whether the FIN rides on it, if the
    /// application has anything left to send. Inlined into `poll`, like it.
    #[inline]
    fn next_new_segment(&self) -> Option<(u64, bool)> {
        debug_assert_eq!(self.snd_nxt, self.snd_max);
        if !self.unlimited && self.snd_nxt > self.app_end {
            return None; // the FIN is out
        }
        let available = if self.unlimited { u64::MAX } else { self.app_end - self.snd_nxt };
        let len = available.min(self.mss);
        // The FIN rides on the segment that carries the last written byte.
        let fin = !self.unlimited && self.closing && len == available;
        if len == 0 && !fin {
            return None;
        }
        Some((len, fin))
    }

    /// Send the new segment of `next_new_segment` if the window `wnd` allows it. Always
    /// inlined into `poll`, like it: it runs for every new segment, and with the probe as a
    /// second caller of `push_new` the compiler's heuristics keep it out of line
    /// (docs/performance.md, "Figures behind the comments").
    #[inline(always)]
    fn send_new<const PLAIN: bool>(&mut self, now: Time, len: u64, fin: bool, wnd: u64) -> Option<TxData> {
        let in_flight = self.snd_nxt - self.snd_una;
        if self.nagle && len > 0 && len < self.mss && in_flight > 0 {
            // Nagle: the short segment goes when all sent is acknowledged (BSD's tcp_output
            // and ns-2's FullTcp send it also when it is half the peer's largest window,
            // which no MSS-sized segment is short of in practice; not modelled).
            return None;
        }
        if in_flight + len > wnd.min(self.peer_window) && !(len == 0 && in_flight < wnd) {
            self.app_limited = false;
            return None;
        }
        if !self.rec.in_recovery() && in_flight + len > self.congestion.cwnd() {
            // Only the limited-transmit allowance of `usable_window` let it go.
            self.rec.on_limited_transmit(len);
        }
        Some(self.push_new::<PLAIN>(now, len, fin))
    }

    /// A new segment of `len` bytes (and the FIN, if `fin`) goes out now.
    #[inline(always)]
    fn push_new<const PLAIN: bool>(&mut self, now: Time, len: u64, fin: bool) -> TxData {
        let seq = self.snd_nxt;
        self.queue.push_new(seq, len as u32, fin, now);
        self.snd_nxt += len + fin as u64;
        self.snd_max = self.snd_nxt;
        self.on_sent::<PLAIN>(now, seq, len, fin, false);
        TxData { seq, len: len as u32, fin, retransmission: false, probe: false }
    }
}

#[cfg(test)]
mod tests;
