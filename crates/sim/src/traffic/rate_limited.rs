//! A rate-limited source (paper 003 §4): an application that writes `chunk` bytes at even
//! intervals at a rate that changes by phases: the rate, idle (rate 0), application-limited
//! (a lower rate). With padding, it keeps writing at the highest rate so far and marks what
//! it adds, so that what the receiver gets can be told apart from the data (`Ledger`).

use rampup_tcp::time::Rate;
use rampup_tcp::{Duration, Time};
use rand::Rng;
use std::collections::VecDeque;

/// One phase: from `at` (run time) plus a uniform draw in [0, within], the application
/// writes at `rate` (0: idle).
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub name: String,
    pub at: Duration,
    pub within: Duration,
    pub rate: Rate,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RateLimitedSpec {
    /// Bytes per write.
    pub chunk: u64,
    /// The first phase starts with the flow (its `at` is the flow's start, `within` 0); the
    /// others at their times, in order.
    pub phases: Vec<Phase>,
    /// Write at the highest rate so far in every phase, the difference being padding.
    pub padding: bool,
}

impl RateLimitedSpec {
    /// When each phase starts in a run where the flow started at `start`: its time plus its
    /// draw, never before the flow's start.
    pub fn phase_starts(&self, start: Time, rng: &mut impl Rng) -> Vec<Time> {
        let mut out = Vec::with_capacity(self.phases.len());
        for (k, p) in self.phases.iter().enumerate() {
            let draw = if p.within == Duration::ZERO { Duration::ZERO } else { Duration(rng.random_range(0..=p.within.as_nanos())) };
            out.push(if k == 0 { start } else { (Time::ZERO + p.at + draw).max(start) });
        }
        out
    }

    /// How phase `k` writes: the rate of its writes (with padding, the highest rate of the
    /// phases so far) and the part of each write that is data.
    pub fn writing(&self, k: usize) -> Writing {
        let data = self.phases[k].rate;
        let write = if self.padding { self.phases[..=k].iter().map(|p| p.rate).max().unwrap_or(data) } else { data };
        Writing { write, data }
    }
}

/// How a phase writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Writing {
    /// The rate of the writes (0: none).
    pub write: Rate,
    /// The rate of the data in them (`write` without padding).
    pub data: Rate,
}

impl Writing {
    /// When write `n` (from 0) of a phase that began at `start` is due: `n` chunks at the
    /// write rate, exactly, without a rounding that drifts.
    pub fn due(self, start: Time, n: u64, chunk: u64) -> Time {
        let ns = (n as u128 * chunk as u128 * 8_000_000_000) / self.write.bps().max(1) as u128;
        start + Duration(ns.min(u64::MAX as u128) as u64)
    }

    /// The data bytes among the first `bytes` written in the phase (the padding's place in
    /// a write is not modelled: data at the phase's share).
    pub fn data_in(self, bytes: u64) -> u64 {
        if self.write.bps() == 0 {
            return 0;
        }
        (bytes as u128 * self.data.bps() as u128 / self.write.bps() as u128) as u64
    }
}

/// Which of the bytes written are data: one run per phase that wrote, from the first byte
/// not yet received. A run leaves once the receiver has passed it and a later run exists,
/// so the ledger holds no more runs than there are phases in flight or waiting to be sent.
/// The last run stays even when received in full: a run split where the receiver caught
/// up would round its data share down twice, and the count would depend on when the bytes
/// arrived (a packet delivered ahead by a fast path, or hop by hop) rather than on what
/// was written.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    /// (first byte, bytes written, the phase's `Writing`), in stream order.
    runs: VecDeque<(u64, u64, Writing)>,
    written: u64,
    /// Bytes received so far, and the data among them.
    received: u64,
    data_received: u64,
}

impl Ledger {
    /// `bytes` were written in a phase writing as `w`.
    pub fn written(&mut self, bytes: u64, w: Writing) {
        match self.runs.back_mut() {
            Some((_, n, last)) if *last == w => *n += bytes,
            _ => self.runs.push_back((self.written, bytes, w)),
        }
        self.written += bytes;
    }

