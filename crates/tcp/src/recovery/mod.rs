//! Loss recovery: what a sender does after duplicate ACKs, until the loss is repaired.
//!
//! One trait, `LossRecovery`, implemented by the parts built in (`reno.rs`: Reno and
//! NewReno, `sack.rs`: SACK with either pipe reading), stored in `Part` and dispatched at
//! one point. `Recovery` holds the part and the state every part shares (`Episode`: the
//! duplicate-ACK count, whether recovery runs, the recovery point, limited transmit). The
//! sender reports ACKs and sends; recovery answers with decisions (enter recovery,
//! retransmit the first hole, a window change for `cc::Congestion`, what to send next), so
//! the sender keeps no recovery state of its own.

mod prr;
mod rack;
mod reno;
mod sack;
mod scoreboard;
mod tlp;

pub use prr::Prr;
pub use rack::Rack;
pub use reno::Reno;
pub use sack::Sack;
pub use scoreboard::{next_unsacked_from, Scoreboard};
pub use tlp::{ProbeOutcome, Tlp};

use crate::cc::RecoveryWindow;
use crate::registry::{Family, PartInfo};
use crate::segment::SeqRange;
use crate::send_queue::SendQueue;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    /// Fast retransmit / fast recovery of RFC 5681 §3.2: recovery ends at the first new ACK.
    Reno,
    /// RFC 6582: stay in recovery until all data outstanding at its start is acknowledged,
    /// retransmitting at each partial ACK.
    NewReno,
    /// RFC 6675: a SACK scoreboard and the pipe estimate decide what to send.
    Sack,
}

/// The loss recoveries in the registry, in `RecoveryKind`'s order.
pub const PARTS: [PartInfo; 3] = [
    PartInfo { family: Family::Recovery, name: "reno", doc: "RFC 5681 fast retransmit and fast recovery", keys: &[], per_segment: false },
    PartInfo {
        family: Family::Recovery,
        name: "newreno",
        doc: "RFC 6582: recovery holds until all data outstanding at the loss is acknowledged",
        keys: &[],
        per_segment: false,
    },
    PartInfo {
        family: Family::Recovery,
        name: "sack",
        doc: "RFC 6675 SACK-based recovery (sack_pipe: rfc6675 or ns-2's sack1)",
        keys: &[],
        per_segment: false,
    },
];

impl RecoveryKind {
    pub fn info(self) -> &'static PartInfo {
        &PARTS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }
}

/// How a SACK sender estimates the data in flight during recovery (`pipe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackPipe {
    /// RFC 6675 §4 SetPipe(): recomputed from the scoreboard; a segment leaves the pipe
    /// when it is SACKed or deemed lost (IsLost()).
    Rfc6675,
    /// ns-2's `Agent/TCP/Sack1` (Fall & Floyd, "Simulation-based comparisons of Tahoe, Reno
    /// and SACK TCP", 1996): a counter set to FlightSize minus dupthresh segments at the fast
    /// retransmit, decreased by one segment for every ACK that arrives during recovery and by
    /// one more for a partial ACK, increased by one for every segment sent. A partial ACK thus
    /// releases two segments, whatever it acknowledged.
    Sack1,
}

impl SackPipe {
    pub fn name(self) -> &'static str {
        match self {
            SackPipe::Rfc6675 => "rfc6675",
            SackPipe::Sack1 => "sack1",
        }
    }
}

/// The state of the loss-recovery machine that every part shares.
#[derive(Clone, Debug)]
pub struct Episode {
    pub dupthresh: u32,
    pub in_recovery: bool,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: the highest sequence number sent when
    /// recovery (or the last RTO) began; exclusive.
    pub recover: u64,
    pub dupacks: u32,
    /// RFC 3042: send one new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// New data sent beyond cwnd by limited transmit since the last new ACK.
    pub limited_transmit_bytes: u64,
    /// Bytes the last ACK newly SACKed (PRR counts the ACK that starts recovery, RFC 6937 §3).
    pub newly_sacked: u64,
}

