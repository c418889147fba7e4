//! Restart after idle and window validation: what the sender does with its window when the
//! application has data again after the connection was idle (RFC 5681 §4.1, RFC 2861, paper
//! 000), and while it sends less than the window allows (window validation: RFC 2861,
//! RFC 7661, paper 003).
//!
//! One trait, `RestartPolicy`, with a part per policy (`ssr.rs`: NSSR, SSR and Linux's RFC
//! 2861 restart; `rbp.rs`: RBP/rate and RBP/cwnd; `cwv.rs`: TCP-CWV, RFC 2861 in full;
//! `new_cwv.rs`: new-CWV, paper 003 and RFC 7661; `careful_resume.rs`: Careful Resume from
//! a previous connection's saved state, draft-ietf-tsvwg-careful-resume), stored in `Part` and dispatched at one
//! point. Each connection's sender owns its part. The endpoint detects the idle
//! (`IdleThreshold`); the part answers with a decision: the window to restart with and,
//! when it paces, a `Plan` that the endpoint's `Pacer` carries out.

mod careful_resume;
mod cwv;
mod new_cwv;
mod rbp;
mod ssr;
#[cfg(test)]
mod tests;

pub use careful_resume::{CarefulResume, CarefulResumeConfig, Phase as ResumePhase, SavedPath};
pub use cwv::Cwv;
pub use new_cwv::{NewCwv, NewCwvConfig, NewCwvForm, NvpLossResponse, PipeAck};
pub use rbp::{Plan, RbpCwnd, RbpForm, RbpRate, MIN_SEGMENTS};
pub use ssr::{Nssr, Ssr, SsrLinux, SsrNs2};

use crate::cc::external::{ExternalRestart, Factory};
use crate::cc::{AckCtx, CongestionEvent, Window};
use crate::measure::Measure;
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::{Duration, Time};

/// When a connection counts as idle: nothing outstanding and no data sent for longer than
/// this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleThreshold {
    /// The current retransmission timeout (RFC 5681 §4.1, RFC 2861, Linux).
    Rto,
    Fixed(Duration),
    /// ns-2.35's: the retransmission timer that the last ACK armed expires with nothing
    /// outstanding (`tcp/tcp.cc`: `TcpAgent::newack` calls `newtimer`, which sets the timer
    /// whenever `t_seqno_` lies beyond the ACK, so also when all is acknowledged; its expiry
    /// is what `TcpAgent::timeout`, `RBPVegasTcpAgent::timeout` and `RBPRenoTcpAgent::timeout`
    /// treat as idle). Idle is then counted from that ACK, not from the last send, for the
    /// current RTO.
    RtxTimer,
}

impl IdleThreshold {
    pub fn duration(self, rto: Duration) -> Duration {
        match self {
            IdleThreshold::Rto | IdleThreshold::RtxTimer => rto,
            IdleThreshold::Fixed(d) => d,
        }
    }
}

/// The restart policy a connection is configured with; chosen by name in a scenario, and
/// built into a fresh `Part` for each connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Restart {
    /// No slow-start restart: keep cwnd (paper §2, SunOS 4.1.3).
    Nssr,
    /// Slow-start restart of RFC 5681 §4.1: cwnd = min(cwnd, IW).
    Ssr,
    /// Slow-start restart of RFC 2861 as Linux does it: cwnd halves once per RTO of idle.
    SsrLinux,
    /// Slow-start restart as ns-2.35 does it: cwnd = one segment (`ssr::ns2`).
    SsrNs2,
    /// RBP/rate (paper §3.2): pace at `scale` × the Vegas rate measured before the idle.
    RbpRate { scale: f64 },
    /// RBP/rate as ns-2.35's agent computes it (`form = "ns2"`, `rbp::RbpForm::Ns2`). A variant
    /// of its own, not a field: the config stays within the bytes the endpoint has for it.
    RbpRateNs2 { scale: f64 },
    /// RBP/cwnd (paper §3.3): pace `fraction` of NSSR's window over one smoothed RTT.
    RbpCwnd { fraction: f64 },
    /// RBP/cwnd as ns-2.35's agent computes it (`form = "ns2"`).
    RbpCwndNs2 { fraction: f64 },
    /// TCP-CWV (RFC 2861): an unused window decays, after an idle and while
    /// application-limited (paper 003's baseline).
    Cwv,
    /// new-CWV (paper 003 §3, RFC 7661): a rate-limited sender keeps its window for the
    /// non-validated period.
    NewCwv(NewCwvConfig),
    /// Careful Resume (draft-ietf-tsvwg-careful-resume): resume at half the capacity a
    /// previous connection to the peer saved, paced, then validated. Boxed: every endpoint's
    /// config holds a `Restart`, and this one would make them all larger.
    CarefulResume(Box<CarefulResumeConfig>),
    /// A policy written outside the crate (`cc::external`).
    External(Factory<dyn ExternalRestart>),
}

