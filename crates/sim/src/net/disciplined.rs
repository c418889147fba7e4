//! A port that runs a queue discipline (`crate::queue`): the packets it holds, the one
//! it sends next, what it dropped and marked (`world::queued` drives it).

use rampup_tcp::{Rate, Time};
use rand::Rng;

use super::{Net, Packet, Port};
use crate::queue::{Discipline, QueueKind, Queued, Verdicts};
use crate::rng;

/// A port's queue discipline and what it decided that the world has yet to act on.
pub(super) struct Aqm {
    pub(super) discipline: Discipline,
    verdicts: Verdicts,
    /// Packets sent with a CE mark the discipline set.
    marks: u64,
}

impl Aqm {
    /// A discipline of `kind` for a port of `rate`, its random draws and hash keyed by the
    /// run's `seed` and the port's `name`.
    pub(super) fn new(kind: &QueueKind, rate: Rate, seed: u64, name: &str) -> Aqm {
        let discipline = Discipline::new(kind, rate, rng::stream(seed, name).random());
        Aqm { discipline, verdicts: Verdicts::default(), marks: 0 }
    }
}

impl Port {
    /// The port runs a queue discipline: packets go through `hold` and `next_out`, not
    /// `offer`.
    pub fn has_discipline(&self) -> bool {
        self.aqm.is_some()
    }

    /// Hand packet `id` (`pkt`, ECN-capable if `ect`, of flow `flow`) to the discipline at
    /// `now`; call `expire(now)` first. The limit counts the packet being serialised, as
    /// drop-tail's does. What it drops is in `take_dropped`.
    pub fn hold(&mut self, now: Time, id: u32, pkt: &Packet, ect: bool, flow: u64) {
        let full = !self.admits_with(pkt.wire_bytes, self.queued_packets(), self.queued_bytes());
        let aqm = self.aqm.as_mut().expect("a port with a discipline");
        let q = Queued { id, bytes: pkt.wire_bytes, arrived: now, ect, ce: false, flow };
        aqm.discipline.enqueue(now, q, full, &mut aqm.verdicts);
    }

    /// The packet the discipline sends next at `now`, if the serialiser is free and one
    /// waits (`ce`: to be sent with Congestion Experienced); then `transmit` it.
    pub fn next_out(&mut self, now: Time) -> Option<Queued> {
        if self.busy_until > now {
            return None;
        }
        let aqm = self.aqm.as_mut().expect("a port with a discipline");
        let q = aqm.discipline.dequeue(now, &mut aqm.verdicts)?;
        aqm.marks += q.ce as u64;
        Some(q)
    }

    /// The packets the discipline dropped since the last call, counted as the port's drops.
    pub fn take_dropped(&mut self) -> Vec<u32> {
        let Some(aqm) = self.aqm.as_mut() else { return Vec::new() };
        self.stats.drops += aqm.verdicts.dropped.len() as u64;
        std::mem::take(&mut aqm.verdicts.dropped)
    }

    /// Packets sent with the CE mark the discipline set instead of dropping them.
    pub fn marks(&self) -> u64 {
        self.aqm.as_ref().map_or(0, |a| a.marks)
    }
}

impl Net {
    /// Packets waiting in the ports' queue disciplines.
    pub fn held(&self) -> u64 {
        self.ports.iter().filter_map(|p| p.aqm.as_ref()).map(|a| a.discipline.len() as u64).sum()
    }
}