/// What a part decides on a partial ACK (a new ACK below the recovery point).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Partial {
    pub window: Option<RecoveryWindow>,
    /// Retransmit the first unacknowledged segment now.
    pub retransmit_first: bool,
    /// Restart the retransmission timer.
    pub restart_rto: bool,
}

/// What a new cumulative ACK means to recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewAck {
    /// Not in recovery: congestion control grows the window as usual.
    Outside,
    /// Recovery is over (`cc::Congestion::on_recovery_end`); restart the timer.
    End,
    /// Still in recovery.
    Partial(Partial),
}

/// What a duplicate ACK means to recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAck {
    Nothing,
    /// In recovery: a window change for congestion control.
    Window(RecoveryWindow),
    /// A loss is detected and a new recovery may begin: the sender reports the congestion
    /// event, then calls `Recovery::enter`.
    LossDetected,
}

/// What to send next during recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSend {
    /// The part has no send rule of its own: send as the window allows.
    Window,
    /// Nothing may go now.
    Hold,
    /// Retransmit the segment that starts at this sequence number.
    Retransmit(u64),
    /// Send new data, whatever the window (the part has checked its own limit).
    NewData,
}

/// What a part may read when it decides what to send.
pub struct SendCtx<'a> {
    pub queue: &'a SendQueue,
    pub snd_una: u64,
    /// cwnd capped by the window limit.
    pub cwnd: u64,
    pub mss: u64,
}

/// One loss-recovery algorithm. `Recovery` keeps the shared `Episode` and calls these hooks.
pub trait LossRecovery {
    /// Whether the sender keeps a SACK scoreboard for this part.
    fn uses_sack(&self) -> bool {
        false
    }

    /// Whether a new recovery may begin once the cumulative ACK reaches `recover` (RFC 6675
    /// §5.1: "until HighACK is greater than or equal to the new value of RecoveryPoint"),
    /// rather than only once it covers more than `recover` (ns-2's `bugfix_`;
    /// `Recovery::may_enter`).
    fn enters_at_recovery_point(&self) -> bool {
        false
    }

    /// A duplicate ACK outside recovery, below dupthresh: whether other evidence (the SACK
    /// scoreboard) says the first unacknowledged segment, at `snd_una`, is lost.
    fn loss_detected_early(&self, _ep: &Episode, _queue: &SendQueue, _snd_una: u64, _mss: u64) -> bool {
        false
    }

    /// Recovery begins with `flight_bytes` outstanding. Returns the cwnd inflation over
    /// ssthresh (`cc::CongestionKind::FastRetransmit`).
    fn on_enter(&mut self, ep: &Episode, queue: &SendQueue, flight_bytes: u64, mss: u64) -> u64;

    /// A duplicate ACK during recovery: the window change, if any.
    fn on_dupack_in_recovery(&mut self, mss: u64) -> Option<RecoveryWindow>;

    /// A partial ACK of `acked_bytes`. `None`: recovery ends here all the same (Reno).
    fn on_partial_ack(&mut self, acked_bytes: u64, mss: u64) -> Option<Partial>;

    /// What to send next while in recovery.
    fn next_send(&mut self, _ep: &Episode, _ctx: &SendCtx) -> NextSend {
        NextSend::Window
    }

    /// A segment chosen by `next_send` went out.
    fn on_sent_in_recovery(&mut self, _mss: u64) {}
}

/// The recovery parts built in. Adding one: its file, a variant here and in `dispatch!`,
/// and its name in `RecoveryKind`.
#[derive(Clone, Debug)]
pub enum Part {
    Reno(Reno),
    Sack(Sack),
}

/// The one dispatch point: `$p` is the inner part in every arm.
macro_rules! dispatch {
    ($part:expr, $p:ident => $body:expr) => {
        match $part {
            Part::Reno($p) => $body,
            Part::Sack($p) => $body,
        }
    };
}

/// The loss-recovery state of one sender: the shared episode and the part.
#[derive(Clone, Debug)]
pub struct Recovery {
    ep: Episode,
    part: Part,
}

