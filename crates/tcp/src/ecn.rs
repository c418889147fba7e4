//! Explicit Congestion Notification at one TCP end (RFC 3168 §6.1): the negotiation in
//! the handshake, the codepoint on data, the receiver's echo and the sender's once-per-
//! window reduction. The endpoint asks it what to put on each segment and tells it what
//! came in; the window reduction itself is the sender's (`Sender::on_ecn_echo`).

use crate::registry::{Family, PartInfo};
use crate::segment::Segment;

/// ECN in the registry (`ecn = true`): it looks at every segment sent and received.
pub const INFO: PartInfo = PartInfo {
    family: Family::Extra,
    name: "ecn",
    doc: "RFC 3168 ECN: negotiated in the handshake, ECT(0) on new data, CE echoed until CWR, one reduction per window",
    keys: &[],
    per_segment: true,
};

/// Packed in one word, as an endpoint's size is in the engine's per-packet cache footprint
/// (`Endpoint`): four flags in the low bits, and above them `recover`, the highest sequence
/// number sent at the last reduction: no second one until the cumulative ACK passes it,
/// once per window of data (§6.1.2). Sequence numbers stay below 2^60.
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnState(u64);

/// Both ends asked for ECN in the handshake (§6.1.1).
const NEGOTIATED: u64 = 1;
/// A CE-marked packet came: every ACK carries ECE until a CWR comes (§6.1.3).
const ECHO: u64 = 2;
/// The window was reduced: the next new data segment carries CWR (§6.1.2).
const CWR_DUE: u64 = 4;
/// The window was reduced for an echoed mark and the ACKs have not passed `recover`: they
/// echo the same congestion and do not grow the window (`holds_growth`).
const CWR_ROUND: u64 = 8;
const FLAGS: u32 = 4;

impl EcnState {
    /// Without a handshake the peer is taken to be configured as we are.
    pub fn new(configured: bool, handshake: bool) -> EcnState {
        let mut e = EcnState::default();
        e.set(NEGOTIATED, configured && !handshake);
        e
    }

    fn has(&self, flag: u64) -> bool {
        self.0 & flag != 0
    }

    fn set(&mut self, flag: u64, on: bool) {
        self.0 = if on { self.0 | flag } else { self.0 & !flag };
    }

    fn recover(&self) -> u64 {
        self.0 >> FLAGS
    }

    fn set_recover(&mut self, seq: u64) {
        debug_assert!(seq < 1 << (64 - FLAGS), "sequence number {seq} beyond 2^60");
        self.0 = (self.0 & ((1 << FLAGS) - 1)) | seq << FLAGS;
    }

    pub fn negotiated(&self) -> bool {
        self.has(NEGOTIATED)
    }

    /// §6.1.1: an ECN-setup SYN has ECE and CWR set.
    pub fn mark_syn(seg: &mut Segment) {
        seg.ecn.set_ece();
        seg.ecn.set_cwr();
    }

    /// §6.1.1: the passive end accepts an ECN-setup SYN if it is configured for ECN, and
    /// says so with ECE (and not CWR) on its SYN-ACK (`mark_syn_ack`).
    pub fn on_syn(&mut self, configured: bool, syn: &Segment) {
        self.set(NEGOTIATED, configured && syn.ecn.ece() && syn.ecn.cwr());
    }

    pub fn mark_syn_ack(&self, seg: &mut Segment) {
        if self.negotiated() {
            seg.ecn.set_ece();
        }
    }

    /// §6.1.1: the active end uses ECN if its SYN asked (`configured`) and the SYN-ACK
    /// answers with ECE and without CWR.
    pub fn on_syn_ack(&mut self, configured: bool, syn_ack: &Segment) {
        self.set(NEGOTIATED, configured && syn_ack.ecn.ece() && !syn_ack.ecn.cwr());
    }

    /// §6.1.3: what an arriving segment says to the receiver: CWR ends the echo, CE
    /// (after it, on the same packet) starts it again.
    pub fn on_received(&mut self, seg: &Segment) {
        if !self.negotiated() {
            return;
        }
        if seg.ecn.cwr() {
            self.set(ECHO, false);
        }
        if seg.ecn.ce() {
            self.set(ECHO, true);
        }
    }

