//! An ensemble on a host (`crate::ensemble`, RFC 9040 ensemble sharing): after each input to
//! a member (a segment, a wakeup) the window it moved to is shared out among the members,
//! each of which then sends what its share allows (`World::share_window`).

use rampup_tcp::Endpoint;

use crate::ensemble::{Ensemble, MemberState};
use crate::traffic::EndId;
use crate::world::conns::Conns;

/// An ensemble and its members' ends, in member order.
pub(in crate::world) struct HostEnsemble {
    pub(in crate::world) ends: Vec<EndId>,
    pub(in crate::world) ensemble: Ensemble,
}

impl HostEnsemble {
    /// Ensemble `e` of `ends`, whose places in it are noted in `conns`.
    pub(super) fn new(e: u32, ends: Vec<EndId>, conns: &mut Conns) -> HostEnsemble {
        let windows: Vec<u64> = ends.iter().map(|ep| conns[ep.index()].ep.sender().window().cwnd).collect();
        let mss = ends.iter().map(|ep| conns[ep.index()].ep.sender().mss()).max().unwrap_or(1);
        for (m, ep) in ends.iter().enumerate() {
            conns[ep.index()].ensemble = Some((e, m as u32));
        }
        HostEnsemble { ensemble: Ensemble::new(&windows, mss), ends }
    }
}

/// What the ensemble reads of a member's end after an input: its window and threshold, and
/// whether it is in loss recovery, timed out or done (RFC 8699 §6.2's cases, `crate::ensemble`).
pub(in crate::world) fn member_state(ep: &Endpoint) -> MemberState {
    let w = ep.sender().window();
    MemberState { cwnd: w.cwnd, ssthresh: w.ssthresh, in_recovery: ep.sender().in_recovery(), timeouts: ep.stats().timeouts, done: ep.all_acked() }
}
