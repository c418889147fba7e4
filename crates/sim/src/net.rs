//! The runtime network: packets, output ports (one per link direction) with drop-tail
//! queues or a queue discipline (`crate::queue`), and static shortest-hop routing.

use std::collections::VecDeque;

use rampup_tcp::{Duration, Rate, Segment, Time};
use rand::Rng;

use crate::backlog::{Backlog, Tx};
use crate::engine::{Class, Order};
use crate::rng::{self, Stream};
use crate::routes::Routes;
use crate::topology::{LinkSpec, NetSpec, QueueLimit};
use crate::traffic::EndId;

mod disciplined;
use disciplined::Aqm;

/// What a packet carries.
#[derive(Clone, Copy, Debug)]
pub enum Body {
    /// A TCP segment for connection end `ep`.
    Tcp { ep: EndId, seg: Segment },
    /// A UDP datagram of constant-bit-rate source `source`.
    Udp { source: u32 },
}

/// A packet in flight. Its source node is not kept (see `World::enqueue`): a smaller packet
/// is copied faster, and it is copied at every step of its way.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub dst: u32,
    pub wire_bytes: u32,
    pub body: Body,
}

/// Where packets live while they cross the network: a port's queue and wire hold only a
/// packet's index here, so a hop moves 4 bytes, not the 72-byte packet (a segment
/// carries its SACK blocks inline).
///
/// A freed slot keeps its last packet until `insert` reuses it: a slot is plain data, so
/// freeing one is a push of its index (not a move of the packet out and a `None` in) and
/// reading one tests nothing. Debug builds keep a flag per slot and check that every index
/// read or freed is live.
#[derive(Default)]
pub struct Packets {
    slots: Vec<Packet>,
    free: Vec<u32>,
    #[cfg(debug_assertions)]
    live: Vec<bool>,
}

impl Packets {
    pub fn insert(&mut self, p: Packet) -> u32 {
        let id = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                i
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        };
        self.set_live(id, true);
        id
    }

    pub fn get(&self, id: u32) -> &Packet {
        self.check_live(id);
        &self.slots[id as usize]
    }

    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        self.check_live(id);
        &mut self.slots[id as usize]
    }

    pub fn remove(&mut self, id: u32) -> Packet {
        let p = *self.get(id);
        self.free(id);
        p
    }

    /// As `remove`, for a packet already read in place.
    pub fn free(&mut self, id: u32) {
        self.set_live(id, false);
        self.free.push(id);
    }

    #[cfg(debug_assertions)]
    fn set_live(&mut self, id: u32, live: bool) {
        let i = id as usize;
        if i >= self.live.len() {
            self.live.resize(i + 1, false);
        }
        assert_ne!(self.live[i], live, "packet {id}: inserted twice or freed twice");
        self.live[i] = live;
    }

    #[cfg(not(debug_assertions))]
    fn set_live(&mut self, _id: u32, _live: bool) {}

    #[cfg(debug_assertions)]
    fn check_live(&self, id: u32) {
        assert!(self.live.get(id as usize) == Some(&true), "packet {id} is not live");
    }

    #[cfg(not(debug_assertions))]
    fn check_live(&self, _id: u32) {}
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PortStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Dropped by the queue (full on arrival).
    pub drops: u64,
    /// Lost in transit by the link's random loss.
    pub lost: u64,
    pub busy: Duration,
}

/// A packet on its way to the far end.
#[derive(Clone, Copy, Debug)]
pub struct OnWire {
    arrival: Time,
    txn: u64,
    /// Delay beyond `finish + delay` (jitter), kept so a rate change can recompute arrival.
    extra: Duration,
    /// Index in `Packets`.
    id: u32,
}

impl OnWire {
    /// When the packet reaches the far end.
    pub fn arrival(&self) -> Time {
        self.arrival
    }

    /// Its transmission number on this port: packets are sent in this order.
    pub fn txn(&self) -> u64 {
        self.txn
    }

    /// The event of its arrival over `port`, the port that sent it: when, and its rank.
    pub fn event(&self, port: u32) -> (Time, Order) {
        (self.arrival, arrival_order(port, self.txn))
    }
}

