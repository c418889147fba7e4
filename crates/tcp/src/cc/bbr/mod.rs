//! BBR (Cardwell et al., ACM Queue 2016) as Linux mainline's `net/ipv4/tcp_bbr.c` has it
//! (BBRv1): a model of the path from each ACK's rate sample (`crate::rate_sample`), the
//! windowed maximum of the delivery rate over 10 rounds and the minimum RTT over 10 s; the
//! pacing rate is pacing_gain × bw and cwnd is cwnd_gain × BDP plus a quantum. Modes:
//! STARTUP (gain 2/ln 2 until the bandwidth stops growing), DRAIN, PROBE_BW's eight-phase
//! gain cycle, and PROBE_RTT every 10 s without a new minimum RTT.
//!
//! Units: bytes and bytes per second where the kernel counts packets and packets per µs
//! (<< 24); gains in the kernel's 1/256 (BBR_UNIT). The long-term (policer) sampling is in
//! `long_term.rs`. Not modelled: the delayed-ACK flag of `bbr_update_min_rtt` and
//! `bbr_undo_cwnd` (docs/bbr.md).

mod filter;
mod long_term;
#[cfg(test)]
mod tests;

use filter::MaxFilter;
use long_term::{LongTerm, LtDecision, LtInput};

use super::{AckCtx, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::pacing::PaceCtx;
use crate::rate_sample::RateSample;
use crate::registry::{Family, Key, PartInfo, Settings, Unit, Value};
use crate::time::{Duration, Rate, Time};

/// The kernel's fixed-point unit of gains (BBR_SCALE 8).
const UNIT: u64 = 256;
/// bbr_high_gain: 2/ln 2, the smallest gain that doubles the sending rate every round.
const HIGH_GAIN: u64 = UNIT * 2885 / 1000 + 1;
/// bbr_drain_gain: 1/high_gain, to drain STARTUP's queue in about one round.
const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
/// bbr_cwnd_gain in PROBE_BW.
const CWND_GAIN: u64 = UNIT * 2;
/// bbr_pacing_gain: PROBE_BW's cycle, probe at 5/4, drain at 3/4, cruise at 1 for six phases.
pub const PACING_GAIN_CYCLE: [u64; 8] = [UNIT * 5 / 4, UNIT * 3 / 4, UNIT, UNIT, UNIT, UNIT, UNIT, UNIT];
/// bbr_cycle_rand: the cycle starts at a random phase other than the draining one.
const CYCLE_RAND: u64 = 7;
/// bbr_bw_rtts: the bandwidth filter's window, in rounds.
const BW_FILTER_ROUNDS: u64 = PACING_GAIN_CYCLE.len() as u64 + 2;
/// bbr_min_rtt_win_sec.
pub const MIN_RTT_WINDOW: Duration = Duration::from_secs(10);
/// bbr_probe_rtt_mode_ms.
pub const PROBE_RTT_DURATION: Duration = Duration::from_millis(200);
/// bbr_cwnd_min_target, in segments.
pub const CWND_MIN_TARGET_SEGMENTS: u64 = 4;
/// bbr_full_bw_thresh: growth of 25 % or more is growth.
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
/// bbr_full_bw_cnt: rounds without growth that fill the pipe.
pub const FULL_BW_ROUNDS: u32 = 3;
/// bbr_pacing_margin_percent: pace 1 % below the estimate.
const PACING_MARGIN_PERCENT: u64 = 1;
/// TCP_INIT_CWND: the window `bbr_bdp` gives before any RTT sample, in segments.
const INIT_CWND_SEGMENTS: u64 = 10;
/// bbr_min_tso_rate, bit/s: below it a TSO burst is one segment, else two.
const MIN_TSO_RATE_BPS: u64 = 1_200_000;
/// sk_pacing_shift: a burst is the data of 2^-10 s at the pacing rate.
const PACING_SHIFT: u32 = 10;
/// bbr_extra_acked_win_rtts: the ACK-aggregation filter's window, in rounds.
const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
/// bbr_extra_acked_max_us.
const EXTRA_ACKED_MAX: Duration = Duration::from_millis(100);

/// BBR's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BbrConfig {
    /// The long-term (policer) bandwidth sampling (`long_term.rs`). Off by default: the
    /// losses this model counts are its retransmissions, which spread a loss episode over
    /// its repair, and a drop-tail overflow then passes for a policer (docs/bbr.md).
    pub long_term: bool,
}

