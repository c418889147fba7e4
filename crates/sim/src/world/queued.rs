//! The hops through ports that run a queue discipline (`crate::queue`).
//!
//! A drop-tail port knows each packet's departure when it admits it; a discipline decides
//! which packet leaves (FQ-CoDel's round robin) and drops at dequeue (CoDel) only when the
//! link is free, so such a port sends a packet at a `Dequeue` event, when the one before it
//! has been serialised. A world with a discipline is run hop by hop (`World::hop_by_hop`):
//! every port is then offered its packets in time order, as a discipline needs. A world
//! without one never comes here: `World::enqueue` tests one flag first.

use rampup_tcp::Time;

use super::traces;
use super::{Event, World};
use crate::engine::{Class, Order};
use crate::net::{Body, Offer, Port};
use crate::trace::{PacketEvent, PacketRow};

impl World<'_> {
    /// `enqueue` in a world where some port runs a discipline: packet `id` reaches `port`
    /// at `at`.
    pub(super) fn enqueue_disciplined(&mut self, port: u32, id: u32, at: Time) {
        let traced = self.traces.ports;
        if !self.net.ports[port as usize].has_discipline() {
            if traced {
                self.enqueue_as::<true, false>(port, id, at, None);
            } else {
                self.enqueue_as::<false, false>(port, id, at, None);
            }
            return;
        }
        self.expire_traced(port, at);
        let pkt = self.packets_in_flight.get(id);
        let (ect, flow) = match pkt.body {
            Body::Tcp { ep, ref seg } => (seg.ecn.ect(), ep.index() as u64),
            // Apart from every connection's: UDP sources count from 2^32.
            Body::Udp { source } => (false, (1 << 32) | source as u64),
        };
        let p = &mut self.net.ports[port as usize];
        p.hold(at, id, pkt, ect, flow);
        if traced {
            self.traces.at_ports().offered(port, p, at, PacketEvent::Enqueue, None);
        }
        self.discard_dropped(port, at, Some(id));
        self.serve(port, at);
    }

    /// Retire what `port` has sent by `at`, with the queue trace watching.
    fn expire_traced(&mut self, port: u32, at: Time) {
        let p = &mut self.net.ports[port as usize];
        let watched = self.traces.ports;
        let mut traces = self.traces.at_ports();
        let mut record = |p: &Port, t| traces.departed(port, p, t);
        p.expire(at, watched.then_some(&mut record));
    }

    /// Discard what `port`'s discipline dropped by `at`; with the packet trace on, log it,
    /// and `arrival` (the packet just offered, if any) as enqueued unless it was dropped.
    /// Returns how many it dropped.
    fn discard_dropped(&mut self, port: u32, at: Time, arrival: Option<u32>) -> usize {
        let dropped = self.net.ports[port as usize].take_dropped();
        if self.traces.log.is_some() {
            let series = &mut self.traces.series;
            let mut record = |id, event| {
                let p = traces::describe(&self.conns.ends, &self.conns.slots, self.packets_in_flight.get(id));
                series.record_packet(PacketRow { t: at, port, event, p });
            };
            if let Some(id) = arrival.filter(|id| !dropped.contains(id)) {
                record(id, PacketEvent::Enqueue);
            }
            for &id in &dropped {
                record(id, PacketEvent::Drop);
            }
        }
        let n = dropped.len();
        for id in dropped {
            self.discard(id, false);
        }
        n
    }

    /// If `port`'s link is free at `now`, send the packet its discipline gives, and wake the
    /// port when that packet has been serialised (`Event::Dequeue`).
    pub(super) fn serve(&mut self, port: u32, now: Time) {
        self.expire_traced(port, now);
        let next = self.net.ports[port as usize].next_out(now);
        // A drop at dequeue (CoDel's) is a change of the queue, recorded once the packet
        // given out is on the wire.
        let record_queue = self.discard_dropped(port, now, None) > 0 && self.traces.queues;
        let Some(q) = next else {
            if record_queue {
                self.traces.series.record_queue(now, port, &self.net.ports[port as usize]);
            }
            return;
        };
        if q.ce {
            // Only an ECT packet is marked (`Verdicts::signal`), and only TCP's are ECT.
            if let Body::Tcp { ep, seg } = &mut self.packets_in_flight.get_mut(q.id).body {
                seg.ecn.set_ce();
                let flow = self.conns[ep.index()].flow;
                self.flows[flow as usize].marks += 1;
            }
        }
        let pkt = self.packets_in_flight.get(q.id);
        let p = &mut self.net.ports[port as usize];
        let pcap = self.traces.pcaps.get_mut(port as usize).and_then(Option::as_mut);
        let (conns, udp) = (&self.conns.ends, &self.sc.udp);
        let offer = p.transmit::<false>(now, q.id, pkt, |start| {
            if let Some(pc) = pcap {
                traces::capture(pc, conns, udp, start, pkt);
            }
        });
        if record_queue {
            self.traces.series.record_queue(now, port, p);
        }
        if let Some(log) = &mut self.traces.log {
            // Lost when it would have arrived, as at a drop-tail port.
            let lost_at = matches!(offer, Offer::Lost).then(|| p.busy_until() + p.delay);
            log.transmitting(&mut self.traces.series, port, traces::describe(conns, &self.conns.slots, pkt), lost_at);
        }
        // Ranked before the arrivals at the same instant, by the transmission that ends
        // (`Class::Change`'s own events rank 0).
        let txn = p.next_txn() - 1;
        self.events.push(p.busy_until(), Order::new(Class::Change, port, 1 + txn), Event::Dequeue(port));
        let leaving = p.leaving();
        match offer {
            Offer::Dropped => unreachable!("a discipline's packet is not offered to the limit again"),
            Offer::Lost => self.discard(q.id, true),
            Offer::Sent { wire, duplicate } => {
                if let Some(t) = duplicate {
                    self.send_copy(port, q.id, t, wire.txn());
                }
                if let Some((at, order)) = self.net.put_on_wire(port, leaving, wire) {
                    self.events.push_arrival(at, order);
                }
            }
            Offer::Reordered { at, txn, duplicate } => {
                if let Some(t) = duplicate {
                    self.send_copy(port, q.id, t, txn);
                }
                self.arrive_late(port, q.id, at, 2 * txn);
            }
        }
    }
}