/// One direction of a link: a FIFO drop-tail queue feeding a serialiser and a wire.
///
/// A FIFO port knows when each packet will leave and arrive the moment it is admitted, so
/// a packet costs one event per hop (its arrival), not two. `backlog` holds the admitted
/// transmissions that have not finished (its length is the queue occupancy, the packet in
/// service included, as ns-2 counts it) and `wire` the packets that will arrive, in order.
///
/// Laid out by hand (`repr(C)`, in cache lines) so that a hop reads as few lines of its
/// port as can be: with many flows a port is seldom still in a near cache, and each line
/// read is a miss (docs/performance.md, "Figures behind the comments").
#[repr(C, align(64))]
pub struct Port {
    // Line 0: what `expire` reads and `admits` and `offer` write: the queue (its oldest
    // transmission inline, `backlog`), its bytes.
    busy_until: Time,
    backlog: Backlog,
    backlog_bytes: u64,
    // Line 1: the rest of `offer` (with `admits`' limit).
    /// The serialisation time of the last packet size sent (a port carries one or two
    /// sizes, data and ACKs): the division it saves is on every hop's critical path.
    last_tx: (u32, Duration),
    next_txn: u64,
    pub limit: QueueLimit,
    pub rate: Rate,
    /// A token bucket in place of the serialiser, for a link with a `burst` (boxed: few
    /// links have one).
    bucket: Option<Box<Bucket>>,
    pub delay: Duration,
    // Line 2: the arrival, the random behaviour's test, the counts `offer` keeps.
    /// The latest arrival given out, so that jitter never reorders the wire.
    last_arrival: Time,
    /// Only ports with random behaviour draw from a stream; boxed, as its ~300-byte state
    /// would otherwise double the size of every port and spread its hot fields.
    pub rng: Option<Box<Stream>>,
    pub stats: PortStats,
    pub loss: f64,
    // Line 3: what the hop after reads (`Net::cut_through`), and the wire; after it, on
    // lines 3 and 4, what only set-up, random links and the tables read.
    pub to: u32,
    /// The port whose packets are the only ones this port gets (see `Net::plan_cut_through`).
    pub fed_only_by: Option<u32>,
    /// Where the packets this port sends go next.
    after: After,
    wire: VecDeque<OnWire>,
    pub duplicate: f64,
    pub reorder: f64,
    pub reorder_delay: Duration,
    pub jitter: Duration,
    pub link: usize,
    pub from: u32,
    pub name: String,
    /// A queue discipline in place of drop-tail (boxed, and last: few ports have one, and
    /// a drop-tail port's hops never read it).
    aqm: Option<Box<Aqm>>,
}

/// Where the packets a port sends go after its far end, worked out at set-up from the routes
/// (`Net::plan_cut_through`) so that most hops need no route lookup.
#[derive(Clone, Copy, Debug, PartialEq)]
enum After {
    /// Routes part there, or none passes: the next port by each packet's destination.
    ByRoute,
    /// Every route through the port ends at its far end.
    End,
    /// Every route through the port goes on to `port`; `cut`: this port alone feeds it, so
    /// that a packet's admission there can be computed ahead.
    Next { port: u32, cut: bool },
    /// As `Next { cut: false }`, the packets waiting for their arrival in `port`'s inbox
    /// (`Net::put_on_wire`): this port's link does not change and keeps its packets in order.
    Merge { port: u32 },
}

/// A packet waiting in a port's inbox: it arrives at `arrival`, ranked `order` (that of its
/// arrival over the port that sent it, `arrival_order`).
#[derive(Clone, Copy, Debug)]
struct Inbound {
    arrival: Time,
    order: Order,
    id: u32,
}

/// A port's inbox (`Net::inboxes`): its packets, first to arrive first, and the last one's
/// arrival and rank, kept apart from the ring so that a packet put in compares with it
/// without the ring's index arithmetic.
#[derive(Default)]
struct Inbox {
    packets: VecDeque<Inbound>,
    last: (Time, Order),
}

/// The rank of the arrival of the packet that `port` sent as its transmission `txn`: by that
/// transmission (twice it, so that a duplicate's copy ranks right after it).
pub fn arrival_order(port: u32, txn: u64) -> Order {
    Order::new(Class::Net, port, 2 * txn)
}

