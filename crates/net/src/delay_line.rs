//! A delay line: frames held for a fixed time, in order, for a path whose kernel has no
//! `netem`. Each direction is a FIFO of (release time, frame); a frame goes out at its release
//! time or as soon after as the driver wakes. The driver (`bin/rampup-delayline.rs`) moves
//! frames between two interfaces with AF_PACKET sockets and keeps the lateness of each.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct DelayLine {
    delay: Duration,
    held: VecDeque<(Instant, Vec<u8>)>,
    /// Frames held at most; one more is dropped (a bound on memory, far above a path's BDP).
    capacity: usize,
    pub dropped: u64,
}

impl DelayLine {
    pub fn new(delay: Duration, capacity: usize) -> DelayLine {
        DelayLine { delay, held: VecDeque::new(), capacity, dropped: 0 }
    }

    /// A frame arrived at `at`: it leaves `delay` later.
    pub fn push(&mut self, at: Instant, frame: Vec<u8>) {
        if self.held.len() >= self.capacity {
            self.dropped += 1;
            return;
        }
        self.held.push_back((at + self.delay, frame));
    }

    /// When the next frame is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.held.front().map(|(due, _)| *due)
    }

    /// The next frame due by `now`, with when it was due.
    pub fn pop_due(&mut self, now: Instant) -> Option<(Instant, Vec<u8>)> {
        if self.next_due()? <= now {
            self.held.pop_front()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn frames_leave_in_order_one_delay_after_they_came() {
        let t0 = Instant::now();
        let mut d = DelayLine::new(50 * MS, 10);
        d.push(t0, vec![1]);
        d.push(t0 + MS, vec![2]);
        assert_eq!(d.next_due(), Some(t0 + 50 * MS));
        assert_eq!(d.pop_due(t0 + 49 * MS), None);
        assert_eq!(d.pop_due(t0 + 51 * MS), Some((t0 + 50 * MS, vec![1])));
        assert_eq!(d.pop_due(t0 + 51 * MS), Some((t0 + 51 * MS, vec![2])));
        assert_eq!(d.pop_due(t0 + 60 * MS), None);
    }

    #[test]
    fn a_full_line_drops_and_counts() {
        let t0 = Instant::now();
        let mut d = DelayLine::new(MS, 1);
        d.push(t0, vec![1]);
        d.push(t0, vec![2]);
        assert_eq!(d.dropped, 1);
        assert_eq!(d.pop_due(t0 + MS).map(|(_, f)| f), Some(vec![1]));
    }
}
