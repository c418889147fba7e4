//! Proportional Rate Reduction (RFC 6937), as Linux sends during fast recovery: instead of
//! waiting for pipe to fall below the reduced window (RFC 6675), each ACK releases data in
//! proportion to what it delivered, so that the window comes down to ssthresh over one
//! round; once pipe is below ssthresh, the slow-start reduction bound (SSRB) lets it grow
//! back toward ssthresh by at most one segment more than was delivered.

/// PRR's state for one recovery (RFC 6937 §3 names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// RecoverFS: FlightSize when recovery began.
    recover_fs: u64,
    /// prr_delivered: bytes the receiver got during recovery (cumulatively or by SACK).
    delivered: u64,
    /// prr_out: bytes sent during recovery.
    out: u64,
    /// The window the last ACK set: pipe then plus its sndcnt. Linux keeps sndcnt so, as cwnd
    /// (`tcp_cwnd_reduction`: cwnd = in flight + sndcnt), and a segment may go while pipe
    /// leaves room under it: when the RACK timer marks more segments lost between ACKs, pipe
    /// falls and their retransmissions go without waiting for the next ACK.
    cwnd: u64,
    /// snd_una and the SACKed bytes at the last ACK, to find what the next delivered.
    una: u64,
    sacked: u64,
}

impl Prr {
    /// Recovery begins with `flight_bytes` outstanding from `snd_una`, `sacked` of them
    /// SACKed; the fast retransmit of `first_len` bytes goes at once (RFC 6675 §5 step 4.3;
    /// Linux forces it, `tcp_cwnd_reduction`), and counts as sent.
    pub fn new(flight_bytes: u64, snd_una: u64, sacked: u64, first_len: u64) -> Self {
        Prr { recover_fs: flight_bytes.max(1), delivered: 0, out: first_len, cwnd: 0, una: snd_una, sacked }
    }

