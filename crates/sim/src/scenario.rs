//! Scenario files: TOML → checked model. Every error is one line that names the key path
//! and says what is allowed.

use std::collections::{BTreeMap, VecDeque};

use rampup_tcp::cc::{AdjustiveSchedule, LimitedSlowStartConfig, SsthreshlessConfig, VegasConfig, VegasRtt, VegasSlowStartExit};
use rampup_tcp::measure::{RtoConfig, RtoRule};
use rampup_tcp::restart::{IdleThreshold, Restart};
use rampup_tcp::{CcKind, PreemptiveConfig, Duration, LossWindow, Rate, RecoveryKind, RtoInRecovery, SackPermitted, SackPipe, TcpConfig};
use rand::Rng;
use serde::Deserialize;

use crate::topology::{self, LinkSpec, NetSpec, QueueLimit};
use crate::units::{RateValue, SizeValue, TimeValue};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScenarioError(pub String);

fn err<T>(path: impl AsRef<str>, msg: impl AsRef<str>) -> Result<T, ScenarioError> {
    Err(ScenarioError(format!("{}: {}", path.as_ref(), msg.as_ref())))
}

/// The largest byte or packet count a scenario may give: 2^53, the largest integer a
/// float64 column (pandas, once a column has a missing value) holds exactly.
pub const MAX_COUNT: u64 = 1 << 53;

/// The largest packet on the wire: an IPv4 datagram's total length is 16 bits (RFC 791).
pub const MAX_WIRE_BYTES: u32 = 65_535;

/// `v` if it lies in `range`, else the one-line error naming the key and the bound it broke.
fn within(path: impl AsRef<str>, v: u64, range: std::ops::RangeInclusive<u64>, unit: &str) -> Result<u64, ScenarioError> {
    if v < *range.start() {
        err(path, format!("must be at least {} {unit} (got {v})", range.start()))
    } else if v > *range.end() {
        err(path, format!("must be at most {} {unit} (got {v})", range.end()))
    } else {
        Ok(v)
    }
}

/// A size that must fit one packet on the wire.
fn wire_size(path: &str, v: u64, min: u32) -> Result<u32, ScenarioError> {
    within(path, v, min as u64..=MAX_WIRE_BYTES as u64, "bytes").map(|v| v as u32)
}

