//! CoDel, Controlled Delay (RFC 8289): drop (or mark) at dequeue once packets' sojourn
//! times have stayed above `target` for an `interval`, then at intervals shrinking as
//! interval/√count, until the sojourn falls below target again.
//!
//! `CoDelState` is the control law alone, run on a `Fifo` that its owner keeps: `CoDel`
//! owns one queue; FQ-CoDel (RFC 8290 §5) runs one state per flow queue.

use rampup_tcp::{Duration, Time};

use super::{Fifo, Queued, Verdicts};

/// CoDel's settings (RFC 8289 §4.2-4.4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoDelParams {
    /// The acceptable standing queue delay (§4.4: 5 ms).
    pub target: Duration,
    /// The window a queue must stay above target before the first drop (§4.3: 100 ms).
    pub interval: Duration,
    /// Below this many bytes left in the queue no packet is dropped (§4.2's MAXPACKET, one
    /// MTU: a queue of one packet is not a standing queue).
    pub mtu_bytes: u32,
    /// Mark ECN-capable packets instead of dropping them (§4).
    pub ecn: bool,
}

impl Default for CoDelParams {
    fn default() -> Self {
        CoDelParams { target: Duration::from_millis(5), interval: Duration::from_millis(100), mtu_bytes: 1500, ecn: false }
    }
}

/// The control law's state (RFC 8289 §5.5's variables).
#[derive(Clone, Copy, Debug, Default)]
pub struct CoDelState {
    /// When the sojourn time went (and stayed) above target, plus one interval; `None`
    /// while it is below.
    first_above_time: Option<Time>,
    /// When the next drop is due while dropping.
    drop_next: Time,
    /// Drops since the dropping state was entered.
    count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    dropping: bool,
}

impl CoDelState {
    /// §5.4 `dodequeue`: the head of `q` and whether it may be dropped: its sojourn has
    /// been above target for at least an interval, and more than one MTU is left behind it
    /// (`others_bytes`: bytes queued elsewhere that count as its queue's backlog).
    fn dodequeue(&mut self, now: Time, p: &CoDelParams, q: &mut Fifo, others_bytes: u64) -> Option<(Queued, bool)> {
        let Some(pkt) = q.pop() else {
            // The queue is empty: the sojourn is below target from here on.
            self.first_above_time = None;
            return None;
        };
        let sojourn = now.since(pkt.arrived);
        let mut ok_to_drop = false;
        if sojourn < p.target || q.bytes() + others_bytes <= p.mtu_bytes as u64 {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + p.interval),
                Some(t) => ok_to_drop = now >= t,
            }
        }
        Some((pkt, ok_to_drop))
    }

    /// §5.5 `dequeue`: the packet to send from `q` at `now`, signalling congestion (`out`)
    /// on those the control law picks; a dropped packet is followed by the next one.
    pub fn dequeue(&mut self, now: Time, p: &CoDelParams, q: &mut Fifo, others_bytes: u64, out: &mut Verdicts) -> Option<Queued> {
        let Some((mut pkt, mut ok_to_drop)) = self.dodequeue(now, p, q, others_bytes) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                // The sojourn time fell below target: leave the dropping state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if out.signal(&mut pkt, p.ecn) {
                    // Marked, not dropped: it is sent, and the next signal is due a
                    // shorter time on (Linux's codel_dequeue does the same).
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return Some(pkt);
                }
                let Some(next) = self.dodequeue(now, p, q, others_bytes) else {
                    self.dropping = false;
                    return None;
                };
                (pkt, ok_to_drop) = next;
                if ok_to_drop {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            if !out.signal(&mut pkt, p.ecn) {
                (pkt, _) = match self.dodequeue(now, p, q, others_bytes) {
                    Some(next) => next,
                    None => {
                        self.enter_dropping(now, p);
                        return None;
                    }
                };
            }
            self.enter_dropping(now, p);
        }
        Some(pkt)
    }

    /// Enter the dropping state after its first drop at `now`. Re-entering soon after
    /// leaving it (within 16 intervals of the last drop due) resumes near the count it had
    /// reached, less the drops of the previous cycle (`count - lastcount`), so that the
    /// drop rate that controlled the queue last time is taken up again (§5.5).
    fn enter_dropping(&mut self, now: Time, p: &CoDelParams) {
        self.dropping = true;
        let delta = self.count.saturating_sub(self.lastcount);
        self.count = if delta > 1 && now.since(self.drop_next) < Duration(16 * p.interval.0) { delta } else { 1 };
        self.drop_next = control_law(now, p.interval, self.count);
        self.lastcount = self.count;
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn dropping(&self) -> bool {
        self.dropping
    }
}

/// §5.5 `control_law`: the next drop, interval/√count after `t`.
fn control_law(t: Time, interval: Duration, count: u32) -> Time {
    t + Duration((interval.0 as f64 / (count.max(1) as f64).sqrt()) as u64)
}

/// CoDel on one FIFO queue.
#[derive(Debug)]
pub struct CoDel {
    params: CoDelParams,
    state: CoDelState,
    queue: Fifo,
}

impl CoDel {
    pub fn new(params: CoDelParams) -> CoDel {
        CoDel { params, state: CoDelState::default(), queue: Fifo::default() }
    }

