//! A pcap writer (nanosecond timestamps) so that Wireshark and tshark can read what crossed
//! a link. Only headers are captured.
//!
//! Each record's original length is the packet's wire size in the simulator, so Wireshark's
//! I/O graphs agree with the `links` table. The headers say how that size is made up: with
//! at least 54 bytes of header on every packet (`header_bytes` and `ack_bytes`) the file is
//! Ethernet (14 bytes, then IPv4 and TCP), else raw IPv4. A TCP header carries its SACK
//! blocks and, where the size leaves 12 bytes for it, the timestamps option (NOP, NOP,
//! TSopt: Linux's 66-byte data header is Ethernet 14 + IPv4 20 + TCP 20 + 12). What is left
//! is link-layer trailer after the IP datagram. The IP total length is always the IP and
//! TCP headers plus the segment's payload, so tshark's segment lengths are true.
//!
//! A SYN or SYN-ACK carries the options its end would send: MSS (its `mss`), SACK-permitted
//! when it offers SACK, and window scale (RFC 7323 §2.2) by the shift its receive window
//! needs; its window field is unscaled, that of later segments scaled by the shift (§2.3),
//! so Wireshark shows the receive window the end advertises. These 12 bytes are not in the
//! simulator's wire size (as SACK blocks are not): such records are that much longer.

use std::io::Read;

use rampup_tcp::Time;

use super::Spooled;
use crate::net::{Body, Packet};
use crate::traffic::{EndId, Side};

const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_RAW: u32 = 101;
const ETHERNET_BYTES: usize = 14;
/// Ethernet, IPv4 and TCP headers without options.
pub const ETHERNET_FRAMING_FROM: u32 = 54;
/// NOP, NOP, kind 8, length 10, TSval, TSecr (RFC 7323 §3, Appendix A's layout).
const TIMESTAMPS_OPTION_BYTES: usize = 12;
/// MSS (4 bytes), SACK-permitted after two NOPs (4), window scale after a NOP (4).
const SYN_OPTIONS_BYTES: usize = 12;

/// What a TCP header of a segment shows of the end that sent it.
#[derive(Clone, Copy, Debug)]
pub struct SenderTcp {
    pub mss: u32,
    /// The receive window it advertises, in bytes.
    pub rcv_window: u32,
}

/// RFC 7323 §2.3: the smallest shift that brings `window` into the 16-bit field, at most 14.
pub fn window_shift(window: u32) -> u8 {
    (0..14u8).find(|&s| window >> s <= 65_535).unwrap_or(14)
}

pub struct Pcap {
    /// The file's bytes so far.
    pub out: Spooled,
    /// Frames start with an Ethernet header (see the module's comment).
    ethernet: bool,
    /// The run's end: a transmission that would start then or later is not one (as in
    /// `Port::settle`, which the links table counts by) and is not captured.
    end: Time,
    /// The transport header being built, kept between records so that a record allocates
    /// nothing.
    l4: Vec<u8>,
}

/// Node n has the address 10.0.0.0 + n + 1.
pub fn addr(node: u32) -> [u8; 4] {
    (0x0a00_0000u32 + node + 1).to_be_bytes()
}

/// The ports of the connection in slot `slot`: (its active end's, its passive end's),
/// 10000 + slot and 20000 + slot (slot modulo 10,000): unique among the connections open at
/// once (up to 10,000), reused after a connection is gone, as a host reuses its ports.
pub fn ports_of(slot: u32) -> (u16, u16) {
    ((10_000 + slot % 10_000) as u16, (20_000 + slot % 10_000) as u16)
}

/// The (source, destination) ports of a segment from end `ep`.
fn ports(ep: EndId) -> (u16, u16) {
    let (active, passive) = ports_of(ep.conn());
    match ep.side() {
        Side::Passive => (active, passive),
        Side::Active => (passive, active),
    }
}

fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

impl Pcap {
    /// A capture, to `end`, of packets whose wire sizes include at least `min_header_bytes`
    /// of headers.
    pub fn new(min_header_bytes: u32, end: Time) -> Self {
        let ethernet = min_header_bytes >= ETHERNET_FRAMING_FROM;
        let mut buf = Vec::new();
        buf.extend_from_slice(&MAGIC_NANOS.to_le_bytes());
        buf.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        buf.extend_from_slice(&4u16.to_le_bytes());
        buf.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        buf.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        buf.extend_from_slice(&65_535u32.to_le_bytes()); // snaplen
        buf.extend_from_slice(&(if ethernet { LINKTYPE_ETHERNET } else { LINKTYPE_RAW }).to_le_bytes());
        Pcap { out: Spooled { memory: buf, ..Default::default() }, ethernet, end, l4: Vec::with_capacity(60) }
    }

