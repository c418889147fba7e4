//! Active queue management: the queue disciplines a port may run in place of drop-tail.
//!
//! Each discipline is sans-IO: it is handed the time and a packet's handle (`Queued`) when
//! the packet arrives (`enqueue`) and when the link is ready for the next one (`dequeue`),
//! and it answers with the packet to send, the packets it dropped (`Verdicts::dropped`) and
//! the congestion marks it set (`Queued::ce`). It never sees the packet itself, a clock or
//! an event queue, so each rule of its RFC is tested on its own (`tests` of each file).
//!
//! A congestion signal is a CE mark when the discipline marks (`ecn`) and the packet is
//! ECN-capable (`Queued::ect`), a drop otherwise (RFC 3168 §5; RFC 8289 §4; RFC 8290 §4.1;
//! RFC 8033 §5.1): `Verdicts::signal`.

pub mod codel;
pub mod fq_codel;
pub mod pie;
pub mod red;

use std::collections::VecDeque;

use rampup_tcp::{Duration, Rate, Time};

pub use codel::{CoDel, CoDelParams, ControlLaw};
pub use fq_codel::{FqCoDel, FqCoDelParams};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};

/// A packet as a discipline sees it: its handle in the port (`id`), its size, when it
/// arrived, whether it is ECN-capable (ECT) and the key of its flow (for FQ-CoDel's hash).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Queued {
    pub id: u32,
    pub bytes: u32,
    pub arrived: Time,
    pub ect: bool,
    /// Set by the discipline: the packet leaves with Congestion Experienced.
    pub ce: bool,
    pub flow: u64,
}

/// What a discipline did besides handing out a packet: the packets it dropped (at enqueue
/// or at dequeue), and how many packets it marked CE. The caller drains `dropped`.
#[derive(Debug, Default)]
pub struct Verdicts {
    pub dropped: Vec<u32>,
    pub marks: u64,
}

impl Verdicts {
    /// Signal congestion on `pkt`: a CE mark if `ecn` and the packet is ECT (it stays queued
    /// or is sent), a drop otherwise. Returns whether the packet survives.
    pub fn signal(&mut self, pkt: &mut Queued, ecn: bool) -> bool {
        if ecn && pkt.ect {
            pkt.ce = true;
            self.marks += 1;
            true
        } else {
            self.dropped.push(pkt.id);
            false
        }
    }

    pub fn drop(&mut self, pkt: &Queued) {
        self.dropped.push(pkt.id);
    }
}

/// A FIFO of queued packets with its byte count, the queue each discipline but FQ-CoDel
/// keeps (FQ-CoDel keeps one per flow).
#[derive(Debug, Default)]
pub struct Fifo {
    packets: VecDeque<Queued>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, p: Queued) {
        self.bytes += p.bytes as u64;
        self.packets.push_back(p);
    }
    pub fn pop(&mut self) -> Option<Queued> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.bytes as u64;
        Some(p)
    }
    pub fn len(&self) -> usize {
        self.packets.len()
    }
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// A port's queue discipline, as the scenario chose it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueKind {
    Red(RedParams),
    CoDel(CoDelParams),
    FqCoDel(FqCoDelParams),
    Pie(PieParams),
}

impl QueueKind {
    pub fn name(&self) -> &'static str {
        match self {
            QueueKind::Red(_) => "red",
            QueueKind::CoDel(_) => "codel",
            QueueKind::FqCoDel(_) => "fq-codel",
            QueueKind::Pie(_) => "pie",
        }
    }
}

/// A running discipline. `limit_packets` is the port's queue limit: `full` tells the
/// discipline that the packet arriving would pass it (drop-tail's overflow; FQ-CoDel drops
/// from its fattest queue instead).
#[derive(Debug)]
pub enum Discipline {
    Red(Red),
    CoDel(CoDel),
    FqCoDel(FqCoDel),
    Pie(Pie),
}

impl Discipline {
    /// A discipline of `kind` for a port of `rate`; `seed` keys its random draws and
    /// FQ-CoDel's flow hash.
    pub fn new(kind: &QueueKind, rate: Rate, seed: u64) -> Discipline {
        match *kind {
            QueueKind::Red(p) => Discipline::Red(Red::new(p, rate, seed)),
            QueueKind::CoDel(p) => Discipline::CoDel(CoDel::new(p)),
            QueueKind::FqCoDel(p) => Discipline::FqCoDel(FqCoDel::new(p, seed)),
            QueueKind::Pie(p) => Discipline::Pie(Pie::new(p, rate, seed)),
        }
    }

    pub fn enqueue(&mut self, now: Time, pkt: Queued, full: bool, out: &mut Verdicts) {
        match self {
            Discipline::Red(d) => d.enqueue(now, pkt, full, out),
            Discipline::CoDel(d) => d.enqueue(pkt, full, out),
            Discipline::FqCoDel(d) => d.enqueue(pkt, full, out),
            Discipline::Pie(d) => d.enqueue(now, pkt, full, out),
        }
    }

    pub fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Queued> {
        match self {
            Discipline::Red(d) => d.dequeue(now),
            Discipline::CoDel(d) => d.dequeue(now, out),
            Discipline::FqCoDel(d) => d.dequeue(now, out),
            Discipline::Pie(d) => d.dequeue(now),
        }
    }

    /// Packets waiting (the one being sent is the port's, not the discipline's).
    pub fn len(&self) -> usize {
        match self {
            Discipline::Red(d) => d.queue().len(),
            Discipline::CoDel(d) => d.queue().len(),
            Discipline::FqCoDel(d) => d.len(),
            Discipline::Pie(d) => d.queue().len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn bytes(&self) -> u64 {
        match self {
            Discipline::Red(d) => d.queue().bytes(),
            Discipline::CoDel(d) => d.queue().bytes(),
            Discipline::FqCoDel(d) => d.bytes(),
            Discipline::Pie(d) => d.queue().bytes(),
        }
    }
}

/// `d` in seconds, for the disciplines whose laws are stated in seconds (RED's idle time,
/// PIE's alpha and beta).
fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;

    /// A packet of `bytes` from flow `flow`, arrived at `at_ms`.
    pub fn pkt(id: u32, bytes: u32, at_ms: u64, flow: u64) -> Queued {
        Queued { id, bytes, arrived: Time::ZERO + Duration::from_millis(at_ms), ect: false, ce: false, flow }
    }

    pub fn ms(t: u64) -> Time {
        Time::ZERO + Duration::from_millis(t)
    }
}
