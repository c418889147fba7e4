//! Loss recovery: which of the three classic repairs a sender uses after duplicate ACKs.
//! The sender (`sender.rs`) asks this part what a duplicate or new ACK means; the window
//! arithmetic of each rule cites its RFC clause here.

use crate::cc::Window;

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

impl RecoveryKind {
    pub fn name(self) -> &'static str {
        match self {
            RecoveryKind::Reno => "reno",
            RecoveryKind::NewReno => "newreno",
            RecoveryKind::Sack => "sack",
        }
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

/// State of one loss-recovery episode machine.
#[derive(Clone, Debug)]
pub struct Recovery {
    pub kind: RecoveryKind,
    pub dupthresh: u32,
    pub in_recovery: bool,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: the highest sequence number sent when
    /// recovery (or the last RTO) began.
    pub recover: u64,
    pub dupacks: u32,
    /// Whether the RTO timer was already reset by a partial ACK in this episode (RFC 6582
    /// §3.2 step 5: reset it for the first partial ACK only).
    pub partial_ack_seen: bool,
    pub sack_pipe: SackPipe,
    /// The `SackPipe::Sack1` counter, in bytes (unused otherwise).
    pub pipe: u64,
}

/// What the sender must do after an ACK was classified.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// Retransmit the first unacknowledged segment now.
    pub retransmit_first: bool,
    /// Restart the retransmission timer.
    pub restart_rto: bool,
}

impl Recovery {
    pub fn new(kind: RecoveryKind, dupthresh: u32, sack_pipe: SackPipe) -> Self {
        Recovery { kind, dupthresh, in_recovery: false, recover: 0, dupacks: 0, partial_ack_seen: false, sack_pipe, pipe: 0 }
    }

    /// Whether the `SackPipe::Sack1` counter is in use.
    pub fn counts_pipe(&self) -> bool {
        self.kind == RecoveryKind::Sack && self.sack_pipe == SackPipe::Sack1
    }

    /// Sack1 pipe: an ACK arrived during recovery; `partial` when it advanced the cumulative
    /// ACK without ending recovery (ns-2 `Sack1TcpAgent::recv`, `partial_ack_` false).
    pub fn pipe_on_ack(&mut self, partial: bool, mss: u64) {
        let out = if partial { 2 * mss } else { mss };
        self.pipe = self.pipe.saturating_sub(out);
    }

    /// RFC 6582 §3.2 step 2 (and ns-2's `bugfix_` for Reno): a new recovery may start only
    /// when the cumulative ACK covers more than `recover`, so one window of losses causes one
    /// reduction.
    pub fn may_enter(&self, snd_una: u64) -> bool {
        !self.in_recovery && snd_una > self.recover
    }

    /// Enter recovery with `ssthresh` already chosen by congestion control.
    /// `flight` is FlightSize at the fast retransmit (it starts the Sack1 pipe counter).
    pub fn enter(&mut self, w: &mut Window, ssthresh: u64, snd_max: u64, flight: u64, mss: u64) -> Decision {
        self.in_recovery = true;
        // Sack1: the dupthresh duplicate ACKs mean that many segments left the network.
        self.pipe = flight.saturating_sub(self.dupthresh as u64 * mss);
        self.recover = snd_max;
        self.partial_ack_seen = false;
        w.ssthresh = ssthresh;
        w.cwnd = match self.kind {
            // RFC 5681 §3.2 step 4 / RFC 6582: inflate by the three segments that left.
            RecoveryKind::Reno | RecoveryKind::NewReno => ssthresh + self.dupthresh as u64 * mss,
            // RFC 6675 §5 step 4.2: cwnd = ssthresh; pipe does the accounting.
            RecoveryKind::Sack => ssthresh,
        };
        // RFC 5681 §3.2 step 2 / RFC 6675 §5 step 4.3: the fast retransmit of the first
        // unacknowledged segment goes out at once; for SACK it does not wait for pipe < cwnd.
        Decision { retransmit_first: true, restart_rto: false }
    }

    /// A duplicate ACK arrived during recovery.
    pub fn on_dupack_in_recovery(&mut self, w: &mut Window, mss: u64) {
        if self.kind != RecoveryKind::Sack {
            // RFC 5681 §3.2 step 5: each further duplicate ACK means a segment left.
            w.cwnd += mss;
        }
    }

