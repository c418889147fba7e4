//! Startup: how the window grows before the first loss, when RFC 5681's slow start is
//! replaced or bounded. A startup part composes with an avoidance controller (`Cc`): on each
//! ACK it either sets the growth itself or lets the controller grow the window as its own
//! slow start and congestion avoidance say. It never sets ssthresh at a loss; that stays
//! the controller's, so one startup serves NewReno today and CUBIC later.

use std::fmt;

use super::{AckCtx, CongestionEvent, Window};
use crate::registry::{PartInfo, Refusal, Settings};

/// One startup algorithm. `Cc` calls the hooks before the avoidance controller's.
pub trait Startup {
    /// New data was acknowledged outside loss recovery. Returns true when the startup grew
    /// `w` itself for this ACK (the controller then leaves it); false when the controller's
    /// own rule applies. A startup may set `w.ssthresh` here to end slow start (Hoe).
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool;

    /// A congestion event, before the controller sets ssthresh. Startups that end at the
    /// first loss end here.
    fn on_congestion_event(&mut self, _w: &Window, _ev: &CongestionEvent) {}

    /// Whether the window is still in the connection's first slow start. RFC 5681 §3.1:
    /// slow start while cwnd < ssthresh (at cwnd = ssthresh the controllers here use
    /// congestion avoidance); a startup with its own exit says so instead. Asked after each
    /// ACK until the answer is first false (`Congestion::slow_start_exit`).
    fn in_slow_start(&self, w: &Window) -> bool {
        w.cwnd < w.ssthresh
    }

    /// The startup mode a trace shows while it sets the growth; None: the controller's phase.
    fn mode_name(&self, _w: &Window) -> Option<&'static str> {
        None
    }

    /// The figures the startup reports to the tables; a startup reports only its own.
    fn metrics(&self) -> StartupMetrics {
        StartupMetrics::default()
    }
}

/// A startup's own figures, as the flows and connections tables carry them: one struct, so
/// that a startup with figures of its own adds a field here, not a query on `Startup`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StartupMetrics {
    /// SSthreshless Start's congestive events (§IV-B's Congestive_Event_No).
    pub congestive_events: u32,
}

/// A startup the registry knows (`startups!` in `cc/mod.rs`): its part's description and
/// keys, the config read from a scenario's settings, and a fresh state for one endpoint.
pub trait RegisteredStartup: Startup {
    const INFO: PartInfo;
    /// What a scenario chooses; `()` for a startup without settings.
    type Config: Clone + fmt::Debug + PartialEq;
    /// The config from the settings a scenario gives (the rest at their defaults), checked.
    fn config(s: &Settings) -> Result<Self::Config, Refusal>;
    fn new(cfg: &Self::Config) -> Self;
}

/// A boxed startup is the startup (`StartupPart` boxes the largest).
impl<S: Startup> Startup for Box<S> {
    #[inline(always)]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        (**self).on_ack(w, ctx)
    }
    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) {
        (**self).on_congestion_event(w, ev)
    }
    #[inline]
    fn in_slow_start(&self, w: &Window) -> bool {
        (**self).in_slow_start(w)
    }
    fn mode_name(&self, w: &Window) -> Option<&'static str> {
        (**self).mode_name(w)
    }
    fn metrics(&self) -> StartupMetrics {
        (**self).metrics()
    }
}

/// `impl RegisteredStartup` for a startup without settings: its name, its docs line and a
/// fresh state.
macro_rules! registered_without_settings {
    ($part:ty, $name:literal, $doc:literal, $new:expr) => {
        impl $crate::cc::RegisteredStartup for $part {
            const INFO: $crate::registry::PartInfo =
                $crate::registry::PartInfo { family: $crate::registry::Family::Startup, name: $name, doc: $doc, keys: &[], per_segment: false };
            type Config = ();
            fn config(_: &$crate::registry::Settings) -> Result<(), $crate::registry::Refusal> {
                Ok(())
            }
            fn new(_: &()) -> Self {
                $new
            }
        }
    };
}