impl Recovery {
    /// `prr`: a SACK part sends as PRR (RFC 6937) says; ignored by the others.
    pub fn new(kind: RecoveryKind, dupthresh: u32, sack_pipe: SackPipe, prr: bool, limited_transmit: bool) -> Self {
        let part = match kind {
            RecoveryKind::Reno => Part::Reno(Reno::new(false)),
            RecoveryKind::NewReno => Part::Reno(Reno::new(true)),
            RecoveryKind::Sack => Part::Sack(Sack::new(sack_pipe, prr)),
        };
        let ep = Episode { dupthresh, in_recovery: false, recover: 0, dupacks: 0, limited_transmit, limited_transmit_bytes: 0, newly_sacked: 0 };
        Recovery { ep, part }
    }

    /// The peer did not offer SACK (RFC 2018 §2): no SACK block will come, so a SACK part
    /// gives way to NewReno, as Linux recovers without SACK. Called before any data is sent.
    pub fn without_sack(&mut self) {
        if let Part::Sack(_) = self.part {
            self.part = Part::Reno(Reno::new(true));
        }
    }

    #[inline]
    pub fn in_recovery(&self) -> bool {
        self.ep.in_recovery
    }
    pub fn dupthresh(&self) -> u32 {
        self.ep.dupthresh
    }
    #[inline]
    pub fn uses_sack(&self) -> bool {
        dispatch!(&self.part, p => p.uses_sack())
    }
    /// New data that limited transmit sent beyond cwnd since the last new ACK; RFC 5681
    /// §3.2 step 2 leaves it out of the FlightSize that ssthresh halves.
    pub fn limited_transmit_bytes(&self) -> u64 {
        self.ep.limited_transmit_bytes
    }

    /// RFC 3042: what limited transmit adds to cwnd: one segment per duplicate ACK below
    /// dupthresh, outside recovery.
    #[inline]
    pub fn limited_transmit_allowance(&self, mss: u64) -> u64 {
        let ep = &self.ep;
        if ep.limited_transmit && !ep.in_recovery && ep.dupacks < ep.dupthresh {
            ep.dupacks as u64 * mss
        } else {
            0
        }
    }

    /// New data of `len` bytes went out beyond cwnd (only limited transmit allows that).
    pub fn on_limited_transmit(&mut self, len: u64) {
        self.ep.limited_transmit_bytes += len;
    }

    /// An ACK came with these SACK blocks: a SACK part marks them on the scoreboard; the
    /// bytes newly SACKed. Always inlined: on every ACK, and without SACK it is one test.
    #[inline(always)]
    pub fn on_sack(&mut self, queue: &mut SendQueue, blocks: impl IntoIterator<Item = SeqRange>) -> u64 {
        if self.uses_sack() {
            self.ep.newly_sacked = scoreboard::mark_sacked(queue, blocks);
            self.ep.newly_sacked
        } else {
            0
        }
    }

    /// The cumulative ACK advanced to `ack`, acknowledging `acked_bytes`.
    #[inline]
    pub fn on_new_ack(&mut self, ack: u64, acked_bytes: u64, mss: u64) -> NewAck {
        self.ep.dupacks = 0;
        self.ep.limited_transmit_bytes = 0;
        if !self.ep.in_recovery {
            return NewAck::Outside;
        }
        // `recover` is exclusive (snd_max at entry): ack >= recover covers all of it.
        let partial = if ack < self.ep.recover { dispatch!(&mut self.part, p => p.on_partial_ack(acked_bytes, mss)) } else { None };
        match partial {
            Some(p) => NewAck::Partial(p),
            None => {
                self.ep.in_recovery = false;
                NewAck::End
            }
        }
    }

    /// A duplicate ACK arrived (a pure ACK at snd_una with data outstanding).
    pub fn on_dupack(&mut self, queue: &SendQueue, snd_una: u64, mss: u64) -> DupAck {
        self.ep.dupacks += 1;
        if self.ep.in_recovery {
            return match dispatch!(&mut self.part, p => p.on_dupack_in_recovery(mss)) {
                Some(w) => DupAck::Window(w),
                None => DupAck::Nothing,
            };
        }
        let lost = self.ep.dupacks >= self.ep.dupthresh || dispatch!(&self.part, p => p.loss_detected_early(&self.ep, queue, snd_una, mss));
        if lost && self.may_enter(snd_una) {
            DupAck::LossDetected
        } else {
            DupAck::Nothing
        }
    }