    /// The receiver got `bytes` more, in order: the data among them.
    pub fn received(&mut self, bytes: u64) -> u64 {
        let before = self.data_received;
        let to = self.received + bytes;
        while let Some(&(first, n, w)) = self.runs.front() {
            let end = (first + n).min(to);
            // Data is counted by the run's share of what has arrived of it so far.
            let done_in_run = end - first;
            let counted_in_run = self.received.max(first) - first;
            self.data_received += w.data_in(done_in_run) - w.data_in(counted_in_run);
            if first + n > to || self.runs.len() == 1 {
                break;
            }
            self.runs.pop_front();
        }
        self.received = to;
        self.data_received - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kbps(k: u64) -> Rate {
        Rate(k * 1000)
    }

    fn spec(padding: bool) -> RateLimitedSpec {
        let phase = |name: &str, at_s: u64, rate| Phase { name: name.into(), at: Duration::from_secs(at_s), within: Duration::ZERO, rate };
        RateLimitedSpec { chunk: 1000, phases: vec![phase("start", 0, kbps(512)), phase("limited", 28, kbps(12)), phase("idle", 33, Rate(0))], padding }
    }

    /// 512 kb/s in 1000-byte chunks: one every 15.625 ms, exactly, however many.
    #[test]
    fn writes_come_at_the_rate_without_drift() {
        let w = spec(false).writing(0);
        assert_eq!(w.due(Time::ZERO, 1, 1000), Time(15_625_000));
        assert_eq!(w.due(Time::ZERO, 64_000, 1000), Time(1_000_000_000_000));
    }

    /// Padding writes at the highest rate so far; the data keeps the phase's own rate.
    #[test]
    fn padding_writes_at_the_highest_rate_so_far() {
        assert_eq!(spec(false).writing(1), Writing { write: kbps(12), data: kbps(12) });
        assert_eq!(spec(true).writing(1), Writing { write: kbps(512), data: kbps(12) });
        assert_eq!(spec(true).writing(2), Writing { write: kbps(512), data: Rate(0) });
        assert_eq!(spec(true).writing(2).data_in(51_200), 0);
        assert_eq!(spec(true).writing(1).data_in(51_200), 1_200);
    }

    /// The ledger counts data by the share of each phase's run, across runs and in pieces.
    #[test]
    fn the_ledger_tells_data_from_padding() {
        let s = spec(true);
        let mut l = Ledger::default();
        l.written(10_000, s.writing(0));
        l.written(51_200, s.writing(1));
        l.written(5_000, s.writing(0));
        assert_eq!(l.received(4_000), 4_000);
        assert_eq!(l.received(6_000 + 25_600), 6_000 + 600, "the whole first run and half the second");
        assert_eq!(l.received(25_600 + 5_000), 600 + 5_000);
        assert_eq!(l.runs.len(), 1, "every run received, the last kept for the writes to come");
        assert_eq!(l.received(0), 0);
    }

    /// The data count depends on what was written, not on how closely the receiver kept up
    /// (a fast path delivers a write before the next is made; hop by hop, later): 1 kb/s of
    /// data in 100-byte writes at 3,779 kb/s, received write by write or all at once.
    #[test]
    fn the_ledger_counts_the_same_however_the_receiver_keeps_pace() {
        let w = Writing { write: kbps(3_779), data: kbps(1) };
        let (mut pace, mut late) = (Ledger::default(), Ledger::default());
        let mut got = 0;
        for _ in 0..10_000 {
            pace.written(100, w);
            got += pace.received(100);
            late.written(100, w);
        }
        assert_eq!(late.received(1_000_000), 264, "1,000,000 bytes at 1/3,779 data");
        assert_eq!(got, 264);
    }

    /// A phase's draw falls in [at, at + within]; the first phase starts with the flow.
    #[test]
    fn phases_start_at_their_time_plus_a_draw() {
        let mut s = spec(false);
        s.phases[1].within = Duration::from_secs(1);
        let mut rng = crate::rng::stream(7, "test");
        for _ in 0..100 {
            let t = s.phase_starts(Time(300_000_000), &mut rng);
            assert_eq!(t[0], Time(300_000_000));
            assert!(t[1] >= Time::ZERO + Duration::from_secs(28) && t[1] <= Time::ZERO + Duration::from_secs(29));
            assert_eq!(t[2], Time::ZERO + Duration::from_secs(33));
        }
    }
}
