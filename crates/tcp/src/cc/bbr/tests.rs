//! BBR's rules, each against the kernel function it follows, driven by rate samples made
//! by hand: one ACK per step, `delivered` and the interval as a path of a given bandwidth
//! and RTT would give them.

use super::*;
use crate::measure::{Measure, RtoConfig};
use crate::test_util::ack_ctx;

const MSS: u64 = 1000;
const RTT: Duration = Duration::from_millis(100);

/// A path seen through rate samples: the clock and C.delivered.
struct Path {
    now: Time,
    delivered: u64,
    /// How much less than C.delivered a sample's segment saw at its send: zero when each
    /// ACK's segment was sent after the previous ACK (each ACK then ends a round).
    lag: u64,
    /// Bytes counted lost at each ACK, and so far.
    loss_per_ack: u64,
    lost: u64,
    measure: Measure,
}

impl Path {
    fn new() -> Self {
        Path { now: Time::ZERO, delivered: 0, lag: 0, loss_per_ack: 0, lost: 0, measure: Measure::new(RtoConfig::default()) }
    }

    /// One ACK `a.step` after the last, delivering `a.bw × a.step` bytes, its sample taken
    /// over `a.step` (a sample of the data sent since the previous ACK).
    fn ack(&mut self, b: &mut Bbr, w: &mut Window, a: Ack) {
        self.now += a.step;
        let d = (a.bw as u128 * a.step.as_nanos() as u128 / 1_000_000_000) as u64;
        let rs = RateSample {
            delivered: d,
            interval: a.step,
            send_elapsed: a.step,
            ack_elapsed: a.step,
            is_app_limited: a.app_limited,
            prior_delivered: self.delivered.saturating_sub(self.lag),
            newly_delivered: d,
            prior_in_flight: a.in_flight + d,
            in_flight: a.in_flight,
            total_delivered: self.delivered + d,
            rtt: Some(a.rtt),
            losses: self.loss_per_ack,
            total_lost: self.lost + self.loss_per_ack,
            valid: true,
        };
        self.delivered += d;
        self.lost += self.loss_per_ack;
        let ctx = AckCtx { rate: Some(&rs), in_recovery: a.in_recovery, ..ack_ctx(self.now, MSS, &self.measure) };
        b.on_ack(w, &ctx);
    }

    /// One round: an ACK one RTT after the last, whose sample covers the round.
    fn round(&mut self, b: &mut Bbr, w: &mut Window, bw: u64, in_flight: u64) {
        self.ack(b, w, Ack { bw, step: RTT, rtt: RTT, in_flight, app_limited: false, in_recovery: false });
    }
}

/// What one ACK of `Path::ack` carries: the path's bandwidth (bytes/s), the time since the
/// last ACK, the RTT sample, the flight after it, and the marks.
struct Ack {
    bw: u64,
    step: Duration,
    rtt: Duration,
    in_flight: u64,
    app_limited: bool,
    in_recovery: bool,
}

fn window() -> Window {
    Window { cwnd: 10 * MSS, ssthresh: u64::MAX }
}

/// STARTUP to PROBE_BW on a path of `bw`: the bandwidth doubles for three rounds, then
/// holds until the pipe is full and the queue is drained.
fn into_probe_bw(b: &mut Bbr, w: &mut Window, p: &mut Path, bw: u64) {
    for k in (0..3).rev() {
        p.round(b, w, bw >> k, 100 * MSS);
    }
    while b.mode() != Mode::ProbeBw {
        p.round(b, w, bw, MSS);
    }
}

/// `bbr_check_full_bw_reached`: the pipe is full after three rounds in a row without 25 %
/// growth of the max bandwidth; growth of exactly 25 % restarts the count. DRAIN follows
/// (`bbr_check_drain`), and ssthresh marks the exit.
#[test]
fn bbr_check_full_bw_reached_after_three_rounds_without_25_percent_growth() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    // Rounds of 1, 2, 4, 5 MB/s: each grows by 25 % or more.
    for bw in [1_000_000, 2_000_000, 4_000_000, 5_000_000] {
        p.round(&mut b, &mut w, bw, 1000 * MSS);
        assert!(!b.full_bw_reached());
    }
    // 6.2 MB/s is 24 % above 5: no growth, the first round of three.
    for n in 1..FULL_BW_ROUNDS {
        p.round(&mut b, &mut w, 6_200_000, 1000 * MSS);
        assert!(!b.full_bw_reached(), "{n} rounds without growth");
        assert_eq!(b.mode(), Mode::Startup);
    }
    p.round(&mut b, &mut w, 6_200_000, 1000 * MSS);
    assert!(b.full_bw_reached(), "the third round without growth fills the pipe");
    assert_eq!(b.mode(), Mode::Drain, "in flight is far above the BDP");
    assert_eq!(b.pacing_gain(), DRAIN_GAIN);
    assert!(w.ssthresh < u64::MAX);
    println!("full bw after {} rounds at {} B/s; ssthresh {} bytes", b.rounds(), b.max_bw(), w.ssthresh);
}

