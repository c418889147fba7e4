//! What the traces record as the world runs, out of line so that a run without them pays
//! a test of one flag per hop and per delivery (`World::traces_ports`,
//! `traces_deliveries`).
//!
//! The per-packet trace (`[trace] packets`, the packets table) has each packet's enqueue or
//! drop, departure and arrival at every port, as ns-2's trace file has them.
//! A port knows each packet's departure the moment it admits it, but a `[[change]]` of
//! rate re-times what waits; so a departure is logged when the port retires the
//! transmission (`Port::expire`), from a copy of the packet's description kept in the
//! port's order. Runs with this trace take every hop as an event (no cut-through, no
//! segment taken ahead, no split), so that each row is logged at its own time.

use std::collections::VecDeque;

use rampup_tcp::{Event as TcpEvent, Time};

use super::conns::Slot;
use super::{Conn, World};
use crate::net::{Body, Packet, Port};
use crate::scenario::Udp;
use crate::trace::pcap::{Pcap, SenderTcp};
use crate::trace::{PacketDesc, PacketEvent, PacketKind, PacketRow, RttRow, Series};
use crate::traffic::EndId;

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

impl World<'_> {
    /// Packet `id` arrived over `port` (called with the packet trace on).
    #[cold]
    #[inline(never)]
    pub(super) fn log_arrival(&mut self, port: u32, id: u32) {
        let p = describe(&self.conns, &self.slots, self.packets_in_flight.get(id));
        self.series.record_packet(PacketRow { t: self.now, port, event: PacketEvent::Arrive, p });
    }

    /// End `ep`'s application got `bytes` (maybe 0) at `now`: the flow's throughput
    /// interval and a rate-limited flow's phase count them, and the RTT samples the segment
    /// gave are heard (`hear_samples`).
    #[inline(never)]
    pub(super) fn delivered_traced(&mut self, ep: EndId, bytes: u64, now: Time) {
        let flow = self.conns[ep.index()].flow;
        let data = if bytes > 0 { self.rate_delivered(flow, bytes, now) } else { 0 };
        if let Some(interval) = self.sc.trace.throughput {
            if bytes > 0 {
                self.flows[flow as usize].bin.add(flow, bytes, data, now, interval, &mut self.series);
            }
        }
        if self.sc.trace.rtt || !self.groups.is_empty() {
            self.hear_samples(ep, now);
        }
    }

    /// The RTT samples end `ep`'s last input gave: rows of the rtt trace, and news for its
    /// vrate group (`crate::vrate::Group::on_sample`). Its other events are of no use here.
    fn hear_samples(&mut self, ep: EndId, now: Time) {
        let c = &mut self.conns[ep.index()];
        let connection = self.slots[ep.index() / 2].id;
        let done = c.ep.all_acked();
        while let Some(e) = c.ep.poll_event() {
            let TcpEvent::RttSample { rtt, cwnd } = e else { continue };
            if self.sc.trace.rtt {
                self.series.record_rtt(RttRow { t: now, flow: c.flow, connection, end: ep.side() as u8, rtt, cwnd });
            }
            if let Some((g, m)) = c.vrate {
                self.groups[g as usize].group.on_sample(now, m as usize, rtt, cwnd, done);
            }
        }
        if let Some((g, _)) = self.conns[ep.index()].vrate {
            self.schedule_release(g, now);
        }
    }
}