    /// The bits of a segment we send: ECE on an ACK while echoing (§6.1.3); ECT(0) on new
    /// data only, never on a retransmission (§6.1.5) nor a pure ACK (§6.1.4); CWR on the
    /// first new data after a reduction (§6.1.2).
    pub fn mark(&mut self, seg: &mut Segment, retransmission: bool) {
        if !self.negotiated() {
            return;
        }
        if self.has(ECHO) && seg.flags.ack {
            seg.ecn.set_ece();
        }
        if seg.len > 0 && !retransmission {
            seg.ecn.set_ect0();
            if self.has(CWR_DUE) {
                seg.ecn.set_cwr();
                self.set(CWR_DUE, false);
            }
        }
    }

    /// An ACK with ECE came (§6.1.2). Returns whether the sender reduces its window now:
    /// not within a window of the last reduction, and not in loss recovery, which has
    /// reduced it already (then CWR still goes out, so that the receiver stops echoing).
    /// The window ends with the ACK of the data outstanding at the reduction: the receiver
    /// echoes until the CWR segment, the first new data after it (§6.1.3), so an ACK up to
    /// and including `recover` still echoes the same congestion.
    pub fn on_ece(&mut self, in_recovery: bool, snd_una: u64, snd_max: u64) -> bool {
        if !self.negotiated() {
            return false;
        }
        if in_recovery {
            self.set(CWR_DUE, true);
            return false;
        }
        if snd_una <= self.recover() {
            return false;
        }
        self.set_recover(snd_max);
        self.set(CWR_DUE, true);
        self.set(CWR_ROUND, true);
        true
    }

    /// Whether the ACK of `ack` may grow the window. §6.1.2: "The sending TCP SHOULD NOT
    /// increase the congestion window in response to the receipt of an ECN-Echo ACK
    /// packet": the ACKs of the data outstanding at a reduction for a mark echo it until
    /// the CWR segment arrives, so the window holds until an ACK passes `recover`, as
    /// Linux's CWR state (`tcp_fastretrans_alert` ends it once snd_una is above high_seq)
    /// and ns-3's CA_CWR do.
    pub fn holds_growth(&mut self, ack: u64) -> bool {
        if self.has(CWR_ROUND) && ack > self.recover() {
            self.set(CWR_ROUND, false);
        }
        self.has(CWR_ROUND)
    }

