//! A run's memory budget: the engine's heap as `memory::Counting` counts it (installed here,
//! as the Python module installs it) stops a run that passes it, and changes nothing in one
//! that does not.

use rampup_sim::memory::Counting;
use rampup_sim::{collected, scenario, to_the_end, world::World, RunError};

#[global_allocator]
static HEAP: Counting = Counting;

/// Connections arrive every 10 us over a 1 Mb/s link: they pile up.
const PILING_UP: &str = r#"
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "1Mbps"
bottleneck_delay = "10ms"
[trace]
timeseries = false
queues = false
[[flow]]
from = "s0"
to = "r0"
app = { kind = "request-response", request = "1KB", response = "100KB", connections = 20000, mean_gap = "10us" }
"#;

#[test]
fn a_run_past_its_memory_budget_stops_with_one_line() {
    let sc = scenario::parse(PILING_UP).unwrap();
    let run = |budget| collected(|sink| World::new(&sc, 1).memory_budget(budget).run(&mut to_the_end, sink));
    let Err(e @ RunError::MemoryBudget { budget_bytes: 0x80_0000, .. }) = run(Some(8 << 20)) else { panic!("the run passed its budget") };
    let line = e.to_string();
    assert!(line.starts_with("memory budget: the engine held ") && line.contains("more than the budget of 8.00 MiB"), "{line}");
    assert!(!line.contains('\n'));
    let free = run(None).unwrap();
    assert_eq!(run(Some(8 << 30)).unwrap().digest(), free.digest());
}
