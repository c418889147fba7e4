//! The simulated world: the network, the TCP endpoints and the applications, driven by one
//! event queue. Endpoints are sans-IO: the world hands them segments and timer expiries and
//! polls them for what to send.

use std::ops::ControlFlow;

use rampup_tcp::Time;

use crate::engine::{Class, EventQueue, First, Order};
use crate::memory;
use crate::net::{arrival_order, Body, Net, Offer, OnWire, Packet, Packets, Port};
use crate::output::RunOutput;
use crate::partition::Split;
use crate::scenario::Scenario;
use crate::trace::{PacketEvent, TraceSink};
use crate::traffic::{Action, EndId};
use crate::Progress;
use crate::RunError;

// The world's owned sub-states, each with its own methods; none reaches the event loop.
mod conns;
mod flows;
mod half;
mod host;
mod rate;
mod traces;

// The event loop, one `impl World` block per kind of work.
mod ahead;
mod apps;
mod finish;
mod queued;
mod shaped;
mod split;

// The sizes of the sub-states' records, for the estimate.
mod footprint;

use conns::Conns;
use flows::{FlowState, Flows, PacketCounts, UdpState};
use half::{Crossing, Half};
use host::Hosts;
use traces::{PortTraces, Traces};

pub use conns::MAX_OPEN;
pub use footprint::{footprint, Footprint};

#[derive(Clone, Copy)]
enum Event {
    /// A packet (by its index in `Packets`) that left its port's FIFO order, a duplicate or
    /// a reordered one, arrives.
    ArriveLate(u32, u32),
    /// A packet (by its index in `Packets`) is dropped by a queue (`lost`: false) or lost on
    /// a link, at a hop whose admission was computed ahead (`Net::plan_cut_through`).
    Discard {
        id: u32,
        lost: bool,
    },
    /// Connection end `ep` asked to be woken.
    Timer(EndId),
    /// The timer that end `ep`'s application set (`traffic::Action::Timer`).
    AppTimer(EndId),
    /// Flow `f` opens its connection number `k`; for a flow of one connection, k = 0 is its
    /// start.
    Open(u32, u32),
    /// Write `k` of flow `f`'s schedule.
    Write(u32, u32),
    /// Phase `k` of rate-limited flow `f` begins.
    Phase(u32, u32),
    /// Write number `seq` of rate-limited flow `f` (stale if its phase has ended).
    RateWrite(u32, u32),
    UdpSend(u32),
    Change(u32),
    /// vrate group `g` releases what it may send now (stale if not its pending release).
    Release(u32),
    /// Port `p`, which runs a queue discipline, has sent its packet (`queued`).
    Dequeue(u32),
}

/// The world: the scenario, the clock, the event queue and the network, and the owned
/// sub-states the event loop works on.
pub struct World<'s> {
    sc: &'s Scenario,
    seed: u64,
    now: Time,
    events: EventQueue<Event>,
    net: Net,
    /// Connection ends and their slots (`traffic::EndId` indexes the ends).
    conns: Conns,
    flows: Flows,
    udp: Vec<UdpState>,
    packets: PacketCounts,
    packets_in_flight: Packets,
    /// A buffer for what an application does (`hear`).
    actions: Vec<Action>,
    traces: Traces,
    /// No port has random behaviour or a token bucket, nor will (`Port::is_plain`).
    plain_ports: bool,
    /// Some port runs a queue discipline (`queued`).
    disciplined: bool,
    /// Connection ends now sending (`service`), nested when a segment is taken ahead.
    ends_in_service: u32,
    /// This world's part in a split run (no cut for a world of the whole network).
    half: Half,
    /// The vrate groups and ensembles on the hosts.
    hosts: Hosts,
}

impl<'s> World<'s> {
    pub fn new(sc: &'s Scenario, seed: u64) -> Self {
        Self::new_half(sc, seed, None)
    }

