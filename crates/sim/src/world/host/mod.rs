//! What sits between a host's connection ends and its link: the host shapers. A vrate group
//! (`crate::vrate`, paper 004 §4) paces what its members send; an ensemble
//! (`crate::ensemble`, RFC 9040) shares one window among its members. Here are the groups
//! and ensembles on the hosts and their members; the world drives them (`world::shaped`).
//!
//! A member never takes a segment ahead of time (`World::plan_receive_ahead`), and a run
//! with groups or ensembles is not split over two threads (`partition::plan`): a group's
//! releases are events of the host's own, and a member's input changes the other members'
//! windows at its own time, which an end answering ahead would overtake.

use std::collections::BTreeMap;

use super::conns::Conns;
use super::flows::Flows;
use crate::scenario::{Flow, Scenario};
use crate::traffic::{EndId, Side};
use crate::vrate::Combine;

mod ensemble;
mod vrate;

pub(super) use ensemble::{member_state, HostEnsemble};
pub(super) use vrate::HostGroup;

/// The vrate groups and the ensembles on the hosts.
#[derive(Default)]
pub(super) struct Hosts {
    pub(super) groups: Vec<HostGroup>,
    /// A buffer for what a group releases.
    released: Vec<u32>,
    pub(super) ensembles: Vec<HostEnsemble>,
}

impl Hosts {
    /// Put each grouped flow's two ends in the group of that name on their hosts (with
    /// `Combine::Each`, each end in a group of its own), and each sharing flow's in the
    /// ensemble of that name; their places are noted in `conns`.
    pub(super) fn new(sc: &Scenario, flows: &Flows, conns: &mut Conns) -> Hosts {
        let groups = gather_members(sc, flows, conns, |f| f.group, sc.vrate.combine == Combine::Each)
            .into_iter()
            .enumerate()
            .map(|(g, ends)| HostGroup::new(g as u32, ends, &sc.vrate, conns))
            .collect();
        let ensembles =
            gather_members(sc, flows, conns, |f| f.share, false).into_iter().enumerate().map(|(e, ends)| HostEnsemble::new(e as u32, ends, conns)).collect();
        Hosts { groups, released: Vec::new(), ensembles }
    }

    /// Group `g`'s release at `now`, unless it is stale (an earlier one took its place):
    /// the packets it lets go, in a buffer to give back (`give_back`).
    pub(super) fn release(&mut self, g: u32, now: rampup_tcp::Time) -> Option<Vec<u32>> {
        let mut out = std::mem::take(&mut self.released);
        if self.groups[g as usize].release(now, &mut out) {
            Some(out)
        } else {
            self.released = out;
            None
        }
    }

    pub(super) fn give_back(&mut self, mut released: Vec<u32>) {
        released.clear();
        self.released = released;
    }

    /// Packets the groups hold.
    pub(super) fn held(&self) -> u64 {
        self.groups.iter().map(|g| g.group.held() as u64).sum()
    }
}

/// The two ends of each flow that `name_of` names, gathered by host and name (with
/// `alone`, each flow's apart from the others'): the groups, and their members, in the
/// order first met (flows in order, the active end first). Members take nothing ahead of
/// time (see above).
fn gather_members(sc: &Scenario, flows: &Flows, conns: &mut Conns, name_of: impl Fn(&Flow) -> Option<u32>, alone: bool) -> Vec<Vec<EndId>> {
    let mut index: BTreeMap<(u32, u32, u32), usize> = BTreeMap::new();
    let mut out: Vec<Vec<EndId>> = Vec::new();
    for (f, flow) in sc.flows.iter().enumerate() {
        let (Some(name), Some(slot)) = (name_of(flow), flows[f].conn) else { continue };
        for side in [Side::Active, Side::Passive] {
            let ep = EndId::new(slot, side);
            let c = &mut conns[ep.index()];
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
