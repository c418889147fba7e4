//! Congestion control: how cwnd and ssthresh move on ACKs and on congestion signals.
//!
//! Two families, each a trait with its built-in parts in one enum that dispatches each hook
//! at one point (`dispatch!`), so the call stays static: the avoidance controllers
//! (`CongestionControl`, stored in `Avoidance`: NewReno, Vegas, CUBIC, BBR) and the startups that
//! replace or bound slow start (`Startup`, stored in `StartupPart`: Hoe, Limited Slow
//! Start, SSthreshless Start, Linux's HyStart, HyStart++). `Cc` composes one of each. The window itself is kept by `Congestion` (`window.rs`), the only
//! place in the crate that writes cwnd and ssthresh: it applies the rules every algorithm
//! shares (RFC 5681's loss window, fast-recovery inflation, the timeout's one segment) and
//! hands the window to the algorithm's hooks for what is its own.
//!
//! A controller never sees the endpoint: it reads a context (`AckCtx`, `CongestionEvent`)
//! and changes only the window it is handed. Loss *recovery* (what to retransmit) belongs
//! to `recovery`, which tells `Congestion` what happened.

pub mod bbr;
mod cubic;
pub mod external;
mod newreno;
#[macro_use]
mod startup;
mod vegas;
mod window;

// The startups: one line each (`startup.rs`, `docs/adding-a-mechanism.md`).
startups! {
    SlowStart => slow_start::SlowStart,
    Hoe => hoe::Hoe,
    LimitedSlowStart => limited_slow_start::LimitedSlowStart,
    Ssthreshless => ssthreshless::Ssthreshless,
    HyStart => hystart::HyStart,
    HyStartPlusPlus => hystart_pp::Boxed,
    Search => search::Boxed,
}

pub use bbr::{Bbr, BbrConfig};
pub use cubic::{Cubic, CubicConfig};
pub use external::{ExternalController, ExternalRestart, ExternalStartup, WindowBounds};
pub use hoe::{Hoe, PacketPair};
pub use hystart::HyStart;
pub use hystart_pp::HyStartPlusPlus;
pub use limited_slow_start::{LimitedSlowStart, LimitedSlowStartConfig};
pub use newreno::NewReno;
pub use slow_start::SlowStart;
pub use ssthreshless::{AdjustiveSchedule, Ssthreshless, SsthreshlessConfig, SsthreshlessMode};
pub use startup::{RegisteredStartup, Rounds, Startup, StartupMetrics};
pub use vegas::{Vegas, VegasConfig, VegasRtt, VegasSlowStartExit};
pub use window::{Congestion, CongestionEvent, CongestionKind, RecoveryWindow, SlowStartExit, Window};

use crate::measure::{Measure, RateEpoch};
use crate::pacing::PaceCtx;
use crate::rate_sample::RateSample;
use crate::registry::PartInfo;
use crate::time::{Duration, Rate, Time};

/// What a controller may read when new data is acknowledged.
pub struct AckCtx<'a> {
    pub now: Time,
    pub mss: u64,
    /// Bytes newly acknowledged by this ACK.
    pub acked_bytes: u64,
    /// The RTT sample this ACK gave, already in `measure` (none from a retransmitted
    /// segment, Karn's rule).
    pub rtt_sample: Option<Duration>,
    /// The application limited the sender: when it last looked for data to send, it had
    /// none while the window had room (Linux's `tcp_rate_check_app_limited` test). A window
    /// that did not fill is no evidence that the path could carry it (RFC 7661 §3).
    pub app_limited: bool,
    pub measure: &'a Measure,
    /// Whether this ACK completed a per-RTT rate epoch, and whether the epoch left a fresh
    /// sample in `measure.last_rate()`.
    pub rate_epoch: RateEpoch,
    /// The cumulative ACK (snd_una after it) and snd_nxt: a startup that counts rounds as
    /// RFC 9406 does (windowEnd = SND.NXT at a round's start) reads them.
    pub ack: u64,
    pub snd_nxt: u64,
    /// The ACK's delivery-rate sample, for a controller that asks for them
    /// (`CongestionControl::wants_rate_samples`); None otherwise, and when the ACK
    /// delivered nothing.
    pub rate: Option<&'a RateSample>,
    /// The ACK came during fast recovery (only a controller that
    /// `sets_window_in_recovery` hears of such ACKs).
    pub in_recovery: bool,
}

/// The loss response that RFC 5681 eq. (4) gives: ssthresh = max(FlightSize / 2, 2 * SMSS).
pub fn half_flight(flight_bytes: u64, mss: u64) -> u64 {
    (flight_bytes / 2).max(2 * mss)
}

