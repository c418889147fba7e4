//! rampup's discrete-event network simulator. It builds a world from a scenario, drives
//! sans-IO TCP endpoints through simulated links and queues, and returns tables.

pub mod engine;
pub mod net;
pub mod output;
pub mod pcap;
pub mod rng;
pub mod scenario;
pub mod topology;
pub mod units;
pub mod world;

pub use output::{Column, RunOutput, Table};
pub use scenario::{Scenario, ScenarioError};

/// Parse and check a scenario without running it.
pub fn check_toml(scenario_toml: &str) -> Result<(), ScenarioError> {
    scenario::parse(scenario_toml).map(|_| ())
}

/// Run a scenario given as TOML text; `seed` overrides the scenario's own.
pub fn run_toml(scenario_toml: &str, seed: Option<u64>) -> Result<RunOutput, ScenarioError> {
    run_toml_with_progress(scenario_toml, seed, &mut |_| {})
}

/// As `run_toml`, calling `progress` with the fraction of simulated time done.
pub fn run_toml_with_progress(
    scenario_toml: &str,
    seed: Option<u64>,
    progress: &mut dyn FnMut(f64),
) -> Result<RunOutput, ScenarioError> {
    let sc = scenario::parse(scenario_toml)?;
    Ok(run(&sc, seed.unwrap_or(sc.seed), progress))
}

/// Run a checked scenario with `seed`.
pub fn run(sc: &Scenario, seed: u64, progress: &mut dyn FnMut(f64)) -> RunOutput {
    let mut out = world::World::new(sc, seed).run(progress);
    out.seed = seed;
    out
}

/// As `run`, with one event per packet and hop: no admission is computed ahead
/// (`net::Net::plan_cut_through`). Slower; the tests check that it gives the same tables.
pub fn run_hop_by_hop(sc: &Scenario, seed: u64) -> RunOutput {
    let mut out = world::World::new(sc, seed).hop_by_hop().run(&mut |_| {});
    out.seed = seed;
    out
}
