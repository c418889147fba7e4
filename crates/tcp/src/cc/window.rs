//! The congestion window and the one place that writes it. `Congestion` keeps cwnd and
//! ssthresh, applies the rules that every algorithm shares (RFC 5681 §3.1 and §3.2,
//! RFC 6582, RFC 6675) as recovery and restart report events, and calls the algorithm's
//! hooks (`CongestionControl`) for what is its own.

use super::{AckCtx, Cc, CongestionControl};
use crate::time::{Duration, Time};

/// The sender's window state in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
}

/// What kind of congestion signal a `CongestionEvent` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Duplicate ACKs or the SACK scoreboard said a segment was lost (RFC 5681 §3.2,
    /// RFC 6675 §5): fast retransmit and recovery begin, and cwnd becomes ssthresh plus
    /// `inflation_bytes` (the segments that left the network: RFC 5681 step 4; zero for
    /// SACK, RFC 6675 step 4.2, whose pipe does that accounting).
    FastRetransmit { inflation_bytes: u64 },
    /// The retransmission timer expired on data that had not timed out before (RFC 5681
    /// §3.1); `Congestion::on_rto` then sets cwnd to one segment.
    Rto,
    /// An ACK echoed a router's Congestion Experienced mark (RFC 3168 §6.1.2): cwnd and
    /// ssthresh are reduced as for a loss, with nothing to retransmit and no recovery.
    Ecn,
}

/// What a controller may read at a congestion event.
#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    pub now: Time,
    pub kind: CongestionKind,
    pub mss: u64,
    /// The window a loss halves (the sender's `LossWindow` reading, less what limited
    /// transmit sent): FlightSize, as RFC 5681 eq. (4) writes it, or the uninflated cwnd.
    pub loss_window_bytes: u64,
    /// RFC 5681 FlightSize at the event.
    pub flight_bytes: u64,
    /// When the first unacknowledged segment (the one deemed lost) was last sent.
    pub lost_sent_at: Option<Time>,
}

/// How loss recovery changes the window while it runs (its decisions; `Congestion` applies them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryWindow {
    /// RFC 5681 §3.2 step 5: a further duplicate ACK means a segment left: cwnd += SMSS.
    Inflate,
    /// RFC 6582 §3.2 step 5: a partial ACK deflates the window by the bytes it acknowledged
    /// and adds back one SMSS if it acknowledged at least one.
    Deflate { acked_bytes: u64 },
}

/// When and at what window a connection first left slow start (`Congestion::slow_start_exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlowStartExit {
    pub at: Time,
    pub cwnd_bytes: u64,
}

/// The window and the algorithm that moves it.
#[derive(Clone, Debug)]
pub struct Congestion {
    w: Window,
    cc: Cc,
    slow_start_exit: Option<SlowStartExit>,
}

impl Congestion {
    pub fn new(cc: Cc, initial: Window) -> Self {
        Congestion { w: initial, cc, slow_start_exit: None }
    }

    /// See `CongestionControl::sets_window_in_recovery`.
    pub fn sets_window_in_recovery(&self) -> bool {
        self.cc.sets_window_in_recovery()
    }

    pub fn window(&self) -> Window {
        self.w
    }
    pub fn cwnd(&self) -> u64 {
        self.w.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
    /// The phase or startup mode a trace shows (`CongestionControl::mode_name`).
    pub fn mode_name(&self) -> &'static str {
        self.cc.mode_name(&self.w)
    }

    /// The first time the connection left slow start, and cwnd then; None while it has not.
    /// It leaves at the first of: an ACK after which the startup says the window is out of
    /// slow start (`Startup::in_slow_start`: RFC 5681 §3.1's cwnd ≥ ssthresh, or the
    /// startup's own exit), with cwnd as that ACK left it; or a congestion event (a fast
    /// retransmit, the first timeout of the data, a probe that repaired a loss), with cwnd
    /// as the loss found it, before the response. A timeout that is no new event follows one.
    pub fn slow_start_exit(&self) -> Option<SlowStartExit> {
        self.slow_start_exit
    }

    /// New data was acknowledged outside loss recovery and the restart policy lets the
    /// window grow: the algorithm grows it, bounded by the rate-limited increase rule when
    /// `max_fs` (maxFS) is given, and the first exit from slow start is noted.
    #[inline]
    pub fn on_ack(&mut self, ctx: &AckCtx, max_fs: Option<u64>) {
        let before = self.w.cwnd;
        self.cc.on_ack(&mut self.w, ctx);
        if let Some(max_fs) = max_fs {
            self.limit_increase(before, max_fs, ctx.mss);
        }
        // One test per ACK once the exit is known.
        if self.slow_start_exit.is_none() && !self.cc.in_slow_start(&self.w) {
            self.note_slow_start_exit(ctx.now);
        }
    }