    /// The scoreboard after an ACK: `snd_una`, the bytes SACKed above it and pipe (RFC 6675
    /// SetPipe). If the ACK delivered data (DeliveredData = Δsnd_una + ΔSACKed, §3), sets
    /// sndcnt: the proportional part while pipe > ssthresh, else the SSRB bound; and the
    /// window to pipe + sndcnt. An ACK that delivers nothing changes nothing (Linux returns
    /// early on `newly_acked_sacked == 0`).
    pub fn on_ack(&mut self, snd_una: u64, sacked: u64, pipe: u64, ssthresh: u64, mss: u64) {
        let delivered = (snd_una + sacked).saturating_sub(self.una + self.sacked);
        let una_advanced = snd_una > self.una;
        self.una = snd_una;
        self.sacked = sacked;
        if delivered == 0 {
            return;
        }
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // §3: sndcnt = CEIL(prr_delivered × ssthresh / RecoverFS) − prr_out, the CEIL to
            // whole segments as Linux counts them (`tcp_cwnd_reduction` works in packets):
            // to the byte, half a segment due would wait for the next ACK.
            let due = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128 * mss as u128) as u64 * mss;
            due.saturating_sub(self.out)
        } else {
            // §3, SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS;
            // sndcnt = MIN(ssthresh − pipe, limit). The MSS more only on an ACK that
            // advances snd_una, as Linux's `tcp_cwnd_reduction` gives it (RFC 6937bis's
            // SafeACK): an ACK that only SACKs, or the RACK timer that starts recovery with
            // no ACK, sends what was delivered (the conservative bound, PRR-CRB). Linux also
            // withholds it from an ACK that marks new losses; that half is not modelled.
            let more = if una_advanced { mss } else { 0 };
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + more;
            (ssthresh - pipe).min(limit)
        };
        self.cwnd = pipe + sndcnt;
    }

    /// Whether a segment of `mss` may go with `pipe` in the network now (RFC 6675's
    /// cwnd − pipe ≥ 1 SMSS, with the window the last ACK set).
    pub fn may_send(&self, pipe: u64, mss: u64) -> bool {
        pipe + mss <= self.cwnd
    }

    /// `bytes` went out in recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 §3: 20 segments out, one lost, ssthresh 10. Each SACK of one segment while
    /// pipe > ssthresh releases half a segment: one segment every other ACK, the fast
    /// retransmit counted as the first.
    #[test]
    fn rfc_6937_3_the_proportional_part_sends_one_for_every_two_delivered() {
        let mut p = Prr::new(20 * MSS, 0, 0, MSS);
        let mut sent = 0;
        let mut pipe = 19 * MSS; // the lost segment left the pipe; its retransmission is in it
        for k in 1..=15u64 {
            pipe -= MSS;
            p.on_ack(0, k * MSS, pipe, 10 * MSS, MSS);
            while p.may_send(pipe, MSS) {
                p.on_sent(MSS);
                pipe += MSS;
                sent += 1;
            }
        }
        // By the 14th ACK CEIL(14 × 10 / 20) = 7 were due, the retransmit one of them, and pipe
        // has come down from 19 to 11. The 15th finds pipe at ssthresh: the slow-start
        // reduction bound, ssthresh − pipe = 0, sends nothing.
        assert_eq!(sent, 6);
        assert_eq!((p.out, pipe), (7 * MSS, 10 * MSS));
    }

    /// SSRB: with pipe below ssthresh (a burst of losses), each ACK that advances snd_una
    /// may send what it delivered plus one segment, up to ssthresh − pipe.
    #[test]
    fn rfc_6937_3_the_slow_start_reduction_bound() {
        let mut p = Prr::new(20 * MSS, 0, 0, MSS);
        // One ACK covers 1 segment and SACKs 1; pipe has fallen to 4 (many losses), ssthresh 10.
        p.on_ack(MSS, MSS, 4 * MSS, 10 * MSS, MSS);
        // limit = max(2 − 1, 2) + 1 = 3 segments; ssthresh − pipe = 6.
        assert_eq!(p.cwnd, 7 * MSS, "pipe + 3");
        p.on_sent(3 * MSS);
        assert!(!p.may_send(7 * MSS, MSS));
        // Near ssthresh: the room left bounds it.
        p.on_ack(2 * MSS, 5 * MSS, 9 * MSS, 10 * MSS, MSS);
        assert_eq!(p.cwnd, 10 * MSS, "ssthresh − pipe = 1 segment");
    }

    /// Linux's `tcp_cwnd_reduction` (RFC 6937bis's SafeACK): below ssthresh, an ACK that only
    /// SACKs sends what it delivered and no more, as does recovery begun by the RACK timer
    /// after a SACK (the kernel's restart on the testbed, docs/testbed.md).
    #[test]
    fn an_ack_that_only_sacks_sends_what_it_delivered() {
        let mut p = Prr::new(20 * MSS, 0, 0, 0);
        p.on_ack(0, 2 * MSS, 4 * MSS, 10 * MSS, MSS);
        assert_eq!(p.cwnd, 6 * MSS, "pipe + max(2 − 0, 2), no segment more");
    }

    /// Linux's PRR is a window (cwnd = pipe + sndcnt): a segment marked lost between ACKs (by
    /// the RACK timer) leaves pipe, and its retransmission goes without another ACK.
    #[test]
    fn a_segment_marked_lost_between_acks_makes_room() {
        let mut p = Prr::new(20 * MSS, 0, 0, MSS);
        p.on_ack(0, MSS, 5 * MSS, 10 * MSS, MSS);
        assert!(p.may_send(5 * MSS, MSS), "max(1 − 1, 1) = 1 segment");
        p.on_sent(MSS);
        assert!(!p.may_send(6 * MSS, MSS));
        // The RACK timer marks two more lost: pipe falls by two, with no ACK.
        assert!(p.may_send(4 * MSS, MSS));
    }

    #[test]
    fn an_ack_that_delivers_nothing_releases_nothing() {
        let mut p = Prr::new(20 * MSS, 0, 0, MSS);
        p.on_ack(0, 0, 2 * MSS, 10 * MSS, MSS);
        assert!(!p.may_send(2 * MSS, MSS));
        // A cumulative ACK over SACKed data: only what was not SACKed before is new.
        p.on_ack(0, 3 * MSS, 15 * MSS, 10 * MSS, MSS);
        p.on_ack(4 * MSS, 0, 14 * MSS, 10 * MSS, MSS);
        assert_eq!(p.delivered, 4 * MSS, "3 SACKed, then the ACK of 4 covering them: 4 delivered");
    }
}
