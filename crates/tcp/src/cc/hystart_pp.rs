//! HyStart++ (RFC 9406): slow start that watches each round's least RTT and, when it has
//! risen by a threshold over the last round's, slows to Conservative Slow Start (CSS), a
//! quarter of the growth, for up to five rounds before congestion avoidance; a round in
//! CSS whose least RTT falls back below the baseline says the exit was spurious and resumes
//! slow start. Only the first slow start of a connection (§4.3); a loss ends it.

use super::startup::Rounds;
use super::{AckCtx, CongestionEvent, Startup, Window};
use crate::time::Duration;

/// RFC 9406 §4.3 constants.
const MIN_RTT_THRESH: Duration = Duration::from_millis(4);
const MAX_RTT_THRESH: Duration = Duration::from_millis(16);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;
/// L, the segments one ACK may add, when not paced (§4.3: infinite when paced).
const L_UNPACED: u64 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    SlowStart,
    /// Conservative Slow Start since its baseline RTT, `rounds` rounds ended in it.
    Css {
        baseline: Duration,
        rounds: u32,
    },
    /// Congestion avoidance or a loss: the controller's own rules from now on.
    Done,
}

#[derive(Clone, Debug)]
pub struct HyStartPlusPlus {
    phase: Phase,
    rounds: Rounds,
    last_round_min: Option<Duration>,
    current_round_min: Option<Duration>,
    samples: u32,
    /// The remainder of CSS growth (bytes × CSS_GROWTH_DIVISOR) not yet a whole byte.
    css_credit: u64,
}

impl Default for HyStartPlusPlus {
    fn default() -> Self {
        HyStartPlusPlus { phase: Phase::SlowStart, rounds: Rounds::default(), last_round_min: None, current_round_min: None, samples: 0, css_credit: 0 }
    }
}

impl HyStartPlusPlus {
    pub fn new() -> Self {
        Self::default()
    }

    /// §4.2: RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms).
    fn rtt_thresh(last: Duration) -> Duration {
        Duration(last.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
    }
}

/// Boxed in `StartupPart`: the largest startup would set the size of every connection's
/// window state, and the simulator's hot fields of an end must still share the endpoint's
/// last cache line (the layout test in `rampup_sim`'s `world::conns`).
pub type Boxed = Box<HyStartPlusPlus>;

registered_without_settings!(Boxed, "hystart++", "RFC 9406 HyStart++: a rise of the round's least RTT enters Conservative Slow Start", Box::new(HyStartPlusPlus::new()));

impl Startup for HyStartPlusPlus {
    // Out of line: the dispatch on every ACK stays small enough to inline for the parts
    // most runs use (NewReno, plain slow start); see docs/performance.md.
    #[inline(never)]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        if self.phase == Phase::Done || w.cwnd >= w.ssthresh {
            return false;
        }
        // §4.2: at a round's start the last round's minimum is kept and a new one begins.
        if self.rounds.on_ack(ctx.ack, ctx.snd_nxt) {
            self.last_round_min = self.current_round_min.take();
            self.samples = 0;
            if let Phase::Css { baseline, rounds } = self.phase {
                // §4.2: after CSS_ROUNDS rounds in CSS, congestion avoidance.
                if rounds + 1 >= CSS_ROUNDS {
                    w.ssthresh = w.cwnd;
                    self.phase = Phase::Done;
                    return false;
                }
                self.phase = Phase::Css { baseline, rounds: rounds + 1 };
            }
        }
        if let Some(rtt) = ctx.rtt_sample {
            self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        // §4.2: cwnd += min(N, L × SMSS) in slow start, a quarter of that in CSS.
        let grow = ctx.acked_bytes.min(L_UNPACED * ctx.mss);
        match self.phase {
            Phase::SlowStart => w.cwnd += grow,
            _ => {
                let credit = self.css_credit + grow;
                w.cwnd += credit / CSS_GROWTH_DIVISOR;
                self.css_credit = credit % CSS_GROWTH_DIVISOR;
            }
        }
        if self.samples < N_RTT_SAMPLE {
            return true;
        }
        let (Some(current), Some(last)) = (self.current_round_min, self.last_round_min) else { return true };
        match self.phase {
            // §4.2: the round's least RTT has risen by RttThresh over the last round's: CSS.
            Phase::SlowStart if current >= last + Self::rtt_thresh(last) => self.phase = Phase::Css { baseline: current, rounds: 0 },
            // §4.2: in CSS, a least RTT below the baseline: the exit was spurious.
            Phase::Css { baseline, .. } if current < baseline => self.phase = Phase::SlowStart,
            _ => {}
        }
        true
    }

    /// §4.2: a loss in slow start or CSS ends HyStart++ (the controller sets ssthresh).
    fn on_congestion_event(&mut self, _w: &Window, _ev: &CongestionEvent) {
        self.phase = Phase::Done;
    }

    /// §4.2: "exit slow start and enter CSS" when the least RTT rose; entering CSS ends
    /// slow start even if the exit later proves spurious and slow start resumes.
    fn in_slow_start(&self, w: &Window) -> bool {
        self.phase == Phase::SlowStart && w.cwnd < w.ssthresh
    }