    /// Whether a loss detected now may start a new recovery, `recover` being snd_max when the
    /// last one began (HighData + 1). NewReno and ns-2's Sack1 follow ns-2's `bugfix_`: only
    /// once the cumulative ACK covers more than `recover`, so that one window of losses
    /// causes one reduction. That is one segment stricter than RFC 6582 §3.2 step 2, whose
    /// recover is the highest byte sent; the ns-2 cross-checks rest on it. RFC 6675 recovery
    /// begins again at HighACK >= RecoveryPoint (§5.1), i.e. `snd_una >= recover`: the ACK
    /// of the recovery point ends one recovery (§5 step 4.1) and a hole just above it starts
    /// the next.
    pub fn may_enter(&self, snd_una: u64) -> bool {
        let at_point = snd_una == self.ep.recover && dispatch!(&self.part, p => p.enters_at_recovery_point());
        !self.ep.in_recovery && (snd_una > self.ep.recover || at_point)
    }

    /// Loss repair is under way: a recovery, or the window of a timeout that go-back-N is
    /// still repairing (Linux's Recovery and Loss states: `snd_una` below `recover`).
    pub fn repairing(&self, snd_una: u64) -> bool {
        self.ep.in_recovery || snd_una < self.ep.recover
    }

    /// Recovery begins (after `DupAck::LossDetected`): `snd_max` is the recovery point and
    /// `flight_bytes` FlightSize. Returns the cwnd inflation over ssthresh.
    pub fn enter(&mut self, queue: &mut SendQueue, snd_max: u64, flight_bytes: u64, mss: u64) -> u64 {
        self.ep.in_recovery = true;
        self.ep.recover = snd_max;
        scoreboard::start_episode(queue);
        dispatch!(&mut self.part, p => p.on_enter(&self.ep, &*queue, flight_bytes, mss))
    }

    /// What to send next; `NextSend::Window` outside recovery.
    #[inline]
    pub fn next_send(&mut self, ctx: &SendCtx) -> NextSend {
        if !self.ep.in_recovery {
            return NextSend::Window;
        }
        dispatch!(&mut self.part, p => p.next_send(&self.ep, ctx))
    }

    /// The segment `next_send` chose went out.
    pub fn on_sent_in_recovery(&mut self, mss: u64) {
        dispatch!(&mut self.part, p => p.on_sent_in_recovery(mss))
    }

