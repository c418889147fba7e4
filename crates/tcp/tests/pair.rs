//! Two endpoints over a tiny lossy network (the shared `Pair` in `common/`). The property
//! test at the bottom checks that every byte arrives exactly once and in order under loss,
//! reordering and duplication.

mod common;

use common::{Fate, Pair};
use proptest::prelude::*;
use rampup_tcp::{Endpoint, Event, PreemptiveConfig, RecoveryKind, Segment, SeqRange, TcpConfig, Time};
use rampup_tcp::time::Duration;

/// A channel that delays each segment by a base delay plus random jitter (so segments can
/// overtake each other), and loses or duplicates them with given probabilities.
struct Channel {
    delay: Duration,
    jitter_ns: u64,
    loss: f64,
    dup: f64,
}

impl Channel {
    /// The network closure for `Pair`: draws the fate of each segment from a generator
    /// seeded with `seed`.
    fn network(self, seed: u64) -> impl FnMut(usize, &Segment) -> Fate {
        let mut rng = seed | 1;
        let mut uniform = move || {
            // xorshift64*: a test needs no better generator.
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            (rng.wrapping_mul(0x2545F4914F6CDD1D) >> 11) as f64 / (1u64 << 53) as f64
        };
        move |_, _| {
            if uniform() < self.loss {
                return Fate::Lose;
            }
            let twice = uniform() < self.dup;
            // Each copy gets its own jitter.
            let mut delay = || self.delay + Duration((uniform() * self.jitter_ns as f64) as u64);
            if twice {
                let first = delay();
                Fate::Twice(first, delay())
            } else {
                Fate::Deliver(delay())
            }
        }
    }
}

fn covered(arrived: &[SeqRange], r: SeqRange) -> bool {
    // Every byte of r was carried by some segment that reached the receiver.
    let mut sorted: Vec<_> = arrived.iter().filter(|a| a.end > r.start && a.start < r.end).copied().collect();
    sorted.sort_by_key(|a| a.start);
    let mut at = r.start;
    for a in sorted {
        if a.start > at {
            return false;
        }
        at = at.max(a.end);
    }
    at >= r.end
}

/// The whole transfer of `bytes` finished, and the delivered ranges are contiguous from the
/// first data byte, with no overlap, made only of bytes that arrived.
fn check_delivery(p: &Pair, bytes: u64) -> Result<(), TestCaseError> {
    prop_assert!(p.ends[0].all_acked(), "transfer did not finish");
    prop_assert_eq!(p.ends[1].bytes_received(), bytes);
    let mut next = 1;
    for r in &p.delivered {
        prop_assert_eq!(r.start, next);
        prop_assert!(covered(&p.arrived, *r), "delivered bytes {:?} that never arrived", r);
        next = r.end;
    }
    prop_assert_eq!(next, 1 + bytes);
    Ok(())
}

fn transfer(cfg: TcpConfig, chan: Channel, bytes: u64, seed: u64) -> Pair {
    let mut p = Pair::new(cfg, chan.network(seed));
    p.ends[0].write(bytes);
    p.ends[0].close();
    p.run_until_acked(Time(Duration::from_secs(3600).0));
    p
}

#[test]
fn clean_transfer_delivers_everything_without_retransmission() {
    let chan = Channel { delay: Duration::from_millis(10), jitter_ns: 0, loss: 0.0, dup: 0.0 };
    let p = transfer(TcpConfig::default(), chan, 100_000, 1);
    assert!(p.ends[0].all_acked());
    assert_eq!(p.ends[1].bytes_received(), 100_000);
    assert_eq!(p.ends[0].stats().retransmits, 0);
    assert_eq!(p.ends[0].measure().handshake_rtt(), Some(Duration::from_millis(20)));
}

fn events(end: &mut Endpoint) -> Vec<Event> {
    std::iter::from_fn(|| end.poll_event()).collect()
}

