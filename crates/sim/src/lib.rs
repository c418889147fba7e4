//! rampup's discrete-event network simulator. It builds a world from a scenario, drives
//! sans-IO TCP endpoints through simulated links and queues, and returns tables.

pub mod affinity;
pub mod backlog;
pub mod engine;
pub mod ensemble;
pub mod estimate;
pub mod memory;
pub mod net;
pub mod output;
pub mod partition;
pub mod paths;
pub mod queue;
pub mod rng;
pub mod routes;
pub mod scenario;
pub use scenario::topology;
pub mod trace;
pub mod traffic;
pub mod units;
pub mod vrate;
pub mod world;

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use output::{Column, RunOutput, Table};
pub use scenario::{Scenario, ScenarioError};
pub use trace::{collected, Collect, TraceSink};

/// A run's observer: called now and then with the fraction of simulated time done (every
/// 2^16 events, a few milliseconds of wall time); `Break` stops the run (Ctrl-C).
pub type Progress<'a> = &'a mut dyn FnMut(f64) -> ControlFlow<()>;

/// Why a run gave no output; each prints as one line.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The scenario is invalid, or the run passed a budget (trace rows, open connections,
    /// memory): the line names the key.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// The observer (`Progress`) stopped the run.
    #[error("the run was stopped before its end")]
    Stopped,
}

/// An observer that lets the run go to its end.
pub fn to_the_end(_: f64) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

/// Parse and check a scenario without running it.
pub fn check_toml(scenario_toml: &str) -> Result<(), ScenarioError> {
    scenario::parse(scenario_toml).map(|_| ())
}

/// Parse and check a scenario: what in it is valid but likely a mistake
/// (`scenario::warnings`), and a run the estimate finds large (`estimate::warnings`), one
/// line each.
pub fn warnings_toml(scenario_toml: &str) -> Result<Vec<String>, ScenarioError> {
    scenario::parse(scenario_toml).map(|sc| [scenario::warnings(&sc), estimate::warnings(&sc)].concat())
}

/// Run a scenario given as TOML text; `seed` overrides the scenario's own.
pub fn run_toml(scenario_toml: &str, seed: Option<u64>) -> Result<RunOutput, ScenarioError> {
    let sc = scenario::parse(scenario_toml)?;
    match run(&sc, seed.unwrap_or(sc.seed), &mut to_the_end) {
        Ok(out) => Ok(out),
        Err(RunError::Scenario(e)) => Err(e),
        Err(RunError::Stopped) => unreachable!("to_the_end stops no run"),
    }
}

/// As `run_toml`, with `progress` following the run (and maybe stopping it), the traces
/// (`trace::TRACED_TABLES` and the captures) going to `sink`, not into the output, and the
/// run stopped with an error once the engine's heap passes `memory_budget` bytes
/// (`World::memory_budget`).
pub fn run_toml_streaming(
    scenario_toml: &str,
    seed: Option<u64>,
    memory_budget: Option<u64>,
    progress: Progress,
    sink: &mut dyn TraceSink,
) -> Result<RunOutput, RunError> {
    let sc = scenario::parse(scenario_toml)?;
    run_streaming(&sc, seed.unwrap_or(sc.seed), memory_budget, progress, sink)
}

/// Runs now in progress in this process.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

struct Running;

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Run a checked scenario with `seed`: on two threads when the network splits in two
/// (`partition::plan`) and the process may use two CPUs, else on one. The tables are the
/// same either way. A run that starts while another is in progress in this process (a
/// sweep's) keeps to one thread, as does every run with `RAMPUP_THREADS=1` and every run
/// with a part written outside the engine (`Scenario::has_external_parts`: such a part
/// calls back into its maker, a Python object under the GIL, from the run's thread).
pub fn run(sc: &Scenario, seed: u64, progress: Progress) -> Result<RunOutput, RunError> {
    collected(|sink| run_streaming(sc, seed, None, progress, sink))
}

/// As `run`, with the traces going to `sink` and the run held to `memory_budget` bytes of
/// the engine's heap (`World::memory_budget`).
pub fn run_streaming(sc: &Scenario, seed: u64, memory_budget: Option<u64>, progress: Progress, sink: &mut dyn TraceSink) -> Result<RunOutput, RunError> {
    let alone = RUNNING.fetch_add(1, Ordering::Relaxed) == 0;
    let _running = Running;
    let split = if alone && threads() > 1 && cores() > 1 && !sc.has_external_parts() { partition::plan(sc) } else { None };
    match split {
        Some(split) => world::World::run_split(sc, seed, &split, memory_budget, progress, sink),
        None => world::World::new(sc, seed).memory_budget(memory_budget).run(progress, sink),
    }
}

/// As `run`, on the calling thread only.
pub fn run_on_one_thread(sc: &Scenario, seed: u64, progress: Progress) -> Result<RunOutput, RunError> {
    collected(|sink| world::World::new(sc, seed).run(progress, sink))
}

/// CPUs this process may use (its affinity mask and CPU quota): on one, the halves of a
/// split run would take turns.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Threads a run may use: `RAMPUP_THREADS`, else 2.
fn threads() -> usize {
    std::env::var("RAMPUP_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(2)
}

/// As `run`, with one event per packet and hop: no admission is computed ahead
/// (`net::Net::plan_cut_through`). Slower; the tests check that it gives the same tables.
pub fn run_hop_by_hop(sc: &Scenario, seed: u64) -> RunOutput {
    collected(|sink| world::World::new(sc, seed).hop_by_hop().run(&mut to_the_end, sink)).expect("a test run without a trace budget ends")
}

#[cfg(test)]
mod tests {
    use super::{RunError, ScenarioError};

    #[test]
    fn a_run_error_is_an_error_that_prints_one_line() {
        let e: Box<dyn std::error::Error> = Box::new(RunError::from(ScenarioError("trace.max_rows: the queues trace passed 5 rows".into())));
        assert_eq!(e.to_string(), "trace.max_rows: the queues trace passed 5 rows", "a scenario's error prints as itself");
        assert!(!RunError::Stopped.to_string().contains('\n'));
    }
}