/// The arrivals' heap tells the head of an inbox from that of a wire by the last bit of its
/// rank, which is 0 in every wire's arrivals (`arrival_order`). The bit can rank an inbox's
/// packet with a duplicate's copy of it, never both: a port that duplicates sends to no inbox.
const INBOX: u64 = 1;

/// `arrival_order` for a packet that waits in an inbox.
fn inbox_order(port: u32, txn: u64) -> Order {
    Order::new(Class::Net, port, 2 * txn + INBOX)
}

/// What a hop needs of the port a packet leaves, read once at its admission: where the
/// packet goes next (`Net::cut_through`), and whether its receiver may take it ahead
/// (`World::receive_ahead`). Copied out, so that the hop looks the port up once.
#[derive(Clone, Copy, Debug)]
pub struct Leaving {
    pub to: u32,
    /// No packet is on the port's wire.
    pub wire_empty: bool,
    after: After,
}

/// tc's `tbf` in place of the serialiser (a link's `burst`): a packet leaves the queue whole
/// as soon as the bucket holds its bytes, and the bucket refills at the link's rate up to the
/// burst. After an idle the first packets therefore leave at once, where a serialiser would
/// take their transmission time, and tbf's drop-tail child queue holds exactly the packets
/// that have not left. Kept in time, as tbf keeps its tokens: `full` is the burst's
/// transmission time at the rate, `credit` what was left when the last packet left at `last`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    full: Duration,
    credit: Duration,
    last: Time,
}

impl Bucket {
    fn new(rate: Rate, burst_bytes: u64) -> Bucket {
        let full = rate.tx_time(burst_bytes);
        Bucket { full, credit: full, last: Time::ZERO }
    }

    /// When a packet offered at `now` whose bytes take `need` at the rate leaves: not before
    /// the one before it (FIFO), and once the bucket holds `need`. A packet larger than the
    /// bucket waits for it to fill and leaves it empty (tbf itself would drop it; the
    /// scenario checks that every packet fits).
    fn departure(&mut self, now: Time, need: Duration) -> Time {
        let t = now.max(self.last);
        let credit = (self.credit + t.since(self.last)).min(self.full);
        let need = need.min(self.full);
        let leave = if credit >= need { t } else { t + (need - credit) };
        self.credit = credit + leave.since(t) - need;
        self.last = leave;
        leave
    }
}

/// A queue trace's view of each departure: called with the port after it, and its time.
pub type OnDeparture<'a> = Option<&'a mut dyn FnMut(&Port, Time)>;

/// What became of a packet offered to a port.
pub enum Offer {
    /// The queue was full.
    Dropped,
    /// Sent, and lost in transit.
    Lost,
    /// Sent: the caller passes `wire` on to the next port or puts it on this port's wire
    /// (`put_on_wire`); `duplicate` is the arrival of a second copy that the caller makes
    /// and schedules.
    Sent { wire: OnWire, duplicate: Option<Time> },
    /// Sent and held back by the link's reordering: it arrives at `at`, outside the wire's
    /// order, and the caller schedules it on its own; `txn` is its transmission number.
    /// `duplicate` as for `Sent`: the copy arrives with it.
    Reordered { at: Time, txn: u64, duplicate: Option<Time> },
}

impl Port {
    fn new(spec: &LinkSpec, link: usize, from: usize, to: usize, names: &NetSpec, seed: u64) -> Port {
        let name = format!("{}->{}", names.nodes[from].name, names.nodes[to].name);
        // A link's settings per direction: [a->b, b->a].
        let dir = usize::from(from != spec.a);
        let loss = spec.loss[dir];
        let random = loss > 0.0 || spec.duplicate > 0.0 || spec.reorder > 0.0 || spec.jitter > Duration::ZERO;
        Port {
            rng: random.then(|| Box::new(rng::stream(seed, &format!("port:{name}")))),
            name,
            from: from as u32,
            to: to as u32,
            link,
            rate: spec.rate,
            delay: spec.delay,
            limit: spec.queue[dir],
            last_tx: (0, Duration::ZERO),
            backlog: Backlog::default(),
            backlog_bytes: 0,
            busy_until: Time::ZERO,
            next_txn: 0,
            wire: VecDeque::new(),
            last_arrival: Time::ZERO,
            bucket: spec.burst_bytes.map(|b| Box::new(Bucket::new(spec.rate, b))),
            fed_only_by: None,
            after: After::ByRoute,
            loss,
            duplicate: spec.duplicate,
            reorder: spec.reorder,
            reorder_delay: spec.reorder_delay,
            jitter: spec.jitter,
            stats: PortStats::default(),
            aqm: spec.discipline[dir].map(|k| Box::new(Aqm::new(&k, spec.rate, seed, &format!("queue:{}->{}", names.nodes[from].name, names.nodes[to].name)))),
        }
    }

