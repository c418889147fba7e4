//! A world's part in a run split over two threads at a cut link (`crate::partition`,
//! `world::split`): the nodes it simulates, the packets it sends across the cut, and what
//! the two halves share.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use rampup_tcp::{Duration, Time};

use crate::net::Packet;
use crate::RunError;

/// A packet sent across the cut of a split run (`crate::partition`): it reaches the cut
/// link at `at`, and the half at the link's far end offers it to the link's port towards
/// itself. Kept small: crossings are read from the cache of the other half's core.
pub(super) struct Crossing {
    pub(super) at: Time,
    pub(super) pkt: Packet,
}

/// A world's part in a split run; a world of the whole network has no cut.
pub(super) struct Half {
    /// The nodes this world simulates: flows start, sources send and links change only here
    /// (empty for a world of the whole network).
    pub(super) owns: Vec<bool>,
    /// The cut link's port out of this half (`u32::MAX` for a world of the whole network):
    /// the other half simulates it (`Crossing`).
    pub(super) cut_port: u32,
    /// Packets sent across the cut since the other half last took them.
    pub(super) outbox: Vec<Crossing>,
    /// The cut link's delay: a packet that reaches the link at t arrives after t + this.
    pub(super) lookahead: Duration,
    /// Packets this half took across the cut: each is handled as an arrival event would
    /// be, outside the event queue, so the run's `events` count them too.
    pub(super) crossings_taken: u64,
    /// Taken over from the other half at the end: its events handled (its crossings taken
    /// included) and its packets in flight outside the ports' wires.
    pub(super) other_events: u64,
    pub(super) other_in_flight: u64,
    /// Why this half stopped early, if it did.
    pub(super) stop: Option<RunError>,
}

impl Half {
    /// The part of a world of the whole network: no cut.
    pub(super) fn whole() -> Half {
        Half::cut(Vec::new(), u32::MAX, Duration::ZERO)
    }

    /// The half that simulates the nodes in `owns`, whose packets leave it on `cut_port`.
    pub(super) fn cut(owns: Vec<bool>, cut_port: u32, lookahead: Duration) -> Half {
        Half { owns, cut_port, outbox: Vec::new(), lookahead, crossings_taken: 0, other_events: 0, other_in_flight: 0, stop: None }
    }

    /// Hand what was sent across the cut to the other half (`me` is this half's index in
    /// `halves`), then promise that every event before `clock` is done.
    pub(super) fn publish(&mut self, me: usize, halves: &[HalfLink; 2], clock: Time) {
        self.hand_over(me, halves);
        halves[me].clock.store(clock.as_nanos(), Ordering::Release);
    }

    /// Hand what was sent across the cut to the other half. It may take those packets
    /// before this half's clock passes their sending: each arrives in its future.
    pub(super) fn hand_over(&mut self, me: usize, halves: &[HalfLink; 2]) {
        if self.outbox.is_empty() {
            return;
        }
        let mut inbox = halves[1 - me].inbox.lock().expect("no thread panicked");
        if inbox.is_empty() {
            std::mem::swap(&mut *inbox, &mut self.outbox);
        } else {
            inbox.append(&mut self.outbox);
        }
        halves[1 - me].mail.fetch_add(1, Ordering::Release);
    }
}

/// What the two halves of a split run share: each one's published clock (nanoseconds)
/// and the packets sent across to it, with a count of the hand-overs into `inbox`.
#[derive(Default)]
#[repr(align(128))]
pub(super) struct HalfLink {
    pub(super) clock: AtomicU64,
    pub(super) mail: AtomicU64,
    pub(super) inbox: Mutex<Vec<Crossing>>,
    /// Set when this half's observer stopped the run: the other half stops too.
    pub(super) stopped: AtomicBool,
}

/// Publishes the end of time if its half panics: the other half then runs to its end
/// instead of waiting forever, and the panic reaches the caller through the thread scope.
pub(super) struct ReleaseOnPanic<'a>(pub(super) &'a HalfLink);

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
