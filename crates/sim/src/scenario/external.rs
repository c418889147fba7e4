//! Parts a scenario names by `kind = "python"`: a startup or an avoidance controller written
//! outside the engine (`rampup_tcp::cc::external`). The scenario gives the part's `class`
//! and its constructor's arguments (every other key of the table); the embedding side that
//! can make such parts (the Python module) registers a `Maker`, which loads and checks the
//! class as the scenario is read and returns the factory each endpoint's part comes from.

use std::sync::OnceLock;

use rampup_tcp::cc::external::Factory;
use rampup_tcp::cc::{ExternalController, ExternalStartup, WindowBounds};

use super::part::PartSpec;
use super::{err, ScenarioError};

/// The kind that names a part written outside the engine.
pub const KIND: &str = "python";

/// One part to make, as the scenario gives it.
pub struct Request<'a> {
    /// Where the scenario names it: `flow[0].tcp.startup`.
    pub at: &'a str,
    /// The class: `module.path:Name`, or a name registered from Python.
    pub class: &'a str,
    /// The constructor's arguments: the part's table less `kind` and `class`, as TOML.
    pub args_toml: &'a str,
    pub bounds: WindowBounds,
}

/// What makes the parts written outside the engine; each `Err` is one line, the cause.
pub trait Maker: Send + Sync {
    fn startup(&self, r: &Request) -> Result<Factory<dyn ExternalStartup>, String>;
    fn controller(&self, r: &Request) -> Result<Factory<dyn ExternalController>, String>;
}

static MAKER: OnceLock<Box<dyn Maker>> = OnceLock::new();

/// Registers the maker of this process's external parts; false if one was registered before.
pub fn register(maker: Box<dyn Maker>) -> bool {
    MAKER.set(maker).is_ok()
}

/// The part `spec` names at `at`, made by `make` with the registered maker.
pub(super) fn read<T>(spec: &PartSpec, at: &str, bounds: WindowBounds, make: impl FnOnce(&dyn Maker, &Request) -> Result<T, String>) -> Result<T, ScenarioError> {
    let mut args = spec.settings.clone();
    let class = match args.remove("class") {
        Some(toml::Value::String(c)) if !c.trim().is_empty() => c,
        Some(_) => return err(format!("{at}.class"), "must be the class's name, like \"mypkg.mystart:MyStart\""),
        None => return err(format!("{at}.class"), "is missing: kind = \"python\" takes the class, like class = \"mypkg.mystart:MyStart\""),
    };
    let Some(maker) = MAKER.get() else {
        return err(at, "kind = \"python\" is a part written in Python: run the scenario with the Python front (`rampup run`, `rampup.run`)");
    };
    let args_toml = toml::to_string(&args).map_err(|e| ScenarioError(format!("{at}: {e}")))?;
    let request = Request { at, class: &class, args_toml: &args_toml, bounds };
    make(maker.as_ref(), &request).map_err(|why| ScenarioError(format!("{at} ({class}): {why}")))
}
