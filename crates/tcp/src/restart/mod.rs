//! Restart after idle: what the sender does with its window when the application has data
//! again after the connection was idle (RFC 5681 §4.1, RFC 2861, paper 000). The endpoint
//! detects the idle (`IdleThreshold`); a `Restart` policy sets the window and may ask for
//! pacing, which the endpoint's `Pacer` carries out.

mod rbp;
mod ssr;
#[cfg(test)]
mod tests;

pub use rbp::{Plan, MIN_SEGMENTS};

use crate::cc::Window;
use crate::measure::Measure;
use crate::time::Duration;

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

/// The restart policies built in; chosen by name in a scenario.
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

    /// The application has data after an idle longer than the threshold, and nothing is
    /// outstanding; `w` is the window the idle left. Returns the window to restart with
    /// (`cc::Congestion::on_idle_end` applies it) and the pacing plan when the restart is
    /// paced; pacing then lasts until the first ACK, which calls `on_first_ack`.
    pub fn on_idle_end(self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        let window_segments = (ctx.usable_window_bytes / ctx.mss).max(1);
        let srtt = ctx.measure.srtt();
        let plan = match (self, srtt) {
            (Restart::Nssr, _) => return IdleDecision { window: w, pace: None },
            // No RTT estimate yet (every data segment was retransmitted): nothing to pace
            // over, so restart as RFC 5681 says.
            (Restart::Ssr, _) | (Restart::RbpRate { .. } | Restart::RbpCwnd { .. }, None) => {
                return IdleDecision { window: ssr::rfc5681(w, ctx.initial_window_bytes), pace: None };
            }
            (Restart::SsrLinux, _) => {
                let window = ssr::rfc2861(w, ctx.initial_window_bytes, ctx.idle, ctx.measure.rto());
                return IdleDecision { window, pace: None };
            }
            (Restart::RbpRate { scale }, Some(srtt)) => {
                let rate = ctx.measure.last_rate().map(|s| s.actual_rate());
                rbp::rate_plan(scale, rate, srtt, window_segments, ctx.mss)
            }
            (Restart::RbpCwnd { fraction }, Some(srtt)) => rbp::cwnd_plan(fraction, srtt, window_segments),
        };
        IdleDecision { window: rbp::apply(w, plan, ctx.mss), pace: Some(plan) }
    }

    /// The first ACK after a paced restart, before it is processed: pacing has ended and
    /// ACK clocking takes over from the data outstanding. Returns the window to go on with.
    pub fn on_first_ack(self, w: Window, flight_bytes: u64, mss: u64) -> Window {
        rbp::hand_back(w, flight_bytes, mss)
    }
}