    fn mode_name(&self, w: &Window) -> Option<&'static str> {
        match self.phase {
            Phase::Css { .. } if w.cwnd < w.ssthresh => Some("conservative_slow_start"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;
    use crate::time::Time;

    const MSS: u64 = 1000;

    /// Drives rounds of `cwnd` ACKs, each with the RTT the closure gives for the round.
    struct Run {
        h: HyStartPlusPlus,
        w: Window,
        m: Measure,
        snd_nxt: u64,
        una: u64,
    }

    impl Run {
        fn new() -> Self {
            Run {
                h: HyStartPlusPlus::new(),
                w: Window { cwnd: 10 * MSS, ssthresh: u64::MAX },
                m: Measure::new(RtoConfig::default()),
                snd_nxt: 10 * MSS,
                una: 0,
            }
        }

        /// One round: every segment of the window is acknowledged, one ACK each, with `rtt`.
        fn round(&mut self, rtt_ms: u64) -> bool {
            let n = self.w.cwnd / MSS;
            let mut grew = false;
            for _ in 0..n {
                self.una += MSS;
                let ctx = AckCtx { rtt_sample: Some(Duration::from_millis(rtt_ms)), ack: self.una, snd_nxt: self.snd_nxt, ..ack_ctx(Time::ZERO, MSS, &self.m) };
                grew |= self.h.on_ack(&mut self.w, &ctx);
                // The window is refilled at once: snd_nxt = snd_una + cwnd.
                self.snd_nxt = self.una + self.w.cwnd;
            }
            grew
        }
    }

    #[test]
    fn rfc_9406_4_2_rounds_end_when_window_end_is_acknowledged() {
        let mut r = Rounds::default();
        assert!(r.on_ack(1000, 10_000), "the first ACK starts a round, windowEnd = 10000");
        assert!(!r.on_ack(10_000, 20_000), "snd_una at windowEnd: the byte there is not acknowledged yet");
        assert!(r.on_ack(11_000, 21_000), "past it: a new round, windowEnd = 21000");
    }

    #[test]
    fn rfc_9406_4_2_slow_start_grows_by_at_most_l_segments_per_ack() {
        let mut run = Run::new();
        let m = Measure::new(RtoConfig::default());
        let ctx = AckCtx { acked_bytes: 20 * MSS, ack: 20 * MSS, snd_nxt: 30 * MSS, ..ack_ctx(Time::ZERO, MSS, &m) };
        assert!(run.h.on_ack(&mut run.w, &ctx));
        assert_eq!(run.w.cwnd, 18 * MSS, "one ACK of 20 segments adds L = 8");
    }

    /// A steady RTT doubles the window per round; a rise of RttThresh over the last round's
    /// least RTT (its eighth, 12.5 ms at 100 ms) enters CSS, where growth is a quarter; five CSS rounds end slow start.
    #[test]
    fn rfc_9406_4_2_the_exit_to_css_and_the_end_after_five_css_rounds() {
        let mut run = Run::new();
        run.round(100);
        run.round(100);
        assert_eq!(run.w.cwnd, 40 * MSS, "doubling per round");
        run.round(112);
        assert_eq!(run.h.phase, Phase::SlowStart, "12 ms < RttThresh 12.5 ms");
        run.round(125);
        assert_eq!(run.h.phase, Phase::SlowStart, "against the last round's 112 ms the threshold is 14 ms (and then 15.6 ms against 125)");
        run.round(141);
        assert!(matches!(run.h.phase, Phase::Css { rounds: 0, .. }), "{:?}", run.h.phase);
        for k in 1..CSS_ROUNDS {
            let before = run.w.cwnd;
            run.round(142);
            assert_eq!(run.h.phase, Phase::Css { baseline: Duration::from_millis(141), rounds: k });
            assert!(run.w.cwnd - before <= before / 4 + MSS, "CSS: a quarter of slow start's growth");
        }
        let grew = run.round(142);
        assert_eq!(run.h.phase, Phase::Done);
        assert_eq!(run.w.ssthresh, run.w.cwnd, "congestion avoidance at the end of the fifth CSS round");
        assert!(!grew, "the controller grows the window from here");
    }

    #[test]
    fn rfc_9406_4_2_a_lower_rtt_in_css_resumes_slow_start() {
        let mut run = Run::new();
        run.round(100);
        run.round(100);
        run.round(125);
        assert!(matches!(run.h.phase, Phase::Css { .. }));
        run.round(110);
        assert_eq!(run.h.phase, Phase::SlowStart, "110 ms < the 125 ms baseline: the exit was spurious");
    }

    #[test]
    fn rfc_9406_4_3_a_loss_ends_it_for_the_connection() {
        let mut run = Run::new();
        run.round(100);
        let ev = CongestionEvent { now: Time::ZERO, kind: crate::cc::CongestionKind::Rto, mss: MSS, loss_window_bytes: 0, flight_bytes: 0, lost_sent_at: None };
        run.h.on_congestion_event(&run.w, &ev);
        assert!(!run.round(100), "the controller's slow start after it");
    }
}
