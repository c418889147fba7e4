//! The simulated world: the network, the TCP endpoints and the applications, driven by one
//! event queue. Endpoints are sans-IO: the world hands them segments and timer expiries and
//! polls them for what to send.

use std::num::Wrapping;
use std::ops::ControlFlow;

use rampup_tcp::{Endpoint, Snapshot, State, Time};

use crate::engine::{Class, EventQueue, First, Order};
use crate::memory;
use crate::net::{arrival_order, Body, Net, Offer, OnWire, Packet, Packets, Port};
use crate::output::RunOutput;
use crate::partition::Split;
use crate::rng::Stream;
use crate::scenario::Scenario;
use crate::trace::pcap::Pcap;
use crate::trace::{Interval, PacketEvent, Series, StateRow, TraceSink};
use crate::traffic::{Action, App, EndId, PackMime};
use crate::Progress;
use crate::{RunError, ScenarioError};

mod ahead;
mod conns;
mod ensemble;
mod finish;
mod footprint;
mod queued;
mod rate;
mod split;
mod traced;
mod vrate;

use conns::Slot;
use ensemble::HostEnsemble;
use finish::{ConnRow, EndTotals};
use traced::{PacketLog, PortTraces};
use vrate::HostGroup;

pub use conns::MAX_OPEN;
pub use footprint::{footprint, Footprint};
pub use split::run_split;
use split::{Crossing, Half};

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

/// One end of a TCP connection placed on a node.
///
/// Laid out by hand (`repr(C)`, on a cache line boundary): what the world reads at every
/// segment in and out of this end fills the 48 bytes after the endpoint, in the endpoint's
/// last cache line. As rustc 1.95 lays `Endpoint` out (its own order, not `repr(C)`), that
/// line also holds the endpoint's state and flags (offsets printed once, not tested: a
/// compiler may move them). With many flows an end is seldom in a near cache, and each
/// line read is a miss. A test checks that the world's fields share the endpoint's last line.
#[repr(C, align(64))]
struct Conn {
    ep: Endpoint,
    /// The earliest Timer event in the queue for this end (later ones are stale), `Time::MAX`
    /// when none is: a plain `Time` keeps the fields below within the endpoint's last line.
    timer_at: Time,
    /// The acknowledged payload at which its flow's next transfer completes, `u64::MAX`
    /// when none is pending (`records` ends): an ACK that completes none reads no flow state
    /// (at N = 1,000 on one thread, 0.7 M of 31.3 M second-level misses, cachegrind).
    next_done_at: u64,
    peer_node: u32,
    /// The port it sends on: its host's route to the peer's, fixed at set-up.
    port: u32,
    /// Its vrate group and its place there (`world::vrate`): what it sends goes through it.
    vrate: Option<(u32, u32)>,
    /// Whether this end may take a segment ahead of time (see `World::receive_ahead`).
    receives_ahead: bool,
    /// Set while the world sends what this end wants to send: a segment that reaches it
    /// meanwhile, later in simulated time, must wait for its event.
    in_service: bool,
    /// The connection was opened at run time (`traffic::App::one_connection` is false): its
    /// application hears what the end receives and its peer's FIN, and its slot is reused
    /// once it is gone, so its packets in flight are counted (`World::in_flight`). Not for
    /// a flow's one connection, which keeps its slot and whose application acts only when
    /// the flow starts and on its schedule: its packets then cost no count and its inputs
    /// no look at its state.
    counted: bool,
    /// This end is the active end of a flow's one connection: its state is traced and its
    /// acknowledgements complete the flow's transfers (`record_sender`).
    records: bool,
    // Read on drops, by traces and by connections opened at run time, and at set-up.
    flow: u32,
    node: u32,
    /// Its ensemble and its place there (`world::ensemble`): its window is a share.
    ensemble: Option<(u32, u32)>,
    /// The state this end was last seen in (`observe`; counted ends only).
    seen: State,
    last: Option<Snapshot>,
}

/// One transfer: the whole of a sized bulk flow, or one write of a write schedule.
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