    /// Packets in the queue, the one being serialised included.
    pub fn queued_packets(&self) -> usize {
        self.backlog.len() + self.aqm.as_ref().map_or(0, |a| a.discipline.len())
    }
    pub fn queued_bytes(&self) -> u64 {
        self.backlog_bytes + self.aqm.as_ref().map_or(0, |a| a.discipline.bytes())
    }
    pub fn leaving(&self) -> Leaving {
        Leaving { to: self.to, wire_empty: self.wire.is_empty(), after: self.after }
    }

    /// The transmission number the next packet sent will take.
    pub fn next_txn(&self) -> u64 {
        self.next_txn
    }

    /// When the last transmission admitted ends.
    pub fn busy_until(&self) -> Time {
        self.busy_until
    }

    /// Retire the transmissions finished by `now`, calling `on_change` after each so that a
    /// queue trace sees every departure at its own time.
    pub fn expire(&mut self, now: Time, mut on_change: OnDeparture) {
        if on_change.is_none() && self.busy_until <= now {
            // All have left, as mostly at a port that is not a bottleneck: no need to look
            // at each (a loop whose length varies per call is a branch mispredicted per hop).
            self.backlog.clear();
            self.backlog_bytes = 0;
            return;
        }
        while let Some(tx) = self.backlog.front().copied() {
            if tx.finish > now {
                break;
            }
            self.backlog.pop_front();
            self.backlog_bytes -= tx.bytes as u64;
            if let Some(f) = on_change.as_mut() {
                f(self, tx.finish);
            }
        }
    }

    /// Drop-tail admission: a limit in packets counts the packet being serialised too.
    #[inline(always)]
    fn admits(&self, wire_bytes: u32) -> bool {
        self.admits_with(wire_bytes, self.backlog.len(), self.backlog_bytes)
    }