/// What a policy decides when the connection restarts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleDecision {
    /// The window to restart with.
    pub window: Window,
    /// Pace the first segments, when the policy paces.
    pub pace: Option<Plan>,
}

/// What a policy may read when the connection restarts.
pub struct RestartCtx<'a> {
    pub now: Time,
    pub mss: u64,
    pub initial_window_bytes: u64,
    /// What NSSR would send at once: cwnd capped by the window limit and the peer's window.
    pub usable_window_bytes: u64,
    /// Time since the last data segment was sent.
    pub idle: Duration,
    pub measure: &'a Measure,
}

/// RBP's one setting, as ns-2's `rbp_scale_`: RBP/rate's scale of the rate, RBP/cwnd's
/// fraction of the window.
const RBP_SCALE: Key = Key {
    name: "scale",
    unit: Unit::Number,
    default: Value::Number(1.0),
    doc: "RBP/rate: the rate's scale; RBP/cwnd: the share of the window paced (ns-2's rbp_scale_)",
};

/// How RBP counts and spaces the paced segments (`rbp::RbpForm`).
const RBP_FORM: Key = Key {
    name: "form",
    unit: Unit::Choice(&["paper", "ns2"]),
    default: Value::Choice("paper"),
    doc: "\"paper\": the count floored, the rate acknowledged; \"ns2\": tcp-rbp.cc's, rounded, from what was sent",
};

/// The restart policies in the registry, in `Restart`'s order. RBP paces the segments after
/// an idle, so its endpoint watches every segment for the paced train's end.
pub const PARTS: [PartInfo; 9] = [
    PartInfo { family: Family::Restart, name: "nssr", doc: "no restart: keep cwnd", keys: &[], per_segment: false },
    PartInfo { family: Family::Restart, name: "ssr", doc: "RFC 5681 §4.1: cwnd back to the initial window", keys: &[], per_segment: false },
    PartInfo { family: Family::Restart, name: "ssr-linux", doc: "RFC 2861 as Linux: cwnd halved per RTO of idle", keys: &[], per_segment: false },
    PartInfo {
        family: Family::Restart,
        name: "ssr-ns2",
        doc: "ns-2.35's slow-start restart (tcp.cc TcpAgent::timeout): cwnd back to one segment",
        keys: &[],
        per_segment: false,
    },
    PartInfo {
        family: Family::Restart,
        name: "rbp-rate",
        doc: "paper 000: rate-based pacing at the Vegas rate measured before the idle",
        keys: &[RBP_SCALE, RBP_FORM],
        per_segment: true,
    },
    PartInfo { family: Family::Restart, name: "rbp-cwnd", doc: "paper 000: pace cwnd over one srtt", keys: &[RBP_SCALE, RBP_FORM], per_segment: true },
    PartInfo {
        family: Family::Restart,
        name: "cwv",
        doc: "RFC 2861 (TCP-CWV): an unused window decays, after an idle and while application-limited",
        keys: &[],
        per_segment: false,
    },
    NewCwvConfig::INFO,
    CarefulResumeConfig::INFO,
];

