//! Scenario files: TOML → checked model. Every error is one line that names the key path
//! and says what is allowed.

use std::collections::{BTreeMap, VecDeque};

use rampup_tcp::{Duration, Rate, TcpConfig};
use rand::Rng;
use serde::Deserialize;

pub mod defaults;
pub mod external;
mod part;
mod profile;
mod queue;
mod tcp;

pub use tcp::CC_SHORTHANDS;
pub mod topology;
mod vrate;

pub use self::queue::QueueFile;
use self::tcp::{tcp_config, TcpFile};
use self::topology::{LinkSpec, NetSpec};
use crate::traffic::{App, Arrivals, Closer, ExchangeSpec, Http, Load, Phase, RateLimitedSpec, WebSpec};
use crate::units::{RateValue, SizeValue, TimeValue};
use crate::vrate::VrateSpec;

/// Why a scenario was refused. Each prints as one line: the key path (or where the syntax
/// broke) and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// The text is not a TOML or JSON document; `at` is the line and column, where known.
    #[error("{format} syntax{}: {why}", at.map_or_else(String::new, |(line, col)| format!(", line {line} column {col}")))]
    Syntax { format: &'static str, at: Option<(usize, usize)>, why: String },
    /// A key's value is refused, or a key is missing or unknown; `key` is its path
    /// (`flow[0].tcp.mss`), or `scenario` for the document as a whole.
    #[error("{key}: {why}")]
    Key { key: String, why: String },
}

impl ScenarioError {
    pub fn key(key: impl Into<String>, why: impl Into<String>) -> Self {
        ScenarioError::Key { key: key.into(), why: why.into() }
    }

    /// The key path the error names; None for a syntax error.
    pub fn key_path(&self) -> Option<&str> {
        match self {
            ScenarioError::Key { key, .. } => Some(key),
            ScenarioError::Syntax { .. } => None,
        }
    }
}

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::key(path, msg))
}

/// The largest byte or packet count a scenario may give: 2^53, the largest integer a
/// float64 column (pandas, once a column has a missing value) holds exactly.
pub const MAX_COUNT: u64 = 1 << 53;

/// The largest packet on the wire: an IPv4 datagram's total length is 16 bits (RFC 791).
pub const MAX_WIRE_BYTES: u32 = 65_535;