    #[inline(always)]
    fn admits_with(&self, wire_bytes: u32, packets: usize, bytes: u64) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (packets as u64) < n,
            QueueLimit::Bytes(b) => bytes + wire_bytes as u64 <= b,
        }
    }

    /// A token bucket's departure as (start, finish), both when the packet leaves; out of
    /// line, as few links have one.
    #[cold]
    #[inline(never)]
    fn bucket_departure(&mut self, now: Time, tx_time: Duration) -> (Time, Time) {
        let leave = self.bucket.as_mut().map_or(now, |b| b.departure(now, tx_time));
        (leave, leave)
    }

    /// Neither random behaviour nor a token bucket nor a queue discipline: `offer::<true>`
    /// may skip their tests.
    pub fn is_plain(&self) -> bool {
        self.rng.is_none() && self.bucket.is_none() && self.aqm.is_none()
    }

    /// Offer packet `id` (`pkt` is its content) at `now`; call `expire(now)` first.
    /// `on_start` sees the time its transmission starts (for pcap). `PLAIN`: the caller
    /// knows the port `is_plain`, and the admission then has no code for either feature: the
    /// caller, inlined, would otherwise handle each random outcome at every hop
    /// (docs/performance-limits.md).
    pub fn offer<const PLAIN: bool>(&mut self, now: Time, id: u32, pkt: &Packet, on_start: impl FnOnce(Time)) -> Offer {
        debug_assert!(!PLAIN || self.is_plain(), "port {} offered as plain", self.name);
        if !self.admits(pkt.wire_bytes) {
            self.stats.drops += 1;
            return Offer::Dropped;
        }
        self.transmit::<PLAIN>(now, id, pkt, on_start)
    }

    /// Start sending packet `id` at `now` or as soon as the link is free: the admitted
    /// packet of `offer`, or the one a discipline gave (`next_out`).
    #[inline(always)]
    pub fn transmit<const PLAIN: bool>(&mut self, now: Time, id: u32, pkt: &Packet, on_start: impl FnOnce(Time)) -> Offer {
        if self.last_tx.0 != pkt.wire_bytes {
            self.last_tx = (pkt.wire_bytes, self.rate.tx_time(pkt.wire_bytes as u64));
        }
        let tx_time = self.last_tx.1;
        let (start, finish) = if PLAIN || self.bucket.is_none() {
            let start = now.max(self.busy_until);
            (start, start + tx_time)
        } else {
            self.bucket_departure(now, tx_time)
        };
        let txn = self.next_txn;
        self.next_txn += 1;
        self.busy_until = finish;
        self.backlog.push_back(Tx { txn, start, finish, bytes: pkt.wire_bytes });
        self.backlog_bytes += pkt.wire_bytes as u64;
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += pkt.wire_bytes as u64;
        self.stats.busy = self.stats.busy + tx_time;
        on_start(start);

        // When it arrives, jitter (`extra`) aside: a port without random behaviour adds none.
        let mut arrival = finish + self.delay;
        let mut extra = Duration::ZERO;
        let mut twice = false;
        if let Some(rng) = self.rng.as_mut().filter(|_| !PLAIN) {
            if self.loss > 0.0 && rng.random::<f64>() < self.loss {
                self.stats.lost += 1;
                return Offer::Lost;
            }
            if self.jitter > Duration::ZERO {
                extra = Duration(rng.random_range(0..=self.jitter.as_nanos()));
                arrival += extra;
            }
            twice = self.duplicate > 0.0 && rng.random::<f64>() < self.duplicate;
            if self.reorder > 0.0 && rng.random::<f64>() < self.reorder {
                let at = arrival + self.reorder_delay;
                return Offer::Reordered { at, txn, duplicate: twice.then_some(at) };
            }
        }
        // Jitter never reorders: a packet arrives no earlier than the one before it. Its
        // copy, if any, arrives with it (ranked right after it by the caller).
        let arrival = arrival.max(self.last_arrival);
        self.last_arrival = arrival;
        Offer::Sent { wire: OnWire { arrival, txn, extra, id }, duplicate: twice.then_some(arrival) }
    }

    /// Put a packet this port sent on its wire; returns it when it is the wire's first, for
    /// the caller to schedule its arrival.
    pub fn put_on_wire(&mut self, w: OnWire) -> Option<OnWire> {
        let head = self.wire.is_empty().then_some(w);
        self.wire.push_back(w);
        head
    }

    /// The packet at the head of the wire, if it arrives at `now`; then the next one, whose
    /// arrival to schedule. A `None` packet means the event was stale.
    pub fn arrive(&mut self, now: Time) -> (Option<u32>, Option<OnWire>) {
        // Taken off first and put back if stale (rare: a rate change re-timed the wire), so
        // that the common case looks at the ring twice, not three times.
        match self.wire.pop_front() {
            Some(w) if w.arrival == now => (Some(w.id), self.wire.front().copied()),
            Some(stale) => {
                self.wire.push_front(stale);
                (None, None)
            }
            None => (None, None),
        }
    }

    /// Change the rate at `now`. Transmissions that have not started yet are re-timed at the
    /// new rate (the one in service finishes at the old one); returns the wire's new head,
    /// whose arrival to schedule, if its arrival changed.
    pub fn set_rate(&mut self, now: Time, rate: Rate) -> Option<OnWire> {
        self.rate = rate;
        self.last_tx = (0, Duration::ZERO);
        let old_head = self.wire.front().map(|w| w.arrival);
        let mut prev_finish: Option<Time> = None;
        let mut retimed: Vec<(u64, Time)> = Vec::new();
        for tx in self.backlog.iter_mut() {
            if tx.start <= now {
                prev_finish = Some(tx.finish);
                continue;
            }
            tx.start = prev_finish.unwrap_or(now).max(now);
            tx.finish = tx.start + rate.tx_time(tx.bytes as u64);
            prev_finish = Some(tx.finish);
            retimed.push((tx.txn, tx.finish));
        }
        if let Some(f) = prev_finish {
            self.busy_until = f;
        }
        let mut last = Time::ZERO;
        let mut k = 0;
        for w in self.wire.iter_mut() {
            while k < retimed.len() && retimed[k].0 < w.txn {
                k += 1;
            }
            if k < retimed.len() && retimed[k].0 == w.txn {
                w.arrival = retimed[k].1 + self.delay + w.extra;
            }
            w.arrival = w.arrival.max(last);
            last = w.arrival;
        }
        if let Some(w) = self.wire.back() {
            self.last_arrival = w.arrival;
        }
        let new_head = self.wire.front().copied();
        new_head.filter(|w| Some(w.arrival) != old_head)
    }

    /// At the end of a run at `end`: take back what was counted for transmissions that had
    /// not started, and the part of the busy time after `end`.
    pub fn settle(&mut self, end: Time) {
        for tx in self.backlog.iter() {
            if tx.start >= end {
                self.stats.tx_packets -= 1;
                self.stats.tx_bytes -= tx.bytes as u64;
            }
            // A bucket's packet counted its whole transmission time when it left.
            let after = match self.bucket {
                None => tx.finish.since(tx.start.max(end)),
                Some(_) if tx.start >= end => self.rate.tx_time(tx.bytes as u64),
                Some(_) => Duration::ZERO,
            };
            self.stats.busy = self.stats.busy - after;
        }
    }
}

