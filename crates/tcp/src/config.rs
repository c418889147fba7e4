//! Per-connection configuration. A config is the factory of a connection's parts: each
//! endpoint built from it gets fresh controllers.

pub use crate::cc::StartupKind;
use crate::cc::{Avoidance, Bbr, BbrConfig, Cc, Cubic, CubicConfig, NewReno, Vegas, VegasConfig, CC_PARTS};
use crate::measure::{RtoConfig, RtoRule};
use crate::pacing::PacingConfig;
use crate::preemptive::PreemptiveConfig;
use crate::recovery::{RecoveryKind, SackPipe};
use crate::registry::{PartInfo, Refusal, Settings};
use crate::restart::{IdleThreshold, Restart};
use crate::sender::{LossWindow, RtoInRecovery, SenderConfig};
use crate::time::Duration;

/// The avoidance controller (`cc` in a scenario).
#[derive(Clone, Debug, PartialEq)]
pub enum CcKind {
    NewReno {
        byte_counting: bool,
    },
    Vegas(VegasConfig),
    Cubic(CubicConfig),
    /// BBRv1 (Linux's `tcp_bbr.c`); it paces, so a config with it has `pacing` set.
    Bbr(BbrConfig),
    /// A controller written outside the crate (`cc::external`).
    External(crate::cc::external::Factory<dyn crate::cc::ExternalController>),
}

impl CcKind {
    pub fn info(&self) -> &'static PartInfo {
        let i = match self {
            CcKind::NewReno { .. } => 0,
            CcKind::Vegas(_) => 1,
            CcKind::Cubic(_) => 2,
            CcKind::Bbr(_) => 3,
            CcKind::External(_) => return &crate::cc::external::EXTERNAL_CC,
        };
        &CC_PARTS[i]
    }

    /// The name used in scenarios and results (an external controller's own).
    pub fn name(&self) -> &str {
        match self {
            CcKind::External(f) => f.name(),
            _ => self.info().name,
        }
    }

    /// The controller named `name` with `s` its settings, slow start counting bytes or not
    /// (RFC 3465; Vegas has a slow start of its own and ignores it); None for no such
    /// controller.
    pub fn read(name: &str, s: &Settings, byte_counting: bool) -> Option<Result<CcKind, Refusal>> {
        Some(match name {
            "newreno" => Ok(CcKind::NewReno { byte_counting }),
            "vegas" => VegasConfig::read(s).map(CcKind::Vegas),
            "cubic" => CubicConfig::read(s, byte_counting).map(CcKind::Cubic),
            "bbr" => Ok(CcKind::Bbr(BbrConfig::read(s))),
            _ => return None,
        })
    }

    fn build(&self) -> Avoidance {
        match self {
            CcKind::NewReno { byte_counting } => Avoidance::NewReno(NewReno::new(*byte_counting)),
            CcKind::Vegas(cfg) => Avoidance::Vegas(Vegas::new(*cfg)),
            CcKind::Cubic(cfg) => Avoidance::Cubic(Cubic::new(*cfg)),
            CcKind::Bbr(cfg) => Avoidance::Bbr(Box::new(Bbr::new(*cfg))),
            CcKind::External(f) => Avoidance::External(f.build()),
        }
    }
}

/// Whether an endpoint offers SACK in its SYN or SYN-ACK (RFC 2018 §2). SACK is used on a
/// connection only when both ends offer it: the receiver then sends SACK blocks, and a SACK
/// sender uses them; a SACK sender whose peer did not offer it recovers as NewReno does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackPermitted {
    /// Offer it when our own loss recovery is SACK. ns-2 pairs agents this way (a Sack1
    /// sender with a SACK sink, Reno with a plain one), and the cross-checks rely on it.
    AsRecovery,
    /// Offer it whatever our recovery is, as Linux does (`net.ipv4.tcp_sack = 1`).
    Always,
    Never,
}

/// Which in-order segments a delayed-ACK receiver ACKs at once beyond RFC 5681 §4.2's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QuickAck {
    #[default]
    Off,
    /// Linux's receiver (`receiver::QUICKACK`): quick-ACK mode, every segment acknowledged at
    /// once for the first ACKs of a connection (16, for Linux's initial receive window of
    /// 64,240 bytes) and again after a receive gap longer than the RTO
    /// (`tcp_event_data_recv`); and the end of a write (PSH) acknowledged at once
    /// (`tcp_cleanup_rbuf`).
    Linux,
    /// ns-2's DelAck sink (`receiver::ACK_FIRST_SEGMENT`): the connection's first data
    /// segment.
    FirstSegment,
}

