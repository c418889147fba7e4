//! The event queue: a min-heap ordered by time and, among events at the same instant, by a
//! fixed rank (`Order`) that says what the event is and what it belongs to.
//!
//! The rank does not depend on when an event was scheduled. The world computes some things
//! ahead of time (`Net::plan_cut_through`, `World::receive_ahead`), so it schedules events
//! at other moments than a hop-by-hop run would; ranked by insertion, events at the same
//! instant (common with round link rates and delays) would then run in another order and
//! change the result.

use rampup_tcp::Time;

/// What an event is, first in its rank among events at the same instant: link changes take
/// effect first, then packets arrive, then timers fire, then applications act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Change = 0,
    Net = 1,
    Timer = 2,
    App = 3,
}

/// An event's rank among events at the same instant: its class, the index of what it
/// belongs to (a port, a connection end, a flow), then a number that orders that one's
/// events (for a port, the packet's transmission number there). Packed into 64 bits: 2 for
/// the class, 24 for the index (`MAX_INDEX`), 38 for the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Order(u64);

/// The largest index an `Order` holds; the scenario check keeps ports, connection ends,
/// flows and sources below it.
pub const MAX_INDEX: u32 = (1 << 24) - 1;

impl Order {
    /// `tie` wraps after 2^38; a port's arrivals use twice its transmission number (the
    /// duplicate of a packet ranks right after it), so after 1.4e11 packets through one port,
    /// far beyond any run.
    pub fn new(class: Class, index: u32, tie: u64) -> Order {
        debug_assert!(index <= MAX_INDEX);
        Order((class as u64) << 62 | (index as u64) << 38 | (tie & ((1 << 38) - 1)))
    }
}

/// Events are kept in implicit 4-ary min-heaps keyed by (time, rank) packed into one u128,
/// so a comparison is one integer compare. A 4-ary heap is half as deep as a binary one and
/// its children share cache lines; pops dominate a simulation. Two events with equal keys
/// must be the same event (a timer pushed twice), as the heap may give them in any order.
struct Entry<E> {
    key: u128,
    event: E,
}

const ARITY: usize = 4;

struct Heap<E> {
    entries: Vec<Entry<E>>,
}

impl<E> Heap<E> {
    /// The smallest key; `u128::MAX` (never a real key) when empty.
    fn first_key(&self) -> u128 {
        self.entries.first().map_or(u128::MAX, |e| e.key)
    }

    // The sifts take the moving entry's key as an argument rather than reading it back
    // from the slot just written (a 16-byte store read back in 8-byte halves, which showed
    // in the profile as a stall at the first comparison).

    fn push(&mut self, entry: Entry<E>) {
        let key = entry.key;
        self.entries.push(entry);
        self.sift_up(self.entries.len() - 1, key);
    }

    fn pop(&mut self) -> Option<Entry<E>> {
        let last = self.entries.pop()?;
        if self.entries.is_empty() {
            return Some(last);
        }
        let key = last.key;
        let top = std::mem::replace(&mut self.entries[0], last);
        self.sift_down(0, key);
        Some(top)
    }

    /// Put `entry` in place of the first entry (pushed when there is none), in one sift.
    fn replace_first(&mut self, entry: Entry<E>) {
        let key = entry.key;
        match self.entries.first_mut() {
            Some(first) => {
                *first = entry;
                self.sift_down(0, key);
            }
            None => self.push(entry),
        }
    }

    /// Move the entry at `i`, whose key is `key`, up to its place.
    fn sift_up(&mut self, mut i: usize, key: u128) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.entries[parent].key <= key {
                break;
            }
            self.entries.swap(parent, i);
            i = parent;
        }
    }

    /// Move the entry at `i`, whose key is `key`, down to its place.
    fn sift_down(&mut self, mut i: usize, key: u128) {
        let n = self.entries.len();
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            // The smallest child, chosen without data-dependent branches when all four
            // children exist (the common case): random keys defeat branch prediction.
            let min = if first + ARITY <= n {
                let k = |c: usize| self.entries[c].key;
                let a = if k(first + 1) < k(first) { first + 1 } else { first };
                let b = if k(first + 3) < k(first + 2) { first + 3 } else { first + 2 };
                if k(b) < k(a) {
                    b
                } else {
                    a
                }
            } else {
                (first + 1..n).fold(first, |m, c| if self.entries[c].key < self.entries[m].key { c } else { m })
            };
            if key <= self.entries[min].key {
                break;
            }
            self.entries.swap(i, min);
            i = min;
        }
    }
}

/// Two heaps: `push` for the events that come and go with every packet hop, `push_timer`
/// for the ones a clock schedules (endpoint wakeups, application and link schedules).
/// Timers are numerous (one per connection end) but rarely due; kept apart, they leave the
/// busy heap a few entries deep whatever the number of flows. A pop takes the smaller of the
/// two first keys, so events come out in exactly the order one heap would give.
pub struct EventQueue<E> {
    busy: Heap<E>,
    timers: Heap<E>,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { busy: Heap { entries: Vec::new() }, timers: Heap { entries: Vec::new() }, processed: 0 }
    }
}