#[derive(Default)]
struct FlowState {
    start: Option<Time>,
    /// The slot of a flow's one connection (`traffic::App::one_connection`).
    conn: Option<u32>,
    /// Connections opened so far, and open now.
    opened: u64,
    open: u64,
    /// When the last of all the flow's connections closed.
    all_closed: Option<Time>,
    /// The stream of gaps between its connections' openings (`traffic::Arrivals`).
    arrivals: Option<Stream>,
    /// A web flow's generator (`traffic::packmime`), made at its first opening.
    web: Option<Box<PackMime>>,
    /// Transfers of this flow, in order; `next` is the first not yet complete.
    transfers: Vec<usize>,
    next: usize,
    data_drops: u64,
    ack_drops: u64,
    /// Its packets a queue discipline sent with CE (`queued`).
    marks: u64,
    /// The throughput trace's open interval (`[trace] throughput`).
    bin: Interval,
    /// A rate-limited flow's phases, writes and receipts (`rate`).
    rate: Option<Box<rate::RateState>>,
    /// The counts of the flow's connections whose slots were reused.
    totals: EndTotals,
}

/// Packet accounting: created + duplicated = delivered + dropped + lost + in flight.
#[derive(Default)]
struct PacketCounts {
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

pub struct World<'s> {
    sc: &'s Scenario,
    seed: u64,
    now: Time,
    events: EventQueue<Event>,
    net: Net,
    /// Connection ends, two per slot (`traffic::EndId`).
    conns: Vec<Conn>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    /// Packets of each slot's connection in flight: a slot is reused only when none are.
    /// Wrapping: a packet its first port drops is discarded while its end is still sending,
    /// before `serve_counted` adds what was sent, so a count passes below zero for that
    /// moment (and no slot is reclaimed meanwhile: `reclaim_if_done` wants zero).
    in_flight: Vec<Wrapping<u32>>,
    next_conn_id: u64,
    /// Rows of the connections whose slots were reused.
    conn_rows: Vec<ConnRow>,
    /// More connections were to be open at once than `max_open` (`conns::MAX_OPEN`).
    too_many_open: bool,
    max_open: usize,
    /// The run stops once the engine's heap (`memory::allocated_bytes`) is above this; the
    /// heap and the time when a connection was refused for it (`new_conn`), if one was.
    memory_budget: Option<u64>,
    over_memory: Option<(u64, Time)>,
    /// A buffer for what an application does (`hear`).
    actions: Vec<Action>,
    flows: Vec<FlowState>,
    transfers: Vec<Transfer>,
    udp: Vec<UdpState>,
    /// Each port's capture, if its link is captured; empty when none is.
    pcaps: Vec<Option<Pcap>>,
    series: Series,
    /// The per-packet trace's state (`[trace] packets`).
    packet_log: Option<PacketLog>,
    /// Whether a trace watches the ports (queues, packets, captures) or what ends receive
    /// (throughput, rtt): then the hooks in `traced` run.
    traces_ports: bool,
    traces_deliveries: bool,
    /// No port has random behaviour or a token bucket, nor will (`Port::is_plain`).
    plain_ports: bool,
    /// Some port runs a queue discipline (`queued`).
    disciplined: bool,
    packets: PacketCounts,
    packets_in_flight: Packets,
    /// Connection ends now sending (`service`), nested when a segment is taken ahead.
    ends_in_service: u32,
    half: Option<Half>,
    /// The cut link's port out of this half, in a split run (`u32::MAX` otherwise): the
    /// other half simulates it (`Crossing`).
    cut_port: u32,
    /// Packets this half of a split run took across the cut: each is handled as an arrival
    /// event would be, outside the event queue, so the run's `events` count them too.
    crossings_taken: u64,
    /// Taken over from the other half at the end of a split run: its events handled (its
    /// crossings taken included) and its packets in flight outside the ports' wires.
    other_events: u64,
    other_in_flight: u64,
    /// Why this half of a split run stopped early, if it did.
    stop: Option<RunError>,
    /// The vrate groups on the hosts, and a buffer for what one releases.
    groups: Vec<HostGroup>,
    released: Vec<u32>,
    /// The ensembles on the hosts (RFC 9040 ensemble sharing).
    ensembles: Vec<HostEnsemble>,
}