/// One congestion-control algorithm. `Congestion` calls the hooks; every hook but the
/// queries has a default, so an algorithm writes only what differs from RFC 5681.
pub trait CongestionControl {
    /// New data was acknowledged outside loss recovery. Before: `w` is the window the ACK
    /// found; after: the grown (or, for a delay-based controller, possibly shrunk) window.
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx);

    /// A congestion event: a fast retransmit, or the first timeout of the data (a repeated
    /// timeout is no new event). Returns the new ssthresh; `w` is the window at the event
    /// and `Congestion` then sets cwnd as the event's rule says. Default: RFC 5681 eq. (4)
    /// on the event's loss window.
    fn on_congestion_event(&mut self, _w: &Window, ev: &CongestionEvent) -> u64 {
        half_flight(ev.loss_window_bytes, ev.mss)
    }

    /// Fast recovery ended (the cumulative ACK covered the recovery point); cwnd is back
    /// at ssthresh.
    fn on_recovery_end(&mut self, _now: Time) {}

    /// The retransmission timer expired (also a repeated timeout); cwnd is one segment.
    fn on_rto(&mut self, _now: Time) {}

    /// The application has data after an idle of `idle`; the restart policy has set the
    /// window to restart with.
    fn on_idle_end(&mut self, _now: Time, _idle: Duration) {}

    /// A data segment of `bytes` payload went out (a retransmission too). `quiet`: with
    /// nothing else in flight, the time since the sender last sent (Linux's
    /// CA_EVENT_TX_START); None while data is outstanding.
    fn on_sent(&mut self, _now: Time, _bytes: u64, _quiet: Option<Duration>) {}

    /// A data segment goes out with nothing in flight (Linux's CA_EVENT_TX_START);
    /// `app_limited`: the estimator marks the flow application-limited. Heard only by a
    /// controller that `wants_rate_samples`.
    fn on_tx_start(&mut self, _w: &mut Window, _now: Time, _app_limited: bool) {}

    /// The controller reads a delivery-rate sample from each ACK (`AckCtx::rate`): the
    /// sender then keeps the estimator's snapshots (`crate::rate_sample`). Asked once, when
    /// the sender is made.
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// The controller sets cwnd on every ACK, in recovery too, in place of the recovery
    /// part's window rules (Linux's `cong_control` hook, which bypasses PRR and the
    /// fast-retransmit window).
    fn sets_window_in_recovery(&self) -> bool {
        false
    }

    /// What is sent now is application-limited whatever the application does (BBR's
    /// PROBE_RTT sets `tp->app_limited`); read with the rate samples.
    fn marks_app_limited(&self) -> bool {
        false
    }

    /// The rate the pacer spaces data segments at, when the controller sets one (Linux's
    /// `sk_pacing_rate` written by the controller); None: the pacing part's own rule.
    fn pacing_rate(&self, _ctx: &PaceCtx) -> Option<Rate> {
        None
    }

    /// Seed the controller's random choices from the connection's seeded stream.
    fn seed_random(&mut self, _seed: u64) {}

    /// The phase a trace shows: "slow_start" or "congestion_avoidance" (RFC 5681 §3.1), or
    /// a startup's mode while it sets the growth.
    fn mode_name(&self, w: &Window) -> &'static str {
        NewReno::phase_name(w)
    }
}

/// The avoidance controllers in the registry, in `Avoidance`'s order.
pub const CC_PARTS: [PartInfo; 4] = [NewReno::INFO, VegasConfig::INFO, CubicConfig::INFO, bbr::INFO];

/// The avoidance controllers built in; chosen by `cc` in a scenario. Adding one: its file,
/// a variant here and in `dispatch!`, and its name in `config::CcKind`. `External` holds a
/// controller written outside the crate (`external.rs`).
///
/// A plain tag byte (`repr(u8)`), not a niche in a variant's field: the sender matches on
/// the controller at every new ACK, and a tag byte is read where a niche must be decoded
/// (docs/performance.md).
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Avoidance {
    NewReno(NewReno),
    Vegas(Vegas),
    Cubic(Cubic),
    Bbr(Box<Bbr>),
    External(Box<dyn ExternalController>),
}

/// The one dispatch point: `$c` is the inner controller in every arm.
macro_rules! dispatch {
    ($avoidance:expr, $c:ident => $body:expr) => {
        match $avoidance {
            Avoidance::NewReno($c) => $body,
            Avoidance::Vegas($c) => $body,
            Avoidance::Cubic($c) => $body,
            Avoidance::Bbr($c) => $body,
            Avoidance::External($c) => external::out_of_line(|| $body),
        }
    };
}

