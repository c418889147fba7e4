//! Segments as bytes, for a driver that carries them in UDP datagrams over a real path.
//!
//! Not TCP's own header: the endpoint's sequence numbers are 64-bit and never wrap
//! (`segment`), and the datagram's payload must carry them as they are. One datagram is one
//! segment, big-endian:
//!
//! | bytes | field |
//! | --- | --- |
//! | 2 | magic `b"RU"` |
//! | 1 | version (2) |
//! | 1 | flags: SYN 0x01, ACK 0x02, FIN 0x04, RST 0x08, SACK-permitted 0x10, PSH 0x20; the top two bits the SACK blocks, 0 to 3 |
//! | 4 | checksum: CRC-32C of the header and SACK blocks, this field taken as zero |
//! | 8, 8 | seq, ack |
//! | 4, 4 | window, payload length |
//! | 8 each | SACK blocks: start and end as 32-bit offsets above ack |
//! | length | payload (zeros: the endpoint counts bytes, it does not carry them) |
//!
//! The checksum guards what the endpoint reads: the UDP checksum is optional over IPv4
//! (RFC 768; a zero field means none was computed), and one ACK number raised by a flipped
//! bit acknowledges data the receiver may never have had, which the sender then never sends
//! again. It is CRC-32C (Castagnoli), as SCTP's (RFC 9260 §6.8, Appendix A) and iSCSI's
//! (RFC 3720 §12.1): it detects every error within 32 bits in a row, as any 32-bit CRC does,
//! and so every single flipped bit (a test flips each in turn). The payload is not covered:
//! it carries nothing the endpoint reads, and its length is in the header. A corruption, not
//! an attacker, is what it guards against.
//!
//! `parse` never panics: any datagram gives a segment or an error, and a segment it gives
//! holds to what the endpoint assumes of one (its sequence space fits in 64 bits, SACK blocks
//! lie above the ACK and are not empty).

use crate::segment::{Ecn, Flags, SackBlocks, Segment, SeqRange, MAX_SACK_BLOCKS};

const MAGIC: [u8; 2] = *b"RU";
const VERSION: u8 = 2;
/// Bytes before the SACK blocks.
pub const HEADER_BYTES: usize = 32;
const SACK_BLOCK_BYTES: usize = 8;

const SYN: u8 = 0x01;
const ACK: u8 = 0x02;
const FIN: u8 = 0x04;
const RST: u8 = 0x08;
const SACK_PERMITTED: u8 = 0x10;
const PSH: u8 = 0x20;
/// The flags byte's top two bits count the SACK blocks.
const BLOCKS_SHIFT: u32 = 6;
const _: () = assert!(MAX_SACK_BLOCKS < 1 << (8 - BLOCKS_SHIFT), "the SACK blocks' count fits in the flags byte");
/// Where the checksum lies in the header.
const CHECKSUM: std::ops::Range<usize> = 4..8;

/// Why a datagram is not a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Shorter than its header, or than the SACK blocks and payload it announces.
    Short,
    /// Longer than the header, SACK blocks and payload it announces.
    Long,
    /// Not rampup's magic and version.
    NotOurs,
    /// The checksum does not match: a bit changed on the way.
    Corrupt,
    /// The sequence space runs past 2^64, or a SACK block is empty or not above the ACK.
    OutOfRange,
}

/// The datagram's length for `seg`.
pub fn encoded_len(seg: &Segment) -> usize {
    HEADER_BYTES + seg.sack.len() * SACK_BLOCK_BYTES + seg.len as usize
}

/// Append `seg` as a datagram to `out`.
pub fn emit(seg: &Segment, out: &mut Vec<u8>) {
    let f = seg.flags;
    let flags = (f.syn as u8 * SYN)
        | (f.ack as u8 * ACK)
        | (f.fin as u8 * FIN)
        | (f.rst as u8 * RST)
        | (f.psh as u8 * PSH)
        | (seg.sack_permitted as u8 * SACK_PERMITTED);
    let start = out.len();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[VERSION, flags | (seg.sack.len() as u8) << BLOCKS_SHIFT, 0, 0, 0, 0]);
    out.extend_from_slice(&seg.seq.to_be_bytes());
    out.extend_from_slice(&seg.ack.to_be_bytes());
    out.extend_from_slice(&seg.window.to_be_bytes());
    out.extend_from_slice(&seg.len.to_be_bytes());
    for b in seg.sack_blocks() {
        out.extend_from_slice(&((b.start - seg.ack) as u32).to_be_bytes());
        out.extend_from_slice(&((b.end - seg.ack) as u32).to_be_bytes());
    }
    let sum = crc32c(&out[start..]);
    out[start + CHECKSUM.start..start + CHECKSUM.end].copy_from_slice(&sum.to_be_bytes());
    out.resize(out.len() + seg.len as usize, 0);
}

