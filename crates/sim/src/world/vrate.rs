//! The world's side of the vrate layer (`crate::vrate`, paper 004 §4): the groups on each
//! host, what a grouped end sends going through its group, and the group's releases as
//! events.
//!
//! A grouped end never takes a segment ahead of time (`plan_receive_ahead`), and a run with
//! groups is not split over two threads (`partition::plan`): a group's releases are events
//! of the host's own, which an end answering ahead would overtake. What leaves a group is
//! offered to the host's port at the release's time, as any packet sent then; from there on
//! cut-through applies as to any packet (a property test runs groups both ways).

use std::collections::BTreeMap;

use rampup_tcp::Time;

use super::{Event, World};
use crate::engine::{Class, Order};
use crate::scenario::Flow;
use crate::traffic::{EndId, Side};
use crate::vrate::{Combine, Group};

/// A group and the host it is on.
pub(super) struct HostGroup {
    pub(super) node: u32,
    pub(super) group: Group,
}

impl World<'_> {
    /// The two ends of each flow that `name_of` names, gathered by host and name (with
    /// `alone`, each flow's apart from the others'): the groups, and their members, in the
    /// order first met (flows in order, the active end first). Members take nothing ahead of
    /// time (see above; `world::ensemble` likewise).
    pub(super) fn gather_members(&mut self, name_of: impl Fn(&Flow) -> Option<u32>, alone: bool) -> Vec<Vec<EndId>> {
        let mut index: BTreeMap<(u32, u32, u32), usize> = BTreeMap::new();
        let mut out: Vec<Vec<EndId>> = Vec::new();
        for (f, flow) in self.sc.flows.iter().enumerate() {
            let (Some(name), Some(slot)) = (name_of(flow), self.flows[f].conn) else { continue };
            for side in [Side::Active, Side::Passive] {
                let ep = EndId::new(slot, side);
                let c = &mut self.conns[ep.index()];
                c.receives_ahead = false;
                let g = *index.entry((c.node, name, if alone { f as u32 } else { 0 })).or_insert_with(|| {
                    out.push(Vec::new());
                    out.len() - 1
                });
                out[g].push(ep);
            }
        }
        out
    }

    /// Put each grouped flow's two ends in the group of that name on their hosts (with
    /// `Combine::Each`, each end in a group of its own).
    pub(super) fn build_groups(&mut self) {
        let groups = self.gather_members(|f| f.group, self.sc.vrate.combine == Combine::Each);
        for (g, ends) in groups.iter().enumerate() {
            for (m, ep) in ends.iter().enumerate() {
                self.conns[ep.index()].vrate = Some((g as u32, m as u32));
            }
        }
        self.groups = groups
            .iter()
            .map(|ends| {
                let mss = ends.iter().map(|ep| self.conns[ep.index()].ep.config().mss_bytes).max().unwrap_or(1);
                HostGroup { node: self.conns[ends[0].index()].node, group: Group::new(&self.sc.vrate, mss, ends.len()) }
            })
            .collect();
    }

    /// End `ep`, member `m` of group `g`, sends packet `id` with `payload` bytes through
    /// `port` at `now`: it goes on if the group lets it, else the group holds it.
    pub(super) fn shape(&mut self, (g, m): (u32, u32), port: u32, id: u32, payload: u32, now: Time) {
        if self.groups[g as usize].group.offer(now, m as usize, id, payload) {
            self.enqueue(port, id, now, None);
        } else {
            self.schedule_release(g, now);
        }
    }

    /// Ask for group `g`'s next release, unless one as early is pending (one pending per
    /// group, moved lazily as an end's wakeup is).
    pub(super) fn schedule_release(&mut self, g: u32, now: Time) {
        let hg = &mut self.groups[g as usize];
        let Some(t) = hg.group.due(now) else { return };
        if hg.group.wake_at.is_none_or(|w| t < w) {
            hg.group.wake_at = Some(t);
            self.events.push(t, Order::new(Class::Timer, g, 2), Event::Release(g));
        }
    }

    /// Group `g`'s release event (stale when an earlier one took its place).
    pub(super) fn release(&mut self, g: u32) {
        let now = self.now;
        let hg = &mut self.groups[g as usize];
        if hg.group.wake_at != Some(now) {
            return;
        }
        hg.group.wake_at = None;
        let mut out = std::mem::take(&mut self.released);
        hg.group.release(now, &mut out);
        let node = hg.node;
        for &id in &out {
            let port = self.net.route(node, self.packets_in_flight.get(id).dst);
            self.enqueue(port, id, now, None);
        }
        out.clear();
        self.released = out;
        self.schedule_release(g, now);
    }
}
