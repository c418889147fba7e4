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
    pub control_law: ControlLaw,
}

impl Default for CoDelParams {
    fn default() -> Self {
        CoDelParams { target: Duration::from_millis(5), interval: Duration::from_millis(100), mtu_bytes: 1500, ecn: false, control_law: ControlLaw::Rfc8289 }
    }
}

/// How the control law takes 1/√count for the spacing of drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlLaw {
    /// RFC 8289 §5.5: interval/√count, exactly.
    Rfc8289,
    /// Linux's `include/net/codel_impl.h`, which ns-3's `CoDelQueueDisc` copies: 1/√count
    /// kept in 16 bits and refined by one Newton step each time count changes
    /// (`codel_Newton_step`), scaled by `reciprocal_scale` (`codel_control_law`). From
    /// count 1 the first steps undershoot: the second drop of a dropping state follows
    /// the first by interval/2, not interval/√2.
    Linux,
}

impl ControlLaw {
    /// The name scenarios give it (`control_law`).
    pub fn name(self) -> &'static str {
        match self {
            ControlLaw::Rfc8289 => "rfc8289",
            ControlLaw::Linux => "linux",
        }
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
    /// `ControlLaw::Linux`'s 1/√count, in units of 2^-16 (Linux's `rec_inv_sqrt`).
    rec_inv_sqrt: u16,
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
                if p.control_law == ControlLaw::Linux {
                    self.newton_step();
                }
                if out.signal(&mut pkt, p.ecn) {
                    // Marked, not dropped: it is sent, and the next signal is due a
                    // shorter time on (Linux's codel_dequeue does the same).
                    self.drop_next = self.control_law(self.drop_next, p);
                    return Some(pkt);
                }
                let Some(next) = self.dodequeue(now, p, q, others_bytes) else {
                    self.dropping = false;
                    return None;
                };
                (pkt, ok_to_drop) = next;
                if ok_to_drop {
                    self.drop_next = self.control_law(self.drop_next, p);
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
        if delta > 1 && now.since(self.drop_next) < Duration(16 * p.interval.0) {
            self.count = delta;
            // Linux refines the old root once for the new count (codel_dequeue).
            if p.control_law == ControlLaw::Linux {
                self.newton_step();
            }
        } else {
            self.count = 1;
            self.rec_inv_sqrt = u16::MAX;
        }
        self.drop_next = self.control_law(now, p);
        self.lastcount = self.count;
    }

    /// §5.5 `control_law`: the next drop after `t`, interval/√count on.
    fn control_law(&self, t: Time, p: &CoDelParams) -> Time {
        match p.control_law {
            ControlLaw::Rfc8289 => t + Duration((p.interval.0 as f64 / (self.count.max(1) as f64).sqrt()) as u64),
            // `reciprocal_scale(interval, rec_inv_sqrt << 16)`.
            ControlLaw::Linux => t + Duration(((p.interval.0 as u128 * ((self.rec_inv_sqrt as u128) << 16)) >> 32) as u64),
        }
    }

    /// Linux's `codel_Newton_step`: x ← x·(3 − count·x²)/2 in 32-bit fixed point, with its
    /// wrapping arithmetic (a count far above the old root's makes a poor first step,
    /// which later steps correct).
    fn newton_step(&mut self) {
        let invsqrt = (self.rec_inv_sqrt as u64) << 16;
        let invsqrt2 = (invsqrt * invsqrt) >> 32;
        let mut val = (3u64 << 32).wrapping_sub((self.count as u64).wrapping_mul(invsqrt2));
        val >>= 2;
        val = val.wrapping_mul(invsqrt) >> (32 - 2 + 1);
        self.rec_inv_sqrt = (val >> 16) as u16;
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn dropping(&self) -> bool {
        self.dropping
    }
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
    fn linux_spaces_drops_by_its_newton_steps_toward_the_root_of_count() {
        // Linux's codel_impl.h (and ns-3's CoDelQueueDisc): count 1 gives one interval;
        // each later drop's spacing uses one Newton step more, so count 2 gives interval/2
        // where the exact root gives interval/√2; the steps close on 1/√count.
        let p = CoDelParams { control_law: ControlLaw::Linux, ..Default::default() };
        let mut s = CoDelState::default();
        s.enter_dropping(ms(0), &p);
        assert_eq!(s.drop_next, Time::ZERO + Duration(99_998_474), "u16::MAX/2^16 of 100 ms");
        let mut gaps_us = Vec::new();
        for _ in 0..30 {
            s.count += 1;
            s.newton_step();
            gaps_us.push(s.control_law(ms(0), &p).since(ms(0)).as_nanos() / 1000);
        }
        // By hand in the same fixed point: 100 ms · x for x after each step.
        assert_eq!(&gaps_us[..4], &[50_001, 56_250, 48_779, 44_151]);
        let exact = |count: u32| 100_000.0 / (count as f64).sqrt();
        assert!((gaps_us[0] as f64 - exact(2)).abs() > 20_000.0, "count 2 is far from the root");
        for (i, &g) in gaps_us.iter().enumerate().skip(8) {
            assert!((g as f64 / exact(i as u32 + 2) - 1.0).abs() < 0.005, "count {}: {g} us", i + 2);
        }
        // Re-entry takes one step from the old root to the new count: from x = 0x5000/2^16
        // (0.3125) for count 10, x·(3 − 10·x²)/2 = 0.3162 = 20,720/2^16 (1/√10 is 20,724).
        let mut s = CoDelState { count: 12, lastcount: 2, drop_next: ms(1000), rec_inv_sqrt: 0x5000, ..Default::default() };
        s.enter_dropping(ms(1100), &p);
        assert_eq!((s.count(), s.rec_inv_sqrt), (10, 20_720));
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
