//! The SACK scoreboard (RFC 6675 §4), kept as marks on the sender's records: which
//! segments the receiver holds (SACKed), which were resent in this recovery episode, and
//! from them which segments are lost (IsLost()) and how much is in the network (SetPipe()).

use crate::segment::SeqRange;
use crate::send_queue::{Repair, SendQueue, SentSeg};

/// The RFC 6675 view of the outstanding data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    /// Bytes thought to be in the network (RFC 6675 §4 SetPipe).
    pub pipe: u64,
    /// First segment that IsLost() and that was not retransmitted in this episode.
    pub first_lost: Option<u64>,
    /// Bytes SACKed above the cumulative ACK (PRR's DeliveredData reads its change).
    pub sacked: u64,
}

impl Scoreboard {
    /// RFC 6675 §4: IsLost() and SetPipe() in one pass from the highest record down. A
    /// segment is lost once `dupthresh` segments, or more than (dupthresh − 1)·SMSS bytes,
    /// above it are SACKed; a segment resent in this episode counts twice in pipe.
    pub fn of(queue: &SendQueue, dupthresh: u32, mss: u64) -> Scoreboard {
        let mut sacked_segs = 0u32;
        let mut sacked_bytes = 0u64;
        let mut sb = Scoreboard::default();
        for s in queue.from(0).rev() {
            if s.sacked {
                sacked_segs += 1;
                sacked_bytes += s.len as u64;
                continue;
            }
            // RACK's mark (RFC 8985 §6) is a loss too; without RACK none is set.
            let rack_lost = matches!(s.repair, Repair::Lost | Repair::ResentLost);
            let lost = rack_lost || sacked_segs >= dupthresh || sacked_bytes > (dupthresh as u64 - 1) * mss;
            let len = s.len as u64 + s.fin as u64;
            if !lost {
                sb.pipe += len;
            }
            if matches!(s.repair, Repair::Resent | Repair::ResentLost) {
                sb.pipe += len;
            } else if lost {
                sb.first_lost = Some(s.seq);
            }
        }
        sb.sacked = sacked_bytes;
        sb
    }
}

/// Mark the records that SACK blocks cover (RFC 2018 §3: a block covers whole segments as
/// sent). Returns the bytes newly SACKed.
pub fn mark_sacked(queue: &mut SendQueue, blocks: impl IntoIterator<Item = SeqRange>) -> u64 {
    let mut newly = 0;
    for b in blocks {
        for s in queue.from_mut(b.start) {
            if s.seq_end() > b.end {
                break;
            }
            if !s.sacked {
                s.sacked = true;
                newly += s.len as u64;
            }
        }
    }
    newly
}

/// A new recovery episode starts: no segment counts as retransmitted in it yet.
pub fn start_episode(queue: &mut SendQueue) {
    for s in queue.from_mut(0) {
        if matches!(s.repair, Repair::Resent | Repair::ResentLost) {
            s.repair = Repair::None;
        }
    }
}

/// Forget the SACK marks: after a timeout the receiver may have reneged (RFC 2018 §8); and
/// RACK's loss marks, as go-back-N resends everything.
pub fn forget_sacks(queue: &mut SendQueue) {
    for s in queue.from_mut(0) {
        s.sacked = false;
        if matches!(s.repair, Repair::Lost | Repair::ResentLost) {
            s.repair = Repair::None;
        }
    }
}

/// The first record at or above `seq` that is not SACKed: what go-back-N resends next.
pub fn next_unsacked_from(queue: &SendQueue, seq: u64) -> Option<&SentSeg> {
    queue.from(seq).find(|s| !s.sacked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::send_queue::queue_of;
    use crate::time::Time;

    #[test]
    fn three_sacked_segments_above_make_a_segment_lost_rfc6675_4() {
        let mut q = queue_of(5, 100);
        assert_eq!(mark_sacked(&mut q, [SeqRange { start: 101, end: 401 }]), 300);
        let sb = Scoreboard::of(&q, 3, 100);
        assert_eq!(sb.first_lost, Some(1));
        // segments 1 (lost) and 401 (not lost: nothing SACKed above it) -> pipe counts only 401
        assert_eq!(sb.pipe, 100);
        q.mark_retransmitted(1, Time(9), true);
        let sb = Scoreboard::of(&q, 3, 100);
        assert_eq!(sb.first_lost, None);
        assert_eq!(sb.pipe, 200, "a retransmitted segment is back in the pipe");
        start_episode(&mut q);
        assert_eq!(Scoreboard::of(&q, 3, 100), Scoreboard { pipe: 100, first_lost: Some(1), sacked: 300 }, "a new episode");
    }

    /// RFC 8985 §6 with RFC 6675's SetPipe: a segment RACK marked lost leaves the pipe, and
    /// once retransmitted only the retransmission counts (Linux: lost_out keeps the original,
    /// retrans_out adds the copy); a segment resent without RACK's mark and not IsLost()
    /// counts twice, original and copy.
    #[test]
    fn a_segment_rack_marked_lost_counts_once_when_resent_rfc8985_6() {
        let mut q = queue_of(3, 100);
        for s in q.from_mut(0).take(2) {
            s.repair = Repair::Lost;
        }
        assert_eq!(Scoreboard::of(&q, 3, 100).pipe, 100, "only the third is in flight");
        q.mark_retransmitted(1, Time(9), true);
        q.mark_retransmitted(201, Time(9), true);
        let sb = Scoreboard::of(&q, 3, 100);
        // The copy of 1 (its original lost), and the third twice; 101 still to resend.
        assert_eq!((sb.pipe, sb.first_lost), (300, Some(101)));
        let states: Vec<Repair> = q.from(0).map(|s| s.repair).collect();
        assert_eq!(states, [Repair::ResentLost, Repair::Lost, Repair::Resent]);
    }

    #[test]
    fn a_block_marks_only_whole_segments_and_go_back_n_skips_them_rfc2018_3() {
        let mut q = queue_of(4, 100);
        // 150..351 covers segment 201 whole, 101 and 301 only in part.
        assert_eq!(mark_sacked(&mut q, [SeqRange { start: 150, end: 351 }]), 100);
        assert_eq!(mark_sacked(&mut q, [SeqRange { start: 201, end: 301 }]), 0, "already SACKed");
        assert_eq!(next_unsacked_from(&q, 201).map(|s| s.seq), Some(301));
        forget_sacks(&mut q);
        assert_eq!(next_unsacked_from(&q, 201).map(|s| s.seq), Some(201), "after a timeout (RFC 2018 §8)");
    }
}
