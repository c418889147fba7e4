//! The simulated world: the network, the TCP endpoints and the applications, driven by one
//! event queue. Endpoints are sans-IO: the world hands them segments and timer expiries and
//! polls them for what to send.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use rampup_tcp::{Duration, Endpoint, Role, Snapshot, Time};

use crate::affinity;
use crate::engine::{Class, EventQueue, Order};
use crate::net::{Body, Net, OnWire, Offer, Packet, Packets, Port};
use crate::output::{table, Column, RunOutput, Table};
use crate::partition::Split;
use crate::pcap::Pcap;
use crate::scenario::{App, Scenario};
use crate::trace::{Series, StateRow, TraceSink};
use crate::{to_the_end, RunError, ScenarioError};
use crate::Progress;

#[derive(Clone, Copy)]
enum Event {
    /// The first packet on a port's wire reaches the far end (if the event is not stale).
    Arrive(u32),
    /// A packet (by its index in `Packets`) that left its port's FIFO order, a duplicate or
    /// a reordered one, arrives.
    ArriveLate(u32, u32),
    /// A packet (by its index in `Packets`) is dropped by a queue (`lost`: false) or lost on
    /// a link, at a hop whose admission was computed ahead (`Net::plan_cut_through`).
    Discard { id: u32, lost: bool },
    /// Connection end `ep` asked to be woken.
    Timer(u32),
    FlowStart(u32),
    /// Request `k` of flow `f` is written.
    Write(u32, u32),
    UdpSend(u32),
    Change(u32),
}

/// One end of a TCP connection placed on a node.
struct Conn {
    ep: Endpoint,
    node: u32,
    peer_node: u32,
    flow: u32,
    /// The earliest Timer event in the queue for this end (later ones are stale).
    timer_at: Option<Time>,
    /// Whether this end may take a segment ahead of time (see `World::receive_ahead`).
    receives_ahead: bool,
    /// Set while the world sends what this end wants to send: a segment that reaches it
    /// meanwhile, later in simulated time, must wait for its event.
    in_service: bool,
    last: Option<Snapshot>,
}

/// One transfer: the whole of a bulk flow, or one request of a request/response flow.
struct Transfer {
    flow: u32,
    index: u32,
    start: Time,
    /// Acknowledged payload at which the transfer is complete.
    done_at_acked: u64,
    bytes: u64,
    end: Option<Time>,
    retransmits_at_start: u64,
    drops_at_start: u64,
    retransmits: u64,
    drops: u64,
}

struct FlowState {
    start: Option<Time>,
    /// Transfers of this flow, in order; `next` is the first not yet complete.
    transfers: Vec<usize>,
    next: usize,
    data_drops: u64,
    ack_drops: u64,
}

/// Packet accounting: created + duplicated = delivered + dropped + lost + in flight.
#[derive(Default)]
struct PacketCounts {
    /// Packets offered to a port (one per packet per link it is sent on): the engine's work,
    /// whichever fast path or thread carried the packet.
    hops: u64,
    created: u64,
    duplicated: u64,
    delivered: u64,
    dropped: u64,
    lost: u64,
}

struct UdpState {
    sent: u64,
    received: u64,
    received_bytes: u64,
    dropped: u64,
}

/// A packet sent across the cut of a split run (`crate::partition`): it reaches the cut
/// link at `at`, and the half at the link's far end offers it to the link's port towards
/// itself. Kept small: crossings are read from the cache of the other half's core.
struct Crossing {
    at: Time,
    pkt: Packet,
}

/// A world's part in a split run.
struct Half {
    /// The nodes this world simulates: flows start, sources send and links change only here.
    owns: Vec<bool>,
    /// Packets sent across the cut since the other half last took them.
    outbox: Vec<Crossing>,
    /// The cut link's delay: a packet that reaches the link at t arrives after t + this.
    lookahead: Duration,
}

pub struct World<'s> {
    sc: &'s Scenario,
    seed: u64,
    now: Time,
    events: EventQueue<Event>,
    net: Net,
    conns: Vec<Conn>,
    flows: Vec<FlowState>,
    transfers: Vec<Transfer>,
    udp: Vec<UdpState>,
    pcaps: Vec<Option<Pcap>>,
    series: Series,
    packets: PacketCounts,
    packets_in_flight: Packets,
    /// Connection ends now sending (`service`), nested when a segment is taken ahead.
    ends_in_service: u32,
    half: Option<Half>,
    /// The cut link's port out of this half, in a split run (`u32::MAX` otherwise): the
    /// other half simulates it (`Crossing`).
    cut_port: u32,
    /// Taken over from the other half at the end of a split run: its events handled and
    /// its packets in flight outside the ports' wires.
    other_events: u64,
    other_in_flight: u64,
    /// Why this half of a split run stopped early, if it did.
    stop: Option<RunError>,
}

