//! Restart after idle and window validation: what the sender does with its window when the
//! application has data again after the connection was idle (RFC 5681 §4.1, RFC 2861, paper
//! 000), and, for the validation parts to come (RFC 7661), while it sends less than the
//! window allows.
//!
//! One trait, `RestartPolicy`, with a part per policy (`ssr.rs`: NSSR, SSR and Linux's RFC
//! 2861 restart; `rbp.rs`: RBP/rate and RBP/cwnd), stored in `Part` and dispatched at one
//! point. Each connection's sender owns its part. The endpoint detects the idle
//! (`IdleThreshold`); the part answers with a decision: the window to restart with and,
//! when it paces, a `Plan` that the endpoint's `Pacer` carries out.

mod rbp;
mod ssr;
#[cfg(test)]
mod tests;

pub use rbp::{Plan, RbpCwnd, RbpRate, MIN_SEGMENTS};
pub use ssr::{Nssr, Ssr, SsrLinux};

use crate::cc::{AckCtx, Window};
use crate::measure::Measure;
use crate::time::{Duration, Time};

/// When a connection counts as idle: nothing outstanding and no data sent for longer than
/// this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleThreshold {
    /// The current retransmission timeout (RFC 5681 §4.1, RFC 2861, Linux).
    Rto,
    Fixed(Duration),
}

impl IdleThreshold {
    pub fn duration(self, rto: Duration) -> Duration {
        match self {
            IdleThreshold::Rto => rto,
            IdleThreshold::Fixed(d) => d,
        }
    }
}

/// The restart policy a connection is configured with; chosen by name in a scenario, and
/// built into a fresh `Part` for each connection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Restart {
    /// No slow-start restart: keep cwnd (paper §2, SunOS 4.1.3).
    Nssr,
    /// Slow-start restart of RFC 5681 §4.1: cwnd = min(cwnd, IW).
    Ssr,
    /// Slow-start restart of RFC 2861 as Linux does it: cwnd halves once per RTO of idle.
    SsrLinux,
    /// RBP/rate (paper §3.2): pace at `scale` × the Vegas rate measured before the idle.
    RbpRate { scale: f64 },
    /// RBP/cwnd (paper §3.3): pace `fraction` of NSSR's window over one smoothed RTT.
    RbpCwnd { fraction: f64 },
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
    pub mss: u64,
    pub initial_window_bytes: u64,
    /// What NSSR would send at once: cwnd capped by the window limit and the peer's window.
    pub usable_window_bytes: u64,
    /// Time since the last data segment was sent.
    pub idle: Duration,
    pub measure: &'a Measure,
}

impl Restart {
    /// The name used in scenarios and results.
    pub fn name(self) -> &'static str {
        match self {
            Restart::Nssr => "nssr",
            Restart::Ssr => "ssr",
            Restart::SsrLinux => "ssr-linux",
            Restart::RbpRate { .. } => "rbp-rate",
            Restart::RbpCwnd { .. } => "rbp-cwnd",
        }
    }

    pub fn build(self) -> Part {
        match self {
            Restart::Nssr => Part::Nssr(Nssr),
            Restart::Ssr => Part::Ssr(Ssr),
            Restart::SsrLinux => Part::SsrLinux(SsrLinux),
            Restart::RbpRate { scale } => Part::RbpRate(RbpRate::new(scale)),
            Restart::RbpCwnd { fraction } => Part::RbpCwnd(RbpCwnd::new(fraction)),
        }
    }
}

/// One restart-after-idle or window-validation policy of one connection. The sender calls
/// each hook as the event happens; a part that needs no state leaves the defaults.
pub trait RestartPolicy {
    /// `bytes` of data (new or retransmitted) went out at `now`.
    fn on_sent(&mut self, _now: Time, _bytes: u64) {}

    /// A new ACK arrived, in or out of recovery; `ctx.measure` has taken its RTT sample.
    fn on_ack(&mut self, _ctx: &AckCtx) {}

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

    /// The retransmission timer expired.
    fn on_rto(&mut self) {}

    /// Fast recovery ended.
    fn on_recovery_end(&mut self) {}
}

/// The policies built in. Adding one: its file, a variant here and in `dispatch!`, and its
/// name in `Restart`.
#[derive(Clone, Debug)]
pub enum Part {
    Nssr(Nssr),
    Ssr(Ssr),
    SsrLinux(SsrLinux),
    RbpRate(RbpRate),
    RbpCwnd(RbpCwnd),
}

/// The one dispatch point: `$p` is the inner part in every arm.
macro_rules! dispatch {
    ($part:expr, $p:ident => $body:expr) => {
        match $part {
            Part::Nssr($p) => $body,
            Part::Ssr($p) => $body,
            Part::SsrLinux($p) => $body,
            Part::RbpRate($p) => $body,
            Part::RbpCwnd($p) => $body,
        }
    };
}

impl RestartPolicy for Part {
    #[inline]
    fn on_sent(&mut self, now: Time, bytes: u64) {
        dispatch!(self, p => p.on_sent(now, bytes))
    }
    #[inline]
    fn on_ack(&mut self, ctx: &AckCtx) {
        dispatch!(self, p => p.on_ack(ctx))
    }
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        dispatch!(self, p => p.on_idle_end(w, ctx))
    }
    fn on_pacing_end(&mut self, w: Window, flight_bytes: u64, mss: u64) -> Window {
        dispatch!(self, p => p.on_pacing_end(w, flight_bytes, mss))
    }
    fn on_rto(&mut self) {
        dispatch!(self, p => p.on_rto())
    }
    fn on_recovery_end(&mut self) {
        dispatch!(self, p => p.on_recovery_end())
    }
}