    /// A world for half `h` of `split`, or for the whole network.
    fn new_half(sc: &'s Scenario, seed: u64, split: Option<(&Split, u8)>) -> Self {
        let net = Net::new(&sc.net, seed);
        // A `[[change]]` of loss gives its ports a random stream (`Net::set_link_path`).
        let plain_ports = net.ports.iter().all(Port::is_plain) && sc.changes.iter().all(|c| c.loss.is_none());
        let mut w = World {
            sc,
            seed,
            now: Time::ZERO,
            events: EventQueue::default(),
            traces: Traces::new(sc, &net),
            net,
            conns: Conns::new(),
            flows: Flows::default(),
            udp: Vec::new(),
            packets: PacketCounts::default(),
            packets_in_flight: Packets::default(),
            actions: Vec::new(),
            plain_ports,
            disciplined: sc.net.links.iter().any(|l| l.discipline.iter().any(Option::is_some)),
            ends_in_service: 0,
            half: Half::whole(),
            hosts: Hosts::default(),
        };
        let owns: Vec<bool> = match split {
            Some((split, h)) => split.half.iter().map(|&x| x == h).collect(),
            None => vec![true; sc.net.nodes.len()],
        };
        for (i, f) in sc.flows.iter().enumerate() {
            w.flows.state.push(FlowState::default());
            // A flow of one connection has it from the start (each half of a split run makes
            // the same); others open theirs as they go.
            if f.app.one_connection() {
                w.flows[i].conn = w.new_conn(i as u32);
            }
            if owns[f.from] {
                w.events.push(Time::ZERO + f.start_at(i, seed), Order::new(Class::App, i as u32, 0), Event::Open(i as u32, 0));
            }
        }
        for (i, u) in sc.udp.iter().enumerate() {
            w.udp.push(UdpState::default());
            if u.start < u.stop && owns[u.from] {
                w.events.push(Time::ZERO + u.start, w.udp_order(i as u32), Event::UdpSend(i as u32));
            }
        }
        for (i, c) in sc.changes.iter().enumerate().filter(|(_, c)| owns[sc.net.links[c.link].a]) {
            w.events.push(Time::ZERO + c.at, Order::new(Class::Change, i as u32, 0), Event::Change(i as u32));
        }
        let paths = sc.flows.iter().flat_map(|f| [(f.from, f.to), (f.to, f.from)]).chain(sc.udp.iter().map(|u| (u.from, u.to)));
        let changing: Vec<usize> = sc.changes.iter().map(|c| c.link).collect();
        w.net.plan_cut_through(paths.map(|(a, b)| (a as u32, b as u32)), &changing);
        w.plan_receive_ahead();
        w.hosts = Hosts::new(sc, &w.flows, &mut w.conns);
        if sc.trace.packets || w.disciplined {
            // Every hop an event, every row logged at its time (`traces`); a discipline
            // takes its packets in time order (`queued`).
            w = w.hop_by_hop();
        }
        if let Some((split, _)) = split {
            let cut = &sc.net.links[split.link];
            // A link's two ports are made in a row, a->b first (`Net::new`).
            let a_to_b = w.net.ports.iter().position(|p| p.link == split.link).expect("the cut link's ports") as u32;
            let cut_port = if owns[cut.a] { a_to_b } else { a_to_b + 1 };
            w.half = Half::cut(owns, cut_port, split.lookahead);
        }
        w
    }

    /// Keep traces in memory only up to `rows` rows and captures up to `pcap_bytes`, to
    /// test that going to disk changes no result.
    pub fn spill_after(mut self, rows: usize, pcap_bytes: usize) -> Self {
        self.traces.spill_after(rows, pcap_bytes);
        self
    }

    /// Allow at most `n` connections open at once (`conns::MAX_OPEN` otherwise), to test
    /// the error when more would be.
    pub fn open_at_most(mut self, n: usize) -> Self {
        self.conns.max_open = n;
        self
    }

    /// Stop the run with an error once the engine's heap passes `bytes`. Looked at where the
    /// trace budget is (`report`, every 2^16 events), so the hot path pays nothing, and as
    /// each connection opens (`new_conn`), as connections are what grows fastest; the heap
    /// is the whole process's, as counted by `memory::Counting` (none without it).
    pub fn memory_budget(mut self, bytes: Option<u64>) -> Self {
        self.conns.memory_budget = bytes;
        self
    }

