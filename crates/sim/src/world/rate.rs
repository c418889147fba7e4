//! A rate-limited flow's state (`traffic::RateLimitedSpec`): its phases and its writes, and
//! what its receiver got in each phase (the `phases` table), told apart from padding by the
//! flow's `Ledger`. The world sets its phases and writes as events (`World::phase`,
//! `World::rate_write`).

use rampup_tcp::Time;

use crate::traffic::{App, Ledger, RateLimitedSpec};

/// A rate-limited flow's state.
pub(super) struct RateState {
    /// When each phase starts (drawn when the flow starts).
    starts: Vec<Time>,
    phase: usize,
    /// Writes so far in the phase, and in all (the ranks of the write events).
    phase_writes: u64,
    writes: u64,
    /// The write due next; an event for another is stale (its phase has ended).
    due: Option<u32>,
    ledger: Ledger,
    /// Per phase: payload bytes the receiver got while it ran, and the data among them.
    got: Vec<(u64, u64)>,
}

/// The spec of a rate-limited flow's application.
pub(super) fn spec(app: &App) -> &RateLimitedSpec {
    match app {
        App::RateLimited(s) => s,
        _ => unreachable!("a rate-limited flow's state belongs to a rate-limited app"),
    }
}

impl RateState {
    /// A flow whose phases start at `starts`.
    pub(super) fn new(starts: Vec<Time>) -> RateState {
        let got = vec![(0, 0); starts.len()];
        RateState { starts, phase: 0, phase_writes: 0, writes: 0, due: None, ledger: Ledger::default(), got }
    }

    /// Phase `k` begins: whether it writes at all (under `s`).
    pub(super) fn begin_phase(&mut self, k: u32, s: &RateLimitedSpec) -> bool {
        self.phase = k as usize;
        self.phase_writes = 0;
        self.due = None;
        s.writing(self.phase).write.bps() > 0
    }

    /// The next write is now the one due: its number, which is also its rank among the
    /// flow's write events.
    pub(super) fn next_write(&mut self) -> u32 {
        let seq = self.writes as u32;
        self.due = Some(seq);
        seq
    }

    /// Write `seq` is due at `now`, unless its phase has ended (`None`): one chunk of `s`
    /// is written, and the next is due at the time returned.
    pub(super) fn take_write(&mut self, seq: u32, s: &RateLimitedSpec, now: Time) -> Option<Time> {
        if self.due != Some(seq) {
            return None;
        }
        let w = s.writing(self.phase);
        self.ledger.written(s.chunk, w);
        self.writes += 1;
        self.phase_writes += 1;
        Some(w.due(self.starts[self.phase], self.phase_writes, s.chunk).max(now))
    }

    /// The receiver got `bytes` at `now`: the data among them (without padding), counted in
    /// the phase that ran then.
    pub(super) fn delivered(&mut self, bytes: u64, now: Time) -> u64 {
        let data = self.ledger.received(bytes);
        let k = self.starts.partition_point(|&t| t <= now).saturating_sub(1);
        self.got[k].0 += bytes;
        self.got[k].1 += data;
        data
    }

    /// Phase `k` as run by `end`: its start and stop (the next phase's start, or `end`),
    /// and the payload and data the receiver got while it ran.
    pub(super) fn ran(&self, k: usize, end: Time) -> (Time, Time, u64, u64) {
        let (from, to) = (self.starts[k].min(end), self.starts.get(k + 1).map_or(end, |&t| t.min(end)));
        (from, to, self.got[k].0, self.got[k].1)
    }
}