fn entry<E>(at: Time, order: Order, event: E) -> Entry<E> {
    Entry { key: (at.as_nanos() as u128) << 64 | order.0 as u128, event }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, at: Time, order: Order, event: E) {
        self.busy.push(entry(at, order, event));
    }

    /// As `push`, for an event scheduled by a clock (see `EventQueue`).
    pub fn push_timer(&mut self, at: Time, order: Order, event: E) {
        self.timers.push(entry(at, order, event));
    }

    /// Whether the earliest event is in the timer heap (if both are empty, it is not).
    fn timer_first(&self) -> bool {
        self.timers.first_key() < self.busy.first_key()
    }

    /// The earliest event and when it is due, if no later than `until`. It stays queued:
    /// take it off with `pop_first`, or put another in its place with `replace_first`.
    pub fn first_until(&self, until: Time) -> Option<(Time, &E)> {
        let heap = if self.timer_first() { &self.timers } else { &self.busy };
        let first = heap.entries.first()?;
        let at = (first.key >> 64) as u64;
        (at <= until.as_nanos()).then_some((Time(at), &first.event))
    }

    /// Take off the earliest event.
    pub fn pop_first(&mut self) -> Option<E> {
        let top = if self.timer_first() { self.timers.pop() } else { self.busy.pop() }?;
        self.processed += 1;
        Some(top.event)
    }

    /// Take off the earliest event and push `event` at `at`, as `push` would. When the
    /// earliest is in the busy heap, as a port's arrival is when the next packet on its wire
    /// takes its place, the new event goes in at the top: one sift instead of two.
    pub fn replace_first(&mut self, at: Time, order: Order, event: E) {
        if self.timer_first() {
            self.timers.pop();
            self.busy.push(entry(at, order, event));
        } else {
            self.busy.replace_first(entry(at, order, event));
        }
        self.processed += 1;
    }

    /// Take off the earliest event, if it is due no later than `until`.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        let (at, _) = self.first_until(until)?;
        self.pop_first().map(|e| (at, e))
    }

    /// When the earliest event is due.
    pub fn next_time(&self) -> Option<Time> {
        let key = self.timers.first_key().min(self.busy.first_key());
        (key != u128::MAX).then_some(Time((key >> 64) as u64))
    }

    /// Events handed out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Events not yet handed out, in no particular order.
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.busy.entries.iter().chain(&self.timers.entries).map(|e| &e.event)
    }

    pub fn len(&self) -> usize {
        self.busy.entries.len() + self.timers.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_by_rank() {
        let mut q = EventQueue::default();
        q.push(Time(5), Order::new(Class::App, 0, 0), "app");
        q.push_timer(Time(5), Order::new(Class::Timer, 3, 0), "timer 3");
        q.push(Time(1), Order::new(Class::App, 0, 0), "first");
        q.push(Time(5), Order::new(Class::Net, 7, 2), "port 7, packet 2");
        q.push(Time(5), Order::new(Class::Net, 7, 1), "port 7, packet 1");
        q.push_timer(Time(5), Order::new(Class::Timer, 2, 0), "timer 2");
        q.push(Time(9), Order::new(Class::Change, 0, 0), "late");
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(Time(8))).map(|(_, e)| e).collect();
        assert_eq!(order, ["first", "port 7, packet 1", "port 7, packet 2", "timer 2", "timer 3", "app"]);
        assert_eq!(q.len(), 1);
        assert_eq!(q.processed(), 6);
    }

    #[test]
    fn an_order_packs_class_index_and_tie_in_rank_order() {
        let o = Order::new;
        assert!(o(Class::Net, MAX_INDEX, (1 << 38) - 1) < o(Class::Timer, 0, 0));
        assert!(o(Class::Net, 1, (1 << 38) - 1) < o(Class::Net, 2, 0));
        assert!(o(Class::Change, 0, 5) < o(Class::Change, 0, 6));
    }

    proptest::proptest! {
        /// Against a sorted model: any mix of pushes (to either heap), pops and replacements
        /// of the earliest comes out in (time, rank) order.
        #[test]
        fn pops_in_time_then_rank_order(ops in proptest::collection::vec((0u64..50, 0u8..4, 0u32..4), 1..400)) {
            let mut q = EventQueue::default();
            let mut model: Vec<(u64, Order, usize)> = Vec::new();
            for (n, (t, op, class)) in ops.into_iter().enumerate() {
                let class = [Class::Change, Class::Net, Class::Timer, Class::App][class as usize];
                // Distinct ranks: equal keys are allowed only for identical events.
                let order = Order::new(class, (n % 5) as u32, n as u64);
                if op == 0 {
                    model.sort();
                    let want = if model.is_empty() { None } else { Some(model.remove(0)) }.map(|(t, _, n)| (t, n));
                    let got = q.pop_until(Time::MAX).map(|(t, e)| (t.as_nanos(), e));
                    proptest::prop_assert_eq!(got, want);
                } else if op == 3 {
                    // Put an event in place of the earliest, which the queue shows first.
                    model.sort();
                    let first = q.first_until(Time::MAX).map(|(t, &e)| (t.as_nanos(), e));
                    proptest::prop_assert_eq!(first, model.first().map(|&(t, _, n)| (t, n)));
                    if !model.is_empty() {
                        model.remove(0);
                    }
                    q.replace_first(Time(t), order, n);
                    model.push((t, order, n));
                } else if op == 1 {
                    q.push(Time(t), order, n);
                    model.push((t, order, n));
                } else {
                    q.push_timer(Time(t), order, n);
                    model.push((t, order, n));
                }
            }
        }
    }
}
