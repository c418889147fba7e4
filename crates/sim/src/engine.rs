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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
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

    /// The index it was made with: for an arrival, its port.
    pub fn index(self) -> u32 {
        (self.0 >> 38) as u32 & MAX_INDEX
    }

    /// The number it was made with (its `tie`, wrapped to 38 bits).
    pub fn tie(self) -> u64 {
        self.0 & ((1 << 38) - 1)
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
            // children exist (the common case): random keys defeat branch prediction. Read
            // through an array of four, so that one bounds check covers them.
            let (min, min_key) = if let Some(kids) = self.entries.get(first..first + ARITY) {
                let kids: &[Entry<E>; ARITY] = kids.try_into().expect("a range of ARITY entries");
                let a = usize::from(kids[1].key < kids[0].key);
                let b = 2 + usize::from(kids[3].key < kids[2].key);
                let m = if kids[b].key < kids[a].key { b } else { a };
                (first + m, kids[m].key)
            } else {
                let m = (first + 1..n).fold(first, |m, c| if self.entries[c].key < self.entries[m].key { c } else { m });
                (m, self.entries[m].key)
            };
            if key <= min_key {
                break;
            }
            self.entries.swap(i, min);
            i = min;
        }
    }
}

/// Two heaps. `push_arrival` is for the event that comes and goes with every packet hop,
/// the arrival of the first packet on a port's wire: that heap holds bare keys (16 bytes;
/// the port is the rank's index), so four children share a cache line or two and a swap
/// moves half as much. `push` is for all other events: those a clock schedules (endpoint
/// wakeups, application and link schedules), numerous (one per connection end) but rarely
/// due, and the rare packet outside its wire's order. Kept apart, they leave the arrivals'
/// heap a few entries deep whatever the number of flows. A pop takes the smaller of the two
/// first keys, so events come out in exactly the order one heap would give.
pub struct EventQueue<E> {
    arrivals: Heap<()>,
    others: Heap<E>,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { arrivals: Heap { entries: Vec::new() }, others: Heap { entries: Vec::new() }, processed: 0 }
    }
}

/// The earliest event: an arrival, by its rank, or another event.
pub enum First<'a, E> {
    Arrival(Order),
    Event(&'a E),
}

fn key(at: Time, order: Order) -> u128 {
    (at.as_nanos() as u128) << 64 | order.0 as u128
}

impl<E> EventQueue<E> {
    /// The arrival ranked `order` (`Class::Net`, the port as its index) at `at`.
    pub fn push_arrival(&mut self, at: Time, order: Order) {
        self.arrivals.push(Entry { key: key(at, order), event: () });
    }

    /// Any event but an arrival (see `EventQueue`).
    pub fn push(&mut self, at: Time, order: Order, event: E) {
        self.others.push(Entry { key: key(at, order), event });
    }

    /// Whether the earliest event is another than an arrival (if both are empty, it is not).
    fn other_first(&self) -> bool {
        self.others.first_key() < self.arrivals.first_key()
    }

    /// The earliest event and when it is due, if no later than `until`. It stays queued:
    /// take it off with `pop_first_event` or `pop_first_arrival` as it is, or put an
    /// arrival in the place of an arrival with `replace_first_arrival`.
    pub fn first_until(&self, until: Time) -> Option<(Time, First<'_, E>)> {
        let (key, first) = if self.other_first() {
            let e = self.others.entries.first()?;
            (e.key, First::Event(&e.event))
        } else {
            let key = self.arrivals.entries.first()?.key;
            (key, First::Arrival(Order(key as u64)))
        };
        let at = (key >> 64) as u64;
        (at <= until.as_nanos()).then_some((Time(at), first))
    }

    /// Take off the earliest event, which `first_until` gave as another event than an arrival.
    pub fn pop_first_event(&mut self) {
        debug_assert!(self.other_first(), "the earliest event is an arrival");
        self.processed += u64::from(self.others.pop().is_some());
    }

    /// Take off the earliest event, which `first_until` gave as an arrival. (Told, not
    /// worked out again: comparing the two heaps' first keys again is a share of an arrival
    /// event's work worth saving; docs/performance.md, "Figures behind the comments".)
    pub fn pop_first_arrival(&mut self) {
        debug_assert!(!self.other_first(), "the earliest event is not an arrival");
        self.processed += u64::from(self.arrivals.pop().is_some());
    }

    /// As `pop_first_arrival`, then push the arrival `order` at `at`, as when the next packet
    /// on a port's wire takes the handled one's place: it goes in at the top, one sift, not two.
    pub fn replace_first_arrival(&mut self, at: Time, order: Order) {
        debug_assert!(!self.other_first(), "the earliest event is not an arrival");
        self.arrivals.replace_first(Entry { key: key(at, order), event: () });
        self.processed += 1;
    }

    /// When the earliest event is due.
    pub fn next_time(&self) -> Option<Time> {
        let key = self.others.first_key().min(self.arrivals.first_key());
        (key != u128::MAX).then_some(Time((key >> 64) as u64))
    }

