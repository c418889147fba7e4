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

use rampup_tcp::Time;
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
    /// The scenario is invalid: the line names the key.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// The engine's heap passed the run's memory budget, seen at `at` of simulated time.
    #[error(
        "memory budget: the engine held {} by {:.3}s of simulated time, more than the budget of {}; give a larger budget, or a smaller scenario (`rampup check` estimates its memory)",
        memory::human_bytes(*held_bytes), at.as_secs_f64(), memory::human_bytes(*budget_bytes)
    )]
    MemoryBudget { held_bytes: u64, budget_bytes: u64, at: Time },
    /// Connections arrived faster than they finished, past `max_open` open at once.
    #[error(
        "flow: more than {max_open} connections were open at once by {:.3}s of simulated time (they arrive faster than they finish); open fewer, or give a longer mean_gap",
        at.as_secs_f64()
    )]
    TooManyOpen { max_open: usize, at: Time },
    /// A traced table passed `[trace] max_rows`.
    #[error(
        "trace.max_rows: the {table} trace passed {max_rows} rows by {:.3}s of simulated time; raise trace.max_rows or turn the {table} trace off (trace.{table})",
        at.as_secs_f64()
    )]
    TraceRows { table: &'static str, max_rows: u64, at: Time },
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
pub fn run_toml(scenario_toml: &str, seed: Option<u64>) -> Result<RunOutput, RunError> {
    let sc = scenario::parse(scenario_toml)?;
    run(&sc, seed.unwrap_or(sc.seed), &mut to_the_end)
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
    use super::{RunError, ScenarioError, Time};

    #[test]
    fn a_run_error_is_an_error_that_prints_one_line() {
        let e: Box<dyn std::error::Error> = Box::new(RunError::from(ScenarioError::key("flow[0].tcp.mss", "must be at least 1 bytes (got 0)")));
        assert_eq!(e.to_string(), "flow[0].tcp.mss: must be at least 1 bytes (got 0)", "a scenario's error prints as itself");
        let at = Time(1_500_000_000);
        let budgets = [
            RunError::MemoryBudget { held_bytes: 3 << 30, budget_bytes: 1 << 30, at },
            RunError::TooManyOpen { max_open: 20, at },
            RunError::TraceRows { table: "queues", max_rows: 5, at },
        ];
        let lines: Vec<String> = budgets.iter().map(|e| e.to_string()).collect();
        assert!(lines[0].starts_with("memory budget: the engine held 3.00 GiB by 1.500s of simulated time, more than the budget of 1.00 GiB;"), "{}", lines[0]);
        assert!(lines[1].starts_with("flow: more than 20 connections were open at once by 1.500s"), "{}", lines[1]);
        assert!(lines[2].starts_with("trace.max_rows: the queues trace passed 5 rows by 1.500s"), "{}", lines[2]);
        for line in lines.iter().chain([&RunError::Stopped.to_string()]) {
            assert!(!line.contains('\n'), "{line}");
        }
    }

    #[test]
    fn a_syntax_error_names_where_and_a_key_error_its_key() {
        let syntax = ScenarioError::Syntax { format: "TOML", at: Some((3, 7)), why: "expected `=`".into() };
        assert_eq!(syntax.to_string(), "TOML syntax, line 3 column 7: expected `=`");
        assert_eq!(syntax.key_path(), None);
        let json = ScenarioError::Syntax { format: "JSON", at: None, why: "trailing characters".into() };
        assert_eq!(json.to_string(), "JSON syntax: trailing characters");
        assert_eq!(ScenarioError::key("duration", "missing").key_path(), Some("duration"));
    }
}