/// `bbr_check_full_bw_reached` skips app-limited rounds: they neither count nor reset.
#[test]
fn bbr_check_full_bw_reached_ignores_app_limited_rounds() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    p.round(&mut b, &mut w, 1_000_000, 1000 * MSS);
    for _ in 0..5 {
        p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step: RTT, rtt: RTT, in_flight: 1000 * MSS, app_limited: true, in_recovery: false });
    }
    assert!(!b.full_bw_reached());
}

/// `bbr_check_drain`: DRAIN ends once in flight is down to the BDP (plus the quantum).
#[test]
fn bbr_check_drain_enters_probe_bw_at_the_bdp() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    assert_eq!(b.mode(), Mode::ProbeBw);
}

/// `bbr_reset_probe_bw_mode`: the cycle never starts in the draining phase (3/4), and
/// starts in every other phase for some seed.
#[test]
fn bbr_reset_probe_bw_mode_starts_anywhere_but_the_draining_phase() {
    let mut seen = [0u32; 8];
    for seed in 0..400 {
        let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
        b.seed_random(seed);
        into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
        seen[b.cycle_idx()] += 1;
    }
    assert_eq!(seen[1], 0, "the 3/4 phase is never the first");
    assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 0), "start phases seen: {seen:?}");
    println!("start phases over 400 seeds: {seen:?}");
}

/// `bbr_update_cycle_phase` / `bbr_is_next_cycle_phase`: PROBE_BW's gains go 5/4, 3/4,
/// then 1 six times, each phase one min RTT long when in flight reaches the probe's
/// target and does not fall to the BDP early.
#[test]
fn bbr_probe_bw_gain_cycle_is_5_4_then_3_4_then_six_phases_at_1() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    let mut phases = vec![(b.cycle_idx(), b.pacing_gain(), p.now)];
    let step = Duration::from_millis(10);
    while phases.len() < 17 {
        // In flight well above 5/4 BDP: the probe reaches its target, the drain does not
        // reach the BDP.
        p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step, rtt: RTT, in_flight: 1000 * MSS, app_limited: false, in_recovery: false });
        if b.cycle_idx() != phases.last().expect("a phase").0 {
            phases.push((b.cycle_idx(), b.pacing_gain(), p.now));
        }
    }
    for pair in phases.windows(2) {
        let ((i, gain, start), (j, _, end)) = (pair[0], pair[1]);
        assert_eq!(j, (i + 1) % 8, "phases in order");
        assert_eq!(gain, PACING_GAIN_CYCLE[i]);
        // A phase ends at the first ACK more than one min RTT after it began.
        assert_eq!(end.since(start), RTT + step, "phase {i} lasts one min RTT");
    }
    let gains: Vec<f64> = phases.iter().map(|(_, g, _)| *g as f64 / UNIT as f64).collect();
    println!("PROBE_BW gains: {gains:?}");
}

/// `bbr_is_next_cycle_phase`: the 3/4 phase ends as soon as in flight is down to the BDP.
#[test]
fn bbr_draining_phase_ends_early_when_in_flight_reaches_the_bdp() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    while b.cycle_idx() != 1 {
        p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step: Duration::from_millis(10), rtt: RTT, in_flight: 1000 * MSS, app_limited: false, in_recovery: false });
    }
    p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step: Duration::from_millis(10), rtt: RTT, in_flight: 0, app_limited: false, in_recovery: false });
    assert_eq!(b.cycle_idx(), 2, "in flight at the BDP: the drain is over");
}