/// The startups built in, from one list (`cc/mod.rs`): each line `Variant => module::Part`
/// declares the part's module and gives it a variant in `StartupKind` (its config, chosen by
/// `startup` in a scenario) and in `StartupPart` (its state), one dispatch arm per hook, and
/// its row in `STARTUPS`. The call through `StartupPart` stays static; one more variant,
/// `External`, holds a startup written outside the crate (`external.rs`).
macro_rules! startups {
    ($($variant:ident => $module:ident :: $part:ident,)*) => {
        $(pub mod $module;)*

        /// The startup composed with the controller (`startup` in a scenario): one registered
        /// startup and its config.
        #[derive(Clone, Debug, PartialEq)]
        pub enum StartupKind {
            $($variant(<$module::$part as $crate::cc::RegisteredStartup>::Config),)*
            External($crate::cc::external::Factory<dyn $crate::cc::ExternalStartup>),
        }

        /// A startup's state in one endpoint.
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum StartupPart {
            $($variant($module::$part),)*
            External(Box<dyn $crate::cc::ExternalStartup>),
        }

        /// Every registered startup, in the list's order.
        pub const STARTUPS: &[&$crate::registry::PartInfo] = &[$(&<$module::$part as $crate::cc::RegisteredStartup>::INFO,)*];

        impl StartupKind {
            pub fn info(&self) -> &'static PartInfo {
                match self {
                    $(StartupKind::$variant(_) => &<$module::$part as $crate::cc::RegisteredStartup>::INFO,)*
                    StartupKind::External(_) => &$crate::cc::external::EXTERNAL_STARTUP,
                }
            }

            /// The name used in scenarios and results (an external part's own).
            pub fn name(&self) -> &str {
                match self {
                    StartupKind::External(f) => f.name(),
                    _ => self.info().name,
                }
            }

            /// The startup named `name` with `s` its settings; None for no such startup.
            pub fn read(name: &str, s: &$crate::registry::Settings) -> Option<Result<StartupKind, $crate::registry::Refusal>> {
                $(if name == <$module::$part as $crate::cc::RegisteredStartup>::INFO.name {
                    return Some(<$module::$part as $crate::cc::RegisteredStartup>::config(s).map(StartupKind::$variant));
                })*
                None
            }

            pub fn build(&self) -> StartupPart {
                match self {
                    $(StartupKind::$variant(cfg) => StartupPart::$variant(<$module::$part as $crate::cc::RegisteredStartup>::new(cfg)),)*
                    StartupKind::External(f) => StartupPart::External(f.build()),
                }
            }
        }

        impl $crate::cc::Startup for StartupPart {
            // Always inlined, as `Avoidance::on_ack`.
            #[inline(always)]
            fn on_ack(&mut self, w: &mut $crate::cc::Window, ctx: &$crate::cc::AckCtx) -> bool {
                match self { $(StartupPart::$variant(s) => s.on_ack(w, ctx),)* StartupPart::External(s) => $crate::cc::external::out_of_line(|| s.on_ack(w, ctx)) }
            }
            fn on_congestion_event(&mut self, w: &$crate::cc::Window, ev: &$crate::cc::CongestionEvent) {
                match self { $(StartupPart::$variant(s) => s.on_congestion_event(w, ev),)* StartupPart::External(s) => $crate::cc::external::out_of_line(|| s.on_congestion_event(w, ev)) }
            }
            #[inline]
            fn in_slow_start(&self, w: &$crate::cc::Window) -> bool {
                match self { $(StartupPart::$variant(s) => s.in_slow_start(w),)* StartupPart::External(s) => $crate::cc::external::out_of_line(|| s.in_slow_start(w)) }
            }
            fn mode_name(&self, w: &$crate::cc::Window) -> Option<&'static str> {
                match self { $(StartupPart::$variant(s) => s.mode_name(w),)* StartupPart::External(s) => $crate::cc::external::out_of_line(|| s.mode_name(w)) }
            }
            fn metrics(&self) -> $crate::cc::StartupMetrics {
                match self { $(StartupPart::$variant(s) => s.metrics(),)* StartupPart::External(s) => $crate::cc::external::out_of_line(|| s.metrics()) }
            }
        }
    };
}

/// Rounds of one RTT as RFC 9406 §4.2 and Linux's HyStart count them: a round ends when the
/// cumulative ACK passes windowEnd, the SND.NXT of its start (Linux `after(snd_una, end_seq)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rounds {
    window_end: Option<u64>,
}

impl Rounds {
    /// An ACK moved snd_una to `ack`; `snd_nxt` is the next byte to send. True when a new
    /// round starts with this ACK (the first ACK starts the first).
    pub fn on_ack(&mut self, ack: u64, snd_nxt: u64) -> bool {
        if self.window_end.is_some_and(|end| ack <= end) {
            return false;
        }
        self.window_end = Some(snd_nxt);
        true
    }
}