impl Restart {
    pub fn info(&self) -> &'static PartInfo {
        let i = match self {
            Restart::Nssr => 0,
            Restart::Ssr => 1,
            Restart::SsrLinux => 2,
            Restart::SsrNs2 => 3,
            Restart::RbpRate { .. } | Restart::RbpRateNs2 { .. } => 4,
            Restart::RbpCwnd { .. } | Restart::RbpCwndNs2 { .. } => 5,
            Restart::Cwv => 6,
            Restart::NewCwv(_) => 7,
            Restart::CarefulResume(_) => 8,
            Restart::External(_) => return &crate::cc::external::EXTERNAL_RESTART,
        };
        &PARTS[i]
    }

    /// The name used in scenarios and results (an external policy's own).
    pub fn name(&self) -> &str {
        match self {
            Restart::External(f) => f.name(),
            _ => self.info().name,
        }
    }

    /// The policy named `name` with `s` its settings; None for no such policy.
    pub fn read(name: &str, s: &Settings) -> Option<Result<Restart, Refusal>> {
        let scale = || {
            let scale = s.number("scale");
            if scale.is_finite() && scale > 0.0 {
                Ok(scale)
            } else {
                Err(Refusal { key: "scale", why: format!("must be a number greater than 0 (got {scale})") })
            }
        };
        let ns2 = || s.choice("form") == "ns2";
        Some(match name {
            "nssr" => Ok(Restart::Nssr),
            "ssr" => Ok(Restart::Ssr),
            "ssr-linux" => Ok(Restart::SsrLinux),
            "ssr-ns2" => Ok(Restart::SsrNs2),
            "rbp-rate" => scale().map(|scale| if ns2() { Restart::RbpRateNs2 { scale } } else { Restart::RbpRate { scale } }),
            "rbp-cwnd" => scale().map(|fraction| if ns2() { Restart::RbpCwndNs2 { fraction } } else { Restart::RbpCwnd { fraction } }),
            "cwv" => Ok(Restart::Cwv),
            "new-cwv" => NewCwvConfig::read(s).map(Restart::NewCwv),
            "careful-resume" => CarefulResumeConfig::read(s).map(|c| Restart::CarefulResume(Box::new(c))),
            _ => return None,
        })
    }

    /// The policy paces past the first ACK (`RestartPolicy::pacing_interval`): the endpoint
    /// then follows its pacing after each ACK.
    pub fn paces_by_phase(&self) -> bool {
        matches!(self, Restart::CarefulResume(_))
    }

    /// A fresh part for a connection whose initial window is `initial_window_bytes`.
    pub fn build(&self, initial_window_bytes: u64) -> Part {
        match *self {
            Restart::Nssr => Part::Nssr(Nssr),
            Restart::Ssr => Part::Ssr(Ssr),
            Restart::SsrLinux => Part::SsrLinux(SsrLinux),
            Restart::SsrNs2 => Part::SsrNs2(SsrNs2),
            Restart::RbpRate { scale } => Part::RbpRate(RbpRate::new(scale, RbpForm::Paper)),
            Restart::RbpRateNs2 { scale } => Part::RbpRate(RbpRate::new(scale, RbpForm::Ns2)),
            Restart::RbpCwnd { fraction } => Part::RbpCwnd(RbpCwnd::new(fraction, RbpForm::Paper)),
            Restart::RbpCwndNs2 { fraction } => Part::RbpCwnd(RbpCwnd::new(fraction, RbpForm::Ns2)),
            Restart::Cwv => Part::Cwv(Cwv::new(initial_window_bytes)),
            Restart::NewCwv(cfg) => Part::NewCwv(Box::new(NewCwv::new(cfg, initial_window_bytes))),
            Restart::CarefulResume(ref cfg) => Part::CarefulResume(Box::new(CarefulResume::new(**cfg, initial_window_bytes))),
            Restart::External(ref f) => Part::External(f.build()),
        }
    }
}

/// What a part reads when a data segment goes out.
pub struct SentCtx {
    pub now: Time,
    /// FlightSize with the segment out.
    pub flight_bytes: u64,
    /// The window as it stands.
    pub window: Window,
}

/// What a window-validation part decides about the window on a new ACK outside recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validation {
    /// Congestion control grows the window as usual.
    Grow,
    /// The window stands still: the ACK is no evidence the path carries it (RFC 7661 §4.3).
    Hold,
    /// The window becomes this one, with no growth from the ACK.
    Set(Window),
}

/// A restart part's own figures, for the connections table: one struct, so that a part
/// with figures of its own adds a field here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RestartMetrics {
    /// Careful Resume's jump_cwnd (draft §3.3); 0 without a jump.
    pub jump_cwnd_bytes: u64,
    /// Careful Resume's window on entering Safe Retreat (draft §3.5); 0 without one.
    pub retreat_cwnd_bytes: u64,
}

/// One restart-after-idle or window-validation policy of one connection. The sender calls
/// each hook as the event happens; a part that needs no state leaves the defaults.
pub trait RestartPolicy {
    /// A data segment went out; a window change, if the part makes one (RFC 2861's rule
    /// for a sender that did not fill its window).
    fn on_sent(&mut self, _s: &SentCtx) -> Option<Window> {
        None
    }

    /// A new ACK arrived, in or out of recovery; `ctx.measure` has taken its RTT sample and
    /// its rate epoch; `w` is the window the ACK found. Outside recovery the answer decides
    /// whether congestion control grows the window.
    fn on_ack(&mut self, _w: Window, _ctx: &AckCtx) -> Validation {
        Validation::Grow
    }

    /// The application has data after an idle longer than the threshold, and nothing is
    /// outstanding; `w` is the window the idle left. Returns the window to restart with
    /// (`cc::Congestion::on_idle_end` applies it) and the pacing plan when the restart is
    /// paced; pacing then lasts until the first ACK, which calls `on_pacing_end`.
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision;

    /// The first ACK after a paced restart, before it is processed: pacing has ended and
    /// ACK clocking takes over from the `flight_bytes` outstanding. Returns the window to
    /// go on with; by default RBP's hand-back (paper 000 §3, `rbp::hand_back`), which every
    /// paced restart shares.
    fn on_pacing_end(&mut self, w: Window, flight_bytes: u64, mss: u64) -> Window {
        rbp::hand_back(w, flight_bytes, mss)
    }