pub struct Net {
    pub ports: Vec<Port>,
    routes: Routes,
    /// Each port's inbox: the packets on their way to it from the ports that `After::Merge`
    /// sends there, in the order they arrive. One arrival event stands for each inbox's
    /// head, where one would stand for each feeding wire's: at a bottleneck fed by N access
    /// links, the arrivals' heap holds the inbox's head instead of N wires', and its sifts,
    /// a large share of an event's work, stay short (docs/performance.md, "Figures behind
    /// the comments").
    inboxes: Vec<Inbox>,
}

impl Net {
    pub fn new(spec: &NetSpec, seed: u64) -> Net {
        let mut ports = Vec::with_capacity(spec.links.len() * 2);
        let mut node_ports = vec![Vec::new(); spec.nodes.len()];
        for (i, l) in spec.links.iter().enumerate() {
            for (from, to) in [(l.a, l.b), (l.b, l.a)] {
                node_ports[from].push(ports.len() as u32);
                ports.push(Port::new(l, i, from, to, spec, seed));
            }
        }
        let port_to: Vec<u32> = ports.iter().map(|p| p.to).collect();
        let inboxes = ports.iter().map(|_| Inbox::default()).collect();
        Net { routes: Routes::new(&node_ports, &port_to), ports, inboxes }
    }

    /// Put packet `w`, which `port` sent (`from`, as it left), on its way to the far end:
    /// into the inbox of the port it goes on to when it sends there (`After::Merge`) and `w`
    /// comes no earlier than the inbox's last packet (by arrival, then rank), on its own wire
    /// otherwise. Either ring is in arrival order, and the arrivals' heap merges the rings'
    /// heads, so the events come in the same order however the packets are shared out.
    /// Returns the arrival event to schedule when `w` is its ring's first: when, and its rank.
    #[inline(always)]
    pub fn put_on_wire(&mut self, port: u32, from: Leaving, w: OnWire) -> Option<(Time, Order)> {
        if let After::Merge { port: next } = from.after {
            let order = inbox_order(port, w.txn);
            let inbox = &mut self.inboxes[next as usize];
            // In an empty inbox, `last` is that of a packet already arrived: it rarely sends
            // one to its wire (only a tie in time with a lower rank), and never wrongly.
            if inbox.last <= (w.arrival, order) {
                inbox.last = (w.arrival, order);
                inbox.packets.push_back(Inbound { arrival: w.arrival, order, id: w.id });
                return (inbox.packets.len() == 1).then_some((w.arrival, order));
            }
        }
        self.ports[port as usize].put_on_wire(w).map(|head| head.event(port))
    }