impl CongestionControl for Avoidance {
    // Always inlined: on every ACK; the parts whose growth is long keep it out of line.
    #[inline(always)]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        dispatch!(self, c => c.on_ack(w, ctx))
    }
    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) -> u64 {
        dispatch!(self, c => c.on_congestion_event(w, ev))
    }
    fn on_recovery_end(&mut self, now: Time) {
        dispatch!(self, c => c.on_recovery_end(now))
    }
    fn on_rto(&mut self, now: Time) {
        dispatch!(self, c => c.on_rto(now))
    }
    fn on_idle_end(&mut self, now: Time, idle: Duration) {
        dispatch!(self, c => c.on_idle_end(now, idle))
    }
    #[inline]
    fn on_sent(&mut self, now: Time, bytes: u64, quiet: Option<Duration>) {
        dispatch!(self, c => c.on_sent(now, bytes, quiet))
    }
    fn on_tx_start(&mut self, w: &mut Window, now: Time, app_limited: bool) {
        dispatch!(self, c => c.on_tx_start(w, now, app_limited))
    }
    fn wants_rate_samples(&self) -> bool {
        dispatch!(self, c => c.wants_rate_samples())
    }
    fn sets_window_in_recovery(&self) -> bool {
        dispatch!(self, c => c.sets_window_in_recovery())
    }
    fn marks_app_limited(&self) -> bool {
        dispatch!(self, c => c.marks_app_limited())
    }
    fn pacing_rate(&self, ctx: &PaceCtx) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate(ctx))
    }
    fn seed_random(&mut self, seed: u64) {
        dispatch!(self, c => c.seed_random(seed))
    }
    fn mode_name(&self, w: &Window) -> &'static str {
        dispatch!(self, c => c.mode_name(w))
    }
}

/// A connection's congestion control: a startup composed with an avoidance controller. The
/// startup looks at each ACK first and either grows the window itself or leaves it to the
/// controller; every other event is the controller's, after the startup has heard of a loss.
#[derive(Clone, Debug)]
pub struct Cc {
    startup: StartupPart,
    avoidance: Avoidance,
}

impl Cc {
    pub fn new(startup: StartupPart, avoidance: Avoidance) -> Self {
        Cc { startup, avoidance }
    }

    /// The avoidance controller with RFC 5681 slow start.
    pub fn slow_start(avoidance: Avoidance) -> Self {
        Cc::new(StartupPart::SlowStart(SlowStart), avoidance)
    }

    pub fn startup(&self) -> &StartupPart {
        &self.startup
    }

    /// Whether the window is still in the first slow start, as the startup judges it
    /// (`Startup::in_slow_start`); the avoidance controllers here all slow-start while
    /// cwnd < ssthresh, so they have no say of their own.
    #[inline]
    pub fn in_slow_start(&self, w: &Window) -> bool {
        self.startup.in_slow_start(w)
    }

    /// The startup's own figures (`Startup::metrics`).
    pub fn startup_metrics(&self) -> StartupMetrics {
        self.startup.metrics()
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        if !self.startup.on_ack(w, ctx) {
            self.avoidance.on_ack(w, ctx);
        }
    }
    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) -> u64 {
        self.startup.on_congestion_event(w, ev);
        self.avoidance.on_congestion_event(w, ev)
    }
    fn on_recovery_end(&mut self, now: Time) {
        self.avoidance.on_recovery_end(now)
    }
    fn on_rto(&mut self, now: Time) {
        self.avoidance.on_rto(now)
    }
    fn on_idle_end(&mut self, now: Time, idle: Duration) {
        self.avoidance.on_idle_end(now, idle)
    }
    #[inline]
    fn on_sent(&mut self, now: Time, bytes: u64, quiet: Option<Duration>) {
        self.avoidance.on_sent(now, bytes, quiet)
    }
    fn on_tx_start(&mut self, w: &mut Window, now: Time, app_limited: bool) {
        self.avoidance.on_tx_start(w, now, app_limited)
    }
    fn wants_rate_samples(&self) -> bool {
        self.avoidance.wants_rate_samples()
    }
    fn sets_window_in_recovery(&self) -> bool {
        self.avoidance.sets_window_in_recovery()
    }
    fn marks_app_limited(&self) -> bool {
        self.avoidance.marks_app_limited()
    }
    fn pacing_rate(&self, ctx: &PaceCtx) -> Option<Rate> {
        self.avoidance.pacing_rate(ctx)
    }
    fn seed_random(&mut self, seed: u64) {
        self.avoidance.seed_random(seed)
    }
    fn mode_name(&self, w: &Window) -> &'static str {
        self.startup.mode_name(w).unwrap_or_else(|| self.avoidance.mode_name(w))
    }
}
