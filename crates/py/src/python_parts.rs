//! Startups, avoidance controllers and restart policies written in Python (`rampup.parts`, docs/python-parts.md):
//! the maker the scenario layer calls for `kind = "python"` (`rampup_sim::scenario::external`),
//! and the parts it makes, which call the Python object's hooks under the GIL with read-only
//! contexts and check the decisions they return.
//!
//! A hook that raises, or returns a decision the engine refuses, is a failure of the run: the
//! first is kept in the run's `Failures` (found through the thread the run is read and run
//! on), the part's later hooks leave the window alone, and the run stops at its next look at
//! its progress (`Failures::failed`).

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rampup_sim::scenario::external::{Maker, Request};
use rampup_tcp::cc::external::Factory;
use rampup_tcp::cc::{
    AckCtx, CongestionControl, CongestionEvent, CongestionKind, ExternalController, ExternalRestart, ExternalStartup, Rounds, Startup, Window, WindowBounds,
};
use rampup_tcp::pacing::PaceCtx;
use rampup_tcp::restart::{IdleDecision, Plan, RestartCtx, RestartPolicy, SentCtx, Validation};
use rampup_tcp::{Duration, Rate, Time};

/// A part's failure: one line naming the part, the hook and the cause, and the exception
/// the user's code raised (None: the engine refused the part's decision).
pub struct Failure {
    pub line: String,
    pub raised: Option<PyErr>,
}

/// The first failure of a run's Python parts.
#[derive(Default)]
pub struct Failures {
    any: AtomicBool,
    first: Mutex<Option<Failure>>,
}

impl Failures {
    fn set(&self, f: Failure) {
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            *first = Some(f);
            self.any.store(true, Ordering::Relaxed);
        }
    }

    pub fn failed(&self) -> bool {
        self.any.load(Ordering::Relaxed)
    }

    pub fn take(&self) -> Option<Failure> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

thread_local! {
    /// The failures of the run this thread reads and runs (`with_failures`).
    static CURRENT: RefCell<Option<Arc<Failures>>> = const { RefCell::new(None) };
}

/// Runs `f` (a scenario read, or read and run, on this thread) with a fresh `Failures` for
/// the Python parts it makes; returns what `f` returned and the failures.
pub fn with_failures<T>(f: impl FnOnce(&Failures) -> T) -> (T, Arc<Failures>) {
    let failures = Arc::new(Failures::default());
    let before = CURRENT.with(|c| c.replace(Some(Arc::clone(&failures))));
    let out = f(&failures);
    CURRENT.with(|c| *c.borrow_mut() = before);
    (out, failures)
}

fn current_failures() -> Arc<Failures> {
    CURRENT.with(|c| c.borrow().clone()).unwrap_or_default()
}

/// Which of a class's hooks it defines itself (the others are the base class's defaults,
/// which the engine applies without a call into Python).
#[derive(Clone, Copy, Debug, Default)]
struct Hooks {
    on_congestion_event: bool,
    in_slow_start: bool,
    on_recovery_end: bool,
    on_rto: bool,
    on_idle_end: bool,
    on_sent: bool,
    on_ack: bool,
    pacing_rate_bps: bool,
}

impl Hooks {
    fn of(names: &[String]) -> Hooks {
        let has = |n: &str| names.iter().any(|h| h == n);
        Hooks {
            on_congestion_event: has("on_congestion_event"),
            in_slow_start: has("in_slow_start"),
            on_recovery_end: has("on_recovery_end"),
            on_rto: has("on_rto"),
            on_idle_end: has("on_idle_end"),
            on_sent: has("on_sent"),
            on_ack: has("on_ack"),
            pacing_rate_bps: has("pacing_rate_bps"),
        }
    }
}

/// One endpoint's Python part: the object, what it overrides, and where to report.
struct PyPart {
    obj: Py<PyAny>,
    hooks: Hooks,
    /// `flow[0].tcp.startup (mypkg.mystart:MyStart)`.
    label: Arc<str>,
    bounds: WindowBounds,
    failures: Arc<Failures>,
}