    /// The retransmission timer expired with `snd_max` sent: the timeout is the window's
    /// reduction (§6.1.2: CWR goes on the first new data after a reduction for any
    /// reason), a mark echoed from that window brings no second one, and the window grows
    /// again by slow start (Linux ignores ECE in its Loss state).
    pub fn on_rto(&mut self, snd_max: u64) {
        if !self.negotiated() {
            return;
        }
        self.set_recover(snd_max);
        self.set(CWR_DUE, true);
        self.set(CWR_ROUND, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Flags;

    fn data(len: u32) -> Segment {
        Segment { seq: 1, len, flags: Flags { ack: true, ..Flags::default() }, ..Segment::default() }
    }

    fn negotiated() -> EcnState {
        EcnState::new(true, false)
    }

    #[test]
    fn the_handshake_negotiates_ecn_only_when_both_ask() {
        // RFC 3168 §6.1.1: ECE+CWR on the SYN, ECE alone on the SYN-ACK.
        let mut syn = Segment::default();
        EcnState::mark_syn(&mut syn);
        assert!(syn.ecn.ece() && syn.ecn.cwr() && !syn.ecn.ect(), "no ECT on a SYN (§6.1.1)");
        let mut passive = EcnState::default();
        passive.on_syn(true, &syn);
        let mut syn_ack = Segment::default();
        passive.mark_syn_ack(&mut syn_ack);
        assert!(syn_ack.ecn.ece() && !syn_ack.ecn.cwr());
        let mut active = EcnState::default();
        active.on_syn_ack(true, &syn_ack);
        assert!(passive.negotiated() && active.negotiated());
        // A passive end not configured for ECN answers without ECE: neither uses it.
        let mut off = EcnState::default();
        off.on_syn(false, &syn);
        let mut plain_syn_ack = Segment::default();
        off.mark_syn_ack(&mut plain_syn_ack);
        active.on_syn_ack(true, &plain_syn_ack);
        assert!(!off.negotiated() && !active.negotiated());
        // A SYN without ECE and CWR (a peer without ECN) is not an ECN-setup SYN.
        passive.on_syn(true, &Segment::default());
        assert!(!passive.negotiated());
    }

    #[test]
    fn new_data_is_ect_and_retransmissions_and_pure_acks_are_not() {
        // RFC 3168 §6.1.4 (pure ACKs) and §6.1.5 (retransmissions).
        let mut e = negotiated();
        let mut d = data(1000);
        e.mark(&mut d, false);
        assert_eq!(d.ecn.field(), 2, "ECT(0)");
        let mut r = data(1000);
        e.mark(&mut r, true);
        assert!(!r.ecn.ect());
        let mut a = data(0);
        e.mark(&mut a, false);
        assert!(!a.ecn.ect());
        let mut off = EcnState::default();
        let mut d = data(1000);
        off.mark(&mut d, false);
        assert!(!d.ecn.ect(), "not without negotiation");
    }

    #[test]
    fn ece_is_echoed_on_every_ack_until_cwr_arrives() {
        // RFC 3168 §6.1.3.
        let mut rx = negotiated();
        let mut ce = data(1000);
        ce.ecn.set_ect0();
        ce.ecn.set_ce();
        rx.on_received(&ce);
        for _ in 0..3 {
            let mut ack = data(0);
            rx.mark(&mut ack, false);
            assert!(ack.ecn.ece());
        }
        let mut cwr = data(1000);
        cwr.ecn.set_ect0();
        cwr.ecn.set_cwr();
        rx.on_received(&cwr);
        let mut ack = data(0);
        rx.mark(&mut ack, false);
        assert!(!ack.ecn.ece());
    }

    #[test]
    fn the_window_holds_for_the_round_after_a_reduction_for_a_mark() {
        // §6.1.2: no growth on the ACKs that echo the mark, up to and including the ACK of
        // the data outstanding at the reduction; growth again after it.
        let mut tx = negotiated();
        assert!(!tx.holds_growth(1000), "no reduction yet");
        assert!(tx.on_ece(false, 1000, 50_000));
        assert!(tx.holds_growth(2000) && tx.holds_growth(50_000));
        assert!(!tx.holds_growth(51_000) && !tx.holds_growth(52_000));
        // A timeout ends the round, counts as the window's reduction and sends CWR.
        assert!(tx.on_ece(false, 60_000, 90_000));
        tx.on_rto(95_000);
        assert!(!tx.holds_growth(61_000), "slow start after a timeout grows");
        assert!(!tx.on_ece(false, 70_000, 95_000), "marks from the timed-out window bring no second reduction");
        let mut d = data(1000);
        tx.mark(&mut d, false);
        assert!(d.ecn.cwr(), "CWR on the first new data after the timeout");
        assert!(tx.on_ece(false, 96_000, 99_000), "a window later");
        // Without ECN nothing holds.
        let mut off = EcnState::new(false, true);
        off.on_rto(10_000);
        assert!(!off.holds_growth(5000));
    }

    #[test]
    fn the_sender_reduces_once_per_window_and_sends_cwr_once() {
        // RFC 3168 §6.1.2: one reduction per window of data; CWR on the next new data.
        let mut tx = negotiated();
        assert!(tx.on_ece(false, 1000, 50_000));
        assert!(!tx.on_ece(false, 2000, 60_000), "within the window of the reduction");
        let mut d = data(1000);
        tx.mark(&mut d, false);
        assert!(d.ecn.cwr());
        let mut next = data(1000);
        tx.mark(&mut next, false);
        assert!(!next.ecn.cwr(), "CWR once");
        assert!(!tx.on_ece(false, 50_000, 60_000), "the ACK of the window's last byte echoes the same CE");
        assert!(tx.on_ece(false, 51_000, 90_000), "a window later");
        // In loss recovery the window is reduced already: no second cut, but CWR goes out.
        assert!(!tx.on_ece(true, 95_000, 99_000));
        let mut d = data(1000);
        tx.mark(&mut d, false);
        assert!(d.ecn.cwr());
    }
}
