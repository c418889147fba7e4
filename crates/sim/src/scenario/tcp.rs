//! A flow's `tcp` table: its keys, their defaults (`TcpConfig::default()`) and the checks
//! that turn them into a `TcpConfig`.

use rampup_tcp::cc::{CubicConfig, VegasConfig, VegasRtt, VegasSlowStartExit};
use rampup_tcp::measure::{RtoConfig, RtoRule};
use rampup_tcp::registry::{self, Family};
use rampup_tcp::restart::{IdleThreshold, NewCwvConfig, NewCwvForm, NvpLossResponse, Restart};
use rampup_tcp::{
    CcKind, Duration, LossWindow, PacingConfig, PacingRate, PreemptiveConfig, RecoveryKind, RtoInRecovery, RtoTiming, SackPermitted, SackPipe, StartupKind,
    TcpConfig,
};
use serde::de::{self, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::{fmt, marker::PhantomData};

use super::part::{self, PartSpec, Settings};
use super::{err, within, ScenarioError, MAX_COUNT};
use crate::units::{SizeValue, TimeValue};

/// The controller; a startup's name is shorthand for NewReno with that startup.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum CcName {
    Newreno,
    Vegas,
    Cubic,
    Ssthreshless,
    Hoe,
    LimitedSlowStart,
}

/// The startups whose name is also a `cc`, short for NewReno with that startup: the
/// shorthand the papers' scenarios use (`rampup list` shows it).
pub const CC_SHORTHANDS: [&str; 3] = ["hoe", "limited-slow-start", "ssthreshless"];

impl CcName {
    /// The startup (one of `CC_SHORTHANDS`) that a startup's name given as `cc` stands for.
    fn startup(self) -> Option<&'static str> {
        match self {
            CcName::Hoe => Some(CC_SHORTHANDS[0]),
            CcName::LimitedSlowStart => Some(CC_SHORTHANDS[1]),
            CcName::Ssthreshless => Some(CC_SHORTHANDS[2]),
            CcName::Newreno | CcName::Vegas | CcName::Cubic => None,
        }
    }
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
    Cwv,
    NewCwv,
}

/// new-CWV's description (`rampup_tcp::restart::NewCwvForm`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum NewCwvFormName {
    Paper,
    Rfc7661,
}

/// new-CWV's answer to a loss in the non-validated phase.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum NvpLossResponseName {
    HalfUsed,
    RestartWindow,
    Standard,
}

/// Whether an end offers SACK in its handshake (`rampup_tcp::SackPermitted`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum SackPermittedName {
    AsRecovery,
    Always,
    Never,
}

/// When samples are taken and the RTO read (`rampup_tcp::RtoTiming`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum RtoTimingName {
    Rfc6298,
    Ns2Full,
}

/// How the RTO follows the RTT (`rampup_tcp::measure::RtoRule`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum RtoRuleName {
    Rfc6298,
    Linux,
    Bsd44,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum SackPipeName {
    Rfc6675,
    Sack1,
}

/// Pacing all the time (`rampup_tcp::PacingRate`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum PacingName {
    None,
    Linux,
    Quic,
}