/// What the two halves of a split run share: each one's published clock (nanoseconds)
/// and the packets sent across to it, with a count of the hand-overs into `inbox`.
#[derive(Default)]
#[repr(align(128))]
struct HalfLink {
    clock: AtomicU64,
    mail: AtomicU64,
    inbox: Mutex<Vec<Crossing>>,
    /// Set when this half's observer stopped the run: the other half stops too.
    stopped: AtomicBool,
}

/// Publishes the end of time if its half panics: the other half then runs to its end
/// instead of waiting forever, and the panic reaches the caller through the thread scope.
struct ReleaseOnPanic<'a>(&'a HalfLink);

impl Drop for ReleaseOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.clock.store(Time::MAX.as_nanos(), Ordering::Release);
        }
    }
}

/// The rank of packet `head`'s arrival from `port`: by its transmission there (twice it, so
/// that a duplicate's copy ranks right after it).
fn arrival_order(port: u32, head: OnWire) -> Order {
    Order::new(Class::Net, port, 2 * head.txn())
}

/// How many events a half handles, or crossing packets it takes, between hand-overs to the
/// other: often enough that the other half rarely waits, rarely enough that the shared
/// cache line stays quiet.
const PUBLISH_EVERY: u64 = 64;

/// Run `sc` split at `split` (`crate::partition`), half 1 on a second thread; `progress`
/// follows half 0.
pub fn run_split(sc: &Scenario, seed: u64, split: &Split, progress: Progress, sink: &mut dyn TraceSink) -> Result<RunOutput, RunError> {
    let halves: [HalfLink; 2] = Default::default();
    let [a, b] = [0, 1].map(|h| World::new_half(sc, seed, Some((split, h))));
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
    pub fn new(sc: &'s Scenario, seed: u64) -> Self {
        Self::new_half(sc, seed, None)
    }

    /// A world for half `h` of `split`, or for the whole network.
    fn new_half(sc: &'s Scenario, seed: u64, split: Option<(&Split, u8)>) -> Self {
        let net = Net::new(&sc.net, seed);
        let mut pcaps: Vec<Option<Pcap>> = (0..net.ports.len()).map(|_| None).collect();
        for &l in &sc.trace.pcap {
            for (i, p) in net.ports.iter().enumerate() {
                if p.link == l {
                    pcaps[i] = Some(Pcap::new(sc.header_bytes.min(sc.ack_bytes)));
                }
            }
        }
        let mut w = World {
            sc,
            seed,
            now: Time::ZERO,
            events: EventQueue::default(),
            net,
            conns: Vec::new(),
            flows: Vec::new(),
            transfers: Vec::new(),
            udp: Vec::new(),
            pcaps,
            series: Series::default(),
            packets: PacketCounts::default(),
            packets_in_flight: Packets::default(),
            ends_in_service: 0,
            half: None,
            cut_port: u32::MAX,
            other_events: 0,
            other_in_flight: 0,
            stop: None,
        };
        let owns: Vec<bool> = match split {
            Some((split, h)) => split.half.iter().map(|&x| x == h).collect(),
            None => vec![true; sc.net.nodes.len()],
        };
        for (i, f) in sc.flows.iter().enumerate() {
            let (from, to) = (f.from as u32, f.to as u32);
            for (node, peer, role) in [(from, to, Role::Active), (to, from, Role::Passive)] {
                w.conns.push(Conn {
                    ep: Endpoint::new(f.tcp.clone(), role),
                    node,
                    peer_node: peer,
                    flow: i as u32,
                    timer_at: None,
                    receives_ahead: false,
                    in_service: false,
                    last: None,
                });
            }
            w.flows.push(FlowState { start: None, transfers: Vec::new(), next: 0, data_drops: 0, ack_drops: 0 });
            if !owns[f.from] {
                continue;
            }
            w.events.push_timer(Time::ZERO + f.start_at(i, seed), Order::new(Class::App, i as u32, 0), Event::FlowStart(i as u32));
        }
        for (i, u) in sc.udp.iter().enumerate() {
            w.udp.push(UdpState { sent: 0, received: 0, received_bytes: 0, dropped: 0 });
            if u.start < u.stop && owns[u.from] {
                w.events.push_timer(Time::ZERO + u.start, w.udp_order(i as u32), Event::UdpSend(i as u32));
            }
        }
        for (i, c) in sc.changes.iter().enumerate().filter(|(_, c)| owns[sc.net.links[c.link].a]) {
            w.events.push_timer(Time::ZERO + c.at, Order::new(Class::Change, i as u32, 0), Event::Change(i as u32));
        }
        let paths = sc.flows.iter().flat_map(|f| [(f.from, f.to), (f.to, f.from)]).chain(sc.udp.iter().map(|u| (u.from, u.to)));
        let changing: Vec<usize> = sc.changes.iter().map(|c| c.link).collect();
        w.net.plan_cut_through(paths.map(|(a, b)| (a as u32, b as u32)), &changing);
        w.plan_receive_ahead();
        if let Some((split, _)) = split {
            let cut = &sc.net.links[split.link];
            // A link's two ports are made in a row, a->b first (`Net::new`).
            let a_to_b = w.net.ports.iter().position(|p| p.link == split.link).expect("the cut link's ports") as u32;
            w.cut_port = if owns[cut.a] { a_to_b } else { a_to_b + 1 };
            w.half = Some(Half { owns, outbox: Vec::new(), lookahead: split.lookahead });
        }
        w
    }

    /// Keep traces in memory only up to `rows` rows and captures up to `pcap_bytes`, to
    /// test that going to disk changes no result.
    pub fn spill_after(mut self, rows: usize, pcap_bytes: usize) -> Self {
        self.series = Series::new(rows);
        for p in self.pcaps.iter_mut().flatten() {
            p.out.set_limit(pcap_bytes);
        }
        self
    }

    /// Take every packet hop by hop and every segment at its arrival (see
    /// `crate::run_hop_by_hop`).
    pub fn hop_by_hop(mut self) -> Self {
        self.net.plan_cut_through([], &[]);
        for c in &mut self.conns {
            c.receives_ahead = false;
        }
        self
    }

    /// The connection ends that may take a segment ahead of time (`receive_ahead`): an end
    /// alone on a host with one link, which no other traffic uses. Its state then changes
    /// only through the segments that come in over that link, in FIFO order, and its own
    /// timers; what it sends goes out on a port no one else feeds. A link that duplicates
    /// or reorders towards it could hold a segment back, and one whose rate changes re-times
    /// what it carries, so either rules this out. A sender qualifies only for an unlimited
    /// bulk flow: requests are written on a schedule, and a sized transfer reads the flow's
    /// drop count when it completes, which drops decided ahead reach only at their time.
    fn plan_receive_ahead(&mut self) {
        let mut ends_at = vec![0u32; self.sc.net.nodes.len()];
        for c in &self.conns {
            ends_at[c.node as usize] += 1;
        }
        for u in &self.sc.udp {
            ends_at[u.from] += 1;
        }
        let mut links_at = vec![0u32; self.sc.net.nodes.len()];
        for l in &self.sc.net.links {
            links_at[l.a] += 1;
            links_at[l.b] += 1;
        }
        for (i, c) in self.conns.iter_mut().enumerate() {
            let node = c.node as usize;
            let unlimited = matches!(self.sc.flows[c.flow as usize].app, App::Bulk { bytes: None });
            if (i % 2 == 0 && !unlimited) || ends_at[node] != 1 || links_at[node] != 1 {
                continue;
            }
            let inbound = &self.net.ports[self.net.reverse(self.net.route(c.node, c.peer_node)) as usize];
            let fixed = !self.sc.changes.iter().any(|ch| ch.link == inbound.link);
            c.receives_ahead = fixed && inbound.duplicate == 0.0 && inbound.reorder == 0.0;
        }
    }

    /// Run to the scenario's end. `progress` is called now and then with the fraction done.
    pub fn run(mut self, progress: Progress, sink: &mut dyn TraceSink) -> Result<RunOutput, RunError> {
        let end = Time::ZERO + self.sc.duration;
        if let ControlFlow::Break(stop) = self.handle_until(end, u64::MAX, &mut 0, progress) {
            return Err(stop);
        }
        self.now = end;
        _ = progress(1.0);
        self.finish(sink)
    }

    /// The error when a trace has passed `[trace] max_rows` by `t`.
    fn over_budget(&self, t: Time) -> Option<RunError> {
        let max = self.sc.trace.max_rows?;
        let table = self.series.over(max)?;
        let at = t.as_nanos() as f64 / 1e9;
        let msg = format!("trace.max_rows: the {table} trace passed {max} rows by {at:.3}s of simulated time; raise trace.max_rows or set trace.{table} = false");
        Some(RunError::Scenario(ScenarioError(msg)))
    }

    /// Tell `progress` how far the run is at `t`, unless a trace has passed its budget
    /// (`[trace] max_rows`): either stops the run.
    fn report(&self, t: Time, progress: Progress) -> ControlFlow<RunError> {
        if let Some(e) = self.over_budget(t) {
            return ControlFlow::Break(e);
        }
        match progress(self.done_at(t)) {
            ControlFlow::Break(()) => ControlFlow::Break(RunError::Stopped),
            ControlFlow::Continue(()) => ControlFlow::Continue(()),
        }
    }

    /// The fraction of the run done at `t`, for `progress`.
    fn done_at(&self, t: Time) -> f64 {
        (t.as_nanos() as f64 / self.sc.duration.as_nanos().max(1) as f64).min(1.0)
    }

    /// Handle the events due by `until`, at most `max` of them, calling `progress` every
    /// 2^16 events (the next at `next_report`); the time of the last one handled, or Break
    /// if the run stops (`report`).
    fn handle_until(&mut self, until: Time, max: u64, next_report: &mut u64, progress: Progress) -> ControlFlow<RunError, Option<Time>> {
        let mut last = None;
        for _ in 0..max {
            let Some((t, &ev)) = self.events.first_until(until) else { break };
            self.now = t;
            if let Event::Arrive(port) = ev {
                // The next packet on the wire takes this arrival's place in the queue.
                let (id, next) = self.net.ports[port as usize].arrive(t);
                match next {
                    Some(head) => self.events.replace_first(head.arrival(), arrival_order(port, head), ev),
                    None => _ = self.events.pop_first(),
                }
                if let Some(id) = id {
                    self.arrive(port, id);
                }
            } else {
                self.events.pop_first();
                self.dispatch(ev);
            }
            last = Some(t);
            if self.events.processed() >= *next_report {
                *next_report += 1 << 16;
                self.report(t, progress)?;
            }
        }
        ControlFlow::Continue(last)
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
            if mark || rounds % 1024 == 0 {
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
    /// nodes (the cut link's too), its nodes' connection ends, its counts, and its rows.
    fn absorb(&mut self, mut other: World<'s>) {
        let theirs = other.half.take().expect("a split run").owns;
        for (i, p) in other.net.ports.iter_mut().enumerate().filter(|(_, p)| theirs[p.to as usize]) {
            std::mem::swap(&mut self.net.ports[i], p);
            std::mem::swap(&mut self.pcaps[i], &mut other.pcaps[i]);
        }
        for (mine, c) in self.conns.iter_mut().zip(&mut other.conns).filter(|(_, c)| theirs[c.node as usize]) {
            std::mem::swap(mine, c);
        }
        for (mine, f) in self.flows.iter_mut().zip(&other.flows) {
            mine.start = mine.start.or(f.start);
            mine.data_drops += f.data_drops;
            mine.ack_drops += f.ack_drops;
        }
        for (mine, u) in self.udp.iter_mut().zip(&other.udp) {
            mine.sent += u.sent;
            mine.received += u.received;
            mine.received_bytes += u.received_bytes;
            mine.dropped += u.dropped;
        }
        let (p, o) = (&mut self.packets, &other.packets);
        p.hops += o.hops;
        p.created += o.created;
        p.duplicated += o.duplicated;
        p.delivered += o.delivered;
        p.dropped += o.dropped;
        p.lost += o.lost;
        self.series.append(std::mem::take(&mut other.series));
        self.other_events = other.events.processed();
        self.other_in_flight = other.late_in_flight();
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Arrive(_) => unreachable!("arrivals are handled in handle_until"),
            Event::ArriveLate(port, id) => self.arrive(port, id),
            Event::Discard { id, lost } => self.discard(id, lost),
            Event::Timer(ep) => {
                // Stale when the wakeup moved to an earlier deadline (`service`) or was
                // taken before its time (`receive_ahead`).
                if self.conns[ep as usize].timer_at == Some(self.now) {
                    self.wake(ep, self.now);
                }
            }
            Event::FlowStart(f) => self.flow_start(f),
            Event::Write(f, k) => self.write(f, k),
            Event::UdpSend(u) => self.udp_send(u),
            Event::Change(i) => {
                let c = &self.sc.changes[i as usize];
                for (port, head) in self.net.set_link_rate(self.now, c.link, c.rate) {
                    self.schedule_arrival(port, head);
                }
            }
        }
    }

    // ---------------------------------------------------------------- applications

    fn flow_start(&mut self, f: u32) {
        let ep = 2 * f;
        self.flows[f as usize].start = Some(self.now);
        match &self.sc.flows[f as usize].app {
            App::Bulk { bytes: None } => self.conns[ep as usize].ep.write_unlimited(),
            App::Bulk { bytes: Some(b) } => {
                self.new_transfer(f, 0, *b);
                let e = &mut self.conns[ep as usize].ep;
                e.write(*b);
                e.close();
            }
            App::Requests { schedule } => {
                for (k, (at, _)) in schedule.iter().enumerate() {
                    self.events.push_timer(self.now + *at, Order::new(Class::App, f, k as u64 + 1), Event::Write(f, k as u32));
                }
            }
        }
        self.service(ep, self.now);
    }

    fn write(&mut self, f: u32, k: u32) {
        let App::Requests { schedule } = &self.sc.flows[f as usize].app else { return };
        let bytes = schedule[k as usize].1;
        self.new_transfer(f, k, bytes);
        self.conns[2 * f as usize].ep.write(bytes);
        self.service(2 * f, self.now);
    }

    fn new_transfer(&mut self, f: u32, index: u32, bytes: u64) {
        let fl = &self.flows[f as usize];
        let prev = fl.transfers.last().map_or(0, |&t| self.transfers[t].done_at_acked);
        let sender = &self.conns[2 * f as usize].ep;
        self.transfers.push(Transfer {
            flow: f,
            index,
            start: self.now,
            done_at_acked: prev + bytes,
            bytes,
            end: None,
            retransmits_at_start: sender.stats().retransmits,
            drops_at_start: fl.data_drops,
            retransmits: 0,
            drops: 0,
        });
        let id = self.transfers.len() - 1;
        self.flows[f as usize].transfers.push(id);
    }

    /// Sources rank after the flows among applications.
    fn udp_order(&self, u: u32) -> Order {
        Order::new(Class::App, self.sc.flows.len() as u32 + u, 0)
    }

    fn udp_send(&mut self, u: u32) {
        let spec = &self.sc.udp[u as usize];
        let pkt = Packet { dst: spec.to as u32, wire_bytes: spec.packet_bytes, body: Body::Udp { source: u } };
        self.udp[u as usize].sent += 1;
        self.packets.created += 1;
        let port = self.net.route(spec.from as u32, pkt.dst);
        let id = self.packets_in_flight.insert(pkt);
        self.enqueue(port, id, self.now, None);
        let next = self.now + spec.rate.tx_time(spec.packet_bytes as u64);
        if next < Time::ZERO + spec.stop {
            self.events.push_timer(next, self.udp_order(u), Event::UdpSend(u));
        }
    }

    // ---------------------------------------------------------------- endpoints

    /// After an input to `ep` at `now`: send what it wants to send, reschedule its timer,
    /// record its state and check for completed transfers.
    fn service(&mut self, ep: u32, now: Time) {
        let (ack_bytes, header_bytes) = (self.sc.ack_bytes, self.sc.header_bytes);
        self.conns[ep as usize].in_service = true;
        self.ends_in_service += 1;
        loop {
            let c = &mut self.conns[ep as usize];
            let Some(seg) = c.ep.poll_transmit(now) else { break };
            // Both at most 2^16 (`scenario::MAX_WIRE_BYTES`, mss), so the sum fits.
            let wire = if seg.len > 0 { seg.len + header_bytes } else { ack_bytes };
            let pkt = Packet { dst: c.peer_node, wire_bytes: wire, body: Body::Tcp { ep: ep ^ 1, seg } };
            let port = self.net.route(c.node, c.peer_node);
            self.packets.created += 1;
            let id = self.packets_in_flight.insert(pkt);
            self.enqueue(port, id, now, None);
        }
        let c = &mut self.conns[ep as usize];
        c.in_service = false;
        self.ends_in_service -= 1;
        if let Some(t) = c.ep.poll_timeout() {
            // One pending wakeup per end, moved lazily: only an earlier deadline is pushed.
            let t = t.max(now);
            if c.timer_at.is_none_or(|at| t < at) {
                c.timer_at = Some(t);
                self.events.push_timer(t, Order::new(Class::Timer, ep, 0), Event::Timer(ep));
            }
        }
        // Flow f's ends are 2f (the data sender) and 2f + 1 (the receiver).
        if ep.is_multiple_of(2) {
            self.record_sender(ep, now);
        }
    }

    fn record_sender(&mut self, ep: u32, now: Time) {
        let c = &mut self.conns[ep as usize];
        let flow = c.flow as usize;
        if self.sc.trace.timeseries {
            let s = c.ep.snapshot();
            if c.last != Some(s) {
                c.last = Some(s);
                self.series.record_state(StateRow { t: now, flow: flow as u32, s });
            }
        }
        let acked = self.conns[ep as usize].ep.bytes_acked();
        let fl = &mut self.flows[flow];
        while let Some(&t) = fl.transfers.get(fl.next) {
            let tr = &mut self.transfers[t];
            if acked < tr.done_at_acked {
                break;
            }
            tr.end = Some(now);
            tr.retransmits = self.conns[ep as usize].ep.stats().retransmits - tr.retransmits_at_start;
            tr.drops = fl.data_drops - tr.drops_at_start;
            fl.next += 1;
        }
    }

    // ---------------------------------------------------------------- network

    /// Offer packet `id` to `port` at `at`, and on through every next port whose admission
    /// can be computed ahead (`Net::plan_cut_through`); the packet's last admission puts it
    /// on a wire, whose arrival is an event, unless its receiver takes it ahead
    /// (`receive_ahead`). `crossed` is the port the packet last crossed while cut through,
    /// and its transmission there: a hop-by-hop run would take the next hop in that
    /// packet's arrival event.
    fn enqueue(&mut self, mut port: u32, id: u32, mut at: Time, mut crossed: Option<(u32, u64)>) {
        let end = Time::ZERO + self.sc.duration;
        let trace = self.sc.trace.queues;
        loop {
            if port == self.cut_port {
                self.cross(id, at);
                return;
            }
            self.packets.hops += 1;
            let series = &mut self.series;
            let p = &mut self.net.ports[port as usize];
            let mut record = |p: &Port, t| series.record_queue(t, port, p);
            p.expire(at, trace.then_some(&mut record));
            let pkt = self.packets_in_flight.get(id);
            let dst = pkt.dst;
            let pcap = &mut self.pcaps[port as usize];
            let (conns, udp) = (&self.conns, &self.sc.udp);
            let offer = p.offer(at, id, pkt, |start| {
                // A transmission that would start after the run's end is not one (as in
                // `Port::settle`, which the links table counts by).
                if let Some(pc) = pcap.as_mut().filter(|_| start < end) {
                    // A packet does not carry its source (it is needed only here): it is
                    // the host of the connection end that sent it, or the UDP source's.
                    let src = match pkt.body {
                        Body::Tcp { ep, .. } => conns[(ep ^ 1) as usize].node,
                        Body::Udp { source } => udp[source as usize].from as u32,
                    };
                    pc.record(start, src, pkt);
                }
            });
            if trace {
                series.record_queue(at, port, p);
            }
            match offer {
                Offer::Dropped | Offer::Lost => {
                    let lost = matches!(offer, Offer::Lost);
                    match crossed {
                        None => self.discard(id, lost),
                        Some((q, txn)) => self.events.push(at, Order::new(Class::Net, q, 2 * txn), Event::Discard { id, lost }),
                    }
                    return;
                }
                Offer::Sent { wire, duplicate } => {
                    if let Some(t) = duplicate {
                        self.send_copy(port, id, t, wire.txn());
                    }
                    if let Some(next) = self.net.cut_through(port, dst, wire.arrival(), end) {
                        crossed = Some((port, wire.txn()));
                        (port, at) = (next, wire.arrival());
                        continue;
                    }
                    if self.receive_ahead(port, id, wire.arrival(), end) {
                        return;
                    }
                    if let Some(head) = self.net.ports[port as usize].put_on_wire(wire) {
                        self.schedule_arrival(port, head);
                    }
                    return;
                }
                Offer::Reordered { at, txn, duplicate } => {
                    if let Some(t) = duplicate {
                        self.send_copy(port, id, t, txn);
                    }
                    self.arrive_late(port, id, at, 2 * txn);
                    return;
                }
            }
        }
    }

    /// A copy of packet `id`, the link's duplicate of its transmission `txn` on `port`,
    /// arriving at `at` right after the original.
    fn send_copy(&mut self, port: u32, id: u32, at: Time, txn: u64) {
        self.packets.duplicated += 1;
        let copy = self.packets_in_flight.get(id).clone();
        let copy = self.packets_in_flight.insert(copy);
        self.arrive_late(port, copy, at, 2 * txn + 1);
    }

    /// Packet `id` leaves `port` outside its wire's order, as a duplicate or a reordered
    /// packet, arriving at `at`, ranked `tie` among the port's arrivals.
    fn arrive_late(&mut self, port: u32, id: u32, at: Time, tie: u64) {
        self.events.push(at, Order::new(Class::Net, port, tie), Event::ArriveLate(port, id));
    }

    /// Send packet `id`, which reaches the cut link of a split run at `at`, to the other half.
    fn cross(&mut self, id: u32, at: Time) {
        let pkt = self.packets_in_flight.remove(id);
        self.half.as_mut().expect("a split run").outbox.push(Crossing { at, pkt });
    }

    /// The arrival of the first packet on `port`'s wire, ranked by its transmission there.
    fn schedule_arrival(&mut self, port: u32, head: OnWire) {
        self.events.push(head.arrival(), arrival_order(port, head), Event::Arrive(port));
    }

    fn discard(&mut self, id: u32, lost: bool) {
        if lost {
            self.packets.lost += 1;
        } else {
            self.packets.dropped += 1;
        }
        let pkt = self.packets_in_flight.remove(id);
        self.count_drop(&pkt);
    }

    fn arrive(&mut self, port: u32, id: u32) {
        let node = self.net.ports[port as usize].to;
        let dst = self.packets_in_flight.get(id).dst;
        if dst != node {
            let out = self.net.route(node, dst);
            self.enqueue(out, id, self.now, None);
            return;
        }
        self.deliver(id, self.now);
    }

    /// A segment that leaves `port` for its receiver at `at` is taken by the receiver now,
    /// without an event, if nothing can come before it: the receiver is one that may
    /// (`plan_receive_ahead`), no earlier packet is still on the port's wire, and it is
    /// not itself sending (a segment that its own sending brought back would overtake the
    /// rest of what it sends now). Its inputs then reach it in time order, and it answers
    /// at `at`.
    ///
    /// A data sender takes a segment ahead only when no end is sending (from a network
    /// event, or a crossing taken from the other half of a split run): its answer is data,
    /// which its receiver may take ahead in turn, and nested in each other the two ends
    /// would run through the whole flow inside one event, each refused by the other
    /// whenever it is itself sending. A receiver answers with an ACK, which stops at its
    /// sender.
    fn receive_ahead(&mut self, port: u32, id: u32, at: Time, end: Time) -> bool {
        let Body::Tcp { ep, .. } = self.packets_in_flight.get(id).body else { return false };
        let c = &self.conns[ep as usize];
        let p = &self.net.ports[port as usize];
        let sender_nested = ep.is_multiple_of(2) && self.ends_in_service > 0;
        if !c.receives_ahead || c.in_service || sender_nested || p.on_wire() > 0 || p.to != c.node || at > end {
            return false;
        }
        // Its wakeups due before `at` come first, as their events would in one world; one
        // at `at` itself comes after an arrival there in one world too. Each leaves a stale
        // event behind.
        while let Some(t) = self.conns[ep as usize].timer_at.filter(|&t| t < at) {
            self.wake(ep, t);
        }
        self.deliver(id, at);
        true
    }

    /// End `ep`'s wakeup at `at`.
    fn wake(&mut self, ep: u32, at: Time) {
        let c = &mut self.conns[ep as usize];
        c.timer_at = None;
        c.ep.handle_timeout(at);
        self.service(ep, at);
    }

    fn deliver(&mut self, id: u32, now: Time) {
        self.packets.delivered += 1;
        // The segment is read where it lies (not moved out, ~100 bytes) and freed after.
        let pkt = self.packets_in_flight.get(id);
        match pkt.body {
            Body::Tcp { ep, ref seg } => {
                self.conns[ep as usize].ep.handle_segment(now, seg);
                self.packets_in_flight.free(id);
                self.service(ep, now);
            }
            Body::Udp { source } => {
                let u = &mut self.udp[source as usize];
                u.received += 1;
                u.received_bytes += pkt.wire_bytes as u64;
                self.packets_in_flight.free(id);
            }
        }
    }

    fn count_drop(&mut self, pkt: &Packet) {
        match &pkt.body {
            Body::Tcp { ep, seg } => {
                let f = &mut self.flows[(*ep / 2) as usize];
                if seg.seq_len() > 0 {
                    f.data_drops += 1;
                } else {
                    f.ack_drops += 1;
                }
            }
            Body::Udp { source } => self.udp[*source as usize].dropped += 1,
        }
    }

    // ---------------------------------------------------------------- results

    /// Packets in flight that are not on a port's wire but in an event of their own. (What
    /// crossed the cut of a split run is counted too: `run_split` has every half take what
    /// crossed to it before the tables are made.)
    fn late_in_flight(&self) -> u64 {
        self.events.pending().filter(|e| matches!(e, Event::ArriveLate(..) | Event::Discard { .. })).count() as u64
    }

    /// The run's tables; the traced ones (`trace::TRACED_TABLES`) and the captures go to
    /// `sink`, not into the output. An error if a trace has passed its budget by the end.
    fn finish(mut self, sink: &mut dyn TraceSink) -> Result<RunOutput, RunError> {
        let end = self.now;
        let trace = self.sc.trace.queues;
        for (i, p) in self.net.ports.iter_mut().enumerate() {
            let series = &mut self.series;
            let mut record = |p: &Port, t| series.record_queue(t, i as u32, p);
            p.expire(end, trace.then_some(&mut record));
            p.settle(end);
        }
        if let Some(e) = self.over_budget(end) {
            return Err(e);
        }
        let late = self.late_in_flight() + self.other_in_flight;
        let sc = self.sc;
        let names = |i: usize| sc.net.nodes[i].name.clone();
        let nflows = sc.flows.len();
        let mut flows = FlowColumns::default();
        for (i, f) in sc.flows.iter().enumerate() {
            let (snd, rcv) = (&self.conns[2 * i].ep, &self.conns[2 * i + 1].ep);
            let st = snd.stats();
            let fs = &self.flows[i];
            let start = fs.start.unwrap_or(Time::ZERO + f.start);
            let last_end = fs.transfers.last().and_then(|&t| self.transfers[t].end);
            let complete = !fs.transfers.is_empty() && fs.next == fs.transfers.len();
            let span_end = if complete { last_end.unwrap_or(end) } else { end };
            let span = span_end.since(start).as_secs_f64();
            flows.flow.push(i as u64);
            flows.from.push(names(f.from));
            flows.to.push(names(f.to));
            flows.cc.push(f.tcp.cc_name());
            flows.recovery.push(f.tcp.recovery.name().to_string());
            flows.restart.push(f.tcp.restart.name().to_string());
            flows.idle_restarts.push(st.idle_restarts);
            flows.start.push(start.as_nanos());
            flows.end.push(if complete { last_end.map_or(f64::NAN, |t| t.as_nanos() as f64) } else { f64::NAN });
            flows.acked.push(snd.bytes_acked());
            flows.received.push(rcv.bytes_received());
            flows.segments.push(st.segments_sent);
            flows.retx.push(st.retransmits);
            flows.timeouts.push(st.timeouts);
            flows.fast.push(st.fast_retransmits);
            flows.preemptive.push(snd.preemptive_stats().retransmits);
            flows.spurious_preemptive.push(snd.preemptive_stats().spurious);
            flows.drops.push(fs.data_drops);
            flows.ack_drops.push(fs.ack_drops);
            flows.goodput.push(if span > 0.0 { rcv.bytes_received() as f64 * 8.0 / span } else { f64::NAN });
        }
        debug_assert_eq!(flows.flow.len(), nflows);

        let tr = &self.transfers;
        let transfers = table(vec![
            ("flow", Column::U64(tr.iter().map(|t| t.flow as u64).collect())),
            ("index", Column::U64(tr.iter().map(|t| t.index as u64).collect())),
            ("bytes", Column::U64(tr.iter().map(|t| t.bytes).collect())),
            ("start_ns", Column::U64(tr.iter().map(|t| t.start.as_nanos()).collect())),
            ("elapsed_s", Column::F64(tr.iter().map(|t| t.end.map_or(f64::NAN, |e| e.since(t.start).as_secs_f64())).collect())),
            ("retransmits", Column::U64(tr.iter().map(|t| t.retransmits).collect())),
            ("drops", Column::U64(tr.iter().map(|t| t.drops).collect())),
        ]);

        let ports = &self.net.ports;
        let elapsed = end.as_nanos().max(1) as f64;
        let links = table(vec![
            ("link", Column::Str(ports.iter().map(|p| p.name.clone()).collect())),
            ("rate_bps", Column::U64(ports.iter().map(|p| p.rate.bps()).collect())),
            ("tx_packets", Column::U64(ports.iter().map(|p| p.stats.tx_packets).collect())),
            ("tx_bytes", Column::U64(ports.iter().map(|p| p.stats.tx_bytes).collect())),
            ("drops", Column::U64(ports.iter().map(|p| p.stats.drops).collect())),
            ("lost", Column::U64(ports.iter().map(|p| p.stats.lost).collect())),
            ("utilization", Column::F64(ports.iter().map(|p| (p.stats.busy.as_nanos() as f64 / elapsed).min(1.0)).collect())),
        ]);
        let udp = table(vec![
            ("source", Column::U64((0..self.udp.len() as u64).collect())),
            ("from", Column::Str(sc.udp.iter().map(|u| names(u.from)).collect())),
            ("to", Column::Str(sc.udp.iter().map(|u| names(u.to)).collect())),
            ("sent", Column::U64(self.udp.iter().map(|u| u.sent).collect())),
            ("received", Column::U64(self.udp.iter().map(|u| u.received).collect())),
            ("received_bytes", Column::U64(self.udp.iter().map(|u| u.received_bytes).collect())),
            ("dropped", Column::U64(self.udp.iter().map(|u| u.dropped).collect())),
        ]);
        let on_wire: u64 = ports.iter().map(|p| p.on_wire() as u64).sum();
        let pk = &self.packets;
        let packets = table(vec![
            ("created", Column::U64(vec![pk.created])),
            ("duplicated", Column::U64(vec![pk.duplicated])),
            ("delivered", Column::U64(vec![pk.delivered])),
            ("dropped", Column::U64(vec![pk.dropped])),
            ("lost", Column::U64(vec![pk.lost])),
            ("in_flight", Column::U64(vec![on_wire + late])),
        ]);
        self.series.drain(sink, |port| ports[port as usize].name.clone());
        for (i, p) in self.pcaps.into_iter().enumerate() {
            if let Some(p) = p {
                let link = ports[i].name.replace("->", "_to_");
                p.out.drain(|bytes| sink.pcap(&link, bytes));
            }
        }
        Ok(RunOutput {
            tables: vec![
                ("flows".into(), flows.into_table()),
                ("transfers".into(), transfers),
                ("links".into(), links),
                ("udp".into(), udp),
                ("packets".into(), packets),
            ],
            pcaps: Vec::new(),
            events: self.events.processed() + self.other_events,
            packet_hops: self.packets.hops,
            seed: self.seed,
            sim_end_ns: end.as_nanos(),
        })
    }
}

#[derive(Default)]
struct FlowColumns {
    flow: Vec<u64>,
    from: Vec<String>,
    to: Vec<String>,
    cc: Vec<String>,
    recovery: Vec<String>,
    restart: Vec<String>,
    idle_restarts: Vec<u64>,
    start: Vec<u64>,
    end: Vec<f64>,
    acked: Vec<u64>,
    received: Vec<u64>,
    segments: Vec<u64>,
    retx: Vec<u64>,
    timeouts: Vec<u64>,
    fast: Vec<u64>,
    preemptive: Vec<u64>,
    spurious_preemptive: Vec<u64>,
    drops: Vec<u64>,
    ack_drops: Vec<u64>,
    goodput: Vec<f64>,
}

impl FlowColumns {
    fn into_table(self) -> Table {
        table(vec![
            ("flow", Column::U64(self.flow)),
            ("from", Column::Str(self.from)),
            ("to", Column::Str(self.to)),
            ("cc", Column::Str(self.cc)),
            ("recovery", Column::Str(self.recovery)),
            ("restart", Column::Str(self.restart)),
            ("idle_restarts", Column::U64(self.idle_restarts)),
            ("start_ns", Column::U64(self.start)),
            ("end_ns", Column::F64(self.end)),
            ("bytes_acked", Column::U64(self.acked)),
            ("bytes_received", Column::U64(self.received)),
            ("segments_sent", Column::U64(self.segments)),
            ("retransmits", Column::U64(self.retx)),
            ("timeouts", Column::U64(self.timeouts)),
            ("fast_retransmits", Column::U64(self.fast)),
            ("preemptive_retransmits", Column::U64(self.preemptive)),
            ("spurious_preemptive", Column::U64(self.spurious_preemptive)),
            ("drops", Column::U64(self.drops)),
            ("ack_drops", Column::U64(self.ack_drops)),
            ("goodput_bps", Column::F64(self.goodput)),
        ])
    }
}