// ---------------------------------------------------------------- the file's shape

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    duration: TimeValue,
    seed: Option<u64>,
    /// Bytes of TCP/IP header added to each data segment on the wire.
    header_bytes: Option<SizeValue>,
    /// Wire size of a segment without payload (ACK, SYN, FIN).
    ack_bytes: Option<SizeValue>,
    topology: topology::TopologyFile,
    /// Defaults for every flow's `tcp` table.
    tcp: Option<TcpFile>,
    #[serde(default)]
    flow: Vec<FlowFile>,
    #[serde(default)]
    udp: Vec<UdpFile>,
    #[serde(default)]
    change: Vec<ChangeFile>,
    trace: Option<TraceFile>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct FlowFile {
    from: String,
    to: String,
    start: Option<TimeValue>,
    /// A uniform random delay in [0, start_jitter] added to `start`, from the flow's own stream.
    start_jitter: Option<TimeValue>,
    app: AppFile,
    tcp: Option<TcpFile>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum AppKind {
    Bulk,
    Requests,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct AppFile {
    kind: AppKind,
    bytes: Option<SizeValue>,
    schedule: Option<Vec<RequestFile>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RequestFile {
    at: TimeValue,
    bytes: SizeValue,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum CcName {
    Newreno,
    Vegas,
    Ssthreshless,
    Hoe,
    #[serde(rename = "limited-slow-start")]
    LimitedSlowStart,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum ScheduleName {
    Halving,
    Harmonic,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum RecoveryName {
    Reno,
    Newreno,
    Sack,
}

/// What a timeout during fast recovery does to ssthresh (`rampup_tcp::RtoInRecovery`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum RtoInRecoveryName {
    /// Keep the ssthresh recovery set (Linux).
    KeepSsthresh,
    /// Halve `loss_window` again (ns-2).
    Halve,
}

/// The window a loss halves (`rampup_tcp::LossWindow`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum LossWindowName {
    Flight,
    Cwnd,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum VegasRttName {
    Min,
    Mean,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum VegasExitName {
    Target,
    Eighth,
}

/// Restart after idle (`rampup_tcp::Restart`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum RestartName {
    Nssr,
    Ssr,
    SsrLinux,
    RbpRate,
    RbpCwnd,
}

/// Whether an end offers SACK in its handshake (`rampup_tcp::SackPermitted`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum SackPermittedName {
    AsRecovery,
    Always,
    Never,
}

/// How the RTO follows the RTT (`rampup_tcp::measure::RtoRule`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum RtoRuleName {
    Rfc6298,
    Linux,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum SackPipeName {
    Rfc6675,
    Sack1,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
struct TcpFile {
    cc: Option<CcName>,
    recovery: Option<RecoveryName>,
    mss: Option<SizeValue>,
    initial_window: Option<u32>,
    initial_ssthresh: Option<u64>,
    max_window: Option<u64>,
    rcv_window: Option<SizeValue>,
    delayed_ack: Option<bool>,
    ack_every: Option<u32>,
    delack_timeout: Option<TimeValue>,
    min_rto: Option<TimeValue>,
    initial_rto: Option<TimeValue>,
    max_rto: Option<TimeValue>,
    rto_rule: Option<RtoRuleName>,
    clock_granularity: Option<TimeValue>,
    handshake: Option<bool>,
    restart: Option<RestartName>,
    rbp_scale: Option<f64>,
    /// "rto" or a time.
    idle_threshold: Option<String>,
    limited_transmit: Option<bool>,
    rto_in_recovery: Option<RtoInRecoveryName>,
    sack_pipe: Option<SackPipeName>,
    sack_permitted: Option<SackPermittedName>,
    loss_window: Option<LossWindowName>,
    dupthresh: Option<u32>,
    byte_counting: Option<bool>,
    vegas_alpha: Option<f64>,
    vegas_beta: Option<f64>,
    vegas_gamma: Option<f64>,
    vegas_rtt: Option<VegasRttName>,
    vegas_slow_start_exit: Option<VegasExitName>,
    ssthreshless_gamma: Option<f64>,
    ssthreshless_schedule: Option<ScheduleName>,
    ssthreshless_rtt_tick: Option<TimeValue>,
    max_ssthresh: Option<u64>,
    /// Preemptive Retransmission (paper 002); absent: off.
    preemptive: Option<PreemptiveFile>,
}

/// `preemptive = { factor = 3, cutout = "80KiB" }`; both keys optional.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct PreemptiveFile {
    factor: Option<f64>,
    cutout: Option<SizeValue>,
}

impl TcpFile {
    /// Keys set here win over `defaults`.
    fn over(self, d: &TcpFile) -> TcpFile {
        macro_rules! pick {
            ($($f:ident),*) => { TcpFile { $($f: self.$f.or(d.$f.clone()),)* } };
        }
        pick!(
            cc, recovery, mss, initial_window, initial_ssthresh, max_window, rcv_window, delayed_ack, ack_every,
            delack_timeout, min_rto, initial_rto, max_rto, rto_rule, clock_granularity, handshake, restart, rbp_scale, idle_threshold, limited_transmit,
            rto_in_recovery, sack_pipe, sack_permitted, loss_window, dupthresh, byte_counting, vegas_alpha, vegas_beta, vegas_gamma, vegas_rtt,
            vegas_slow_start_exit, ssthreshless_gamma, ssthreshless_schedule, ssthreshless_rtt_tick, max_ssthresh, preemptive
        )
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct UdpFile {
    from: String,
    to: String,
    rate: RateValue,
    packet_bytes: Option<SizeValue>,
    start: Option<TimeValue>,
    stop: Option<TimeValue>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ChangeFile {
    at: TimeValue,
    link: String,
    rate: RateValue,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct TraceFile {
    timeseries: Option<bool>,
    queues: Option<bool>,
    #[serde(default)]
    pcap: Vec<String>,
    max_rows: Option<u64>,
}

// ---------------------------------------------------------------- the checked model

#[derive(Clone, Debug, PartialEq)]
pub enum App {
    /// `None`: unlimited data.
    Bulk { bytes: Option<u64> },
    /// Writes of `bytes` at `at` after the flow's start, on one connection.
    Requests { schedule: Vec<(Duration, u64)> },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub from: usize,
    pub to: usize,
    pub start: Duration,
    /// Upper bound of the uniform random delay added to `start` (see `Flow::start_at`).
    pub start_jitter: Duration,
    pub app: App,
    pub tcp: TcpConfig,
}

impl Flow {
    /// When flow `index` starts in a run with `seed`: `start` plus a uniform draw from
    /// [0, start_jitter] on the flow's own stream ("flow:{index}:start"), so that seeds
    /// matter without changing any other source's numbers.
    pub fn start_at(&self, index: usize, seed: u64) -> Duration {
        if self.start_jitter == Duration::ZERO {
            return self.start;
        }
        let mut rng = crate::rng::stream(seed, &format!("flow:{index}:start"));
        self.start + Duration(rng.random_range(0..=self.start_jitter.as_nanos()))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Udp {
    pub from: usize,
    pub to: usize,
    pub rate: Rate,
    pub packet_bytes: u32,
    pub start: Duration,
    pub stop: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub at: Duration,
    /// Index into `NetSpec::links`.
    pub link: usize,
    pub rate: Rate,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub timeseries: bool,
    pub queues: bool,
    /// Indices into `NetSpec::links`.
    pub pcap: Vec<usize>,
    /// A run stops with an error when a traced table passes this many rows (in each half
    /// of a split run).
    pub max_rows: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub duration: Duration,
    pub seed: u64,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub net: NetSpec,
    pub flows: Vec<Flow>,
    pub udp: Vec<Udp>,
    pub changes: Vec<Change>,
    pub trace: Trace,
}

/// Parse and check a scenario.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::de::Deserializer::parse(text).map_err(|e| toml_error(text, &e))?;
    let file: File = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.message().replace('\n', " ");
        if path == "." || path.is_empty() {
            ScenarioError(format!("scenario: {msg}"))
        } else {
            ScenarioError(format!("{path}: {msg}"))
        }
    })?;
    check(file)
}

fn toml_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let msg = e.message().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            ScenarioError(format!("TOML syntax, line {line} column {col}: {msg}"))
        }
        None => ScenarioError(format!("TOML syntax: {msg}")),
    }
}

fn check(f: File) -> Result<Scenario, ScenarioError> {
    if f.duration.0 == Duration::ZERO {
        return err("duration", "must be greater than 0s");
    }
    let net = topology::build(&f.topology)?;
    let names: BTreeMap<&str, usize> = net.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
    let node = |path: String, name: &str| -> Result<usize, ScenarioError> {
        names.get(name).copied().ok_or_else(|| {
            let known: Vec<&str> = net.nodes.iter().map(|n| n.name.as_str()).take(12).collect();
            ScenarioError(format!("{path}: no node named {name:?} (nodes: {}{})", known.join(", "),
                if net.nodes.len() > 12 { ", …" } else { "" }))
        })
    };
    let component = components(&net);
    let defaults = f.tcp.unwrap_or_default();
    let mut flows = Vec::new();
    for (i, fl) in f.flow.into_iter().enumerate() {
        let p = format!("flow[{i}]");
        let from = node(format!("{p}.from"), &fl.from)?;
        let to = node(format!("{p}.to"), &fl.to)?;
        connected(&net, &component, from, to, &p)?;
        let tcp = tcp_config(fl.tcp.unwrap_or_default().over(&defaults), &format!("{p}.tcp"))?;
        let app = app(fl.app, &format!("{p}.app"))?;
        let (start, start_jitter) = (fl.start.map_or(Duration::ZERO, |t| t.0), fl.start_jitter.map_or(Duration::ZERO, |t| t.0));
        flows.push(Flow { from, to, start, start_jitter, app, tcp });
    }
    let mut udp = Vec::new();
    for (i, u) in f.udp.into_iter().enumerate() {
        let p = format!("udp[{i}]");
        let from = node(format!("{p}.from"), &u.from)?;
        let to = node(format!("{p}.to"), &u.to)?;
        connected(&net, &component, from, to, &p)?;
        if u.rate.0 .0 == 0 {
            return err(format!("{p}.rate"), "must be greater than 0bps");
        }
        let packet_bytes = wire_size(&format!("{p}.packet_bytes"), u.packet_bytes.map_or(1000, |s| s.0), 1)?;
        let start = u.start.map_or(Duration::ZERO, |t| t.0);
        let stop = u.stop.map_or(f.duration.0, |t| t.0);
        if stop < start {
            return err(format!("{p}.stop"), "must not be before start");
        }
        udp.push(Udp { from, to, rate: u.rate.0, packet_bytes, start, stop });
    }
    let mut changes = Vec::new();
    for (i, c) in f.change.into_iter().enumerate() {
        let link = link_by_name(&net, &c.link, &format!("change[{i}].link"))?;
        if c.rate.0 .0 == 0 {
            return err(format!("change[{i}].rate"), "must be greater than 0bps");
        }
        changes.push(Change { at: c.at.0, link, rate: c.rate.0 });
    }
    let tf = f.trace.unwrap_or_default();
    let mut pcap = Vec::new();
    for (i, name) in tf.pcap.iter().enumerate() {
        pcap.push(link_by_name(&net, name, &format!("trace.pcap[{i}]"))?);
    }
    let max_rows = tf.max_rows.map(|n| within("trace.max_rows", n, 1..=MAX_COUNT, "rows")).transpose()?;
    let trace = Trace { timeseries: tf.timeseries.unwrap_or(true), queues: tf.queues.unwrap_or(true), pcap, max_rows };
    // Events rank ports, connection ends, flows with sources, and changes by index (`Order`).
    let max = crate::engine::MAX_INDEX as usize;
    if net.links.len() * 2 > max || flows.len() * 2 > max || flows.len() + udp.len() > max || changes.len() > max {
        return err("scenario", format!("too large: at most {} links, {} flows (with udp sources) and {max} changes", max / 2, max / 2));
    }
    let header_bytes = wire_size("header_bytes", f.header_bytes.map_or(40, |s| s.0), 0)?;
    let ack_bytes = wire_size("ack_bytes", f.ack_bytes.map_or(40, |s| s.0), 1)?;
    Ok(Scenario {
        name: f.name.unwrap_or_else(|| "scenario".into()),
        duration: f.duration.0,
        seed: f.seed.unwrap_or(1),
        header_bytes,
        ack_bytes,
        net,
        flows,
        udp,
        changes,
        trace,
    })
}

fn link_by_name(net: &NetSpec, name: &str, path: &str) -> Result<usize, ScenarioError> {
    let found = net.links.iter().position(|l: &LinkSpec| {
        let (a, b) = (&net.nodes[l.a].name, &net.nodes[l.b].name);
        name == format!("{a}-{b}") || name == format!("{b}-{a}")
    });
    found.ok_or_else(|| {
        ScenarioError(format!("{path}: no link named {name:?} (a link is named by its two ends, like \"left-right\")"))
    })
}

/// Connected component of every node, so that checking a flow's path costs O(1).
fn components(net: &NetSpec) -> Vec<usize> {
    let mut adjacent = vec![Vec::new(); net.nodes.len()];
    for l in &net.links {
        adjacent[l.a].push(l.b);
        adjacent[l.b].push(l.a);
    }
    let mut component = vec![usize::MAX; net.nodes.len()];
    for start in 0..net.nodes.len() {
        if component[start] != usize::MAX {
            continue;
        }
        component[start] = start;
        let mut queue = VecDeque::from([start]);
        while let Some(n) = queue.pop_front() {
            for &m in &adjacent[n] {
                if component[m] == usize::MAX {
                    component[m] = start;
                    queue.push_back(m);
                }
            }
        }
    }
    component
}

fn connected(net: &NetSpec, component: &[usize], from: usize, to: usize, path: &str) -> Result<(), ScenarioError> {
    if from == to {
        return err(path, "from and to are the same node");
    }
    if component[from] == component[to] {
        Ok(())
    } else {
        err(path, format!("no path from {:?} to {:?}", net.nodes[from].name, net.nodes[to].name))
    }
}

fn app(a: AppFile, p: &str) -> Result<App, ScenarioError> {
    match a.kind {
        AppKind::Bulk => {
            if a.schedule.is_some() {
                return err(format!("{p}.schedule"), "only for kind = \"requests\"");
            }
            let bytes = match a.bytes {
                None => None, // unlimited data
                Some(b) => Some(within(format!("{p}.bytes"), b.0, 1..=MAX_COUNT, "bytes (leave it out for unlimited data)")?),
            };
            Ok(App::Bulk { bytes })
        }
        AppKind::Requests => {
            if a.bytes.is_some() {
                return err(format!("{p}.bytes"), "only for kind = \"bulk\"; requests give bytes per schedule entry");
            }
            let Some(s) = a.schedule else {
                return err(format!("{p}.schedule"), "missing: a list of { at = \"…\", bytes = … }");
            };
            let mut schedule = Vec::new();
            for (i, r) in s.into_iter().enumerate() {
                within(format!("{p}.schedule[{i}].bytes"), r.bytes.0, 1..=MAX_COUNT, "bytes")?;
                if schedule.last().is_some_and(|&(at, _)| r.at.0 < at) {
                    return err(format!("{p}.schedule[{i}].at"), "must not be before the previous entry");
                }
                schedule.push((r.at.0, r.bytes.0));
            }
            Ok(App::Requests { schedule })
        }
    }
}

fn tcp_config(t: TcpFile, p: &str) -> Result<TcpConfig, ScenarioError> {
    let d = TcpConfig::default();
    let mss = t.mss.map_or(d.mss_bytes as u64, |s| s.0);
    if mss == 0 || mss > 65_535 {
        return err(format!("{p}.mss"), format!("must be 1..=65535 bytes (got {mss})"));
    }
    let iw = t.initial_window.unwrap_or(d.initial_window_segments);
    if !(1..=10).contains(&iw) {
        return err(format!("{p}.initial_window"), format!("must be 1..=10 segments (got {iw})"));
    }
    // Windows in segments: u32 of them times an mss (at most 2^16) cannot overflow.
    let segments = |key: &str, v: Option<u64>, min: u64| -> Result<Option<u64>, ScenarioError> {
        v.map(|n| within(format!("{p}.{key}"), n, min..=u32::MAX as u64, "segments").map(|n| n * mss)).transpose()
    };
    let at_least_one = |key: &str, v: Option<u32>, default: u32| -> Result<u32, ScenarioError> {
        match v.unwrap_or(default) {
            0 => err(format!("{p}.{key}"), "must be at least 1"),
            n => Ok(n),
        }
    };
    let rto = RtoConfig {
        initial: t.initial_rto.map_or(d.rto.initial, |v| v.0),
        min: t.min_rto.map_or(d.rto.min, |v| v.0),
        max: t.max_rto.map_or(d.rto.max, |v| v.0),
        granularity: t.clock_granularity.map_or(d.rto.granularity, |v| v.0),
        rule: match t.rto_rule {
            None => d.rto.rule,
            Some(RtoRuleName::Rfc6298) => RtoRule::Rfc6298,
            Some(RtoRuleName::Linux) => RtoRule::Linux,
        },
    };
    if rto.initial == Duration::ZERO {
        return err(format!("{p}.initial_rto"), "must be greater than 0s");
    }
    if rto.max < rto.min {
        return err(format!("{p}.max_rto"), "must not be below min_rto");
    }
    let vd = VegasConfig::default();
    let vegas = VegasConfig {
        alpha: t.vegas_alpha.unwrap_or(vd.alpha),
        beta: t.vegas_beta.unwrap_or(vd.beta),
        gamma: t.vegas_gamma.unwrap_or(vd.gamma),
        rtt: match t.vegas_rtt {
            None => vd.rtt,
            Some(VegasRttName::Min) => VegasRtt::Min,
            Some(VegasRttName::Mean) => VegasRtt::Mean,
        },
        slow_start_exit: match t.vegas_slow_start_exit {
            None => vd.slow_start_exit,
            Some(VegasExitName::Target) => VegasSlowStartExit::Target,
            Some(VegasExitName::Eighth) => VegasSlowStartExit::Eighth,
        },
    };
    if !(vegas.alpha >= 0.0 && vegas.beta >= vegas.alpha && vegas.gamma >= 0.0) {
        return err(format!("{p}.vegas_beta"), "need 0 <= vegas_alpha <= vegas_beta and vegas_gamma >= 0");
    }
    let sd = SsthreshlessConfig::default();
    let ssthreshless = SsthreshlessConfig {
        gamma_segments: t.ssthreshless_gamma.unwrap_or(sd.gamma_segments),
        schedule: match t.ssthreshless_schedule {
            None => sd.schedule,
            Some(ScheduleName::Halving) => AdjustiveSchedule::Halving,
            Some(ScheduleName::Harmonic) => AdjustiveSchedule::Harmonic,
        },
        rtt_tick: t.ssthreshless_rtt_tick.map_or(sd.rtt_tick, |v| v.0),
    };
    if !(ssthreshless.gamma_segments.is_finite() && ssthreshless.gamma_segments >= 0.0) {
        return err(format!("{p}.ssthreshless_gamma"), "must be a number of segments >= 0");
    }
    // RFC 3742 §2 suggests max_ssthresh = 100 MSS.
    let max_ssthresh_bytes = segments("max_ssthresh", Some(t.max_ssthresh.unwrap_or(100)), 2)?.unwrap_or_default();
    let cc = match t.cc.unwrap_or(CcName::Newreno) {
        CcName::Newreno => CcKind::NewReno { byte_counting: t.byte_counting.unwrap_or(false) },
        CcName::Vegas => CcKind::Vegas(vegas),
        CcName::Ssthreshless => CcKind::Ssthreshless(ssthreshless),
        CcName::Hoe => CcKind::Hoe,
        CcName::LimitedSlowStart => CcKind::LimitedSlowStart(LimitedSlowStartConfig { max_ssthresh_bytes }),
    };
    let recovery = match t.recovery.unwrap_or(RecoveryName::Newreno) {
        RecoveryName::Reno => RecoveryKind::Reno,
        RecoveryName::Newreno => RecoveryKind::NewReno,
        RecoveryName::Sack => RecoveryKind::Sack,
    };
    let preemptive = match &t.preemptive {
        None => None,
        Some(f) => Some(preemptive(f, p)?),
    };
    let rcv_window = t.rcv_window.map_or(d.rcv_window_bytes as u64, |s| s.0);
    if rcv_window < mss {
        return err(format!("{p}.rcv_window"), "must be at least one mss");
    }
    // A segment's window field is 32 bits (`Segment::window`); TCP itself advertises at
    // most 2^30 bytes (RFC 7323 §2.3).
    let Ok(rcv_window) = u32::try_from(rcv_window) else {
        return err(format!("{p}.rcv_window"), "must be at most 4294967295 bytes (just under 4GiB)");
    };
    Ok(TcpConfig {
        mss_bytes: mss as u32,
        initial_window_segments: iw,
        initial_ssthresh_bytes: segments("initial_ssthresh", t.initial_ssthresh, 1)?.unwrap_or(u64::MAX),
        max_window_bytes: segments("max_window", t.max_window, 1)?.unwrap_or(u64::MAX),
        rcv_window_bytes: rcv_window,
        cc,
        recovery,
        dupthresh: at_least_one("dupthresh", t.dupthresh, d.dupthresh)?,
        limited_transmit: t.limited_transmit.unwrap_or(d.limited_transmit),
        sack_permitted: match t.sack_permitted {
            None => d.sack_permitted,
            Some(SackPermittedName::AsRecovery) => SackPermitted::AsRecovery,
            Some(SackPermittedName::Always) => SackPermitted::Always,
            Some(SackPermittedName::Never) => SackPermitted::Never,
        },
        sack_pipe: match t.sack_pipe {
            None => d.sack_pipe,
            Some(SackPipeName::Rfc6675) => SackPipe::Rfc6675,
            Some(SackPipeName::Sack1) => SackPipe::Sack1,
        },
        rto_in_recovery: match t.rto_in_recovery {
            None => d.rto_in_recovery,
            Some(RtoInRecoveryName::KeepSsthresh) => RtoInRecovery::KeepSsthresh,
            Some(RtoInRecoveryName::Halve) => RtoInRecovery::Halve,
        },
        loss_window: match t.loss_window {
            None => d.loss_window,
            Some(LossWindowName::Flight) => LossWindow::FlightSize,
            Some(LossWindowName::Cwnd) => LossWindow::Cwnd,
        },
        delayed_ack: t.delayed_ack.unwrap_or(d.delayed_ack),
        ack_every: at_least_one("ack_every", t.ack_every, d.ack_every)?,
        delack_timeout: t.delack_timeout.map_or(d.delack_timeout, |v| v.0),
        rto,
        handshake: t.handshake.unwrap_or(d.handshake),
        // No end of a simulated flow closes second yet; the default serves until one does.
        time_wait: d.time_wait,
        restart: restart(t.restart, t.rbp_scale, p)?,
        idle_threshold: match t.idle_threshold.as_deref() {
            None => d.idle_threshold,
            Some("rto") => IdleThreshold::Rto,
            Some(v) => match crate::units::parse_duration(v) {
                Some(d) => IdleThreshold::Fixed(d),
                None => return err(format!("{p}.idle_threshold"), format!("{v:?} is neither \"rto\" nor a time like \"500ms\"")),
            },
        },
        preemptive,
    })
}

fn preemptive(f: &PreemptiveFile, p: &str) -> Result<PreemptiveConfig, ScenarioError> {
    let d = PreemptiveConfig::default();
    let factor = f.factor.unwrap_or(d.factor);
    if !(factor.is_finite() && factor > 0.0) {
        return err(format!("{p}.preemptive.factor"), format!("must be a number greater than 0 (got {factor})"));
    }
    let cutout_bytes = within(format!("{p}.preemptive.cutout"), f.cutout.map_or(d.cutout_bytes, |s| s.0), 1..=MAX_COUNT, "bytes, like \"80KiB\"")?;
    Ok(PreemptiveConfig { factor, cutout_bytes })
}

/// One `rbp_scale` for both RBP variants (as ns-2's `rbp_scale_`): RBP/rate's scale of the
/// rate, RBP/cwnd's fraction of the window.
fn restart(name: Option<RestartName>, rbp_scale: Option<f64>, p: &str) -> Result<Restart, ScenarioError> {
    let scale = rbp_scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return err(format!("{p}.rbp_scale"), "must be a number greater than 0");
    }
    Ok(match name {
        None => TcpConfig::default().restart,
        Some(RestartName::Nssr) => Restart::Nssr,
        Some(RestartName::Ssr) => Restart::Ssr,
        Some(RestartName::SsrLinux) => Restart::SsrLinux,
        Some(RestartName::RbpRate) => Restart::RbpRate { scale },
        Some(RestartName::RbpCwnd) => Restart::RbpCwnd { fraction: scale },
    })
}

/// Queue limits as a scenario writes them: `{ packets = N }` or `{ bytes = N }`.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct QueueFile {
    packets: Option<u64>,
    bytes: Option<SizeValue>,
}

impl QueueFile {
    pub fn limit(&self, path: &str) -> Result<QueueLimit, ScenarioError> {
        match (self.packets, self.bytes) {
            (Some(n), None) => Ok(QueueLimit::Packets(within(format!("{path}.packets"), n, 1..=MAX_COUNT, "packets")?)),
            (None, Some(b)) => Ok(QueueLimit::Bytes(within(format!("{path}.bytes"), b.0, 1..=MAX_COUNT, "bytes")?)),
            _ => err(path, "give exactly one of packets = N or bytes = N"),
        }
    }
}

pub(crate) fn positive_rate(r: RateValue, path: &str) -> Result<Rate, ScenarioError> {
    if r.0 .0 == 0 {
        return err(path, "must be greater than 0bps");
    }
    Ok(r.0)
}