    /// The packet that the arrival event ranked `order` brings over `port` at `now`, from the
    /// port's wire or from the inbox it sends to (`put_on_wire`); then the event to schedule
    /// in its place, for the next packet of the same ring. A `None` packet: the event was
    /// stale (a rate change re-timed the wire; inboxes are fed only by links that do not
    /// change).
    #[inline(always)]
    pub fn arrive(&mut self, port: u32, order: Order, now: Time) -> (Option<u32>, Option<(Time, Order)>) {
        if order.tie() & INBOX == 0 {
            let (id, next) = self.ports[port as usize].arrive(now);
            return (id, next.map(|head| head.event(port)));
        }
        let After::Merge { port: next } = self.ports[port as usize].after else { unreachable!("an inbox's packet came over a port that sends to none") };
        let inbox = &mut self.inboxes[next as usize].packets;
        let first = inbox.pop_front().expect("an inbox's event stands for its first packet");
        debug_assert_eq!((first.arrival, first.order), (now, order), "an inbox's event is never stale");
        (Some(first.id), inbox.front().map(|head| (head.arrival, head.order)))
    }

    /// Packets admitted that have not yet reached the far end of their port: on the ports'
    /// wires and in the inboxes.
    pub fn on_wires(&self) -> u64 {
        let wires: usize = self.ports.iter().map(|p| p.wire.len()).sum();
        let inboxes: usize = self.inboxes.iter().map(|i| i.packets.len()).sum();
        (wires + inboxes) as u64
    }

    /// Take over from `other`, the world of the other half of a split run, the inboxes of
    /// the ports that start at the nodes it simulated (`theirs`): their packets came in over
    /// those nodes' links.
    pub fn absorb_inboxes(&mut self, other: &mut Net, theirs: &[bool]) {
        for (i, _) in self.ports.iter().enumerate().filter(|(_, p)| theirs[p.from as usize]) {
            std::mem::swap(&mut self.inboxes[i], &mut other.inboxes[i]);
        }
    }

    /// The other direction of `port`'s link (`new` makes a link's two ports in a row).
    pub fn reverse(&self, port: u32) -> u32 {
        port ^ 1
    }

    /// The output port at `node` towards `dst`. The scenario check guarantees a path.
    pub fn route(&self, node: u32, dst: u32) -> u32 {
        self.routes.port(node, dst)
    }

    /// Find the ports whose admissions can be computed ahead ("cut through"): a port `p`
    /// whose only traffic, on every route in `paths` (source, destination node pairs), comes
    /// from one upstream port `q`. Packets reach `p` in `q`'s FIFO order, so `p`'s state at a
    /// packet's arrival depends only on the packets `q` sent before it: the moment `q` admits
    /// a packet, its admission at `p` can be computed too, and a packet crossing such a chain
    /// costs one event, at its last hop, instead of one per hop. Excluded: links that change
    /// during the run (`changing`: a rate change re-times packets already admitted, a delay
    /// or loss change alters what an admission computed ahead assumed) and
    /// upstream ports that duplicate or reorder (their late copies would reach `p` out of
    /// order). `paths` must hold every route a packet takes: the plan also records what
    /// follows each port on them (`After`), which `next_hop` then trusts.
    pub fn plan_cut_through(&mut self, paths: impl IntoIterator<Item = (u32, u32)>, changing: &[usize]) {
        #[derive(Clone, Copy, PartialEq)]
        enum Feed {
            Nothing,
            Port(u32),
            Many,
        }
        // What comes after each port on the routes, in `Feed`'s terms: `Port(p)`, the same
        // next port p on all of them, `Nothing` where they all end at its far end, or `Many`.
        let join = |seen: Option<Feed>, now: Feed| if seen.is_none_or(|s| s == now) { Some(now) } else { Some(Feed::Many) };
        let mut feed = vec![Feed::Nothing; self.ports.len()];
        let mut after = vec![None; self.ports.len()];
        for (src, dst) in paths {
            // The first port on a route is fed by a host, which counts as a second feeder.
            let mut from = Feed::Many;
            let mut node = src;
            while node != dst {
                let p = self.route(node, dst);
                let f = &mut feed[p as usize];
                *f = if *f == Feed::Nothing || *f == from { from } else { Feed::Many };
                if let Feed::Port(q) = from {
                    after[q as usize] = join(after[q as usize], Feed::Port(p));
                }
                from = Feed::Port(p);
                node = self.ports[p as usize].to;
            }
            if let Feed::Port(q) = from {
                after[q as usize] = join(after[q as usize], Feed::Nothing);
            }
        }
        // A port whose link does not change and that keeps its packets in order: its packets'
        // arrivals are final once it admits them.
        let steady: Vec<bool> = self.ports.iter().map(|p| !changing.contains(&p.link) && p.duplicate == 0.0 && p.reorder == 0.0).collect();
        let fed_only_by: Vec<Option<u32>> = feed
            .iter()
            .enumerate()
            .map(|(this, f)| match *f {
                Feed::Port(q) => (steady[q as usize] && !changing.contains(&self.ports[this].link)).then_some(q),
                _ => None,
            })
            .collect();
        let after: Vec<After> = after
            .iter()
            .enumerate()
            .map(|(q, a)| match *a {
                Some(Feed::Port(p)) if fed_only_by[p as usize] == Some(q as u32) => After::Next { port: p, cut: true },
                Some(Feed::Port(p)) if steady[q] => After::Merge { port: p },
                Some(Feed::Port(p)) => After::Next { port: p, cut: false },
                Some(Feed::Nothing) => After::End,
                // Routes part; only those towards a port this one alone feeds are cut through.
                _ => After::ByRoute,
            })
            .collect();
        debug_assert!(self.inboxes.iter().all(|i| i.packets.is_empty()), "planned before any packet is sent");
        for ((p, f), a) in self.ports.iter_mut().zip(fed_only_by).zip(after) {
            p.fed_only_by = f;
            p.after = a;
        }
    }

