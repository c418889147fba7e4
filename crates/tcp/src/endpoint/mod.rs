//! One TCP connection end, sans-IO.
//!
//! The contract (after quinn-proto's `Connection`):
//! - getters read state and never change it;
//! - `handle_segment` and `handle_timeout` are the inputs from the network and the clock;
//! - `write`, `write_unlimited` and `close` are the application's commands; either end may
//!   write, both at once, and either may close first (RFC 9293 §3.6);
//! - `poll_transmit` and `poll_timeout` are the outputs, and `poll_event` (once turned on
//!   with `enable_events`) tells the application what happened.
//!
//! After any input or command, call `poll_transmit` until it returns `None`, then
//! `poll_timeout` to learn when to call `handle_timeout` next. Time only moves forward:
//! every `now` must be at least the previous one. The endpoint never reads a clock.

use crate::config::{QuickAck, TcpConfig};
use crate::ecn::EcnState;
use std::collections::VecDeque;

use crate::cc::CongestionControl;
use crate::measure::{next_tick, Measure};
use crate::pacing::{PaceCtx, Pacer};
use crate::preemptive::{Preemptive, PreemptiveStats, TimerCmd};
use crate::receiver::{self, AckUrgency, Receiver};
use crate::restart::{IdleThreshold, RestartCtx};
use crate::segment::{Ecn, Flags, SackBlocks, Segment, SeqRange};
use crate::sender::{Sender, SenderStats};
use crate::time::{Duration, Time};

/// Our initial sequence number. A simulation needs no randomised ISN.
const ISS: u64 = 0;

/// `Endpoint::rst_due` when no reset is due: no segment acknowledges this far.
const NO_RESET: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Sends the SYN.
    Active,
    /// Waits for a SYN.
    Passive,
}

/// RFC 9293 §3.3.2's states. The order matters: from `Established` to `TimeWait` the
/// connection is synchronized, and `Closed` comes last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Listen,
    SynSent,
    SynReceived,
    Established,
    /// We closed; our FIN is not yet acknowledged.
    FinWait1,
    /// Our FIN is acknowledged; the peer may still send.
    FinWait2,
    /// The peer closed; we may still send.
    CloseWait,
    /// Both closed before either FIN was acknowledged (simultaneous close).
    Closing,
    /// The peer closed first, then we did; waiting for the ACK of our FIN.
    LastAck,
    /// We closed first and all is acknowledged; we stay to ACK a retransmitted FIN.
    TimeWait,
    Closed,
}

impl State {
    /// The handshake is done and the connection not yet closed: segments carry data and ACKs.
    pub fn is_synchronized(self) -> bool {
        self >= State::Established && self != State::Closed
    }

    /// The peer's FIN arrived (in order).
    pub fn peer_finished(self) -> bool {
        matches!(self, State::CloseWait | State::Closing | State::LastAck | State::TimeWait | State::Closed)
    }
}

/// The endpoint's timers: an enum and a fixed table (see `timers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Retransmission timer (RFC 6298), also for SYN and SYN-ACK.
    Rto = 0,
    /// Delayed ACK (RFC 5681 §4.2).
    DelayedAck = 1,
    /// The pacer's next release time: wakes the endpoint to send a held-back segment.
    Pace = 2,
    /// Preemptive Retransmission (paper 002 §5): k × handshake RTT after the last send or new
    /// ACK, while the mechanism runs.
    Preemptive = 3,
    /// TIME-WAIT's 2 MSL (RFC 9293 §3.4.2, `TcpConfig::time_wait`).
    TimeWait = 4,
    /// RACK's reordering timer (RFC 8985 §6.2 step 5).
    Reorder = 5,
    /// The tail loss probe's timeout, PTO (RFC 8985 §7.2).
    Probe = 6,
}

const TIMER_COUNT: usize = 7;
/// Timers due at the same instant fire in this order.
const TIMERS: [Timer; TIMER_COUNT] = [Timer::Rto, Timer::DelayedAck, Timer::Pace, Timer::Preemptive, Timer::Reorder, Timer::Probe, Timer::TimeWait];

