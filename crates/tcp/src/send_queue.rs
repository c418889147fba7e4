//! The sender's record of every segment sent and not yet cumulatively acknowledged, with
//! the SACK scoreboard of RFC 6675 on top. Retransmissions reuse the original segment
//! boundaries, so a record is found by its first sequence number.

use std::collections::VecDeque;

use crate::segment::SeqRange;
use crate::time::{Duration, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSeg {
    pub seq: u64,
    pub len: u32,
    pub fin: bool,
    pub sent_at: Time,
    /// Sent more than once (Karn's rule: no RTT sample from it).
    pub retransmitted: bool,
    /// Retransmitted in the current SACK recovery episode (counts twice in pipe).
    pub rtx_in_recovery: bool,
    pub sacked: bool,
}

impl SentSeg {
    pub fn seq_end(&self) -> u64 {
        self.seq + self.len as u64 + self.fin as u64
    }
}

/// What a cumulative ACK acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acked {
    pub bytes: u64,
    /// RTT from the newest acknowledged segment, when no acknowledged segment was ever
    /// retransmitted (Karn's rule, applied to the whole ACK so that a repair that fills a
    /// hole does not produce an inflated sample).
    pub rtt_sample: Option<Duration>,
}

/// The RFC 6675 view of the outstanding data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    /// Bytes thought to be in the network (RFC 6675 §4 SetPipe).
    pub pipe: u64,
    /// First segment that IsLost() and that was not retransmitted in this episode.
    pub first_lost: Option<u64>,
}

#[derive(Clone, Debug, Default)]
pub struct SendQueue {
    segs: VecDeque<SentSeg>,
}

impl SendQueue {
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    fn index_of(&self, seq: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.seq < seq);
        (i < self.segs.len() && self.segs[i].seq == seq).then_some(i)
    }

    pub fn get(&self, seq: u64) -> Option<&SentSeg> {
        self.index_of(seq).map(|i| &self.segs[i])
    }

    /// Record a first transmission at the end of the queue.
    pub fn push_new(&mut self, seq: u64, len: u32, fin: bool, now: Time) {
        debug_assert!(self.segs.back().is_none_or(|s| s.seq_end() <= seq));
        self.segs.push_back(SentSeg {
            seq,
            len,
            fin,
            sent_at: now,
            retransmitted: false,
            rtx_in_recovery: false,
            sacked: false,
        });
    }

    /// Mark the record at `seq` as sent again now; returns it.
    pub fn mark_retransmitted(&mut self, seq: u64, now: Time, in_recovery: bool) -> Option<SentSeg> {
        let i = self.index_of(seq)?;
        let s = &mut self.segs[i];
        s.sent_at = now;
        s.retransmitted = true;
        s.rtx_in_recovery |= in_recovery;
        Some(*s)
    }

    /// Drop everything below `ack`. Inlined into the sender's new-ACK path, its one caller.
    #[inline]
    pub fn on_cumulative_ack(&mut self, ack: u64, now: Time) -> Acked {
        let mut bytes = 0;
        let mut any_retransmitted = false;
        let mut newest: Option<Time> = None;
        while let Some(front) = self.segs.front_mut() {
            if front.seq_end() <= ack {
                bytes += front.len as u64;
                any_retransmitted |= front.retransmitted;
                newest = Some(newest.map_or(front.sent_at, |t: Time| t.max(front.sent_at)));
                self.segs.pop_front();
            } else {
                if front.seq < ack {
                    // Acknowledged part-way: keep the rest as its own record.
                    let cut = ack - front.seq;
                    bytes += cut;
                    front.seq = ack;
                    front.len -= cut as u32;
                }
                break;
            }
        }
        let rtt_sample = match (any_retransmitted, newest) {
            (false, Some(t)) => Some(now.since(t)),
            _ => None,
        };
        Acked { bytes, rtt_sample }
    }

    /// Mark records covered by SACK blocks. Returns bytes newly SACKed.
    pub fn on_sack(&mut self, blocks: impl IntoIterator<Item = SeqRange>) -> u64 {
        let mut newly = 0;
        for b in blocks {
            let from = self.segs.partition_point(|s| s.seq < b.start);
            for s in self.segs.range_mut(from..) {
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
    pub fn start_recovery_episode(&mut self) {
        for s in &mut self.segs {
            s.rtx_in_recovery = false;
        }
    }

    /// Forget SACK marks (after an RTO the receiver may have reneged, RFC 2018 §8).
    pub fn clear_sacks(&mut self) {
        for s in &mut self.segs {
            s.sacked = false;
        }
    }

    /// RFC 6675 §4: IsLost() and SetPipe() in one pass from the highest record down.
    pub fn scoreboard(&self, dupthresh: u32, mss: u64) -> Scoreboard {
        let mut sacked_segs = 0u32;
        let mut sacked_bytes = 0u64;
        let mut sb = Scoreboard::default();
        for s in self.segs.iter().rev() {
            if s.sacked {
                sacked_segs += 1;
                sacked_bytes += s.len as u64;
                continue;
            }
            let lost = sacked_segs >= dupthresh || sacked_bytes > (dupthresh as u64 - 1) * mss;
            let len = s.len as u64 + s.fin as u64;
            if !lost {
                sb.pipe += len;
            }
            if s.rtx_in_recovery {
                sb.pipe += len;
            } else if lost {
                sb.first_lost = Some(s.seq);
            }
        }
        sb
    }

    /// The first record at or above `seq` that is not SACKed.
    pub fn next_unsacked_from(&self, seq: u64) -> Option<&SentSeg> {
        let i = self.segs.partition_point(|s| s.seq < seq);
        self.segs.range(i..).find(|s| !s.sacked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue_of(n: u64, mss: u32) -> SendQueue {
        let mut q = SendQueue::default();
        for k in 0..n {
            q.push_new(1 + k * mss as u64, mss, false, Time(k));
        }
        q
    }

    #[test]
    fn cumulative_ack_removes_records_and_samples_the_newest() {
        let mut q = queue_of(4, 100);
        let a = q.on_cumulative_ack(201, Time(10));
        assert_eq!(a, Acked { bytes: 200, rtt_sample: Some(Duration(9)) });
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn karn_no_sample_when_a_retransmitted_segment_is_acked() {
        let mut q = queue_of(3, 100);
        q.mark_retransmitted(1, Time(5), false);
        assert_eq!(q.on_cumulative_ack(301, Time(10)).rtt_sample, None);
    }

    #[test]
    fn three_sacked_segments_above_make_a_segment_lost() {
        let mut q = queue_of(5, 100);
        assert_eq!(q.on_sack([SeqRange { start: 101, end: 401 }]), 300);
        let sb = q.scoreboard(3, 100);
        assert_eq!(sb.first_lost, Some(1));
        // segments 1 (lost) and 401 (not lost: nothing SACKed above it) -> pipe counts only 401
        assert_eq!(sb.pipe, 100);
        q.mark_retransmitted(1, Time(9), true);
        let sb = q.scoreboard(3, 100);
        assert_eq!(sb.first_lost, None);
        assert_eq!(sb.pipe, 200, "a retransmitted segment is back in the pipe");
    }

    #[test]
    fn partial_ack_trims_the_record() {
        let mut q = queue_of(2, 100);
        assert_eq!(q.on_cumulative_ack(51, Time(3)).bytes, 50);
        assert_eq!(q.get(51).map(|s| s.len), Some(50));
    }
}