/// Whether RTT samples set the RTO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoTiming {
    /// RFC 6298: the handshake's RTT is the first sample (§3's note on SYN timing), every
    /// ACK of data never retransmitted gives one.
    #[default]
    Rfc6298,
    /// ns-2.35's `FullTcpAgent` without the timestamp option: no sample ever reaches its
    /// estimator (`srtt_` stays 0 at both ends of a connection, checked with ns-2 itself), so
    /// the RTO stays at the initial value (3 s), backed off after timeouts. RTTs are still
    /// observed (the least RTT, for RACK and Preemptive's spurious count).
    Ns2Full,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per segment.
    pub mss_bytes: u32,
    /// RFC 3390 / RFC 6928 initial window, in segments.
    pub initial_window_segments: u32,
    /// u64::MAX: no initial ssthresh (slow start until the first loss).
    pub initial_ssthresh_bytes: u64,
    /// Cap on the usable window (ns-2's `window_`); u64::MAX for none.
    pub max_window_bytes: u64,
    /// The receive window we advertise.
    pub rcv_window_bytes: u32,
    pub cc: CcKind,
    pub startup: StartupKind,
    pub recovery: RecoveryKind,
    /// Whether we offer SACK in the handshake.
    pub sack_permitted: SackPermitted,
    /// How SACK recovery counts the data in flight (only for `RecoveryKind::Sack`).
    pub sack_pipe: SackPipe,
    /// SACK recovery sends as Proportional Rate Reduction (RFC 6937, with the slow-start
    /// reduction bound) says, as Linux does; else while pipe < cwnd (RFC 6675).
    pub prr: bool,
    pub dupthresh: u32,
    pub limited_transmit: bool,
    /// Nagle's algorithm (RFC 896): a short segment waits while data is unacknowledged.
    pub nagle: bool,
    pub rto_timing: RtoTiming,
    /// RACK-TLP (RFC 8985) with SACK recovery: time-based loss marks and the tail loss probe.
    pub rack_tlp: bool,
    /// The rate-limited increase rule (draft-ietf-ccwg-ratelimited-increase; Linux and ns-3
    /// follow it): cwnd grows to at most 2·maxFS in slow start and maxFS + SMSS in
    /// congestion avoidance, maxFS the largest flight since the last reduction.
    pub rate_limited_increase: bool,
    /// The window a loss halves to give ssthresh.
    pub loss_window: LossWindow,
    /// What a timeout during fast recovery does to ssthresh.
    pub rto_in_recovery: RtoInRecovery,
    /// Delayed ACKs (RFC 5681 §4.2): ACK every `ack_every` in-order segments or after `delack_timeout`.
    pub delayed_ack: bool,
    pub ack_every: u32,
    pub delack_timeout: Duration,
    /// A delayed ACK goes at the next tick of a free-running clock of period
    /// `delack_timeout` (ticks at its multiples from time zero), as 4.4BSD's `tcp_fasttimo`
    /// sends it every 200 ms; else `delack_timeout` after its segment.
    pub delack_on_tick: bool,
    /// With delayed ACKs, the segments ACKed at once beyond RFC 5681's (one field for both
    /// receivers, so that the config stays within its bytes).
    pub quickack: QuickAck,
    /// ECN (RFC 3168): ask for it in the handshake, send new data ECT(0), echo CE marks and
    /// reduce the window on their echo.
    pub ecn: bool,
    pub rto: RtoConfig,
    /// Model the three-way handshake; without it both ends start established, and SACK is
    /// used when our own config offers it.
    pub handshake: bool,
    /// How long TIME-WAIT lasts (RFC 9293 §3.4.2: 2 MSL) before the end that closed first
    /// reaches Closed.
    pub time_wait: Duration,
    /// What the sender does when the application has data after an idle.
    pub restart: Restart,
    /// How long without outstanding data and without sending counts as idle.
    pub idle_threshold: IdleThreshold,
    /// Preemptive Retransmission (paper 002, `docs/preemptive.md`); `None`: off.
    pub preemptive: Option<PreemptiveConfig>,
    /// Pacing all the time, as Linux (with fq) and QUIC do; `None`: only a paced restart
    /// after idle spaces segments.
    pub pacing: Option<PacingConfig>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss_bytes: 1000,
            initial_window_segments: 2,
            initial_ssthresh_bytes: u64::MAX,
            max_window_bytes: u64::MAX,
            rcv_window_bytes: 1 << 30,
            cc: CcKind::NewReno { byte_counting: false },
            startup: StartupKind::SlowStart(()),
            recovery: RecoveryKind::NewReno,
            sack_permitted: SackPermitted::AsRecovery,
            sack_pipe: SackPipe::Rfc6675,
            prr: false,
            dupthresh: 3,
            limited_transmit: true,
            nagle: false,
            rto_timing: RtoTiming::Rfc6298,
            rack_tlp: false,
            rate_limited_increase: false,
            loss_window: LossWindow::FlightSize,
            rto_in_recovery: RtoInRecovery::KeepSsthresh,
            delayed_ack: false,
            ack_every: 2,
            delack_timeout: Duration::from_millis(200),
            delack_on_tick: false,
            quickack: QuickAck::Off,
            ecn: false,
            rto: RtoConfig::default(),
            handshake: true,
            // Linux's TCP_TIMEWAIT_LEN; RFC 9293's MSL of two minutes would give four.
            time_wait: Duration::from_secs(60),
            // RFC 5681 §4.1: slow-start restart SHOULD be used (ns-2's default too).
            restart: Restart::Ssr,
            idle_threshold: IdleThreshold::Rto,
            preemptive: None,
            pacing: None,
        }
    }
}

