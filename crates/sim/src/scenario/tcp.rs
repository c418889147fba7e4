//! A flow's `tcp` table: its keys, their defaults (`TcpConfig::default()`) and the checks
//! that turn them into a `TcpConfig`.

use rampup_tcp::cc::WindowBounds;
use rampup_tcp::measure::{RtoConfig, RtoRule};
use rampup_tcp::registry::{self, Family, Refusal};
use rampup_tcp::restart::{IdleThreshold, Restart};
use rampup_tcp::{
    CcKind, Duration, LossWindow, PacingConfig, PacingRate, PreemptiveConfig, QuickAck, RecoveryKind, RtoInRecovery, RtoTiming, SackPermitted, SackPipe,
    StartupKind, TcpConfig,
};
use serde::Deserialize;

use super::external;
use super::part::{self, PartSpec, Settings};
use super::{err, within, ScenarioError};
use crate::units::{SizeValue, TimeValue};

/// The startups whose name is also a `cc`, short for NewReno with that startup: the
/// shorthand the papers' scenarios use (`rampup list` shows it).
pub const CC_SHORTHANDS: [&str; 3] = ["hoe", "limited-slow-start", "ssthreshless"];

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
    Ns2,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum SackPipeName {
    Rfc6675,
    Sack1,
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
    /// A registered controller, or a startup's name (`CC_SHORTHANDS`): NewReno with it.
    cc: Option<PartSpec>,
    startup: Option<PartSpec>,
    restart: Option<PartSpec>,
    pacing: Option<PartSpec>,
    /// Preemptive Retransmission (paper 002) and its settings; absent: off.
    preemptive: Option<toml::Table>,
    /// The parts' settings read through the registry, whichever spelling gave them
    /// (`nested` moves them here).
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
    ack_first_segment: Option<bool>,
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
    /// "rto", "rtx-timer" or a time.
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
    /// RFC 3465 for the controllers whose slow start is RFC 5681's (NewReno, CUBIC).
    byte_counting: Option<bool>,
    /// The flat spellings of parts' settings (`DEPRECATED`).
    vegas_alpha: Option<toml::Value>,
    vegas_beta: Option<toml::Value>,
    vegas_gamma: Option<toml::Value>,
    vegas_rtt: Option<toml::Value>,
    vegas_slow_start_exit: Option<toml::Value>,
    cubic_fast_convergence: Option<toml::Value>,
    cubic_beta: Option<toml::Value>,
    ssthreshless_gamma: Option<toml::Value>,
    ssthreshless_schedule: Option<toml::Value>,
    ssthreshless_rtt_tick: Option<toml::Value>,
    max_ssthresh: Option<toml::Value>,
    rbp_scale: Option<toml::Value>,
    new_cwv_form: Option<toml::Value>,
    nvp: Option<toml::Value>,
    nvp_loss_response: Option<toml::Value>,
    pacing_n: Option<toml::Value>,
    pacing_unpaced: Option<toml::Value>,
}

/// A flat key of an earlier release that is a part's setting: the family and the parts
/// that own the setting, the setting, and the flat key with its field. Still read, with a
/// deprecation note (`part::flat`), and left out of `rampup defaults`.
pub(super) struct Deprecated {
    pub family: Family,
    pub parts: &'static [&'static str],
    pub key: &'static str,
    pub flat_key: &'static str,
    field: fn(&mut TcpFile) -> &mut Option<toml::Value>,
}

