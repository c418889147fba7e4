//! What the world counts per flow, per transfer, per UDP source and per packet, for the
//! `flows`, `transfers`, `udp` and `packet_totals` tables.

use std::collections::BTreeMap;
use std::ops::{Index, IndexMut};

use rampup_tcp::cc::SlowStartExit;
use rampup_tcp::restart::SavedPath;
use rampup_tcp::{Endpoint, Time};

use super::rate::RateState;
use crate::rng::Stream;
use crate::trace::Interval;
use crate::traffic::PackMime;

/// One transfer: the whole of a sized bulk flow, or one write of a write schedule.
pub(super) struct Transfer {
    pub(super) flow: u32,
    pub(super) index: u32,
    pub(super) start: Time,
    /// Acknowledged payload at which the transfer is complete.
    done_at_acked: u64,
    pub(super) bytes: u64,
    pub(super) end: Option<Time>,
    retransmits_at_start: u64,
    drops_at_start: u64,
    pub(super) retransmits: u64,
    pub(super) drops: u64,
}

#[derive(Default)]
pub(super) struct FlowState {
    pub(super) start: Option<Time>,
    /// The slot of a flow's one connection (`traffic::App::one_connection`).
    pub(super) conn: Option<u32>,
    /// Connections opened so far, and open now.
    pub(super) opened: u64,
    pub(super) open: u64,
    /// When the last of all the flow's connections closed.
    pub(super) all_closed: Option<Time>,
    /// The stream of gaps between its connections' openings (`traffic::Arrivals`).
    pub(super) arrivals: Option<Stream>,
    /// A web flow's generator (`traffic::packmime`), made at its first opening.
    pub(super) web: Option<Box<PackMime>>,
    /// Transfers of this flow, in order; `next` is the first not yet complete.
    pub(super) transfers: Vec<usize>,
    pub(super) next: usize,
    pub(super) data_drops: u64,
    pub(super) ack_drops: u64,
    /// Its packets a queue discipline sent with CE (`world::queued`).
    pub(super) marks: u64,
    /// The throughput trace's open interval (`[trace] throughput`).
    pub(super) bin: Interval,
    /// A rate-limited flow's phases, writes and receipts (`world::rate`).
    pub(super) rate: Option<Box<RateState>>,
    /// The counts of the flow's connections whose slots were reused.
    pub(super) totals: EndTotals,
}

/// The flows, indexed by flow, and their transfers in the order they began.
#[derive(Default)]
pub(super) struct Flows {
    pub(super) state: Vec<FlowState>,
    pub(super) transfers: Vec<Transfer>,
    /// What a connection's end saved of the path when its data was done, by (its node, its
    /// peer's node): the remote endpoint that a later connection between the two resumes
    /// with (Careful Resume, draft-ietf-tsvwg-careful-resume §3.1, §2.2). Taken by the end
    /// that uses it, as only one may (§3.2).
    pub(super) saved: BTreeMap<(u32, u32), SavedPath>,
}

impl Index<usize> for Flows {
    type Output = FlowState;
    #[inline(always)]
    fn index(&self, f: usize) -> &FlowState {
        &self.state[f]
    }
}

impl IndexMut<usize> for Flows {
    #[inline(always)]
    fn index_mut(&mut self, f: usize) -> &mut FlowState {
        &mut self.state[f]
    }
}

impl Flows {
    /// Flow `f`'s one connection writes `bytes` at `now`, its sender having retransmitted
    /// `retransmits` segments so far: a transfer, complete when its last byte is
    /// acknowledged (`complete_transfers`). The acknowledged payload that completes it, if
    /// it is the flow's next to complete.
    pub(super) fn new_transfer(&mut self, f: u32, now: Time, bytes: u64, retransmits: u64) -> Option<u64> {
        let fl = &self.state[f as usize];
        let prev = fl.transfers.last().map_or(0, |&t| self.transfers[t].done_at_acked);
        let id_in_flow = fl.transfers.len();
        self.transfers.push(Transfer {
            flow: f,
            index: id_in_flow as u32,
            start: now,
            done_at_acked: prev + bytes,
            bytes,
            end: None,
            retransmits_at_start: retransmits,
            drops_at_start: fl.data_drops,
            retransmits: 0,
            drops: 0,
        });
        let id = self.transfers.len() - 1;
        let fl = &mut self.state[f as usize];
        fl.transfers.push(id);
        (fl.next == id_in_flow).then_some(prev + bytes)
    }

