//! A run split over two threads at a cut link (`crate::partition`): each half is a world of
//! its own that simulates its side, hands the packets sent across the cut to the other, and
//! moves on by Chandy and Misra's conservative rule; at the end one half takes over what the
//! other simulated.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use rampup_tcp::{Duration, Time};

use super::World;
use crate::affinity;
use crate::net::Packet;
use crate::output::RunOutput;
use crate::partition::Split;
use crate::scenario::Scenario;
use crate::trace::TraceSink;
use crate::{to_the_end, Progress, RunError};

/// A packet sent across the cut of a split run (`crate::partition`): it reaches the cut
/// link at `at`, and the half at the link's far end offers it to the link's port towards
/// itself. Kept small: crossings are read from the cache of the other half's core.
pub(super) struct Crossing {
    pub(super) at: Time,
    pub(super) pkt: Packet,
}

/// A world's part in a split run.
pub(super) struct Half {
    /// The nodes this world simulates: flows start, sources send and links change only here.
    pub(super) owns: Vec<bool>,
    /// Packets sent across the cut since the other half last took them.
    pub(super) outbox: Vec<Crossing>,
    /// The cut link's delay: a packet that reaches the link at t arrives after t + this.
    pub(super) lookahead: Duration,
}

/// What the two halves of a split run share: each one's published clock (nanoseconds)
/// and the packets sent across to it, with a count of the hand-overs into `inbox`.
#[derive(Default)]
#[repr(align(128))]
pub(super) struct HalfLink {
    clock: AtomicU64,
    mail: AtomicU64,
    inbox: Mutex<Vec<Crossing>>,
    /// Set when this half's observer stopped the run: the other half stops too.
    stopped: AtomicBool,
}

/// Publishes the end of time if its half panics: the other half then runs to its end
/// instead of waiting forever, and the panic reaches the caller through the thread scope.
pub(super) struct ReleaseOnPanic<'a>(&'a HalfLink);

impl Drop for ReleaseOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.clock.store(Time::MAX.as_nanos(), Ordering::Release);
        }
    }
}

/// How many events a half handles, or crossing packets it takes, between hand-overs to the
/// other: often enough that the other half rarely waits, rarely enough that the shared
/// cache line stays quiet.
pub(super) const PUBLISH_EVERY: u64 = 64;

/// Run `sc` split at `split` (`crate::partition`), half 1 on a second thread; `progress`
/// follows half 0; either half stops the run past `memory_budget` (`World::memory_budget`).
pub fn run_split(
    sc: &Scenario,
    seed: u64,
    split: &Split,
    memory_budget: Option<u64>,
    progress: Progress,
    sink: &mut dyn TraceSink,
) -> Result<RunOutput, RunError> {
    let halves: [HalfLink; 2] = Default::default();
    let [a, b] = [0, 1].map(|h| World::new_half(sc, seed, Some((split, h))).memory_budget(memory_budget));
    let cpus = affinity::split_cpus();
    let (mut a, mut b) = std::thread::scope(|s| {
        let other = s.spawn(|| {
            let _pinned = cpus.as_ref().and_then(|c| affinity::pin(&c[1]));
            b.run_half(1, &halves, split.lookahead, &mut to_the_end)
        });
        let _pinned = cpus.as_ref().and_then(|c| affinity::pin(&c[0]));
        let a = a.run_half(0, &halves, split.lookahead, progress);
        (a, other.join().expect("the second half's thread does not panic"))
    });
    if let Some(stop) = a.stop.take().or_else(|| b.stop.take()) {
        return Err(stop);
    }
    // What reached the cut link by the end and was not taken yet is offered to its port now
    // (its arrival is after the end: a half stops only when the other's clock plus the
    // lookahead reaches the end).
    for (me, w) in [&mut a, &mut b].into_iter().enumerate() {
        let mut left = std::mem::take(&mut *halves[me].inbox.lock().expect("no thread panicked"));
        w.take_crossings(&mut left, me, &halves);
    }
    a.absorb(b);
    a.finish(sink)
}