    fn note_slow_start_exit(&mut self, now: Time) {
        self.slow_start_exit.get_or_insert(SlowStartExit { at: now, cwnd_bytes: self.w.cwnd });
    }

    /// A congestion event: the algorithm sets ssthresh; a fast retransmit also sets cwnd.
    pub fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        // RFC 5681 §3.1-3.2: a loss ends slow start whatever the window.
        self.note_slow_start_exit(ev.now);
        self.w.ssthresh = self.cc.on_congestion_event(&self.w, ev);
        if self.cc.sets_window_in_recovery() && ev.kind != CongestionKind::Rto {
            // The controller sets cwnd on the ACKs that follow (Linux's `cong_control`).
            return;
        }
        match ev.kind {
            CongestionKind::FastRetransmit { inflation_bytes } => self.w.cwnd = self.w.ssthresh + inflation_bytes,
            // RFC 3168 §6.1.2: cwnd halves with ssthresh (to the controller's ssthresh).
            CongestionKind::Ecn => self.w.cwnd = self.w.cwnd.min(self.w.ssthresh),
            CongestionKind::Rto => {}
        }
    }

    /// A window change that recovery decided on an ACK during recovery.
    pub fn on_recovery_ack(&mut self, change: RecoveryWindow, mss: u64) {
        if self.cc.sets_window_in_recovery() {
            return;
        }
        self.w.cwnd = match change {
            RecoveryWindow::Inflate => self.w.cwnd + mss,
            RecoveryWindow::Deflate { acked_bytes } => {
                let add_back = if acked_bytes >= mss { mss } else { 0 };
                (self.w.cwnd.saturating_sub(acked_bytes) + add_back).max(mss)
            }
        };
    }

    /// RFC 5681 §3.2 step 6 / RFC 6582 §3.2 step 6 option 2 (as ns-2): recovery is over;
    /// deflate the window to ssthresh.
    pub fn on_recovery_end(&mut self, now: Time) {
        if !self.cc.sets_window_in_recovery() {
            self.w.cwnd = self.w.ssthresh;
        }
        self.cc.on_recovery_end(now);
    }

    /// RFC 5681 §3.1: after a timeout the loss window is one segment (ssthresh, if this
    /// timeout is a congestion event, was set by `on_congestion_event` first).
    pub fn on_rto(&mut self, now: Time, mss: u64) {
        self.w.cwnd = mss;
        self.cc.on_rto(now);
    }

    /// The application has data after an idle: the restart policy's window (its decision,
    /// computed from `window()`) takes effect, then the algorithm hears of the idle.
    pub fn on_idle_end(&mut self, now: Time, idle: Duration, restart: Window) {
        self.w = restart;
        self.cc.on_idle_end(now, idle);
    }

    /// The rate-limited increase rule (draft-ietf-ccwg-ratelimited-increase §3) after an
    /// ACK grew cwnd from `before`: cwnd ≤ 2·maxFS in slow start, ≤ maxFS + SMSS in
    /// congestion avoidance; a window already above the limit is not cut, only held.
    pub fn limit_increase(&mut self, before: u64, max_fs: u64, mss: u64) {
        let limit = if before < self.w.ssthresh { 2 * max_fs } else { max_fs + mss };
        self.w.cwnd = self.w.cwnd.min(limit.max(before));
    }

    /// A window the restart policy decided outside an idle's end: a paced restart's
    /// hand-back at its first ACK, or a window-validation part's change (RFC 2861's decay,
    /// new-CWV's responses).
    pub fn set_by_restart(&mut self, w: Window) {
        self.w = w;
    }

    /// A window an ensemble assigned this connection as its share of the group's sum
    /// (RFC 9040 §7, RFC 8699 §5.3: the sharer decides, this applies it); ssthresh stays
    /// the connection's own. At least one segment.
    pub fn set_by_share(&mut self, cwnd: u64, mss: u64) {
        self.w.cwnd = cwnd.max(mss);
    }

    /// See `CongestionControl::seed_random`.
    pub fn seed_random(&mut self, seed: u64) {
        self.cc.seed_random(seed);
    }

    /// An ACK during recovery, for a controller that `sets_window_in_recovery`.
    pub fn on_ack_in_recovery(&mut self, ctx: &AckCtx) {
        self.cc.on_ack(&mut self.w, ctx);
    }

    /// A data segment went out with nothing in flight (`CongestionControl::on_tx_start`).
    pub fn on_tx_start(&mut self, now: Time, app_limited: bool) {
        self.cc.on_tx_start(&mut self.w, now, app_limited);
    }

    /// A data segment went out.
    #[inline]
    pub fn on_sent(&mut self, now: Time, bytes: u64, quiet: Option<Duration>) {
        self.cc.on_sent(now, bytes, quiet);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Avoidance, HyStartPlusPlus, NewReno, Ssthreshless, SsthreshlessConfig, StartupPart};
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::{ack_ctx, ms};

    const MSS: u64 = 1000;

    fn congestion() -> Congestion {
        Congestion::new(Cc::slow_start(Avoidance::NewReno(NewReno::new(false))), Window { cwnd: 20 * MSS, ssthresh: u64::MAX })
    }

    fn event(kind: CongestionKind, loss_window_bytes: u64) -> CongestionEvent {
        CongestionEvent { now: Time::ZERO, kind, mss: MSS, loss_window_bytes, flight_bytes: loss_window_bytes, lost_sent_at: None }
    }

    /// A loss found with the whole window in flight, at `now`.
    fn loss(c: &mut Congestion, kind: CongestionKind, now: Time) {
        let flight = c.cwnd();
        c.on_congestion_event(&CongestionEvent { now, ..event(kind, flight) });
    }

    #[test]
    fn fast_retransmit_halves_the_loss_window_and_inflates_by_the_segments_that_left() {
        // RFC 5681 eq. (4) and §3.2 step 4.
        let mut c = congestion();
        c.on_congestion_event(&event(CongestionKind::FastRetransmit { inflation_bytes: 3 * MSS }, 20 * MSS));
        assert_eq!(c.window(), Window { cwnd: 13 * MSS, ssthresh: 10 * MSS });
        c.on_recovery_ack(RecoveryWindow::Inflate, MSS);
        assert_eq!(c.cwnd(), 14 * MSS);
    }

    #[test]
    fn partial_ack_deflates_and_adds_back_one_segment_full_ack_deflates_to_ssthresh() {
        // RFC 6582 §3.2 steps 5 and 6.
        let mut c = congestion();
        c.on_congestion_event(&event(CongestionKind::FastRetransmit { inflation_bytes: 3 * MSS }, 20 * MSS));
        c.on_recovery_ack(RecoveryWindow::Deflate { acked_bytes: 5 * MSS }, MSS);
        assert_eq!(c.cwnd(), 13 * MSS - 5 * MSS + MSS);
        c.on_recovery_ack(RecoveryWindow::Deflate { acked_bytes: MSS / 2 }, MSS);
        assert_eq!(c.cwnd(), 9 * MSS - MSS / 2, "less than one segment acknowledged: nothing added back");
        c.on_recovery_end(Time::ZERO);
        assert_eq!(c.cwnd(), 10 * MSS);
    }

    #[test]
    fn ssthresh_floor_is_two_segments_and_a_timeout_leaves_one_segment() {
        // RFC 5681 eq. (4) floor, §3.1 loss window.
        let mut c = congestion();
        c.on_congestion_event(&event(CongestionKind::Rto, 3 * MSS));
        c.on_rto(Time::ZERO, MSS);
        assert_eq!(c.window(), Window { cwnd: MSS, ssthresh: 2 * MSS });
    }

    /// A `Congestion` fed one ACK of one segment per millisecond, each with an RTT sample,
    /// the window refilled at once (snd_nxt = snd_una + cwnd) so that rounds are whole windows.
    struct Acks {
        c: Congestion,
        m: Measure,
        now: Time,
        una: u64,
        nxt: u64,
    }

    impl Acks {
        fn new(startup: StartupPart, w: Window) -> Self {
            let c = Congestion::new(Cc::new(startup, Avoidance::NewReno(NewReno::new(false))), w);
            Acks { c, m: Measure::new(RtoConfig::default()), now: Time::ZERO, una: 0, nxt: w.cwnd }
        }

        fn ack(&mut self, rtt_ms: u64, max_fs: Option<u64>) {
            self.now += ms(1);
            self.una += MSS;
            self.m.on_rtt_sample(ms(rtt_ms));
            let ctx = AckCtx { rtt_sample: Some(ms(rtt_ms)), ack: self.una, snd_nxt: self.nxt, ..ack_ctx(self.now, MSS, &self.m) };
            self.c.on_ack(&ctx, max_fs);
            self.nxt = self.una + self.c.cwnd();
        }

        fn round(&mut self, rtt_ms: u64) {
            for _ in 0..self.c.cwnd() / MSS {
                self.ack(rtt_ms, None);
            }
        }

        fn exit(&self) -> Option<SlowStartExit> {
            self.c.slow_start_exit()
        }
    }

    #[test]
    fn rfc_5681_3_1_slow_start_ends_at_the_ack_that_brings_cwnd_to_ssthresh() {
        let mut a = Acks::new(StartupPart::SlowStart(crate::cc::SlowStart), Window { cwnd: 10 * MSS, ssthresh: 15 * MSS });
        for _ in 0..4 {
            a.ack(100, None);
        }
        assert_eq!(a.c.cwnd(), 14 * MSS);
        assert_eq!(a.exit(), None, "cwnd < ssthresh: slow start");
        a.ack(100, None);
        assert_eq!(a.exit(), Some(SlowStartExit { at: Time(5_000_000), cwnd_bytes: 15 * MSS }), "cwnd = ssthresh: congestion avoidance");
        a.ack(100, None);
        loss(&mut a.c, CongestionKind::Rto, Time(9_000_000));
        assert_eq!(a.exit().unwrap().at, Time(5_000_000), "only the first exit counts");
    }

    #[test]
    fn rfc_5681_3_2_a_loss_in_slow_start_ends_it_with_the_window_it_found() {
        for kind in [CongestionKind::FastRetransmit { inflation_bytes: 3 * MSS }, CongestionKind::Rto] {
            let mut c = congestion();
            loss(&mut c, kind, Time(7));
            assert_eq!(c.slow_start_exit(), Some(SlowStartExit { at: Time(7), cwnd_bytes: 20 * MSS }), "{kind:?}: the window before the response");
        }
    }

    /// draft-ietf-ccwg-ratelimited-increase §3: a growth the rule takes back did not reach ssthresh.
    #[test]
    fn an_ack_whose_growth_the_rate_limited_increase_rule_holds_back_does_not_end_slow_start() {
        let mut a = Acks::new(StartupPart::SlowStart(crate::cc::SlowStart), Window { cwnd: 8 * MSS, ssthresh: 9 * MSS });
        a.ack(100, Some(4 * MSS));
        assert_eq!((a.c.cwnd(), a.exit()), (8 * MSS, None), "held at 2·maxFS = 8 segments");
        a.ack(100, None);
        assert_eq!(a.exit().map(|x| x.cwnd_bytes), Some(9 * MSS));
    }

    /// RFC 9406 §4.2: entering CSS is the exit, even when a lower RTT later resumes slow start.
    #[test]
    fn rfc_9406_4_2_hystart_plus_plus_leaves_slow_start_when_it_enters_css() {
        let mut a = Acks::new(StartupPart::HyStartPlusPlus(Box::new(HyStartPlusPlus::new())), Window { cwnd: 10 * MSS, ssthresh: u64::MAX });
        a.round(100);
        a.round(100);
        assert_eq!(a.exit(), None, "a steady RTT: slow start");
        // The next round's least RTT, 125 ms, reaches 100 ms + RttThresh (12.5 ms) at its
        // eighth sample: that ACK enters CSS.
        let (at, cwnd) = (a.now + ms(8), a.c.cwnd() + 8 * MSS);
        a.round(125);
        assert_eq!(a.exit(), Some(SlowStartExit { at, cwnd_bytes: cwnd }));
        a.round(110);
        assert_eq!(a.c.mode_name(), "slow_start", "the exit was spurious");
        assert_eq!(a.exit().map(|x| x.at), Some(at), "the first exit stands");
    }

    /// SSthreshless Start §IV-B: slow start ends when the backlog first exceeds γ, not at ssthresh.
    #[test]
    fn ssthreshless_start_leaves_slow_start_at_linear_increase_whatever_ssthresh_says() {
        let mut a = Acks::new(StartupPart::Ssthreshless(Ssthreshless::new(SsthreshlessConfig::default())), Window { cwnd: 10 * MSS, ssthresh: 5 * MSS });
        a.ack(100, None);
        a.ack(100, None);
        assert_eq!(a.exit(), None, "cwnd above ssthresh, but no backlog: slow start");
        // N = 12 segments × (130 − 100) / 130 ≈ 2.8 ≤ γ = 3; at 13 segments, 150 ms: N ≈ 4.3.
        a.ack(130, None);
        assert_eq!(a.exit(), None);
        a.ack(150, None);
        assert_eq!(a.exit().map(|x| x.at), Some(a.now));
        assert_eq!(a.c.mode_name(), "linear_increase");
    }
}