impl PyPart {
    /// Calls `hook` with `args` and reads its result with `read`; on an exception or a
    /// refused decision, notes the failure and returns None. Nothing is called after the
    /// run's first failure.
    fn call<T>(
        &self,
        hook: &str,
        args: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyTuple>>,
        read: impl FnOnce(&Bound<'_, PyAny>) -> Result<T, String>,
    ) -> Option<T> {
        if self.failures.failed() {
            return None;
        }
        Python::attach(|py| {
            let result = args(py).and_then(|a| self.obj.bind(py).call_method1(hook, a));
            match result {
                Ok(value) => read(&value).map_err(|why| Failure { line: format!("{}.{hook}: {why}", self.label), raised: None }),
                Err(e) => Err(Failure { line: format!("{}.{hook}: {}", self.label, exception_line(py, &e)), raised: Some(e) }),
            }
            .map_err(|f| self.failures.set(f))
            .ok()
        })
    }

    fn clone_part(&self) -> PyPart {
        let obj = Python::attach(|py| {
            // An endpoint copied before it ran (a listening end's template) starts with the
            // same state: a deep copy, so the two never share it.
            let copied = py.import("copy").and_then(|m| m.call_method1("deepcopy", (self.obj.bind(py),)));
            copied.map(Bound::unbind).unwrap_or_else(|_| self.obj.clone_ref(py))
        });
        PyPart { obj, hooks: self.hooks, label: Arc::clone(&self.label), bounds: self.bounds, failures: Arc::clone(&self.failures) }
    }

    /// `on_ack` called with the ACK's context, and the `Set` it returned applied to `w`;
    /// true when it set cwnd. One taking of the GIL for the context and the call.
    fn on_ack(&self, w: &mut Window, ctx: &AckCtx, round_start: bool) -> bool {
        let (bounds, seen) = (self.bounds, *w);
        let set = self.call("on_ack", |py| PyTuple::new(py, [ack_context(py, &seen, ctx, round_start)?]), |v| read_set(v, bounds, seen.cwnd));
        match set.flatten() {
            Some(Decision { cwnd, ssthresh }) => {
                if let Some(s) = ssthresh {
                    w.ssthresh = s;
                }
                cwnd.map(|c| w.cwnd = c).is_some()
            }
            None => false,
        }
    }
}

/// The exception's type and message, one line.
fn exception_line(py: Python<'_>, e: &PyErr) -> String {
    let name = e.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".into());
    let msg = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
    let msg = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    if msg.is_empty() {
        name
    } else {
        format!("{name}: {msg}")
    }
}

/// A whole number of bytes, or why not.
fn bytes_of(v: &Bound<'_, PyAny>, key: &str) -> Result<Option<u64>, String> {
    if v.is_none() {
        return Ok(None);
    }
    v.extract::<u64>()
        .map(Some)
        .map_err(|_| format!("{key} = {} is not a whole number of bytes (0 to 2**64 - 1)", v.repr().map(|r| r.to_string()).unwrap_or_default()))
}

/// A `rampup.parts.Set`, checked: the window a hook decided on, each half optional.
struct Decision {
    cwnd: Option<u64>,
    ssthresh: Option<u64>,
}

/// `None` (leave the window alone), or a `rampup.parts.Set`: its cwnd and ssthresh, each
/// checked against `bounds` (cwnd was `before`).
fn read_set(v: &Bound<'_, PyAny>, bounds: WindowBounds, before: u64) -> Result<Option<Decision>, String> {
    if v.is_none() {
        return Ok(None);
    }
    let field = |key: &str| v.getattr(key).map_err(|_| format!("returned {}, not None or rampup.parts.Set(cwnd_bytes=..., ssthresh_bytes=...)", type_name(v)));
    let cwnd = bytes_of(&field("cwnd_bytes")?, "cwnd_bytes")?.map(|c| bounds.cwnd(before, c)).transpose()?;
    let ssthresh = bytes_of(&field("ssthresh_bytes")?, "ssthresh_bytes")?.map(|s| bounds.ssthresh(s)).transpose()?;
    Ok(Some(Decision { cwnd, ssthresh }))
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".into())
}

fn ns(d: Duration) -> u64 {
    d.as_nanos()
}

/// What a part's `on_ack` reads (`rampup.parts.AckContext`): a read-only view of the ACK,
/// the window it found and the RTT estimates, units in the names.
#[pyclass(frozen, get_all, module = "rampup._engine")]
pub struct AckContext {
    now_ns: u64,
    mss_bytes: u64,
    acked_bytes: u64,
    rtt_sample_ns: Option<u64>,
    srtt_ns: Option<u64>,
    rttvar_ns: u64,
    min_rtt_ns: Option<u64>,
    rto_ns: u64,
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
    app_limited: bool,
    snd_una: u64,
    snd_nxt: u64,
    round_start: bool,
}

#[pymethods]
impl AckContext {
    fn __repr__(&self) -> String {
        format!(
            "AckContext(now_ns={}, acked_bytes={}, rtt_sample_ns={:?}, cwnd_bytes={}, ssthresh_bytes={}, snd_una={}, snd_nxt={}, round_start={})",
            self.now_ns, self.acked_bytes, self.rtt_sample_ns, self.cwnd_bytes, self.ssthresh_bytes, self.snd_una, self.snd_nxt, self.round_start
        )
    }
}

fn ack_context(py: Python<'_>, w: &Window, ctx: &AckCtx, round_start: bool) -> PyResult<Py<AckContext>> {
    let m = ctx.measure;
    Py::new(
        py,
        AckContext {
            now_ns: ns(ctx.now.since(Time::ZERO)),
            mss_bytes: ctx.mss,
            acked_bytes: ctx.acked_bytes,
            rtt_sample_ns: ctx.rtt_sample.map(ns),
            srtt_ns: m.srtt().map(ns),
            rttvar_ns: ns(m.rttvar()),
            min_rtt_ns: m.min_rtt().map(ns),
            rto_ns: ns(m.rto()),
            cwnd_bytes: w.cwnd,
            ssthresh_bytes: w.ssthresh,
            app_limited: ctx.app_limited,
            snd_una: ctx.ack,
            snd_nxt: ctx.snd_nxt,
            round_start,
        },
    )
}

/// What a part's `on_congestion_event` reads (`rampup.parts.CongestionContext`).
#[pyclass(frozen, get_all, module = "rampup._engine")]
pub struct CongestionContext {
    now_ns: u64,
    /// "fast_retransmit", "rto" or "ecn".
    kind: &'static str,
    mss_bytes: u64,
    loss_window_bytes: u64,
    flight_bytes: u64,
    lost_sent_at_ns: Option<u64>,
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
}

#[pymethods]
impl CongestionContext {
    fn __repr__(&self) -> String {
        format!(
            "CongestionContext(now_ns={}, kind={:?}, loss_window_bytes={}, flight_bytes={}, cwnd_bytes={}, ssthresh_bytes={})",
            self.now_ns, self.kind, self.loss_window_bytes, self.flight_bytes, self.cwnd_bytes, self.ssthresh_bytes
        )
    }
}

fn congestion_context<'py>(py: Python<'py>, w: &Window, ev: &CongestionEvent) -> PyResult<Bound<'py, PyTuple>> {
    let kind = match ev.kind {
        CongestionKind::FastRetransmit { .. } => "fast_retransmit",
        CongestionKind::Rto => "rto",
        CongestionKind::Ecn => "ecn",
    };
    let c = CongestionContext {
        now_ns: ns(ev.now.since(Time::ZERO)),
        kind,
        mss_bytes: ev.mss,
        loss_window_bytes: ev.loss_window_bytes,
        flight_bytes: ev.flight_bytes,
        lost_sent_at_ns: ev.lost_sent_at.map(|t| ns(t.since(Time::ZERO))),
        cwnd_bytes: w.cwnd,
        ssthresh_bytes: w.ssthresh,
    };
    PyTuple::new(py, [Py::new(py, c)?])
}

