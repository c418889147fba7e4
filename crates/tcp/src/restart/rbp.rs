//! Rate-based pacing after idle (RBP; Visweswaraiah & Heidemann, paper 000 §3): send a
//! reasonable number of segments, evenly spaced at a conservative rate, to restart the ACK
//! clock; the first ACK ends the pacing.

use super::{ssr, IdleDecision, RestartCtx, RestartPolicy};
use crate::cc::Window;
use crate::measure::RateSample;
use crate::time::{Duration, Rate};

/// §3.1: "A host-requirements-compliant receiver must send an acknowledgement after two
/// packets, so a lower bound of two segments guarantees an immediate ACK."
pub const MIN_SEGMENTS: u64 = 2;

/// How RBP sizes and spaces its paced train.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RbpForm {
    /// The paper's text as rampup reads it (§3.2, §3.3; `rate_plan`, `cwnd_plan`).
    #[default]
    Paper,
    /// As ns-2.35's agents compute it (`tcp/tcp-rbp.cc`; `ns2_rate_plan`, `ns2_cwnd_plan`).
    Ns2,
}

/// RBP/rate (§3.2): pace at `scale` × the Vegas rate measured before the idle.
#[derive(Clone, Debug)]
pub struct RbpRate {
    scale: f64,
    form: RbpForm,
}

impl RbpRate {
    pub fn new(scale: f64, form: RbpForm) -> Self {
        RbpRate { scale, form }
    }
}

impl RestartPolicy for RbpRate {
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        paced(w, ctx, |srtt, window_segments| match self.form {
            RbpForm::Paper => {
                let rate = ctx.measure.last_rate().map(|s| s.actual_rate());
                rate_plan(self.scale, rate, srtt, window_segments, ctx.mss)
            }
            RbpForm::Ns2 => {
                let v_rtt = ctx.measure.latest_rtt().unwrap_or(srtt);
                ns2_rate_plan(self.scale, ctx.measure.last_rate(), v_rtt, window_segments, ctx.mss)
            }
        })
    }
}

/// RBP/cwnd (§3.3): pace `fraction` of NSSR's window over one smoothed RTT.
#[derive(Clone, Debug)]
pub struct RbpCwnd {
    fraction: f64,
    form: RbpForm,
}

impl RbpCwnd {
    pub fn new(fraction: f64, form: RbpForm) -> Self {
        RbpCwnd { fraction, form }
    }
}

impl RestartPolicy for RbpCwnd {
    fn on_idle_end(&mut self, w: Window, ctx: &RestartCtx) -> IdleDecision {
        paced(w, ctx, |srtt, window_segments| match self.form {
            RbpForm::Paper => cwnd_plan(self.fraction, srtt, window_segments),
            RbpForm::Ns2 => ns2_cwnd_plan(self.fraction, w.cwnd, srtt, window_segments, ctx.mss),
        })
    }
}

/// A paced restart with the plan `plan(srtt, window_segments)` makes; `window_segments` is
/// what NSSR would send at once. With no RTT estimate yet (every data segment was
/// retransmitted) there is nothing to pace over, so the restart is RFC 5681's.
fn paced(w: Window, ctx: &RestartCtx, plan: impl FnOnce(Duration, u64) -> Plan) -> IdleDecision {
    let Some(srtt) = ctx.measure.srtt() else {
        return IdleDecision { window: ssr::rfc5681(w, ctx.initial_window_bytes), pace: None };
    };
    let plan = plan(srtt, (ctx.usable_window_bytes / ctx.mss).max(1));
    IdleDecision { window: apply(w, plan, ctx.mss), pace: Some(plan) }
}

/// How many segments to pace after an idle, and how far apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub segments: u64,
    pub interval: Duration,
}

/// §3.1: at least `MIN_SEGMENTS`, at most the window NSSR would send ("RBP can never be
/// worse than NSSR", so the window wins over the floor), at most `fits_segments`.
fn bounded(fits_segments: u64, window_segments: u64) -> u64 {
    fits_segments.max(MIN_SEGMENTS).min(window_segments).max(1)
}

/// RBP/rate (§3.2, §3.4): pace at `scale` × `rate`, the Vegas actual rate measured before
/// the idle (`None`, no sample yet, counts as 0 and paces the floor of two segments), no
/// more segments than one `srtt` carries at that rate.
pub fn rate_plan(scale: f64, rate: Option<Rate>, srtt: Duration, window_segments: u64, mss: u64) -> Plan {
    let rate = Rate((rate.map_or(0, Rate::bps) as f64 * scale) as u64);
    let segments = bounded(rate.bytes_in(srtt) / mss, window_segments);
    // At the rate, but never slower than `segments` over one srtt: where the floor of two
    // segments binds, the rate alone would stretch them over more than an RTT.
    let interval = rate.tx_time(mss).min(srtt.mul_div(1, segments));
    Plan { segments, interval }
}

