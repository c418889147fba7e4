//! Congestion control: how cwnd and ssthresh move on ACKs and on congestion signals.
//!
//! A controller never sees the endpoint: the endpoint passes the window and a read-only
//! context, and the controller changes the window. Loss *recovery* (what to retransmit,
//! fast-recovery inflation) belongs to `recovery`, not here.

mod hoe;
mod limited_slow_start;
mod newreno;
mod ssthreshless;
mod vegas;

pub use hoe::{Hoe, PacketPair};
pub use limited_slow_start::{LimitedSlowStart, LimitedSlowStartConfig};
pub use newreno::NewReno;
pub use ssthreshless::{AdjustiveSchedule, Ssthreshless, SsthreshlessConfig, SsthreshlessMode};
pub use vegas::{Vegas, VegasConfig, VegasRtt, VegasSlowStartExit};

use crate::measure::{Measure, RateEpoch};
use crate::time::Time;

/// The sender's window state in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
}

/// What a controller may read when new data is acknowledged.
pub struct AckCtx<'a> {
    pub now: Time,
    pub mss: u64,
    /// Bytes newly acknowledged by this ACK.
    pub acked_bytes: u64,
    pub measure: &'a Measure,
    /// Whether this ACK completed a per-RTT rate epoch, and whether the epoch left a fresh
    /// sample in `measure.last_rate()`.
    pub rate_epoch: RateEpoch,
}

/// The loss response that RFC 5681 eq. (4) gives: ssthresh = max(FlightSize / 2, 2 * SMSS).
pub fn half_flight(flight_bytes: u64, mss: u64) -> u64 {
    (flight_bytes / 2).max(2 * mss)
}

/// The congestion controllers built in; chosen by name in a scenario.
///
/// A plain tag byte (`repr(u8)`), not a niche in a variant's field: the sender matches on
/// the controller at every new ACK, and decoding the niche cost six instructions each time.
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Cc {
    NewReno(NewReno),
    Vegas(Vegas),
    Ssthreshless(Ssthreshless),
    Hoe(Hoe),
    LimitedSlowStart(LimitedSlowStart),
}

impl Cc {
    /// New data was acknowledged while not in loss recovery. Before: `w` is the window the
    /// ACK found; after: the grown (or, for Vegas, possibly shrunk) window.
    pub fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        match self {
            Cc::NewReno(c) => c.on_ack(w, ctx),
            Cc::Vegas(c) => c.on_ack(w, ctx),
            Cc::Ssthreshless(c) => c.on_ack(w, ctx),
            Cc::Hoe(c) => c.on_ack(w, ctx),
            Cc::LimitedSlowStart(c) => c.on_ack(w, ctx),
        }
    }

    /// Loss was detected (duplicate ACKs, SACK or RTO): the new ssthresh. The caller sets
    /// cwnd as the recovery or timeout rule says. Startup parts that end at the first loss
    /// (SSthreshless Start, Hoe's estimate) end here.
    pub fn ssthresh_after_loss(&mut self, flight_bytes: u64, mss: u64) -> u64 {
        match self {
            Cc::Ssthreshless(c) => c.on_loss(),
            Cc::Hoe(c) => c.on_loss(),
            Cc::NewReno(_) | Cc::Vegas(_) | Cc::LimitedSlowStart(_) => {}
        }
        half_flight(flight_bytes, mss)
    }

    /// The phase a trace shows: "slow_start" or "congestion_avoidance" (RFC 5681 §3.1), and
    /// the startup modes of the controllers that have them.
    pub fn mode_name(&self, w: &Window) -> &'static str {
        match self {
            Cc::Ssthreshless(c) => c.mode_name(w),
            Cc::LimitedSlowStart(c) if c.limits(w) => "limited_slow_start",
            Cc::NewReno(_) | Cc::Vegas(_) | Cc::Hoe(_) | Cc::LimitedSlowStart(_) => NewReno::phase_name(w),
        }
    }

    /// SSthreshless Start's congestive events so far (0 for the others).
    pub fn congestive_events(&self) -> u32 {
        match self {
            Cc::Ssthreshless(c) => c.congestive_events(),
            _ => 0,
        }
    }
}
