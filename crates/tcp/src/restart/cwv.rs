//! TCP Congestion Window Validation (TCP-CWV, RFC 2861; paper 003's baseline): a window the
//! sender does not use decays. After an idle, cwnd halves once per RTO of idle (the rule
//! Linux runs, `ssr::rfc2861`); while the application keeps the sender below its window for
//! an RTO, cwnd moves halfway to the window it used.

use super::{ssr, IdleDecision, RestartCtx, RestartPolicy, SentCtx, Validation};
use crate::cc::{AckCtx, CongestionEvent, CongestionKind, Window};
use crate::time::{Duration, Time};

#[derive(Clone, Debug)]
pub struct Cwv {
    initial_window_bytes: u64,
    /// The RTO as of the last ACK: RFC 2861 times its periods in RTOs.
    rto: Duration,
    /// RFC 2861's T_prev: when the window was last full or last adjusted.
    t_prev: Option<Time>,
    /// RFC 2861's W_used: the largest flight since `t_prev`.
    w_used: u64,
    /// In fast recovery, where the window is recovery's (Linux decays it only in its Open
    /// state).
    in_recovery: bool,
}

impl Cwv {
    pub fn new(initial_window_bytes: u64) -> Self {
        Cwv { initial_window_bytes, rto: Duration::from_secs(1), t_prev: None, w_used: 0, in_recovery: false }
    }
}

/// RFC 2861 §3's application-limited rule: ssthresh = max(ssthresh, 3/4 cwnd), then
/// cwnd = (cwnd + W_used) / 2. Linux (`tcp_cwnd_application_limited`) counts W_used as at
/// least the initial window and changes nothing when W_used reaches cwnd.
pub fn application_limited(w: Window, w_used: u64, initial_window_bytes: u64) -> Option<Window> {
    let used = w_used.max(initial_window_bytes);
    (used < w.cwnd).then(|| Window { cwnd: (w.cwnd + used) / 2, ssthresh: ssr::remembered_ssthresh(w) })
}

impl RestartPolicy for Cwv {
    /// RFC 2861 §3, after each segment sent: a full window restarts the period; else the
    /// flight counts toward W_used, and a period of an RTO ends with the decay.
    fn on_sent(&mut self, s: &SentCtx) -> Option<Window> {
        if self.in_recovery {
            return None;
        }
        let t_prev = *self.t_prev.get_or_insert(s.now);
        if s.flight_bytes >= s.window.cwnd {
            self.t_prev = Some(s.now);
            self.w_used = 0;
            return None;
        }
        self.w_used = self.w_used.max(s.flight_bytes);
        if s.now.since(t_prev) < self.rto {
            return None;
        }
        let decayed = application_limited(s.window, self.w_used, self.initial_window_bytes);
        self.t_prev = Some(s.now);
        self.w_used = 0;
        decayed
    }

    fn on_ack(&mut self, _w: Window, ctx: &AckCtx) -> Validation {
        self.rto = ctx.measure.rto();
        Validation::Grow
    }

    fn on_congestion_event(&mut self, _w: Window, ev: &CongestionEvent) -> Option<Window> {
        self.in_recovery = matches!(ev.kind, CongestionKind::FastRetransmit { .. });
        None
    }

    /// A new period starts after a recovery or a timeout: the window was just set by them.
    fn on_recovery_end(&mut self, _w: Window, _resent_bytes: u64) -> Option<Window> {
        self.in_recovery = false;
        self.t_prev = None;
        None
    }

    fn on_rto(&mut self) {
        self.in_recovery = false;
        self.t_prev = None;
    }