impl Default for BbrConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl BbrConfig {
    pub const DEFAULT: BbrConfig = BbrConfig { long_term: false };

    pub fn read(s: &Settings) -> BbrConfig {
        BbrConfig { long_term: s.flag("long_term") }
    }
}

pub const INFO: PartInfo = PartInfo {
    family: Family::Cc,
    name: "bbr",
    doc: "BBRv1 as Linux's tcp_bbr.c: paced at the bandwidth estimate, cwnd from the BDP",
    keys: &[Key {
        name: "long_term",
        unit: Unit::Flag,
        default: Value::Flag(BbrConfig::DEFAULT.long_term),
        doc: "the long-term (policer) bandwidth sampling, bbr_lt_bw_sampling (off: see docs/bbr.md)",
    }],
    // It reads a rate sample from each ACK and paces every segment.
    per_segment: true,
};

/// `enum bbr_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

/// The loss-recovery state an ACK finds (Linux's `icsk_ca_state`, as far as BBR reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CaState {
    Open,
    Recovery,
    /// After a timeout, until its recovery point is acknowledged (TCP_CA_Loss).
    Loss,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    mode: Mode,
    /// Windowed max of the delivery rate, bytes/s, over `BW_FILTER_ROUNDS` rounds.
    bw: MaxFilter,
    min_rtt: Option<Duration>,
    min_rtt_stamp: Time,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// Packet-timed rounds so far, and the C.delivered that ends the current one.
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    cycle_stamp: Time,
    cycle_idx: usize,
    prev_ca_state: CaState,
    /// The highest sequence number sent at a timeout: the Loss state lasts until it is
    /// acknowledged.
    loss_high: Option<u64>,
    packet_conservation: bool,
    prior_cwnd: u64,
    idle_restart: bool,
    full_bw: u64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    pacing_gain: u64,
    cwnd_gain: u64,
    /// sk_pacing_rate, bytes/s; None until the first RTT sample sets it
    /// (`bbr_init_pacing_rate_from_rtt`).
    pacing_rate: Option<u64>,
    /// tp->delivered_mstamp: when data was last delivered.
    delivered_time: Time,
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
    extra_acked: [u64; 2],
    extra_acked_win_rounds: u32,
    extra_acked_win_idx: usize,
    /// The last cumulative ACK (where a timeout's loss starts).
    last_ack: u64,
    /// C.delivered and the bytes counted lost at the last sample (tp->delivered, tp->lost).
    delivered: u64,
    lost: u64,
    lt: LongTerm,
    /// The state of the connection's random stream (splitmix64), for the phase a
    /// PROBE_BW cycle starts at (the kernel's `prandom_u32_max`).
    random: u64,
}

impl Default for Bbr {
    fn default() -> Self {
        Self::new(BbrConfig::DEFAULT)
    }
}

