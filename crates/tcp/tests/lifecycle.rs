//! Whole connections: data both ways at once, a close from either end or both, and ends
//! whose SACK offers differ. Two endpoints over the lossy `Pair` network.

mod common;

use common::{check_delivered, count, delivered_bytes, events, recovery_kind, Channel, Pair, HOUR};
use proptest::prelude::*;
use rampup_tcp::time::Duration;
use rampup_tcp::{Event, RecoveryKind, SackPermitted, State, TcpConfig, Time};

fn sack_permitted() -> impl Strategy<Value = SackPermitted> {
    prop_oneof![Just(SackPermitted::AsRecovery), Just(SackPermitted::Always), Just(SackPermitted::Never)]
}

fn end_config() -> impl Strategy<Value = TcpConfig> {
    (recovery_kind(), sack_permitted(), any::<bool>(), prop_oneof![Just(536u32), Just(1000), Just(1460)]).prop_map(
        |(recovery, sack_permitted, delayed_ack, mss_bytes)| TcpConfig {
            recovery,
            sack_permitted,
            delayed_ack,
            mss_bytes,
            time_wait: Duration::from_secs(1),
            ..TcpConfig::default()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Both ends write and close, the first closer and the delays drawn at random (zero:
    /// the FIN rides on the data; equal: a simultaneous close), over a network that loses,
    /// duplicates and reorders. Each end receives every byte of the other exactly once and
    /// in order, learns of the peer's FIN once, and both reach `Closed` once (by a reset
    /// when the end that closed first left TIME-WAIT before its last ACK got through).
    #[test]
    fn data_both_ways_arrives_once_in_order_and_both_ends_close(
        seed in any::<u64>(),
        bytes in [0u64..40_000, 0u64..40_000],
        configs in [end_config(), end_config()],
        loss in 0.0f64..0.15,
        dup in 0.0f64..0.1,
        jitter_ms in 0u64..30,
        first_closer in 0usize..2,
        close_after_ms in [0u64..400, 0u64..400],
    ) {
        let [active, passive] = configs;
        let chan = Channel { delay: Duration::from_millis(5), jitter_ns: jitter_ms * 1_000_000, loss, dup };
        let mut p = Pair::with_configs(active, passive, chan.network(seed));
        for (end, &b) in p.ends.iter_mut().zip(&bytes) {
            end.enable_events();
            end.write(b);
        }
        let first_at = Time::ZERO + Duration::from_millis(close_after_ms[0]);
        p.run_until(first_at);
        p.ends[first_closer].close();
        p.run_until(first_at + Duration::from_millis(close_after_ms[1]));
        p.ends[1 - first_closer].close();
        p.run_until_closed(HOUR);
        for (to, from) in [(0, 1), (1, 0)] {
            let end = &mut p.ends[to];
            prop_assert_eq!(end.state(), State::Closed, "end {}", to);
            let evs = events(end);
            prop_assert_eq!(count(&evs, |e| matches!(e, Event::Closed { .. })), 1, "end {}", to);
            prop_assert!(matches!(evs.last(), Some(Event::Closed { .. })), "end {}", to);
            prop_assert_eq!(count(&evs, |e| matches!(e, Event::PeerFinished)), 1, "end {}", to);
            prop_assert_eq!(delivered_bytes(&evs), bytes[from], "end {}", to);
            check_delivered(&p, to, bytes[from])?;
        }
    }
}

/// A lossy bulk transfer from end 0 between ends configured differently; returns the pair
/// after everything was acknowledged.
fn transfer(sender: TcpConfig, receiver: TcpConfig) -> Pair {
    let chan = Channel { delay: Duration::from_millis(10), jitter_ns: 0, loss: 0.05, dup: 0.0 };
    let mut p = Pair::with_configs(sender, receiver, chan.network(7));
    p.ends[0].write(300_000);
    p.ends[0].close();
    p.run_until_acked(HOUR);
    p
}

/// What end 0 sent, when: (time, seq, len, FIN).
fn data_sent(p: &Pair) -> Vec<(Time, u64, u32, bool)> {
    p.departures[0].iter().map(|(t, s)| (*t, s.seq, s.len, s.flags.fin)).collect()
}

fn sack_blocks_sent_by(p: &Pair, end: usize) -> usize {
    p.departures[end].iter().filter(|(_, s)| !s.sack.is_empty()).count()
}

#[test]
fn a_sack_receiver_with_a_newreno_sender_sends_no_blocks_and_the_transfer_completes() {
    let sender = TcpConfig { recovery: RecoveryKind::NewReno, ..TcpConfig::default() };
    let receiver = TcpConfig { recovery: RecoveryKind::Sack, sack_permitted: SackPermitted::Always, ..TcpConfig::default() };
    let p = transfer(sender, receiver);
    assert!(p.ends[0].all_acked());
    assert_eq!(p.ends[1].bytes_received(), 300_000);
    assert!(p.ends[0].stats().fast_retransmits > 0, "the test covers recovery");
    assert!(!p.ends[1].sack_ok(), "the NewReno end did not offer SACK");
    assert_eq!(sack_blocks_sent_by(&p, 1), 0, "RFC 2018 §2: no SACK option unless permitted");
}

#[test]
fn a_newreno_sender_that_offers_sack_gets_blocks_it_ignores() {
    // Linux's pairing: both offer SACK; the NewReno sender's recovery does not read them.
    let sender = TcpConfig { recovery: RecoveryKind::NewReno, sack_permitted: SackPermitted::Always, ..TcpConfig::default() };
    let receiver = TcpConfig { recovery: RecoveryKind::Sack, ..TcpConfig::default() };
    let with_blocks = transfer(sender, receiver);
    assert!(sack_blocks_sent_by(&with_blocks, 1) > 0);
    let without = transfer(TcpConfig::default(), TcpConfig::default());
    assert!(data_sent(&with_blocks) == data_sent(&without), "the sender's segments do not change");
}

#[test]
fn a_sack_sender_whose_receiver_did_not_offer_sack_recovers_as_newreno() {
    let sender = TcpConfig { recovery: RecoveryKind::Sack, ..TcpConfig::default() };
    let receiver = TcpConfig { recovery: RecoveryKind::NewReno, ..TcpConfig::default() };
    let p = transfer(sender, receiver);
    assert!(p.ends[0].all_acked());
    assert_eq!(p.ends[1].bytes_received(), 300_000);
    assert!(!p.ends[0].sack_ok());
    assert!(p.ends[0].stats().fast_retransmits > 0);
    // Its segments are those of a NewReno sender given the same losses.
    let newreno = transfer(TcpConfig::default(), TcpConfig::default());
    assert!(data_sent(&p) == data_sent(&newreno));
}