    /// New data up to `ack` was acknowledged during recovery (`acked` bytes).
    pub fn on_new_ack_in_recovery(&mut self, w: &mut Window, ack: u64, acked: u64, mss: u64) -> Decision {
        // `recover` is exclusive (snd_max at entry): ack >= recover covers all of it.
        let full = ack >= self.recover;
        if self.kind == RecoveryKind::Reno || full {
            // RFC 5681 §3.2 step 6 / RFC 6582 §3.2 step 6 option 2 (as ns-2): deflate to ssthresh.
            self.in_recovery = false;
            w.cwnd = w.ssthresh;
            return Decision { restart_rto: true, ..Default::default() };
        }
        if self.kind == RecoveryKind::Sack {
            return Decision { restart_rto: true, ..Default::default() };
        }
        // RFC 6582 §3.2 step 5: partial ACK: retransmit the next hole, deflate the window
        // by what was acknowledged and add back one segment if at least one was.
        w.cwnd = w.cwnd.saturating_sub(acked) + if acked >= mss { mss } else { 0 };
        w.cwnd = w.cwnd.max(mss);
        let first = !self.partial_ack_seen;
        self.partial_ack_seen = true;
        Decision { retransmit_first: true, restart_rto: first }
    }

    /// The retransmission timer expired: recovery is over; RFC 6582 §3.2 step 4 sets recover
    /// to the highest sequence number sent so that the go-back-N repair does not trigger a
    /// second reduction.
    pub fn on_rto(&mut self, snd_max: u64) {
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = snd_max;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn window() -> Window {
        Window { cwnd: 20 * MSS, ssthresh: u64::MAX }
    }

    #[test]
    fn newreno_enters_with_inflated_window_and_retransmits() {
        let mut r = Recovery::new(RecoveryKind::NewReno, 3, SackPipe::Rfc6675);
        let mut w = window();
        let d = r.enter(&mut w, 10 * MSS, 20_001, 20 * MSS, MSS);
        assert!(d.retransmit_first && !d.restart_rto);
        assert_eq!(w.cwnd, 13 * MSS);
        r.on_dupack_in_recovery(&mut w, MSS);
        assert_eq!(w.cwnd, 14 * MSS);
    }

    #[test]
    fn newreno_partial_ack_retransmits_and_deflates_full_ack_exits() {
        let mut r = Recovery::new(RecoveryKind::NewReno, 3, SackPipe::Rfc6675);
        let mut w = window();
        r.enter(&mut w, 10 * MSS, 20_001, 20 * MSS, MSS);
        let d = r.on_new_ack_in_recovery(&mut w, 5_001, 5 * MSS, MSS);
        assert!(d.retransmit_first && d.restart_rto);
        assert_eq!(w.cwnd, 13 * MSS - 5 * MSS + MSS);
        assert!(r.in_recovery);
        let d = r.on_new_ack_in_recovery(&mut w, 8_001, 3 * MSS, MSS);
        assert!(d.retransmit_first && !d.restart_rto, "only the first partial ACK resets the timer");
        let d = r.on_new_ack_in_recovery(&mut w, 20_001, 12 * MSS, MSS);
        assert!(!d.retransmit_first);
        assert!(!r.in_recovery);
        assert_eq!(w.cwnd, 10 * MSS);
    }

    #[test]
    fn reno_leaves_recovery_at_the_first_new_ack() {
        let mut r = Recovery::new(RecoveryKind::Reno, 3, SackPipe::Rfc6675);
        let mut w = window();
        r.enter(&mut w, 10 * MSS, 20_001, 20 * MSS, MSS);
        r.on_new_ack_in_recovery(&mut w, 5_001, 5 * MSS, MSS);
        assert!(!r.in_recovery);
        assert_eq!(w.cwnd, 10 * MSS);
    }

    #[test]
    fn no_second_recovery_for_the_same_window() {
        let mut r = Recovery::new(RecoveryKind::NewReno, 3, SackPipe::Rfc6675);
        let mut w = window();
        r.enter(&mut w, 10 * MSS, 20_001, 20 * MSS, MSS);
        r.on_new_ack_in_recovery(&mut w, 20_001, 20 * MSS, MSS);
        assert!(!r.may_enter(20_001));
        assert!(r.may_enter(20_002));
    }
}