/// What a controller's `pacing_rate_bps` reads as a data segment leaves
/// (`rampup.parts.PaceContext`).
#[pyclass(frozen, get_all, module = "rampup._engine")]
pub struct PaceContext {
    mss_bytes: u64,
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
    flight_bytes: u64,
    srtt_ns: Option<u64>,
}

#[pymethods]
impl PaceContext {
    fn __repr__(&self) -> String {
        format!(
            "PaceContext(cwnd_bytes={}, ssthresh_bytes={}, flight_bytes={}, srtt_ns={:?})",
            self.cwnd_bytes, self.ssthresh_bytes, self.flight_bytes, self.srtt_ns
        )
    }
}

/// `None` (the pacing part's rule), or a whole number of bits per second, at least 1.
fn read_rate(v: &Bound<'_, PyAny>) -> Result<Option<Rate>, String> {
    if v.is_none() {
        return Ok(None);
    }
    match v.extract::<u64>() {
        Ok(bps) if bps > 0 => Ok(Some(Rate::from_bps(bps))),
        _ => Err(format!(
            "returned {}, not None or a rate in bits per second (a whole number from 1 to 2**64 - 1)",
            v.repr().map(|r| r.to_string()).unwrap_or_else(|_| type_name(v))
        )),
    }
}

/// A startup written in Python, in one endpoint.
struct PyStartup {
    part: PyPart,
    rounds: Rounds,
}

