//! Two endpoints over a tiny lossy network (the shared `Pair` in `common/`). The property
//! test at the bottom checks that every byte arrives exactly once and in order under loss,
//! reordering and duplication.

mod common;

use common::{check_delivered, count, delivered_bytes, events, recovery_kind, Channel, Pair, HOUR};
use proptest::prelude::*;
use rampup_tcp::time::Duration;
use rampup_tcp::{Event, PreemptiveConfig, Restart, TcpConfig};

/// The whole transfer of `bytes` from end 0 finished and was delivered once, in order; and
/// the events said so: every RTT sample an end took is reported once, `Delivered` adds up
/// to the bytes sent, each end reports `Established` once and the receiver `PeerFinished`
/// once.
fn check_delivery(p: &mut Pair, bytes: u64) -> Result<(), TestCaseError> {
    prop_assert!(p.ends[0].all_acked(), "transfer did not finish");
    check_delivered(p, 1, bytes)?;
    for i in 0..2 {
        let evs = events(&mut p.ends[i]);
        let samples = count(&evs, |e| matches!(e, Event::RttSample { .. })) as u64;
        prop_assert_eq!(samples, p.ends[i].measure().rtt_samples(), "end {}", i);
        prop_assert_eq!(count(&evs, |e| matches!(e, Event::Established { .. })), 1, "end {}", i);
        prop_assert_eq!(delivered_bytes(&evs), if i == 1 { bytes } else { 0 }, "end {}", i);
        prop_assert_eq!(count(&evs, |e| matches!(e, Event::PeerFinished)), i, "end {}", i);
    }
    Ok(())
}

/// End 0 writes `bytes` and closes; both ends record events.
fn transfer(cfg: TcpConfig, chan: Channel, bytes: u64, seed: u64) -> Pair {
    let mut p = Pair::new(cfg, chan.network(seed));
    for end in &mut p.ends {
        end.enable_events();
    }
    p.ends[0].write(bytes);
    p.ends[0].close();
    p.run_until_acked(HOUR);
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every byte is delivered exactly once, in order, and only bytes that really arrived;
    /// the events report it (`check_delivery`).
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
        let mut p = transfer(cfg, chan, bytes, seed);
        check_delivery(&mut p, bytes)?;
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
        let mut p = transfer(cfg, chan, bytes, seed);
        check_delivery(&mut p, bytes)?;
        let (st, pre) = (p.ends[0].stats(), p.ends[0].preemptive_stats());
        prop_assert!(pre.spurious <= pre.retransmits && pre.retransmits <= st.retransmits, "{:?} {:?}", pre, st);
    }

    /// The plain paths (`TcpConfig::is_plain`, `Endpoint::handle_segment`) change no result:
    /// both ends of a plain config send the same segments at the same times, and deliver the
    /// same ranges, as when they run the paths that serve every config. Two writes with an
    /// idle between them, so that the restart policy acts too.
    #[test]
    fn plain_paths_send_what_the_general_ones_do(
        seed in any::<u64>(),
        bytes in 1u64..40_000,
        loss in 0.0f64..0.2,
        dup in 0.0f64..0.1,
        jitter_ms in 0u64..30,
        recovery in recovery_kind(),
        delayed_ack in any::<bool>(),
        handshake in any::<bool>(),
        restart in prop_oneof![Just(Restart::Nssr), Just(Restart::Ssr), Just(Restart::SsrLinux), Just(Restart::Cwv)],
    ) {
        let cfg = TcpConfig { recovery, delayed_ack, handshake, restart, ..TcpConfig::default() };
        prop_assert!(cfg.is_plain());
        let run = |general: bool| {
            let chan = Channel { delay: Duration::from_millis(5), jitter_ns: jitter_ms * 1_000_000, loss, dup };
            let mut p = Pair::new(cfg.clone(), chan.network(seed));
            if general {
                for end in &mut p.ends {
                    end.use_general_paths();
                }
            }
            p.ends[0].write(bytes);
            p.run_until_acked(HOUR);
            p.run_until(p.now + Duration::from_secs(10));
            p.ends[0].write(bytes);
            p.ends[0].close();
            p.run_until_acked(HOUR);
            (p.departures, p.delivered)
        };
        let (plain, general) = (run(false), run(true));
        prop_assert!(!plain.0[0].is_empty());
        prop_assert_eq!(plain, general);
    }
}
