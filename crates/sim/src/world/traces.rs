//! What the traces record as the world runs, out of line so that a run without them pays
//! a test of one flag per hop and per delivery (`Traces::ports`, `Traces::deliveries`).
//!
//! The per-packet trace (`[trace] packets`, the packets table) has each packet's enqueue or
//! drop, departure and arrival at every port, as ns-2's trace file has them.
//! A port knows each packet's departure the moment it admits it, but a `[[change]]` of
//! rate re-times what waits; so a departure is logged when the port retires the
//! transmission (`Port::expire`), from a copy of the packet's description kept in the
//! port's order. Runs with this trace take every hop as an event (no cut-through, no
//! segment taken ahead, no split), so that each row is logged at its own time.

use std::collections::VecDeque;

use rampup_tcp::Time;

use super::conns::{Conn, Slot};
use crate::net::{Body, Net, Packet, Port};
use crate::scenario::{Scenario, Udp};
use crate::trace::pcap::{Pcap, SenderTcp};
use crate::trace::{PacketDesc, PacketEvent, PacketKind, PacketRow, Series};
use crate::traffic::App;

/// The traces and captures of a run, and which of the world's hooks they need.
pub(super) struct Traces {
    pub(super) series: Series,
    /// The per-packet trace's state (`[trace] packets`).
    pub(super) log: Option<PacketLog>,
    /// Each port's capture, if its link is captured; empty when none is.
    pub(super) pcaps: Vec<Option<Pcap>>,
    /// The queue trace (`[trace] queues`).
    pub(super) queues: bool,
    /// Whether a trace watches the ports (queues, packets, captures) or what ends receive
    /// (throughput, rtt; and a vrate group or a rate-limited flow, which hear the same):
    /// then the hooks here run.
    pub(super) ports: bool,
    pub(super) deliveries: bool,
}

impl Traces {
    pub(super) fn new(sc: &Scenario, net: &Net) -> Traces {
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
        Traces {
            series: Series::default(),
            log: sc.trace.packets.then(|| PacketLog::new(sc.net.links.len() * 2)),
            pcaps,
            queues: sc.trace.queues,
            ports: sc.trace.queues || sc.trace.packets || !sc.trace.pcap.is_empty(),
            // vrate groups hear their members' RTT samples where the rtt trace does.
            deliveries: sc.trace.throughput.is_some() || sc.trace.rtt || !sc.groups.is_empty() || sc.flows.iter().any(|f| matches!(f.app, App::RateLimited(_))),
        }
    }

    /// Keep traces in memory only up to `rows` rows and captures up to `pcap_bytes`.
    pub(super) fn spill_after(&mut self, rows: usize, pcap_bytes: usize) {
        self.series = Series::new(rows);
        for p in self.pcaps.iter_mut().flatten() {
            p.out.set_limit(pcap_bytes);
        }
    }

    /// The traces that watch the ports, lent to a port's `expire`.
    pub(super) fn at_ports(&mut self) -> PortTraces<'_> {
        PortTraces { series: &mut self.series, log: &mut self.log, queues: self.queues }
    }

    /// Packet `pkt`, sent by an end among `conns` (in `slots`), arrived over `port` at `t`
    /// (with the packet trace on).
    #[cold]
    #[inline(never)]
    pub(super) fn arrival(&mut self, t: Time, port: u32, conns: &[Conn], slots: &[Slot], pkt: &Packet) {
        let p = describe(conns, slots, pkt);
        self.series.record_packet(PacketRow { t, port, event: PacketEvent::Arrive, p });
    }
}

/// The descriptions of the packets each port has admitted and not yet sent.
pub(super) struct PacketLog {
    backlog: Vec<VecDeque<PacketDesc>>,
}

impl PacketLog {
    pub(super) fn new(ports: usize) -> PacketLog {
        PacketLog { backlog: vec![VecDeque::new(); ports] }
    }

    /// Port `port`'s oldest transmission ended at `t` (`Port::expire`'s callback).
    pub(super) fn depart(&mut self, series: &mut Series, port: u32, t: Time) {
        let p = self.backlog[port as usize].pop_front().expect("a departure follows an admission");
        series.record_packet(PacketRow { t, port, event: PacketEvent::Depart, p });
    }

