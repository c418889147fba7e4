//! Two endpoints over a tiny lossy network (the shared `Pair` in `common/`). The property
//! test at the bottom checks that every byte arrives exactly once and in order under loss,
//! reordering and duplication.

mod common;

use common::{check_delivered, Channel, Pair};
use proptest::prelude::*;
use rampup_tcp::{Endpoint, Event, PreemptiveConfig, RecoveryKind, TcpConfig, Time};
use rampup_tcp::time::Duration;

/// The whole transfer of `bytes` from end 0 finished and was delivered once, in order.
fn check_delivery(p: &Pair, bytes: u64) -> Result<(), TestCaseError> {
    prop_assert!(p.ends[0].all_acked(), "transfer did not finish");
    check_delivered(p, 1, bytes)
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