/// `v` if it lies in `range`, else the one-line error naming the key and the bound it broke.
fn within(path: impl AsRef<str>, v: u64, range: std::ops::RangeInclusive<u64>, unit: &str) -> Result<u64, ScenarioError> {
    if v < *range.start() {
        err(path.as_ref(), format!("must be at least {} {unit} (got {v})", range.start()))
    } else if v > *range.end() {
        err(path.as_ref(), format!("must be at most {} {unit} (got {v})", range.end()))
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
    vrate: Option<vrate::VrateFile>,
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
    /// The vrate group the flow's connection joins on each of its hosts (`[vrate]`).
    group: Option<String>,
    /// The ensemble whose window the flow's connection shares on each of its hosts.
    share: Option<String>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum AppKind {
    Bulk,
    Writes,
    /// The old name of `writes`: refused with a line that gives the new one.
    Requests,
    RequestResponse,
    Web,
    RateLimited,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct AppFile {
    kind: AppKind,
    bytes: Option<SizeValue>,
    schedule: Option<Vec<WriteFile>>,
    request: Option<SizeValue>,
    response: Option<SizeValue>,
    pairs: Option<u64>,
    think: Option<TimeValue>,
    close: Option<CloserFile>,
    connections: Option<u64>,
    mean_gap: Option<TimeValue>,
    gaps: Option<GapsFile>,
    /// web: connections per second; rate-limited: a rate with a unit.
    rate: Option<NumberOrText>,
    utilization: Option<f64>,
    http: Option<String>,
    chunk: Option<SizeValue>,
    phases: Option<Vec<PhaseFile>>,
    padding: Option<bool>,
}

/// A key that is a number for one kind and a quantity with a unit for another (`rate`).
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
enum NumberOrText {
    Number(f64),
    Text(String),
}

/// `{ at = "28s", rate = "0bps", within = "1s", name = "idle" }`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct PhaseFile {
    at: TimeValue,
    rate: RateValue,
    within: Option<TimeValue>,
    name: Option<String>,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum CloserFile {
    Client,
    Server,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum GapsFile {
    Exponential,
    Fixed,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct WriteFile {
    at: TimeValue,
    bytes: SizeValue,
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
    rate: Option<RateValue>,
    delay: Option<TimeValue>,
    loss: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct TraceFile {
    timeseries: Option<bool>,
    queues: Option<bool>,
    #[serde(default)]
    pcap: Vec<String>,
    pcap_per: Option<String>,
    max_rows: Option<u64>,
    throughput: Option<TimeValue>,
    rtt: Option<bool>,
    queues_interval: Option<TimeValue>,
    packets: Option<bool>,
}

// ---------------------------------------------------------------- the checked model

#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub from: usize,
    pub to: usize,
    pub start: Duration,
    /// Upper bound of the uniform random delay added to `start` (see `Flow::start_at`).
    pub start_jitter: Duration,
    pub app: App,
    pub tcp: TcpConfig,
    /// Its vrate group, by index into `Scenario::groups`: its connection's ends join the
    /// group of that name on their hosts (`crate::vrate`).
    pub group: Option<u32>,
    /// Its ensemble, by index into `Scenario::shares`: its connection's ends share one
    /// window with the other members on their hosts (`crate::ensemble`).
    pub share: Option<u32>,
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
    /// What changes, in both directions of the link; at least one is given.
    pub rate: Option<Rate>,
    /// For packets that start onto the wire from then on; the wire stays in order (one sent
    /// later never arrives before one sent earlier).
    pub delay: Option<Duration>,
    /// The probability that a packet is lost in transit, from then on.
    pub loss: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub timeseries: bool,
    pub queues: bool,
    /// Indices into `NetSpec::links`.
    pub pcap: Vec<usize>,
    /// One capture file per link, both directions in it (`pcap_per = "link"`), not one per
    /// direction.
    pub pcap_per_link: bool,
    /// A run stops with an error when a traced table passes this many rows (in each half
    /// of a split run).
    pub max_rows: Option<u64>,
    /// The interval of the throughput table (none: not traced).
    pub throughput: Option<Duration>,
    /// Every RTT sample, in the rtt table.
    pub rtt: bool,
    /// The queues table has rows at each multiple of this interval, not at each change.
    pub queues_interval: Option<Duration>,
    /// Every packet's events at every port, in the packets table.
    pub packets: bool,
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
    /// The vrate layer's parameters, and the names of the groups the flows join.
    pub vrate: VrateSpec,
    pub groups: Vec<String>,
    /// The names of the ensembles the flows share windows in.
    pub shares: Vec<String>,
    /// One line for each key read in a deprecated spelling, naming the key and the new one.
    pub deprecated: Vec<String>,
}

impl Scenario {
    /// Whether a flow's TCP has a part written outside the engine (`external`): such a run
    /// keeps to one thread (`crate::run_streaming`).
    pub fn has_external_parts(&self) -> bool {
        self.flows.iter().any(|f| f.tcp.has_external_part())
    }
}

/// Parse and check a scenario: TOML text, or the same document as JSON. A TOML document
/// cannot begin with `{`, so that tells them apart. The Python side hands generated
/// scenarios over as JSON, which it writes in C: 0.11 ms for an rbp run's scenario against
/// 1.28 ms as TOML, about as long as such a run takes to simulate.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let file: File = if text.trim_start().starts_with('{') {
        let mut de = serde_json::Deserializer::from_str(text);
        let file = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            key_error(path, e.into_inner().to_string())
        })?;
        de.end().map_err(|e| ScenarioError::Syntax { format: "JSON", at: None, why: e.to_string() })?;
        file
    } else {
        let de = toml::de::Deserializer::parse(text).map_err(|e| toml_error(text, &e))?;
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            key_error(path, e.into_inner().message().to_owned())
        })?
    };
    check(file)
}

/// A key's error, named by its path (`flow[0].tcp.mss: ...`).
fn key_error(path: String, msg: String) -> ScenarioError {
    let mut msg = cut_long_quotes(&msg.replace('\n', " "));
    // serde's words for a negative count, in a scenario's terms.
    if let Some((n, rest)) = msg.strip_prefix("invalid value: integer `").and_then(|r| r.split_once('`')) {
        if n.starts_with('-') && rest.starts_with(", expected u") {
            msg = format!("{n} is negative: give a whole number, 0 or more");
        }
    }
    if path == "." || path.is_empty() {
        ScenarioError::key("scenario", msg)
    } else {
        ScenarioError::key(path, msg)
    }
}