pub(super) const DEPRECATED: [Deprecated; 17] = [
    Deprecated { family: Family::Cc, parts: &["vegas"], key: "alpha", flat_key: "vegas_alpha", field: |t| &mut t.vegas_alpha },
    Deprecated { family: Family::Cc, parts: &["vegas"], key: "beta", flat_key: "vegas_beta", field: |t| &mut t.vegas_beta },
    Deprecated { family: Family::Cc, parts: &["vegas"], key: "gamma", flat_key: "vegas_gamma", field: |t| &mut t.vegas_gamma },
    Deprecated { family: Family::Cc, parts: &["vegas"], key: "rtt", flat_key: "vegas_rtt", field: |t| &mut t.vegas_rtt },
    Deprecated { family: Family::Cc, parts: &["vegas"], key: "slow_start_exit", flat_key: "vegas_slow_start_exit", field: |t| &mut t.vegas_slow_start_exit },
    Deprecated { family: Family::Cc, parts: &["cubic"], key: "fast_convergence", flat_key: "cubic_fast_convergence", field: |t| &mut t.cubic_fast_convergence },
    Deprecated { family: Family::Cc, parts: &["cubic"], key: "beta", flat_key: "cubic_beta", field: |t| &mut t.cubic_beta },
    Deprecated { family: Family::Startup, parts: &["ssthreshless"], key: "gamma", flat_key: "ssthreshless_gamma", field: |t| &mut t.ssthreshless_gamma },
    Deprecated {
        family: Family::Startup,
        parts: &["ssthreshless"],
        key: "schedule",
        flat_key: "ssthreshless_schedule",
        field: |t| &mut t.ssthreshless_schedule,
    },
    Deprecated {
        family: Family::Startup,
        parts: &["ssthreshless"],
        key: "rtt_tick",
        flat_key: "ssthreshless_rtt_tick",
        field: |t| &mut t.ssthreshless_rtt_tick,
    },
    Deprecated { family: Family::Startup, parts: &["limited-slow-start"], key: "max_ssthresh", flat_key: "max_ssthresh", field: |t| &mut t.max_ssthresh },
    Deprecated { family: Family::Restart, parts: &["rbp-rate", "rbp-cwnd"], key: "scale", flat_key: "rbp_scale", field: |t| &mut t.rbp_scale },
    Deprecated { family: Family::Restart, parts: &["new-cwv"], key: "form", flat_key: "new_cwv_form", field: |t| &mut t.new_cwv_form },
    Deprecated { family: Family::Restart, parts: &["new-cwv"], key: "nvp", flat_key: "nvp", field: |t| &mut t.nvp },
    Deprecated { family: Family::Restart, parts: &["new-cwv"], key: "loss_response", flat_key: "nvp_loss_response", field: |t| &mut t.nvp_loss_response },
    Deprecated { family: Family::Pacing, parts: &["quic"], key: "n", flat_key: "pacing_n", field: |t| &mut t.pacing_n },
    Deprecated { family: Family::Pacing, parts: &["linux", "quic"], key: "unpaced", flat_key: "pacing_unpaced", field: |t| &mut t.pacing_unpaced },
];

impl TcpFile {
    /// The parts' settings, in whichever spelling, moved into `settings` (and each part left
    /// as its name), so that the defaults and a flow merge key by key (`over`).
    pub(super) fn nested(mut self, p: &str, notes: &mut Vec<String>) -> Result<TcpFile, ScenarioError> {
        // A startup's name as `cc` takes that startup's settings (`cc = { kind =
        // "ssthreshless", gamma = 3.0 }`).
        let cc_family = |kind: &str| if CC_SHORTHANDS.contains(&kind) { Family::Startup } else { Family::Cc };
        for (spec, family, key) in [
            (&mut self.cc, None, "cc"),
            (&mut self.startup, Some(Family::Startup), "startup"),
            (&mut self.restart, Some(Family::Restart), "restart"),
            (&mut self.pacing, Some(Family::Pacing), "pacing"),
        ] {
            let Some(PartSpec { kind, settings }) = spec.take() else { continue };
            // A part written in Python keeps its table: its keys are its constructor's.
            if kind == external::KIND && family != Some(Family::Pacing) {
                *spec = Some(PartSpec { kind, settings });
                continue;
            }
            let family = family.unwrap_or_else(|| cc_family(&kind));
            if !settings.is_empty() {
                let info = part::find(family, &kind, &format!("{p}.{key}"))?;
                for (name, v) in settings {
                    let at = format!("{p}.{key}.{name}");
                    if key == "cc" && name == "byte_counting" {
                        return err(at, "a key of the tcp table: write byte_counting = true beside cc");
                    }
                    self.settings.add(part::setting(info, key, &name, v, at)?)?;
                }
            }
            *spec = Some(PartSpec { kind, settings: toml::Table::new() });
        }
        if let Some(table) = self.preemptive.take() {
            for (name, v) in table {
                self.settings.add(part::setting(&rampup_tcp::preemptive::INFO, "preemptive", &name, v, format!("{p}.preemptive.{name}"))?)?;
            }
            self.preemptive = Some(toml::Table::new());
        }
        for d in &DEPRECATED {
            let v = (d.field)(&mut self).take();
            part::flat(&mut self.settings, notes, v, (d.family, d.parts, d.key, d.flat_key), p)?;
        }
        Ok(self)
    }

