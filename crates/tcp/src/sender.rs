//! The sending half: sequence variables (RFC 793 names) and the record of sent segments,
//! with the congestion window (`cc::Congestion`) and the loss-recovery machine
//! (`recovery::Recovery`) as parts. It reports ACKs and sends to the parts, applies their
//! decisions, and decides *what* to send next; the endpoint decides *when* (timers,
//! handshake) and builds the segment.

use crate::cc::{AckCtx, Cc, Congestion, CongestionEvent, CongestionKind, Window};
use crate::measure::Measure;
use crate::recovery::{self, DupAck, NewAck, NextSend, Recovery, RecoveryKind, SackPipe, SendCtx};
use crate::restart::{self, Plan, RestartCtx, RestartPolicy};
use crate::segment::SeqRange;
use crate::send_queue::SendQueue;
use crate::time::{Duration, Time};

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
    pub dupthresh: u32,
    /// RFC 3042: send one new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    pub loss_window: LossWindow,
    pub rto_in_recovery: RtoInRecovery,
    /// Nagle's algorithm (RFC 896; RFC 1122 §4.2.3.4): a segment shorter than the MSS waits
    /// while data is unacknowledged.
    pub nagle: bool,
}

/// One data segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxData {
    pub seq: u64,
    pub len: u32,
    pub fin: bool,
    pub retransmission: bool,
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
    /// Recovery decided that the first unacknowledged segment goes again now.
    retransmit_first_pending: bool,
    /// A mechanism outside recovery (Preemptive Retransmission) asked for the first
    /// unacknowledged segment to go again now.
    retransmit_first_requested: bool,
    loss_window: LossWindow,
    rto_in_recovery: RtoInRecovery,
    nagle: bool,
    last_send: Option<Time>,
    /// See `cc::AckCtx::app_limited`.
    app_limited: bool,
    stats: SenderStats,
}