/// `msg` with every quoted run (between `"` or backticks) longer than 60 characters cut to
/// its first 40: a value of 100 KB quoted back would make no error line.
fn cut_long_quotes(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(1024));
    let mut rest = msg;
    while let Some(i) = rest.find(['"', '`']) {
        let quote = rest[i..].chars().next().expect("a quote at i");
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let Some(j) = rest.find(quote) else { break };
        let inner = &rest[..j];
        let n = inner.chars().count();
        if n > 60 {
            out.extend(inner.chars().take(40));
            out.push_str(&format!("… ({n} characters in all)"));
        } else {
            out.push_str(inner);
        }
        out.push(quote);
        rest = &rest[j + 1..];
    }
    out.push_str(rest);
    out
}

fn toml_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let msg = cut_long_quotes(&e.message().replace('\n', " "));
    let at = e.span().map(|span| {
        let before = &text[..span.start.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    });
    ScenarioError::Syntax { format: "TOML", at, why: msg }
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
            ScenarioError::key(path, format!("no node named {name:?} (nodes: {}{})", known.join(", "), if net.nodes.len() > 12 { ", …" } else { "" }))
        })
    };
    let component = components(&net);
    // A flow's or a source's two ends: known nodes with a path between them.
    let ends = |p: &str, from: &str, to: &str| -> Result<(usize, usize), ScenarioError> {
        let (from, to) = (node(format!("{p}.from"), from)?, node(format!("{p}.to"), to)?);
        connected(&net, &component, from, to, p)?;
        Ok((from, to))
    };
    // The defaults are checked on their own first, so that an error in them names the key
    // written (`tcp.mss`), not the first flow it reached (`flow[0].tcp.mss`).
    let mut deprecated = Vec::new();
    let defaults = f.tcp.unwrap_or_default().nested("tcp", &mut deprecated)?;
    tcp_config(defaults.clone(), "tcp")?;
    let mut flows = Vec::new();
    let (mut groups, mut shares) = (Vec::new(), Vec::new());
    for (i, fl) in f.flow.into_iter().enumerate() {
        let p = format!("flow[{i}]");
        let (from, to) = ends(&p, &fl.from, &fl.to)?;
        let tcp = tcp_config(fl.tcp.unwrap_or_default().nested(&format!("{p}.tcp"), &mut deprecated)?.over(&defaults), &format!("{p}.tcp"))?;
        let app = app(fl.app, &format!("{p}.app"))?;
        let (start, start_jitter) = (fl.start.map_or(Duration::ZERO, |t| t.0), fl.start_jitter.map_or(Duration::ZERO, |t| t.0));
        let mut flow = Flow { from, to, start, start_jitter, app, tcp, group: None, share: None };
        flow.group = vrate::group(i, "group", fl.group, &flow, &mut groups)?;
        flow.share = vrate::group(i, "share", fl.share, &flow, &mut shares)?;
        flows.push(flow);
    }
    let mut udp = Vec::new();
    for (i, u) in f.udp.into_iter().enumerate() {
        let p = format!("udp[{i}]");
        let (from, to) = ends(&p, &u.from, &u.to)?;
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
        if c.rate.is_some_and(|r| r.0 .0 == 0) {
            return err(format!("change[{i}].rate"), "must be greater than 0bps");
        }
        if c.rate.is_some() && net.links[link].burst_bytes.is_some() {
            return err(format!("change[{i}].rate"), format!("link {:?} shapes by a token bucket (burst); its rate cannot change during a run", c.link));
        }
        if c.rate.is_none() && c.delay.is_none() && c.loss.is_none() {
            return err(format!("change[{i}]"), "changes nothing: give rate, delay or loss (or several)");
        }
        if let Some(p) = c.loss.filter(|p| !(0.0..=1.0).contains(p)) {
            return err(format!("change[{i}].loss"), format!("must be a probability in [0, 1] (got {p})"));
        }
        changes.push(Change { at: c.at.0, link, rate: c.rate.map(|r| r.0), delay: c.delay.map(|d| d.0), loss: c.loss });
    }
    let tf = f.trace.unwrap_or_default();
    let mut pcap = Vec::new();
    for (i, name) in tf.pcap.iter().enumerate() {
        pcap.push(link_by_name(&net, name, &format!("trace.pcap[{i}]"))?);
    }
    let pcap_per_link = match tf.pcap_per.as_deref() {
        None | Some("direction") => false,
        Some("link") => true,
        Some(other) => {
            return err(
                "trace.pcap_per",
                format!("\"{other}\" is not one of \"direction\" (a file per direction of a link) or \"link\" (one file, both directions)"),
            )
        }
    };
    let max_rows = tf.max_rows.map(|n| within("trace.max_rows", n, 1..=MAX_COUNT, "rows")).transpose()?;
    let interval = |key: &str, t: Option<TimeValue>| match t {
        Some(TimeValue(d)) if d == Duration::ZERO => err(key, "must be an interval greater than 0s, like \"100ms\""),
        t => Ok(t.map(|t| t.0)),
    };
    let (throughput, queues_interval) = (interval("trace.throughput", tf.throughput)?, interval("trace.queues_interval", tf.queues_interval)?);
    let queues = tf.queues.unwrap_or(true);
    if queues_interval.is_some() && !queues {
        return err("trace.queues_interval", "samples the queues trace, which trace.queues = false turns off");
    }
    let trace = Trace {
        timeseries: tf.timeseries.unwrap_or(true),
        queues,
        pcap,
        pcap_per_link,
        max_rows,
        throughput,
        rtt: tf.rtt.unwrap_or(false),
        queues_interval,
        packets: tf.packets.unwrap_or(false),
    };
    queue::check_disciplines(&net, &changes)?;
    // Events rank ports, connection ends, flows with sources, and changes by index (`Order`).
    let max = crate::engine::MAX_INDEX as usize;
    if net.links.len() * 2 > max || flows.len() * 2 > max || flows.len() + udp.len() > max || changes.len() > max {
        return err("scenario", format!("too large: at most {} links, {} flows (with udp sources) and {max} changes", max / 2, max / 2));
    }
    let header_bytes = wire_size("header_bytes", f.header_bytes.map_or(40, |s| s.0), 0)?;
    let ack_bytes = wire_size("ack_bytes", f.ack_bytes.map_or(40, |s| s.0), 1)?;
    // A token bucket passes no packet larger than itself (tc's tbf drops it).
    let largest = flows.iter().map(|f| header_bytes as u64 + f.tcp.mss_bytes as u64).chain(udp.iter().map(|u| u.packet_bytes as u64)).max();
    for (i, l) in net.links.iter().enumerate() {
        if let (Some(burst), Some(largest)) = (l.burst_bytes, largest) {
            if burst < largest {
                return err(
                    format!("topology.link[{i}].burst"),
                    format!("{burst} bytes holds no packet of {largest} bytes (header_bytes + mss); give at least that"),
                );
            }
        }
    }
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
        vrate: vrate::spec(f.vrate)?,
        groups,
        shares,
        deprecated,
    })
}