    /// The port a packet for `dst` takes after arriving over `port`, or `None` at its
    /// destination.
    #[inline(always)]
    pub fn next_hop(&self, port: u32, dst: u32) -> Option<u32> {
        let p = &self.ports[port as usize];
        match p.after {
            After::End => None,
            After::Next { port, .. } | After::Merge { port } => Some(port),
            After::ByRoute => (p.to != dst).then(|| self.route(p.to, dst)),
        }
    }

    /// The port that takes packet `dst`'s next hop when it leaves `port` (as `from` shows
    /// it) arriving at `at`, if its admission can be computed now (`plan_cut_through`) and
    /// falls within the run.
    #[inline(always)]
    pub fn cut_through(&self, port: u32, from: Leaving, dst: u32, at: Time, end: Time) -> Option<u32> {
        let next = match from.after {
            After::End | After::Next { cut: false, .. } | After::Merge { .. } => return None,
            After::Next { port: next, cut: true } => next,
            After::ByRoute => (from.to != dst).then(|| self.route(from.to, dst)).filter(|&next| self.ports[next as usize].fed_only_by == Some(port))?,
        };
        (at <= end).then_some(next)
    }

    /// Set the rate of both directions of link `link` at `now`; returns the ports whose
    /// wire head arrival changed, with the new head to schedule.
    /// A `[[change]]` of a link's delay or loss, both directions: for the packets that start
    /// onto its wire from now on (those on it keep their arrival, and the wire its order). A
    /// port that gains loss takes its random stream then, as if it had had it from the start.
    pub fn set_link_path(&mut self, link: usize, delay: Option<Duration>, loss: Option<f64>, seed: u64) {
        for p in self.ports.iter_mut().filter(|p| p.link == link) {
            if let Some(d) = delay {
                p.delay = d;
            }
            if let Some(l) = loss {
                p.loss = l;
                if p.rng.is_none() {
                    p.rng = Some(Box::new(rng::stream(seed, &format!("port:{}", p.name))));
                }
            }
        }
    }

    pub fn set_link_rate(&mut self, now: Time, link: usize, rate: Rate) -> Vec<(u32, OnWire)> {
        let mut heads = Vec::new();
        for (i, p) in self.ports.iter_mut().enumerate().filter(|(_, p)| p.link == link) {
            if let Some(t) = p.set_rate(now, rate) {
                heads.push((i as u32, t));
            }
        }
        heads
    }
}

#[cfg(test)]
mod tests;