impl fmt::Debug for PyStartup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PyStartup({})", self.part.label)
    }
}

impl Startup for PyStartup {
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        let round_start = self.rounds.on_ack(ctx.ack, ctx.snd_nxt);
        self.part.on_ack(w, ctx, round_start)
    }

    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) {
        if self.part.hooks.on_congestion_event {
            self.part.call("on_congestion_event", |py| congestion_context(py, w, ev), |_| Ok(()));
        }
    }

    fn in_slow_start(&self, w: &Window) -> bool {
        if !self.part.hooks.in_slow_start {
            return w.cwnd < w.ssthresh;
        }
        let asked = self.part.call(
            "in_slow_start",
            |py| PyTuple::new(py, [w.cwnd, w.ssthresh]),
            |v| v.extract::<bool>().map_err(|_| format!("returned {}, not True or False", type_name(v))),
        );
        asked.unwrap_or(w.cwnd < w.ssthresh)
    }
}

impl ExternalStartup for PyStartup {
    fn boxed_clone(&self) -> Box<dyn ExternalStartup> {
        Box::new(PyStartup { part: self.part.clone_part(), rounds: self.rounds })
    }
}

/// An avoidance controller written in Python, in one endpoint.
struct PyController {
    part: PyPart,
    rounds: Rounds,
}

impl fmt::Debug for PyController {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PyController({})", self.part.label)
    }
}