/// `bbr_update_min_rtt`: PROBE_RTT when the min RTT is 10 s old; cwnd at 4 segments
/// (`bbr_set_cwnd`); at least 200 ms and one round once in flight is down to 4 segments
/// (`bbr_probe_rtt_mode_ms`); then back to PROBE_BW with the window saved at entry
/// (`bbr_check_probe_rtt_done`).
#[test]
fn bbr_probe_rtt_after_10_s_without_a_new_min_rtt_lasts_200_ms_at_4_segments() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    let min_rtt_at = p.now;
    // Every later sample is above the min RTT (a standing queue).
    let mut entered = None;
    let mut cwnd_at_entry = w.cwnd;
    while entered.is_none() {
        cwnd_at_entry = w.cwnd;
        p.ack(
            &mut b,
            &mut w,
            Ack { bw: 1_000_000, step: RTT, rtt: RTT + Duration::from_millis(20), in_flight: 100 * MSS, app_limited: false, in_recovery: false },
        );
        if b.mode() == Mode::ProbeRtt {
            entered = Some(p.now);
        }
    }
    let entered = entered.expect("entered");
    assert!(entered.since(min_rtt_at) > MIN_RTT_WINDOW, "not before the filter expires");
    assert!(entered.since(min_rtt_at) <= MIN_RTT_WINDOW + RTT, "at the first ACK after it");
    assert_eq!(w.cwnd, CWND_MIN_TARGET_SEGMENTS * MSS);
    assert!(b.marks_app_limited(), "its low rate is no evidence of the path's");
    // In flight falls to 4 segments: the 200 ms start.
    let step = Duration::from_millis(10);
    // Its samples are app-limited as the sender marks them (`marks_app_limited`).
    p.ack(&mut b, &mut w, Ack { bw: 40_000, step, rtt: RTT, in_flight: 4 * MSS, app_limited: true, in_recovery: false });
    let floor_at = p.now;
    let mut left = None;
    while left.is_none() {
        p.ack(&mut b, &mut w, Ack { bw: 40_000, step, rtt: RTT, in_flight: 4 * MSS, app_limited: true, in_recovery: false });
        if b.mode() == Mode::ProbeRtt {
            assert!(w.cwnd <= CWND_MIN_TARGET_SEGMENTS * MSS);
        } else {
            left = Some(p.now);
        }
    }
    let held = left.expect("left").since(floor_at);
    assert!(held > PROBE_RTT_DURATION, "held {held}");
    assert!(held <= PROBE_RTT_DURATION + step + step, "held {held}");
    assert_eq!(b.mode(), Mode::ProbeBw, "the pipe was full: back to PROBE_BW");
    // The window saved at entry comes back, then `bbr_set_cwnd` bounds it by the target
    // as on any ACK: at least one BDP, where 4 segments plus this ACK would be far below.
    let bdp = b.inflight(b.max_bw(), UNIT, MSS);
    assert!(w.cwnd >= bdp.min(cwnd_at_entry), "saved {cwnd_at_entry}, BDP {bdp}, got {}", w.cwnd);
    println!("PROBE_RTT entered {} after the min RTT, held {held} at {} segments", entered.since(min_rtt_at), CWND_MIN_TARGET_SEGMENTS);
}

/// `bbr_update_bw`: an app-limited sample below the estimate does not drag the filter down.
#[test]
fn bbr_update_bw_ignores_app_limited_samples_below_the_estimate() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    let bw = b.max_bw();
    for _ in 0..20 {
        p.ack(&mut b, &mut w, Ack { bw: 10_000, step: RTT, rtt: RTT, in_flight: MSS, app_limited: true, in_recovery: false });
    }
    assert_eq!(b.max_bw(), bw, "after 20 rounds of app-limited samples");
    for _ in 0..20 {
        p.ack(&mut b, &mut w, Ack { bw: 10_000, step: RTT, rtt: RTT, in_flight: MSS, app_limited: false, in_recovery: false });
    }
    assert_eq!(b.max_bw(), 10_000, "samples that are not app-limited age it out in 10 rounds");
}

/// `bbr_set_cwnd_to_recover_or_restore`: the first round of recovery conserves packets,
/// cwnd = in flight + delivered; the end of recovery restores the window from before.
#[test]
fn bbr_packet_conservation_on_recovery_entry_and_restore_at_its_end() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    let before = w.cwnd;
    // The ACKs in recovery are of segments sent before it began: one round.
    p.lag = 50 * MSS;
    let ev = CongestionEvent {
        now: p.now,
        kind: CongestionKind::FastRetransmit { inflation_bytes: 0 },
        mss: MSS,
        loss_window_bytes: before,
        flight_bytes: before,
        lost_sent_at: None,
    };
    assert_eq!(b.on_congestion_event(&w, &ev), w.ssthresh, "bbr_ssthresh leaves ssthresh");
    let step = Duration::from_millis(1);
    p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step, rtt: RTT, in_flight: 20 * MSS, app_limited: false, in_recovery: true });
    assert_eq!(w.cwnd, 20 * MSS + 1_000, "in flight + the 1000 bytes this ACK delivered");
    p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step, rtt: RTT, in_flight: 5 * MSS, app_limited: false, in_recovery: true });
    assert_eq!(w.cwnd, 21 * MSS, "never below in flight + delivered; no growth while conserving");
    p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step, rtt: RTT, in_flight: 5 * MSS, app_limited: false, in_recovery: false });
    assert!(w.cwnd >= before, "recovery over: the window from before the loss ({before}), got {}", w.cwnd);
}