/// A named set of keys (`profile.rs`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(super) enum ProfileName {
    Linux,
    Ns2,
    Bsd44,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct TcpFile {
    profile: Option<ProfileName>,
    cc: Option<Part<CcName, CcTable>>,
    /// A registered startup; its settings move to `settings` (`nested`).
    startup: Option<PartSpec>,
    /// The parts' settings read through the registry, whichever spelling gave them.
    #[serde(skip)]
    settings: Settings,
    recovery: Option<RecoveryName>,
    mss: Option<SizeValue>,
    initial_window: Option<u32>,
    initial_ssthresh: Option<u64>,
    max_window: Option<u64>,
    rcv_window: Option<SizeValue>,
    delayed_ack: Option<bool>,
    ack_every: Option<u32>,
    delack_timeout: Option<TimeValue>,
    delack_on_tick: Option<bool>,
    quickack: Option<bool>,
    /// ECN, RFC 3168 (`TcpConfig::ecn`).
    ecn: Option<bool>,
    min_rto: Option<TimeValue>,
    initial_rto: Option<TimeValue>,
    max_rto: Option<TimeValue>,
    rto_rule: Option<RtoRuleName>,
    rto_timing: Option<RtoTimingName>,
    clock_granularity: Option<TimeValue>,
    handshake: Option<bool>,
    time_wait: Option<TimeValue>,
    restart: Option<Part<RestartName, RestartTable>>,
    rbp_scale: Option<f64>,
    new_cwv_form: Option<NewCwvFormName>,
    nvp: Option<TimeValue>,
    nvp_loss_response: Option<NvpLossResponseName>,
    /// "rto" or a time.
    idle_threshold: Option<String>,
    limited_transmit: Option<bool>,
    nagle: Option<bool>,
    rack_tlp: Option<bool>,
    rate_limited_increase: Option<bool>,
    rto_in_recovery: Option<RtoInRecoveryName>,
    sack_pipe: Option<SackPipeName>,
    prr: Option<bool>,
    sack_permitted: Option<SackPermittedName>,
    loss_window: Option<LossWindowName>,
    dupthresh: Option<u32>,
    byte_counting: Option<bool>,
    cubic_fast_convergence: Option<bool>,
    cubic_beta: Option<f64>,
    vegas_alpha: Option<f64>,
    vegas_beta: Option<f64>,
    vegas_gamma: Option<f64>,
    vegas_rtt: Option<VegasRttName>,
    vegas_slow_start_exit: Option<VegasExitName>,
    /// Deprecated spellings of `startup` settings (`part::flat`).
    ssthreshless_gamma: Option<toml::Value>,
    ssthreshless_schedule: Option<toml::Value>,
    ssthreshless_rtt_tick: Option<toml::Value>,
    max_ssthresh: Option<toml::Value>,
    /// Preemptive Retransmission (paper 002); absent: off.
    preemptive: Option<PreemptiveFile>,
    pacing: Option<PacingName>,
    pacing_n: Option<f64>,
    pacing_unpaced: Option<u32>,
}

/// The flat keys of an earlier release that now are a part's settings: still read, with a
/// deprecation note (`part::flat`), and left out of `rampup defaults`.
pub(super) const DEPRECATED: [[&str; 3]; 4] = [
    ["ssthreshless", "gamma", "ssthreshless_gamma"],
    ["ssthreshless", "schedule", "ssthreshless_schedule"],
    ["ssthreshless", "rtt_tick", "ssthreshless_rtt_tick"],
    ["limited-slow-start", "max_ssthresh", "max_ssthresh"],
];

/// `preemptive = { factor = 3, cutout = "80KiB" }`; both keys optional.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct PreemptiveFile {
    factor: Option<f64>,
    cutout: Option<SizeValue>,
}

/// A part of the TCP given by its name (`cc = "vegas"`, its defaults) or as a table with
/// its `kind` and settings (`cc = { kind = "vegas", alpha = 2.0 }`): one serde description
/// per part. The flat keys (`vegas_alpha`) stay as the short form of the same settings;
/// `TcpFile::nested` moves a table's settings onto them.
#[derive(Debug, Clone, PartialEq)]
enum Part<N, T> {
    Name(N),
    Table(T),
}

impl<'de, N: Deserialize<'de>, T: Deserialize<'de>> Deserialize<'de> for Part<N, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either<N, T>(PhantomData<(N, T)>);
        impl<'de, N: Deserialize<'de>, T: Deserialize<'de>> Visitor<'de> for Either<N, T> {
            type Value = Part<N, T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a name, or a table with its `kind` and settings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                N::deserialize(v.into_deserializer()).map(Part::Name)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Part::Table)
            }
        }
        d.deserialize_any(Either(PhantomData))
    }
}

impl<N: Copy, T> Part<N, T> {
    fn name(&self, kind: impl Fn(&T) -> N) -> N {
        match self {
            Part::Name(n) => *n,
            Part::Table(t) => kind(t),
        }
    }
}

