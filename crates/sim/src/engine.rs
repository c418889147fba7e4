//! The event queue: a min-heap ordered by (time, insertion number), so that events at the
//! same time run in the order they were scheduled and identical runs stay identical.

use rampup_tcp::Time;

/// Events are kept in an implicit 4-ary min-heap keyed by (time, insertion number) packed
/// into one u128, so a comparison is one integer compare. A 4-ary heap is half as deep as a
/// binary one and its children share cache lines; pops dominate a simulation.
struct Entry<E> {
    key: u128,
    event: E,
}

const ARITY: usize = 4;

pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: Vec::new(), next_seq: 0, processed: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, at: Time, event: E) {
        let key = (at.as_nanos() as u128) << 64 | self.next_seq as u128;
        self.next_seq += 1;
        self.heap.push(Entry { key, event });
        self.sift_up(self.heap.len() - 1);
    }

    /// The earliest event, if it is due no later than `until`.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        let first = self.heap.first()?;
        if (first.key >> 64) as u64 > until.as_nanos() {
            return None;
        }
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = std::mem::replace(&mut self.heap[0], last);
            self.sift_down(0);
            top
        };
        self.processed += 1;
        Some((Time((top.key >> 64) as u64), top.event))
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= self.heap[i].key {
                break;
            }
            self.heap.swap(parent, i);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let last = (first + ARITY).min(n);
            let mut min = first;
            for c in first + 1..last {
                if self.heap[c].key < self.heap[min].key {
                    min = c;
                }
            }
            if self.heap[i].key <= self.heap[min].key {
                break;
            }
            self.heap.swap(i, min);
            i = min;
        }
    }

    /// Events handed out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Events not yet handed out, in no particular order.
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.heap.iter().map(|e| &e.event)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Time(5), "b");
        q.push(Time(1), "a");
        q.push(Time(5), "c");
        q.push(Time(9), "late");
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(Time(8))).collect();
        assert_eq!(order, vec![(Time(1), "a"), (Time(5), "b"), (Time(5), "c")]);
        assert_eq!(q.len(), 1);
        assert_eq!(q.processed(), 3);
    }

    proptest::proptest! {
        /// Against a sorted model: any mix of pushes and pops comes out in (time, insertion)
        /// order.
        #[test]
        fn pops_in_time_then_insertion_order(ops in proptest::collection::vec((0u64..50, proptest::bool::ANY), 1..400)) {
            let mut q = EventQueue::default();
            let mut model: Vec<(u64, usize)> = Vec::new();
            for (n, (t, pop)) in ops.into_iter().enumerate() {
                if pop {
                    model.sort();
                    let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                    let got = q.pop_until(Time::MAX).map(|(t, e)| (t.as_nanos(), e));
                    proptest::prop_assert_eq!(got, want);
                } else {
                    q.push(Time(t), n);
                    model.push((t, n));
                }
            }
        }
    }
}