    /// RFC 2861 §3's idle rule, then a new period from the restart.
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        self.t_prev = Some(ctx.now);
        self.w_used = 0;
        IdleDecision { window: ssr::rfc2861(w, ctx.initial_window_bytes, ctx.idle, ctx.measure.rto()), pace: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const IW: u64 = 2 * MSS;

    fn sent(cwv: &mut Cwv, at_ms: u64, flight_segs: u64, w: Window) -> Option<Window> {
        cwv.on_sent(&SentCtx { now: Time(at_ms * 1_000_000), flight_bytes: flight_segs * MSS, window: w })
    }

    /// RFC 2861 §3: a sender that keeps at most 4 of its 20 segments out for an RTO (1 s)
    /// has cwnd = (20 + 4) / 2 = 12 segments and ssthresh = 3/4 · 20 = 15 segments.
    #[test]
    fn rfc_2861_3_an_rto_below_the_window_halves_the_unused_part() {
        let mut cwv = Cwv::new(IW);
        let w = Window { cwnd: 20 * MSS, ssthresh: 10 * MSS };
        assert_eq!(sent(&mut cwv, 0, 4, w), None);
        assert_eq!(sent(&mut cwv, 500, 3, w), None, "not yet an RTO");
        assert_eq!(sent(&mut cwv, 1000, 2, w), Some(Window { cwnd: 12 * MSS, ssthresh: 15 * MSS }));
        // The next period starts at the adjustment.
        let w = Window { cwnd: 12 * MSS, ssthresh: 15 * MSS };
        assert_eq!(sent(&mut cwv, 1500, 2, w), None);
        assert_eq!(sent(&mut cwv, 2000, 2, w), Some(Window { cwnd: 7 * MSS, ssthresh: 15 * MSS }));
    }

    /// RFC 2861 §3: a full window starts the period again, so a sender that fills it now
    /// and then keeps its cwnd.
    #[test]
    fn rfc_2861_3_a_full_window_restarts_the_period() {
        let mut cwv = Cwv::new(IW);
        let w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX };
        sent(&mut cwv, 0, 3, w);
        sent(&mut cwv, 900, 10, w);
        assert_eq!(sent(&mut cwv, 1500, 3, w), None);
        assert!(sent(&mut cwv, 1900, 3, w).is_some());
    }

    /// RFC 2861 §3's idle rule: after 3.5 s idle with an RTO of 1 s, cwnd halves three
    /// times (ssthresh first takes 3/4 of it), and the application-limited period starts
    /// again at the restart.
    #[test]
    fn rfc_2861_3_an_idle_halves_cwnd_per_rto() {
        let mut cwv = Cwv::new(IW);
        let m = crate::measure::Measure::new(crate::measure::RtoConfig { min: Duration::from_secs(1), ..Default::default() });
        assert_eq!(m.rto(), Duration::from_secs(1));
        let w = Window { cwnd: 32 * MSS, ssthresh: 10 * MSS };
        let ctx = RestartCtx {
            now: Time(5_000_000_000),
            mss: MSS,
            initial_window_bytes: IW,
            usable_window_bytes: w.cwnd,
            idle: Duration::from_millis(3500),
            measure: &m,
        };
        assert_eq!(cwv.on_idle_end(w, &ctx).window, Window { cwnd: 4 * MSS, ssthresh: 24 * MSS });
        assert_eq!(sent(&mut cwv, 5500, 1, w), None, "the period began at the restart, 500 ms ago");
    }

    /// Linux decays the window only in its Open state: not during a fast recovery, whose
    /// window is recovery's; a new period starts when it ends.
    #[test]
    fn rfc_2861_3_no_decay_during_fast_recovery() {
        let mut cwv = Cwv::new(IW);
        let w = Window { cwnd: 20 * MSS, ssthresh: 10 * MSS };
        sent(&mut cwv, 0, 4, w);
        let ev = CongestionEvent {
            now: Time(0),
            kind: CongestionKind::FastRetransmit { inflation_bytes: 0 },
            mss: MSS,
            loss_window_bytes: 4 * MSS,
            flight_bytes: 4 * MSS,
            lost_sent_at: None,
        };
        assert_eq!(cwv.on_congestion_event(w, &ev), None);
        assert_eq!(sent(&mut cwv, 1500, 2, w), None, "in recovery");
        cwv.on_recovery_end(w, MSS);
        assert_eq!(sent(&mut cwv, 1600, 2, w), None, "a new period from here");
        assert!(sent(&mut cwv, 2600, 2, w).is_some());
    }

    /// Linux: W_used counts as at least the initial window; nothing changes when the
    /// window is already down to what was used.
    #[test]
    fn rfc_2861_3_w_used_is_at_least_the_initial_window() {
        let w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX };
        assert_eq!(application_limited(w, MSS, IW), Some(Window { cwnd: 6 * MSS, ssthresh: u64::MAX }));
        assert_eq!(application_limited(Window { cwnd: IW, ssthresh: 5 * MSS }, 0, IW), None);
    }
}
