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
}

/// The SACK blocks a segment carries (RFC 2018), most recent first. Each is kept as two 32-bit
/// offsets from the segment's cumulative ACK, as TCP's own 32-bit sequence numbers would be:
/// a block reports data held above what the ACK covers and within the receive window, which
/// fits in 32 bits (`Segment::window`). Half the size of two 64-bit numbers, they keep a
/// segment at 56 bytes instead of 80: the simulator copies each segment several times on its
/// way (into its packet store, across the two halves of a split run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    offsets: [[u32; 2]; MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    /// The first `MAX_SACK_BLOCKS` of `blocks`, each above the cumulative ACK `ack` and less
    /// than 2^32 beyond it.
    pub fn new(ack: u64, blocks: &[SeqRange]) -> SackBlocks {
        let mut sack = SackBlocks::default();
        for b in blocks.iter().take(MAX_SACK_BLOCKS) {
            debug_assert!(b.start > ack && b.end - ack <= u32::MAX as u64, "SACK block {b:?} beyond the window above {ack}");
            sack.offsets[sack.len as usize] = [(b.start - ack) as u32, (b.end - ack) as u32];
            sack.len += 1;
        }
        sack
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
    /// Relative to `ack`; read them with `sack_blocks`.
    pub sack: SackBlocks,
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
    pub fn sack_blocks(&self) -> impl ExactSizeIterator<Item = SeqRange> + '_ {
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
    flags: Flags { syn: false, ack: true, fin: false },
    window: 1 << 30,
    sack: SackBlocks { offsets: [[0; 2]; MAX_SACK_BLOCKS], len: 0 },
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