    /// Record packet `p`, sent by node `src` (and, for a TCP segment, by an end with `tcp`),
    /// leaving at `now`.
    pub fn record(&mut self, now: Time, src: u32, p: &Packet, tcp: Option<SenderTcp>) {
        if now >= self.end {
            return;
        }
        let link = if self.ethernet { ETHERNET_BYTES } else { 0 };
        let mut l4 = std::mem::take(&mut self.l4);
        l4.clear();
        let proto = match &p.body {
            Body::Tcp { ep, seg } => {
                let tcp = tcp.expect("a TCP segment's sender is given");
                let (sport, dport) = ports(*ep);
                let blocks = seg.sack.len();
                let sack_len = if blocks == 0 { 0 } else { 2 + 2 + 8 * blocks };
                let syn_len = if seg.flags.syn { SYN_OPTIONS_BYTES } else { 0 };
                // Header bytes the wire size leaves beyond the headers without options.
                let spare = (p.wire_bytes as usize).saturating_sub(seg.len as usize + link + 40 + sack_len);
                let timestamps = spare >= TIMESTAMPS_OPTION_BYTES && sack_len + syn_len + TIMESTAMPS_OPTION_BYTES <= 40;
                let hdr_len = 20 + sack_len + syn_len + if timestamps { TIMESTAMPS_OPTION_BYTES } else { 0 };
                let shift = window_shift(tcp.rcv_window);
                // RFC 7323 §2.2: the window of a SYN is never scaled.
                let window = if seg.flags.syn { seg.window.min(65_535) } else { (seg.window >> shift).min(65_535) };
                l4.extend_from_slice(&sport.to_be_bytes());
                l4.extend_from_slice(&dport.to_be_bytes());
                // 32-bit sequence space on the wire; the engine's 64-bit numbers wrap here.
                l4.extend_from_slice(&(seg.seq as u32).to_be_bytes());
                l4.extend_from_slice(&(seg.ack as u32).to_be_bytes());
                // RFC 3168 §6.1: ECE and CWR are the header's two high flag bits.
                let flags = (seg.flags.fin as u8)
                    | (seg.flags.syn as u8) << 1
                    | (seg.flags.rst as u8) << 2
                    | (seg.flags.psh as u8) << 3
                    | (seg.flags.ack as u8) << 4
                    | (seg.ecn.ece() as u8) << 6
                    | (seg.ecn.cwr() as u8) << 7;
                l4.push(((hdr_len / 4) as u8) << 4);
                l4.push(flags);
                l4.extend_from_slice(&(window as u16).to_be_bytes());
                l4.extend_from_slice(&[0, 0, 0, 0]); // checksum (not computed), urgent pointer
                if seg.flags.syn {
                    // MSS (RFC 9293 §3.7.1), SACK-permitted (RFC 2018 §2) or two NOPs, and
                    // window scale after a NOP (RFC 7323 §2.2).
                    l4.extend_from_slice(&[2, 4]);
                    l4.extend_from_slice(&(tcp.mss.min(65_535) as u16).to_be_bytes());
                    l4.extend_from_slice(if seg.sack_permitted { &[1, 1, 4, 2] } else { &[1, 1, 1, 1] });
                    l4.extend_from_slice(&[1, 3, 3, shift]);
                }
                if blocks > 0 {
                    l4.extend_from_slice(&[1, 1, 5, (2 + 8 * blocks) as u8]);
                    for b in seg.sack_blocks() {
                        l4.extend_from_slice(&(b.start as u32).to_be_bytes());
                        l4.extend_from_slice(&(b.end as u32).to_be_bytes());
                    }
                }
                if timestamps {
                    // TSval in milliseconds of simulated time; TSecr is not tracked (0).
                    l4.extend_from_slice(&[1, 1, 8, 10]);
                    l4.extend_from_slice(&((now.as_nanos() / 1_000_000) as u32).to_be_bytes());
                    l4.extend_from_slice(&[0, 0, 0, 0]);
                }
                6u8
            }
            Body::Udp { source } => {
                let port = (30_000 + source % 10_000) as u16;
                l4.extend_from_slice(&port.to_be_bytes());
                l4.extend_from_slice(&port.to_be_bytes());
                let udp_len = (p.wire_bytes as usize).saturating_sub(link + 20).clamp(8, 65_535) as u16;
                l4.extend_from_slice(&udp_len.to_be_bytes());
                l4.extend_from_slice(&[0, 0]);
                17u8
            }
        };
        // The IP datagram: its headers plus the payload, which is not captured.
        let total = match &p.body {
            Body::Tcp { seg, .. } => 20 + l4.len() + seg.len as usize,
            Body::Udp { .. } => (p.wire_bytes as usize).saturating_sub(link).max(28),
        };
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        // The ECN field, the low two bits of the old TOS byte (RFC 3168 §5).
        if let Body::Tcp { seg, .. } = &p.body {
            ip[1] = seg.ecn.field();
        }
        ip[2..4].copy_from_slice(&(total.min(65_535) as u16).to_be_bytes());
        ip[8] = 64;
        ip[9] = proto;
        ip[12..16].copy_from_slice(&addr(src));
        ip[16..20].copy_from_slice(&addr(p.dst));
        let c = ipv4_checksum(&ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());

        let caplen = link + 20 + l4.len();
        // The wire size, unless the simulator's size leaves no room for the SACK blocks an
        // ACK carries (it does not count them): then the headers as captured.
        let frame = (p.wire_bytes as usize).max(caplen).max(link + total);
        let secs = (now.as_nanos() / 1_000_000_000) as u32;
        let nanos = (now.as_nanos() % 1_000_000_000) as u32;
        for v in [secs, nanos, caplen as u32, frame as u32] {
            self.out.memory.extend_from_slice(&v.to_le_bytes());
        }
        if self.ethernet {
            // Locally administered MAC addresses that carry the node numbers; type IPv4.
            for node in [p.dst, src] {
                self.out.memory.extend_from_slice(&[0x02, 0]);
                self.out.memory.extend_from_slice(&(node + 1).to_be_bytes());
            }
            self.out.memory.extend_from_slice(&[0x08, 0x00]);
        }
        self.out.memory.extend_from_slice(&ip);
        self.out.memory.extend_from_slice(&l4);
        self.l4 = l4;
        self.out.spill_if_full();
    }
}