impl TcpConfig {
    /// The name of the random stream the ends of a connection draw from
    /// (`Endpoint::seed_random`), if they draw at all: BBR's first PROBE_BW phase, or the
    /// phase of ns-2's clock under `RtoRule::Ns2`.
    pub fn random_stream(&self) -> Option<&'static str> {
        match (&self.cc, self.rto.rule) {
            (CcKind::Bbr(_), _) => Some("bbr"),
            (_, RtoRule::Ns2) => Some("ns2-clock"),
            _ => None,
        }
    }

    /// The registered parts this config is made of: one of each family, and the extras
    /// switched on.
    pub fn parts(&self) -> impl Iterator<Item = &'static PartInfo> {
        let pacing = &crate::pacing::PARTS[self.pacing.map_or(0, |p| p.rate.index())];
        let extras = [
            self.rack_tlp.then_some(&crate::sender::RACK_TLP),
            self.preemptive.is_some().then_some(&crate::preemptive::INFO),
            (self.quickack == QuickAck::Linux).then_some(&crate::receiver::QUICKACK),
            (self.quickack == QuickAck::FirstSegment).then_some(&crate::receiver::ACK_FIRST_SEGMENT),
            self.ecn.then_some(&crate::ecn::INFO),
        ];
        [self.cc.info(), self.startup.info(), self.recovery.info(), self.restart.info(), pacing].into_iter().chain(extras.into_iter().flatten())
    }

    /// No part of this config acts on every segment (`PartInfo::per_segment`): an endpoint
    /// so configured runs its per-segment paths without their tests
    /// (`Endpoint::handle_segment`).
    pub fn is_plain(&self) -> bool {
        self.parts().all(|p| !p.per_segment)
    }

    /// Whether a part of this config was written outside the crate (`cc::external`): such a
    /// run is kept to one thread, as the part's own state may be shared with its maker.
    pub fn has_external_part(&self) -> bool {
        matches!(self.cc, CcKind::External(_)) || matches!(self.startup, StartupKind::External(_)) || matches!(self.restart, Restart::External(_))
    }

    /// A fresh congestion control for one endpoint: the startup composed with the controller.
    pub fn build_cc(&self) -> Cc {
        Cc::new(self.startup.build(), self.cc.build())
    }

    /// The name results show: the controller's, or with a startup other than slow start the
    /// startup's (the scenario's shorthand `cc = "hoe"` and the like), as `newreno+hoe` when
    /// the controller is not NewReno.
    pub fn cc_name(&self) -> String {
        match (&self.startup, &self.cc) {
            (StartupKind::SlowStart(()), cc) => cc.name().to_string(),
            (startup, CcKind::NewReno { .. }) => startup.name().to_string(),
            (startup, cc) => format!("{}+{}", cc.name(), startup.name()),
        }
    }

    /// Whether we put the SACK-permitted option on our SYN or SYN-ACK.
    pub fn offers_sack(&self) -> bool {
        match self.sack_permitted {
            SackPermitted::AsRecovery => self.recovery == RecoveryKind::Sack,
            SackPermitted::Always => true,
            SackPermitted::Never => false,
        }
    }

    pub fn sender_config(&self) -> SenderConfig {
        SenderConfig {
            mss_bytes: self.mss_bytes as u64,
            initial_window_segments: self.initial_window_segments,
            initial_ssthresh_bytes: self.initial_ssthresh_bytes,
            max_window_bytes: self.max_window_bytes,
            recovery: self.recovery,
            sack_pipe: self.sack_pipe,
            prr: self.prr,
            dupthresh: self.dupthresh,
            limited_transmit: self.limited_transmit,
            loss_window: self.loss_window,
            rto_in_recovery: self.rto_in_recovery,
            nagle: self.nagle,
            rack_tlp: self.rack_tlp,
            rate_limited_increase: self.rate_limited_increase,
            // BSD's and ns-2's estimators time one segment themselves (`Measure::on_segment_sent`).
            rto_samples: self.rto_timing != RtoTiming::Ns2Full && !self.rto.rule.times_one_segment(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pacing::PacingRate;
    use crate::registry::{self, Family, Settings};

    /// Every registered part, each built into a config of its own (the others at their
    /// defaults, which act on no segment).
    fn one_config_per_part() -> Vec<(&'static PartInfo, TcpConfig)> {
        let d = TcpConfig::default;
        let mut out = Vec::new();
        for p in registry::parts() {
            let cfg = match p.family {
                Family::Cc => TcpConfig {
                    cc: [
                        CcKind::NewReno { byte_counting: false },
                        CcKind::Vegas(VegasConfig::default()),
                        CcKind::Cubic(CubicConfig::default()),
                        CcKind::Bbr(BbrConfig::default()),
                    ]
                    .into_iter()
                    .find(|c| c.name() == p.name)
                    .expect("a controller for each cc part"),
                    ..d()
                },
                Family::Startup => {
                    let startup = StartupKind::read(p.name, &Settings::defaults(p)).expect("registered").expect("its defaults pass");
                    TcpConfig { startup, ..d() }
                }
                Family::Recovery => TcpConfig {
                    recovery: [RecoveryKind::Reno, RecoveryKind::NewReno, RecoveryKind::Sack].into_iter().find(|r| r.name() == p.name).expect("a recovery"),
                    ..d()
                },
                Family::Restart => {
                    let all = [
                        Restart::Nssr,
                        Restart::Ssr,
                        Restart::SsrLinux,
                        Restart::SsrNs2,
                        Restart::RbpRate { scale: 1.0 },
                        Restart::RbpCwnd { fraction: 1.0 },
                        Restart::Cwv,
                        Restart::NewCwv(Default::default()),
                        Restart::CarefulResume(Default::default()),
                    ];
                    TcpConfig { restart: all.into_iter().find(|r| r.name() == p.name).expect("a restart"), ..d() }
                }
                Family::Pacing => {
                    let rate = [PacingRate::Linux, PacingRate::Quic { n_percent: 125 }].into_iter().find(|r| crate::pacing::PARTS[r.index()].name == p.name);
                    TcpConfig { pacing: rate.map(|rate| PacingConfig { rate, unpaced_segments: 10 }), ..d() }
                }
                Family::Extra => match p.name {
                    "rack-tlp" => TcpConfig { rack_tlp: true, recovery: RecoveryKind::Sack, ..d() },
                    "preemptive" => TcpConfig { preemptive: Some(PreemptiveConfig::default()), ..d() },
                    "quickack" => TcpConfig { quickack: QuickAck::Linux, ..d() },
                    "ack-first-segment" => TcpConfig { quickack: QuickAck::FirstSegment, ..d() },
                    "ecn" => TcpConfig { ecn: true, ..d() },
                    other => panic!("no config for the extra {other}"),
                },
            };
            out.push((p, cfg));
        }
        out
    }

    /// "plain" is derived from the parts: a config is plain exactly when none of its parts
    /// acts on every segment, so a per-segment part is never built into the plain make.
    /// Each registered part is built and found among the config's parts.
    #[test]
    fn plain_is_derived_from_every_registered_part() {
        assert!(TcpConfig::default().is_plain());
        let configs = one_config_per_part();
        assert_eq!(configs.len(), registry::parts().count());
        for (p, cfg) in configs {
            assert!(cfg.parts().any(|q| q.is(p)), "{} is not among the parts of its config", p.name);
            assert_eq!(cfg.is_plain(), !p.per_segment, "{}: per_segment {} but is_plain {}", p.name, p.per_segment, cfg.is_plain());
        }
    }

    /// The parts known to act on every segment say so: BBR (a rate sample per ACK, its
    /// pacing), pacing all the time, RBP's paced restart and Careful Resume's paced
    /// Unvalidated Phase (the pacer), RACK-TLP's timers, Preemptive Retransmission, quick ACKs, ECN's
    /// codepoints and echo.
    #[test]
    fn the_per_segment_parts_are_the_known_ones() {
        let per_segment: Vec<_> = registry::parts().filter(|p| p.per_segment).map(|p| p.name).collect();
        assert_eq!(
            per_segment,
            ["bbr", "rbp-rate", "rbp-cwnd", "careful-resume", "linux", "quic", "rack-tlp", "preemptive", "quickack", "ack-first-segment", "ecn"]
        );
    }

    /// Each registered part's keys have defaults of their own unit, and the part's checks
    /// pass its defaults.
    #[test]
    fn every_part_reads_its_defaults() {
        for p in registry::parts() {
            for k in p.keys {
                assert!(k.default.is_of(k.unit), "{}.{}: default {:?} is not {:?}", p.name, k.name, k.default, k.unit);
                assert!(!k.doc.is_empty(), "{}.{} has no docs line", p.name, k.name);
            }
            assert!(!p.doc.is_empty(), "{} has no docs line", p.name);
            if let Some(read) = read_part(p, &Settings::defaults(p)) {
                assert!(read.is_ok(), "{}: its defaults are refused: {read:?}", p.name);
            }
        }
    }

    /// A part read by its family's reader, as the scenario layer reads it, shown as its
    /// config's `Debug`; None for a part chosen by a key of its own (recovery, the extras
    /// without settings). A part its family's reader does not know by its registered name
    /// fails here.
    fn read_part(p: &'static PartInfo, s: &Settings) -> Option<Result<String, Refusal>> {
        let shown = |c: &dyn std::fmt::Debug| format!("{c:?}");
        let read = match p.family {
            Family::Startup => StartupKind::read(p.name, s).map(|r| r.map(|c| shown(&c))),
            Family::Cc => CcKind::read(p.name, s, false).map(|r| r.map(|c| shown(&c))),
            Family::Restart => Restart::read(p.name, s).map(|r| r.map(|c| shown(&c))),
            Family::Pacing => PacingConfig::read(p.name, s).map(|r| r.map(|c| shown(&c))),
            Family::Extra if p.name == crate::preemptive::INFO.name => Some(PreemptiveConfig::read(s).map(|c| shown(&c))),
            Family::Recovery | Family::Extra => return None,
        };
        assert!(read.is_some(), "{}: its family's reader does not know its name", p.name);
        read
    }

    /// Each choice of a key gives a config of its own: a choice the part's reader does not
    /// tell apart from another would be read as that other one.
    #[test]
    fn every_choice_of_a_key_reads_as_a_config_of_its_own() {
        let mut checked = 0;
        for p in registry::parts() {
            for k in p.keys {
                let registry::Unit::Choice(names) = k.unit else { continue };
                let configs: Vec<String> = names
                    .iter()
                    .map(|n| {
                        let given = [(k.name, registry::Value::Choice(n))];
                        read_part(p, &Settings { part: p, mss_bytes: 1000, given: &given }).expect("read").expect("a valid choice")
                    })
                    .collect();
                for (i, c) in configs.iter().enumerate() {
                    assert!(!configs[..i].contains(c), "{}.{} = {:?} reads as another choice: {c}", p.name, k.name, names[i]);
                }
                checked += 1;
            }
        }
        assert!(checked >= 5, "only {checked} keys with choices");
    }
}
