//! Parts a scenario names by `kind = "python"`: a startup, an avoidance controller or a
//! restart policy written outside the engine (`rampup_tcp::cc::external`). The scenario gives the part's `class`
//! and its constructor's arguments (every other key of the table); the embedding side that
//! can make such parts (the Python module) registers a `Maker`, which loads and checks the
//! class as the scenario is read and returns the factory each endpoint's part comes from.

use std::sync::OnceLock;

use rampup_tcp::cc::external::Factory;
use rampup_tcp::cc::{ExternalController, ExternalRestart, ExternalStartup, WindowBounds};

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
    fn restart(&self, r: &Request) -> Result<Factory<dyn ExternalRestart>, String>;
}

static MAKER: OnceLock<Box<dyn Maker>> = OnceLock::new();

/// Registers the maker of this process's external parts; false if one was registered before.
pub fn register(maker: Box<dyn Maker>) -> bool {
    MAKER.set(maker).is_ok()
}

/// The part `spec` names at `at`, made by `make` with the registered maker.
pub(super) fn read<T>(
    spec: &PartSpec,
    at: &str,
    bounds: WindowBounds,
    make: impl FnOnce(&dyn Maker, &Request) -> Result<T, String>,
) -> Result<T, ScenarioError> {
    let mut args = spec.settings.clone();
    let class = match args.remove("class") {
        Some(toml::Value::String(c)) if !c.trim().is_empty() => c,
        Some(_) => return err(format!("{at}.class"), "must be the class's name, like \"mypkg.mystart:MyStart\""),
        None => return err(format!("{at}.class"), "is missing: kind = \"python\" takes the class, like class = \"mypkg.mystart:MyStart\""),
    };
    let Some(maker) = MAKER.get() else {
        return err(at, "kind = \"python\" is a part written in Python: run the scenario with the Python front (`rampup run`, `rampup.run`)");
    };
    let args_toml = toml::to_string(&args).map_err(|e| ScenarioError::key(at, e.to_string()))?;
    let request = Request { at, class: &class, args_toml: &args_toml, bounds };
    make(maker.as_ref(), &request).map_err(|why| ScenarioError::key(format!("{at} ({class})"), why))
}

#[cfg(test)]
mod tests {
    use rampup_tcp::cc::{AckCtx, CongestionControl, CongestionEvent, NewReno, Window};

    use super::*;

    const DEMO: &str = include_str!("../../../../scenarios/demo.toml");

    /// The engine's NewReno behind the external variant, as an embedding side would wrap a
    /// part of its own.
    #[derive(Clone, Debug)]
    struct Wrapped(NewReno);

    impl CongestionControl for Wrapped {
        fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
            self.0.on_ack(w, ctx)
        }
        fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) -> u64 {
            self.0.on_congestion_event(w, ev)
        }
    }

    impl ExternalController for Wrapped {
        fn boxed_clone(&self) -> Box<dyn ExternalController> {
            Box::new(self.clone())
        }
    }

    struct Wrapping;

    impl Maker for Wrapping {
        fn startup(&self, r: &Request) -> Result<Factory<dyn ExternalStartup>, String> {
            Err(format!("no startup {}", r.class))
        }
        fn controller(&self, r: &Request) -> Result<Factory<dyn ExternalController>, String> {
            match r.class {
                "newreno" => Ok(Factory::new("wrapped".into(), r.class.into(), || Box::new(Wrapped(NewReno::new(false))) as Box<dyn ExternalController>)),
                other => Err(format!("no class {other}")),
            }
        }
        fn restart(&self, r: &Request) -> Result<Factory<dyn ExternalRestart>, String> {
            Err(format!("no restart {}", r.class))
        }
    }

    fn with_cc(cc: &str) -> String {
        DEMO.replace("cc = \"newreno\"", cc)
    }

    /// One test, as the maker is registered once per process: before it, a scenario that
    /// names a Python part is refused in one line; after it, the part runs through the
    /// external variant with the built-in part's tables, on one thread.
    #[test]
    fn an_external_part_needs_a_maker_and_runs_as_the_part_it_wraps() {
        let python = with_cc("cc = { kind = \"python\", class = \"newreno\" }");
        let e = crate::scenario::parse(&python).unwrap_err().to_string();
        assert!(e.starts_with("flow[0].tcp.cc: kind = \"python\" is a part written in Python: run the scenario with the Python front"), "{e}");
        let e = crate::scenario::parse(&with_cc("cc = { kind = \"python\" }")).unwrap_err().to_string();
        assert!(e.starts_with("flow[0].tcp.cc.class: is missing"), "{e}");

        assert!(register(Box::new(Wrapping)));
        let e = crate::scenario::parse(&with_cc("cc = { kind = \"python\", class = \"cubic\" }")).unwrap_err().to_string();
        assert_eq!(e, "flow[0].tcp.cc (cubic): no class cubic");
        let sc = crate::scenario::parse(&python).unwrap();
        assert!(sc.has_external_parts() && !crate::scenario::parse(DEMO).unwrap().has_external_parts());
        let (ours, theirs) = (crate::run_toml(DEMO, None).unwrap(), crate::run_toml(&python, None).unwrap());
        assert_eq!(theirs.table("flows").strs("cc"), ["wrapped"]);
        let tables = |o: &crate::RunOutput| o.tables.iter().filter(|(n, _)| n != "flows").map(|(n, t)| format!("{n} {t:?}")).collect::<Vec<_>>();
        assert_eq!(tables(&ours), tables(&theirs));
    }
}