/// The records of two captures of the same kind (each in time order) as one capture, in
/// time order (`a`'s first at equal times), handed to `f` in pieces: a link's two
/// directions in one file (`[trace] pcap_per = "link"`).
pub fn merge(a: Spooled, b: Spooled, mut f: impl FnMut(&[u8])) {
    let (mut a, mut b) = (records(a), records(b));
    // Both files start with the same header (`Pcap::new`): it is written once.
    let mut out = a.header.to_vec();
    loop {
        let from = match (a.record.is_empty(), b.record.is_empty()) {
            (true, true) => break,
            (false, true) => &mut a,
            (true, false) => &mut b,
            (false, false) if a.time() <= b.time() => &mut a,
            (false, false) => &mut b,
        };
        out.extend_from_slice(&from.record);
        from.advance();
        if out.len() >= 1 << 20 {
            f(&out);
            out.clear();
        }
    }
    f(&out);
}

/// A capture read back record by record; `record` (its 16-byte header and captured bytes)
/// is the current one, empty at the end. One buffer serves every record.
struct Records<R> {
    bytes: R,
    header: [u8; 24],
    record: Vec<u8>,
}

/// `capture` read back from its first record.
fn records(capture: Spooled) -> Records<impl Read> {
    let mut bytes = capture.into_reader();
    let mut header = [0u8; 24];
    bytes.read_exact(&mut header).expect("a capture starts with its header");
    let mut r = Records { bytes, header, record: Vec::new() };
    r.advance();
    r
}

impl<R: Read> Records<R> {
    fn advance(&mut self) {
        self.record.resize(16, 0);
        if self.bytes.read_exact(&mut self.record).is_err() {
            self.record.clear();
            return;
        }
        let caplen = u32::from_le_bytes(self.record[8..12].try_into().expect("4 bytes")) as usize;
        self.record.resize(16 + caplen, 0);
        self.bytes.read_exact(&mut self.record[16..]).expect("a capture's record is whole");
    }

    /// The current record's timestamp: seconds, then nanoseconds.
    fn time(&self) -> (u32, u32) {
        let word = |i: usize| u32::from_le_bytes(self.record[i..i + 4].try_into().expect("4 bytes"));
        (word(0), word(4))
    }
}
