//! `rampup._engine`: the PyO3 wrapper of `rampup-sim` (contract: docs/engine-api.md).
//!
//! The module is deliberately thin: it converts the scenario text in and the
//! engine's tables out, and nothing else. Result folders, DataFrames, the CLI and
//! plots live in the Python package (python/rampup).

use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use rampup_sim::{Column, RunError, RunOutput, Table, TraceSink};

mod python_parts;
use python_parts::{with_failures, Failures};

create_exception!(rampup._engine, ScenarioError, PyValueError, "The scenario is invalid. `str(e)` is one line: `key.path: what is wrong (allowed: ...)`.");
create_exception!(
    rampup._engine,
    PartError,
    ScenarioError,
    "A part written in Python returned a decision the engine refuses (a window below one segment, above the receive window, not a number of bytes). `str(e)` is one line: the part, the hook and why."
);
create_exception!(
    rampup._engine,
    PartException,
    PyRuntimeError,
    "A part written in Python raised an exception. `str(e)` is one line: the part, the hook and the exception; `e.__cause__` is the exception, with its traceback."
);

/// The engine's heap, counted for a run's memory budget (`run(..., memory_budget=...)`).
#[global_allocator]
static HEAP: rampup_sim::memory::Counting = rampup_sim::memory::Counting;

fn scenario_error(e: rampup_sim::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// The error of a read or run whose Python parts failed, if they did: `PartException` with the
/// user's exception as its cause, or `PartError`; it takes the place of the engine's own error
/// (a scenario refused because a class failed to load, a run stopped at the failure).
fn part_failure(py: Python<'_>, failures: &Failures) -> Option<PyErr> {
    let f = failures.take()?;
    Some(match f.raised {
        Some(cause) => {
            let e = PartException::new_err(f.line);
            e.set_cause(py, Some(cause));
            e
        }
        None => PartError::new_err(f.line),
    })
}

/// `f` run on this thread without the GIL (`detached`), with the failures of the Python
/// parts it makes raised in place of its own result.
fn with_parts<T: Send>(py: Python<'_>, f: impl FnOnce(&Failures) -> T + Send) -> PyResult<T> {
    let (out, failures) = detached(py, || with_failures(f))?;
    match part_failure(py, &failures) {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// A run to its end unless a Python part fails first.
fn run_parts(text: &str, seed: Option<u64>, failures: &Failures) -> Result<RunOutput, RunError> {
    let mut until_failure = |_: f64| if failures.failed() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) };
    rampup_sim::collected(|sink| rampup_sim::run_toml_streaming(text, seed, None, &mut until_failure, sink))
}

/// A run's error: the scenario's, or a budget the run passed, as the one line of a
/// ScenarioError (the line names the key or the budget).
fn run_error(e: RunError) -> PyErr {
    match e {
        RunError::Scenario(e) => scenario_error(e),
        RunError::Stopped => PyRuntimeError::new_err("engine bug: a run stopped without a signal"),
        e => ScenarioError::new_err(e.to_string()),
    }
}

/// Runs `f` without the GIL and turns an engine panic into a `RuntimeError`.
///
/// An engine panic is a bug (user input must never panic, STYLE.md rule 9), but
/// letting it cross into Python as `PanicException` (a `BaseException`) would
/// escape every `except Exception` in callers, so it is reported as an ordinary
/// error that names the bug instead.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| panic::catch_unwind(AssertUnwindSafe(f))).map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        PyRuntimeError::new_err(format!("engine bug (panic): {msg}"))
    })
}

/// Progress() -> a progress cell to pass to `run(..., progress=p)`.
///
/// `p.fraction` is the fraction of simulated time done (0.0 to 1.0), updated by the
/// engine as it runs; read it from another thread for a progress bar.
#[pyclass(frozen, module = "rampup._engine")]
struct Progress {
    fraction_bits: Arc<AtomicU64>, // an f64's bits: the engine thread writes, Python reads
}

#[pymethods]
impl Progress {
    #[new]
    fn new() -> Self {
        Progress { fraction_bits: Arc::new(AtomicU64::new(0f64.to_bits())) }
    }

    #[getter]
    fn fraction(&self) -> f64 {
        f64::from_bits(self.fraction_bits.load(Ordering::Relaxed))
    }

