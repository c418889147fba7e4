//! Startup: how the window grows before the first loss, when RFC 5681's slow start is
//! replaced or bounded. A startup part composes with an avoidance controller (`Cc`): on each
//! ACK it either sets the growth itself or lets the controller grow the window as its own
//! slow start and congestion avoidance say. It never sets ssthresh at a loss; that stays
//! the controller's, so one startup serves NewReno today and CUBIC later.

use super::{AckCtx, CongestionEvent, Hoe, HyStart, HyStartPlusPlus, LimitedSlowStart, Ssthreshless, Window};

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

    /// SSthreshless Start's congestive events so far (0 for the others).
    fn congestive_events(&self) -> u32 {
        0
    }
}

/// RFC 5681 §3.1 slow start: nothing to add to the controller's own rule.
#[derive(Clone, Debug, Default)]
pub struct SlowStart;

impl Startup for SlowStart {
    #[inline]
    fn on_ack(&mut self, _w: &mut Window, _ctx: &AckCtx) -> bool {
        false
    }
}

/// The startups built in; chosen in a scenario by `startup` (or by a startup's name as
/// `cc`, meaning that startup with NewReno). Adding one: its file, a variant here and in
/// `dispatch!`, and its name in `config::StartupKind`.
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum StartupPart {
    SlowStart(SlowStart),
    Hoe(Hoe),
    LimitedSlowStart(LimitedSlowStart),
    Ssthreshless(Ssthreshless),
    HyStart(HyStart),
    /// Boxed: the largest startup would set the size of every connection's window state,
    /// and the simulator's hot fields of an end must still share the endpoint's last cache
    /// line (the layout test in `rampup_sim`'s `world::conns`).
    HyStartPlusPlus(Box<HyStartPlusPlus>),
}

/// The one dispatch point: `$s` is the inner startup in every arm.
macro_rules! dispatch {
    ($part:expr, $s:ident => $body:expr) => {
        match $part {
            StartupPart::SlowStart($s) => $body,
            StartupPart::Hoe($s) => $body,
            StartupPart::LimitedSlowStart($s) => $body,
            StartupPart::Ssthreshless($s) => $body,
            StartupPart::HyStart($s) => $body,
            StartupPart::HyStartPlusPlus($s) => $body,
        }
    };
}

impl Startup for StartupPart {
    // Always inlined, as `Avoidance::on_ack`.
    #[inline(always)]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        dispatch!(self, s => s.on_ack(w, ctx))
    }
    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) {
        dispatch!(self, s => s.on_congestion_event(w, ev))
    }
    #[inline]
    fn in_slow_start(&self, w: &Window) -> bool {
        dispatch!(self, s => s.in_slow_start(w))
    }
    fn mode_name(&self, w: &Window) -> Option<&'static str> {
        dispatch!(self, s => s.mode_name(w))
    }
    fn congestive_events(&self) -> u32 {
        dispatch!(self, s => s.congestive_events())
    }
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