/// The segment a datagram carries.
pub fn parse(d: &[u8]) -> Result<Segment, WireError> {
    let header: &[u8; HEADER_BYTES] = d.get(..HEADER_BYTES).and_then(|h| h.try_into().ok()).ok_or(WireError::Short)?;
    if header[..2] != MAGIC || header[2] != VERSION {
        return Err(WireError::NotOurs);
    }
    let (flags, blocks) = (header[3], (header[3] >> BLOCKS_SHIFT) as usize);
    // Checked before any field is read: a datagram that fails it may say anything.
    let guarded = d.get(..HEADER_BYTES + blocks * SACK_BLOCK_BYTES).ok_or(WireError::Short)?;
    let mut zeroed = *header;
    zeroed[CHECKSUM].fill(0);
    let sum = crc32c_update(crc32c_update(!0, &zeroed), &guarded[HEADER_BYTES..]);
    if !sum != u32::from_be_bytes(header[CHECKSUM].try_into().expect("4 bytes")) {
        return Err(WireError::Corrupt);
    }
    let u64_at = |i: usize| u64::from_be_bytes(header[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |b: &[u8], i: usize| u32::from_be_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    let (seq, ack, window, len) = (u64_at(8), u64_at(16), u32_at(header, 24), u32_at(header, 28));
    let want = HEADER_BYTES + blocks * SACK_BLOCK_BYTES + len as usize;
    if d.len() < want {
        return Err(WireError::Short);
    }
    if d.len() > want {
        return Err(WireError::Long);
    }
    // seq_end() (payload, SYN, FIN) and a SACK block (ack + 2^32) stay within 64 bits.
    if seq.checked_add(len as u64 + 2).is_none() || ack.checked_add(u32::MAX as u64).is_none() {
        return Err(WireError::OutOfRange);
    }
    let mut ranges = [SeqRange::default(); MAX_SACK_BLOCKS];
    for (k, r) in ranges.iter_mut().enumerate().take(blocks) {
        let b = &d[HEADER_BYTES + k * SACK_BLOCK_BYTES..][..SACK_BLOCK_BYTES];
        let (start, end) = (u32_at(b, 0), u32_at(b, 4));
        if start == 0 || end <= start {
            return Err(WireError::OutOfRange);
        }
        *r = SeqRange { start: ack + start as u64, end: ack + end as u64 };
    }
    Ok(Segment {
        seq,
        ack,
        len,
        window,
        flags: Flags { syn: flags & SYN != 0, ack: flags & ACK != 0, fin: flags & FIN != 0, rst: flags & RST != 0, psh: flags & PSH != 0 },
        sack_permitted: flags & SACK_PERMITTED != 0,
        sack: SackBlocks::new(ack, &ranges[..blocks]),
        // The real path's datagrams carry no IP header of their own to mark.
        ecn: Ecn::default(),
    })
}

/// 256 steps of CRC-32C, one per value of a byte (the reflected polynomial 0x82F63B78).
const CRC32C_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0x82F6_3B78 } else { c >> 1 };
            bit += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// The CRC register after `bytes`, from `crc` (the complement of a finished CRC).
fn crc32c_update(crc: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(crc, |c, &b| CRC32C_TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8))
}

/// CRC-32C of `bytes` (RFC 3720 §B.4).
fn crc32c(bytes: &[u8]) -> u32 {
    !crc32c_update(!0, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The property tests (round trip, any bytes, mangled datagrams, and what parses fed to
    // endpoints) are in tests/wire.rs.
    #[test]
    fn refusals_name_what_is_wrong() {
        let seg = Segment { seq: 1, ack: 1, len: 10, window: 1000, flags: Flags { ack: true, ..Flags::default() }, ..Segment::default() };
        let mut d = Vec::new();
        emit(&seg, &mut d);
        assert_eq!(parse(&d[..HEADER_BYTES - 1]), Err(WireError::Short));
        assert_eq!(parse(&d[..d.len() - 1]), Err(WireError::Short));
        assert_eq!(parse(&[d.as_slice(), &[0]].concat()), Err(WireError::Long));
        let mut bad = d.clone();
        bad[0] = b'X';
        assert_eq!(parse(&bad), Err(WireError::NotOurs));
        let mut bad = d.clone();
        bad[23] ^= 0x01;
        assert_eq!(parse(&bad), Err(WireError::Corrupt), "a flipped bit of the ACK number");
        let mut bad = d.clone();
        bad[3] |= 0x40;
        assert_eq!(parse(&bad), Err(WireError::Corrupt), "a SACK block announced, the checksum left as it was");
        assert_eq!(parse(&bad[..HEADER_BYTES + 4]), Err(WireError::Short), "a SACK block announced and cut short");
        let past = Segment { seq: u64::MAX - 5, ..seg };
        let mut bad = Vec::new();
        emit(&past, &mut bad);
        assert_eq!(parse(&bad), Err(WireError::OutOfRange), "seq + len past 2^64");
    }

    #[test]
    fn every_single_bit_flip_of_the_header_and_sack_blocks_is_refused() {
        let seg =
            Segment { seq: 1 << 40, ack: 77_000, len: 1400, window: 1 << 20, flags: Flags { ack: true, psh: true, ..Flags::default() }, ..Segment::default() };
        let seg = Segment { sack: SackBlocks::new(seg.ack, &[SeqRange { start: 80_000, end: 90_000 }, SeqRange { start: 95_000, end: 96_400 }]), ..seg };
        let mut d = Vec::new();
        emit(&seg, &mut d);
        assert_eq!(parse(&d), Ok(seg));
        for bit in 0..(HEADER_BYTES + 2 * SACK_BLOCK_BYTES) * 8 {
            let mut bad = d.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(parse(&bad).is_err(), "bit {bit} flipped and taken");
        }
    }

    #[test]
    fn crc32c_gives_the_published_check_values() {
        // RFC 3720 §B.4: 32 bytes of zeros; and the usual check value over "123456789".
        assert_eq!(crc32c(&[0; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }
}
