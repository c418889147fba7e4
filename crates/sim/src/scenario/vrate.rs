//! The `[vrate]` table and the flows' `group` key: which connections share a vrate layer
//! (paper 004 §4, `crate::vrate`), and its parameters; and the flows' `share` key, which
//! connections share one window (RFC 9040 ensemble sharing, `crate::ensemble`).

use rampup_tcp::Duration;
use serde::Deserialize;

use super::{err, Flow, ScenarioError};
use crate::units::TimeValue;
use crate::vrate::{Combine, VrateSpec};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct VrateFile {
    period: Option<TimeValue>,
    combine: Option<Combine>,
    gain: Option<f64>,
}

/// The checked `[vrate]` table (its defaults when left out).
pub(super) fn spec(file: Option<VrateFile>) -> Result<VrateSpec, ScenarioError> {
    let d = VrateSpec::default();
    let Some(f) = file else { return Ok(d) };
    let period = f.period.map_or(d.period, |t| t.0);
    if period == Duration::ZERO {
        return err("vrate.period", "must be greater than 0s, like \"1ms\"");
    }
    let gain = f.gain.unwrap_or(d.gain);
    if !(gain.is_finite() && gain > 0.0) {
        return err("vrate.gain", format!("must be a number greater than 0 (got {gain})"));
    }
    Ok(VrateSpec { period, combine: f.combine.unwrap_or(d.combine), gain })
}

/// Flow `i`'s group under `key` (`group`: a vrate group; `share`: an ensemble): its index
/// among the scenario's names for that key (`names`, first use first). Both hold a flow's
/// one connection; a flow that opens connections as it goes is refused.
pub(super) fn group(i: usize, key: &str, name: Option<String>, flow: &Flow, names: &mut Vec<String>) -> Result<Option<u32>, ScenarioError> {
    let Some(name) = name else { return Ok(None) };
    if name.is_empty() {
        return err(format!("flow[{i}].{key}"), "must be a name, like \"app\"");
    }
    if !flow.app.one_connection() {
        return err(format!("flow[{i}].{key}"), "holds a flow's one connection: bulk, writes or rate-limited flows, not request-response or web");
    }
    let k = names.iter().position(|n| *n == name).unwrap_or_else(|| {
        names.push(name);
        names.len() - 1
    });
    Ok(Some(k as u32))
}
