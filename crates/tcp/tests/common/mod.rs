//! The harness the integration tests share (after quinn-proto's `tests/util.rs::Pair`): two
//! endpoints and a tiny network. `step()` jumps virtual time to the next wakeup, so tests
//! read like scenarios. What the network does to each segment is decided by a closure, and
//! the pair records what left and arrived so that tests can check it afterwards.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;

use proptest::prelude::*;

use rampup_tcp::time::Duration;
use rampup_tcp::{Endpoint, Event, RecoveryKind, Role, Segment, SeqRange, State, TcpConfig, Time};

/// What the network does with one segment.
#[derive(Clone, Copy, Debug)]
pub enum Fate {
    /// Deliver it after this delay.
    Deliver(Duration),
    /// Lose it.
    Lose,
    /// Deliver two copies, after these delays.
    Twice(Duration, Duration),
}

/// Decides the fate of each segment, given the end that sent it (0 or 1) and the segment.
pub type Network = Box<dyn FnMut(usize, &Segment) -> Fate>;

/// End 0 is the active opener, end 1 the passive one.
pub struct Pair {
    pub ends: [Endpoint; 2],
    pub now: Time,
    network: Network,
    /// (arrival time, insertion number) -> (destination end, segment). The insertion number
    /// breaks ties in the order the segments were sent.
    in_flight: BTreeMap<(Time, u64), (usize, Segment)>,
    inserted: u64,
    /// Every segment each end sent, with its departure time (lost ones included).
    pub departures: [Vec<(Time, Segment)>; 2],
    /// Every segment that reached each end, with its arrival time.
    pub arrivals: [Vec<(Time, Segment)>; 2],
    /// Payload ranges of the segments that reached each end, and the ranges it delivered.
    pub arrived: [Vec<SeqRange>; 2],
    pub delivered: [Vec<SeqRange>; 2],
}

impl Pair {
    pub fn new(cfg: TcpConfig, network: impl FnMut(usize, &Segment) -> Fate + 'static) -> Self {
        Pair::with_configs(cfg.clone(), cfg, network)
    }

    /// Each end with its own config: `active` for end 0, `passive` for end 1.
    pub fn with_configs(active: TcpConfig, passive: TcpConfig, network: impl FnMut(usize, &Segment) -> Fate + 'static) -> Self {
        Pair {
            ends: [Endpoint::new(active, Role::Active), Endpoint::new(passive, Role::Passive)],
            now: Time::ZERO,
            network: Box::new(network),
            in_flight: BTreeMap::new(),
            inserted: 0,
            departures: [Vec::new(), Vec::new()],
            arrivals: [Vec::new(), Vec::new()],
            arrived: [Vec::new(), Vec::new()],
            delivered: [Vec::new(), Vec::new()],
        }
    }

    /// A network that delivers every segment after the same delay.
    pub fn fixed_delay(delay: Duration) -> impl FnMut(usize, &Segment) -> Fate {
        move |_, _| Fate::Deliver(delay)
    }

    /// Send what both ends have to send now into the network.
    pub fn flush(&mut self) {
        for from in 0..2 {
            while let Some(seg) = self.ends[from].poll_transmit(self.now) {
                self.departures[from].push((self.now, seg));
                let delays = match (self.network)(from, &seg) {
                    Fate::Deliver(d) => vec![d],
                    Fate::Lose => vec![],
                    Fate::Twice(d1, d2) => vec![d1, d2],
                };
                for d in delays {
                    self.inserted += 1;
                    self.in_flight.insert((self.now + d, self.inserted), (1 - from, seg));
                }
            }
        }
    }

    /// Flush, then advance to the next event (an arrival or a timer) if it comes before
    /// `limit`, and handle it. False when there is none.
    pub fn step(&mut self, limit: Time) -> bool {
        self.flush();
        let next_seg = self.in_flight.keys().next().map(|k| k.0);
        let next_timer = self.ends.iter().filter_map(|e| e.poll_timeout()).min();
        let Some(t) = [next_seg, next_timer].into_iter().flatten().min().filter(|&t| t < limit) else {
            return false;
        };
        self.now = t;
        if next_seg == Some(t) {
            let (_, (to, seg)) = self.in_flight.pop_first().unwrap();
            self.arrivals[to].push((t, seg));
            if seg.len > 0 {
                self.arrived[to].push(SeqRange { start: seg.seq, end: seg.seq + seg.len as u64 });
            }
            if let Some(r) = self.ends[to].handle_segment(t, &seg) {
                self.delivered[to].push(r);
            }
        } else {
            for e in &mut self.ends {
                e.handle_timeout(t);
            }
        }
        true
    }