impl<'s> World<'s> {
    pub fn new(sc: &'s Scenario, seed: u64) -> Self {
        Self::new_half(sc, seed, None)
    }

    /// A world for half `h` of `split`, or for the whole network.
    fn new_half(sc: &'s Scenario, seed: u64, split: Option<(&Split, u8)>) -> Self {
        let net = Net::new(&sc.net, seed);
        // Empty without captures: a hop then reads no entry of its own (`enqueue_as`).
        let ports = if sc.trace.pcap.is_empty() { 0 } else { net.ports.len() };
        let mut pcaps: Vec<Option<Pcap>> = (0..ports).map(|_| None).collect();
        for &l in &sc.trace.pcap {
            for (i, p) in net.ports.iter().enumerate() {
                if p.link == l {
                    pcaps[i] = Some(Pcap::new(sc.header_bytes.min(sc.ack_bytes), Time::ZERO + sc.duration));
                }
            }
        }
        // A `[[change]]` of loss gives its ports a random stream (`Net::set_link_path`).
        let plain_ports = net.ports.iter().all(Port::is_plain) && sc.changes.iter().all(|c| c.loss.is_none());
        let mut w = World {
            sc,
            seed,
            now: Time::ZERO,
            events: EventQueue::default(),
            net,
            conns: Vec::new(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            in_flight: Vec::new(),
            next_conn_id: 0,
            conn_rows: Vec::new(),
            too_many_open: false,
            max_open: conns::MAX_OPEN,
            memory_budget: None,
            over_memory: None,
            actions: Vec::new(),
            flows: Vec::new(),
            transfers: Vec::new(),
            udp: Vec::new(),
            pcaps,
            series: Series::default(),
            packet_log: sc.trace.packets.then(|| PacketLog::new(sc.net.links.len() * 2)),
            traces_ports: sc.trace.queues || sc.trace.packets || !sc.trace.pcap.is_empty(),
            // vrate groups hear their members' RTT samples where the rtt trace does.
            traces_deliveries: sc.trace.throughput.is_some()
                || sc.trace.rtt
                || !sc.groups.is_empty()
                || sc.flows.iter().any(|f| matches!(f.app, App::RateLimited(_))),
            plain_ports,
            disciplined: sc.net.links.iter().any(|l| l.discipline.iter().any(Option::is_some)),
            packets: PacketCounts::default(),
            packets_in_flight: Packets::default(),
            ends_in_service: 0,
            half: None,
            cut_port: u32::MAX,
            crossings_taken: 0,
            other_events: 0,
            other_in_flight: 0,
            stop: None,
            groups: Vec::new(),
            released: Vec::new(),
            ensembles: Vec::new(),
        };
        let owns: Vec<bool> = match split {
            Some((split, h)) => split.half.iter().map(|&x| x == h).collect(),
            None => vec![true; sc.net.nodes.len()],
        };
        for (i, f) in sc.flows.iter().enumerate() {
            w.flows.push(FlowState::default());
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
            w.udp.push(UdpState { sent: 0, received: 0, received_bytes: 0, dropped: 0 });
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
        w.build_groups();
        w.build_ensembles();
        if sc.trace.packets || w.disciplined {
            // Every hop an event, every row logged at its time (`traced`); a discipline
            // takes its packets in time order (`queued`).
            w = w.hop_by_hop();
        }
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

    /// Allow at most `n` connections open at once (`conns::MAX_OPEN` otherwise), to test
    /// the error when more would be.
    pub fn open_at_most(mut self, n: usize) -> Self {
        self.max_open = n;
        self
    }

    /// Stop the run with an error once the engine's heap passes `bytes`. Looked at where the
    /// trace budget is (`report`, every 2^16 events), so the hot path pays nothing, and as
    /// each connection opens (`new_conn`), as connections are what grows fastest; the heap
    /// is the whole process's, as counted by `memory::Counting` (none without it).
    pub fn memory_budget(mut self, bytes: Option<u64>) -> Self {
        self.memory_budget = bytes;
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
        let at = t.as_nanos() as f64 / 1e9;
        let (held, seen) = self.over_memory.unwrap_or_else(|| (memory::allocated_bytes(), t));
        if let Some(budget) = self.memory_budget.filter(|&b| held > b) {
            let (held, budget, seen) = (memory::human_bytes(held), memory::human_bytes(budget), seen.as_nanos() as f64 / 1e9);
            let msg = format!("memory budget: the engine held {held} by {seen:.3}s of simulated time, more than the budget of {budget}; give a larger budget, or a smaller scenario (`rampup check` estimates its memory)");
            return Some(RunError::Scenario(ScenarioError(msg)));
        }
        if self.too_many_open {
            let msg = format!(
                "flow: more than {} connections were open at once by {at:.3}s of simulated time (they arrive faster than they finish); open fewer, or give a longer mean_gap",
                self.max_open
            );
            return Some(RunError::Scenario(ScenarioError(msg)));
        }
        let max = self.sc.trace.max_rows?;
        let table = self.series.over(max)?;
        let msg =
            format!("trace.max_rows: the {table} trace passed {max} rows by {at:.3}s of simulated time; raise trace.max_rows or turn the {table} trace off (trace.{table})");
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
        match (self.traces_ports, self.plain_ports) {
            (false, true) => self.enqueue_as::<false, true>(port, id, at, crossed),
            _ if self.disciplined => self.enqueue_disciplined(port, id, at),
            (false, false) => self.enqueue_as::<false, false>(port, id, at, crossed),
            (true, _) => self.enqueue_as::<true, false>(port, id, at, crossed),
        }
    }

    /// `enqueue`, made three times: without the traces that watch ports (`TRACED` false) the
    /// hop has none of their code, and the compiler inlines it as it did before they were;
    /// with only plain ports (`PLAIN`, `Port::offer`), none for random outcomes either.
    fn enqueue_as<const TRACED: bool, const PLAIN: bool>(&mut self, mut port: u32, id: u32, mut at: Time, mut crossed: Option<(u32, u64)>) {
        let end = Time::ZERO + self.sc.duration;
        let queues = self.sc.trace.queues;
        loop {
            if port == self.cut_port {
                self.cross(id, at);
                return;
            }
            let p = &mut self.net.ports[port as usize];
            let mut traces = PortTraces { series: &mut self.series, log: &mut self.packet_log, queues };
            let mut record = |p: &Port, t| traces.departed(port, p, t);
            p.expire(at, TRACED.then_some(&mut record));
            let pkt = self.packets_in_flight.get(id);
            let dst = pkt.dst;
            let pcap = if TRACED { self.pcaps.get_mut(port as usize).and_then(Option::as_mut) } else { None };
            let (conns, udp) = (&self.conns, &self.sc.udp);
            let offer = p.offer::<PLAIN>(at, id, pkt, |start| {
                if let Some(pc) = pcap {
                    traced::capture(pc, conns, udp, start, pkt);
                }
            });
            if TRACED {
                // By value: a reference would keep `offer` out of registers.
                let outcome = match offer {
                    Offer::Dropped => PacketEvent::Drop,
                    Offer::Lost => PacketEvent::Lost,
                    _ => PacketEvent::Enqueue,
                };
                let desc = traces.log.is_some().then(|| traced::describe(conns, &self.slots, pkt));
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
                self.in_flight[ep.conn() as usize] += 1;
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
        self.half.as_mut().expect("a split run").outbox.push(Crossing { at, pkt });
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
                self.in_flight[ep.conn() as usize] -= 1;
                self.reclaim_if_done(ep.conn());
            }
        }
    }

    fn arrive(&mut self, port: u32, id: u32) {
        if self.packet_log.is_some() {
            self.log_arrival(port, id);
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
        if !self.ensembles.is_empty() {
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
                if self.traces_deliveries {
                    self.delivered_traced(ep, got.map_or(0, |r| r.len()), now);
                }
                if counted {
                    self.delivered_counted(ep, got.is_some_and(|r| !r.is_empty()), now);
                }
                if !self.ensembles.is_empty() {
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
