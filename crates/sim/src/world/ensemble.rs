//! The world's side of ensemble sharing (`crate::ensemble`, RFC 9040): the ensembles on
//! each host, and after each input to a member (a segment, a wakeup) the window it moved
//! to shared out among the members, each of which then sends what its share allows.
//!
//! As for vrate groups (`world::vrate`), a member never takes a segment ahead of time and a
//! run with ensembles is not split: a member's input changes the other members' windows at
//! its own time.

use rampup_tcp::Time;

use super::World;
use crate::ensemble::{Ensemble, MemberState};
use crate::traffic::EndId;

/// An ensemble and its members' ends, in member order.
pub(super) struct HostEnsemble {
    ends: Vec<EndId>,
    ensemble: Ensemble,
}

impl World<'_> {
    /// Put each sharing flow's two ends in the ensemble of that name on their hosts.
    pub(super) fn build_ensembles(&mut self) {
        for (e, ends) in self.gather_members(|f| f.share, false).into_iter().enumerate() {
            let windows: Vec<u64> = ends.iter().map(|ep| self.conns[ep.index()].ep.sender().window().cwnd).collect();
            let mss = ends.iter().map(|ep| self.conns[ep.index()].ep.sender().mss()).max().unwrap_or(1);
            for (m, ep) in ends.iter().enumerate() {
                self.conns[ep.index()].ensemble = Some((e as u32, m as u32));
            }
            self.ensembles.push(HostEnsemble { ensemble: Ensemble::new(&windows, mss), ends });
        }
    }

    /// End `ep` had an input at `now`: if it is in an ensemble, the window it moved to is
    /// shared out, and the other members send what their new shares allow (`ep` sends in
    /// its own `service` next).
    pub(super) fn share_window(&mut self, ep: EndId, now: Time) {
        let Some((e, m)) = self.conns[ep.index()].ensemble else { return };
        let c = &self.conns[ep.index()].ep;
        let w = c.sender().window();
        let st = MemberState { cwnd: w.cwnd, ssthresh: w.ssthresh, in_recovery: c.sender().in_recovery(), timeouts: c.stats().timeouts, done: c.all_acked() };
        let he = &mut self.ensembles[e as usize];
        let Some(share) = he.ensemble.update(m as usize, st) else { return };
        for k in 0..he.ends.len() {
            let end = he.ends[k];
            if he.ensemble.sharing(k) {
                self.conns[end.index()].ep.share_window(share);
            }
        }
        // Then each other sharing member sends what its share allows (by index: serving one
        // needs all of `self`).
        for k in 0..self.ensembles[e as usize].ends.len() {
            let he = &self.ensembles[e as usize];
            let end = he.ends[k];
            if he.ensemble.sharing(k) && end != ep && !self.conns[end.index()].in_service {
                self.service(end, now);
            }
        }
    }
}