/// What an endpoint reports to its application besides segments (`Endpoint::poll_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The handshake completed. `handshake_rtt`: SYN to SYN-ACK at the active end, SYN-ACK
    /// to ACK at the passive end; `None` when a SYN or SYN-ACK was sent twice (Karn's rule).
    Established { handshake_rtt: Option<Duration> },
    /// The sender took an RTT sample (RFC 6298 §3), with the window after the ACK.
    RttSample { rtt: Duration, cwnd: u64 },
    /// Payload bytes released in order to the application.
    Delivered { bytes: u64 },
    /// The peer's FIN arrived in order: it will send nothing more.
    PeerFinished,
    /// The connection reached `State::Closed`: both FINs are acknowledged (and, for the end
    /// that closed first, TIME-WAIT is over), or, with `reset`, the peer answered with a
    /// reset because it had closed already. Nothing more will happen.
    Closed { reset: bool },
}

/// When a connection end passed the moments its application sees (a connection's row in
/// a results table): the handshake done, the first and the latest payload delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Milestones {
    pub established: Option<Time>,
    pub first_delivery: Option<Time>,
    pub last_delivery: Option<Time>,
}

/// `Milestones` as an endpoint keeps them, `Time::MAX` where not reached yet: 24 bytes, not
/// the 48 of three `Option<Time>` (an endpoint's size is in the engine's per-packet cache
/// footprint).
#[derive(Clone, Copy, Debug)]
struct Reached {
    established: Time,
    first_delivery: Time,
    last_delivery: Time,
}

impl Default for Reached {
    fn default() -> Self {
        Reached { established: Time::MAX, first_delivery: Time::MAX, last_delivery: Time::MAX }
    }
}

/// The values a trace records on change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub srtt: Option<Duration>,
    pub flight: u64,
    pub snd_nxt: u64,
    pub snd_una: u64,
    /// The pacer holds data segments back.
    pub pacing: bool,
    /// The congestion controller's phase or startup mode (`Cc::mode_name`).
    pub cc_mode: &'static str,
    /// SSthreshless Start's congestive events so far (0 for other controllers).
    pub congestive_events: u32,
}

#[derive(Clone, Debug)]
pub struct Endpoint {
    cfg: TcpConfig,
    state: State,
    /// A SYN (active) or SYN-ACK (passive) is due.
    syn_due: bool,
    /// When the SYN or SYN-ACK last went out, `Time::MAX` before it did (8 bytes where an
    /// `Option` takes 16, as `Reached`: the room ECN's state takes).
    syn_sent_at: Time,
    syn_retransmitted: bool,
    sender: Sender,
    receiver: Receiver,
    measure: Measure,
    timers: [Option<Time>; TIMER_COUNT],
    ack_due: bool,
    bytes_received: u64,
    reached: Reached,
    /// Spaces data segments: while a restart after idle is paced (the first ACK ends it,
    /// paper 000 §3), and all the time with `TcpConfig::pacing`.
    pacer: Pacer,
    /// `cfg.is_plain()`, read once per segment in and out: the paths then run without the
    /// tests of the parts it rules out, which most runs never use (docs/performance.md,
    /// "Figures behind the comments"). False also runs a plain config's paths with the
    /// tests (`use_general_paths`).
    plain: bool,
    /// The last send before the idle whose restart policy already ran (`Time::MAX`: none; a
    /// sentinel, not an `Option`, so that `all_acked_at` fits in the same bytes).
    restarted_after: Time,
    /// When the last ACK left nothing outstanding (`IdleThreshold::RtxTimer` counts from it).
    all_acked_at: Time,
    /// Preemptive Retransmission, when configured.
    preemptive: Option<Preemptive>,
    /// Events not yet polled; `None` until `enable_events`, so that a user that never polls
    /// (the simulator's bulk flows) neither pays for them nor accumulates them.
    events: Option<VecDeque<Event>>,
    /// Both ends offered SACK (RFC 2018 §2): we send SACK blocks.
    sack_ok: bool,
    /// Closed, we answer a segment with a reset at this sequence number (`NO_RESET`: none due).
    rst_due: u64,
    /// ECN's state (RFC 3168), used only on the general paths (`TcpConfig::ecn` makes a
    /// config not plain).
    ecn: EcnState,
}

