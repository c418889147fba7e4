//! A port's backlog: the transmissions it admitted that have not finished, oldest first.
//!
//! At most hops the queue is empty when a packet comes (in the benchmark's dumbbell every
//! port but the bottleneck's runs far below its rate), so the packet's transmission is then
//! the only one. The oldest is kept inline, in the
//! port's own cache lines, and only those behind it go to a ring, itself boxed so that its
//! bookkeeping is not in those lines either: such a hop then touches no line of the ring
//! and does none of its index arithmetic (with many flows, those lines are seldom in a near
//! cache).

use std::collections::VecDeque;

use rampup_tcp::Time;

/// One admitted transmission: it holds a place in the queue until `finish`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tx {
    pub txn: u64,
    pub start: Time,
    pub finish: Time,
    pub bytes: u32,
}

/// A FIFO of `Tx`: `len` of them, the oldest in `first` (meaningless when `len` is 0), the
/// others in `rest`. A hop that finds every transmission finished clears it by `len` alone.
#[derive(Default)]
#[repr(C)]
pub struct Backlog {
    first: Tx,
    len: u32,
    // Boxed on purpose: the ring's own 32 bytes of bookkeeping would take room in the
    // port's hot lines, and a hop with an empty queue never reads them.
    #[allow(clippy::box_collection)]
    rest: Box<VecDeque<Tx>>,
}

impl Backlog {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn front(&self) -> Option<&Tx> {
        (self.len > 0).then_some(&self.first)
    }

    pub fn push_back(&mut self, tx: Tx) {
        if self.len == 0 {
            self.first = tx;
        } else {
            self.rest.push_back(tx);
        }
        self.len += 1;
    }

    pub fn pop_front(&mut self) -> Option<Tx> {
        let front = self.front().copied()?;
        if self.len > 1 {
            self.first = self.rest.pop_front().expect("`len` counts the ring too");
        }
        self.len -= 1;
        Some(front)
    }

    pub fn clear(&mut self) {
        if self.len > 1 {
            self.rest.clear();
        }
        self.len = 0;
    }

    pub fn iter(&self) -> impl Iterator<Item = &Tx> {
        let first = (self.len > 0).then_some(&self.first);
        first.into_iter().chain(self.rest.iter())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Tx> {
        let first = (self.len > 0).then_some(&mut self.first);
        first.into_iter().chain(self.rest.iter_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Against a plain ring: any mix of pushes, pops and clears keeps the same
        /// transmissions in the same order.
        #[test]
        fn behaves_as_a_fifo(ops in proptest::collection::vec(0u8..5, 1..300)) {
            let mut b = Backlog::default();
            let mut model = VecDeque::new();
            for (n, op) in ops.into_iter().enumerate() {
                let tx = Tx { txn: n as u64, start: Time(n as u64), finish: Time(n as u64 + 1), bytes: n as u32 };
                match op {
                    0 | 1 => {
                        b.push_back(tx);
                        model.push_back(tx);
                    }
                    2 | 3 => proptest::prop_assert_eq!(b.pop_front(), model.pop_front()),
                    _ => {
                        b.clear();
                        model.clear();
                    }
                }
                for tx in b.iter_mut() {
                    tx.bytes += 1;
                }
                for tx in model.iter_mut() {
                    tx.bytes += 1;
                }
                proptest::prop_assert_eq!(b.len(), model.len());
                proptest::prop_assert_eq!(b.front(), model.front());
                proptest::prop_assert!(b.iter().eq(model.iter()));
            }
        }
    }
}