impl CongestionControl for PyController {
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        let round_start = self.rounds.on_ack(ctx.ack, ctx.snd_nxt);
        self.part.on_ack(w, ctx, round_start);
    }

    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) -> u64 {
        let rfc_5681 = rampup_tcp::cc::half_flight(ev.loss_window_bytes, ev.mss);
        if !self.part.hooks.on_congestion_event {
            return rfc_5681;
        }
        let bounds = self.part.bounds;
        let read = |v: &Bound<'_, PyAny>| bytes_of(v, "ssthresh_bytes").and_then(|s| s.map(|s| bounds.ssthresh(s)).transpose());
        self.part.call("on_congestion_event", |py| congestion_context(py, w, ev), read).flatten().unwrap_or(rfc_5681)
    }

    fn on_recovery_end(&mut self, now: Time) {
        if self.part.hooks.on_recovery_end {
            self.part.call("on_recovery_end", |py| PyTuple::new(py, [ns(now.since(Time::ZERO))]), |_| Ok(()));
        }
    }

    fn on_rto(&mut self, now: Time) {
        if self.part.hooks.on_rto {
            self.part.call("on_rto", |py| PyTuple::new(py, [ns(now.since(Time::ZERO))]), |_| Ok(()));
        }
    }

    fn on_idle_end(&mut self, now: Time, idle: Duration) {
        if self.part.hooks.on_idle_end {
            self.part.call("on_idle_end", |py| PyTuple::new(py, [ns(now.since(Time::ZERO)), ns(idle)]), |_| Ok(()));
        }
    }

    fn on_sent(&mut self, now: Time, bytes: u64, quiet: Option<Duration>) {
        if self.part.hooks.on_sent {
            let args = (ns(now.since(Time::ZERO)), bytes, quiet.map(ns));
            self.part.call("on_sent", |py| args.into_pyobject(py), |_| Ok(()));
        }
    }

    fn pacing_rate(&self, ctx: &PaceCtx) -> Option<Rate> {
        if !self.part.hooks.pacing_rate_bps {
            return None;
        }
        let c = PaceContext {
            mss_bytes: self.part.bounds.mss_bytes,
            cwnd_bytes: ctx.cwnd,
            ssthresh_bytes: ctx.ssthresh,
            flight_bytes: ctx.flight,
            srtt_ns: ctx.srtt.map(ns),
        };
        self.part.call("pacing_rate_bps", |py| PyTuple::new(py, [Py::new(py, c)?]), read_rate).flatten()
    }
}

impl ExternalController for PyController {
    fn boxed_clone(&self) -> Box<dyn ExternalController> {
        Box::new(PyController { part: self.part.clone_part(), rounds: self.rounds })
    }
}

/// What a restart policy's `on_idle_end` reads (`rampup.parts.IdleContext`).
#[pyclass(frozen, get_all, module = "rampup._engine")]
pub struct IdleContext {
    now_ns: u64,
    mss_bytes: u64,
    initial_window_bytes: u64,
    /// What NSSR would send at once: cwnd capped by the window limit and the peer's window.
    usable_window_bytes: u64,
    idle_ns: u64,
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
    srtt_ns: Option<u64>,
    rto_ns: u64,
}

#[pymethods]
impl IdleContext {
    fn __repr__(&self) -> String {
        format!(
            "IdleContext(now_ns={}, idle_ns={}, cwnd_bytes={}, initial_window_bytes={})",
            self.now_ns, self.idle_ns, self.cwnd_bytes, self.initial_window_bytes
        )
    }
}

/// What a restart policy's `on_sent` reads (`rampup.parts.SentContext`): a data segment
/// went out.
#[pyclass(frozen, get_all, module = "rampup._engine")]
pub struct SentContext {
    now_ns: u64,
    /// FlightSize with the segment out.
    flight_bytes: u64,
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
}

#[pymethods]
impl SentContext {
    fn __repr__(&self) -> String {
        format!(
            "SentContext(now_ns={}, flight_bytes={}, cwnd_bytes={}, ssthresh_bytes={})",
            self.now_ns, self.flight_bytes, self.cwnd_bytes, self.ssthresh_bytes
        )
    }
}

/// A `Set`'s window applied to `w` (each half it leaves as None stays).
fn set_window(w: Window, d: Decision) -> Window {
    Window { cwnd: d.cwnd.unwrap_or(w.cwnd), ssthresh: d.ssthresh.unwrap_or(w.ssthresh) }
}

/// What `on_idle_end` returned: None (keep the window), a `Set`, or a `Pace` (a `Set` whose
/// restart is paced: `segments` spaced `interval_ns` apart until the first ACK, paper 000 §3).
fn read_idle(v: &Bound<'_, PyAny>, bounds: WindowBounds, w: Window) -> Result<IdleDecision, String> {
    let window = read_set(v, bounds, w.cwnd)?.map_or(w, |d| set_window(w, d));
    let Ok(interval) = v.getattr("interval_ns") else {
        return Ok(IdleDecision { window, pace: None });
    };
    let whole = |key: &str, x: Bound<'_, PyAny>| match x.extract::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{key} = {} is not a whole number of 1 or more", x.repr().map(|r| r.to_string()).unwrap_or_default())),
    };
    let segments = whole("segments", v.getattr("segments").map_err(|_| "returned a Pace without segments".to_string())?)?;
    let interval_ns = whole("interval_ns", interval)?;
    Ok(IdleDecision { window, pace: Some(Plan { segments, interval: Duration::from_nanos(interval_ns) }) })
}

