//! Two endpoints over a tiny lossy network (after quinn-proto's `tests/util.rs::Pair`):
//! `step()` jumps virtual time to the next wakeup. The property test at the bottom checks
//! that every byte arrives exactly once and in order under loss, reordering and duplication.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rampup_tcp::{Endpoint, PreemptiveConfig, RecoveryKind, Role, Segment, SeqRange, TcpConfig, Time};
use rampup_tcp::time::Duration;

/// A channel that delays each segment by a base delay plus random jitter (so segments can
/// overtake each other), and loses or duplicates them with given probabilities.
struct Channel {
    delay: Duration,
    jitter_ns: u64,
    loss: f64,
    dup: f64,
}

struct Pair {
    ends: [Endpoint; 2],
    /// (arrival time, insertion number) -> (destination end, segment)
    in_flight: BTreeMap<(Time, u64), (usize, Segment)>,
    seq: u64,
    now: Time,
    chan: Channel,
    rng: u64,
    /// Payload ranges that actually reached the receiver, and what it delivered.
    arrived: Vec<SeqRange>,
    delivered: Vec<SeqRange>,
}

impl Pair {
    fn new(cfg: TcpConfig, chan: Channel, seed: u64) -> Self {
        Pair {
            ends: [Endpoint::new(cfg.clone(), Role::Active), Endpoint::new(cfg, Role::Passive)],
            in_flight: BTreeMap::new(),
            seq: 0,
            now: Time::ZERO,
            chan,
            rng: seed | 1,
            arrived: Vec::new(),
            delivered: Vec::new(),
        }
    }

    fn uniform(&mut self) -> f64 {
        // xorshift64*: a test needs no better generator.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545F4914F6CDD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn flush(&mut self) {
        for from in 0..2 {
            while let Some(seg) = self.ends[from].poll_transmit(self.now) {
                let copies = if self.uniform() < self.chan.loss {
                    0
                } else if self.uniform() < self.chan.dup {
                    2
                } else {
                    1
                };
                for _ in 0..copies {
                    let jitter = (self.uniform() * self.chan.jitter_ns as f64) as u64;
                    let at = self.now + self.chan.delay + Duration(jitter);
                    self.seq += 1;
                    self.in_flight.insert((at, self.seq), (1 - from, seg));
                }
            }
        }
    }

    /// Advance to the next event; false when nothing is left to do.
    fn step(&mut self) -> bool {
        self.flush();
        let next_seg = self.in_flight.keys().next().map(|k| k.0);
        let next_timer = self.ends.iter().filter_map(|e| e.poll_timeout()).min();
        let Some(t) = [next_seg, next_timer].into_iter().flatten().min() else {
            return false;
        };
        self.now = t;
        if next_seg == Some(t) {
            let (_, (to, seg)) = self.in_flight.pop_first().unwrap();
            if to == 1 && seg.len > 0 {
                self.arrived.push(SeqRange { start: seg.seq, end: seg.seq + seg.len as u64 });
            }
            if let Some(r) = self.ends[to].handle_segment(t, &seg) {
                if to == 1 {
                    self.delivered.push(r);
                }
            }
        } else {
            for e in &mut self.ends {
                e.handle_timeout(t);
            }
        }
        true
    }

    fn run_until_acked(&mut self, limit: Time) {
        while self.now < limit && !self.ends[0].all_acked() && self.step() {}
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

fn transfer(cfg: TcpConfig, chan: Channel, bytes: u64, seed: u64) -> Pair {
    let mut p = Pair::new(cfg, chan, seed);
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

fn recovery_kind() -> impl Strategy<Value = RecoveryKind> {
    prop_oneof![Just(RecoveryKind::Reno), Just(RecoveryKind::NewReno), Just(RecoveryKind::Sack)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

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
        prop_assert!(p.ends[0].all_acked(), "transfer did not finish");
        prop_assert_eq!(p.ends[1].bytes_received(), bytes);
        // Delivered ranges are contiguous from the first data byte, with no overlap.
        let mut next = 1;
        for r in &p.delivered {
            prop_assert_eq!(r.start, next);
            prop_assert!(covered(&p.arrived, *r), "delivered bytes {:?} that never arrived", r);
            next = r.end;
        }
        prop_assert_eq!(next, 1 + bytes);
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
        prop_assert!(p.ends[0].all_acked(), "transfer did not finish");
        prop_assert_eq!(p.ends[1].bytes_received(), bytes);
        let mut next = 1;
        for r in &p.delivered {
            prop_assert_eq!(r.start, next);
            next = r.end;
        }
        prop_assert_eq!(next, 1 + bytes);
        let (st, pre) = (p.ends[0].stats(), p.ends[0].preemptive_stats());
        prop_assert!(pre.spurious <= pre.retransmits && pre.retransmits <= st.retransmits, "{:?} {:?}", pre, st);
    }
}
