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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    /// Cumulative acknowledgement, meaningful when `flags.ack`.
    pub ack: u64,
    /// Payload bytes (SYN and FIN are not counted here).
    pub len: u32,
    pub flags: Flags,
    /// Receive window in bytes.
    pub window: u64,
    pub sack: [SeqRange; MAX_SACK_BLOCKS],
    pub sack_len: u8,
}

impl Segment {
    /// Sequence space the segment occupies: payload plus one for SYN and one for FIN.
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.flags.syn as u64 + self.flags.fin as u64
    }
    pub fn seq_end(&self) -> u64 {
        self.seq + self.seq_len()
    }
    pub fn sack_blocks(&self) -> &[SeqRange] {
        &self.sack[..self.sack_len as usize]
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
    sack: [SeqRange { start: 0, end: 0 }; MAX_SACK_BLOCKS],
    sack_len: 0,
};