/// A restart-after-idle policy written in Python, in one endpoint: `on_idle_end` decides the
/// window to restart with and whether to pace it, `on_ack` validates the window, and the
/// other hooks may set a window of their own.
struct PyRestart {
    part: PyPart,
    rounds: Rounds,
}

impl fmt::Debug for PyRestart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PyRestart({})", self.part.label)
    }
}

impl RestartPolicy for PyRestart {
    fn on_ack(&mut self, w: Window, ctx: &AckCtx) -> Validation {
        if !self.part.hooks.on_ack {
            return Validation::Grow;
        }
        let round_start = self.rounds.on_ack(ctx.ack, ctx.snd_nxt);
        let bounds = self.part.bounds;
        let read = |v: &Bound<'_, PyAny>| {
            if v.extract::<String>().is_ok_and(|s| s == "hold") {
                return Ok(Validation::Hold);
            }
            Ok(read_set(v, bounds, w.cwnd)?.map_or(Validation::Grow, |d| Validation::Set(set_window(w, d))))
        };
        self.part.call("on_ack", |py| PyTuple::new(py, [ack_context(py, &w, ctx, round_start)?]), read).unwrap_or(Validation::Grow)
    }

    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        let bounds = self.part.bounds;
        let c = IdleContext {
            now_ns: ns(ctx.now.since(Time::ZERO)),
            mss_bytes: ctx.mss,
            initial_window_bytes: ctx.initial_window_bytes,
            usable_window_bytes: ctx.usable_window_bytes,
            idle_ns: ns(ctx.idle),
            cwnd_bytes: w.cwnd,
            ssthresh_bytes: w.ssthresh,
            srtt_ns: ctx.measure.srtt().map(ns),
            rto_ns: ns(ctx.measure.rto()),
        };
        let decided = self.part.call("on_idle_end", |py| PyTuple::new(py, [Py::new(py, c)?]), |v| read_idle(v, bounds, w));
        decided.unwrap_or(IdleDecision { window: w, pace: None })
    }

    fn on_sent(&mut self, s: &SentCtx) -> Option<Window> {
        if !self.part.hooks.on_sent {
            return None;
        }
        let (w, bounds) = (s.window, self.part.bounds);
        let c = SentContext { now_ns: ns(s.now.since(Time::ZERO)), flight_bytes: s.flight_bytes, cwnd_bytes: w.cwnd, ssthresh_bytes: w.ssthresh };
        let set = self.part.call("on_sent", |py| PyTuple::new(py, [Py::new(py, c)?]), |v| read_set(v, bounds, w.cwnd));
        set.flatten().map(|d| set_window(w, d))
    }

    fn on_congestion_event(&mut self, w: Window, ev: &CongestionEvent) -> Option<Window> {
        if !self.part.hooks.on_congestion_event {
            return None;
        }
        let bounds = self.part.bounds;
        let set = self.part.call("on_congestion_event", |py| congestion_context(py, &w, ev), |v| read_set(v, bounds, w.cwnd));
        set.flatten().map(|d| set_window(w, d))
    }

    fn on_rto(&mut self) {
        if self.part.hooks.on_rto {
            self.part.call("on_rto", |py| Ok(PyTuple::empty(py)), |_| Ok(()));
        }
    }

    fn on_recovery_end(&mut self, w: Window, resent_bytes: u64) -> Option<Window> {
        if !self.part.hooks.on_recovery_end {
            return None;
        }
        let bounds = self.part.bounds;
        let set = self.part.call("on_recovery_end", |py| PyTuple::new(py, [w.cwnd, w.ssthresh, resent_bytes]), |v| read_set(v, bounds, w.cwnd));
        set.flatten().map(|d| set_window(w, d))
    }
}

