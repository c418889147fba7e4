//! A queue as a scenario writes it (`bottleneck_queue`, `access_queue`, a LAN's `queue`, a
//! custom link's `queue`): its limit, `{ packets = N }` or `{ bytes = N }`, and its
//! discipline, `kind = "drop-tail"` (the default), `"red"`, `"codel"`, `"fq-codel"` or
//! `"pie"`, with that discipline's own keys (docs/queues.md).

use rampup_tcp::Duration;
use serde::Deserialize;

use super::topology::{LinkSpec, NetSpec, QueueLimit};
use super::{err, within, Change, ScenarioError, MAX_COUNT};
use crate::queue::{CoDelParams, ControlLaw, FqCoDelParams, PieParams, QueueKind, RedParams};
use crate::units::{SizeValue, TimeValue};

#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "kebab-case")]
enum KindFile {
    DropTail,
    Red,
    Codel,
    FqCodel,
    Pie,
}

/// CoDel's `control_law`: RFC 8289's exact root or Linux's (and ns-3's) Newton steps.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "kebab-case")]
enum ControlLawFile {
    Rfc8289,
    Linux,
}

/// Linux's `fq_codel` limit (RFC 8290 §5.2.5).
pub const FQ_CODEL_LIMIT_PACKETS: u64 = 10_240;

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct QueueFile {
    packets: Option<u64>,
    bytes: Option<SizeValue>,
    kind: Option<KindFile>,
    // CoDel, FQ-CoDel (and PIE's target).
    target: Option<TimeValue>,
    interval: Option<TimeValue>,
    mtu: Option<SizeValue>,
    control_law: Option<ControlLawFile>,
    // Every discipline but drop-tail.
    ecn: Option<bool>,
    // FQ-CoDel.
    flows: Option<u64>,
    quantum: Option<SizeValue>,
    memory_limit: Option<SizeValue>,
    // RED.
    min_th: Option<f64>,
    max_th: Option<f64>,
    max_p: Option<f64>,
    w_q: Option<f64>,
    gentle: Option<bool>,
    wait: Option<bool>,
    byte_mode: Option<bool>,
    mark_p: Option<f64>,
    // RED and PIE.
    mean_pktsize: Option<SizeValue>,
    // PIE.
    t_update: Option<TimeValue>,
    alpha: Option<f64>,
    beta: Option<f64>,
    max_burst: Option<TimeValue>,
    derandomize: Option<bool>,
    mark_ecnth: Option<f64>,
}

impl QueueFile {
    /// The limit. When a discipline is named and no limit is given: FQ-CoDel's own, Linux's
    /// 10,240 packets (RFC 8290 §5.2.5), for the others `default`, the key's drop-tail one.
    pub fn limit(&self, path: &str, default: QueueLimit) -> Result<QueueLimit, ScenarioError> {
        match (self.packets, self.bytes) {
            (Some(n), None) => Ok(QueueLimit::Packets(within(format!("{path}.packets"), n, 1..=MAX_COUNT, "packets")?)),
            (None, Some(b)) => Ok(QueueLimit::Bytes(within(format!("{path}.bytes"), b.0, 1..=MAX_COUNT, "bytes")?)),
            (None, None) if self.kind == Some(KindFile::FqCodel) => Ok(QueueLimit::Packets(FQ_CODEL_LIMIT_PACKETS)),
            (None, None) if self.kind.is_some() => Ok(default),
            _ => err(path, "give exactly one of packets = N or bytes = N"),
        }
    }