impl Sender {
    /// `iss` is our initial sequence number; data starts at `iss + 1`.
    pub fn new(cfg: &SenderConfig, cc: Cc, restart: restart::Part, iss: u64) -> Self {
        let first = iss + 1;
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
            rec: Recovery::new(cfg.recovery, cfg.dupthresh, cfg.sack_pipe, cfg.limited_transmit),
            retransmit_first_pending: false,
            retransmit_first_requested: false,
            loss_window: cfg.loss_window,
            rto_in_recovery: cfg.rto_in_recovery,
            nagle: cfg.nagle,
            last_send: None,
            app_limited: false,
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
    pub fn stats(&self) -> SenderStats {
        self.stats
    }
    pub fn last_send(&self) -> Option<Time> {
        self.last_send
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
    }

    // ---- input ----
    /// Process the acknowledgement fields of an incoming segment. `pure` is true when the
    /// segment carries no data, SYN or FIN (only such an ACK can be a duplicate ACK).
    /// Inlined: most segments a data receiver gets acknowledge nothing new, and the caller
    /// should not pay a call for finding that out.
    #[inline]
    pub fn on_ack(&mut self, now: Time, ack: u64, sack: impl IntoIterator<Item = SeqRange>, pure: bool, measure: &mut Measure) -> AckResult {
        if ack > self.snd_max {
            // Acknowledges data never sent: ignore it (RFC 793 §3.9, "SEG.ACK > SND.NXT").
            return AckResult::default();
        }
        self.rec.on_sack(&mut self.queue, sack);
        if ack > self.snd_una {
            return self.on_new_ack(now, ack, measure);
        }
        if ack == self.snd_una && pure && self.outstanding() {
            self.on_dupack(now);
        }
        AckResult::default()
    }

    /// The cumulative ACK advanced to `ack`.
    fn on_new_ack(&mut self, now: Time, ack: u64, measure: &mut Measure) -> AckResult {
        let acked = self.queue.on_cumulative_ack(ack, now);
        if let Some(rtt) = acked.rtt_sample {
            measure.on_rtt_sample(rtt);
        }
        let acked_bytes = ack - self.snd_una;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        let rate_epoch = measure.on_ack(now, ack, acked_bytes, self.snd_nxt);
        let ctx = AckCtx { now, mss: self.mss, acked_bytes, rtt_sample: acked.rtt_sample, app_limited: self.app_limited, measure, rate_epoch };
        self.restart.on_ack(&ctx);
        let restart_rto = match self.rec.on_new_ack(ack, acked_bytes, self.mss) {
            NewAck::Outside => {
                self.congestion.on_ack(&ctx);
                true
            }
            NewAck::End => {
                self.congestion.on_recovery_end(now);
                self.restart.on_recovery_end();
                true
            }
            NewAck::Partial(d) => {
                if let Some(change) = d.window {
                    self.congestion.on_recovery_ack(change, self.mss);
                }
                self.retransmit_first_pending |= d.retransmit_first;
                d.restart_rto
            }
        };
        AckResult { new_data: true, restart_rto, rtt_sample: acked.rtt_sample }
    }

    fn on_dupack(&mut self, now: Time) {
        match self.rec.on_dupack(&self.queue, self.snd_una, self.mss) {
            DupAck::Nothing => {}
            DupAck::Window(change) => self.congestion.on_recovery_ack(change, self.mss),
            DupAck::LossDetected => {
                // RFC 5681 §3.2 step 2: "When [RFC3042] is in use, additional data sent in
                // limited transmit MUST NOT be included in this calculation" (cwnd never
                // includes it).
                let limited = if self.loss_window == LossWindow::FlightSize { self.rec.limited_transmit_bytes() } else { 0 };
                let loss_window = self.loss_window().saturating_sub(limited);
                let flight = self.flight();
                let inflation_bytes = self.rec.enter(&mut self.queue, self.snd_max, flight, self.mss);
                self.congestion_event(now, CongestionKind::FastRetransmit { inflation_bytes }, loss_window);
                // RFC 5681 §3.2 step 2 / RFC 6675 §5 step 4.3: the fast retransmit of the first
                // unacknowledged segment goes out at once; for SACK it does not wait for pipe < cwnd.
                self.retransmit_first_pending = true;
                self.stats.fast_retransmits += 1;
            }
        }
    }

    fn congestion_event(&mut self, now: Time, kind: CongestionKind, loss_window_bytes: u64) {
        let ev = CongestionEvent {
            now,
            kind,
            mss: self.mss,
            loss_window_bytes,
            flight_bytes: self.flight(),
            lost_sent_at: self.queue.get(self.snd_una).map(|s| s.sent_at),
        };
        self.congestion.on_congestion_event(&ev);
    }

    /// The retransmission timer expired with data outstanding. `repeated` is true when the
    /// same data already timed out (the timer is backed off).
    pub fn on_rto(&mut self, now: Time, repeated: bool, measure: &mut Measure) {
        // RFC 5681 §3.1 eq. (4); on a repeated timeout ssthresh stays as it is.
        let keep = self.rec.in_recovery() && self.rto_in_recovery == RtoInRecovery::KeepSsthresh;
        if !repeated && !keep {
            self.congestion_event(now, CongestionKind::Rto, self.loss_window());
        }
        // RFC 5681 §3.1: the loss window is one segment; go back N from snd_una.
        self.congestion.on_rto(now, self.mss);
        self.restart.on_rto();
        self.snd_nxt = self.snd_una;
        // The rate epoch in progress ends at a sequence number that go-back-N reaches only
        // after resending everything outstanding (see `Measure::on_timeout`).
        measure.on_timeout();
        self.rec.on_rto(&mut self.queue, self.snd_max);
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
        self.congestion.on_idle_end(now, ctx.idle, d.window);
        d.pace
    }

    /// Resend the first unacknowledged segment at the next `poll`, outside the window as a
    /// fast retransmit goes, without touching the window or the recovery state (Preemptive
    /// Retransmission, paper 002 §5 step 4).
    pub fn request_retransmit_first(&mut self) {
        self.retransmit_first_requested = true;
    }

    /// The first ACK after a paced restart, before `on_ack` (see `RestartPolicy::on_pacing_end`).
    pub fn on_first_ack_after_pacing(&mut self) {
        let w = self.restart.on_pacing_end(self.congestion.window(), self.flight(), self.mss);
        self.congestion.on_pacing_end(w);
    }

    // ---- output ----
    /// The next data segment to send now, if the window and the data allow one. Inlined into
    /// `Endpoint::poll_transmit`, which calls it several times per packet, mostly to learn
    /// that nothing can go.
    #[inline]
    pub fn poll(&mut self, now: Time) -> Option<TxData> {
        if self.retransmit_first_requested {
            self.retransmit_first_requested = false;
            // One copy serves a fast or partial-ACK retransmission due at the same moment.
            self.retransmit_first_pending = false;
            if let Some(tx) = self.retransmit(self.snd_una, now) {
                if self.snd_nxt == self.snd_una && self.snd_nxt < self.snd_max {
                    // Go-back-N was about to resend this segment: it has now gone.
                    self.snd_nxt = tx.seq + tx.len as u64 + tx.fin as u64;
                }
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
        self.send_new(now, len, fin, self.usable_window())
    }

    /// What the recovery part sends in recovery (SACK's NextSeg()); `None` when it leaves
    /// the choice to the window, as Reno and NewReno do.
    fn poll_recovery(&mut self, now: Time) -> Option<Option<TxData>> {
        let ctx = SendCtx { queue: &self.queue, cwnd: self.congestion.cwnd().min(self.max_window), mss: self.mss };
        let tx = match self.rec.next_send(&ctx) {
            NextSend::Window => return None,
            NextSend::Hold => None,
            NextSend::Retransmit(seq) => self.retransmit(seq, now),
            NextSend::NewData => self.next_new_segment().and_then(|(len, fin)| self.send_new(now, len, fin, u64::MAX)),
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
        self.on_sent(now, s.len as u64);
        self.stats.retransmits += 1;
        Some(TxData { seq: s.seq, len: s.len, fin: s.fin, retransmission: true })
    }

    /// A segment of `len` payload bytes goes out: the parts hear of it, the counters count it.
    #[inline]
    fn on_sent(&mut self, now: Time, len: u64) {
        self.congestion.on_sent(now, len);
        self.restart.on_sent(now, len);
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        self.last_send = Some(now);
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

    /// Send the new segment of `next_new_segment` if the window `wnd` allows it. Inlined
    /// into `poll`, like it.
    #[inline]
    fn send_new(&mut self, now: Time, len: u64, fin: bool, wnd: u64) -> Option<TxData> {
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
        self.on_sent(now, len);
        let seq = self.snd_nxt;
        self.queue.push_new(seq, len as u32, fin, now);
        self.snd_nxt += len + fin as u64;
        self.snd_max = self.snd_nxt;
        Some(TxData { seq, len: len as u32, fin, retransmission: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Avoidance, NewReno};
    use crate::measure::RtoConfig;
    use crate::restart::Restart;

    const MSS: u64 = 1000;

    fn config(recovery: RecoveryKind) -> SenderConfig {
        SenderConfig {
            mss_bytes: MSS,
            initial_window_segments: 10,
            initial_ssthresh_bytes: u64::MAX,
            max_window_bytes: u64::MAX,
            recovery,
            sack_pipe: SackPipe::Rfc6675,
            dupthresh: 3,
            limited_transmit: false,
            loss_window: LossWindow::FlightSize,
            rto_in_recovery: RtoInRecovery::KeepSsthresh,
            nagle: false,
        }
    }

    /// A sender of unlimited data.
    fn sender(recovery: RecoveryKind, f: impl FnOnce(&mut SenderConfig)) -> (Sender, Measure) {
        let mut cfg = config(recovery);
        f(&mut cfg);
        let mut s = Sender::new(&cfg, Cc::plain(Avoidance::NewReno(NewReno::new(false))), Restart::Ssr.build(), 0);
        s.write_unlimited();
        (s, Measure::new(RtoConfig::default()))
    }

    fn drain(s: &mut Sender) -> Vec<TxData> {
        std::iter::from_fn(|| s.poll(Time(0))).collect()
    }

    /// Segment k (0-based) of the first window starts at 1 + k * MSS.
    fn sacked(k: u64) -> SeqRange {
        SeqRange { start: 1 + MSS, end: 1 + (k + 1) * MSS }
    }

    /// Send ten segments, lose the first, and deliver `n` duplicate ACKs SACKing 2..=n+1.
    fn lose_first(s: &mut Sender, m: &mut Measure, n: u64) {
        assert_eq!(drain(s).len(), 10);
        for k in 1..=n {
            s.on_ack(Time(1), 1, [sacked(k)], true, m);
        }
    }

    /// RFC 1122 §4.2.3.4: with Nagle, the short tail of a write waits for the ACK of all that
    /// is outstanding; without, it goes with the rest.
    #[test]
    fn nagle_holds_a_short_segment_while_data_is_unacknowledged() {
        for nagle in [false, true] {
            let cfg = SenderConfig { nagle, ..config(RecoveryKind::NewReno) };
            let (mut s, mut m) =
                (Sender::new(&cfg, Cc::plain(Avoidance::NewReno(NewReno::new(false))), Restart::Ssr.build(), 0), Measure::new(RtoConfig::default()));
            s.write(2 * MSS + 300);
            let lens: Vec<u32> = drain(&mut s).iter().map(|t| t.len).collect();
            if !nagle {
                assert_eq!(lens, [1000, 1000, 300]);
                continue;
            }
            assert_eq!(lens, [1000, 1000]);
            s.on_ack(Time(1), 1 + MSS, [], true, &mut m);
            assert!(drain(&mut s).is_empty(), "one segment still unacknowledged");
            s.on_ack(Time(2), 1 + 2 * MSS, [], true, &mut m);
            assert_eq!(drain(&mut s).iter().map(|t| t.len).collect::<Vec<_>>(), [300]);
        }
    }

    #[test]
    fn sack_fast_retransmit_goes_out_even_when_pipe_exceeds_cwnd() {
        let (mut s, mut m) = sender(RecoveryKind::Sack, |_| {});
        lose_first(&mut s, &mut m, 3);
        // cwnd = 5 segments; RFC 6675 pipe = 6 (segments 5..=10). Step 4.3 retransmits anyway.
        assert!(s.in_recovery());
        let tx = drain(&mut s);
        assert_eq!(tx.len(), 1);
        assert!(tx[0].retransmission && tx[0].seq == 1);
    }

    #[test]
    fn sack1_pipe_counts_acks_and_a_partial_ack_releases_two_segments() {
        let (mut s, mut m) = sender(RecoveryKind::Sack, |c| c.sack_pipe = SackPipe::Sack1);
        lose_first(&mut s, &mut m, 3);
        assert_eq!(drain(&mut s).len(), 1, "the fast retransmit; pipe = 10 - 3 = 7 segments");
        for k in 4..=6 {
            s.on_ack(Time(2), 1, [sacked(k)], true, &mut m);
        }
        assert_eq!(drain(&mut s).len(), 1, "pipe 4 < cwnd 5: one segment, pipe back to 5");
        // A partial ACK (the retransmission arrived, segment 8 is still missing).
        s.on_ack(Time(3), 1 + 7 * MSS, [], true, &mut m);
        assert_eq!(drain(&mut s).len(), 2);
    }

    /// NewReno recovery whose inflation sent five new segments; then the RTO fires.
    fn rto_after_inflated_recovery(f: impl FnOnce(&mut SenderConfig)) -> Window {
        let (mut s, mut m) = sender(RecoveryKind::NewReno, f);
        lose_first(&mut s, &mut m, 10);
        assert_eq!(s.window().ssthresh, 5 * MSS);
        assert_eq!(drain(&mut s).len(), 1 + 5, "the retransmission and five new segments");
        assert_eq!(s.flight(), 15 * MSS);
        s.on_rto(Time(0), false, &mut m);
        s.window()
    }

    #[test]
    fn rto_in_recovery_ssthresh_rules() {
        let keep = rto_after_inflated_recovery(|_| {});
        assert_eq!(keep.ssthresh, 5 * MSS);
        let flight = rto_after_inflated_recovery(|c| c.rto_in_recovery = RtoInRecovery::Halve);
        assert_eq!(flight.ssthresh, 7500, "FlightSize / 2 counts what recovery sent");
        let ns2 = rto_after_inflated_recovery(|c| {
            c.rto_in_recovery = RtoInRecovery::Halve;
            c.loss_window = LossWindow::Cwnd;
        });
        assert_eq!(ns2.ssthresh, 2500, "half the uninflated window (ns-2)");
        assert_eq!((keep.cwnd, flight.cwnd, ns2.cwnd), (MSS, MSS, MSS));
    }

    #[test]
    fn limited_transmit_segments_do_not_count_in_the_flight_that_ssthresh_halves() {
        let (mut s, mut m) = sender(RecoveryKind::NewReno, |c| c.limited_transmit = true);
        assert_eq!(drain(&mut s).len(), 10);
        for _ in 0..2 {
            s.on_ack(Time(1), 1, [], true, &mut m);
            assert_eq!(drain(&mut s).len(), 1, "RFC 3042: one new segment per duplicate ACK");
        }
        assert_eq!(s.flight(), 12 * MSS);
        s.on_ack(Time(1), 1, [], true, &mut m);
        assert!(s.in_recovery());
        // RFC 5681 §3.2 step 2: FlightSize / 2 of the ten segments, not of twelve.
        assert_eq!(s.window().ssthresh, 5 * MSS);
    }

    #[test]
    fn unlimited_sender_counts_acked_bytes() {
        let (mut s, mut m) = sender(RecoveryKind::NewReno, |_| {});
        drain(&mut s);
        s.on_ack(Time(1), 1 + 3 * MSS, [], true, &mut m);
        assert_eq!(s.bytes_acked(0), 3 * MSS);
    }

    /// Regression: default Vegas on the paper-001 dumbbell at 150 Mb/s sat at cwnd = 1
    /// segment for 6.6 s after a timeout (3.41 s to 10 s), delivering two segments per RTT.
    /// Its slow start grows only in every other rate epoch, and the epoch in progress at the
    /// timeout waited for the ACK of a segment beyond the old snd_nxt, 12,000 segments ahead
    /// of the go-back-N. The timeout now begins a new epoch (`Measure::on_timeout`).
    #[test]
    fn vegas_slow_start_grows_after_a_timeout_with_much_outstanding() {
        use crate::cc::{Vegas, VegasConfig};
        let cfg = SenderConfig { initial_window_segments: 100, ..config(RecoveryKind::NewReno) };
        let mut s = Sender::new(&cfg, Cc::plain(Avoidance::Vegas(Vegas::new(VegasConfig::default()))), Restart::Ssr.build(), 0);
        s.write_unlimited();
        let mut m = Measure::new(RtoConfig::default());
        let ms = |v: u64| Time(v * 1_000_000);
        assert_eq!(drain(&mut s).len(), 100);
        // The first segment is acknowledged (an epoch begins, ending beyond segment 100); the
        // second is lost and everything after it waits at the receiver.
        s.on_ack(ms(100), 1 + MSS, [], true, &mut m);
        assert_eq!(drain(&mut s).len(), 1);
        s.on_rto(Time(0), false, &mut m);
        assert_eq!(s.window().cwnd, MSS);
        // Go-back-N: each round resends what the window allows; the receiver acknowledges each
        // segment as it fills the hole (retransmissions: no RTT sample, Karn's rule).
        for round in 1..=8u64 {
            let sent = std::iter::from_fn(|| s.poll(ms(1000 + 100 * round))).collect::<Vec<_>>();
            assert!(!sent.is_empty() && sent.iter().all(|t| t.retransmission));
            for t in sent {
                s.on_ack(ms(1100 + 100 * round), t.seq + t.len as u64, [], true, &mut m);
            }
        }
        // Doubling every other round from one segment: 1, 1, 2, 2, 4, 4, 8, 8 → 16.
        assert!(s.window().cwnd >= 8 * MSS, "cwnd {} after 8 rounds of go-back-N", s.window().cwnd);
        assert!(s.snd_una() < 1 + 100 * MSS, "still below the old snd_nxt: the test covers the stall");
    }
}
