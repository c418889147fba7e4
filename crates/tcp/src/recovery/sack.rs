//! SACK-based loss recovery (RFC 6675): the scoreboard says which segments are lost, and
//! the pipe estimate, not an inflated window, decides when a segment may go; or, with PRR
//! (RFC 6937, `prr.rs`), each ACK releases data in proportion to what it delivered.

use super::{Episode, LossRecovery, NextSend, Partial, Prr, SackPipe, Scoreboard, SendCtx};
use crate::cc::RecoveryWindow;
use crate::send_queue::SendQueue;

#[derive(Clone, Debug)]
pub struct Sack {
    pipe_rule: SackPipe,
    /// The `SackPipe::Sack1` counter, in bytes (unused otherwise).
    pipe: u64,
    /// Send as PRR (RFC 6937) says rather than while pipe < cwnd; its state in a recovery.
    prr: bool,
    prr_state: Option<Prr>,
}

impl Sack {
    pub fn new(pipe_rule: SackPipe, prr: bool) -> Self {
        Sack { pipe_rule, pipe: 0, prr, prr_state: None }
    }

    fn counts_pipe(&self) -> bool {
        self.pipe_rule == SackPipe::Sack1
    }

    /// Sack1 pipe: an ACK arrived during recovery; a partial ACK counts twice (ns-2
    /// `Sack1TcpAgent::recv`, `partial_ack_` false).
    fn pipe_on_ack(&mut self, partial: bool, mss: u64) {
        if self.counts_pipe() {
            let out = if partial { 2 * mss } else { mss };
            self.pipe = self.pipe.saturating_sub(out);
        }
    }
}

impl LossRecovery for Sack {
    fn uses_sack(&self) -> bool {
        true
    }

    /// RFC 6675 §5.1; ns-2's Sack1 keeps ns-2's `bugfix_` rule (`Recovery::may_enter`).
    fn enters_at_recovery_point(&self) -> bool {
        !self.counts_pipe()
    }

    /// RFC 6675 §5: a segment is lost (IsLost()) once dupthresh segments above it are SACKed,
    /// even before dupthresh duplicate ACKs arrived.
    fn loss_detected_early(&self, ep: &Episode, queue: &SendQueue, snd_una: u64, mss: u64) -> bool {
        Scoreboard::of(queue, ep.dupthresh, mss).first_lost == Some(snd_una)
    }

    /// RFC 6675 §5 step 4.2: cwnd = ssthresh, no inflation. Sack1: the dupthresh duplicate
    /// ACKs mean that many segments left the network.
    fn on_enter(&mut self, ep: &Episode, queue: &SendQueue, flight_bytes: u64, mss: u64) -> u64 {
        self.pipe = flight_bytes.saturating_sub(ep.dupthresh as u64 * mss);
        if self.prr {
            let (una, first_len) = queue.from(0).next().map_or((0, 0), |s| (s.seq, s.len as u64));
            // What was SACKed before the ACK that starts recovery: its delivery counts too.
            let sacked_before = Scoreboard::of(queue, ep.dupthresh, mss).sacked - ep.newly_sacked;
            self.prr_state = Some(Prr::new(flight_bytes, una, sacked_before, first_len));
        }
        0
    }

    fn on_dupack_in_recovery(&mut self, mss: u64) -> Option<RecoveryWindow> {
        self.pipe_on_ack(false, mss);
        None
    }

    /// RFC 6675 leaves the window alone at a partial ACK; the scoreboard finds the next hole.
    fn on_partial_ack(&mut self, _acked_bytes: u64, mss: u64) -> Option<Partial> {
        self.pipe_on_ack(true, mss);
        Some(Partial { window: None, retransmit_first: false, restart_rto: true })
    }

    /// RFC 6675 §5 step (C): while pipe leaves room for a segment, send NextSeg(): first a
    /// lost segment not yet retransmitted (rule 1), else new data (rule 2). Rules 3 and 4
    /// (rescue retransmissions) are not implemented. With `SackPipe::Sack1` the pipe is
    /// ns-2's counter, and a segment may go while pipe < cwnd (`Sack1TcpAgent::send_much`).
    /// With PRR, each ACK's sndcnt (RFC 6937 §3) decides instead, cwnd being ssthresh in
    /// SACK recovery.
    fn next_send(&mut self, ep: &Episode, ctx: &SendCtx) -> NextSend {
        let sb = Scoreboard::of(ctx.queue, ep.dupthresh, ctx.mss);
        let sack1 = self.counts_pipe();
        let room = match &mut self.prr_state {
            Some(prr) => {
                prr.on_ack(ctx.snd_una, sb.sacked, sb.pipe, ctx.cwnd, ctx.mss);
                prr.may_send(sb.pipe, ctx.mss)
            }
            None if sack1 => self.pipe < ctx.cwnd,
            None => sb.pipe + ctx.mss <= ctx.cwnd,
        };
        match (room, sb.first_lost) {
            (false, _) => NextSend::Hold,
            (true, Some(seq)) => NextSend::Retransmit(seq),
            (true, None) => NextSend::NewData,
        }
    }

    fn on_sent_in_recovery(&mut self, mss: u64) {
        if self.counts_pipe() {
            self.pipe += mss;
        }
        if let Some(prr) = &mut self.prr_state {
            prr.on_sent(mss);
        }
    }
}
