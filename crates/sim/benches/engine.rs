//! The event queue under a steady load, and a whole small run.

use criterion::{criterion_group, criterion_main, Criterion};
use rampup_sim::engine::{Class, EventQueue, First, Order};
use rampup_tcp::Time;

/// The port of the earliest event: only arrivals are queued here.
fn port(first: First<'_, ()>) -> u32 {
    match first {
        First::Arrival(order) => order.index(),
        First::Event(_) => unreachable!("only arrivals are queued"),
    }
}

fn event_queue(c: &mut Criterion) {
    for pending in [8u64, 1024] {
        let queue = || {
            let mut q = EventQueue::<()>::default();
            for i in 0..pending {
                q.push_arrival(Time(i * 1000), Order::new(Class::Net, i as u32, i));
            }
            q
        };
        // Each arrival handled schedules one a little later, as a packet hop does.
        let later = |at: Time, e: u32| at.as_nanos() + 1000 * pending + (e as u64 % 7);
        c.bench_function(&format!("event_queue/pop_push/{pending}_pending"), |b| {
            let mut q = queue();
            b.iter(|| {
                let (at, first) = q.first_until(Time::MAX).expect("never empty");
                let e = port(first);
                q.pop_first_arrival();
                let t = later(at, e);
                q.push_arrival(Time(t), Order::new(Class::Net, e, t));
            })
        });
        // The same, as a port's arrival does it: the next arrival takes the first's place.
        c.bench_function(&format!("event_queue/replace_first/{pending}_pending"), |b| {
            let mut q = queue();
            b.iter(|| {
                let (at, first) = q.first_until(Time::MAX).expect("never empty");
                let e = port(first);
                let t = later(at, e);
                q.replace_first_arrival(Time(t), Order::new(Class::Net, e, t));
            })
        });
    }
}

const ONE_FLOW: &str = r#"
duration = "2s"
[topology]
kind = "dumbbell"
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "100Mbps"
bottleneck_delay = "10ms"
bottleneck_queue = { packets = 1000 }
[[flow]]
from = "s0"
to = "r0"
app = { kind = "bulk" }
tcp = { handshake = false }
[trace]
timeseries = false
queues = false
"#;

fn whole_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("run");
    g.sample_size(10);
    g.bench_function("dumbbell_1_flow_2s", |b| b.iter(|| rampup_sim::run_toml(ONE_FLOW, None).unwrap()));
    g.finish();
}

criterion_group!(benches, event_queue, whole_run);
criterion_main!(benches);