/// What is valid but likely not what was meant, one line each naming the key: a scenario
/// that sends nothing, a flow that starts at or after the end, a flow whose end is a router.
pub fn warnings(sc: &Scenario) -> Vec<String> {
    let mut out = sc.deprecated.clone();
    if sc.flows.is_empty() && sc.udp.is_empty() {
        out.push("scenario: no [[flow]] and no [[udp]]: nothing will be sent".to_string());
    }
    let mut links_at = vec![0usize; sc.net.nodes.len()];
    for l in &sc.net.links {
        links_at[l.a] += 1;
        links_at[l.b] += 1;
    }
    let secs = |d: Duration| d.as_nanos() as f64 / 1e9;
    for (i, f) in sc.flows.iter().enumerate() {
        if f.start >= sc.duration {
            out.push(format!("flow[{i}].start: {}s is not before the end of the run ({}s): the flow sends nothing", secs(f.start), secs(sc.duration)));
        }
        for (key, node) in [("from", f.from), ("to", f.to)] {
            if links_at[node] > 1 {
                let name = &sc.net.nodes[node].name;
                out.push(format!("flow[{i}].{key}: {name:?} forwards between {} links (a router); flows usually run between hosts", links_at[node]));
            }
        }
    }
    out
}

fn link_by_name(net: &NetSpec, name: &str, path: &str) -> Result<usize, ScenarioError> {
    let found = net.links.iter().position(|l: &LinkSpec| {
        let (a, b) = (&net.nodes[l.a].name, &net.nodes[l.b].name);
        name == format!("{a}-{b}") || name == format!("{b}-{a}")
    });
    found.ok_or_else(|| ScenarioError::key(path, format!("no link named {name:?} (a link is named by its two ends, like \"left-right\")")))
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
    let kind = match a.kind {
        AppKind::Bulk => "bulk",
        AppKind::Writes => "writes",
        AppKind::RequestResponse => "request-response",
        AppKind::Web => "web",
        AppKind::RateLimited => "rate-limited",
        AppKind::Requests => {
            return err(
                format!("{p}.kind"),
                "\"requests\" is now called \"writes\" (a schedule of writes on one connection); for requests answered by a server, use \"request-response\"",
            );
        }
    };
    // Every key given must belong to the kind.
    let keys: [(&str, bool, &[AppKind]); 16] = [
        ("bytes", a.bytes.is_some(), &[AppKind::Bulk]),
        ("schedule", a.schedule.is_some(), &[AppKind::Writes]),
        ("request", a.request.is_some(), &[AppKind::RequestResponse]),
        ("response", a.response.is_some(), &[AppKind::RequestResponse]),
        ("pairs", a.pairs.is_some(), &[AppKind::RequestResponse]),
        ("think", a.think.is_some(), &[AppKind::RequestResponse]),
        ("close", a.close.is_some(), &[AppKind::RequestResponse]),
        ("connections", a.connections.is_some(), &[AppKind::RequestResponse, AppKind::Web]),
        ("mean_gap", a.mean_gap.is_some(), &[AppKind::RequestResponse]),
        ("gaps", a.gaps.is_some(), &[AppKind::RequestResponse]),
        ("rate", a.rate.is_some(), &[AppKind::Web, AppKind::RateLimited]),
        ("utilization", a.utilization.is_some(), &[AppKind::Web]),
        ("http", a.http.is_some(), &[AppKind::Web]),
        ("chunk", a.chunk.is_some(), &[AppKind::RateLimited]),
        ("phases", a.phases.is_some(), &[AppKind::RateLimited]),
        ("padding", a.padding.is_some(), &[AppKind::RateLimited]),
    ];
    if let Some((key, _, _)) = keys.iter().find(|(_, given, kinds)| *given && !kinds.contains(&a.kind)) {
        return err(format!("{p}.{key}"), format!("not a key of kind = \"{kind}\" (bulk: bytes; writes: schedule; request-response: request, response, pairs, think, close, connections, mean_gap, gaps; web: rate or utilization, http, connections; rate-limited: rate, chunk, phases, padding)"));
    }
    match a.kind {
        AppKind::Bulk => {
            let bytes = match a.bytes {
                None => None, // unlimited data
                Some(b) => Some(within(format!("{p}.bytes"), b.0, 1..=MAX_COUNT, "bytes (leave it out for unlimited data)")?),
            };
            Ok(App::Bulk { bytes })
        }
        AppKind::Writes => {
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
            Ok(App::Writes { schedule })
        }
        AppKind::Web => web(a, p),
        AppKind::RateLimited => rate_limited(a, p),
        _ => request_response(a, p),
    }
}