/// RBP/cwnd (§3.3): `fraction` of the segments NSSR would send (`window_segments`),
/// spread evenly over one `srtt`.
pub fn cwnd_plan(fraction: f64, srtt: Duration, window_segments: u64) -> Plan {
    let segments = bounded((window_segments as f64 * fraction) as u64, window_segments);
    Plan { segments, interval: srtt.mul_div(1, segments) }
}

/// ns-2's `int(x + 0.5)` (`tcp/tcp-rbp.cc`, `send_much`: "round").
fn rounded(x: f64) -> u64 {
    (x + 0.5) as u64
}

/// ns-2.35's RBP/rate (`tcp/tcp-rbp.cc`, `RBPVegasTcpAgent::send_much` with
/// `rbp_rate_algorithm_` 1): N = int(`rbp_scale_` × `v_actual_` × `v_rtt_` + 0.5), at least
/// `RBP_MIN_SEGMENTS`, cwnd = min(cwnd, N), one segment every `v_rtt_` / `window()`.
/// `v_actual_` is what the last epoch *sent* over its mean RTT (`tcp/tcp-vegas.cc`,
/// `VegasTcpAgent::recv`: `rttLen` = `t_seqno_` − `v_begseq_`), 0 without an epoch; `v_rtt`
/// is the latest RTT sample.
pub fn ns2_rate_plan(scale: f64, sample: Option<RateSample>, v_rtt: Duration, window_segments: u64, mss: u64) -> Plan {
    let v_actual = sample.filter(|s| s.mean_rtt > Duration::ZERO).map_or(0.0, |s| s.sent_bytes as f64 / mss as f64 / s.mean_rtt.as_secs_f64());
    let segments = bounded(rounded(scale * v_actual * v_rtt.as_secs_f64()), window_segments);
    Plan { segments, interval: v_rtt.mul_div(1, segments) }
}

/// ns-2.35's RBP/cwnd (`tcp/tcp-rbp.cc`, `RBPRenoTcpAgent::send_much`): N =
/// int(`rbp_scale_` × cwnd + 0.5) of the window in segments, fractions included, at least
/// `RBP_MIN_SEGMENTS`, cwnd = min(cwnd, N), one segment every srtt / `window()`.
pub fn ns2_cwnd_plan(scale: f64, cwnd_bytes: u64, srtt: Duration, window_segments: u64, mss: u64) -> Plan {
    let segments = bounded(rounded(scale * cwnd_bytes as f64 / mss as f64), window_segments);
    Plan { segments, interval: srtt.mul_div(1, segments) }
}

/// The paced segments are the window until the first ACK (as ns-2's `tcp-rbp.cc`,
/// cwnd = min(cwnd, paced)): the pacer need not count them.
pub fn apply(w: Window, plan: Plan, mss: u64) -> Window {
    Window { cwnd: w.cwnd.min(plan.segments * mss), ..w }
}

