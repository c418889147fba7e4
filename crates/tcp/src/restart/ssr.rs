//! Slow-start restart (SSR): after an idle the ACK clock is gone, so start again from a
//! small window (Jacobson & Karels; paper 000 §2); and its baseline, no restart at all.

use super::{IdleDecision, RestartCtx, RestartPolicy};
use crate::cc::Window;
use crate::time::Duration;

/// No slow-start restart (paper 000 §2, SunOS 4.1.3): the window survives the idle and goes
/// out at once.
#[derive(Clone, Debug)]
pub struct Nssr;

impl RestartPolicy for Nssr {
    fn on_idle_end(&mut self, w: Window, _ctx: &RestartCtx) -> IdleDecision {
        IdleDecision { window: w, pace: None }
    }
}

/// RFC 5681 §4.1's restart (`rfc5681`).
#[derive(Clone, Debug)]
pub struct Ssr;

impl RestartPolicy for Ssr {
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        IdleDecision { window: rfc5681(w, ctx.initial_window_bytes), pace: None }
    }
}

/// ns-2's slow-start restart (`ns2`).
#[derive(Clone, Debug)]
pub struct SsrNs2;

impl RestartPolicy for SsrNs2 {
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        IdleDecision { window: ns2(w, ctx.mss), pace: None }
    }
}

/// RFC 2861's restart as Linux does it (`rfc2861`).
#[derive(Clone, Debug)]
pub struct SsrLinux;

impl RestartPolicy for SsrLinux {
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        let window = rfc2861(w, ctx.initial_window_bytes, ctx.idle, ctx.measure.rto());
        IdleDecision { window, pace: None }
    }
}

/// RFC 5681 §4.1: "a TCP SHOULD set cwnd to no more than RW before beginning transmission
/// if the TCP has not sent data in an interval exceeding the retransmission timeout", with
/// the restart window RW = min(IW, cwnd). ssthresh is kept.
pub fn rfc5681(w: Window, initial_window_bytes: u64) -> Window {
    Window { cwnd: w.cwnd.min(initial_window_bytes), ..w }
}

/// ns-2.35's restart (`tcp/tcp.cc`, `TcpAgent::timeout`): the retransmission timer expires
/// with nothing outstanding and `slow_start_restart_` and `restart_bugfix_` set, and
/// `slowdown(CLOSE_CWND_ONE | NO_OUTSTANDING_DATA)` sets cwnd to one segment whatever the
/// initial window, ssthresh kept.
pub fn ns2(w: Window, mss: u64) -> Window {
    Window { cwnd: mss, ..w }
}

/// RFC 2861 §3 (Linux's `tcp_current_ssthresh`): before a window that was not used is cut,
/// ssthresh = max(ssthresh, 3/4 cwnd) remembers it, so that slow start can return to it.
/// RFC 2861's decays and new-CWV's end of the NVP (RFC 7661 §4.4.3) share it.
pub fn remembered_ssthresh(w: Window) -> u64 {
    w.ssthresh.max(w.cwnd / 2 + w.cwnd / 4)
}

/// RFC 2861 §3 as Linux does it (`tcp_cwnd_restart`): ssthresh = max(ssthresh, 3/4 cwnd)
/// remembers the window, then cwnd halves once for every RTO of idle, never below RW.
pub fn rfc2861(w: Window, initial_window_bytes: u64, idle: Duration, rto: Duration) -> Window {
    let ssthresh = remembered_ssthresh(w);
    let restart_window = w.cwnd.min(initial_window_bytes);
    let mut cwnd = w.cwnd;
    let mut left = idle;
    // Linux: `while ((delta -= rto) > 0 && cwnd > restart_cwnd) cwnd >>= 1;`
    while left > rto && cwnd > restart_window {
        left = left - rto;
        cwnd /= 2;
    }
    Window { cwnd: cwnd.max(restart_window), ssthresh }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn rfc5681_large_cwnd_restarts_at_initial_window_and_keeps_ssthresh() {
        let w = rfc5681(Window { cwnd: 20 * MSS, ssthresh: 8 * MSS }, 2 * MSS);
        assert_eq!(w, Window { cwnd: 2 * MSS, ssthresh: 8 * MSS });
    }

    #[test]
    fn rfc5681_cwnd_below_initial_window_is_kept() {
        let w = rfc5681(Window { cwnd: MSS, ssthresh: 8 * MSS }, 4 * MSS);
        assert_eq!(w.cwnd, MSS, "RW = min(IW, cwnd)");
    }

    #[test]
    fn ns2_tcp_cc_timeout_restarts_at_one_segment_whatever_the_initial_window() {
        let w = Window { cwnd: 20 * MSS, ssthresh: 8 * MSS };
        assert_eq!(ns2(w, MSS), Window { cwnd: MSS, ssthresh: 8 * MSS }, "CLOSE_CWND_ONE, ssthresh kept");
        assert_ne!(ns2(w, MSS), rfc5681(w, 2 * MSS), "RFC 5681's RW with IW 2 is 2 segments");
    }

    #[test]
    fn rfc2861_halves_once_per_elapsed_rto() {
        let rto = secs(1);
        let halved = |idle| rfc2861(Window { cwnd: 32 * MSS, ssthresh: 10 * MSS }, 2 * MSS, idle, rto);
        assert_eq!(halved(Duration::from_millis(1500)).cwnd, 16 * MSS, "one RTO elapsed");
        assert_eq!(halved(secs(2)).cwnd, 16 * MSS, "Linux halves only while idle - k*RTO > 0");
        assert_eq!(halved(Duration::from_millis(3500)).cwnd, 4 * MSS);
        assert_eq!(halved(secs(120)).cwnd, 2 * MSS, "never below the restart window");
        assert_eq!(halved(secs(120)).ssthresh, 24 * MSS, "max(ssthresh, 3/4 cwnd)");
    }

    #[test]
    fn rfc2861_keeps_a_larger_ssthresh() {
        let w = rfc2861(Window { cwnd: 8 * MSS, ssthresh: u64::MAX }, 2 * MSS, secs(10), secs(1));
        assert_eq!(w, Window { cwnd: 2 * MSS, ssthresh: u64::MAX });
    }
}