    /// Handle every event before `limit`, then move the clock to `limit`.
    pub fn run_until(&mut self, limit: Time) {
        while self.step(limit) {}
        self.now = limit;
    }

    /// Run until both ends are closed, or nothing is left to do before `limit`.
    pub fn run_until_closed(&mut self, limit: Time) -> Time {
        loop {
            self.flush();
            if self.ends.iter().all(|e| e.state() == State::Closed) || !self.step(limit) {
                return self.now;
            }
        }
    }

    /// Run until everything end 0 sent is acknowledged, or nothing is left to do before
    /// `limit`; returns the time then. Callers check `ends[0].all_acked()`.
    pub fn run_until_acked(&mut self, limit: Time) -> Time {
        loop {
            self.flush();
            if self.ends[0].all_acked() || !self.step(limit) {
                return self.now;
            }
        }
    }
}

/// A channel that delays each segment by a base delay plus random jitter (so segments can
/// overtake each other), and loses or duplicates them with given probabilities.
pub struct Channel {
    pub delay: Duration,
    pub jitter_ns: u64,
    pub loss: f64,
    pub dup: f64,
}

impl Channel {
    /// The network closure for `Pair`: draws the fate of each segment from a generator
    /// seeded with `seed`.
    pub fn network(self, seed: u64) -> impl FnMut(usize, &Segment) -> Fate {
        let mut rng = seed | 1;
        let mut uniform = move || {
            // xorshift64*: a test needs no better generator.
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            (rng.wrapping_mul(0x2545F4914F6CDD1D) >> 11) as f64 / (1u64 << 53) as f64
        };
        move |_, _| {
            if uniform() < self.loss {
                return Fate::Lose;
            }
            let twice = uniform() < self.dup;
            // Each copy gets its own jitter.
            let mut delay = || self.delay + Duration((uniform() * self.jitter_ns as f64) as u64);
            if twice {
                let first = delay();
                Fate::Twice(first, delay())
            } else {
                Fate::Deliver(delay())
            }
        }
    }
}

fn covered(arrived: &[SeqRange], r: SeqRange) -> bool {
    // Every byte of r was carried by some segment that reached the receiver.
    let mut sorted: Vec<_> = arrived.iter().filter(|a| a.end > r.start && a.start < r.end).copied().collect();
    sorted.sort_by_key(|a| a.start);
    let mut at = r.start;
    for a in sorted {
        if a.start > at {
            return false;
        }
        at = at.max(a.end);
    }
    at >= r.end
}

/// Every byte end `to` received was delivered exactly once: the delivered ranges run from
/// the first data byte to `bytes`, contiguous, without overlap, made only of bytes that
/// arrived.
pub fn check_delivered(p: &Pair, to: usize, bytes: u64) -> Result<(), TestCaseError> {
    prop_assert_eq!(p.ends[to].bytes_received(), bytes, "end {}", to);
    let mut next = 1;
    for r in &p.delivered[to] {
        prop_assert_eq!(r.start, next, "end {}", to);
        prop_assert!(covered(&p.arrived[to], *r), "end {} delivered bytes {:?} that never arrived", to, r);
        next = r.end;
    }
    prop_assert_eq!(next, 1 + bytes, "end {}", to);
    Ok(())
}

/// A limit no test run reaches: a transfer still going then is stuck.
pub const HOUR: Time = Time(3_600_000_000_000);

pub fn recovery_kind() -> impl Strategy<Value = RecoveryKind> {
    prop_oneof![Just(RecoveryKind::Reno), Just(RecoveryKind::NewReno), Just(RecoveryKind::Sack)]
}

/// Every event `end` has not yet reported, oldest first.
pub fn events(end: &mut Endpoint) -> Vec<Event> {
    std::iter::from_fn(|| end.poll_event()).collect()
}

pub fn count(evs: &[Event], f: impl Fn(&Event) -> bool) -> usize {
    evs.iter().filter(|e| f(e)).count()
}

/// The bytes the `Delivered` events add up to.
pub fn delivered_bytes(evs: &[Event]) -> u64 {
    evs.iter().map(|e| if let Event::Delivered { bytes } = e { *bytes } else { 0 }).sum()
}