impl Endpoint {
    pub fn new(cfg: TcpConfig, role: Role) -> Self {
        let mut sender = Sender::new(&cfg.sender_config(), cfg.build_cc(), cfg.restart.build(cfg.initial_window_segments as u64 * cfg.mss_bytes as u64), ISS);
        // Without a handshake the peer is taken to be configured as we are.
        let sack_ok = !cfg.handshake && cfg.offers_sack();
        if !cfg.handshake && !sack_ok {
            sender.on_peer_without_sack();
        }
        let receiver = Receiver::new(ISS, cfg.delayed_ack, cfg.ack_every);
        let preemptive = cfg.preemptive.map(Preemptive::new);
        let plain = cfg.is_plain();
        let pacer = Pacer::new(cfg.restart.paces_by_phase());
        let state = match (cfg.handshake, role) {
            (false, _) => State::Established,
            (true, Role::Active) => State::SynSent,
            (true, Role::Passive) => State::Listen,
        };
        let ecn = EcnState::new(cfg.ecn, cfg.handshake);
        Endpoint {
            measure: Measure::new(cfg.rto),
            syn_due: state == State::SynSent,
            cfg,
            state,
            syn_sent_at: Time::MAX,
            syn_retransmitted: false,
            sender,
            receiver,
            timers: [None; TIMER_COUNT],
            ack_due: false,
            bytes_received: 0,
            reached: Reached::default(),
            pacer,
            plain,
            restarted_after: Time::MAX,
            all_acked_at: Time::ZERO,
            preemptive,
            events: None,
            sack_ok,
            rst_due: NO_RESET,
            ecn,
        }
    }

    /// Run the paths that serve every config even if this one `is_plain()`: the same
    /// results, more tests per segment. For the test that the plain paths change nothing.
    #[doc(hidden)]
    pub fn use_general_paths(&mut self) {
        self.plain = false;
    }

    /// Seed the random choices of the congestion controller (BBR's first PROBE_BW phase) and
    /// of the RTO rule (ns-2's clock phase) from the connection's seeded stream
    /// (`TcpConfig::random_stream`); without it they follow a fixed seed.
    pub fn seed_random(&mut self, seed: u64) {
        self.sender.seed_random(seed);
        self.measure.seed_random(seed);
    }

    /// Start recording events for `poll_event`; whoever turns them on must poll them.
    pub fn enable_events(&mut self) {
        self.events.get_or_insert_with(VecDeque::new);
    }