    /// Packet `p`, which a discipline at `port` gave out, begins its transmission;
    /// `lost_at` is its arrival time when the link loses it. A discipline reorders and drops
    /// what it holds, so its packets enter the backlog here, not at admission: departures
    /// keep the wire's order.
    pub(super) fn transmitting(&mut self, series: &mut Series, port: u32, p: PacketDesc, lost_at: Option<Time>) {
        self.backlog[port as usize].push_back(p);
        if let Some(t) = lost_at {
            series.record_packet(PacketRow { t, port, event: PacketEvent::Lost, p });
        }
    }

    /// Packet `p` was offered to port `port` (`at_port`) at `at`: `outcome` says whether
    /// it was dropped (`Drop`), admitted and lost on the link (`Lost`), or admitted.
    pub(super) fn offered(&mut self, series: &mut Series, port: u32, at_port: &Port, at: Time, p: PacketDesc, outcome: PacketEvent) {
        if outcome == PacketEvent::Drop {
            series.record_packet(PacketRow { t: at, port, event: PacketEvent::Drop, p });
            return;
        }
        series.record_packet(PacketRow { t: at, port, event: PacketEvent::Enqueue, p });
        self.backlog[port as usize].push_back(p);
        if outcome == PacketEvent::Lost {
            // Lost when it would have arrived: its transmission, the port's last, ends at
            // `busy_until()`.
            let t = at_port.busy_until() + at_port.delay;
            series.record_packet(PacketRow { t, port, event: PacketEvent::Lost, p });
        }
    }
}

/// Capture `pkt`, whose transmission starts at `start`, in `pc`. A packet does not carry
/// its source (it is needed only here): it is the host of the connection end that sent it,
/// or the UDP source's.
pub(super) fn capture(pc: &mut Pcap, conns: &[Conn], udp: &[Udp], start: Time, pkt: &Packet) {
    let (src, tcp) = match pkt.body {
        Body::Tcp { ep, .. } => {
            let sender = &conns[ep.peer().index()];
            let cfg = sender.ep.config();
            (sender.node, Some(SenderTcp { mss: cfg.mss_bytes, rcv_window: cfg.rcv_window_bytes }))
        }
        Body::Udp { source } => (udp[source as usize].from as u32, None),
    };
    pc.record(start, src, pkt, tcp);
}

/// What the packets table says of `pkt`, sent by an end among `conns` (in `slots`).
pub(super) fn describe(conns: &[Conn], slots: &[Slot], pkt: &Packet) -> PacketDesc {
    match &pkt.body {
        Body::Tcp { ep, seg } => {
            let f = &seg.flags;
            let kind = match () {
                _ if f.rst => PacketKind::Rst,
                _ if f.syn && f.ack => PacketKind::SynAck,
                _ if f.syn => PacketKind::Syn,
                _ if f.fin => PacketKind::Fin,
                _ if seg.len > 0 => PacketKind::Data,
                _ => PacketKind::Ack,
            };
            let connection = slots[ep.index() / 2].id as i64;
            PacketDesc { kind, flow: conns[ep.index()].flow, connection, seq: seg.seq, ack: seg.ack, payload: seg.len, wire: pkt.wire_bytes }
        }
        Body::Udp { source } => PacketDesc { kind: PacketKind::Udp, flow: *source, connection: -1, seq: 0, ack: 0, payload: 0, wire: pkt.wire_bytes },
    }
}

/// The traces that watch the ports (queues, packets), as `World::enqueue` lends them.
pub(super) struct PortTraces<'a> {
    pub(super) series: &'a mut Series,
    pub(super) log: &'a mut Option<PacketLog>,
    pub(super) queues: bool,
}

impl PortTraces<'_> {
    /// `port`'s oldest transmission ended at `t` (`Port::expire`'s callback).
    #[inline(never)]
    pub(super) fn departed(&mut self, port: u32, p: &Port, t: Time) {
        if self.queues {
            self.series.record_queue(t, port, p);
        }
        if let Some(log) = self.log {
            log.depart(self.series, port, t);
        }
    }

    /// A packet was offered to `port` (`p`) at `at`, with `outcome` (`PacketLog::offered`);
    /// `desc` is the packet, when the packet trace is on.
    #[inline(never)]
    pub(super) fn offered(&mut self, port: u32, p: &Port, at: Time, outcome: PacketEvent, desc: Option<PacketDesc>) {
        if self.queues {
            self.series.record_queue(at, port, p);
        }
        if let (Some(log), Some(d)) = (&mut self.log, desc) {
            log.offered(self.series, port, p, at, d, outcome);
        }
    }
}