    fn __repr__(&self) -> String {
        format!("Progress(fraction={})", self.fraction())
    }
}

fn column_to_py<'py>(py: Python<'py>, column: Column) -> PyResult<Bound<'py, PyAny>> {
    Ok(match column {
        Column::U64(v) => v.into_pyarray(py).into_any(),
        Column::I64(v) => v.into_pyarray(py).into_any(),
        Column::F64(v) => v.into_pyarray(py).into_any(),
        Column::Str(v) => PyList::new(py, v)?.into_any(),
    })
}

fn table_to_py<'py>(py: Python<'py>, table: Table) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py); // insertion-ordered: keeps the engine's column order
    for (name, column) in table.columns {
        dict.set_item(name, column_to_py(py, column)?)?;
    }
    Ok(dict)
}

fn output_to_py<'py>(py: Python<'py>, out: RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let tables = PyDict::new(py);
    for (name, table) in out.tables {
        tables.set_item(name, table_to_py(py, table)?)?;
    }
    let pcaps = PyDict::new(py);
    for (link, bytes) in out.pcaps {
        pcaps.set_item(link, PyBytes::new(py, &bytes))?;
    }
    let result = PyDict::new(py);
    result.set_item("tables", tables)?;
    result.set_item("pcaps", pcaps)?;
    result.set_item("events", out.events)?;
    result.set_item("packet_hops", out.packet_hops)?;
    result.set_item("seed", out.seed)?;
    result.set_item("sim_end_ns", out.sim_end_ns)?;
    Ok(result)
}

/// Hands the traces to a Python object's `rows(table, columns)` and `pcap(link, data)`.
/// The first error it raises stops the handing over and is raised by `run`.
struct PySink<'a> {
    target: &'a Py<PyAny>,
    error: Option<PyErr>,
}

impl PySink<'_> {
    fn call(&mut self, f: impl FnOnce(Python<'_>) -> PyResult<()>) {
        if self.error.is_none() {
            self.error = Python::attach(f).err();
        }
    }
}

impl TraceSink for PySink<'_> {
    fn rows(&mut self, table: &str, chunk: Table) {
        let target = self.target;
        self.call(|py| target.call_method1(py, "rows", (table, table_to_py(py, chunk)?)).map(drop));
    }
    fn pcap(&mut self, link: &str, bytes: &[u8]) {
        let target = self.target;
        self.call(|py| target.call_method1(py, "pcap", (link, PyBytes::new(py, bytes))).map(drop));
    }
}

/// How often a run looks for a signal (Ctrl-C) in wall time: often enough that
/// `KeyboardInterrupt` comes within a fraction of a second, rarely enough that taking the
/// GIL costs nothing measurable.
const SIGNAL_CHECK_EVERY: Duration = Duration::from_millis(50);