impl ExternalRestart for PyRestart {
    fn boxed_clone(&self) -> Box<dyn ExternalRestart> {
        Box::new(PyRestart { part: self.part.clone_part(), rounds: self.rounds })
    }
}

/// The class a scenario names, loaded and checked by `rampup.parts.load_part`: the class, the
/// name results show, the hooks it defines and its constructor's arguments.
struct Loaded {
    class: Py<PyAny>,
    name: String,
    hooks: Hooks,
    kwargs: Py<PyDict>,
}

/// Makes the Python parts a scenario names (registered at the module's import).
pub struct PyMaker;

impl PyMaker {
    fn load(family: &str, r: &Request) -> Result<Loaded, String> {
        Python::attach(|py| {
            let loaded = py.import("rampup.parts").and_then(|m| m.getattr("load_part")).and_then(|load| load.call1((family, r.class, r.args_toml)));
            match loaded {
                Ok(v) => {
                    let (class, name, hooks, kwargs): (Py<PyAny>, String, Vec<String>, Py<PyDict>) = v.extract().map_err(|e: PyErr| e.to_string())?;
                    Ok(Loaded { class, name, hooks: Hooks::of(&hooks), kwargs })
                }
                Err(e) => {
                    let line = exception_line(py, &e);
                    let bad_input = e.get_type(py).name().is_ok_and(|n| n == "PartLoadError");
                    let why = if bad_input { e.value(py).str().map(|s| s.to_string()).unwrap_or(line) } else { line };
                    if !bad_input {
                        current_failures().set(Failure { line: format!("{} ({}): {why}", r.at, r.class), raised: Some(e) });
                    }
                    Err(why)
                }
            }
        })
    }

    /// The factory of one endpoint's part: a fresh object from the class each time.
    fn part(loaded: Loaded, r: &Request) -> (String, String, impl Fn() -> PyPart + Send + Sync + 'static) {
        let label: Arc<str> = format!("{} ({})", r.at, r.class).into();
        let spec = format!("python:{}:{}", r.class, r.args_toml);
        let (bounds, failures) = (r.bounds, current_failures());
        let make = move || {
            let obj = Python::attach(|py| match loaded.class.bind(py).call((), Some(loaded.kwargs.bind(py))) {
                Ok(o) => o.unbind(),
                Err(e) => {
                    failures.set(Failure { line: format!("{label}.__init__: {}", exception_line(py, &e)), raised: Some(e) });
                    py.None()
                }
            });
            PyPart { obj, hooks: loaded.hooks, label: Arc::clone(&label), bounds, failures: Arc::clone(&failures) }
        };
        (loaded.name, spec, make)
    }
}

impl Maker for PyMaker {
    fn startup(&self, r: &Request) -> Result<Factory<dyn ExternalStartup>, String> {
        let (name, spec, make) = PyMaker::part(PyMaker::load("startup", r)?, r);
        Ok(Factory::new(name, spec, move || Box::new(PyStartup { part: make(), rounds: Rounds::default() }) as Box<dyn ExternalStartup>))
    }

    fn controller(&self, r: &Request) -> Result<Factory<dyn ExternalController>, String> {
        let loaded = PyMaker::load("controller", r)?;
        let own_rate = loaded.hooks.pacing_rate_bps;
        let (name, spec, make) = PyMaker::part(loaded, r);
        let make = move || Box::new(PyController { part: make(), rounds: Rounds::default() }) as Box<dyn ExternalController>;
        Ok(if own_rate { Factory::pacing(name, spec, make) } else { Factory::new(name, spec, make) })
    }

    fn restart(&self, r: &Request) -> Result<Factory<dyn ExternalRestart>, String> {
        let (name, spec, make) = PyMaker::part(PyMaker::load("restart", r)?, r);
        Ok(Factory::new(name, spec, move || Box::new(PyRestart { part: make(), rounds: Rounds::default() }) as Box<dyn ExternalRestart>))
    }
}