    /// The retransmission timer expired: recovery is over; RFC 6582 §3.2 step 4 sets recover
    /// to the highest sequence number sent so that the go-back-N repair does not trigger a
    /// second reduction. The SACK marks go (RFC 2018 §8: the receiver may have reneged).
    pub fn on_rto(&mut self, queue: &mut SendQueue, snd_max: u64) {
        scoreboard::forget_sacks(queue);
        self.ep.in_recovery = false;
        self.ep.dupacks = 0;
        self.ep.recover = snd_max;
        self.ep.limited_transmit_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn recovery(kind: RecoveryKind) -> Recovery {
        Recovery::new(kind, 3, SackPipe::Rfc6675, false, false)
    }

    fn dupacks(r: &mut Recovery, n: u32) -> DupAck {
        let q = SendQueue::default();
        (0..n).map(|_| r.on_dupack(&q, 1, MSS)).last().unwrap()
    }

    #[test]
    fn third_duplicate_ack_detects_the_loss_rfc5681_3_2() {
        let mut r = recovery(RecoveryKind::NewReno);
        assert_eq!(dupacks(&mut r, 2), DupAck::Nothing);
        assert_eq!(dupacks(&mut r, 1), DupAck::LossDetected);
    }

    #[test]
    fn newreno_enters_with_inflation_and_partial_acks_retransmit_rfc6582() {
        let mut r = recovery(RecoveryKind::NewReno);
        dupacks(&mut r, 3);
        assert_eq!(r.enter(&mut SendQueue::default(), 20_001, 20 * MSS, MSS), 3 * MSS, "RFC 5681 §3.2 step 4");
        assert_eq!(dupacks(&mut r, 1), DupAck::Window(RecoveryWindow::Inflate));
        let first = r.on_new_ack(5_001, 5 * MSS, MSS);
        let window = Some(RecoveryWindow::Deflate { acked_bytes: 5 * MSS });
        assert_eq!(first, NewAck::Partial(Partial { window, retransmit_first: true, restart_rto: true }));
        let NewAck::Partial(second) = r.on_new_ack(8_001, 3 * MSS, MSS) else { panic!("still in recovery") };
        assert!(second.retransmit_first && !second.restart_rto, "step 5: only the first partial ACK resets the timer");
        assert_eq!(r.on_new_ack(20_001, 12 * MSS, MSS), NewAck::End);
        assert!(!r.in_recovery());
    }

    #[test]
    fn reno_leaves_recovery_at_the_first_new_ack_rfc5681_3_2_step_6() {
        let mut r = recovery(RecoveryKind::Reno);
        dupacks(&mut r, 3);
        r.enter(&mut SendQueue::default(), 20_001, 20 * MSS, MSS);
        assert_eq!(r.on_new_ack(5_001, 5 * MSS, MSS), NewAck::End);
    }

    #[test]
    fn no_second_recovery_for_the_same_window_rfc6582_3_2_step_2() {
        let mut r = recovery(RecoveryKind::NewReno);
        dupacks(&mut r, 3);
        r.enter(&mut SendQueue::default(), 20_001, 20 * MSS, MSS);
        r.on_new_ack(20_001, 20 * MSS, MSS);
        let q = SendQueue::default();
        let at = |r: &mut Recovery, una| (0..3).map(|_| r.on_dupack(&q, una, MSS)).last().unwrap();
        assert_eq!(at(&mut r, 20_001), DupAck::Nothing);
        assert_eq!(at(&mut r, 20_002), DupAck::LossDetected);
    }

    /// RFC 6675 §5.1: "a new recovery phase ... MUST NOT be initiated until HighACK is
    /// greater than or equal to the new value of RecoveryPoint"; §5 step 4.1: the ACK of
    /// RecoveryPoint ends the recovery. HighACK >= RecoveryPoint is `snd_una >= recover`.
    #[test]
    fn a_sack_recovery_may_begin_at_the_ack_of_the_recovery_point_rfc6675_5_1() {
        let mut r = recovery(RecoveryKind::Sack);
        dupacks(&mut r, 3);
        r.enter(&mut SendQueue::default(), 20_001, 20 * MSS, MSS);
        assert_eq!(r.on_new_ack(20_001, 20 * MSS, MSS), NewAck::End);
        let q = SendQueue::default();
        let at = |r: &mut Recovery, una| (0..3).map(|_| r.on_dupack(&q, una, MSS)).last().unwrap();
        assert_eq!(at(&mut r, 20_001), DupAck::LossDetected, "the segment just above the recovery point");
        r.enter(&mut SendQueue::default(), 30_001, 10 * MSS, MSS);
        r.on_rto(&mut SendQueue::default(), 40_001);
        assert!(!r.may_enter(40_000), "go-back-N has not repaired all sent before the timeout");
        assert!(r.may_enter(40_001));
        let mut sack1 = Recovery::new(RecoveryKind::Sack, 3, SackPipe::Sack1, false, false);
        sack1.on_rto(&mut SendQueue::default(), 40_001);
        assert!(!sack1.may_enter(40_001), "ns-2's Sack1 keeps ns-2's rule");
    }

    #[test]
    fn limited_transmit_allows_one_segment_per_duplicate_ack_below_dupthresh_rfc3042() {
        let mut r = Recovery::new(RecoveryKind::NewReno, 3, SackPipe::Rfc6675, false, true);
        dupacks(&mut r, 2);
        assert_eq!(r.limited_transmit_allowance(MSS), 2 * MSS);
        dupacks(&mut r, 1);
        assert_eq!(r.limited_transmit_allowance(MSS), 0);
    }
}