    /// A setting of a part these keys need not choose (a profile's, `profile.rs`).
    pub(super) fn add_setting(&mut self, s: part::Setting) -> Result<(), ScenarioError> {
        self.settings.add(s)
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
        match self.cc.as_ref().map(|c| c.kind.as_str()) {
            Some("vegas") => (merged.startup, merged.byte_counting) = (self.startup, self.byte_counting),
            Some("bbr") => {
                // What Linux's `cong_control` bypasses: the slow start and growth, PRR, the
                // restart after idle and the rate-limited increase.
                (merged.startup, merged.byte_counting, merged.prr) = (self.startup, self.byte_counting, self.prr);
                (merged.restart, merged.rate_limited_increase) = (self.restart, self.rate_limited_increase);
            }
            _ => {}
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
            restart,
            pacing,
            preemptive,
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
            ack_first_segment,
            ecn,
            min_rto,
            initial_rto,
            max_rto,
            rto_rule,
            rto_timing,
            clock_granularity,
            handshake,
            time_wait,
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
            vegas_alpha,
            vegas_beta,
            vegas_gamma,
            vegas_rtt,
            vegas_slow_start_exit,
            cubic_fast_convergence,
            cubic_beta,
            ssthreshless_gamma,
            ssthreshless_schedule,
            ssthreshless_rtt_tick,
            max_ssthresh,
            rbp_scale,
            new_cwv_form,
            nvp,
            nvp_loss_response,
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
            Some(RtoRuleName::Ns2) => RtoRule::Ns2,
        },
    };
    if rto.rule.times_one_segment() {
        let (rule, tick) = if rto.rule == RtoRule::Ns2 { ("ns2", "\"10ms\" (ns-2.35's tcpTick_)") } else { ("bsd44", "\"500ms\" (4.4BSD's slow timer)") };
        if rto.granularity == Duration::ZERO {
            return err(format!("{p}.clock_granularity"), format!("rto_rule = \"{rule}\" counts in ticks of this clock: give one, like {tick}"));
        }
        if t.rto_timing == Some(RtoTimingName::Ns2Full) {
            return err(format!("{p}.rto_timing"), format!("\"ns2-full\" takes no sample, rto_rule = \"{rule}\" times its own: give one of them"));
        }
    }
    if rto.initial == Duration::ZERO {
        return err(format!("{p}.initial_rto"), "must be greater than 0s");
    }
    if rto.max < rto.min {
        return err(format!("{p}.max_rto"), "must not be below min_rto");
    }
    let rcv_window = t.rcv_window.map_or(d.rcv_window_bytes as u64, |s| s.0);
    if rcv_window < mss {
        return err(format!("{p}.rcv_window"), "must be at least one mss");
    }
    // A segment's window field is 32 bits (`Segment::window`); TCP itself advertises at
    // most 2^30 bytes (RFC 7323 §2.3).
    let Ok(rcv_window) = u32::try_from(rcv_window) else {
        return err(format!("{p}.rcv_window"), "must be at most 4294967295 bytes (just under 4GiB)");
    };
    let read = |family, name: &str| PartRead { t: &t, family, name: name.to_string(), mss, p };
    let bounds = WindowBounds { mss_bytes: mss, rcv_window_bytes: rcv_window as u64 };
    let startup_of = |named: Option<&str>| match t.startup.as_ref() {
        Some(s) if s.kind == external::KIND => external::read(s, &format!("{p}.startup"), bounds, |m, r| m.startup(r)).map(StartupKind::External),
        _ => read(Family::Startup, named.unwrap_or("slow-start")).with(StartupKind::read),
    };
    let byte_counting = t.byte_counting.unwrap_or(false);
    let cc_name = t.cc.as_ref().map_or("newreno", |c| c.kind.as_str());
    let shorthand = CC_SHORTHANDS.contains(&cc_name);
    if !shorthand && cc_name != external::KIND && registry::find(Family::Cc, cc_name).is_none() {
        let names: Vec<String> = registry::parts().filter(|p| p.family == Family::Cc).map(|p| p.name).chain(CC_SHORTHANDS).map(|n| format!("`{n}`")).collect();
        return err(format!("{p}.cc"), format!("unknown cc {}, expected one of {}", crate::units::shown(cc_name), names.join(", ")));
    }
    let named = t.startup.as_ref().map(|s| s.kind.as_str());
    let (cc, startup) = match (cc_name, shorthand, named) {
        ("vegas", ..) if t.byte_counting == Some(true) => {
            return err(format!("{p}.byte_counting"), "applies to cc = \"newreno\" or \"cubic\" (RFC 3465), not to cc = \"vegas\"");
        }
        ("bbr", ..) if t.byte_counting == Some(true) => {
            return err(format!("{p}.byte_counting"), "applies to cc = \"newreno\" or \"cubic\" (RFC 3465), not to cc = \"bbr\"");
        }
        ("bbr", _, Some(s)) if s != "slow-start" => {
            return err(
                format!("{p}.startup"),
                "cc = \"bbr\" has its own STARTUP (it ends when the bandwidth stops growing); a startup composes with cc = \"newreno\" or \"cubic\"",
            );
        }
        ("vegas", _, Some(s)) if s != "slow-start" => {
            let why = "cc = \"vegas\" has its own slow start (it ends when the backlog exceeds gamma); a startup composes with cc = \"newreno\" or \"cubic\"";
            return err(format!("{p}.startup"), why);
        }
        (_, true, Some(_)) => {
            return err(format!("{p}.startup"), "the cc given already names a startup (NewReno with it); give cc = \"newreno\" with the startup");
        }
        (shorthand, true, None) => (CcKind::NewReno { byte_counting }, read(Family::Startup, shorthand).with(StartupKind::read)?),
        (cc, false, named) => {
            let startup = if cc == "vegas" { StartupKind::SlowStart(()) } else { startup_of(named)? };
            let cc = match t.cc.as_ref() {
                Some(spec) if cc == external::KIND => CcKind::External(external::read(spec, &format!("{p}.cc"), bounds, |m, r| m.controller(r))?),
                _ => read(Family::Cc, cc).with(|name, s| CcKind::read(name, s, byte_counting))?,
            };
            (cc, startup)
        }
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
        Some(_) => Some(read(Family::Extra, "preemptive").with(|_, s| Some(PreemptiveConfig::read(s)))?),
    };
    let bbr = matches!(cc, CcKind::Bbr(_));
    if bbr && t.prr == Some(true) {
        return err(format!("{p}.prr"), "cc = \"bbr\" sets cwnd in recovery itself (Linux's cong_control bypasses PRR): leave prr out");
    }
    if bbr && t.rate_limited_increase == Some(true) {
        return err(format!("{p}.rate_limited_increase"), "cc = \"bbr\" sets cwnd itself (Linux's cong_control bypasses tcp_cong_avoid): leave it out");
    }
    if bbr && t.restart.as_ref().is_some_and(|r| r.kind != "nssr") {
        return err(format!("{p}.restart"), "cc = \"bbr\" restarts from idle itself (bbr_cwnd_event): leave restart out or give \"nssr\"");
    }
    let restart = match &t.restart {
        // Linux skips slow-start restart for a controller with `cong_control`
        // (`tcp_slow_start_after_idle_check`): BBR restarts from idle at its own rate.
        None if bbr => Restart::Nssr,
        None => d.restart.clone(),
        Some(r) if r.kind == external::KIND => Restart::External(external::read(r, &format!("{p}.restart"), bounds, |m, r| m.restart(r))?),
        Some(r) => read(Family::Restart, &r.kind).with(Restart::read)?,
    };
    // A controller with its own pacing rate (`CongestionControl::pacing_rate`) is paced
    // all the time, from the 11th data segment as Linux does.
    let own_rate = bbr || matches!(&cc, CcKind::External(f) if f.sets_pacing_rate());
    let pacing = match &t.pacing {
        None if own_rate => Some(PacingConfig { rate: PacingRate::Linux, unpaced_segments: PacingConfig::LINUX_UNPACED_SEGMENTS }),
        None => None,
        Some(r) => read(Family::Pacing, &r.kind).with(PacingConfig::read)?,
    };
    if own_rate && !bbr && pacing.is_none() {
        return err(
            format!("{p}.pacing"),
            "the Python controller sets its own rate (pacing_rate_bps), which \"none\" would ignore: leave pacing out or give \"linux\" or \"quic\"",
        );
    }
    if bbr && pacing.is_none_or(|c| c.rate != PacingRate::Linux) {
        return err(format!("{p}.pacing"), "cc = \"bbr\" paces at its own rate (bbr_set_pacing_rate): leave pacing out or give \"linux\"");
    }
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
        quickack: quickack(&t, d.quickack, p)?,
        ecn: t.ecn.unwrap_or(d.ecn),
        rto,
        handshake: t.handshake.unwrap_or(d.handshake),
        time_wait: t.time_wait.map_or(d.time_wait, |v| v.0),
        restart,
        idle_threshold: match t.idle_threshold.as_deref() {
            None => d.idle_threshold,
            Some("rto") => IdleThreshold::Rto,
            Some("rtx-timer") => IdleThreshold::RtxTimer,
            Some(v) => match crate::units::parse_duration(v) {
                Ok(d) => IdleThreshold::Fixed(d),
                Err(why) => {
                    let msg = why.message(&crate::units::shown(v), "\"rto\", \"rtx-timer\" or a time like \"500ms\"", "ns", "2^64 ns");
                    return err(format!("{p}.idle_threshold"), msg);
                }
            },
        },
        preemptive,
        pacing,
    })
}

