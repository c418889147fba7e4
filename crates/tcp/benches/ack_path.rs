//! The TCP ACK path: one ACK in (`handle_segment`), the segments it releases out
//! (`poll_transmit`), for an established sender in slow start (the default ssthresh is
//! unlimited: each new ACK releases two segments). The ACKs carry no SACK blocks and none
//! is a duplicate, so the SACK variant measures the same path plus SACK's bookkeeping of
//! new ACKs.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rampup_tcp::segment::Flags;
use rampup_tcp::{Endpoint, RecoveryKind, Role, Segment, TcpConfig, Time};

fn established(recovery: RecoveryKind) -> Endpoint {
    let cfg = TcpConfig { handshake: false, recovery, initial_window_segments: 10, ..TcpConfig::default() };
    let mut ep = Endpoint::new(cfg, Role::Active);
    ep.write_unlimited();
    while ep.poll_transmit(Time::ZERO).is_some() {}
    ep
}

fn ack(n: u64) -> Segment {
    Segment { ack: 1 + n * 1000, flags: Flags { ack: true, ..Flags::default() }, window: 1 << 30, ..Segment::default() }
}

fn ack_path(c: &mut Criterion) {
    for (name, recovery) in [("newreno", RecoveryKind::NewReno), ("sack", RecoveryKind::Sack)] {
        c.bench_function(&format!("ack_path/{name}/1000_acks"), |b| {
            b.iter_batched(
                || established(recovery),
                |mut ep| {
                    for n in 1..=1000u64 {
                        let now = Time(n * 100_000);
                        ep.handle_segment(now, &ack(n));
                        while ep.poll_transmit(now).is_some() {}
                    }
                    ep
                },
                BatchSize::SmallInput,
            )
        });
    }
}

criterion_group!(benches, ack_path);
criterion_main!(benches);