impl<'s> World<'s> {
    /// Run half of a split run to the scenario's end, on the current thread: `me` is this
    /// half's index in `halves`, shared with the world of the other half on another thread.
    ///
    /// Chandy and Misra's conservative rule: the other half publishes a clock `c` once it
    /// has handled all its events before `c` and handed over what they sent across the
    /// cut. Its later events are at `c` or after, and what they send crosses a link of
    /// delay `lookahead` after being serialised, so it arrives after `c + lookahead`: this
    /// half may go up to that time. When it has nothing left before it, it publishes its
    /// own next event time (capped at that bound, plus one) so the other half moves on.
    fn run_half(mut self, me: usize, halves: &[HalfLink; 2], lookahead: Duration, progress: Progress) -> Self {
        let _release = ReleaseOnPanic(&halves[me]);
        let end = Time::ZERO + self.sc.duration;
        let other = &halves[1 - me];
        // Progress by the published clock, at each 1% of the run, and not by events handled
        // (`by_events` is never reached): a half whose work comes across the cut, taken
        // outside events, may handle too few events to report by their count. Also every
        // 1,024 rounds, so that an observer that may stop the run (Ctrl-C) hears from it
        // every few milliseconds of wall time however long 1% takes.
        let (mut next_mark, step) = (Time::ZERO, Duration(self.sc.duration.as_nanos() / 100));
        let mut by_events = u64::MAX;
        let mut taken = Vec::new();
        let mut rounds = 0u32;
        loop {
            if other.stopped.load(Ordering::Acquire) {
                return self;
            }
            let clock = other.clock.load(Ordering::Acquire);
            let mail = halves[me].mail.load(Ordering::Acquire);
            // Buffers are swapped, never freed: they go round between the halves.
            std::mem::swap(&mut taken, &mut *halves[me].inbox.lock().expect("no thread panicked"));
            self.take_crossings(&mut taken, me, halves);
            let until = (Time(clock) + lookahead).min(end);
            while let ControlFlow::Continue(Some(t)) = self.handle_until(until, PUBLISH_EVERY, &mut by_events, &mut to_the_end) {
                self.publish(me, halves, t);
            }
            if until >= end {
                self.publish(me, halves, Time::MAX);
                break;
            }
            let next = self.events.next_time().unwrap_or(Time::MAX);
            let done = next.min(until + Duration(1));
            self.publish(me, halves, done);
            let mark = done >= next_mark;
            if mark {
                next_mark = done + step;
            }
            rounds = rounds.wrapping_add(1);
            if mark || rounds.is_multiple_of(1024) {
                if let ControlFlow::Break(stop) = self.report(done, progress) {
                    self.stop = Some(stop);
                    // Release the other half, which may be waiting for this one's clock.
                    halves[me].stopped.store(true, Ordering::Release);
                    self.publish(me, halves, Time::MAX);
                    return self;
                }
            }
            let mut spins = 0u32;
            while other.clock.load(Ordering::Acquire) == clock && halves[me].mail.load(Ordering::Acquire) == mail {
                // Spin a little (the other half usually moves on within microseconds),
                // then give the core away: the machine may have fewer cores than threads.
                spins += 1;
                if spins < 1_000 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        self.now = end;
        _ = progress(1.0);
        self
    }

    /// Hand what was sent across the cut to the other half, then promise that every
    /// event before `clock` is done.
    fn publish(&mut self, me: usize, halves: &[HalfLink; 2], clock: Time) {
        self.hand_over(me, halves);
        halves[me].clock.store(clock.as_nanos(), Ordering::Release);
    }

    /// Hand what was sent across the cut to the other half. It may take those packets
    /// before this half's clock passes their sending: each arrives in its future.
    fn hand_over(&mut self, me: usize, halves: &[HalfLink; 2]) {
        let h = self.half.as_mut().expect("a split run");
        if h.outbox.is_empty() {
            return;
        }
        let mut inbox = halves[1 - me].inbox.lock().expect("no thread panicked");
        if inbox.is_empty() {
            std::mem::swap(&mut *inbox, &mut h.outbox);
        } else {
            inbox.append(&mut h.outbox);
        }
        halves[1 - me].mail.fetch_add(1, Ordering::Release);
    }

    /// Take the packets the other half sent across the cut, offering each to the cut link's
    /// port towards this half at the time it reached the link, and on as `enqueue` goes.
    /// That port's queue is this half's alone, and the packets come in the order one world
    /// would offer them (the other half's event order), so it admits them as one world
    /// would; what it sends arrives after the lookahead, in this half's future, even when
    /// the admission itself is in its past. What they bring back across is handed over as it
    /// comes, so that the halves work on a flow's packets at once rather than in turn.
    fn take_crossings(&mut self, crossings: &mut Vec<Crossing>, me: usize, halves: &[HalfLink; 2]) {
        let port = self.net.reverse(self.cut_port);
        let lookahead = self.half.as_ref().expect("a split run").lookahead;
        self.crossings_taken += crossings.len() as u64;
        for (i, c) in crossings.drain(..).enumerate() {
            if i > 0 && (i as u64).is_multiple_of(PUBLISH_EVERY) {
                self.hand_over(me, halves);
            }
            // The lookahead rule: nothing arrives in this half's past.
            assert!(c.at + lookahead >= self.now, "a packet crossed into the past");
            let id = self.packets_in_flight.insert(c.pkt);
            // Not as a hop cut through (`crossed`): one world would count a drop here in a
            // `Discard` event at `c.at`, which is only a count, and a split run has none of
            // the sized transfers that read it at their time (`partition::plan`).
            self.enqueue(port, id, c.at, None);
        }
    }

    /// Take over from the world of the other half what it simulated: the ports into its
    /// nodes (the cut link's too) and the inboxes at them, its nodes' connection ends, its
    /// counts, and its rows.
    fn absorb(&mut self, mut other: World<'s>) {
        let theirs = other.half.take().expect("a split run").owns;
        for (i, p) in other.net.ports.iter_mut().enumerate().filter(|(_, p)| theirs[p.to as usize]) {
            std::mem::swap(&mut self.net.ports[i], p);
            if let (Some(mine), Some(p)) = (self.pcaps.get_mut(i), other.pcaps.get_mut(i)) {
                std::mem::swap(mine, p);
            }
        }
        self.net.absorb_inboxes(&mut other.net, &theirs);
        for (mine, c) in self.conns.iter_mut().zip(&mut other.conns).filter(|(_, c)| theirs[c.node as usize]) {
            std::mem::swap(mine, c);
        }
        // A connection's opening is recorded by the half of its active end.
        for (i, (mine, s)) in self.slots.iter_mut().zip(&mut other.slots).enumerate() {
            if theirs[self.conns[2 * i].node as usize] {
                std::mem::swap(mine, s);
            }
        }
        for (mine, f) in self.flows.iter_mut().zip(&other.flows) {
            mine.start = mine.start.or(f.start);
            mine.data_drops += f.data_drops;
            mine.ack_drops += f.ack_drops;
            mine.marks += f.marks;
            // A flow's deliveries are in one half (a split run's flows send one way): its
            // open throughput interval is the one further on.
            mine.bin = mine.bin.max(f.bin);
        }
        for (mine, u) in self.udp.iter_mut().zip(&other.udp) {
            mine.sent += u.sent;
            mine.received += u.received;
            mine.received_bytes += u.received_bytes;
            mine.dropped += u.dropped;
        }
        let (p, o) = (&mut self.packets, &other.packets);
        p.created += o.created;
        p.duplicated += o.duplicated;
        p.delivered += o.delivered;
        p.dropped += o.dropped;
        p.lost += o.lost;
        self.series.append(std::mem::take(&mut other.series));
        self.other_events = other.events.processed() + other.crossings_taken;
        self.other_in_flight = other.late_in_flight();
    }
}
