//! A run split over two threads at a cut link (`crate::partition`): each half is a world of
//! its own that simulates its side, hands the packets sent across the cut to the other, and
//! moves on by Chandy and Misra's conservative rule; at the end one half takes over what the
//! other simulated.

use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

use rampup_tcp::{Duration, Time};

use super::half::{Crossing, HalfLink, ReleaseOnPanic, PUBLISH_EVERY};
use super::World;
use crate::affinity;
use crate::output::RunOutput;
use crate::partition::Split;
use crate::scenario::Scenario;
use crate::trace::TraceSink;
use crate::{to_the_end, Progress, RunError};

impl<'s> World<'s> {
    /// Run `sc` split at `split` (`crate::partition`), half 1 on a second thread; `progress`
    /// follows half 0; either half stops the run past `memory_budget` (`World::memory_budget`).
    pub fn run_split(
        sc: &'s Scenario,
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
        if let Some(stop) = a.half.stop.take().or_else(|| b.half.stop.take()) {
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
                self.half.publish(me, halves, t);
            }
            if until >= end {
                self.half.publish(me, halves, Time::MAX);
                break;
            }
            let next = self.events.next_time().unwrap_or(Time::MAX);
            let done = next.min(until + Duration(1));
            self.half.publish(me, halves, done);
            let mark = done >= next_mark;
            if mark {
                next_mark = done + step;
            }
            rounds = rounds.wrapping_add(1);
            if mark || rounds.is_multiple_of(1024) {
                if let ControlFlow::Break(stop) = self.report(done, progress) {
                    self.half.stop = Some(stop);
                    // Release the other half, which may be waiting for this one's clock.
                    halves[me].stopped.store(true, Ordering::Release);
                    self.half.publish(me, halves, Time::MAX);
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

    /// Take the packets the other half sent across the cut, offering each to the cut link's
    /// port towards this half at the time it reached the link, and on as `enqueue` goes.
    /// That port's queue is this half's alone, and the packets come in the order one world
    /// would offer them (the other half's event order), so it admits them as one world
    /// would; what it sends arrives after the lookahead, in this half's future, even when
    /// the admission itself is in its past. What they bring back across is handed over as it
    /// comes, so that the halves work on a flow's packets at once rather than in turn.
    fn take_crossings(&mut self, crossings: &mut Vec<Crossing>, me: usize, halves: &[HalfLink; 2]) {
        let port = self.net.reverse(self.half.cut_port);
        let lookahead = self.half.lookahead;
        self.half.crossings_taken += crossings.len() as u64;
        for (i, c) in crossings.drain(..).enumerate() {
            if i > 0 && (i as u64).is_multiple_of(PUBLISH_EVERY) {
                self.half.hand_over(me, halves);
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
        let theirs = std::mem::take(&mut other.half.owns);
        for (i, p) in other.net.ports.iter_mut().enumerate().filter(|(_, p)| theirs[p.to as usize]) {
            std::mem::swap(&mut self.net.ports[i], p);
            if let (Some(mine), Some(p)) = (self.traces.pcaps.get_mut(i), other.traces.pcaps.get_mut(i)) {
                std::mem::swap(mine, p);
            }
        }
        self.net.absorb_inboxes(&mut other.net, &theirs);
        for (mine, c) in self.conns.ends.iter_mut().zip(&mut other.conns.ends).filter(|(_, c)| theirs[c.node as usize]) {
            std::mem::swap(mine, c);
        }
        // A connection's opening is recorded by the half of its active end.
        for (i, (mine, s)) in self.conns.slots.iter_mut().zip(&mut other.conns.slots).enumerate() {
            if theirs[self.conns.ends[2 * i].node as usize] {
                std::mem::swap(mine, s);
            }
        }
        self.flows.absorb(&other.flows);
        for (mine, u) in self.udp.iter_mut().zip(&other.udp) {
            mine.absorb(u);
        }
        self.packets.absorb(&other.packets);
        self.traces.series.append(std::mem::take(&mut other.traces.series));
        self.half.other_events = other.events.processed() + other.half.crossings_taken;
        self.half.other_in_flight = other.late_in_flight();
    }
}