    /// CoDel drops only at dequeue; a full queue drops the arriving packet (§5.2: "tail
    /// drop" when the buffer is full).
    pub fn enqueue(&mut self, pkt: Queued, full: bool, out: &mut Verdicts) {
        if full {
            out.drop(&pkt);
        } else {
            self.queue.push(pkt);
        }
    }

    pub fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Queued> {
        self.state.dequeue(now, &self.params, &mut self.queue, 0, out)
    }

    pub(super) fn queue(&self) -> &Fifo {
        &self.queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::test_util::{ms, pkt};

    /// A CoDel queue holding `n` 1500-byte packets that arrived at time 0.
    fn standing(n: u32, p: CoDelParams) -> CoDel {
        let mut c = CoDel::new(p);
        let mut out = Verdicts::default();
        for i in 0..n {
            c.enqueue(pkt(i, 1500, 0, 0), false, &mut out);
        }
        c
    }

    #[test]
    fn no_drop_while_the_sojourn_is_below_target() {
        // RFC 8289 §4.2: a packet whose sojourn is under target is never dropped.
        let mut c = standing(1000, CoDelParams::default());
        let mut out = Verdicts::default();
        for t in 0..5 {
            assert!(c.dequeue(ms(t), &mut out).is_some());
        }
        assert!(out.dropped.is_empty());
        assert_eq!(c.state.first_above_time, None);
    }

    #[test]
    fn first_drop_comes_one_interval_after_the_sojourn_passes_target() {
        // RFC 8289 §4.3: above target at 10 ms starts the interval; the first packet
        // dequeued at or after 110 ms is dropped, none before.
        let mut c = standing(1000, CoDelParams::default());
        let mut out = Verdicts::default();
        for t in (10..110).step_by(5) {
            c.dequeue(ms(t), &mut out);
        }
        assert!(out.dropped.is_empty(), "no drop within the first interval");
        c.dequeue(ms(110), &mut out);
        assert_eq!(out.dropped.len(), 1);
        assert!(c.state.dropping());
        assert_eq!(c.state.count(), 1);
    }

    #[test]
    fn drops_are_spaced_by_interval_over_the_root_of_count() {
        // RFC 8289 §5.5 control_law: the k-th drop of a dropping state follows the one
        // before by interval/√k.
        let mut c = standing(100_000, CoDelParams::default());
        let mut out = Verdicts::default();
        c.dequeue(ms(10), &mut out);
        let mut drops_at = Vec::new();
        for us in (110_000u64..400_000).step_by(100) {
            let before = out.dropped.len();
            c.dequeue(Time::ZERO + Duration::from_micros(us), &mut out);
            if out.dropped.len() > before {
                drops_at.push(us);
            }
        }
        assert!(drops_at.len() >= 4);
        for k in 1..4 {
            let gap = (drops_at[k] - drops_at[k - 1]) as f64;
            let law = 100_000.0 / (k as f64).sqrt();
            assert!((gap - law).abs() <= 100.0, "gap {k}: {gap} us, law {law} us");
        }
    }

    #[test]
    fn re_entry_within_16_intervals_reuses_the_count() {
        // RFC 8289 §5.5: re-entering the dropping state soon after leaving it starts from
        // count - lastcount, not from 1.
        let mut s = CoDelState { count: 10, lastcount: 3, drop_next: ms(1000), ..Default::default() };
        s.enter_dropping(ms(1500), &CoDelParams::default());
        assert_eq!(s.count(), 7);
        // Long after (16 intervals or more past the last drop due), it starts again at 1.
        let mut s = CoDelState { count: 10, lastcount: 3, drop_next: ms(1000), ..Default::default() };
        s.enter_dropping(ms(2600), &CoDelParams::default());
        assert_eq!(s.count(), 1);
    }

    #[test]
    fn no_drop_with_one_mtu_or_less_left() {
        // RFC 8289 §4.2: a queue with at most one MTU behind the packet is not standing.
        let mut c = standing(1, CoDelParams::default());
        let mut out = Verdicts::default();
        c.enqueue(pkt(9, 1500, 0, 0), false, &mut out);
        c.dequeue(ms(10), &mut out);
        c.enqueue(pkt(10, 1500, 0, 0), false, &mut out);
        c.dequeue(ms(200), &mut out);
        assert!(out.dropped.is_empty());
    }

    #[test]
    fn marks_ect_packets_instead_of_dropping_them() {
        // RFC 8289 §4 / RFC 3168 §5: with ECN an ECT packet is marked CE and sent.
        let mut c = CoDel::new(CoDelParams { ecn: true, ..Default::default() });
        let mut out = Verdicts::default();
        for i in 0..100 {
            c.enqueue(Queued { ect: true, ..pkt(i, 1500, 0, 0) }, false, &mut out);
        }
        c.dequeue(ms(10), &mut out);
        let sent = c.dequeue(ms(110), &mut out).unwrap();
        assert!(sent.ce && out.dropped.is_empty() && out.marks == 1);
    }

    #[test]
    fn a_full_queue_drops_the_arrival() {
        let mut c = CoDel::new(CoDelParams::default());
        let mut out = Verdicts::default();
        c.enqueue(pkt(1, 1500, 0, 0), true, &mut out);
        assert_eq!((out.dropped, c.queue().len()), (vec![1], 0));
    }
}