/// run(scenario_toml, seed=None, progress=None, sink=None, memory_budget=None) -> dict
///
/// Simulates the scenario (TOML text) and returns a dict with keys `tables`
/// (name -> {column -> numpy array, or list of str}), `pcaps` (link -> bytes),
/// `events`, `seed` (the seed used) and `sim_end_ns`. `seed` overrides the
/// scenario's own seed. The GIL is released while simulating; pass a `Progress`
/// to follow the run from another thread. With `sink`, the traced tables (timeseries,
/// queues) and the captures are not in the dict: they go to `sink.rows(table, columns)`
/// in chunks, in order, and `sink.pcap(link, data)` in pieces, as the run ends, so that
/// a long run's traces can be written to disk without being held in memory. Run on
/// Python's main thread, the run looks for signals every 50 ms and raises what their
/// handlers raise (Ctrl-C: `KeyboardInterrupt`), returning nothing. With `memory_budget`
/// (bytes), the run stops with a ScenarioError once the engine's heap in this process
/// (`heap_bytes()`) is above it.
///
/// Raises ScenarioError if the scenario is invalid.
#[pyfunction]
#[pyo3(signature = (scenario_toml, seed=None, progress=None, sink=None, memory_budget=None))]
fn run<'py>(
    py: Python<'py>,
    scenario_toml: &str,
    seed: Option<u64>,
    progress: Option<&Bound<'py, Progress>>,
    sink: Option<Py<PyAny>>,
    memory_budget: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let text = scenario_toml.to_owned();
    let cell = progress.map(|p| Arc::clone(&p.get().fraction_bits));
    // Load numpy's C API now: loading runs Python code, which would raise a signal that
    // comes in meanwhile inside the numpy crate (a panic, not KeyboardInterrupt).
    Vec::<u64>::new().into_pyarray(py);
    let mut signal: Option<PyErr> = None;
    let mut sink_error: Option<PyErr> = None;
    let (out, failures) = detached(py, || {
        with_failures(|failures| {
            let mut last_check = Instant::now();
            let mut report = |fraction: f64| {
                if failures.failed() {
                    return ControlFlow::Break(());
                }
                if let Some(cell) = &cell {
                    cell.store(fraction.to_bits(), Ordering::Relaxed);
                }
                if last_check.elapsed() >= SIGNAL_CHECK_EVERY {
                    last_check = Instant::now();
                    // Python runs signal handlers on its main thread only; elsewhere this is Ok.
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        signal = Some(e);
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            };
            match &sink {
                None => rampup_sim::collected(|sink| rampup_sim::run_toml_streaming(&text, seed, memory_budget, &mut report, sink)),
                Some(target) => {
                    let mut to_python = PySink { target, error: None };
                    let out = rampup_sim::run_toml_streaming(&text, seed, memory_budget, &mut report, &mut to_python);
                    sink_error = to_python.error;
                    out
                }
            }
        })
    })?;
    if let Some(e) = signal.or_else(|| part_failure(py, &failures)).or(sink_error) {
        return Err(e);
    }
    let out = out.map_err(run_error)?;
    // A signal during the run's last events or while it made its tables counts too.
    py.check_signals()?;
    output_to_py(py, out)
}

/// delivered_packets(scenario_toml, mss) -> int
///
/// Runs the scenario and returns only the data packets delivered in order to the
/// receivers (payload bytes received / mss, per flow). For `rampup bench`: it builds no
/// numpy arrays, so the timed process need not import numpy.
#[pyfunction]
fn delivered_packets(py: Python<'_>, scenario_toml: &str, mss: u64) -> PyResult<u64> {
    let text = scenario_toml.to_owned();
    let out = with_parts(py, move |failures| run_parts(&text, None, failures))?.map_err(run_error)?;
    let flows = out.table("flows");
    Ok(flows.u64s("bytes_received").iter().map(|b| b / mss.max(1)).sum())
}

/// completed_connections(scenario_toml) -> int
///
/// Runs the scenario and counts its connections whose every response arrived whole (the
/// `connections` table's rows with a duration): what `rampup bench --web` times.
#[pyfunction]
fn completed_connections(py: Python<'_>, scenario_toml: &str) -> PyResult<u64> {
    let text = scenario_toml.to_owned();
    let out = with_parts(py, move |failures| run_parts(&text, None, failures))?.map_err(run_error)?;
    Ok(out.table("connections").f64s("duration_ns").iter().filter(|d| !d.is_nan()).count() as u64)
}

/// check(scenario_toml) -> list[str]
///
/// Parses and validates the scenario without running it; returns its warnings (valid
/// but likely a mistake, one line each). Raises ScenarioError if the scenario is invalid.
#[pyfunction]
fn check(py: Python<'_>, scenario_toml: &str) -> PyResult<Vec<String>> {
    let text = scenario_toml.to_owned();
    with_parts(py, move |_| rampup_sim::warnings_toml(&text))?.map_err(scenario_error)
}

/// paths(scenario_toml) -> dict[str, numpy array]
///
/// The `paths` table of a scenario, without running it: one row per flow with its route
/// (output ports), bottleneck rate, propagation and base RTT (ns) and BDP (bytes).
/// Raises ScenarioError if the scenario is invalid.
#[pyfunction]
fn paths<'py>(py: Python<'py>, scenario_toml: &str) -> PyResult<Bound<'py, PyDict>> {
    let text = scenario_toml.to_owned();
    let t = with_parts(py, move |_| rampup_sim::paths::paths_toml(&text))?.map_err(scenario_error)?;
    table_to_py(py, t)
}