    /// Flow `f`'s sender has `acked` bytes acknowledged at `now` and has retransmitted
    /// `retransmits` segments: the transfers that completes end. The acknowledged payload
    /// at which the next completes, `u64::MAX` when none is pending.
    #[inline(always)]
    pub(super) fn complete_transfers(&mut self, f: u32, acked: u64, now: Time, retransmits: u64) -> u64 {
        let fl = &mut self.state[f as usize];
        while let Some(&t) = fl.transfers.get(fl.next) {
            let tr = &mut self.transfers[t];
            if acked < tr.done_at_acked {
                return tr.done_at_acked;
            }
            tr.end = Some(now);
            tr.retransmits = retransmits - tr.retransmits_at_start;
            tr.drops = fl.data_drops - tr.drops_at_start;
            fl.next += 1;
        }
        u64::MAX
    }

    /// Whether flow `f`'s transfers are all complete (and it had one), and when the last ended.
    pub(super) fn transfers_done(&self, f: usize) -> (bool, Option<Time>) {
        let fs = &self.state[f];
        (!fs.transfers.is_empty() && fs.next == fs.transfers.len(), fs.transfers.last().and_then(|&t| self.transfers[t].end))
    }

    /// Take in what the other half of a split run counted of the same flows.
    pub(super) fn absorb(&mut self, other: &Flows) {
        for (mine, f) in self.state.iter_mut().zip(&other.state) {
            mine.start = mine.start.or(f.start);
            mine.data_drops += f.data_drops;
            mine.ack_drops += f.ack_drops;
            mine.marks += f.marks;
            // A flow's deliveries are in one half (a split run's flows send one way): its
            // open throughput interval is the one further on.
            mine.bin = mine.bin.max(f.bin);
        }
    }
}

/// A flow's counts over the ends of all its connections. (A bulk flow's receiver sends no
/// data, so its sums are the sender's counts and the receiver's bytes.)
#[derive(Default)]
pub(super) struct EndTotals {
    pub(super) idle_restarts: u64,
    pub(super) bytes_acked: u64,
    pub(super) bytes_received: u64,
    pub(super) segments_sent: u64,
    pub(super) retransmits: u64,
    pub(super) timeouts: u64,
    pub(super) fast_retransmits: u64,
    pub(super) preemptive: u64,
    pub(super) spurious_preemptive: u64,
    /// The earliest of its ends' exits from slow start (the first end's, at a tie).
    pub(super) slow_start_exit: Option<SlowStartExit>,
}

impl EndTotals {
    pub(super) fn add(&mut self, ep: &Endpoint) {
        let st = ep.stats();
        let pre = ep.preemptive_stats();
        self.idle_restarts += st.idle_restarts;
        self.bytes_acked += ep.bytes_acked();
        self.bytes_received += ep.bytes_received();
        self.segments_sent += st.segments_sent;
        self.retransmits += st.retransmits;
        self.timeouts += st.timeouts;
        self.fast_retransmits += st.fast_retransmits;
        self.preemptive += pre.retransmits;
        self.spurious_preemptive += pre.spurious;
        if let Some(x) = ep.sender().congestion().slow_start_exit() {
            if self.slow_start_exit.is_none_or(|first| x.at < first.at) {
                self.slow_start_exit = Some(x);
            }
        }
    }
}

/// Packet accounting: created + duplicated = delivered + dropped + lost + in flight.
#[derive(Default)]
pub(super) struct PacketCounts {
    pub(super) created: u64,
    pub(super) duplicated: u64,
    pub(super) delivered: u64,
    pub(super) dropped: u64,
    pub(super) lost: u64,
}

impl PacketCounts {
    pub(super) fn absorb(&mut self, o: &PacketCounts) {
        self.created += o.created;
        self.duplicated += o.duplicated;
        self.delivered += o.delivered;
        self.dropped += o.dropped;
        self.lost += o.lost;
    }
}

#[derive(Default)]
pub(super) struct UdpState {
    pub(super) sent: u64,
    pub(super) received: u64,
    pub(super) received_bytes: u64,
    pub(super) dropped: u64,
}

impl UdpState {
    pub(super) fn absorb(&mut self, u: &UdpState) {
        self.sent += u.sent;
        self.received += u.received;
        self.received_bytes += u.received_bytes;
        self.dropped += u.dropped;
    }
}
