//! Segments taken ahead of time: a receiver alone on a one-link host takes a segment the
//! moment its arrival is known (docs/architecture.md, "fast paths").

use rampup_tcp::Time;

use super::World;
use crate::net::{Body, Leaving};
use crate::traffic::Side;

impl World<'_> {
    /// The connection ends that may take a segment ahead of time (`receive_ahead`): an end
    /// alone on a host with one link, which no other traffic uses, of a flow whose
    /// application allows it (`traffic::App::fast_paths`). Its state then changes only
    /// through the segments that come in over that link, in FIFO order, and its own timers;
    /// what it sends goes out on a port no one else feeds. A link that duplicates or
    /// reorders towards it could hold a segment back, and one that changes (`[[change]]`)
    /// re-times or alters what it carries, so either rules this out.
    pub(super) fn plan_receive_ahead(&mut self) {
        let mut ends_at = vec![0u32; self.sc.net.nodes.len()];
        for f in &self.sc.flows {
            // A flow of many connections counts twice: its ends come and go.
            let n = if f.app.one_connection() { 1 } else { 2 };
            ends_at[f.from] += n;
            ends_at[f.to] += n;
        }
        for u in &self.sc.udp {
            ends_at[u.from] += 1;
        }
        let mut links_at = vec![0u32; self.sc.net.nodes.len()];
        for l in &self.sc.net.links {
            links_at[l.a] += 1;
            links_at[l.b] += 1;
        }
        for (i, c) in self.conns.ends.iter_mut().enumerate() {
            let node = c.node as usize;
            let allowed = self.sc.flows[c.flow as usize].app.fast_paths();
            let allowed = if i % 2 == Side::Active as usize { allowed.active_ahead } else { allowed.passive_ahead };
            if !allowed || ends_at[node] != 1 || links_at[node] != 1 {
                continue;
            }
            let inbound = &self.net.ports[self.net.reverse(c.port) as usize];
            let fixed = !self.sc.changes.iter().any(|ch| ch.link == inbound.link);
            c.receives_ahead = fixed && inbound.duplicate == 0.0 && inbound.reorder == 0.0;
        }
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
    #[inline(always)]
    pub(super) fn receive_ahead(&mut self, port: Leaving, id: u32, dst: u32, at: Time, end: Time) -> bool {
        // The port's own tests first: most ports a packet leaves do not end at its host
        // (`dst`), and they need no look at the packet or at its receiver, whose state with
        // many flows is seldom in a near cache.
        if port.to != dst || !port.wire_empty || at > end {
            return false;
        }
        let Body::Tcp { ep, .. } = self.packets_in_flight.get(id).body else { return false };
        let c = &self.conns[ep.index()];
        debug_assert_eq!(c.node, dst, "a segment is addressed to its receiver's host");
        let sender_nested = ep.side() == Side::Active && self.ends_in_service > 0;
        if !c.receives_ahead || c.in_service || sender_nested {
            return false;
        }
        // Its wakeups due before `at` come first, as their events would in one world; one
        // at `at` itself comes after an arrival there in one world too. Each leaves a stale
        // event behind.
        let mut timer_at = c.timer_at;
        while timer_at < at {
            self.wake(ep, timer_at);
            timer_at = self.conns[ep.index()].timer_at;
        }
        self.deliver(id, at);
        true
    }
}