/// `cc = { kind = "vegas", alpha = 1.0, beta = 3.0, gamma = 1.0, rtt = "mean", slow_start_exit = "eighth" }`,
/// `cc = { kind = "newreno", byte_counting = true }`, `cc = { kind = "cubic", fast_convergence = false, beta = 0.8 }`; a startup's name as `kind` takes that
/// startup's settings (`cc = { kind = "ssthreshless", gamma = 3.0 }`).
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct CcTable {
    kind: CcName,
    byte_counting: Option<bool>,
    fast_convergence: Option<bool>,
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<toml::Value>,
    rtt: Option<VegasRttName>,
    slow_start_exit: Option<VegasExitName>,
    schedule: Option<toml::Value>,
    rtt_tick: Option<toml::Value>,
    max_ssthresh: Option<toml::Value>,
}

/// `restart = { kind = "rbp-rate", scale = 0.5 }`,
/// `restart = { kind = "new-cwv", form = "paper", nvp = "180s", loss_response = "standard" }`.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
struct RestartTable {
    kind: RestartName,
    scale: Option<f64>,
    form: Option<NewCwvFormName>,
    nvp: Option<TimeValue>,
    loss_response: Option<NvpLossResponseName>,
}

/// Moves a part table's setting `part.name` onto its flat key: refused where the part's
/// kind has no such setting (`applies` names the kinds that do) or the flat key is given too.
fn put<V>(flat: &mut Option<V>, nested: Option<V>, [part, name, flat_key]: [&str; 3], applies: Option<&str>, p: &str) -> Result<(), ScenarioError> {
    let Some(v) = nested else { return Ok(()) };
    if let Some(kinds) = applies {
        return err(format!("{p}.{part}.{name}"), format!("applies to {part} kind {kinds} only"));
    }
    if flat.is_some() {
        return err(format!("{p}.{flat_key}"), format!("given twice: also as {part}.{name}; keep one"));
    }
    *flat = Some(v);
    Ok(())
}

impl TcpFile {
    /// The part tables' settings moved onto the flat keys (and each part left as its name),
    /// so that the defaults and a flow merge key by key (`over`) whichever form each uses.
    pub(super) fn nested(mut self, p: &str, notes: &mut Vec<String>) -> Result<TcpFile, ScenarioError> {
        if let Some(Part::Table(c)) = &self.cc {
            let c = c.clone();
            self.cc = Some(Part::Name(c.kind));
            let only = |kind: CcName, kinds: &'static str| (c.kind != kind).then_some(kinds);
            let vegas = only(CcName::Vegas, "\"vegas\"");
            put(
                &mut self.byte_counting,
                c.byte_counting,
                ["cc", "byte_counting", "byte_counting"],
                (c.kind == CcName::Vegas).then_some("\"newreno\" or a startup's name"),
                p,
            )?;
            put(
                &mut self.cubic_fast_convergence,
                c.fast_convergence,
                ["cc", "fast_convergence", "cubic_fast_convergence"],
                only(CcName::Cubic, "\"cubic\""),
                p,
            )?;
            put(&mut self.vegas_alpha, c.alpha, ["cc", "alpha", "vegas_alpha"], vegas, p)?;
            let beta = match c.kind {
                CcName::Cubic => (&mut self.cubic_beta, "cubic_beta", None),
                _ => (&mut self.vegas_beta, "vegas_beta", only(CcName::Vegas, "\"vegas\" or \"cubic\"")),
            };
            put(beta.0, c.beta, ["cc", "beta", beta.1], beta.2, p)?;
            put(&mut self.vegas_rtt, c.rtt, ["cc", "rtt", "vegas_rtt"], vegas, p)?;
            put(&mut self.vegas_slow_start_exit, c.slow_start_exit, ["cc", "slow_start_exit", "vegas_slow_start_exit"], vegas, p)?;
            let startup_settings = [("gamma", c.gamma), ("schedule", c.schedule), ("rtt_tick", c.rtt_tick), ("max_ssthresh", c.max_ssthresh)];
            for (key, v) in startup_settings {
                let Some(v) = v else { continue };
                match (c.kind, c.kind.startup()) {
                    (CcName::Vegas, _) if key == "gamma" => {
                        let gamma = f64::deserialize(v).map_err(|e| ScenarioError(format!("{p}.cc.gamma: {}", e.message())))?;
                        put(&mut self.vegas_gamma, Some(gamma), ["cc", "gamma", "vegas_gamma"], None, p)?;
                    }
                    // The cc names a startup that has the key: the setting is that startup's.
                    (_, Some(startup)) if registry::find(Family::Startup, startup).is_some_and(|s| s.key(key).is_some()) => {
                        let info = part::find(Family::Startup, startup, &format!("{p}.cc"))?;
                        self.settings.add(part::setting(info, key, v, format!("{p}.cc.{key}"))?)?;
                    }
                    _ => {
                        let kinds = if key == "gamma" { "\"vegas\" or \"ssthreshless\"" } else { "\"ssthreshless\"" };
                        let kinds = if key == "max_ssthresh" { "\"limited-slow-start\"" } else { kinds };
                        return err(format!("{p}.cc.{key}"), format!("applies to cc kind {kinds} only"));
                    }
                }
            }
        }
        if let Some(spec) = self.startup.take() {
            let info = part::find(Family::Startup, &spec.kind, &format!("{p}.startup"))?;
            for (key, v) in spec.settings {
                let at = format!("{p}.startup.{key}");
                self.settings.add(part::setting(info, &key, v, at)?)?;
            }
            self.startup = Some(PartSpec { kind: spec.kind, settings: toml::Table::new() });
        }
        let flat = [self.ssthreshless_gamma.take(), self.ssthreshless_schedule.take(), self.ssthreshless_rtt_tick.take(), self.max_ssthresh.take()];
        for (v, names) in flat.into_iter().zip(DEPRECATED) {
            part::flat(&mut self.settings, notes, v, Family::Startup, names, p)?;
        }
        if let Some(Part::Table(r)) = self.restart {
            self.restart = Some(Part::Name(r.kind));
            let rbp = (!matches!(r.kind, RestartName::RbpRate | RestartName::RbpCwnd)).then_some("\"rbp-rate\" or \"rbp-cwnd\"");
            put(&mut self.rbp_scale, r.scale, ["restart", "scale", "rbp_scale"], rbp, p)?;
            let cwv = (r.kind != RestartName::NewCwv).then_some("\"new-cwv\"");
            put(&mut self.new_cwv_form, r.form, ["restart", "form", "new_cwv_form"], cwv, p)?;
            put(&mut self.nvp, r.nvp, ["restart", "nvp", "nvp"], cwv, p)?;
            put(&mut self.nvp_loss_response, r.loss_response, ["restart", "loss_response", "nvp_loss_response"], cwv, p)?;
        }
        Ok(self)
    }

