//! The sender's record of every segment sent and not yet cumulatively acknowledged, with the
//! marks the SACK scoreboard keeps on each (`recovery::scoreboard` sets and reads them).
//! Retransmissions reuse the original segment boundaries, so a record is found by its first
//! sequence number.

use std::collections::VecDeque;

use crate::time::{Duration, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSeg {
    pub seq: u64,
    pub len: u32,
    pub fin: bool,
    pub sent_at: Time,
    /// Sent more than once (Karn's rule: no RTT sample from it).
    pub retransmitted: bool,
    pub sacked: bool,
    pub repair: Repair,
}

/// Where a segment stands in the repair of losses. One field, not two flags, so that a
/// record stays 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repair {
    None,
    /// RACK marked it lost (RFC 8985 §6.2 step 5); it may be resent in this recovery.
    Lost,
    /// Retransmitted in the current SACK recovery episode (counts twice in pipe).
    Resent,
    /// Marked lost by RACK and then retransmitted in this episode: the original stays lost,
    /// so only the retransmission counts in pipe (Linux's in flight: lost_out still holds it,
    /// retrans_out adds it once).
    ResentLost,
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

    /// The highest segment sent (what a tail loss probe sends again).
    pub fn last(&self) -> Option<&SentSeg> {
        self.segs.back()
    }

    pub fn get(&self, seq: u64) -> Option<&SentSeg> {
        self.index_of(seq).map(|i| &self.segs[i])
    }

    /// Record a first transmission at the end of the queue.
    pub fn push_new(&mut self, seq: u64, len: u32, fin: bool, now: Time) {
        debug_assert!(self.segs.back().is_none_or(|s| s.seq_end() <= seq));
        self.segs.push_back(SentSeg { seq, len, fin, sent_at: now, retransmitted: false, sacked: false, repair: Repair::None });
    }

    /// Mark the record at `seq` as sent again now; returns it.
    pub fn mark_retransmitted(&mut self, seq: u64, now: Time, in_recovery: bool) -> Option<SentSeg> {
        let i = self.index_of(seq)?;
        let s = &mut self.segs[i];
        s.sent_at = now;
        s.retransmitted = true;
        s.repair = match s.repair {
            Repair::Lost | Repair::ResentLost if in_recovery => Repair::ResentLost,
            Repair::Resent | Repair::ResentLost => Repair::Resent,
            _ if in_recovery => Repair::Resent,
            _ => Repair::None,
        };
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

    /// The records from the first at or above `seq`, in sequence order.
    #[inline]
    pub fn from(&self, seq: u64) -> std::collections::vec_deque::Iter<'_, SentSeg> {
        let i = self.segs.partition_point(|s| s.seq < seq);
        self.segs.range(i..)
    }

    /// `from`, to change the records' marks (`recovery::scoreboard`).
    #[inline]
    pub fn from_mut(&mut self, seq: u64) -> std::collections::vec_deque::IterMut<'_, SentSeg> {
        let i = self.segs.partition_point(|s| s.seq < seq);
        self.segs.range_mut(i..)
    }
}

/// A queue of `n` segments of `mss` bytes from sequence number 1, the k-th sent at Time(k).
#[cfg(test)]
pub(crate) fn queue_of(n: u64, mss: u32) -> SendQueue {
    let mut q = SendQueue::default();
    for k in 0..n {
        q.push_new(1 + k * mss as u64, mss, false, Time(k));
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_stays_24_bytes() {
        // The sender scans its records on every ACK in recovery: keep them small.
        assert_eq!(std::mem::size_of::<SentSeg>(), 24);
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
    fn partial_ack_trims_the_record() {
        let mut q = queue_of(2, 100);
        assert_eq!(q.on_cumulative_ack(51, Time(3)).bytes, 50);
        assert_eq!(q.get(51).map(|s| s.len), Some(50));
    }
}