/// estimate(scenario_toml) -> dict[str, float]
///
/// What a run of the scenario will take, from the scenario alone (`rampup_sim::estimate`):
/// packets, packet hops, events, connections, trace rows and peak heap bytes, with the
/// factor each is known to within. Raises ScenarioError if the scenario is invalid.
#[pyfunction]
fn estimate(py: Python<'_>, scenario_toml: &str) -> PyResult<Vec<(String, f64)>> {
    let text = scenario_toml.to_owned();
    let e = with_parts(py, move |_| rampup_sim::scenario::parse(&text).map(|sc| rampup_sim::estimate::estimate(&sc)))?.map_err(scenario_error)?;
    Ok(e.fields().into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// heap_bytes() -> tuple[int, int]
///
/// The engine's heap in this process: bytes allocated now, and the most at once since the
/// last `reset_heap_peak()` (`rampup_sim::memory`).
#[pyfunction]
fn heap_bytes() -> (u64, u64) {
    (rampup_sim::memory::allocated_bytes(), rampup_sim::memory::peak_bytes())
}

/// reset_heap_peak()
///
/// Start the heap's peak again from what is allocated now, to measure one run's.
#[pyfunction]
fn reset_heap_peak() {
    rampup_sim::memory::reset_peak();
}

/// parse_size(text) -> int
///
/// A size as scenarios write it ("2GiB", "500MB", "4096") in bytes; ValueError (one line)
/// if it is not one.
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    let expect = "a size in bytes: a whole number, or a number and a unit written together, like \"2GiB\" or \"500MB\"";
    rampup_sim::units::parse_size(text).map_err(|e| PyValueError::new_err(e.message(&rampup_sim::units::shown(text), expect, "byte", "2^64 bytes")))
}

/// defaults() -> list[tuple[str, str, str]]
///
/// Every scenario key that may be left out and the value the engine then uses, as
/// (table, key, value): read back from minimal scenarios (`rampup_sim::scenario::defaults`).
#[pyfunction]
fn defaults() -> Vec<(String, String, String)> {
    rampup_sim::scenario::defaults::defaults().into_iter().map(|d| (d.table.to_owned(), d.key.to_owned(), d.value)).collect()
}

/// parts() -> list[tuple[str, str, str, str]]
///
/// The TCP's registered parts chosen by name, as (family, key, name, one line on what it
/// is) from `rampup_tcp::registry`, with the `cc` shorthands for NewReno with a startup.
#[pyfunction]
fn parts() -> Vec<(String, String, String, String)> {
    use rampup_tcp::registry::{self, Family};
    let row = |f: Family, name: &str, doc: String| (f.title().to_owned(), format!("tcp.{}", f.key()), name.to_owned(), doc);
    let mut rows: Vec<_> = registry::parts().filter(|p| p.family != Family::Extra).map(|p| row(p.family, p.name, p.doc.to_owned())).collect();
    let after_cc = rows.iter().rposition(|r| r.1 == "tcp.cc").map_or(0, |i| i + 1);
    let shorthands = rampup_sim::scenario::CC_SHORTHANDS.map(|s| row(Family::Cc, s, format!("short for newreno with startup = \"{s}\"")));
    rows.splice(after_cc..after_cc, shorthands);
    rows
}

/// addresses(scenario_toml) -> list[tuple[str, str]]
///
/// Each node's name and the IPv4 address its packets carry in a capture, in node order.
#[pyfunction]
fn addresses(py: Python<'_>, scenario_toml: &str) -> PyResult<Vec<(String, String)>> {
    let text = scenario_toml.to_owned();
    with_parts(py, move |_| rampup_sim::scenario::parse(&text).map(|sc| rampup_sim::paths::addresses(&sc)))?.map_err(scenario_error)
}

/// The rampup engine (Rust). Use the `rampup` package rather than this module.
#[pymodule]
mod _engine {
    #[pymodule_export]
    use super::python_parts::{AckContext, CongestionContext, IdleContext, PaceContext, SentContext};
    #[pymodule_export]
    use super::{
        addresses, check, completed_connections, defaults, delivered_packets, estimate, heap_bytes, parse_size, parts, paths, reset_heap_peak, run, PartError,
        PartException, Progress, ScenarioError,
    };

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        // Once per process: a second import of the module (a subinterpreter) finds it made.
        rampup_sim::scenario::external::register(Box::new(super::python_parts::PyMaker));
        m.add("TRACE_CHUNK_ROWS", rampup_sim::trace::CHUNK_ROWS)
    }
}