    /// A congestion event (a fast retransmit, or the first timeout of the data); `w` is the
    /// window congestion control set for it. Returns a window to use instead, if the part
    /// responds on its own (new-CWV in the non-validated phase, RFC 7661 §4.4.1).
    fn on_congestion_event(&mut self, _w: Window, _ev: &CongestionEvent) -> Option<Window> {
        None
    }

    /// The retransmission timer expired.
    fn on_rto(&mut self) {}

    /// Fast recovery ended with `w` (cwnd back at ssthresh); `resent_bytes` were
    /// retransmitted during it (what it repaired: RFC 7661's R). Returns a window to use
    /// instead, if the part sets its own.
    fn on_recovery_end(&mut self, _w: Window, _resent_bytes: u64) -> Option<Window> {
        None
    }

    /// Before any data, at `now`: the parameters an earlier connection to the same peer
    /// saved (`saved_path`). A part that does not resume ignores them.
    fn resume(&mut self, _saved: SavedPath, _now: Time) {}

    /// What this connection observed of the path, for a later connection to the same peer
    /// (`resume`); None when it has nothing worth saving.
    fn saved_path(&self, _now: Time, _measure: &Measure) -> Option<SavedPath> {
        None
    }

    /// The spacing of data segments while the part paces beyond a restart's first ACK
    /// (`Restart::paces_by_phase`); None while it does not. Read after each ACK.
    fn pacing_interval(&self) -> Option<Duration> {
        None
    }

    /// The part's own figures.
    fn metrics(&self) -> RestartMetrics {
        RestartMetrics::default()
    }
}

/// The policies built in. Adding one: its file, a variant here and in `dispatch!`, and its
/// name in `Restart`.
#[derive(Clone, Debug)]
pub enum Part {
    Nssr(Nssr),
    Ssr(Ssr),
    SsrLinux(SsrLinux),
    SsrNs2(SsrNs2),
    RbpRate(RbpRate),
    RbpCwnd(RbpCwnd),
    Cwv(Cwv),
    /// Boxed: its state is several times the other parts', and every part would be that big.
    NewCwv(Box<NewCwv>),
    CarefulResume(Box<CarefulResume>),
    External(Box<dyn ExternalRestart>),
}

/// The one dispatch point: `$p` is the inner part in every arm.
macro_rules! dispatch {
    ($part:expr, $p:ident => $body:expr) => {
        match $part {
            Part::Nssr($p) => $body,
            Part::Ssr($p) => $body,
            Part::SsrLinux($p) => $body,
            Part::SsrNs2($p) => $body,
            Part::RbpRate($p) => $body,
            Part::RbpCwnd($p) => $body,
            Part::Cwv($p) => $body,
            Part::NewCwv($p) => $body,
            Part::CarefulResume($p) => $body,
            Part::External($p) => crate::cc::external::out_of_line(|| $body),
        }
    };
}

// The per-segment and per-ACK hooks are inlined into both makes of the sender's paths
// (`Sender::on_ack::<PLAIN>`, `poll::<PLAIN>`), where the plain parts' arms are a few
// instructions.
impl RestartPolicy for Part {
    #[inline(always)]
    fn on_sent(&mut self, s: &SentCtx) -> Option<Window> {
        dispatch!(self, p => p.on_sent(s))
    }
    #[inline(always)]
    fn on_ack(&mut self, w: Window, ctx: &AckCtx) -> Validation {
        dispatch!(self, p => p.on_ack(w, ctx))
    }
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        dispatch!(self, p => p.on_idle_end(w, ctx))
    }
    fn on_pacing_end(&mut self, w: Window, flight_bytes: u64, mss: u64) -> Window {
        dispatch!(self, p => p.on_pacing_end(w, flight_bytes, mss))
    }
    fn on_congestion_event(&mut self, w: Window, ev: &CongestionEvent) -> Option<Window> {
        dispatch!(self, p => p.on_congestion_event(w, ev))
    }
    fn on_rto(&mut self) {
        dispatch!(self, p => p.on_rto())
    }
    fn on_recovery_end(&mut self, w: Window, resent_bytes: u64) -> Option<Window> {
        dispatch!(self, p => p.on_recovery_end(w, resent_bytes))
    }
    fn resume(&mut self, saved: SavedPath, now: Time) {
        dispatch!(self, p => p.resume(saved, now))
    }
    fn saved_path(&self, now: Time, measure: &Measure) -> Option<SavedPath> {
        dispatch!(self, p => p.saved_path(now, measure))
    }
    fn pacing_interval(&self) -> Option<Duration> {
        dispatch!(self, p => p.pacing_interval())
    }
    fn metrics(&self) -> RestartMetrics {
        dispatch!(self, p => p.metrics())
    }
}