fn recovery_kind() -> impl Strategy<Value = RecoveryKind> {
    prop_oneof![Just(RecoveryKind::Reno), Just(RecoveryKind::NewReno), Just(RecoveryKind::Sack)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Events: every RTT sample an end takes is reported once, `Delivered` adds up to the
    /// bytes sent, and each end reports `Established` once, the receiver `PeerFinished` once.
    #[test]
    fn events_report_every_rtt_sample_once_and_every_delivered_byte(
        seed in any::<u64>(),
        bytes in 1u64..60_000,
        loss in 0.0f64..0.2,
        dup in 0.0f64..0.1,
        jitter_ms in 0u64..30,
        recovery in recovery_kind(),
        delayed_ack in any::<bool>(),
    ) {
        let cfg = TcpConfig { recovery, delayed_ack, ..TcpConfig::default() };
        let chan = Channel { delay: Duration::from_millis(5), jitter_ns: jitter_ms * 1_000_000, loss, dup };
        let mut p = Pair::new(cfg, chan.network(seed));
        for end in &mut p.ends {
            end.enable_events();
        }
        p.ends[0].write(bytes);
        p.ends[0].close();
        p.run_until_acked(Time(Duration::from_secs(3600).0));
        check_delivery(&p, bytes)?;
        for i in 0..2 {
            let evs = events(&mut p.ends[i]);
            let samples = evs.iter().filter(|e| matches!(e, Event::RttSample { .. })).count() as u64;
            prop_assert_eq!(samples, p.ends[i].measure().rtt_samples(), "end {}", i);
            let established = evs.iter().filter(|e| matches!(e, Event::Established { .. })).count();
            prop_assert_eq!(established, 1, "end {}", i);
            let delivered: u64 = evs.iter().map(|e| if let Event::Delivered { bytes } = e { *bytes } else { 0 }).sum();
            prop_assert_eq!(delivered, if i == 1 { bytes } else { 0 });
            let finished = evs.iter().filter(|e| matches!(e, Event::PeerFinished)).count();
            prop_assert_eq!(finished, i, "end {}", i);
        }
    }

    /// Every byte is delivered exactly once, in order, and only bytes that really arrived.
    #[test]
    fn every_byte_delivered_once_in_order(
        seed in any::<u64>(),
        bytes in 1u64..60_000,
        loss in 0.0f64..0.2,
        dup in 0.0f64..0.1,
        jitter_ms in 0u64..30,
        recovery in recovery_kind(),
        delayed_ack in any::<bool>(),
        mss in prop_oneof![Just(536u32), Just(1000), Just(1460)],
    ) {
        let cfg = TcpConfig { recovery, delayed_ack, mss_bytes: mss, ..TcpConfig::default() };
        let chan = Channel { delay: Duration::from_millis(5), jitter_ns: jitter_ms * 1_000_000, loss, dup };
        let p = transfer(cfg, chan, bytes, seed);
        check_delivery(&p, bytes)?;
    }

    /// The same with Preemptive Retransmission on (k = 1..4, cut-out 1..100 KB): the extra
    /// retransmissions never break delivery, and the counters stay consistent.
    #[test]
    fn every_byte_delivered_once_in_order_with_preemptive_retransmission(
        seed in any::<u64>(),
        bytes in 1u64..60_000,
        loss in 0.0f64..0.2,
        jitter_ms in 0u64..30,
        recovery in recovery_kind(),
        delayed_ack in any::<bool>(),
        factor in 1.0f64..4.0,
        cutout_bytes in 1u64..100_000,
    ) {
        let preemptive = Some(PreemptiveConfig { factor, cutout_bytes });
        let cfg = TcpConfig { recovery, delayed_ack, preemptive, ..TcpConfig::default() };
        let chan = Channel { delay: Duration::from_millis(5), jitter_ns: jitter_ms * 1_000_000, loss, dup: 0.0 };
        let p = transfer(cfg, chan, bytes, seed);
        check_delivery(&p, bytes)?;
        let (st, pre) = (p.ends[0].stats(), p.ends[0].preemptive_stats());
        prop_assert!(pre.spurious <= pre.retransmits && pre.retransmits <= st.retransmits, "{:?} {:?}", pre, st);
    }
}
