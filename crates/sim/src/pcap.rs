//! A pcap writer (nanosecond timestamps, raw IPv4) so that Wireshark and tshark can read
//! what crossed a link. Only headers are captured; the original length is the wire size.

use rampup_tcp::Time;

use crate::net::{Body, Packet};

const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
const LINKTYPE_RAW: u32 = 101;

pub struct Pcap {
    pub buf: Vec<u8>,
}

/// Node n has the address 10.0.0.0 + n + 1.
fn addr(node: u32) -> [u8; 4] {
    (0x0a00_0000u32 + node + 1).to_be_bytes()
}

/// Ports of connection `flow`: the data sender uses 10000 + flow, the receiver 20000 + flow
/// (both modulo the 16-bit port space).
fn ports(ep: u32) -> (u16, u16) {
    let flow = ep / 2;
    let sender = (10_000 + flow % 10_000) as u16;
    let receiver = (20_000 + flow % 10_000) as u16;
    // Even endpoints send data; a packet *to* an odd endpoint goes sender -> receiver.
    if ep % 2 == 1 {
        (sender, receiver)
    } else {
        (receiver, sender)
    }
}

fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

impl Default for Pcap {
    fn default() -> Self {
        let mut buf = Vec::new();
        buf.extend_from_slice(&MAGIC_NANOS.to_le_bytes());
        buf.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        buf.extend_from_slice(&4u16.to_le_bytes());
        buf.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        buf.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        buf.extend_from_slice(&65_535u32.to_le_bytes()); // snaplen
        buf.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        Pcap { buf }
    }
}

impl Pcap {
    /// Record packet `p`, sent by node `src`, leaving at `now`.
    pub fn record(&mut self, now: Time, src: u32, p: &Packet) {
        let mut l4 = Vec::with_capacity(60);
        let proto = match &p.body {
            Body::Tcp { ep, seg } => {
                let (sport, dport) = ports(*ep);
                let blocks = seg.sack.len();
                let opt_len = if blocks == 0 { 0 } else { 2 + 2 + 8 * blocks };
                let hdr_len = 20 + opt_len;
                l4.extend_from_slice(&sport.to_be_bytes());
                l4.extend_from_slice(&dport.to_be_bytes());
                // 32-bit sequence space on the wire; the engine's 64-bit numbers wrap here.
                l4.extend_from_slice(&(seg.seq as u32).to_be_bytes());
                l4.extend_from_slice(&(seg.ack as u32).to_be_bytes());
                let flags = (seg.flags.fin as u8) | (seg.flags.syn as u8) << 1 | (seg.flags.rst as u8) << 2 | (seg.flags.ack as u8) << 4;
                l4.push(((hdr_len / 4) as u8) << 4);
                l4.push(flags);
                l4.extend_from_slice(&(seg.window.min(65_535) as u16).to_be_bytes());
                l4.extend_from_slice(&[0, 0, 0, 0]); // checksum (not computed), urgent pointer
                if blocks > 0 {
                    l4.extend_from_slice(&[1, 1, 5, (2 + 8 * blocks) as u8]);
                    for b in seg.sack_blocks() {
                        l4.extend_from_slice(&(b.start as u32).to_be_bytes());
                        l4.extend_from_slice(&(b.end as u32).to_be_bytes());
                    }
                }
                6u8
            }
            Body::Udp { source } => {
                let port = (30_000 + source % 10_000) as u16;
                l4.extend_from_slice(&port.to_be_bytes());
                l4.extend_from_slice(&port.to_be_bytes());
                let udp_len = (p.wire_bytes.saturating_sub(20)).clamp(8, 65_535) as u16;
                l4.extend_from_slice(&udp_len.to_be_bytes());
                l4.extend_from_slice(&[0, 0]);
                17u8
            }
        };
        // The IP total length says what the wire carried: header plus payload. For TCP that
        // is the captured headers plus the segment's payload, so tshark sees the true
        // segment length even though the payload is not captured.
        let total = match &p.body {
            Body::Tcp { seg, .. } => 20 + l4.len() + seg.len as usize,
            Body::Udp { .. } => (p.wire_bytes as usize).max(28),
        };
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&(total.min(65_535) as u16).to_be_bytes());
        ip[8] = 64;
        ip[9] = proto;
        ip[12..16].copy_from_slice(&addr(src));
        ip[16..20].copy_from_slice(&addr(p.dst));
        let c = ipv4_checksum(&ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());

        let caplen = (20 + l4.len()) as u32;
        let secs = (now.as_nanos() / 1_000_000_000) as u32;
        let nanos = (now.as_nanos() % 1_000_000_000) as u32;
        for v in [secs, nanos, caplen, total as u32] {
            self.buf.extend_from_slice(&v.to_le_bytes());
        }
        self.buf.extend_from_slice(&ip);
        self.buf.extend_from_slice(&l4);
    }
}
