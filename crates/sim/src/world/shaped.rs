//! The host shapers as the world runs them (`world::host`): what a grouped end sends goes
//! through its vrate group, whose releases are events; after each input to an ensemble's
//! member, the other members send what their new shares allow.

use rampup_tcp::Time;

use super::host::member_state;
use super::{Event, World};
use crate::engine::{Class, Order};
use crate::traffic::EndId;

impl World<'_> {
    /// End `ep`, member `m` of group `g`, sends packet `id` with `payload` bytes through
    /// `port` at `now`: it goes on if the group lets it, else the group holds it.
    pub(super) fn shape(&mut self, (g, m): (u32, u32), port: u32, id: u32, payload: u32, now: Time) {
        if self.hosts.groups[g as usize].group.offer(now, m as usize, id, payload) {
            self.enqueue(port, id, now, None);
        } else {
            self.schedule_release(g, now);
        }
    }

    /// Ask for group `g`'s next release as an event, if it needs one (`HostGroup::next_release`).
    pub(super) fn schedule_release(&mut self, g: u32, now: Time) {
        if let Some(t) = self.hosts.groups[g as usize].next_release(now) {
            self.events.push(t, Order::new(Class::Timer, g, 2), Event::Release(g));
        }
    }

    /// Group `g`'s release event (stale when an earlier one took its place): what it lets
    /// go is offered to its host's ports now.
    pub(super) fn release(&mut self, g: u32) {
        let now = self.now;
        let Some(out) = self.hosts.release(g, now) else { return };
        let node = self.hosts.groups[g as usize].node;
        for &id in &out {
            let port = self.net.route(node, self.packets_in_flight.get(id).dst);
            self.enqueue(port, id, now, None);
        }
        self.hosts.give_back(out);
        self.schedule_release(g, now);
    }

    /// End `ep` had an input at `now`: if it is in an ensemble, the window it moved to is
    /// shared out, and the other members send what their new shares allow (`ep` sends in
    /// its own `service` next).
    pub(super) fn share_window(&mut self, ep: EndId, now: Time) {
        let Some((e, m)) = self.conns[ep.index()].ensemble else { return };
        let st = member_state(&self.conns[ep.index()].ep);
        let he = &mut self.hosts.ensembles[e as usize];
        let Some(share) = he.ensemble.update(m as usize, st) else { return };
        for k in 0..he.ends.len() {
            let end = he.ends[k];
            if he.ensemble.sharing(k) {
                self.conns[end.index()].ep.share_window(share);
            }
        }
        // Then each other sharing member sends what its share allows (by index: serving one
        // needs all of `self`).
        for k in 0..self.hosts.ensembles[e as usize].ends.len() {
            let he = &self.hosts.ensembles[e as usize];
            let end = he.ends[k];
            if he.ensemble.sharing(k) && end != ep && !self.conns[end.index()].in_service {
                self.service(end, now);
            }
        }
    }
}
