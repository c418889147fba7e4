//! Reno (RFC 5681 §3.2) and NewReno (RFC 6582) fast recovery: the window is inflated by
//! one segment per duplicate ACK; Reno ends recovery at the first new ACK, NewReno only
//! when the recovery point is acknowledged, retransmitting the next hole at each partial ACK.

use super::{Episode, LossRecovery, Partial};
use crate::cc::RecoveryWindow;
use crate::send_queue::SendQueue;

#[derive(Clone, Debug)]
pub struct Reno {
    /// RFC 6582: stay in recovery through partial ACKs.
    newreno: bool,
    /// Whether the RTO timer was already reset by a partial ACK in this episode (RFC 6582
    /// §3.2 step 5: reset it for the first partial ACK only).
    partial_ack_seen: bool,
}

impl Reno {
    pub fn new(newreno: bool) -> Self {
        Reno { newreno, partial_ack_seen: false }
    }
}

impl LossRecovery for Reno {
    /// RFC 5681 §3.2 step 4: inflate by the dupthresh segments that left the network.
    fn on_enter(&mut self, ep: &Episode, _queue: &SendQueue, _flight_bytes: u64, mss: u64) -> u64 {
        self.partial_ack_seen = false;
        ep.dupthresh as u64 * mss
    }

    /// RFC 5681 §3.2 step 5: each further duplicate ACK means a segment left.
    fn on_dupack_in_recovery(&mut self, _mss: u64) -> Option<RecoveryWindow> {
        Some(RecoveryWindow::Inflate)
    }

    /// RFC 6582 §3.2 step 5: retransmit the next hole and deflate the window by what was
    /// acknowledged. Reno has no partial ACKs: the first new ACK ends recovery.
    fn on_partial_ack(&mut self, acked_bytes: u64, _mss: u64) -> Option<Partial> {
        if !self.newreno {
            return None;
        }
        let first = !self.partial_ack_seen;
        self.partial_ack_seen = true;
        Some(Partial { window: Some(RecoveryWindow::Deflate { acked_bytes }), retransmit_first: true, restart_rto: first })
    }
}
