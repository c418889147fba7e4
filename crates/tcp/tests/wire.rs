//! The UDP receiver survives any datagram: whatever `wire::parse` accepts, an endpoint takes
//! without a panic or an endless answer, in every state a datagram can find it in.

use proptest::prelude::*;
use rampup_tcp::segment::{Flags, SackBlocks, Segment, SeqRange};
use rampup_tcp::time::Duration;
use rampup_tcp::{wire, Endpoint, RecoveryKind, Role, TcpConfig, Time};

/// A datagram of rampup's format with every field drawn, extremes included; what `parse`
/// refuses never reaches an endpoint, so it is left out.
fn arbitrary_segment() -> impl Strategy<Value = Segment> {
    let edge = prop_oneof![Just(0u64), Just(1), Just(u64::MAX - (1 << 33)), any::<u64>(), 0u64..100_000, 0u64..5_000];
    let blocks = prop::collection::vec((any::<u32>(), any::<u32>()), 0..=3);
    (edge.clone(), edge, 0u32..70_000, any::<u32>(), any::<[bool; 5]>(), blocks).prop_filter_map("refused by parse", |(seq, ack, len, window, f, b)| {
        let mut d = Vec::new();
        let ranges: Vec<SeqRange> = b
            .iter()
            .filter(|(s, e)| *s > 0 && e > s)
            .filter_map(|&(s, e)| Some(SeqRange { start: ack.checked_add(s as u64)?, end: ack.checked_add(e as u64)? }))
            .collect();
        ack.checked_add(u32::MAX as u64)?;
        let seg = Segment {
            seq,
            ack,
            len,
            window,
            flags: Flags { syn: f[0], ack: f[1], fin: f[2], rst: f[3] },
            sack_permitted: f[4],
            sack: SackBlocks::new(ack, &ranges),
        };
        wire::emit(&seg, &mut d);
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
    fn any_parsed_datagram_leaves_an_endpoint_working(segments in prop::collection::vec(arbitrary_segment(), 1..12)) {
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