    /// These keys over their profile's (`profile.rs`), if they name one. Where the keys
    /// given choose a part the profile's settings do not fit (a recovery other than SACK, or
    /// Vegas with its own slow start and growth), those settings are left out, not refused.
    fn with_profile(self) -> TcpFile {
        let Some(name) = self.profile else { return self };
        let mut merged = self.clone().over(&super::profile::keys(name));
        if self.recovery.is_some_and(|r| r != RecoveryName::Sack) {
            (merged.rack_tlp, merged.prr, merged.sack_permitted) = (self.rack_tlp, self.prr, self.sack_permitted);
        }
        if self.cc.as_ref().is_some_and(|c| c.name(|t| t.kind) == CcName::Vegas) {
            (merged.startup, merged.byte_counting) = (self.startup, self.byte_counting);
        }
        merged
    }

    /// Keys set here win over `defaults`.
    pub(super) fn over(self, d: &TcpFile) -> TcpFile {
        macro_rules! pick {
            ($($f:ident),*) => { TcpFile { settings: self.settings.over(&d.settings), $($f: self.$f.or(d.$f.clone()),)* } };
        }
        pick!(
            profile,
            cc,
            startup,
            recovery,
            mss,
            initial_window,
            initial_ssthresh,
            max_window,
            rcv_window,
            delayed_ack,
            ack_every,
            delack_timeout,
            delack_on_tick,
            quickack,
            ecn,
            min_rto,
            initial_rto,
            max_rto,
            rto_rule,
            rto_timing,
            clock_granularity,
            handshake,
            time_wait,
            restart,
            rbp_scale,
            new_cwv_form,
            nvp,
            nvp_loss_response,
            idle_threshold,
            limited_transmit,
            nagle,
            rack_tlp,
            rate_limited_increase,
            rto_in_recovery,
            sack_pipe,
            prr,
            sack_permitted,
            loss_window,
            dupthresh,
            byte_counting,
            cubic_fast_convergence,
            cubic_beta,
            vegas_alpha,
            vegas_beta,
            vegas_gamma,
            vegas_rtt,
            vegas_slow_start_exit,
            ssthreshless_gamma,
            ssthreshless_schedule,
            ssthreshless_rtt_tick,
            max_ssthresh,
            preemptive,
            pacing,
            pacing_n,
            pacing_unpaced
        )
    }
}

