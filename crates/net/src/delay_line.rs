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
    /// Buffers of frames already released, for the next frames to reuse: no allocation per
    /// frame once the line has held its most.
    spare: Vec<Vec<u8>>,
    /// Frames held at most; one more is dropped (a bound on memory, far above a path's BDP).
    capacity: usize,
    pub dropped: u64,
}

impl DelayLine {
    pub fn new(delay: Duration, capacity: usize) -> DelayLine {
        DelayLine { delay, held: VecDeque::new(), spare: Vec::new(), capacity, dropped: 0 }
    }

    /// A frame arrived at `at`: it leaves `delay` later.
    pub fn push(&mut self, at: Instant, frame: &[u8]) {
        if self.held.len() >= self.capacity {
            self.dropped += 1;
            return;
        }
        let mut copy = self.spare.pop().unwrap_or_default();
        copy.clear();
        copy.extend_from_slice(frame);
        self.held.push_back((at + self.delay, copy));
    }

    /// When the next frame is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.held.front().map(|(due, _)| *due)
    }

    /// Hand every frame due by `now` to `send`, in order, with when it was due.
    pub fn release(&mut self, now: Instant, mut send: impl FnMut(Instant, &[u8])) {
        while self.next_due().is_some_and(|due| due <= now) {
            let (due, frame) = self.held.pop_front().expect("a frame is due");
            send(due, &frame);
            self.spare.push(frame);
        }
    }
}

/// How late frames left, in a fixed histogram (memory does not grow with the run): bins of
/// `BIN_US` up to `BINS` × `BIN_US`, the rest in the last bin, and the exact maximum.
#[derive(Debug)]
pub struct Lateness {
    bins: Vec<u64>,
    count: u64,
    max_us: u64,
}

impl Lateness {
    pub const BIN_US: u64 = 10;
    const BINS: usize = 10_000;

    pub fn new() -> Lateness {
        Lateness { bins: vec![0; Self::BINS], count: 0, max_us: 0 }
    }

    pub fn record(&mut self, late: Duration) {
        let us = late.as_micros() as u64;
        self.bins[((us / Self::BIN_US) as usize).min(Self::BINS - 1)] += 1;
        self.count += 1;
        self.max_us = self.max_us.max(us);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max_us(&self) -> u64 {
        self.max_us
    }

    /// The upper edge of the bin that holds quantile `p` (0 to 1), in µs; 0 when empty.
    pub fn percentile_us(&self, p: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((self.count - 1) as f64 * p).round() as u64;
        let mut seen = 0;
        for (i, n) in self.bins.iter().enumerate() {
            seen += n;
            if seen > rank {
                return ((i as u64 + 1) * Self::BIN_US).min(self.max_us.max(Self::BIN_US));
            }
        }
        self.max_us
    }
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn released(d: &mut DelayLine, now: Instant) -> Vec<(Instant, Vec<u8>)> {
        let mut out = vec![];
        d.release(now, |due, f| out.push((due, f.to_vec())));
        out
    }

    #[test]
    fn frames_leave_in_order_one_delay_after_they_came() {
        let t0 = Instant::now();
        let mut d = DelayLine::new(50 * MS, 10);
        d.push(t0, &[1]);
        d.push(t0 + MS, &[2]);
        assert_eq!(d.next_due(), Some(t0 + 50 * MS));
        assert_eq!(released(&mut d, t0 + 49 * MS), []);
        assert_eq!(released(&mut d, t0 + 51 * MS), [(t0 + 50 * MS, vec![1]), (t0 + 51 * MS, vec![2])]);
        assert_eq!(released(&mut d, t0 + 60 * MS), []);
        // A released frame's buffer carries the next one, which reads as its own.
        d.push(t0 + 60 * MS, &[3, 4]);
        assert_eq!(released(&mut d, t0 + 110 * MS), [(t0 + 110 * MS, vec![3, 4])]);
    }

    #[test]
    fn a_full_line_drops_and_counts() {
        let t0 = Instant::now();
        let mut d = DelayLine::new(MS, 1);
        d.push(t0, &[1]);
        d.push(t0, &[2]);
        assert_eq!(d.dropped, 1);
        assert_eq!(released(&mut d, t0 + MS), [(t0 + MS, vec![1])]);
    }

    #[test]
    fn lateness_percentiles_come_from_the_bins_and_the_maximum_is_exact() {
        let mut l = Lateness::new();
        assert_eq!(l.percentile_us(0.5), 0);
        for us in [5, 15, 25, 35, 3_456] {
            l.record(Duration::from_micros(us));
        }
        assert_eq!((l.count(), l.max_us()), (5, 3_456));
        assert_eq!(l.percentile_us(0.0), 10, "5 µs: the first bin, 0-10 µs");
        assert_eq!(l.percentile_us(0.5), 30, "25 µs: the bin 20-30 µs");
        assert_eq!(l.percentile_us(1.0), 3_456, "the top bin's edge is held to the maximum");
        l.record(Duration::from_secs(1));
        assert_eq!(l.max_us(), 1_000_000, "beyond the bins: the last bin, the maximum kept");
    }
}
