//! `wire` over any input: every segment reads back as written; any bytes, and valid datagrams
//! mangled, parse or are refused without a panic; and whatever parses leaves an endpoint
//! working, in every state a datagram can find it in (the UDP receiver survives any datagram).

use proptest::prelude::*;
use rampup_tcp::segment::{Flags, SackBlocks, Segment, SeqRange};
use rampup_tcp::time::Duration;
use rampup_tcp::{wire, Endpoint, RecoveryKind, Role, TcpConfig, Time};

/// A segment with these fields and the SACK blocks (offsets above `ack`) that are not empty
/// and fit; `None` where `ack` leaves no room above it for a block.
fn segment(seq: u64, ack: u64, len: u32, window: u32, f: [bool; 6], blocks: &[(u32, u32)]) -> Option<Segment> {
    ack.checked_add(u32::MAX as u64)?;
    let ranges: Vec<SeqRange> = blocks.iter().filter(|(s, e)| *s > 0 && e > s).map(|&(s, e)| SeqRange { start: ack + s as u64, end: ack + e as u64 }).collect();
    Some(Segment {
        seq,
        ack,
        len,
        window,
        flags: Flags { syn: f[0], ack: f[1], fin: f[2], rst: f[3], psh: f[5] },
        sack_permitted: f[4],
        sack: SackBlocks::new(ack, &ranges),
        // The wire format carries no ECN (`wire::parse`).
        ecn: Default::default(),
    })
}

fn blocks() -> impl Strategy<Value = Vec<(u32, u32)>> {
    prop::collection::vec((any::<u32>(), any::<u32>()), 0..=3)
}

/// Segments as an endpoint makes them.
fn valid_segment() -> impl Strategy<Value = Segment> {
    (0u64..1 << 62, 0u64..1 << 62, 0u32..3000, any::<u32>(), any::<[bool; 6]>(), blocks())
        .prop_filter_map("no room for SACK blocks", |(seq, ack, len, window, f, b)| segment(seq, ack, len, window, f, &b))
}

/// Every field drawn, extremes included; only what `parse` accepts reaches an endpoint.
fn parsed_segment() -> impl Strategy<Value = Segment> {
    let edge = prop_oneof![Just(0u64), Just(1), Just(u64::MAX - (1 << 33)), any::<u64>(), 0u64..100_000, 0u64..5_000];
    (edge.clone(), edge, 0u32..70_000, any::<u32>(), any::<[bool; 6]>(), blocks()).prop_filter_map("refused by parse", |(seq, ack, len, window, f, b)| {
        let mut d = Vec::new();
        wire::emit(&segment(seq, ack, len, window, f, &b)?, &mut d);
        wire::parse(&d).ok()
    })
}

/// Endpoints in the states a stray datagram can meet: listening, having sent a SYN, and
/// established with data in flight (both recoveries, SACK on and off).
fn endpoints() -> Vec<Endpoint> {
    let mut out = Vec::new();
    for recovery in [RecoveryKind::NewReno, RecoveryKind::Sack] {
        let cfg = TcpConfig { recovery, rack_tlp: recovery == RecoveryKind::Sack, ..TcpConfig::default() };
        out.push(Endpoint::new(cfg.clone(), Role::Passive));
        let mut syn_sent = Endpoint::new(cfg.clone(), Role::Active);
        syn_sent.write(50_000);
        while syn_sent.poll_transmit(Time::ZERO).is_some() {}
        out.push(syn_sent);
        let mut sending = Endpoint::new(TcpConfig { handshake: false, ..cfg }, Role::Active);
        sending.write_unlimited();
        while sending.poll_transmit(Time::ZERO).is_some() {}
        out.push(sending);
    }
    out
}

/// Everything the endpoint sends at `now`, at most `limit` segments.
fn drain(ep: &mut Endpoint, now: Time, limit: usize) -> usize {
    std::iter::from_fn(|| ep.poll_transmit(now)).take(limit).count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn a_segment_reads_back_as_written(seg in valid_segment()) {
        let mut d = Vec::new();
        wire::emit(&seg, &mut d);
        prop_assert_eq!(d.len(), wire::encoded_len(&seg));
        prop_assert_eq!(wire::parse(&d), Ok(seg));
    }

    #[test]
    fn any_bytes_parse_without_panic(d in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = wire::parse(&d);
    }

    /// What parses of a mangled datagram keeps its sequence space within 64 bits and its
    /// SACK blocks above the ACK.
    #[test]
    fn a_mangled_datagram_parses_or_is_refused(
        seg in valid_segment(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<Option<prop::sample::Index>>(),
        extra in 0usize..3,
    ) {
        let mut d = Vec::new();
        wire::emit(&seg, &mut d);
        for (at, byte) in edits {
            let i = at.index(d.len());
            d[i] = byte;
        }
        if let Some(c) = cut {
            d.truncate(c.index(d.len() + 1));
        }
        d.extend(std::iter::repeat_n(0u8, extra));
        if let Ok(s) = wire::parse(&d) {
            prop_assert!(s.seq.checked_add(s.seq_len()).is_some());
            prop_assert!(s.sack_blocks().all(|b| b.start > s.ack && b.end > b.start));
        }
    }

    #[test]
    fn any_parsed_datagram_leaves_an_endpoint_working(segments in prop::collection::vec(parsed_segment(), 1..12)) {
        for mut ep in endpoints() {
            let mut now = Time::ZERO;
            for seg in &segments {
                now += Duration::from_millis(7);
                ep.handle_segment(now, seg);
                // A stray segment may be answered (an ACK, a reset), or open the window to a
                // flight; never by more than the window could hold.
                prop_assert!(drain(&mut ep, now, 100_000) < 100_000, "an endless answer to {:?}", seg);
                if let Some(t) = ep.poll_timeout() {
                    if t <= now + Duration::from_secs(3600) {
                        now = now.max(t);
                        ep.handle_timeout(now);
                        drain(&mut ep, now, 100_000);
                    }
                }
                let _ = ep.snapshot();
            }
        }
    }
}