pub(super) fn tcp_config(t: TcpFile, p: &str) -> Result<TcpConfig, ScenarioError> {
    let t = t.with_profile();
    let d = TcpConfig::default();
    let mss = t.mss.map_or(d.mss_bytes as u64, |s| s.0);
    if mss == 0 || mss > 65_535 {
        return err(format!("{p}.mss"), format!("must be 1..=65535 bytes (got {mss})"));
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
    // RFC 6928 stops at 10 segments; startup studies go beyond (IW 16, 32, 64 and more).
    let iw = at_least_one("initial_window", t.initial_window, d.initial_window_segments)?;
    let rto = RtoConfig {
        initial: t.initial_rto.map_or(d.rto.initial, |v| v.0),
        min: t.min_rto.map_or(d.rto.min, |v| v.0),
        max: t.max_rto.map_or(d.rto.max, |v| v.0),
        granularity: t.clock_granularity.map_or(d.rto.granularity, |v| v.0),
        rule: match t.rto_rule {
            None => d.rto.rule,
            Some(RtoRuleName::Rfc6298) => RtoRule::Rfc6298,
            Some(RtoRuleName::Linux) => RtoRule::Linux,
            Some(RtoRuleName::Bsd44) => RtoRule::Bsd44,
        },
    };
    if rto.rule == RtoRule::Bsd44 && rto.granularity == Duration::ZERO {
        return err(format!("{p}.clock_granularity"), "rto_rule = \"bsd44\" counts in ticks of this clock: give one, like \"500ms\" (4.4BSD's slow timer)");
    }
    if rto.rule == RtoRule::Bsd44 && t.rto_timing == Some(RtoTimingName::Ns2Full) {
        return err(format!("{p}.rto_timing"), "\"ns2-full\" takes no sample, rto_rule = \"bsd44\" times its own: give one of them");
    }
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
    // A registered startup, read with its settings (`rampup_tcp::registry`).
    let startup_kind = |name: &str| -> Result<StartupKind, ScenarioError> {
        let info = part::find(Family::Startup, name, &format!("{p}.startup"))?;
        let given = t.settings.of(info);
        let read = StartupKind::read(name, &registry::Settings { part: info, mss_bytes: mss, given: &given }).expect("a registered startup reads");
        read.map_err(|r| {
            let at = t.settings.at(info, r.key).map_or_else(|| format!("{p}.startup.{}", r.key), str::to_string);
            ScenarioError(format!("{at}: {}", r.why))
        })
    };
    let byte_counting = t.byte_counting.unwrap_or(false);
    let newreno = CcKind::NewReno { byte_counting };
    let cc_name = t.cc.as_ref().map_or(CcName::Newreno, |c| c.name(|t| t.kind));
    if cc_name != CcName::Cubic && t.cubic_fast_convergence.is_some() {
        return err(format!("{p}.cubic_fast_convergence"), "applies to cc = \"cubic\" only");
    }
    if cc_name != CcName::Cubic && t.cubic_beta.is_some() {
        return err(format!("{p}.cubic_beta"), "applies to cc = \"cubic\" only");
    }
    let named = t.startup.as_ref().map(|s| s.kind.as_str());
    let (cc, startup) = match (cc_name, cc_name.startup(), named) {
        (CcName::Vegas, ..) if t.byte_counting == Some(true) => {
            return err(format!("{p}.byte_counting"), "applies to cc = \"newreno\" or \"cubic\" (RFC 3465), not to cc = \"vegas\"");
        }
        (CcName::Cubic, _, named) => {
            let fast_convergence = t.cubic_fast_convergence.unwrap_or(CubicConfig::default().fast_convergence);
            let beta = t.cubic_beta.unwrap_or(CubicConfig::RFC_9438_BETA_PERMILLE as f64 / 1000.0);
            // Thousandths: RFC 9438's 0.7 exactly; ns-2.35's 819/1024 as 0.8.
            if !(0.001..=0.999).contains(&beta) {
                return err(format!("{p}.cubic_beta"), format!("must be a number above 0 and below 1, like 0.7 (got {beta})"));
            }
            let beta_permille = (beta * 1000.0).round() as u64;
            (CcKind::Cubic(CubicConfig { fast_convergence, byte_counting, beta_permille }), startup_kind(named.unwrap_or("slow-start"))?)
        }
        (CcName::Vegas, _, None | Some("slow-start")) => (CcKind::Vegas(vegas), StartupKind::SlowStart(())),
        (CcName::Vegas, _, Some(_)) => {
            let why =
                "cc = \"vegas\" has its own slow start (it ends when the backlog exceeds vegas_gamma); a startup composes with cc = \"newreno\" or \"cubic\"";
            return err(format!("{p}.startup"), why);
        }
        (_, Some(_), Some(_)) => {
            return err(format!("{p}.startup"), "the cc given already names a startup (NewReno with it); give cc = \"newreno\" with the startup");
        }
        (_, shorthand, named) => (newreno, startup_kind(shorthand.or(named).unwrap_or("slow-start"))?),
    };
    let recovery = match t.recovery.unwrap_or(RecoveryName::Newreno) {
        RecoveryName::Reno => RecoveryKind::Reno,
        RecoveryName::Newreno => RecoveryKind::NewReno,
        RecoveryName::Sack => RecoveryKind::Sack,
    };
    if t.prr == Some(true) && (recovery != RecoveryKind::Sack || t.sack_pipe == Some(SackPipeName::Sack1)) {
        return err(format!("{p}.prr"), "PRR (RFC 6937) reads RFC 6675's pipe: give recovery = \"sack\" (with sack_pipe = \"rfc6675\") with it");
    }
    if t.rack_tlp == Some(true) && recovery != RecoveryKind::Sack {
        return err(format!("{p}.rack_tlp"), "RACK-TLP (RFC 8985) needs SACK: give recovery = \"sack\" with it");
    }
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
        startup,
        recovery,
        dupthresh: at_least_one("dupthresh", t.dupthresh, d.dupthresh)?,
        limited_transmit: t.limited_transmit.unwrap_or(d.limited_transmit),
        nagle: t.nagle.unwrap_or(d.nagle),
        rack_tlp: t.rack_tlp.unwrap_or(d.rack_tlp),
        rate_limited_increase: t.rate_limited_increase.unwrap_or(d.rate_limited_increase),
        rto_timing: match t.rto_timing {
            None => d.rto_timing,
            Some(RtoTimingName::Rfc6298) => RtoTiming::Rfc6298,
            Some(RtoTimingName::Ns2Full) => RtoTiming::Ns2Full,
        },
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
        prr: t.prr.unwrap_or(d.prr),
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
        delack_on_tick: delack_on_tick(&t, &d, p)?,
        quickack: t.quickack.unwrap_or(d.quickack),
        ecn: t.ecn.unwrap_or(d.ecn),
        rto,
        handshake: t.handshake.unwrap_or(d.handshake),
        time_wait: t.time_wait.map_or(d.time_wait, |v| v.0),
        restart: restart(&t, p)?,
        idle_threshold: match t.idle_threshold.as_deref() {
            None => d.idle_threshold,
            Some("rto") => IdleThreshold::Rto,
            Some(v) => match crate::units::parse_duration(v) {
                Ok(d) => IdleThreshold::Fixed(d),
                Err(why) => {
                    let msg = why.message(&crate::units::shown(v), "\"rto\" or a time like \"500ms\"", "ns", "2^64 ns");
                    return err(format!("{p}.idle_threshold"), msg);
                }
            },
        },
        preemptive,
        pacing: pacing(&t, p)?,
    })
}