    /// The next event, oldest first.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.as_mut()?.pop_front()
    }

    /// Inlined: called on every ACK and delivery, and nearly always with events off.
    #[inline]
    fn emit(&mut self, event: Event) {
        if let Some(q) = &mut self.events {
            q.push_back(event);
        }
    }

    // ---- getters ----
    pub fn state(&self) -> State {
        self.state
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub fn measure(&self) -> &Measure {
        &self.measure
    }
    pub fn sender(&self) -> &Sender {
        &self.sender
    }
    pub fn pacer(&self) -> &Pacer {
        &self.pacer
    }
    pub fn stats(&self) -> SenderStats {
        self.sender.stats()
    }
    /// The Preemptive Retransmission part, when configured.
    pub fn preemptive(&self) -> Option<&Preemptive> {
        self.preemptive.as_ref()
    }
    /// Preemptive retransmissions and spurious ones (zero when the part is off).
    pub fn preemptive_stats(&self) -> PreemptiveStats {
        self.preemptive.as_ref().map_or_else(PreemptiveStats::default, Preemptive::stats)
    }
    /// When `t` expires, if it runs.
    pub fn timer(&self, t: Timer) -> Option<Time> {
        self.timers[t as usize]
    }
    /// Payload bytes delivered in order to the application.
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }
    pub fn milestones(&self) -> Milestones {
        let r = self.reached;
        let at = |t: Time| (t != Time::MAX).then_some(t);
        Milestones { established: at(r.established), first_delivery: at(r.first_delivery), last_delivery: at(r.last_delivery) }
    }
    /// Payload bytes of ours that the peer acknowledged.
    pub fn bytes_acked(&self) -> u64 {
        self.sender.bytes_acked(ISS)
    }
    /// Everything written (and the FIN, if closed) is acknowledged.
    pub fn all_acked(&self) -> bool {
        self.state >= State::Established && self.sender.all_acked()
    }
    /// SACK is in use on this connection: both ends offered it in the handshake.
    pub fn sack_ok(&self) -> bool {
        self.sack_ok
    }
    pub fn snapshot(&self) -> Snapshot {
        let w = self.sender.window();
        Snapshot {
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            srtt: self.measure.srtt(),
            flight: self.sender.flight(),
            snd_nxt: self.sender.snd_nxt(),
            snd_una: self.sender.snd_una(),
            pacing: self.pacer.is_pacing(self.cfg.pacing.as_ref()),
            cc_mode: self.sender.congestion().mode_name(),
            congestive_events: self.sender.congestion().cc().startup_metrics().congestive_events,
        }
    }

    // ---- application commands ----
    pub fn write(&mut self, bytes: u64) {
        self.sender.write(bytes);
    }
    pub fn write_unlimited(&mut self) {
        self.sender.write_unlimited();
    }
    /// Use `cwnd` bytes as the congestion window: this connection's share of an ensemble's
    /// (RFC 9040 ensemble sharing); what it sends next follows it.
    pub fn share_window(&mut self, cwnd: u64) {
        self.sender.set_shared_cwnd(cwnd);
    }
    /// No more data from us: a FIN follows what was written (RFC 9293 §3.10.4, CLOSE). Before
    /// the handshake completes the FIN waits for it, as the RFC has it for SYN-RECEIVED, so
    /// that an application may open, write and close at once.
    pub fn close(&mut self) {
        self.sender.close();
        self.state = match self.state {
            State::Established => State::FinWait1,
            State::CloseWait => State::LastAck,
            s => s,
        };
    }

    // ---- input ----
    /// A segment arrived. Returns the payload newly delivered in order, if any. Always
    /// inlined: the simulator calls it at one place, for both ends of every packet, where a
    /// profile-guided build would otherwise keep the plain make out of line
    /// (docs/performance.md).
    #[inline(always)]
    pub fn handle_segment(&mut self, now: Time, seg: &Segment) -> Option<SeqRange> {
        if self.plain {
            self.handle_segment_as::<true>(now, seg)
        } else {
            self.handle_segment_general(now, seg)
        }
    }

    /// The make that serves every config, out of line: the plain make, which most runs
    /// take, then stays small where it is inlined (docs/performance-limits.md, "The TCP end
    /// without unused parts").
    #[inline(never)]
    fn handle_segment_general(&mut self, now: Time, seg: &Segment) -> Option<SeqRange> {
        self.handle_segment_as::<false>(now, seg)
    }

    /// `handle_segment`, made twice: `PLAIN` for a config that `is_plain()`, without the
    /// tests of the parts that rules out (each `!PLAIN && …` below); the other make serves any
    /// config.
    #[inline(always)]
    fn handle_segment_as<const PLAIN: bool>(&mut self, now: Time, seg: &Segment) -> Option<SeqRange> {
        debug_assert!(!PLAIN || self.cfg.is_plain(), "the plain make for a config that is not plain");
        // Tested first and alone: nearly every segment finds the connection established.
        if self.state.is_synchronized() {
            if seg.flags.syn || seg.flags.rst {
                self.handle_control_segment(seg);
                return None;
            }
        } else if !self.handle_handshake_segment(now, seg) {
            return None;
        }
        self.sender.set_peer_window(seg.window as u64);
        if !PLAIN && seg.flags.ack && self.pacer.in_restart() && !self.pacer.follows_phases() {
            self.end_paced_restart();
            self.sender.on_first_ack_after_pacing();
        }
        if seg.flags.ack {
            if !PLAIN {
                self.sender.hold_growth(self.ecn.holds_growth(seg.ack));
            }
            let r = self.sender.on_ack::<PLAIN>(now, seg.ack, seg.sack_blocks(), seg.is_pure_ack(), &mut self.measure);
            if let Some(rtt) = r.rtt_sample {
                self.emit(Event::RttSample { rtt, cwnd: self.sender.window().cwnd });
            }
            if r.new_data {
                if !self.sender.outstanding() {
                    // RFC 6298 §5.2: all data acknowledged, stop the timer.
                    self.timers[Timer::Rto as usize] = None;
                    self.all_acked_at = now;
                } else if r.restart_rto {
                    // RFC 6298 §5.3
                    self.arm(Timer::Rto, self.measure.rto_deadline(now));
                }
                if let Some(p) = self.preemptive.as_mut().filter(|_| !PLAIN) {
                    let s = &self.sender;
                    let cmd = p.on_new_ack(now, s.snd_una(), s.bytes_acked(ISS), s.outstanding(), self.measure.min_rtt());
                    self.apply_preemptive(cmd);
                }
            }
            if !PLAIN && self.cfg.rack_tlp {
                self.rack_tlp_timers(now, r.new_data);
            }
            if !PLAIN && seg.ecn.ece() && self.ecn.on_ece(self.sender.in_recovery(), self.sender.snd_una(), self.sender.snd_max()) {
                self.sender.on_ecn_echo(now);
            }
            // Careful Resume's Unvalidated Phase (`Restart::paces_by_phase`), set when made.
            if !PLAIN && self.pacer.follows_phases() {
                self.follow_phase_pacing(now);
            }
        }
        if !PLAIN {
            self.ecn.on_received(seg);
        }
        if seg.is_pure_ack() {
            if self.state != State::Established {
                self.update_close_state(now);
            }
            return None;
        }
        if !PLAIN && self.cfg.quickack == QuickAck::Linux {
            self.quickack_on_data(now);
        }
        if !PLAIN && self.cfg.quickack == QuickAck::FirstSegment && self.reached.first_delivery == Time::MAX {
            // ns-2's DelAckSink::recv: seqno 0 is ACKed at once (SYN_immediate_ack_).
            self.receiver.enter_quickack(1);
        }
        let (delivered, urgency) = self.receiver.on_data(seg.seq, seg.len as u64, seg.flags.fin);
        match urgency {
            AckUrgency::Now => self.ack_due = true,
            // Linux ACKs the end of a write (PSH) at once when the reader takes all it has, as
            // ours does (`tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED, `tcp_cleanup_rbuf` ACKs;
            // shorter segments always, full-sized ones since the 2023 fix "tcp: fix delayed
            // ACKs for MSS boundary condition").
            AckUrgency::Delayed if !PLAIN && self.cfg.quickack == QuickAck::Linux && seg.flags.psh => self.ack_due = true,
            AckUrgency::Delayed => {
                if self.timers[Timer::DelayedAck as usize].is_none() {
                    // delack_on_tick: at the next tick of a free-running clock of that period, as
                    // 4.4BSD's tcp_fasttimo sends it on its 200 ms ticks.
                    let d = self.cfg.delack_timeout;
                    self.arm(Timer::DelayedAck, if self.cfg.delack_on_tick { next_tick(now, d) } else { now + d });
                }
            }
            AckUrgency::None => {}
        }
        if let Some(r) = delivered {
            self.bytes_received += r.len();
            if !r.is_empty() {
                self.reached.first_delivery = self.reached.first_delivery.min(now);
                self.reached.last_delivery = now;
            }
            self.emit(Event::Delivered { bytes: r.len() });
        }
        if self.state != State::Established || self.receiver.fin_received() {
            if seg.flags.fin && self.state == State::TimeWait {
                // RFC 9293 §3.10.7.4: a retransmitted FIN in TIME-WAIT is acknowledged
                // (the receiver asks for an ACK now) and restarts the 2 MSL timeout.
                self.arm(Timer::TimeWait, now + self.cfg.time_wait);
            }
            self.update_close_state(now);
        }
        delivered
    }

    /// A SYN or a reset once synchronized.
    fn handle_control_segment(&mut self, seg: &Segment) {
        if !seg.flags.rst {
            // A retransmitted SYN-ACK: our handshake ACK was lost.
            self.ack_due = true;
        } else if seg.seq == self.receiver.rcv_nxt() && self.state != State::TimeWait {
            // RFC 9293 §3.10.7.4: a reset in the window closes the connection (we accept
            // only the exact next sequence number, as RFC 5961 §3.2 recommends). In
            // TIME-WAIT it is ignored (RFC 1337: the timer ends TIME-WAIT, not a reset).
            self.closed(true);
        }
    }

    /// Move through the closing states (RFC 9293 §3.10.7.4, "eighth, check the FIN bit" and
    /// the ACK processing of FIN-WAIT-1, CLOSING and LAST-ACK) after a segment.
    fn update_close_state(&mut self, now: Time) {
        let fin_acked = self.sender.fin_acked();
        let peer_fin = self.receiver.fin_received();
        let next = match self.state {
            State::Established if peer_fin => State::CloseWait,
            State::FinWait1 if peer_fin && fin_acked => State::TimeWait,
            State::FinWait1 if peer_fin => State::Closing,
            State::FinWait1 if fin_acked => State::FinWait2,
            State::FinWait2 if peer_fin => State::TimeWait,
            State::Closing if fin_acked => State::TimeWait,
            State::LastAck if fin_acked => State::Closed,
            _ => return,
        };
        if next.peer_finished() && !self.state.peer_finished() {
            self.emit(Event::PeerFinished);
        }
        self.state = next;
        match next {
            State::TimeWait => {
                self.timers = [None; TIMER_COUNT];
                self.arm(Timer::TimeWait, now + self.cfg.time_wait);
            }
            State::Closed => self.closed(false),
            _ => {}
        }
    }

    fn closed(&mut self, reset: bool) {
        self.state = State::Closed;
        self.timers = [None; TIMER_COUNT];
        self.pacer.stop_restart();
        self.emit(Event::Closed { reset });
    }

    /// Fire every timer due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        for t in TIMERS {
            if self.timers[t as usize].is_some_and(|at| at <= now) {
                self.timers[t as usize] = None;
                self.on_timer(t, now);
            }
        }
    }

    fn on_timer(&mut self, t: Timer, now: Time) {
        match t {
            Timer::DelayedAck => self.ack_due = true,
            // Only a wakeup: `poll_transmit` sends what the pacer now releases.
            Timer::Pace => {}
            // Paper 002 §5 step 4: resend the first unacknowledged segment; the window, the
            // RTO and the recovery state stay as they are.
            Timer::Preemptive => {
                if let Some(p) = &mut self.preemptive {
                    if p.on_timeout(now, self.sender.first_unacked_end()) {
                        self.sender.request_retransmit_first();
                    }
                }
            }
            Timer::TimeWait => self.closed(false),
            Timer::Reorder => {
                self.sender.on_reorder_timer(now, &self.measure);
                self.timers[Timer::Reorder as usize] = self.sender.reorder_timer();
            }
            Timer::Probe => self.sender.on_probe_timer(),
            Timer::Rto => match self.state {
                State::SynSent | State::SynReceived => {
                    self.syn_due = true;
                    self.measure.back_off();
                }
                s if s.is_synchronized() && self.sender.outstanding() => {
                    // Retransmissions after a timeout are not the restart's to pace.
                    self.end_paced_restart();
                    // Backed off by an earlier data timeout means no valid RTT sample since
                    // it: the same data timed out again. A backoff left by a retransmitted SYN
                    // (Karn's rule gave no sample to collapse it) does not count: RFC 5681
                    // §3.1 sets ssthresh when a segment first times out.
                    let repeated = self.measure.is_backed_off() && self.sender.stats().timeouts > 0;
                    self.sender.on_rto(now, repeated, &mut self.measure);
                    self.ecn.on_rto(self.sender.snd_max());
                    self.timers[Timer::Reorder as usize] = None;
                    self.timers[Timer::Probe as usize] = None;
                    // RFC 6298 §5.5-5.6: back off and restart the timer.
                    self.measure.back_off();
                    self.arm(Timer::Rto, self.measure.rto_deadline(now));
                }
                _ => {}
            },
        }
    }

    // ---- output ----
    /// The earliest time `handle_timeout` must be called, if any timer runs.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Time> {
        self.timers.iter().flatten().min().copied()
    }

    /// The next segment to send now.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if self.plain {
            self.poll_transmit_as::<true>(now)
        } else {
            self.poll_transmit_general(now)
        }
    }

    /// Out of line, as `handle_segment_general` is.
    #[inline(never)]
    fn poll_transmit_general(&mut self, now: Time) -> Option<Segment> {
        self.poll_transmit_as::<false>(now)
    }

    /// `poll_transmit`, made twice as `handle_segment_as` is.
    #[inline(always)]
    fn poll_transmit_as<const PLAIN: bool>(&mut self, now: Time) -> Option<Segment> {
        debug_assert!(!PLAIN || self.cfg.is_plain(), "the plain make for a config that is not plain");
        // Tested first and alone: an established connection is asked after every packet.
        if self.state != State::Established && !self.state.is_synchronized() {
            return self.poll_handshake(now);
        }
        self.restart_after_idle(now);
        let tx = if PLAIN || self.pacer.may_send(now) { self.sender.poll::<PLAIN>(now) } else { None };
        if let Some(tx) = tx {
            self.measure.on_segment_sent(now, tx.seq, tx.retransmission);
            if !PLAIN && tx.probe {
                // RFC 8985 §7.3: after the probe, the RTO guards what is outstanding.
                self.arm(Timer::Rto, self.measure.rto_deadline(now));
            } else if self.timers[Timer::Rto as usize].is_none() {
                // RFC 6298 §5.1: start the timer if it is not running.
                self.arm(Timer::Rto, self.measure.rto_deadline(now));
            }
            if !PLAIN && self.cfg.rack_tlp && !tx.retransmission {
                // §7.2: (re)start the probe timer after new data that was not a probe.
                self.arm_probe(now, !tx.probe);
            }
            // Without pacing or a paced restart, `on_send` returns `None` and changes nothing.
            let paced = if PLAIN { None } else { self.pacer.on_send(now, tx.len as u64, self.cfg.pacing.as_ref(), || pace_ctx(&self.sender, &self.measure)) };
            if let Some(at) = paced {
                self.arm(Timer::Pace, at);
            }
            if let Some(p) = self.preemptive.as_mut().filter(|_| !PLAIN) {
                let cmd = p.on_send(now, !tx.retransmission);
                self.apply_preemptive(cmd);
            }
            let psh = self.sender.ends_write(tx.seq + tx.len as u64);
            let mut seg = self.segment(tx.seq, tx.len, Flags { ack: true, fin: tx.fin, psh, ..Flags::default() });
            if !PLAIN {
                self.ecn.mark(&mut seg, tx.retransmission);
            }
            return Some(seg);
        }
        if self.ack_due {
            let mut ack = self.segment(self.sender.snd_max(), 0, Flags { ack: true, ..Flags::default() });
            if !PLAIN {
                self.ecn.mark(&mut ack, false);
            }
            return Some(ack);
        }
        None
    }

    /// RFC 5681 §4.1, paper 000 §3.4 item 1: the connection was idle when nothing is
    /// outstanding and no data went out for longer than the threshold. The restart policy
    /// runs once, as the application's new data is about to go. Inlined into both makes of
    /// `poll_transmit`, as `Sender::on_ack` is.
    #[inline(always)]
    fn restart_after_idle(&mut self, now: Time) {
        let s = &self.sender;
        // Data outstanding first: the test that ends nearly every call.
        if s.outstanding() {
            return;
        }
        let Some(last_send) = s.last_send() else { return };
        if !s.has_unsent_data() || self.restarted_after == last_send {
            return;
        }
        let idle = now.since(last_send);
        // ns-2's idle is the expiry of the timer the last ACK armed (`IdleThreshold::RtxTimer`).
        let quiet = if self.cfg.idle_threshold == IdleThreshold::RtxTimer { now.since(self.all_acked_at) } else { idle };
        if quiet <= self.cfg.idle_threshold.duration(self.measure.rto()) {
            return;
        }
        self.restarted_after = last_send;
        let ctx = RestartCtx {
            now,
            mss: s.mss(),
            initial_window_bytes: self.cfg.initial_window_segments as u64 * s.mss(),
            usable_window_bytes: s.usable_window(),
            idle,
            measure: &self.measure,
        };
        if let Some(plan) = self.sender.on_idle_end(now, &ctx) {
            self.pacer.start_restart(now, plan.interval);
        }
    }

    /// Linux's `tcp_event_data_recv`: the first data segment enters quick-ACK mode (for the
    /// initial receive window), and so does data after a gap longer than the RTO (the sender
    /// was idle; the gap counted from the last in-order delivery, Linux's from any segment).
    #[cold]
    fn quickack_on_data(&mut self, now: Time) {
        let last = self.reached.last_delivery;
        if last == Time::MAX {
            let rcv_wnd = self.cfg.rcv_window_bytes.min(receiver::LINUX_INITIAL_RCV_WND_BYTES);
            self.receiver.enter_quickack(receiver::quickacks(rcv_wnd as u64 / self.cfg.mss_bytes as u64));
        } else if now.since(last) > self.measure.rto() {
            self.receiver.enter_quickack(receiver::quickacks(self.cfg.rcv_window_bytes as u64 / self.cfg.mss_bytes as u64));
        }
    }

    fn end_paced_restart(&mut self) {
        self.pacer.stop_restart();
        self.timers[Timer::Pace as usize] = None;
    }

    fn apply_preemptive(&mut self, cmd: TimerCmd) {
        match cmd {
            TimerCmd::Keep => {}
            TimerCmd::Arm(at) => self.arm(Timer::Preemptive, at),
            TimerCmd::Stop => self.timers[Timer::Preemptive as usize] = None,
        }
    }

    /// RACK-TLP's timers after an ACK (`new_data`: it acknowledged new data): RACK's
    /// reordering timer as RACK asks; the probe timer restarted on new data (RFC 8985 §7.2),
    /// and stopped when a probe may not be scheduled (recovery began, SACKs came).
    fn rack_tlp_timers(&mut self, now: Time, new_data: bool) {
        self.timers[Timer::Reorder as usize] = self.sender.reorder_timer();
        self.arm_probe(now, new_data);
    }

    /// Arm the probe timer if a probe may be scheduled (restarting it when `restart`), else
    /// stop it.
    fn arm_probe(&mut self, now: Time, restart: bool) {
        match self.sender.probe_at(now, self.measure.srtt(), self.timers[Timer::Rto as usize]) {
            None => self.timers[Timer::Probe as usize] = None,
            Some(at) if restart || self.timers[Timer::Probe as usize].is_none() => self.arm(Timer::Probe, at),
            Some(_) => {}
        }
    }

    fn arm(&mut self, t: Timer, at: Time) {
        self.timers[t as usize] = Some(at);
    }

    /// Build a segment; with `flags.ack` it carries our current acknowledgement and SACK
    /// blocks, and sending it satisfies any pending ACK.
    fn segment(&mut self, seq: u64, len: u32, flags: Flags) -> Segment {
        let mut ack = 0;
        let mut sack = SackBlocks::default();
        if flags.ack {
            ack = self.receiver.rcv_nxt();
            if self.sack_ok {
                sack = SackBlocks::new(ack, self.receiver.sack_blocks());
            }
            self.ack_due = false;
            self.timers[Timer::DelayedAck as usize] = None;
            self.receiver.on_ack_sent();
        }
        // Built in one expression, not patched after `..Segment::default()`: the compiler
        // then writes it straight into the caller's `Option<Segment>`.
        Segment { seq, ack, len, flags, window: self.cfg.rcv_window_bytes, sack_permitted: false, sack, ecn: Ecn::default() }
    }
}

mod handshake;
mod resume;

#[cfg(test)]
mod bsd_tests;
#[cfg(test)]
mod tests;

/// What the pacer's rate reads when a segment leaves.
fn pace_ctx(sender: &Sender, measure: &Measure) -> PaceCtx {
    let w = sender.window();
    let ctx = PaceCtx { cwnd: w.cwnd, ssthresh: w.ssthresh, flight: sender.flight(), srtt: measure.srtt(), cc_rate: None };
    PaceCtx { cc_rate: sender.congestion().cc().pacing_rate(&ctx), ..ctx }
}