impl Bbr {
    /// `bbr_init`: STARTUP, no bandwidth, the minimum RTT unknown.
    pub fn new(cfg: BbrConfig) -> Self {
        Bbr {
            cfg,
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            cycle_stamp: Time::ZERO,
            cycle_idx: 0,
            prev_ca_state: CaState::Open,
            loss_high: None,
            packet_conservation: false,
            prior_cwnd: 0,
            idle_restart: false,
            full_bw: 0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: None,
            delivered_time: Time::ZERO,
            ack_epoch_stamp: Time::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rounds: 0,
            extra_acked_win_idx: 0,
            last_ack: 0,
            delivered: 0,
            lost: 0,
            lt: LongTerm::default(),
            random: 0,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// `bbr_max_bw`, bytes/s.
    pub fn max_bw(&self) -> u64 {
        self.bw.get()
    }
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    pub fn pacing_gain(&self) -> u64 {
        self.pacing_gain
    }
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }
    pub fn rounds(&self) -> u64 {
        self.rtt_cnt
    }
    /// `bbr_bw`: the policed rate while the long-term sampling uses it, else the max.
    pub fn bw(&self) -> u64 {
        self.lt.bw().unwrap_or(self.max_bw())
    }
    pub fn policed(&self) -> bool {
        self.lt.bw().is_some()
    }

    /// What the long-term sampling reads now.
    fn lt_input(&self, losses: u64, app_limited: bool) -> LtInput {
        LtInput {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            lost: self.lost,
            losses,
            round_start: self.round_start,
            app_limited,
            probe_bw: self.mode == Mode::ProbeBw,
        }
    }

    /// `bbr_lt_bw_sampling` and what its decision changes.
    fn lt_bw_sampling(&mut self, losses: u64, app_limited: bool) {
        if !self.cfg.long_term {
            return;
        }
        match self.lt.on_sample(&self.lt_input(losses, app_limited)) {
            LtDecision::Nothing => {}
            // `bbr_lt_bw_interval_done`: try to avoid drops.
            LtDecision::Policed => self.pacing_gain = UNIT,
            LtDecision::Expired => self.reset_probe_bw_mode(),
        }
    }

    /// The next draw of the connection's random stream (splitmix64).
    fn next_random(&mut self) -> u64 {
        self.random = self.random.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.random;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `bbr_rate_bytes_per_sec` / `bbr_bw_to_pacing_rate`: bw × gain, 1 % below.
    fn pacing_rate_for(bw: u64, gain: u64) -> u64 {
        (bw as u128 * gain as u128 / UNIT as u128 * (100 - PACING_MARGIN_PERCENT) as u128 / 100) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain × cwnd / RTT, the RTT nominally 1 ms
    /// before any sample.
    fn initial_pacing_rate(cwnd: u64, srtt: Option<Duration>) -> u64 {
        let rtt = srtt.filter(|s| *s > Duration::ZERO).unwrap_or(Duration::from_millis(1));
        Self::pacing_rate_for((cwnd as u128 * 1_000_000_000 / rtt.as_nanos() as u128) as u64, HIGH_GAIN)
    }

    /// `bbr_set_pacing_rate`: the rate only rises until the pipe is first full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u64, cwnd: u64, srtt: Option<Duration>) {
        if self.pacing_rate.is_none() && srtt.is_some() {
            self.pacing_rate = Some(Self::initial_pacing_rate(cwnd, srtt));
        }
        let rate = Self::pacing_rate_for(bw, gain);
        if self.full_bw_reached || self.pacing_rate.is_none_or(|p| rate > p) {
            self.pacing_rate = Some(rate);
        }
    }

    /// `bbr_tso_segs_goal`: the segments the pacing rate carries in 2^-10 s, at least
    /// `bbr_min_tso_segs`, at most 127.
    fn tso_segs_goal(&self, mss: u64) -> u64 {
        let rate = self.pacing_rate.unwrap_or(0);
        let min_segs = if rate * 8 < MIN_TSO_RATE_BPS { 1 } else { 2 };
        ((rate >> PACING_SHIFT) / mss).max(min_segs).min(0x7f)
    }

    /// `bbr_bdp`: ceil(bw × min_rtt × gain), in whole segments; the initial default window
    /// before any RTT sample.
    fn bdp_segments(&self, bw: u64, gain: u64, mss: u64) -> u64 {
        let Some(rtt) = self.min_rtt else { return INIT_CWND_SEGMENTS };
        let bytes_x_unit = bw as u128 * rtt.as_nanos() as u128 * gain as u128 / 1_000_000_000;
        bytes_x_unit.div_ceil(UNIT as u128 * mss as u128) as u64
    }

    /// `bbr_quantization_budget`: three bursts' worth beyond the BDP (one in the sender's
    /// queue, one in its offload, one at the receiver), rounded up to an even count, and two
    /// more in the probing phase.
    fn quantization_budget(&self, segments: u64, mss: u64) -> u64 {
        let mut cwnd = segments + 3 * self.tso_segs_goal(mss);
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`, in bytes.
    fn inflight(&self, bw: u64, gain: u64, mss: u64) -> u64 {
        self.quantization_budget(self.bdp_segments(bw, gain, mss), mss) * mss
    }

    /// `bbr_save_cwnd`: the last good window, to restore after recovery or PROBE_RTT.
    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_update_bw`: count rounds, sample for a policer, and feed the filter with the
    /// sample's rate unless it is app-limited and below the estimate.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate_bytes_per_sec() else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs.losses, rs.is_app_limited);
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(BW_FILTER_ROUNDS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: the data ACKed beyond what bw would deliver over the
    /// epoch, its max over 5 to 10 rounds (`bbr_extra_acked`), at most one cwnd.
    fn update_ack_aggregation(&mut self, rs: &RateSample, cwnd: u64) {
        if rs.newly_delivered == 0 || !rs.valid {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rounds = (self.extra_acked_win_rounds + 1).min(0x1f);
            if self.extra_acked_win_rounds >= EXTRA_ACKED_WIN_ROUNDS {
                self.extra_acked_win_rounds = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = self.delivered_time.since(self.ack_epoch_stamp);
        let mut expected = (self.bw() as u128 * epoch.as_nanos() as u128 / 1_000_000_000) as u64;
        if self.ack_epoch_acked <= expected {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = self.delivered_time;
            expected = 0;
        }
        self.ack_epoch_acked += rs.newly_delivered;
        let extra = (self.ack_epoch_acked - expected).min(cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// `bbr_ack_aggregation_cwnd`, bytes: once the pipe is full, the recent excess ACKed,
    /// at most what bw delivers in 100 ms.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max_aggr = (self.bw() as u128 * EXTRA_ACKED_MAX.as_nanos() as u128 / 1_000_000_000) as u64;
        self.extra_acked[0].max(self.extra_acked[1]).min(max_aggr)
    }

    /// `bbr_is_next_cycle_phase`: a phase lasts one min RTT; the probing phase longer if
    /// in flight has not reached 5/4 BDP (and no loss), the draining one less if in flight
    /// fell to the BDP first.
    fn is_next_cycle_phase(&self, rs: &RateSample, mss: u64) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| self.delivered_time.since(self.cycle_stamp) > m);
        let bw = self.max_bw();
        match self.pacing_gain.cmp(&UNIT) {
            std::cmp::Ordering::Equal => full_length,
            // Not persisting after a loss: the path may not hold pacing_gain × BDP.
            std::cmp::Ordering::Greater => full_length && (rs.losses > 0 || rs.prior_in_flight >= self.inflight(bw, self.pacing_gain, mss)),
            std::cmp::Ordering::Less => full_length || rs.prior_in_flight <= self.inflight(bw, UNIT, mss),
        }
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = self.delivered_time;
    }

    /// `bbr_reset_probe_bw_mode`: PROBE_BW from a random phase other than the draining one
    /// (the phase before the one drawn from the last seven is taken, then advanced).
    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        let draw = self.next_random() % CYCLE_RAND;
        self.cycle_idx = PACING_GAIN_CYCLE.len() - 1 - draw as usize;
        self.advance_cycle_phase();
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`: STARTUP has filled the pipe when three rounds in a row,
    /// not app-limited, did not raise the max bandwidth by 25 %.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = self.full_bw * FULL_BW_THRESH / UNIT;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_ROUNDS;
    }

    /// `bbr_check_drain`: DRAIN once the pipe is full (ssthresh marks the exit from
    /// slow start), PROBE_BW once in flight is down to the BDP.
    fn check_drain(&mut self, w: &mut Window, rs: &RateSample, mss: u64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), UNIT, mss);
        }
        if self.mode == Mode::Drain && rs.in_flight <= self.inflight(self.max_bw(), UNIT, mss) {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_check_probe_rtt_done`: after 200 ms and a round at the minimum window, back to
    /// the mode the pipe's state calls for, with the window saved at entry.
    fn check_probe_rtt_done(&mut self, now: Time, w: &mut Window) {
        if self.probe_rtt_done_stamp.is_none_or(|t| now <= t) {
            return;
        }
        // Wait a whole filter window until the next PROBE_RTT.
        self.min_rtt_stamp = now;
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// `bbr_update_min_rtt`: the min RTT filter (10 s), PROBE_RTT's entry when it expires,
    /// and its 200 ms and one round at 4 segments.
    fn update_min_rtt(&mut self, now: Time, w: &mut Window, rs: &RateSample, mss: u64) {
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // The samples of PROBE_RTT's low rate are app-limited (`marks_app_limited`).
            if self.probe_rtt_done_stamp.is_none() && rs.in_flight <= CWND_MIN_TARGET_SEGMENTS * mss {
                self.probe_rtt_done_stamp = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = rs.total_delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now, w);
                }
            }
        }
        if rs.newly_delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.policed() => (UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: packet conservation in the first round of
    /// recovery (cwnd = in flight + what this ACK delivered), the window from before the
    /// loss restored when recovery ends. Returns the window and whether conservation holds.
    fn recover_or_restore(&mut self, state: CaState, cwnd: u64, rs: &RateSample, mss: u64) -> (u64, bool) {
        // An ACK for P segments releases at most 2P: first the lost ones are taken off.
        let mut cwnd = if rs.losses > 0 { cwnd.saturating_sub(rs.losses).max(mss) } else { cwnd };
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            // The round starts now.
            self.next_rtt_delivered = rs.total_delivered;
            cwnd = rs.in_flight + rs.newly_delivered;
        } else if self.prev_ca_state >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(rs.in_flight + rs.newly_delivered), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: toward gain × BDP plus the quantum and the aggregation allowance,
    /// growing by what was delivered; cut to the target only once the pipe was full; at
    /// least 4 segments, and at most 4 in PROBE_RTT.
    fn set_cwnd(&mut self, w: &mut Window, state: CaState, rs: &RateSample, mss: u64) {
        let acked = rs.newly_delivered;
        let mut cwnd = w.cwnd;
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(state, cwnd, rs, mss);
            cwnd = c;
            if !conserving {
                let target = self.quantization_budget(self.bdp_segments(self.bw(), self.cwnd_gain, mss) + self.ack_aggregation_cwnd().div_ceil(mss), mss) * mss;
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || rs.total_delivered < INIT_CWND_SEGMENTS * mss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET_SEGMENTS * mss);
            }
        }
        w.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(CWND_MIN_TARGET_SEGMENTS * mss);
        }
    }

    /// The ACK's loss-recovery state; a timeout's Loss lasts until its recovery point.
    fn ca_state(&mut self, ctx: &AckCtx) -> CaState {
        if let Some(high) = self.loss_high {
            if ctx.ack < high {
                return CaState::Loss;
            }
            self.loss_high = None;
        }
        if ctx.in_recovery {
            CaState::Recovery
        } else {
            CaState::Open
        }
    }
}

impl CongestionControl for Bbr {
    /// `bbr_main`: the model (`bbr_update_model`), then the pacing rate and cwnd.
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        self.last_ack = ctx.ack;
        let Some(rs) = ctx.rate else { return };
        let state = self.ca_state(ctx);
        if rs.newly_delivered > 0 {
            self.delivered_time = ctx.now;
        }
        (self.delivered, self.lost) = (rs.total_delivered, rs.total_lost);
        self.update_bw(rs);
        self.update_ack_aggregation(rs, w.cwnd);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, ctx.mss) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(rs);
        self.check_drain(w, rs, ctx.mss);
        self.update_min_rtt(ctx.now, w, rs, ctx.mss);
        self.update_gains();
        self.set_pacing_rate(self.bw(), self.pacing_gain, w.cwnd, ctx.measure.srtt());
        self.set_cwnd(w, state, rs, ctx.mss);
    }