/// `delack_on_tick = true`: the delayed ACK at the next tick of a clock of period
/// `delack_timeout`, which must then be a time.
fn delack_on_tick(t: &TcpFile, d: &TcpConfig, p: &str) -> Result<bool, ScenarioError> {
    let on = t.delack_on_tick.unwrap_or(d.delack_on_tick);
    if on && t.delack_timeout.map_or(d.delack_timeout, |v| v.0) == Duration::ZERO {
        return err(format!("{p}.delack_timeout"), "is the period of the clock delack_on_tick ticks on: must be greater than 0s");
    }
    Ok(on)
}

/// `pacing = "linux"` or `"quic"` (with `pacing_n`), `pacing_unpaced` segments first.
fn pacing(t: &TcpFile, p: &str) -> Result<Option<PacingConfig>, ScenarioError> {
    let name = t.pacing.unwrap_or(PacingName::None);
    if t.pacing_n.is_some() && name != PacingName::Quic {
        return err(format!("{p}.pacing_n"), "applies to pacing = \"quic\" only");
    }
    if t.pacing_unpaced.is_some() && name == PacingName::None {
        return err(format!("{p}.pacing_unpaced"), "applies with pacing = \"linux\" or \"quic\" only");
    }
    let n = t.pacing_n.unwrap_or(PacingConfig::QUIC_N_PERCENT as f64 / 100.0);
    // RFC 9002 §7.7: N small, but at least 1.
    if !(1.0..=100.0).contains(&n) {
        return err(format!("{p}.pacing_n"), format!("must be a number from 1 to 100, like 1.25 (got {n})"));
    }
    let rate = match name {
        PacingName::None => return Ok(None),
        PacingName::Linux => PacingRate::Linux,
        PacingName::Quic => PacingRate::Quic { n_percent: (n * 100.0).round() as u32 },
    };
    let unpaced_segments = t.pacing_unpaced.unwrap_or(PacingConfig::LINUX_UNPACED_SEGMENTS);
    Ok(Some(PacingConfig { rate, unpaced_segments }))
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
fn restart(t: &TcpFile, p: &str) -> Result<Restart, ScenarioError> {
    let scale = t.rbp_scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return err(format!("{p}.rbp_scale"), "must be a number greater than 0");
    }
    let name = t.restart.as_ref().map(|r| r.name(|t| t.kind));
    if name != Some(RestartName::NewCwv) {
        let given = [("new_cwv_form", t.new_cwv_form.is_some()), ("nvp", t.nvp.is_some()), ("nvp_loss_response", t.nvp_loss_response.is_some())];
        if let Some((key, _)) = given.iter().find(|(_, g)| *g) {
            return err(format!("{p}.{key}"), "applies to restart = \"new-cwv\" only");
        }
    }
    Ok(match name {
        None => TcpConfig::default().restart,
        Some(RestartName::Nssr) => Restart::Nssr,
        Some(RestartName::Ssr) => Restart::Ssr,
        Some(RestartName::SsrLinux) => Restart::SsrLinux,
        Some(RestartName::RbpRate) => Restart::RbpRate { scale },
        Some(RestartName::RbpCwnd) => Restart::RbpCwnd { fraction: scale },
        Some(RestartName::Cwv) => Restart::Cwv,
        Some(RestartName::NewCwv) => Restart::NewCwv(new_cwv(t, p)?),
    })
}

fn new_cwv(t: &TcpFile, p: &str) -> Result<NewCwvConfig, ScenarioError> {
    let d = NewCwvConfig::default();
    let nvp = t.nvp.map_or(d.nvp, |v| v.0);
    if nvp == Duration::ZERO {
        return err(format!("{p}.nvp"), "must be a time greater than 0, like \"300s\"");
    }
    Ok(NewCwvConfig {
        form: match t.new_cwv_form {
            None => d.form,
            Some(NewCwvFormName::Paper) => NewCwvForm::Paper,
            Some(NewCwvFormName::Rfc7661) => NewCwvForm::Rfc7661,
        },
        loss_response: match t.nvp_loss_response {
            None => d.loss_response,
            Some(NvpLossResponseName::HalfUsed) => NvpLossResponse::HalfUsed,
            Some(NvpLossResponseName::RestartWindow) => NvpLossResponse::RestartWindow,
            Some(NvpLossResponseName::Standard) => NvpLossResponse::Standard,
        },
        nvp,
    })
}