fn web(a: AppFile, p: &str) -> Result<App, ScenarioError> {
    let rate = match a.rate {
        Some(NumberOrText::Text(t)) => return err(format!("{p}.rate"), format!("{t:?}: a web rate is a number of new connections per second (rate = 10)")),
        Some(NumberOrText::Number(r)) => Some(r),
        None => None,
    };
    let load = match (rate, a.utilization) {
        (Some(r), None) if r.is_finite() && r > 0.0 && r <= 1e6 => Load::Rate(r),
        (Some(_), None) => return err(format!("{p}.rate"), "must be a number of new connections per second in (0, 1e6]"),
        (None, Some(u)) if u.is_finite() && u > 0.0 && u <= 10.0 => Load::Utilization(u),
        (None, Some(_)) => return err(format!("{p}.utilization"), "must be a share of the bottleneck in (0, 10] (e.g. 0.5)"),
        (Some(_), Some(_)) => return err(format!("{p}.utilization"), "give rate or utilization, not both"),
        (None, None) => return err(format!("{p}.rate"), "missing: new connections per second (rate = 10), or a share of the bottleneck (utilization = 0.5)"),
    };
    let http = match a.http.as_deref() {
        None | Some("1.0") => Http::V1_0,
        Some("1.1") => Http::V1_1,
        Some(other) => return err(format!("{p}.http"), format!("{other:?} is not an HTTP version here (\"1.0\" or \"1.1\")")),
    };
    let connections = match a.connections {
        None => None,
        Some(n) => Some(within(format!("{p}.connections"), n, 1..=u32::MAX as u64, "connections")?),
    };
    Ok(App::Web(WebSpec { load, http, connections }))
}

