//! The event queue: a min-heap ordered by (time, insertion number), so that events at the
//! same time run in the order they were scheduled and identical runs stay identical.

use rampup_tcp::Time;

/// Events are kept in implicit 4-ary min-heaps keyed by (time, insertion number) packed
/// into one u128, so a comparison is one integer compare. A 4-ary heap is half as deep as a
/// binary one and its children share cache lines; pops dominate a simulation.
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

    fn push(&mut self, entry: Entry<E>) {
        self.entries.push(entry);
        self.sift_up(self.entries.len() - 1);
    }

    fn pop(&mut self) -> Option<Entry<E>> {
        let last = self.entries.pop()?;
        if self.entries.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.entries[0], last);
        self.sift_down(0);
        Some(top)
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.entries[parent].key <= self.entries[i].key {
                break;
            }
            self.entries.swap(parent, i);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.entries.len();
        let key = self.entries[i].key;
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
                if k(b) < k(a) { b } else { a }
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

/// Two heaps under one insertion counter: `push` for the events that come and go with every
/// packet hop, `push_timer` for the ones a clock schedules (endpoint wakeups, application
/// and link schedules). Timers are numerous (one per connection end) but rarely due; kept
/// apart, they leave the busy heap a few entries deep whatever the number of flows. A pop
/// takes the smaller of the two first keys, so events come out in exactly the order one
/// heap would give.
pub struct EventQueue<E> {
    busy: Heap<E>,
    timers: Heap<E>,
    next_seq: u64,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { busy: Heap { entries: Vec::new() }, timers: Heap { entries: Vec::new() }, next_seq: 0, processed: 0 }
    }
}

impl<E> EventQueue<E> {
    fn entry(&mut self, at: Time, event: E) -> Entry<E> {
        let key = (at.as_nanos() as u128) << 64 | self.next_seq as u128;
        self.next_seq += 1;
        Entry { key, event }
    }

    pub fn push(&mut self, at: Time, event: E) {
        let e = self.entry(at, event);
        self.busy.push(e);
    }

    /// As `push`, for an event scheduled by a clock (see `EventQueue`).
    pub fn push_timer(&mut self, at: Time, event: E) {
        let e = self.entry(at, event);
        self.timers.push(e);
    }

    /// The earliest event, if it is due no later than `until`.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        let heap = if self.timers.first_key() < self.busy.first_key() { &mut self.timers } else { &mut self.busy };
        let first = heap.entries.first()?;
        if (first.key >> 64) as u64 > until.as_nanos() {
            return None;
        }
        let top = heap.pop()?;
        self.processed += 1;
        Some((Time((top.key >> 64) as u64), top.event))
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
    fn earliest_first_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push_timer(Time(5), "b");
        q.push(Time(1), "a");
        q.push(Time(5), "c");
        q.push(Time(9), "late");
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(Time(8))).collect();
        assert_eq!(order, vec![(Time(1), "a"), (Time(5), "b"), (Time(5), "c")]);
        assert_eq!(q.len(), 1);
        assert_eq!(q.processed(), 3);
    }

    proptest::proptest! {
        /// Against a sorted model: any mix of pushes (to either heap) and pops comes out in
        /// (time, insertion) order.
        #[test]
        fn pops_in_time_then_insertion_order(ops in proptest::collection::vec((0u64..50, 0u8..3), 1..400)) {
            let mut q = EventQueue::default();
            let mut model: Vec<(u64, usize)> = Vec::new();
            for (n, (t, op)) in ops.into_iter().enumerate() {
                if op == 0 {
                    model.sort();
                    let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                    let got = q.pop_until(Time::MAX).map(|(t, e)| (t.as_nanos(), e));
                    proptest::prop_assert_eq!(got, want);
                } else {
                    if op == 1 {
                        q.push(Time(t), n);
                    } else {
                        q.push_timer(Time(t), n);
                    }
                    model.push((t, n));
                }
            }
        }
    }
}
