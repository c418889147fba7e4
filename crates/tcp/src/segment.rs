//! The typed TCP segment that endpoints exchange. The simulator carries it as it is; a
//! real-socket driver would emit and parse bytes.
//!
//! Sequence numbers are 64-bit and never wrap: a simulated connection cannot send 2^64
//! bytes, and it spares every comparison the modular arithmetic of RFC 793 §3.3. The
//! initial sequence number is 0 and the SYN occupies it, so the first data byte is 1.

/// At most three SACK blocks fit beside the other options (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A half-open range of sequence numbers `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqRange {
    pub start: u64,
    pub end: u64,
}

impl SeqRange {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub syn: bool,
    pub ack: bool,
    pub fin: bool,
    /// Reset: the sender has no such connection (RFC 9293 §3.5.2).
    pub rst: bool,
    /// Push: the segment ends what the application has written so far (RFC 9293 §3.9.1,
    /// "Send": the last segment of a write carries PSH, as Linux's `tcp_push` marks it).
    pub psh: bool,
}

/// The SACK blocks a segment carries (RFC 2018), most recent first. Each is kept as two 32-bit
/// offsets from the segment's cumulative ACK, as TCP's own 32-bit sequence numbers would be:
/// a block reports data held above what the ACK covers and within the receive window, which
/// fits in 32 bits (`Segment::window`). Half the size of two 64-bit numbers, they keep a
/// segment at 56 bytes instead of 80: the simulator copies each segment several times on its
/// way (into its packet store, across the two halves of a split run). A block always ends
/// above the ACK, so an end offset of zero marks an unused entry and no count is stored:
/// the 24 bytes leave room for the flags within the 56.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    offsets: [[u32; 2]; MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// The first `MAX_SACK_BLOCKS` of `blocks`, each above the cumulative ACK `ack` and less
    /// than 2^32 beyond it.
    pub fn new(ack: u64, blocks: &[SeqRange]) -> SackBlocks {
        let mut sack = SackBlocks::default();
        for (entry, b) in sack.offsets.iter_mut().zip(blocks) {
            debug_assert!(b.start > ack && b.end - ack <= u32::MAX as u64, "SACK block {b:?} beyond the window above {ack}");
            *entry = [(b.start - ack) as u32, (b.end - ack) as u32];
        }
        sack
    }

    pub fn len(&self) -> usize {
        self.offsets.iter().take_while(|[_, end]| *end != 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.offsets[0][1] == 0
    }
}

/// ECN's bits of a segment (RFC 3168), in one byte: the IP header's ECN field (§5: Not-ECT
/// 00, ECT(1) 01, ECT(0) 10, CE 11) in the low two bits, and the TCP header's ECE and CWR
/// flags (§6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ecn(u8);

impl Ecn {
    const FIELD: u8 = 0b11;
    const ECT0: u8 = 0b10;
    const CE: u8 = 0b11;
    const ECE: u8 = 1 << 2;
    const CWR: u8 = 1 << 3;

    /// The IP header's ECN field: 0 (Not-ECT), 1 (ECT(1)), 2 (ECT(0)) or 3 (CE).
    pub fn field(self) -> u8 {
        self.0 & Self::FIELD
    }
    /// ECN-capable transport: a router may mark it instead of dropping it (§5).
    pub fn ect(self) -> bool {
        self.field() != 0
    }
    pub fn ce(self) -> bool {
        self.field() == Self::CE
    }
    pub fn ece(self) -> bool {
        self.0 & Self::ECE != 0
    }
    pub fn cwr(self) -> bool {
        self.0 & Self::CWR != 0
    }
    pub fn set_ect0(&mut self) {
        self.0 = (self.0 & !Self::FIELD) | Self::ECT0;
    }
    /// A router's mark: Congestion Experienced (§5), on an ECN-capable packet only.
    pub fn set_ce(&mut self) {
        if self.ect() {
            self.0 |= Self::CE;
        }
    }
    pub fn set_ece(&mut self) {
        self.0 |= Self::ECE;
    }
    pub fn set_cwr(&mut self) {
        self.0 |= Self::CWR;
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    /// Cumulative acknowledgement, meaningful when `flags.ack`.
    pub ack: u64,
    /// Payload bytes (SYN and FIN are not counted here).
    pub len: u32,
    /// Receive window in bytes: 32 bits hold more than TCP can advertise (2^30 bytes at most
    /// with window scaling, RFC 7323 §2.3).
    pub window: u32,
    pub flags: Flags,
    /// The SACK-permitted option (RFC 2018 §2): on a SYN or SYN-ACK only, it says the sender
    /// of the segment will send SACK blocks and can use them.
    pub sack_permitted: bool,
    /// Relative to `ack`; read them with `sack_blocks`.
    pub sack: SackBlocks,
    /// ECN's codepoint and flags (RFC 3168); all clear without ECN.
    pub ecn: Ecn,
}

impl Segment {
    /// Sequence space the segment occupies: payload plus one for SYN and one for FIN.
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.flags.syn as u64 + self.flags.fin as u64
    }
    pub fn seq_end(&self) -> u64 {
        self.seq + self.seq_len()
    }
    /// The SACK blocks as sequence ranges, most recent first.
    pub fn sack_blocks(&self) -> impl ExactSizeIterator<Item = SeqRange> + Clone + '_ {
        let ack = self.ack;
        self.sack.offsets[..self.sack.len()].iter().map(move |&[start, end]| SeqRange { start: ack + start as u64, end: ack + end as u64 })
    }
    /// A segment that carries nothing but an acknowledgement.
    pub fn is_pure_ack(&self) -> bool {
        self.seq_len() == 0
    }
}

/// The peer's segment template for unit tests (smoltcp's `RECV_TEMPL`): a pure ACK of
/// nothing with a large window; a test overrides the fields it means.
#[cfg(test)]
pub(crate) const RECV_TEMPL: Segment = Segment {
    seq: 0,
    ack: 0,
    len: 0,
    flags: Flags { syn: false, ack: true, fin: false, rst: false, psh: false },
    window: 1 << 30,
    sack_permitted: false,
    sack: SackBlocks { offsets: [[0; 2]; MAX_SACK_BLOCKS] },
    ecn: Ecn(0),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_read_back_as_given_relative_to_the_ack() {
        let ack = (1 << 40) + 7;
        let blocks = [
            SeqRange { start: ack + 1, end: ack + 1001 },
            SeqRange { start: ack + 5000, end: ack + u32::MAX as u64 },
            SeqRange { start: ack + 2001, end: ack + 3001 },
            SeqRange { start: ack + 9000, end: ack + 9500 },
        ];
        let seg = Segment { ack, sack: SackBlocks::new(ack, &blocks), ..RECV_TEMPL };
        assert_eq!(seg.sack_blocks().collect::<Vec<_>>(), blocks[..MAX_SACK_BLOCKS]);
        assert!(Segment { ack, ..RECV_TEMPL }.sack_blocks().next().is_none());
    }
}
