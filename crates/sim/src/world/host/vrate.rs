//! A vrate group on a host (`crate::vrate`, paper 004 §4): what a grouped end sends goes
//! through it, and it releases what it held at times of its own. What leaves a group is
//! offered to the host's port at the release's time, as any packet sent then; from there on
//! cut-through applies as to any packet (a property test runs groups both ways).

use rampup_tcp::Time;

use crate::traffic::EndId;
use crate::vrate::{Group, VrateSpec};
use crate::world::conns::Conns;

/// A group and the host it is on.
pub(in crate::world) struct HostGroup {
    pub(in crate::world) node: u32,
    pub(in crate::world) group: Group,
}

impl HostGroup {
    /// Group `g` of `ends`, whose places in it are noted in `conns`.
    pub(super) fn new(g: u32, ends: Vec<EndId>, spec: &VrateSpec, conns: &mut Conns) -> HostGroup {
        for (m, ep) in ends.iter().enumerate() {
            conns[ep.index()].vrate = Some((g, m as u32));
        }
        let mss = ends.iter().map(|ep| conns[ep.index()].ep.config().mss_bytes).max().unwrap_or(1);
        HostGroup { node: conns[ends[0].index()].node, group: Group::new(spec, mss, ends.len()) }
    }

    /// The time of the group's next release, if one is due and none as early is pending
    /// (one pending per group, moved lazily as an end's wakeup is): the caller sets it as
    /// an event.
    pub(in crate::world) fn next_release(&mut self, now: Time) -> Option<Time> {
        let t = self.group.due(now)?;
        if self.group.wake_at.is_some_and(|w| t >= w) {
            return None;
        }
        self.group.wake_at = Some(t);
        Some(t)
    }

    /// The release pending at `now`, unless it is stale: what it lets go, into `out`.
    pub(super) fn release(&mut self, now: Time, out: &mut Vec<u32>) -> bool {
        if self.group.wake_at != Some(now) {
            return false;
        }
        self.group.wake_at = None;
        self.group.release(now, out);
        true
    }
}