    /// Take every packet hop by hop and every segment at its arrival (see
    /// `crate::run_hop_by_hop`).
    pub fn hop_by_hop(mut self) -> Self {
        self.net.plan_cut_through([], &[]);
        for c in &mut self.conns.ends {
            c.receives_ahead = false;
        }
        self
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

    /// The error that stops the run at `t`, if any: more connections to open at once than
    /// `max_open`, the heap past `memory_budget`, or a trace past `[trace] max_rows`.
    fn over_budget(&self, t: Time) -> Option<RunError> {
        let (held_bytes, seen) = self.conns.over_memory.unwrap_or_else(|| (memory::allocated_bytes(), t));
        if let Some(budget_bytes) = self.conns.memory_budget.filter(|&b| held_bytes > b) {
            return Some(RunError::MemoryBudget { held_bytes, budget_bytes, at: seen });
        }
        if self.conns.too_many_open {
            return Some(RunError::TooManyOpen { max_open: self.conns.max_open, at: t });
        }
        let max_rows = self.sc.trace.max_rows?;
        let table = self.traces.series.over(max_rows)?;
        Some(RunError::TraceRows { table, max_rows, at: t })
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
            let Some((t, first)) = self.events.first_until(until) else { break };
            self.now = t;
            match first {
                First::Arrival(order) => {
                    // The next packet on the wire, or in the inbox, takes this arrival's place in the queue.
                    let port = order.index();
                    let (id, next) = self.net.arrive(port, order, t);
                    match next {
                        Some((at, order)) => self.events.replace_first_arrival(at, order),
                        None => self.events.pop_first_arrival(),
                    }
                    if let Some(id) = id {
                        self.arrive(port, id);
                    }
                }
                First::Event(&ev) => {
                    self.events.pop_first_event();
                    self.dispatch(ev);
                }
            }
            last = Some(t);
            if self.events.processed() >= *next_report {
                *next_report += 1 << 16;
                self.report(t, progress)?;
            }
        }
        ControlFlow::Continue(last)
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::ArriveLate(port, id) => self.arrive(port, id),
            Event::Discard { id, lost } => self.discard(id, lost),
            Event::Timer(ep) => {
                // Stale when the wakeup moved to an earlier deadline (`service`) or was
                // taken before its time (`receive_ahead`).
                if self.conns[ep.index()].timer_at == self.now {
                    self.wake(ep, self.now);
                }
            }
            Event::AppTimer(ep) => self.app_timer(ep),
            Event::Open(f, k) => self.open(f, k),
            Event::Write(f, k) => self.write(f, k),
            Event::Phase(f, k) => self.phase(f, k),
            Event::RateWrite(f, seq) => self.rate_write(f, seq),
            Event::UdpSend(u) => self.udp_send(u),
            Event::Release(g) => self.release(g),
            Event::Dequeue(port) => self.serve(port, self.now),
            Event::Change(i) => {
                let c = &self.sc.changes[i as usize];
                self.net.set_link_path(c.link, c.delay, c.loss, self.seed);
                if let Some(rate) = c.rate {
                    for (port, head) in self.net.set_link_rate(self.now, c.link, rate) {
                        self.schedule_arrival(port, head);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- applications

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
            self.events.push(next, self.udp_order(u), Event::UdpSend(u));
        }
    }

    // ---------------------------------------------------------------- endpoints

    /// After an input to `ep` at `now`: send what it wants to send, let its application act
    /// on what changed, reschedule its timer, record its state and check for completed
    /// transfers; reuse its connection's slot if that is done.
    fn service(&mut self, ep: EndId, now: Time) {
        let (ack_bytes, header_bytes) = (self.sc.ack_bytes, self.sc.header_bytes);
        // The end is looked up once, and again only after a call that may move `conns`.
        let mut c = &mut self.conns[ep.index()];
        c.in_service = true;
        self.ends_in_service += 1;
        let mut sent = 0;
        while let Some(seg) = c.ep.poll_transmit(now) {
            // Both at most 2^16 (`scenario::MAX_WIRE_BYTES`, mss), so the sum fits.
            let (payload, vrate, port) = (seg.len, c.vrate, c.port);
            let wire = if payload > 0 { payload + header_bytes } else { ack_bytes };
            let pkt = Packet { dst: c.peer_node, wire_bytes: wire, body: Body::Tcp { ep: ep.peer(), seg } };
            self.packets.created += 1;
            sent += 1;
            let id = self.packets_in_flight.insert(pkt);
            match vrate {
                None => self.enqueue(port, id, now, None),
                Some(member) => self.shape(member, port, id, payload, now),
            }
            c = &mut self.conns[ep.index()];
        }
        // A connection opened at run time: its application, its count, its close; out of
        // line, so that a flow's one connection pays one test for it.
        if c.counted {
            self.serve_counted(ep, now, sent);
            c = &mut self.conns[ep.index()];
        }
        c.in_service = false;
        self.ends_in_service -= 1;
        if let Some(t) = c.ep.poll_timeout() {
            // One pending wakeup per end, moved lazily: only an earlier deadline is pushed.
            let t = t.max(now);
            if t < c.timer_at {
                c.timer_at = t;
                self.events.push(t, Order::new(Class::Timer, ep.rank(), 0), Event::Timer(ep));
            }
        }
        if c.records {
            self.record_sender(ep, now);
        }
    }

    // ---------------------------------------------------------------- network

    /// Offer packet `id` to `port` at `at`, and on through every next port whose admission
    /// can be computed ahead (`Net::plan_cut_through`); the packet's last admission puts it
    /// on a wire, whose arrival is an event, unless its receiver takes it ahead
    /// (`receive_ahead`). `crossed` is the port the packet last crossed while cut through,
    /// and its transmission there: a hop-by-hop run would take the next hop in that
    /// packet's arrival event.
    #[inline(always)]
    fn enqueue(&mut self, port: u32, id: u32, at: Time, crossed: Option<(u32, u64)>) {
        match (self.traces.ports, self.plain_ports) {
            (false, true) => self.enqueue_as::<false, true>(port, id, at, crossed),
            _ if self.disciplined => self.enqueue_disciplined(port, id, at),
            (false, false) => self.enqueue_as::<false, false>(port, id, at, crossed),
            (true, _) => self.enqueue_as::<true, false>(port, id, at, crossed),
        }
    }

    /// `enqueue`, made three times: without the traces that watch ports (`TRACED` false) the
    /// hop has none of their code and stays small enough to inline; with only plain ports
    /// (`PLAIN`, `Port::offer`), none for random outcomes either.
    fn enqueue_as<const TRACED: bool, const PLAIN: bool>(&mut self, mut port: u32, id: u32, mut at: Time, mut crossed: Option<(u32, u64)>) {
        let end = Time::ZERO + self.sc.duration;
        let queues = self.sc.trace.queues;
        loop {
            if port == self.half.cut_port {
                self.cross(id, at);
                return;
            }
            let p = &mut self.net.ports[port as usize];
            let tr = &mut self.traces;
            let mut traces = PortTraces { series: &mut tr.series, log: &mut tr.log, queues };
            let mut record = |p: &Port, t| traces.departed(port, p, t);
            p.expire(at, TRACED.then_some(&mut record));
            let pkt = self.packets_in_flight.get(id);
            let dst = pkt.dst;
            let pcap = if TRACED { tr.pcaps.get_mut(port as usize).and_then(Option::as_mut) } else { None };
            let (conns, udp) = (&self.conns.ends, &self.sc.udp);
            let offer = p.offer::<PLAIN>(at, id, pkt, |start| {
                if let Some(pc) = pcap {
                    traces::capture(pc, conns, udp, start, pkt);
                }
            });
            if TRACED {
                // By value: a reference would keep `offer` out of registers.
                let outcome = match offer {
                    Offer::Dropped => PacketEvent::Drop,
                    Offer::Lost => PacketEvent::Lost,
                    _ => PacketEvent::Enqueue,
                };
                let desc = traces.log.is_some().then(|| traces::describe(conns, &self.conns.slots, pkt));
                traces.offered(port, p, at, outcome, desc);
            }
            match offer {
                Offer::Dropped | Offer::Lost => {
                    let lost = matches!(offer, Offer::Lost);
                    match crossed {
                        None => self.discard(id, lost),
                        Some((q, txn)) => self.events.push(at, arrival_order(q, txn), Event::Discard { id, lost }),
                    }
                    return;
                }
                Offer::Sent { wire, duplicate } => {
                    let leaving = p.leaving();
                    if let Some(t) = duplicate {
                        self.send_copy(port, id, t, wire.txn());
                    }
                    if let Some(next) = self.net.cut_through(port, leaving, dst, wire.arrival(), end) {
                        crossed = Some((port, wire.txn()));
                        (port, at) = (next, wire.arrival());
                        continue;
                    }
                    if self.receive_ahead(leaving, id, dst, wire.arrival(), end) {
                        return;
                    }
                    if let Some((at, order)) = self.net.put_on_wire(port, leaving, wire) {
                        self.events.push_arrival(at, order);
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
        let copy = *self.packets_in_flight.get(id);
        if let Body::Tcp { ep, .. } = copy.body {
            if self.conns[ep.index()].counted {
                self.conns.in_flight[ep.conn() as usize] += 1;
            }
        }
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
        // No connection opened at run time crosses: such runs are not split
        // (`traffic::App::fast_paths`), so no count of packets in flight changes here.
        self.half.outbox.push(Crossing { at, pkt });
    }

    /// The arrival of the first packet on `port`'s wire, ranked by its transmission there.
    fn schedule_arrival(&mut self, port: u32, head: OnWire) {
        let (at, order) = head.event(port);
        self.events.push_arrival(at, order);
    }

    fn discard(&mut self, id: u32, lost: bool) {
        if lost {
            self.packets.lost += 1;
        } else {
            self.packets.dropped += 1;
        }
        let pkt = self.packets_in_flight.remove(id);
        self.count_drop(&pkt);
        if let Body::Tcp { ep, .. } = pkt.body {
            if self.conns[ep.index()].counted {
                self.conns.in_flight[ep.conn() as usize] -= 1;
                self.conns.reclaim_if_done(ep.conn(), &mut self.flows.state);
            }
        }
    }

    fn arrive(&mut self, port: u32, id: u32) {
        if self.traces.log.is_some() {
            self.traces.arrival(self.now, port, &self.conns.ends, &self.conns.slots, self.packets_in_flight.get(id));
        }
        let dst = self.packets_in_flight.get(id).dst;
        match self.net.next_hop(port, dst) {
            Some(out) => self.enqueue(out, id, self.now, None),
            None => {
                debug_assert_eq!(dst, self.net.ports[port as usize].to, "a route that `plan_cut_through` was not told of");
                self.deliver(id, self.now);
            }
        }
    }

    /// End `ep`'s wakeup at `at`.
    fn wake(&mut self, ep: EndId, at: Time) {
        let c = &mut self.conns[ep.index()];
        c.timer_at = Time::MAX;
        c.ep.handle_timeout(at);
        if !self.hosts.ensembles.is_empty() {
            self.share_window(ep, at);
        }
        self.service(ep, at);
    }

    fn deliver(&mut self, id: u32, now: Time) {
        self.packets.delivered += 1;
        // The segment is read where it lies (not moved out, ~100 bytes) and freed after.
        let pkt = self.packets_in_flight.get(id);
        match pkt.body {
            Body::Tcp { ep, ref seg } => {
                let c = &mut self.conns[ep.index()];
                let got = c.ep.handle_segment(now, seg);
                let counted = c.counted;
                self.packets_in_flight.free(id);
                if self.traces.deliveries {
                    self.delivered_traced(ep, got.map_or(0, |r| r.len()), now);
                }
                if counted {
                    self.delivered_counted(ep, got.is_some_and(|r| !r.is_empty()), now);
                }
                if !self.hosts.ensembles.is_empty() {
                    self.share_window(ep, now);
                }
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
                let f = &mut self.flows[self.conns[ep.index()].flow as usize];
                if seg.seq_len() > 0 {
                    f.data_drops += 1;
                } else {
                    f.ack_drops += 1;
                }
            }
            Body::Udp { source } => self.udp[*source as usize].dropped += 1,
        }
    }
}
