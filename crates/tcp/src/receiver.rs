//! The receiving half: reassembly, cumulative ACK, SACK blocks (RFC 2018) and the delayed
//! ACK rule of RFC 5681 §4.2, with Linux's quick-ACK mode beside it.

use crate::registry::{Family, PartInfo};
use std::collections::VecDeque;

use crate::segment::{SeqRange, MAX_SACK_BLOCKS};

/// Linux's quick-ACK mode in the registry (`quickack = true`): it looks at every segment
/// received.
pub const QUICKACK: PartInfo = PartInfo {
    family: Family::Extra,
    name: "quickack",
    doc: "Linux's receiver: quick-ACK mode at the start and after a gap, the end of a write ACKed at once",
    keys: &[],
    per_segment: true,
};

/// ns-2.35's delayed-ACK sink (`tcp/tcp-sink.cc`, `DelAckSink::recv`): with
/// `SYN_immediate_ack_` (true by default since 2010) the packet of sequence number 0, the
/// first of the connection, is ACKed at once "as if it were a SYN"; the others wait as
/// delayed ACKs do. Per segment: the endpoint tests each data segment for the first one.
pub const ACK_FIRST_SEGMENT: PartInfo = PartInfo {
    family: Family::Extra,
    name: "ack-first-segment",
    doc: "ns-2's DelAck sink (tcp-sink.cc, SYN_immediate_ack_): the connection's first data segment ACKed at once",
    keys: &[],
    per_segment: true,
};

/// When the receiver wants its ACK sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckUrgency {
    /// Nothing to acknowledge.
    None,
    /// Acknowledge within the delayed-ACK timeout.
    Delayed,
    /// Acknowledge now.
    Now,
}

#[derive(Clone, Debug)]
pub struct Receiver {
    /// Next in-order sequence number expected.
    rcv_nxt: u64,
    /// Out-of-order data above `rcv_nxt`: disjoint, not adjacent, sorted by start. Blocks
    /// change near the ends (new data extends the last, repairs fill the first), where a
    /// deque moves few entries; a search tree cost more per segment.
    ooo: VecDeque<SeqRange>,
    /// SACK blocks, most recently changed first (RFC 2018 §4).
    recent: Vec<SeqRange>,
    /// In-order segments received since the last ACK was sent, of any size (RFC 5681 §4.2
    /// asks for an ACK at least every second full-sized one; counting every segment meets it).
    unacked_segments: u32,
    /// Delayed ACKs on: ACK every `ack_every` segments or on the timer.
    delayed_ack: bool,
    ack_every: u32,
    /// Linux's quick-ACK mode (`tcp_in_quickack_mode`): while `quick` > 0 every in-order
    /// segment is acknowledged at once, and each ACK sent counts one down
    /// (`tcp_dec_quickack_mode`).
    quick: u32,
    fin_seq: Option<u64>,
}

/// How far above `rcv_nxt` a segment kept may end: no window of ours reaches further (the
/// window field is 32 bits, `Segment::window`, and a scenario's `rcv_window` is checked to
/// fit it), and a SACK block says no more than this above the ACK (`SackBlocks`).
const MAX_AHEAD_BYTES: u64 = u32::MAX as u64;

/// Linux's `tcp_incr_quickack`: rcv_wnd / (2 × rcv_mss) ACKs, at least 2, at most
/// TCP_MAX_QUICKACKS = 16, for a receive window of `rcv_wnd_segments`.
pub fn quickacks(rcv_wnd_segments: u64) -> u32 {
    (rcv_wnd_segments / 2).clamp(2, 16) as u32
}

/// The receive window Linux opens a connection with, in bytes (`tcp_select_initial_window`):
/// the 64,240 (44 segments of 1460) this project's Linux 6.18 sends in its SYN. At 1,448-byte segments it gives 16
/// quick ACKs (TCP_MAX_QUICKACKS) from the first data segment, as the kernel sends them on the
/// testbed (docs/testbed.md); a window of TCP_DEFAULT_INIT_RCVWND's 10 segments gave 5.
pub const LINUX_INITIAL_RCV_WND_BYTES: u32 = 64_240;

impl Receiver {
    /// `irs` is the peer's initial sequence number (its SYN).
    pub fn new(irs: u64, delayed_ack: bool, ack_every: u32) -> Self {
        Receiver {
            rcv_nxt: irs + 1,
            ooo: VecDeque::new(),
            recent: Vec::new(),
            unacked_segments: 0,
            delayed_ack,
            ack_every: ack_every.max(1),
            quick: 0,
            fin_seq: None,
        }
    }

