//! Topology builders: a scenario's `[topology]` table becomes a list of nodes and
//! full-duplex links. The runtime network (`net.rs`) is built from that list alone.

use rampup_tcp::{Duration, Rate};
use serde::de::{self, IntoDeserializer, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::{fmt, marker::PhantomData};

use super::{positive_rate, QueueFile, ScenarioError};
use crate::queue::QueueKind;
use crate::units::{RateValue, SizeValue, TimeValue};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// Packets in the system, the one being serialised included (as ns-2's DropTail).
    Packets(u64),
    Bytes(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
}

/// A full-duplex point-to-point link; each direction has its own output queue.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    pub rate: Rate,
    pub delay: Duration,
    /// Each direction's output queue: a→b (at a) and b→a (at b).
    pub queue: [QueueLimit; 2],
    /// Each direction's queue discipline (`None`: drop-tail), as `queue`.
    pub discipline: [Option<QueueKind>; 2],
    /// Probability that a packet is lost in transit, a→b and b→a.
    pub loss: [f64; 2],
    /// Probability that a packet arrives twice.
    pub duplicate: f64,
    /// Probability that a packet is held back by `reorder_delay`, letting later ones pass.
    pub reorder: f64,
    pub reorder_delay: Duration,
    /// Uniform extra delay in [0, jitter] that keeps packets in order (avoids phase effects).
    pub jitter: Duration,
    /// Shape by a token bucket of this many bytes instead of serialising (tc's `tbf`, see
    /// `net::Bucket`), both directions.
    pub burst_bytes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct NetSpec {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
}

impl NetSpec {
    fn node(&mut self, name: String) -> usize {
        self.nodes.push(NodeSpec { name });
        self.nodes.len() - 1
    }
    fn link(&mut self, a: usize, b: usize, rate: Rate, delay: Duration, queue: QueueLimit) -> &mut LinkSpec {
        self.links.push(LinkSpec {
            a,
            b,
            rate,
            delay,
            queue: [queue; 2],
            discipline: [None; 2],
            loss: [0.0; 2],
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::ZERO,
            jitter: Duration::ZERO,
            burst_bytes: None,
        });
        self.links.last_mut().unwrap()
    }
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TopologyKind {
    Dumbbell,
    Lan,
    Custom,
}

/// The `[topology]` table. One flat table for all kinds, so that every error names its key;
/// keys that do not belong to the chosen kind are refused in `build`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct TopologyFile {
    kind: TopologyKind,
    // dumbbell
    pairs: Option<u32>,
    access_rate: Option<PerPair<RateValue>>,
    access_delay: Option<PerPair<TimeValue>>,
    access_queue: Option<QueueFile>,
    left_access_rate: Option<PerPair<RateValue>>,
    left_access_delay: Option<PerPair<TimeValue>>,
    right_access_rate: Option<PerPair<RateValue>>,
    right_access_delay: Option<PerPair<TimeValue>>,
    bottleneck_rate: Option<RateValue>,
    bottleneck_delay: Option<TimeValue>,
    bottleneck_queue: Option<QueueFile>,
    loss: Option<f64>,
    // lan
    hosts: Option<Vec<LanHost>>,
    delay: Option<TimeValue>,
    queue: Option<QueueFile>,
    host_queue: Option<QueueFile>,
    jitter: Option<TimeValue>,
    interswitch_rate: Option<RateValue>,
    // custom
    nodes: Option<Vec<String>>,
    link: Option<Vec<LinkFile>>,
}

/// A dumbbell's access setting: one value for every pair, or a list with one per pair
/// (`access_delay = ["1ms", "5ms", "20ms"]`: flows of different RTTs on one dumbbell).
#[derive(Debug, Clone)]
enum PerPair<T> {
    All(T),
    Each(Vec<T>),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for PerPair<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct OneOrList<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrList<T> {
            type Value = PerPair<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a value, or a list of one value per pair")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerPair::All)
            }
            // A number: the value's own error ("a time with a unit, …").
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerPair::All)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(PerPair::All)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::<T>::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(PerPair::Each)
            }
        }
        d.deserialize_any(OneOrList(PhantomData))
    }
}