/// Phases' times and draws must keep them in order: a phase's latest start is no later
/// than the next phase's time.
fn rate_limited(a: AppFile, p: &str) -> Result<App, ScenarioError> {
    const RATE: &str = "a rate with a unit, like \"512kbps\"";
    let rate = match a.rate {
        Some(NumberOrText::Text(t)) => match crate::units::parse_rate(&t) {
            Ok(r) if r.bps() > 0 => r,
            Ok(_) => return err(format!("{p}.rate"), format!("{} is not {RATE}, above 0", crate::units::shown(&t))),
            Err(why) => return err(format!("{p}.rate"), why.message(&crate::units::shown(&t), RATE, "bps", "10 Tbps")),
        },
        Some(NumberOrText::Number(_)) => return err(format!("{p}.rate"), format!("must be {RATE}")),
        None => return err(format!("{p}.rate"), format!("missing: the application's rate, {RATE}")),
    };
    let chunk = within(format!("{p}.chunk"), a.chunk.map_or(1000, |c| c.0), 1..=MAX_COUNT, "bytes per write")?;
    let mut phases = vec![Phase { name: "start".into(), at: Duration::ZERO, within: Duration::ZERO, rate }];
    for (i, f) in a.phases.unwrap_or_default().into_iter().enumerate() {
        let q = format!("{p}.phases[{i}]");
        let within = f.within.map_or(Duration::ZERO, |w| w.0);
        let last = phases.last().expect("the first phase");
        if i > 0 && f.at.0 < last.at + last.within {
            return err(format!("{q}.at"), format!("must not be before the previous phase's latest start ({:?} + its within)", last.at));
        }
        phases.push(Phase { name: f.name.unwrap_or_else(|| format!("phase{}", i + 1)), at: f.at.0, within, rate: f.rate.0 });
    }
    Ok(App::RateLimited(RateLimitedSpec { chunk, phases, padding: a.padding.unwrap_or(false) }))
}

fn request_response(a: AppFile, p: &str) -> Result<App, ScenarioError> {
    let size = |key: &str, v: Option<SizeValue>| match v {
        Some(v) => within(format!("{p}.{key}"), v.0, 1..=MAX_COUNT, "bytes"),
        None => err(format!("{p}.{key}"), "missing: the bytes of each (e.g. \"1KB\")"),
    };
    let exchange = ExchangeSpec {
        request_bytes: size("request", a.request)?,
        response_bytes: size("response", a.response)?,
        pairs: within(format!("{p}.pairs"), a.pairs.unwrap_or(1), 1..=u32::MAX as u64, "exchanges per connection")? as u32,
        think: a.think.map_or(Duration::ZERO, |t| t.0),
        closer: match a.close {
            None | Some(CloserFile::Server) => Closer::Server,
            Some(CloserFile::Client) => Closer::Client,
        },
    };
    let connections = within(format!("{p}.connections"), a.connections.unwrap_or(1), 1..=u32::MAX as u64, "connections")?;
    let mean_gap = match a.mean_gap {
        Some(g) if g.0 > Duration::ZERO => g.0,
        Some(_) => return err(format!("{p}.mean_gap"), "must be greater than 0s"),
        None if connections == 1 => Duration::ZERO,
        None => return err(format!("{p}.mean_gap"), "missing: the mean time between connections (e.g. \"10ms\")"),
    };
    let poisson = !matches!(a.gaps, Some(GapsFile::Fixed));
    Ok(App::RequestResponse { exchange, arrivals: Arrivals { connections, mean_gap, poisson } })
}

pub(crate) fn positive_rate(r: RateValue, path: &str) -> Result<Rate, ScenarioError> {
    if r.0 .0 == 0 {
        return err(path, "must be greater than 0bps");
    }
    Ok(r.0)
}