    /// Enter quick-ACK mode for `n` ACKs at least (Linux's `tcp_incr_quickack`).
    pub fn enter_quickack(&mut self, n: u32) {
        self.quick = self.quick.max(n);
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn fin_received(&self) -> bool {
        self.fin_seq.is_some_and(|f| self.rcv_nxt > f)
    }

    /// Current SACK blocks, most recent first, at most three.
    pub fn sack_blocks(&self) -> &[SeqRange] {
        &self.recent
    }

    /// The ACK was sent: the delayed-ACK count starts again.
    pub fn on_ack_sent(&mut self) {
        self.unacked_segments = 0;
        self.quick = self.quick.saturating_sub(1);
    }

    /// Take in the sequence range `[seq, seq + len)` (payload, plus one if `fin`). Returns the
    /// range newly delivered in order to the application (payload only) and how urgent the
    /// ACK is. Inlined (always, as `Sender::on_ack` is): it runs for every data segment, and
    /// in order it does little.
    #[inline(always)]
    pub fn on_data(&mut self, seq: u64, len: u64, fin: bool) -> (Option<SeqRange>, AckUrgency) {
        if seq.saturating_sub(self.rcv_nxt).saturating_add(len + fin as u64) > MAX_AHEAD_BYTES {
            // RFC 9293 §3.10.7.4: a segment beyond the window is not acceptable: acknowledge
            // and drop it. Tested against the furthest any window of ours reaches, not this
            // connection's own, which a sender may pass before it has heard of it (its
            // first flight without a handshake). Only a stray datagram on a real path comes
            // this far.
            return (None, AckUrgency::Now);
        }
        let end = seq + len + fin as u64;
        if fin {
            self.fin_seq = Some(seq + len);
        }
        if end <= self.rcv_nxt {
            // A duplicate: ACK at once so the sender learns where we are (RFC 5681 §4.2).
            return (None, AckUrgency::Now);
        }
        let before = self.rcv_nxt;
        let had_holes = !self.ooo.is_empty();
        let in_order = seq <= self.rcv_nxt;
        if in_order && !had_holes {
            // The common case: nothing to reassemble and no SACK block to report.
            self.rcv_nxt = end;
        } else {
            self.insert(seq.max(self.rcv_nxt), end);
            self.advance();
        }
        let delivered = self.delivered_range(before);
        let urgency = if !in_order || had_holes || fin || !self.delayed_ack || self.quick > 0 {
            // Out of order, filling a hole or FIN: ACK immediately (RFC 5681 §4.2, RFC 2018);
            // and every segment in quick-ACK mode.
            AckUrgency::Now
        } else {
            self.unacked_segments += 1;
            if self.unacked_segments >= self.ack_every {
                AckUrgency::Now
            } else {
                AckUrgency::Delayed
            }
        };
        (delivered, urgency)
    }

    /// Payload bytes delivered since `before`, not counting the FIN's sequence number.
    fn delivered_range(&self, before: u64) -> Option<SeqRange> {
        let data_end = match self.fin_seq {
            Some(f) if self.rcv_nxt > f => f,
            _ => self.rcv_nxt,
        };
        let r = SeqRange { start: before, end: data_end.max(before) };
        (!r.is_empty()).then_some(r)
    }

    fn insert(&mut self, start: u64, end: u64) {
        // Merge with every overlapping or adjacent block: those from the first that ends at
        // or after `start` to the last that starts at or before `end`. Being sorted and
        // disjoint, they span from the first one's start to the last one's end. The merged
        // block takes the first one's place: a segment that extends a block moves nothing.
        let first = self.ooo.partition_point(|b| b.end < start);
        let last = self.ooo.partition_point(|b| b.start <= end);
        let block;
        if first < last {
            block = SeqRange { start: start.min(self.ooo[first].start), end: end.max(self.ooo[last - 1].end) };
            self.ooo[first] = block;
            self.ooo.drain(first + 1..last);
        } else {
            block = SeqRange { start, end };
            self.ooo.insert(first, block);
        }
        self.recent.retain(|r| r.end < block.start || r.start > block.end);
        self.recent.insert(0, block);
        // Only the most recent blocks are ever reported; a block dropped here is reported
        // again when a segment next changes it.
        self.recent.truncate(MAX_SACK_BLOCKS);
    }

    fn advance(&mut self) {
        if let Some(&first) = self.ooo.front() {
            if first.start <= self.rcv_nxt {
                self.ooo.pop_front();
                self.rcv_nxt = self.rcv_nxt.max(first.end);
            }
        }
        let rcv_nxt = self.rcv_nxt;
        self.recent.retain(|r| r.start > rcv_nxt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: u64, end: u64) -> SeqRange {
        SeqRange { start, end }
    }

    #[test]
    fn in_order_data_is_delivered_and_acked_every_second_segment() {
        let mut rx = Receiver::new(0, true, 2);
        assert_eq!(rx.on_data(1, 100, false), (Some(r(1, 101)), AckUrgency::Delayed));
        assert_eq!(rx.on_data(101, 100, false), (Some(r(101, 201)), AckUrgency::Now));
        rx.on_ack_sent();
        assert_eq!(rx.on_data(201, 100, false).1, AckUrgency::Delayed);
    }

    /// Linux's quick-ACK mode: the first quick ACKs go at once, one per segment; then
    /// delayed ACKs; a gap makes the endpoint enter it again.
    #[test]
    fn quick_ack_mode_acks_every_segment_then_delayed_acks_resume() {
        assert_eq!(quickacks(LINUX_INITIAL_RCV_WND_BYTES as u64 / 1448), 16);
        assert_eq!((quickacks(1), quickacks(1 << 20)), (2, 16));
        let mut rx = Receiver::new(0, true, 2);
        rx.enter_quickack(2);
        let mut urgencies = vec![];
        for k in 0..4u64 {
            let (_, u) = rx.on_data(1 + k * 100, 100, false);
            urgencies.push(u);
            if u == AckUrgency::Now {
                rx.on_ack_sent();
            }
        }
        assert_eq!(urgencies, [AckUrgency::Now, AckUrgency::Now, AckUrgency::Delayed, AckUrgency::Now]);
        rx.enter_quickack(1);
        assert_eq!(rx.on_data(401, 100, false).1, AckUrgency::Now);
    }

    /// RFC 9293 §3.10.7.4: data or a FIN that ends beyond any window of ours is dropped,
    /// with an ACK; a segment ending at the last byte such a window holds is taken, also
    /// beyond the 2^30 bytes of a scaled TCP window (a `rcv_window` of up to 2^32 − 1).
    #[test]
    fn a_segment_beyond_any_window_is_acked_and_dropped() {
        let mut rx = Receiver::new(0, true, 2);
        rx.on_data(1, 100, false);
        let edge = 101 + MAX_AHEAD_BYTES;
        assert_eq!(rx.on_data(edge - 100, 100, true), (None, AckUrgency::Now));
        assert_eq!(rx.on_data(edge, 0, true), (None, AckUrgency::Now));
        assert_eq!(rx.on_data(u64::MAX - 100, 50, false), (None, AckUrgency::Now));
        assert_eq!(rx.on_data(u64::MAX - 10, 50, false), (None, AckUrgency::Now));
        assert!(rx.sack_blocks().is_empty() && !rx.fin_received());
        assert_eq!(rx.on_data(edge - 100, 100, false), (None, AckUrgency::Now));
        assert_eq!(rx.on_data(1 << 31, 100, false), (None, AckUrgency::Now));
        assert_eq!(rx.sack_blocks(), &[r(1 << 31, (1 << 31) + 100), r(edge - 100, edge)]);
    }

    #[test]
    fn without_delayed_acks_every_segment_is_acked_now() {
        let mut rx = Receiver::new(0, false, 2);
        assert_eq!(rx.on_data(1, 100, false).1, AckUrgency::Now);
    }

    #[test]
    fn a_hole_produces_sack_blocks_most_recent_first_and_filling_it_delivers_all() {
        let mut rx = Receiver::new(0, true, 2);
        rx.on_data(1, 100, false);
        assert_eq!(rx.on_data(201, 100, false), (None, AckUrgency::Now));
        assert_eq!(rx.on_data(401, 100, false), (None, AckUrgency::Now));
        assert_eq!(rx.sack_blocks(), &[r(401, 501), r(201, 301)]);
        assert_eq!(rx.on_data(301, 100, false), (None, AckUrgency::Now));
        assert_eq!(rx.sack_blocks(), &[r(201, 501)]);
        assert_eq!(rx.on_data(101, 100, false), (Some(r(101, 501)), AckUrgency::Now));
        assert!(rx.sack_blocks().is_empty());
        assert_eq!(rx.rcv_nxt(), 501);
    }

    #[test]
    fn duplicates_deliver_nothing_and_are_acked_now() {
        let mut rx = Receiver::new(0, true, 2);
        rx.on_data(1, 100, false);
        assert_eq!(rx.on_data(1, 100, false), (None, AckUrgency::Now));
        // A partly new segment delivers only its new part.
        assert_eq!(rx.on_data(51, 100, false).0, Some(r(101, 151)));
    }

    #[test]
    fn fin_takes_one_sequence_number_but_is_not_delivered_as_data() {
        let mut rx = Receiver::new(0, true, 2);
        assert_eq!(rx.on_data(1, 100, true), (Some(r(1, 101)), AckUrgency::Now));
        assert_eq!(rx.rcv_nxt(), 102);
        assert!(rx.fin_received());
    }

    #[test]
    fn only_three_sack_blocks_are_reported() {
        let mut rx = Receiver::new(0, false, 1);
        for k in 0..5 {
            rx.on_data(201 + 200 * k, 100, false);
        }
        assert_eq!(rx.sack_blocks().len(), 3);
        assert_eq!(rx.sack_blocks()[0], r(1001, 1101));
    }
}