impl<T: Copy> PerPair<T> {
    /// The value of each of `pairs` pairs; a list must have one per pair.
    fn each(&self, pairs: u32, key: &str) -> Result<Vec<T>, ScenarioError> {
        match self {
            PerPair::All(v) => Ok(vec![*v; pairs as usize]),
            PerPair::Each(vs) if vs.len() == pairs as usize => Ok(vs.clone()),
            PerPair::Each(vs) => fail(key, format!("a list of {} values for {pairs} pairs: give one per pair, or one value for all", vs.len())),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct LanHost {
    name: String,
    rate: RateValue,
    /// 1 (switch "sw", the default) or 2 (switch "sw2", joined to "sw" by the inter-switch link).
    switch: Option<u32>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct LinkFile {
    a: String,
    b: String,
    rate: RateValue,
    delay: TimeValue,
    queue: Option<QueueFile>,
    loss: Option<f64>,
    duplicate: Option<f64>,
    reorder: Option<f64>,
    reorder_delay: Option<TimeValue>,
    jitter: Option<TimeValue>,
    burst: Option<SizeValue>,
}

/// Far beyond any experiment here; it keeps a typo from allocating the machine's memory.
const MAX_PAIRS: u32 = 1_000_000;

const DEFAULT_QUEUE: QueueLimit = QueueLimit::Packets(1000);

fn fail<T>(path: &str, msg: impl AsRef<str>) -> Result<T, ScenarioError> {
    Err(ScenarioError::key(path, msg.as_ref()))
}

fn probability(v: Option<f64>, path: &str) -> Result<f64, ScenarioError> {
    match v {
        None => Ok(0.0),
        Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Some(p) => fail(path, format!("must be a probability in [0, 1] (got {p})")),
    }
}

/// A queue key's limit (`default` if left out) and discipline.
fn queue(q: Option<QueueFile>, path: &str, default: QueueLimit) -> Result<(QueueLimit, Option<QueueKind>), ScenarioError> {
    match q {
        None => Ok((default, None)),
        Some(q) => Ok((q.limit(path, default)?, q.discipline(path)?)),
    }
}

fn required<T>(v: Option<T>, path: &str) -> Result<T, ScenarioError> {
    v.ok_or_else(|| ScenarioError::key(path, "missing"))
}

pub fn build(t: &TopologyFile) -> Result<NetSpec, ScenarioError> {
    let (kind_name, allowed): (&str, &[&str]) = match t.kind {
        TopologyKind::Dumbbell => (
            "dumbbell",
            &[
                "pairs",
                "access_rate",
                "access_delay",
                "access_queue",
                "left_access_rate",
                "left_access_delay",
                "right_access_rate",
                "right_access_delay",
                "bottleneck_rate",
                "bottleneck_delay",
                "bottleneck_queue",
                "loss",
            ],
        ),
        TopologyKind::Lan => ("lan", &["hosts", "delay", "queue", "host_queue", "jitter", "interswitch_rate"]),
        TopologyKind::Custom => ("custom", &["nodes", "link"]),
    };
    let present: [(&str, bool); 19] = [
        ("pairs", t.pairs.is_some()),
        ("access_rate", t.access_rate.is_some()),
        ("access_delay", t.access_delay.is_some()),
        ("access_queue", t.access_queue.is_some()),
        ("left_access_rate", t.left_access_rate.is_some()),
        ("left_access_delay", t.left_access_delay.is_some()),
        ("right_access_rate", t.right_access_rate.is_some()),
        ("right_access_delay", t.right_access_delay.is_some()),
        ("bottleneck_rate", t.bottleneck_rate.is_some()),
        ("bottleneck_delay", t.bottleneck_delay.is_some()),
        ("bottleneck_queue", t.bottleneck_queue.is_some()),
        ("loss", t.loss.is_some()),
        ("hosts", t.hosts.is_some()),
        ("delay", t.delay.is_some()),
        ("queue", t.queue.is_some()),
        ("host_queue", t.host_queue.is_some()),
        ("jitter", t.jitter.is_some()),
        ("interswitch_rate", t.interswitch_rate.is_some()),
        ("nodes", t.nodes.is_some() || t.link.is_some()),
    ];
    for (key, set) in present {
        if set && !allowed.contains(&key) {
            return fail(&format!("topology.{key}"), format!("not a key of a {kind_name} topology (allowed: kind, {})", allowed.join(", ")));
        }
    }
    match t.kind {
        TopologyKind::Dumbbell => dumbbell(t),
        TopologyKind::Lan => lan(t),
        TopologyKind::Custom => custom(t),
    }
}

/// Senders s0..s{n-1} on router "left", receivers r0..r{n-1} on router "right".
fn dumbbell(t: &TopologyFile) -> Result<NetSpec, ScenarioError> {
    let pairs = t.pairs.unwrap_or(1);
    if !(1..=MAX_PAIRS).contains(&pairs) {
        return fail("topology.pairs", format!("must be 1..={MAX_PAIRS} (got {pairs})"));
    }
    // Each side's rate and delay per pair: its own key, else the access_* key, for every pair.
    let side = |own: &Option<PerPair<RateValue>>, own_key: &str, delay: &Option<PerPair<TimeValue>>, delay_key: &str| {
        let (rates, rate_key) = match own {
            Some(r) => (r, own_key),
            None => (t.access_rate.as_ref().ok_or_else(|| ScenarioError::key("topology.access_rate", "missing"))?, "access_rate"),
        };
        let (delays, delay_key) = match delay {
            Some(d) => (d, delay_key),
            None => (t.access_delay.as_ref().ok_or_else(|| ScenarioError::key("topology.access_delay", "missing"))?, "access_delay"),
        };
        let rates = rates.each(pairs, &format!("topology.{rate_key}"))?;
        let rates = rates.into_iter().map(|r| positive_rate(r, &format!("topology.{rate_key}"))).collect::<Result<Vec<_>, _>>()?;
        let delays = delays.each(pairs, &format!("topology.{delay_key}"))?.into_iter().map(|d| d.0).collect::<Vec<_>>();
        Ok::<_, ScenarioError>((rates, delays))
    };
    let (lr, ld) = side(&t.left_access_rate, "left_access_rate", &t.left_access_delay, "left_access_delay")?;
    let (rr, rd) = side(&t.right_access_rate, "right_access_rate", &t.right_access_delay, "right_access_delay")?;
    let bn_rate = positive_rate(required(t.bottleneck_rate, "topology.bottleneck_rate")?, "topology.bottleneck_rate")?;
    let bn_delay = required(t.bottleneck_delay, "topology.bottleneck_delay")?.0;
    let (access_queue, access_discipline) = queue(t.access_queue, "topology.access_queue", DEFAULT_QUEUE)?;
    let (bn_queue, bn_discipline) = queue(t.bottleneck_queue, "topology.bottleneck_queue", DEFAULT_QUEUE)?;
    let loss = probability(t.loss, "topology.loss")?;

    let mut net = NetSpec::default();
    let left = net.node("left".into());
    let right = net.node("right".into());
    // Random loss hits the data direction only, as the Mathis et al. model assumes.
    let bn = net.link(left, right, bn_rate, bn_delay, bn_queue);
    bn.loss = [loss, 0.0];
    bn.discipline = [bn_discipline; 2];
    for i in 0..pairs as usize {
        let s = net.node(format!("s{i}"));
        net.link(s, left, lr[i], ld[i], access_queue).discipline = [access_discipline; 2];
    }
    for i in 0..pairs as usize {
        let r = net.node(format!("r{i}"));
        net.link(right, r, rr[i], rd[i], access_queue).discipline = [access_discipline; 2];
    }
    Ok(net)
}

/// One switch "sw", each host on its own link; or two, "sw" and "sw2", joined by an
/// inter-switch link (paper 004 §5's second configuration), each host on the switch its
/// `switch` names. Every link, the inter-switch one too, has the LAN's delay, queue and jitter;
/// a host's own interface has `host_queue` (paper 004 §5 gives 30 buffers per switch port and
/// nothing for the hosts), the LAN's queue when it is left out.
fn lan(t: &TopologyFile) -> Result<NetSpec, ScenarioError> {
    let hosts = required(t.hosts.as_ref(), "topology.hosts")?;
    if hosts.is_empty() {
        return fail("topology.hosts", "must list at least one host");
    }
    let delay = t.delay.map_or(Duration::from_millis(1), |d| d.0);
    let (q, discipline) = queue(t.queue, "topology.queue", QueueLimit::Packets(30))?;
    let (host_q, host_discipline) = match t.host_queue {
        None => (q, discipline),
        h => queue(h, "topology.host_queue", q)?,
    };
    let jitter = t.jitter.map_or(Duration::ZERO, |d| d.0);
    for (i, h) in hosts.iter().enumerate() {
        if let Some(k @ (0 | 3..)) = h.switch {
            return fail(&format!("topology.hosts[{i}].switch"), format!("must be 1 or 2 (got {k})"));
        }
    }
    let two_switches = hosts.iter().any(|h| h.switch == Some(2));
    let mut net = NetSpec::default();
    let sw = net.node("sw".into());
    let sw2 = match (two_switches, t.interswitch_rate) {
        (true, Some(rate)) => {
            let sw2 = net.node("sw2".into());
            let l = net.link(sw, sw2, positive_rate(rate, "topology.interswitch_rate")?, delay, q);
            l.jitter = jitter;
            l.discipline = [discipline; 2];
            sw2
        }
        (true, None) => return fail("topology.interswitch_rate", "missing: a host is on switch 2, and the link that joins the switches needs a rate"),
        (false, Some(_)) => return fail("topology.interswitch_rate", "every host is on switch 1: put a host on switch 2 (switch = 2), or leave this out"),
        (false, None) => sw,
    };
    for (i, h) in hosts.iter().enumerate() {
        let rate = positive_rate(h.rate, &format!("topology.hosts[{i}].rate"))?;
        let at = if h.switch == Some(2) { sw2 } else { sw };
        unique_name(&net, &h.name, &format!("topology.hosts[{i}].name"))?;
        let n = net.node(h.name.clone());
        let link = net.link(n, at, rate, delay, q);
        link.queue[0] = host_q; // host -> switch: the host's own interface
        link.discipline = [host_discipline, discipline];
        link.jitter = jitter;
    }
    Ok(net)
}

fn unique_name(net: &NetSpec, name: &str, path: &str) -> Result<(), ScenarioError> {
    if name.is_empty() || name.contains(['-', '>', ' ']) {
        return fail(path, "a node name must be non-empty, without spaces, '-' or '>'");
    }
    if net.nodes.iter().any(|n| n.name == name) {
        return fail(path, format!("node {name:?} is defined twice"));
    }
    Ok(())
}

fn custom(t: &TopologyFile) -> Result<NetSpec, ScenarioError> {
    let names = required(t.nodes.as_ref(), "topology.nodes")?;
    let mut net = NetSpec::default();
    for (i, n) in names.iter().enumerate() {
        unique_name(&net, n, &format!("topology.nodes[{i}]"))?;
        net.node(n.clone());
    }
    let find = |name: &str, path: &str| -> Result<usize, ScenarioError> {
        names.iter().position(|n| n == name).ok_or_else(|| ScenarioError::key(path, format!("no node named {name:?} (nodes: {})", names.join(", "))))
    };
    for (i, l) in t.link.iter().flatten().enumerate() {
        let p = format!("topology.link[{i}]");
        let a = find(&l.a, &format!("{p}.a"))?;
        let b = find(&l.b, &format!("{p}.b"))?;
        if a == b {
            return fail(&format!("{p}.b"), "a link needs two different nodes");
        }
        let rate = positive_rate(l.rate, &format!("{p}.rate"))?;
        let (q, discipline) = queue(l.queue, &format!("{p}.queue"), DEFAULT_QUEUE)?;
        let loss = probability(l.loss, &format!("{p}.loss"))?;
        let duplicate = probability(l.duplicate, &format!("{p}.duplicate"))?;
        let reorder = probability(l.reorder, &format!("{p}.reorder"))?;
        let spec = net.link(a, b, rate, l.delay.0, q);
        spec.discipline = [discipline; 2];
        spec.loss = [loss, loss];
        spec.duplicate = duplicate;
        spec.reorder = reorder;
        spec.reorder_delay = l.reorder_delay.map_or(Duration::ZERO, |d| d.0);
        spec.jitter = l.jitter.map_or(Duration::ZERO, |d| d.0);
        spec.burst_bytes = match l.burst {
            Some(b) if b.0 == 0 => return fail(&format!("{p}.burst"), "must be at least one packet's bytes (got 0)"),
            b => b.map(|b| b.0),
        };
    }
    Ok(net)
}