    /// `bbr_ssthresh` (and `bbr_set_state` on a timeout): the window is saved for after
    /// recovery; ssthresh stays as BBR set it.
    fn on_congestion_event(&mut self, w: &Window, ev: &CongestionEvent) -> u64 {
        self.save_cwnd(w.cwnd);
        if ev.kind == CongestionKind::Rto {
            // `bbr_set_state(TCP_CA_Loss)`: a timeout ends the round and restarts the
            // full-pipe count.
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            self.lt_bw_sampling(1, false);
            self.loss_high = Some(self.last_ack + ev.flight_bytes);
        }
        w.ssthresh
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)` on an app-limited restart: pace at the estimate
    /// itself in PROBE_BW, or see whether PROBE_RTT is done.
    fn on_tx_start(&mut self, w: &mut Window, now: Time, app_limited: bool) {
        if !app_limited {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_stamp = now;
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(self.bw(), UNIT, w.cwnd, None),
            Mode::ProbeRtt => self.check_probe_rtt_done(now, w),
            Mode::Startup | Mode::Drain => {}
        }
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn sets_window_in_recovery(&self) -> bool {
        true
    }

    fn marks_app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }

    fn pacing_rate(&self, ctx: &PaceCtx) -> Option<Rate> {
        let bytes_per_sec = self.pacing_rate.unwrap_or_else(|| Self::initial_pacing_rate(ctx.cwnd, ctx.srtt));
        Some(Rate::from_bps(bytes_per_sec.saturating_mul(8)))
    }

    fn seed_random(&mut self, seed: u64) {
        self.random = seed;
    }

    fn mode_name(&self, _w: &Window) -> &'static str {
        self.mode.name()
    }
}
