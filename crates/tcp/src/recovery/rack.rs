//! RACK, time-based loss detection (RFC 8985 §6): a segment is lost once a segment sent after
//! it has been delivered and it has had an RTT plus a reordering window to arrive. The marks
//! it sets (`SentSeg::lost`) join RFC 6675's IsLost() in the SACK scoreboard; the sender
//! enters recovery when RACK marks a loss outside it.
//!
//! Without DSACK (rampup's receiver sends none), the reordering window's multiplier stays 1
//! (§6.2 step 4 raises it only on a DSACK).

use crate::send_queue::{Repair, SendQueue, SentSeg};
use crate::time::{Duration, Time};

#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment known to be delivered.
    xmit_ts: Option<Time>,
    end_seq: u64,
    /// RACK.rtt: that segment's RTT.
    rtt: Duration,
    /// RACK.fack: the highest end of a delivered segment.
    fack: u64,
    /// RACK.reordering_seen: a segment was delivered below one delivered before it.
    reordering_seen: bool,
}

/// RACK_sent_after (§6.2): sent later, or at the same time and higher in sequence.
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// §6.2 steps 2 and 3 for a segment newly acknowledged or SACKed at `now`.
    pub fn on_delivered(&mut self, seg: &SentSeg, now: Time, min_rtt: Option<Duration>) {
        let end = seg.seq_end();
        let rtt = now.since(seg.sent_at);
        // Step 2: a retransmitted segment delivered sooner than the connection's least RTT
        // answers its original: no RTT, no send time to go by. Without a least RTT yet, the
        // ACK of a retransmission is as ambiguous (Karn): it is not used either.
        if seg.retransmitted && min_rtt.is_none_or(|m| rtt < m) {
            return;
        }
        // Step 3: delivered below what was delivered before it, and not a retransmission.
        if !seg.retransmitted && end < self.fack {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(end);
        if self.xmit_ts.is_none_or(|t| sent_after(seg.sent_at, end, t, self.end_seq)) {
            self.xmit_ts = Some(seg.sent_at);
            self.end_seq = end;
            self.rtt = rtt;
        }
    }

    /// RACK_update_reo_wnd (§6.2 step 4): none while reordering has not been seen and the
    /// sender is in recovery or `dupthresh` segments are SACKed; else a quarter of the least
    /// RTT, at most SRTT.
    pub fn reo_wnd(&self, in_recovery: bool, sacked_segs: u32, dupthresh: u32, min_rtt: Option<Duration>, srtt: Option<Duration>) -> Duration {
        if !self.reordering_seen && (in_recovery || sacked_segs >= dupthresh) {
            return Duration::ZERO;
        }
        let quarter = Duration(min_rtt.map_or(0, |m| m.0 / 4));
        srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// RACK_detect_loss (§6.2 step 5): mark every segment sent before RACK's that has had
    /// RACK.rtt + `reo_wnd` to arrive; a marked segment may go again in this recovery.
    /// Returns whether any segment not SACKed is marked lost (now or before, and not resent
    /// since) and, for the others it waits on, how long until the last of them is due (the
    /// reordering timer).
    pub fn detect_loss(&self, queue: &mut SendQueue, now: Time, reo_wnd: Duration) -> (bool, Option<Duration>) {
        let Some(xmit_ts) = self.xmit_ts else { return (false, None) };
        let (mut lost, mut wait) = (false, None::<Duration>);
        for s in queue.from_mut(0) {
            if s.repair == Repair::Lost && !s.sacked {
                lost = true;
                continue;
            }
            if s.sacked || !sent_after(xmit_ts, self.end_seq, s.sent_at, s.seq_end()) {
                continue;
            }
            let due = s.sent_at + self.rtt + reo_wnd;
            if due <= now {
                s.repair = Repair::Lost;
                lost = true;
            } else {
                let left = due.since(now);
                wait = Some(wait.map_or(left, |w| w.max(left)));
            }
        }
        (lost, wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Five segments of 1000 bytes sent 1 ms apart from t = 0.
    fn five() -> SendQueue {
        let mut q = SendQueue::default();
        for k in 0..5 {
            q.push_new(1 + 1000 * k, 1000, false, Time(k * MS));
        }
        q
    }

    fn deliver(rack: &mut Rack, q: &mut SendQueue, k: usize, now: Time) {
        let s = q.from_mut(0).nth(k).unwrap();
        s.sacked = true;
        let s = *s;
        rack.on_delivered(&s, now, Some(Duration(20 * MS)));
    }

    fn lost(q: &SendQueue) -> Vec<bool> {
        q.from(0).map(|s| s.repair == Repair::Lost).collect()
    }

    /// §6.2 step 5: the last segment SACKed at 24 ms (RTT 20 ms); the first, sent 4 ms
    /// before it, is lost at once with no reordering window; the others too, each sent
    /// before it. With a window of 5 ms the first waits until 0 + 20 + 5 = 25 ms.
    #[test]
    fn rfc_8985_6_2_a_segment_sent_before_a_delivered_one_is_lost_after_rtt_plus_reo_wnd() {
        let (mut q, mut rack) = (five(), Rack::default());
        deliver(&mut rack, &mut q, 4, Time(24 * MS));
        let (marked, wait) = rack.detect_loss(&mut q, Time(24 * MS), Duration::ZERO);
        assert!(marked && wait.is_none());
        assert_eq!(lost(&q), [true, true, true, true, false]);

        let (mut q, mut rack) = (five(), Rack::default());
        deliver(&mut rack, &mut q, 4, Time(24 * MS));
        let (marked, wait) = rack.detect_loss(&mut q, Time(24 * MS), Duration(5 * MS));
        // Segment k is due at k + 25 ms: segments 0..=3 wait, the longest 28 − 24 = 4 ms.
        assert!(!marked);
        assert_eq!(wait, Some(Duration(4 * MS)));
        let (marked, _) = rack.detect_loss(&mut q, Time(26 * MS), Duration(5 * MS));
        assert!(marked);
        assert_eq!(lost(&q), [true, true, false, false, false]);
        // Marks made before still count (a recovery refused then may start now), until the
        // segment is resent.
        assert_eq!(rack.detect_loss(&mut q, Time(26 * MS), Duration(5 * MS)), (true, Some(Duration(2 * MS))));
        q.mark_retransmitted(1, Time(26 * MS), true);
        q.mark_retransmitted(1001, Time(26 * MS), true);
        assert!(!rack.detect_loss(&mut q, Time(26 * MS), Duration(5 * MS)).0);
    }

    /// §6.2 step 3 and RACK_update_reo_wnd: no window in recovery or with dupthresh SACKed
    /// while no reordering was seen; once a segment is delivered below the highest delivered,
    /// the window is min RTT / 4 (at most SRTT) even in recovery.
    #[test]
    fn rfc_8985_6_2_reordering_opens_the_window() {
        let (mut q, mut rack) = (five(), Rack::default());
        let (min, srtt) = (Some(Duration(20 * MS)), Some(Duration(30 * MS)));
        assert_eq!(rack.reo_wnd(false, 1, 3, min, srtt), Duration(5 * MS));
        assert_eq!(rack.reo_wnd(true, 1, 3, min, srtt), Duration::ZERO);
        assert_eq!(rack.reo_wnd(false, 3, 3, min, srtt), Duration::ZERO);
        deliver(&mut rack, &mut q, 3, Time(23 * MS));
        deliver(&mut rack, &mut q, 1, Time(24 * MS));
        assert!(rack.reordering_seen);
        assert_eq!(rack.reo_wnd(true, 3, 3, min, srtt), Duration(5 * MS));
        assert_eq!(rack.reo_wnd(true, 3, 3, min, Some(Duration(3 * MS))), Duration(3 * MS), "at most SRTT");
    }

    /// The reordered case: segment 1 arrives late, after 2 and 3. With the window, segment
    /// 1 is not marked lost before its RTT + window has passed, so it is not resent.
    #[test]
    fn rfc_8985_6_2_a_late_segment_within_the_window_is_not_marked() {
        let (mut q, mut rack) = (five(), Rack::default());
        deliver(&mut rack, &mut q, 0, Time(20 * MS));
        deliver(&mut rack, &mut q, 2, Time(22 * MS));
        let reo = Duration(5 * MS);
        assert_eq!(rack.detect_loss(&mut q, Time(22 * MS), reo), (false, Some(Duration(4 * MS))));
        deliver(&mut rack, &mut q, 1, Time(23 * MS));
        assert!(rack.reordering_seen);
        assert_eq!(rack.detect_loss(&mut q, Time(30 * MS), reo), (false, None));
        assert!(lost(&q).iter().all(|&l| !l));
    }

    /// Step 2: the ACK of a retransmission that comes sooner than the least RTT answers the
    /// original; it moves neither RACK's send time nor its RTT.
    #[test]
    fn rfc_8985_6_2_an_ambiguous_retransmission_is_not_used() {
        let (mut q, mut rack) = (five(), Rack::default());
        deliver(&mut rack, &mut q, 0, Time(20 * MS));
        let s = q.from_mut(0).nth(2).unwrap();
        s.retransmitted = true;
        s.sent_at = Time(30 * MS);
        let s = *s;
        rack.on_delivered(&s, Time(35 * MS), Some(Duration(20 * MS)));
        assert_eq!((rack.xmit_ts, rack.rtt), (Some(Time(0)), Duration(20 * MS)));
        rack.on_delivered(&s, Time(55 * MS), Some(Duration(20 * MS)));
        assert_eq!((rack.xmit_ts, rack.rtt), (Some(Time(30 * MS)), Duration(25 * MS)));
    }
}