/// `bbr_cwnd_event(CA_EVENT_TX_START)`: an app-limited restart in PROBE_BW paces at the
/// estimate itself (gain 1, less the 1 % margin), not at the phase's gain.
#[test]
fn bbr_restart_from_idle_in_probe_bw_paces_at_the_estimate() {
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    while b.pacing_gain() != PACING_GAIN_CYCLE[0] {
        p.ack(&mut b, &mut w, Ack { bw: 1_000_000, step: Duration::from_millis(10), rtt: RTT, in_flight: 1000 * MSS, app_limited: false, in_recovery: false });
    }
    let ctx = PaceCtx { cwnd: w.cwnd, ssthresh: w.ssthresh, flight: 0, srtt: Some(RTT), cc_rate: None };
    let probing = b.pacing_rate(&ctx).expect("a rate");
    b.on_tx_start(&mut w, p.now + Duration::from_secs(1), true);
    let restart = b.pacing_rate(&ctx).expect("a rate");
    assert_eq!(b.max_bw(), 1_000_000, "the path's delivery rate");
    assert_eq!(restart, Rate::from_bps(1_000_000 * 99 / 100 * 8), "bw × 1 × 99 %");
    assert!(restart < probing);
    b.on_tx_start(&mut w, p.now + Duration::from_secs(2), false);
    assert_eq!(b.pacing_rate(&ctx), Some(restart), "a start that is not app-limited changes nothing");
}

/// `bbr_init_pacing_rate_from_rtt`: before the model has a bandwidth, high_gain × cwnd / RTT.
#[test]
fn bbr_initial_pacing_rate_is_high_gain_cwnd_over_srtt() {
    let b = Bbr::default();
    let ctx = PaceCtx { cwnd: 10 * MSS, ssthresh: u64::MAX, flight: 0, srtt: Some(RTT), cc_rate: None };
    // 10,000 bytes per 100 ms = 100 kB/s, × 739/256, × 99 %.
    assert_eq!(b.pacing_rate(&ctx), Some(Rate::from_bps(100_000 * 739 / 256 * 99 / 100 * 8)));
}

/// `bbr_lt_bw_sampling`: a policer. After the first loss, two intervals of four rounds
/// each with 30 % loss and the same delivery rate: BBR takes that rate as its bandwidth
/// and paces at gain 1 (`bbr_lt_bw_interval_done`), for 48 rounds of PROBE_BW
/// (`bbr_lt_bw_max_rtts`), then cycles again.
#[test]
fn bbr_lt_bw_sampling_finds_a_policer_and_uses_its_rate_for_48_rounds() {
    let (mut b, mut w, mut p) = (Bbr::new(BbrConfig { long_term: true }), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    // 500 kB/s delivered, 50 kB per round; 15 kB lost with it.
    p.loss_per_ack = 15_000;
    let mut rounds = 0;
    while !b.policed() {
        p.round(&mut b, &mut w, 500_000, 100 * MSS);
        rounds += 1;
        assert!(rounds <= 2 * 4 * 4, "no policer found in {rounds} rounds");
    }
    assert_eq!(b.bw(), 500_000, "the two intervals' average rate");
    assert_eq!(b.pacing_gain(), UNIT);
    println!("policer found after {rounds} lossy rounds; bw {} (max filter {})", b.bw(), b.max_bw());
    for k in 1..long_term::MAX_ROUNDS {
        p.round(&mut b, &mut w, 500_000, 100 * MSS);
        assert!(b.policed(), "round {k} of 48");
        assert_eq!(b.pacing_gain(), UNIT);
    }
    p.round(&mut b, &mut w, 500_000, 100 * MSS);
    assert!(!b.policed(), "48 rounds on, the gain cycle again");
    assert_eq!(b.mode(), Mode::ProbeBw);
    // Off (the default), the same losses find nothing.
    let (mut b, mut w, mut p) = (Bbr::default(), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    p.loss_per_ack = 15_000;
    for _ in 0..rounds {
        p.round(&mut b, &mut w, 500_000, 100 * MSS);
    }
    assert!(!b.policed());
}

/// `bbr_lt_bw_interval_done`: lossy intervals whose rates differ by more than 1/8 (and
/// 4 kbit/s) are no policer.
#[test]
fn bbr_lt_bw_sampling_needs_consistent_rates() {
    let (mut b, mut w, mut p) = (Bbr::new(BbrConfig { long_term: true }), window(), Path::new());
    into_probe_bw(&mut b, &mut w, &mut p, 1_000_000);
    p.loss_per_ack = 15_000;
    // Rates alternating between 500 and 400 kB/s, interval by interval, stay unpoliced.
    for round in 0..40u64 {
        let bw = if (round / 4) % 2 == 0 { 500_000 } else { 400_000 };
        p.round(&mut b, &mut w, bw, 100 * MSS);
        assert!(!b.policed(), "round {round}");
    }
}