    /// Events handed out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// The events other than arrivals not yet handed out, in no particular order.
    pub fn pending_others(&self) -> impl Iterator<Item = &E> {
        self.others.entries.iter().map(|e| &e.event)
    }

    pub fn len(&self) -> usize {
        self.arrivals.entries.len() + self.others.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Take off the earliest event due by `until`: its time and its name (an arrival's is
    /// its port and tie).
    fn take<E: ToString>(q: &mut EventQueue<E>, until: Time) -> Option<(u64, String)> {
        let (t, first) = q.first_until(until)?;
        let name = match first {
            First::Arrival(o) => format!("port {}, packet {}", o.index(), o.0 & ((1 << 38) - 1)),
            First::Event(e) => e.to_string(),
        };
        match first {
            First::Arrival(_) => q.pop_first_arrival(),
            First::Event(_) => q.pop_first_event(),
        }
        Some((t.as_nanos(), name))
    }

    #[test]
    fn earliest_first_and_ties_by_rank() {
        let mut q = EventQueue::default();
        q.push(Time(5), Order::new(Class::App, 0, 0), "app");
        q.push(Time(5), Order::new(Class::Timer, 3, 0), "timer 3");
        q.push(Time(1), Order::new(Class::App, 0, 0), "first");
        q.push_arrival(Time(5), Order::new(Class::Net, 7, 2));
        q.push_arrival(Time(5), Order::new(Class::Net, 7, 1));
        q.push(Time(5), Order::new(Class::Net, 6, 4), "port 6, late packet");
        q.push(Time(5), Order::new(Class::Timer, 2, 0), "timer 2");
        q.push(Time(9), Order::new(Class::Change, 0, 0), "late");
        let order: Vec<_> = std::iter::from_fn(|| take(&mut q, Time(8))).map(|(_, e)| e).collect();
        let want = ["first", "port 6, late packet", "port 7, packet 1", "port 7, packet 2", "timer 2", "timer 3", "app"];
        assert_eq!(order, want);
        assert_eq!(q.len(), 1);
        assert_eq!(q.processed(), 7);
    }

    #[test]
    fn an_order_packs_class_index_and_tie_in_rank_order() {
        let o = Order::new;
        assert!(o(Class::Net, MAX_INDEX, (1 << 38) - 1) < o(Class::Timer, 0, 0));
        assert!(o(Class::Net, 1, (1 << 38) - 1) < o(Class::Net, 2, 0));
        assert!(o(Class::Change, 0, 5) < o(Class::Change, 0, 6));
        assert_eq!((o(Class::Net, MAX_INDEX, 5).index(), o(Class::App, 3, (1 << 38) - 1).index()), (MAX_INDEX, 3));
    }

    proptest::proptest! {
        /// Against a sorted model: any mix of pushes (arrivals and other events), pops and
        /// replacements of the earliest by an arrival comes out in (time, rank) order.
        #[test]
        fn pops_in_time_then_rank_order(ops in proptest::collection::vec((0u64..50, 0u8..4, 0u32..4), 1..400)) {
            let mut q = EventQueue::default();
            let mut model: Vec<(u64, Order, String)> = Vec::new();
            let earliest = |model: &mut Vec<(u64, Order, String)>| {
                model.sort();
                (!model.is_empty()).then(|| model.remove(0)).map(|(t, _, name)| (t, name))
            };
            for (n, (t, op, class)) in ops.into_iter().enumerate() {
                let class = [Class::Change, Class::Net, Class::Timer, Class::App][class as usize];
                // Distinct ranks: equal keys are allowed only for identical events.
                let order = Order::new(class, (n % 5) as u32, n as u64);
                let arrival = (order, format!("port {}, packet {n}", n % 5));
                match op {
                    0 => proptest::prop_assert_eq!(take(&mut q, Time::MAX), earliest(&mut model)),
                    1 => {
                        // An arrival in place of the earliest when that is an arrival (the
                        // next packet on its wire), pushed after taking it off otherwise.
                        let first = q.first_until(Time::MAX).map(|(t, f)| (t.as_nanos(), matches!(f, First::Arrival(_))));
                        let want = earliest(&mut model);
                        proptest::prop_assert_eq!(first.map(|(t, _)| t), want.map(|(t, _)| t));
                        match first {
                            Some((_, true)) => q.replace_first_arrival(Time(t), order),
                            Some((_, false)) => {
                                q.pop_first_event();
                                q.push_arrival(Time(t), order);
                            }
                            None => q.push_arrival(Time(t), order),
                        }
                        model.push((t, arrival.0, arrival.1));
                    }
                    2 => {
                        q.push_arrival(Time(t), order);
                        model.push((t, arrival.0, arrival.1));
                    }
                    _ => {
                        q.push(Time(t), order, format!("event {n}"));
                        model.push((t, order, format!("event {n}")));
                    }
                }
            }
        }
    }
}