/// `quickack = true` (Linux's receiver) or `ack_first_segment = true` (ns-2's DelAck sink):
/// one of them at most.
fn quickack(t: &TcpFile, d: QuickAck, p: &str) -> Result<QuickAck, ScenarioError> {
    match (t.quickack, t.ack_first_segment) {
        (Some(true), Some(true)) => err(format!("{p}.ack_first_segment"), "quickack = true already ACKs the first segments at once: give one of them"),
        (Some(true), _) => Ok(QuickAck::Linux),
        (_, Some(true)) => Ok(QuickAck::FirstSegment),
        (None, None) => Ok(d),
        _ => Ok(QuickAck::Off),
    }
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

/// A part of `family` named `name`, to be read with its settings by the part's own checks.
struct PartRead<'a> {
    t: &'a TcpFile,
    family: Family,
    name: String,
    mss: u64,
    p: &'a str,
}

impl PartRead<'_> {
    /// The part as `read` makes it of its settings; a refusal names where the setting was
    /// given (or where it would go, for a default the part refuses in this context).
    fn with<T>(self, read: impl FnOnce(&str, &registry::Settings) -> Option<Result<T, Refusal>>) -> Result<T, ScenarioError> {
        let at = match self.family {
            Family::Extra => format!("{}.{}", self.p, self.name),
            f => format!("{}.{}", self.p, f.key()),
        };
        let info = part::find(self.family, &self.name, &at)?;
        let given = self.t.settings.of(info);
        let settings = registry::Settings { part: info, mss_bytes: self.mss, given: &given };
        read(&self.name, &settings).expect("a registered part reads").map_err(|r| {
            let given_at = self.t.settings.at(info, r.key).map_or_else(|| format!("{at}.{}", r.key), str::to_string);
            ScenarioError::key(given_at, r.why)
        })
    }
}