    /// The discipline, `None` for drop-tail. Each key belongs to the kinds listed in
    /// `keys`; one given to another kind is refused, naming the kind's keys.
    pub fn discipline(&self, path: &str) -> Result<Option<QueueKind>, ScenarioError> {
        let kind = self.kind.unwrap_or(KindFile::DropTail);
        let allowed: &[&str] = match kind {
            KindFile::DropTail => &[],
            KindFile::Red => &["ecn", "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "byte_mode", "mark_p", "mean_pktsize"],
            KindFile::Codel => &["ecn", "target", "interval", "mtu", "control_law"],
            KindFile::FqCodel => &["ecn", "target", "interval", "mtu", "control_law", "flows", "quantum", "memory_limit"],
            KindFile::Pie => &["ecn", "target", "t_update", "alpha", "beta", "max_burst", "derandomize", "mark_ecnth", "mean_pktsize"],
        };
        for (key, set) in self.keys() {
            if set && !allowed.contains(&key) {
                let name = ["drop-tail", "red", "codel", "fq-codel", "pie"][kind as usize];
                let keys = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
                return err(format!("{path}.{key}"), format!("not a key of a {name} queue (its keys: packets, bytes, kind, {keys})"));
            }
        }
        let ecn = self.ecn.unwrap_or(false);
        let time = |v: Option<TimeValue>, key: &str, default: Duration| match v {
            Some(t) if t.0 == Duration::ZERO => err(format!("{path}.{key}"), "must be greater than 0s"),
            Some(t) => Ok(t.0),
            None => Ok(default),
        };
        let bytes = |v: Option<SizeValue>, key: &str, default: u64, max: u64| match v {
            Some(b) => within(format!("{path}.{key}"), b.0, 1..=max, "bytes"),
            None => Ok(default),
        };
        let codel = |d: CoDelParams| -> Result<CoDelParams, ScenarioError> {
            Ok(CoDelParams {
                target: time(self.target, "target", d.target)?,
                interval: time(self.interval, "interval", d.interval)?,
                mtu_bytes: bytes(self.mtu, "mtu", d.mtu_bytes as u64, 65_535)? as u32,
                ecn,
                control_law: match self.control_law {
                    None => d.control_law,
                    Some(ControlLawFile::Rfc8289) => ControlLaw::Rfc8289,
                    Some(ControlLawFile::Linux) => ControlLaw::Linux,
                },
            })
        };
        Ok(Some(match kind {
            KindFile::DropTail => return Ok(None),
            KindFile::Codel => QueueKind::CoDel(codel(CoDelParams::default())?),
            KindFile::FqCodel => {
                let d = FqCoDelParams::default();
                QueueKind::FqCoDel(FqCoDelParams {
                    flows: within(format!("{path}.flows"), self.flows.unwrap_or(d.flows as u64), 1..=65_536, "queues")? as u32,
                    quantum_bytes: bytes(self.quantum, "quantum", d.quantum_bytes as u64, 1 << 20)? as u32,
                    memory_limit_bytes: bytes(self.memory_limit, "memory_limit", d.memory_limit_bytes, MAX_COUNT)?,
                    codel: codel(d.codel)?,
                })
            }
            KindFile::Red => {
                let d = RedParams::default();
                let min_th = positive(self.min_th, &format!("{path}.min_th"), d.min_th)?;
                let max_th = positive(self.max_th, &format!("{path}.max_th"), d.max_th)?;
                if max_th <= min_th {
                    return err(format!("{path}.max_th"), format!("must be greater than min_th ({min_th})"));
                }
                let max_p = probability(self.max_p, &format!("{path}.max_p"), d.max_p)?;
                QueueKind::Red(RedParams {
                    min_th,
                    max_th,
                    max_p,
                    w_q: probability(self.w_q, &format!("{path}.w_q"), d.w_q)?,
                    gentle: self.gentle.unwrap_or(d.gentle),
                    wait: self.wait.unwrap_or(d.wait),
                    byte_mode: self.byte_mode.unwrap_or(d.byte_mode),
                    mean_pktsize_bytes: bytes(self.mean_pktsize, "mean_pktsize", d.mean_pktsize_bytes as u64, 65_535)? as u32,
                    ecn,
                    // Unset, marks end where max_p is reached, whatever max_p is.
                    mark_p: probability(self.mark_p, &format!("{path}.mark_p"), max_p)?,
                })
            }
            KindFile::Pie => {
                let d = PieParams::default();
                QueueKind::Pie(PieParams {
                    target: time(self.target, "target", d.target)?,
                    t_update: time(self.t_update, "t_update", d.t_update)?,
                    alpha: positive(self.alpha, &format!("{path}.alpha"), d.alpha)?,
                    beta: positive(self.beta, &format!("{path}.beta"), d.beta)?,
                    max_burst: self.max_burst.map_or(d.max_burst, |t| t.0),
                    derandomize: self.derandomize.unwrap_or(d.derandomize),
                    ecn,
                    mark_ecnth: probability(self.mark_ecnth, &format!("{path}.mark_ecnth"), d.mark_ecnth)?,
                    mean_pktsize_bytes: bytes(self.mean_pktsize, "mean_pktsize", d.mean_pktsize_bytes as u64, 65_535)? as u32,
                })
            }
        }))
    }

    fn keys(&self) -> [(&'static str, bool); 23] {
        [
            ("ecn", self.ecn.is_some()),
            ("target", self.target.is_some()),
            ("interval", self.interval.is_some()),
            ("mtu", self.mtu.is_some()),
            ("control_law", self.control_law.is_some()),
            ("flows", self.flows.is_some()),
            ("quantum", self.quantum.is_some()),
            ("memory_limit", self.memory_limit.is_some()),
            ("min_th", self.min_th.is_some()),
            ("max_th", self.max_th.is_some()),
            ("max_p", self.max_p.is_some()),
            ("w_q", self.w_q.is_some()),
            ("gentle", self.gentle.is_some()),
            ("wait", self.wait.is_some()),
            ("byte_mode", self.byte_mode.is_some()),
            ("mark_p", self.mark_p.is_some()),
            ("mean_pktsize", self.mean_pktsize.is_some()),
            ("t_update", self.t_update.is_some()),
            ("alpha", self.alpha.is_some()),
            ("beta", self.beta.is_some()),
            ("max_burst", self.max_burst.is_some()),
            ("derandomize", self.derandomize.is_some()),
            ("mark_ecnth", self.mark_ecnth.is_some()),
        ]
    }
}

fn probability(v: Option<f64>, path: &str, default: f64) -> Result<f64, ScenarioError> {
    match v {
        None => Ok(default),
        Some(p) if p > 0.0 && p <= 1.0 => Ok(p),
        Some(p) => err(path, format!("must be a probability in (0, 1] (got {p})")),
    }
}

fn positive(v: Option<f64>, path: &str, default: f64) -> Result<f64, ScenarioError> {
    match v {
        None => Ok(default),
        Some(x) if x > 0.0 && x.is_finite() => Ok(x),
        Some(x) => err(path, format!("must be a number greater than 0 (got {x})")),
    }
}

/// What a port with a discipline does not (yet) combine with: a token bucket (tc's `tbf`
/// has a drop-tail child queue here), a `[[change]]` of its rate under RED or PIE (RED's
/// idle decay and PIE's delay estimate take the rate as fixed; CoDel and FQ-CoDel read only
/// sojourn times, RFC 8289 §5).
pub(super) fn check_disciplines(net: &NetSpec, changes: &[Change]) -> Result<(), ScenarioError> {
    let disciplined = |l: &LinkSpec| l.discipline.iter().any(Option::is_some);
    let name = |l: &LinkSpec| format!("{}-{}", net.nodes[l.a].name, net.nodes[l.b].name);
    for (i, l) in net.links.iter().enumerate().filter(|(_, l)| disciplined(l)) {
        if l.burst_bytes.is_some() {
            return err(format!("topology.link[{i}].burst"), "a link with a queue discipline cannot shape by a token bucket: leave out one of them");
        }
    }
    let rate_bound = |l: &LinkSpec| l.discipline.iter().flatten().find(|d| matches!(d, QueueKind::Red(_) | QueueKind::Pie(_))).map(QueueKind::name);
    for (i, c) in changes.iter().enumerate().filter(|(_, c)| c.rate.is_some()) {
        if let Some(kind) = rate_bound(&net.links[c.link]) {
            let why = format!(
                "link {:?} runs {kind}, which takes the link's rate as fixed; its rate cannot change during a run (under codel or fq-codel it can)",
                name(&net.links[c.link])
            );
            return err(format!("change[{i}].rate"), why);
        }
    }
    Ok(())
}