/// §3: "Rate-based pacing ceases as soon as the first acknowledgement is received since the
/// ACK-clock has then been reestablished." Before the ACK is processed, cwnd becomes the
/// data outstanding (ns-2's Reno/RBP), so a first ACK that comes before all paced segments
/// went out releases only what it acknowledges (and slow start's increase), not a burst.
pub fn hand_back(w: Window, flight_bytes: u64, mss: u64) -> Window {
    Window { cwnd: w.cwnd.min(flight_bytes).max(mss), ..w }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const SRTT: Duration = Duration::from_millis(200);

    #[test]
    fn rate_plan_paces_what_one_srtt_carries_at_the_rate() {
        // 40 kB/s = 320 kb/s: 8 segments in 200 ms, one every 25 ms.
        let p = rate_plan(1.0, Some(Rate(320_000)), SRTT, 20, MSS);
        assert_eq!(p, Plan { segments: 8, interval: Duration::from_millis(25) });
    }

    #[test]
    fn rate_plan_scale_lowers_the_rate() {
        let p = rate_plan(0.75, Some(Rate(320_000)), SRTT, 20, MSS);
        // 1000 B at 240 kb/s takes 33 333 334 ns (rounded up); 200 ms / 6 is 1 ns shorter.
        assert_eq!(p, Plan { segments: 6, interval: Duration::from_nanos(33_333_333) });
    }

    #[test]
    fn rate_plan_window_caps_segments_and_keeps_the_rate() {
        let p = rate_plan(1.0, Some(Rate(320_000)), SRTT, 3, MSS);
        assert_eq!(p, Plan { segments: 3, interval: Duration::from_millis(25) });
    }

    #[test]
    fn rate_plan_low_rate_paces_two_segments_over_one_srtt() {
        // 4 kb/s carries 0.1 segment per srtt.
        let p = rate_plan(1.0, Some(Rate(4_000)), SRTT, 20, MSS);
        assert_eq!(p, Plan { segments: 2, interval: Duration::from_millis(100) });
        assert_eq!(rate_plan(1.0, None, SRTT, 20, MSS), p, "no sample: rate 0");
    }

    #[test]
    fn rate_plan_window_of_one_segment_wins_over_the_floor() {
        assert_eq!(rate_plan(1.0, None, SRTT, 1, MSS).segments, 1);
    }

    #[test]
    fn cwnd_plan_spreads_the_window_over_one_srtt() {
        assert_eq!(cwnd_plan(1.0, SRTT, 10), Plan { segments: 10, interval: Duration::from_millis(20) });
        assert_eq!(cwnd_plan(0.5, SRTT, 10), Plan { segments: 5, interval: Duration::from_millis(40) });
        assert_eq!(cwnd_plan(0.1, SRTT, 10).segments, 2, "never fewer than two");
    }

    fn epoch(sent_segments: u64, acked_segments: u64, mean_rtt: Duration) -> RateSample {
        RateSample { acked_bytes: acked_segments * MSS, sent_bytes: sent_segments * MSS, interval: mean_rtt, rtt: mean_rtt, mean_rtt }
    }

    /// `tcp/tcp-rbp.cc`, `RBPVegasTcpAgent::send_much`: v_actual_ counts what the last epoch
    /// sent (`tcp-vegas.cc` `rttLen`), and N = int(scale × v_actual_ × v_rtt_ + 0.5).
    #[test]
    fn ns2_rate_plan_rounds_what_was_sent_times_the_latest_rtt() {
        // 3 sent (1 acked) in a mean RTT of 250 ms: 12 segments/s; × 220 ms = 2.64 → 3.
        let p = ns2_rate_plan(1.0, Some(epoch(3, 1, ms(250))), ms(220), 20, MSS);
        assert_eq!(p, Plan { segments: 3, interval: Duration::from_nanos(73_333_333) }, "v_rtt_ / window()");
        // The paper's rule floors the acknowledged rate × srtt: 4 segments/s × 220 ms = 0.88 → 2.
        assert_eq!(rate_plan(1.0, Some(epoch(3, 1, ms(250)).actual_rate()), ms(220), 20, MSS).segments, 2);
    }

    #[test]
    fn ns2_rate_plan_keeps_two_segments_and_the_window_cap() {
        assert_eq!(ns2_rate_plan(1.0, None, ms(200), 20, MSS), Plan { segments: 2, interval: ms(100) }, "RBP_MIN_SEGMENTS");
        let p = ns2_rate_plan(1.0, Some(epoch(10, 10, ms(100))), ms(100), 4, MSS);
        assert_eq!(p, Plan { segments: 4, interval: ms(25) }, "cwnd = min(cwnd, N); spaced by window()");
    }

    /// `tcp/tcp-rbp.cc`, `RBPRenoTcpAgent::send_much`: N = int(scale × cwnd_ + 0.5), cwnd_
    /// with its fraction, spaced by srtt / `window()`.
    #[test]
    fn ns2_cwnd_plan_rounds_the_fractional_window() {
        let p = ns2_cwnd_plan(1.0, 6_700, SRTT, 32, MSS);
        assert_eq!(p, Plan { segments: 7, interval: Duration::from_nanos(28_571_428) });
        assert_eq!(cwnd_plan(1.0, SRTT, 6).segments, 6, "the paper's rule: whole segments of the window");
        assert_eq!(ns2_cwnd_plan(1.0, 6_400, SRTT, 32, MSS).segments, 6);
        assert_eq!(ns2_cwnd_plan(1.0, 6_700, SRTT, 6, MSS).segments, 6, "window() caps it");
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn hand_back_early_ack_shrinks_cwnd_to_the_flight() {
        let w = hand_back(Window { cwnd: 8 * MSS, ssthresh: 32 * MSS }, 3 * MSS, MSS);
        assert_eq!(w.cwnd, 3 * MSS);
        assert_eq!(hand_back(w, 5 * MSS, MSS).cwnd, 3 * MSS, "never grows the window");
    }
}
