//! One place for what every part reads: the RTT estimator and retransmission timeout
//! (RFC 6298), the connection's minimum RTT, the handshake RTT,
//! and the per-RTT sample of the bytes acknowledged, which is both TCP Vegas' rate and RFC
//! 7661's pipeACK sample. Congestion control, restart policies and later mechanisms read
//! these numbers; only the endpoint and its sender write them.

mod bsd;
mod ns2;
mod ticks;

pub use bsd::{next_tick, SLOW_TICK};

use bsd::Bsd44;
use ns2::Ns2Timer;
use ticks::TickEstimator;

use crate::time::{Duration, Rate, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    /// RTO before any RTT sample (RFC 6298 §2.1: 1 s).
    pub initial: Duration,
    /// Lower bound (RFC 6298 §2.4: 1 s; Linux and ns-2.35 use 200 ms).
    pub min: Duration,
    /// Upper bound after backoff (RFC 6298 §2.5 allows 60 s or more).
    pub max: Duration,
    /// Clock granularity G of RFC 6298 §2.2; with a non-zero G the RTO is also rounded up to
    /// whole ticks, as a BSD kernel with 500 ms ticks does. Under `RtoRule::Bsd44`, the
    /// slow timer's tick (zero: 500 ms); under `RtoRule::Ns2`, `tcp_tick_`.
    pub granularity: Duration,
    /// How the RTO follows the RTT samples.
    pub rule: RtoRule,
}

/// How the RTO is computed from the RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoRule {
    /// RFC 6298 §2: RTO = max(min, SRTT + max(G, 4·RTTVAR)).
    #[default]
    Rfc6298,
    /// Linux (`tcp_rtt_estimator` in net/ipv4/tcp_input.c; `tcp_set_rto` there, which calls
    /// `__tcp_set_rto` in include/net/tcp.h): RTO = SRTT + rttvar. Linux's mdev is the mean
    /// deviation ×4 (RFC 6298's 4·RTTVAR, with an eighth of the gain when the RTT falls);
    /// rttvar rises at once to the largest mdev of the current RTT (mdev_max), and once per
    /// RTT, when an ACK that carries a sample passes rtt_seq (snd_nxt at the RTT's start),
    /// falls a quarter of the way down to it. mdev_max restarts each RTT from `min`
    /// (`tcp_rto_min`), so rttvar never falls below `min` and the RTO stays at least
    /// SRTT + min, enough for an ACK held by a delayed-ACK timer of up to `min`. RFC 6298's
    /// comes down to `min` once RTTVAR has decayed: on a path whose RTT is near `min`, such an
    /// ACK comes after a spurious timeout. Left out: jiffies (the granularity G rounds the RTO
    /// up instead, with no max(G, ·) term), TCP_RTO_MAX's 120 s (`max` bounds the RTO here)
    /// and a per-route rto_min (RTAX_RTO_MIN).
    Linux,
    /// 4.4BSD-Lite (`bsd.rs`, docs/bsd44.md): one segment timed at a time, its RTT in whole
    /// ticks of the slow timer (`granularity`), srtt and rttvar in BSD's fixed point
    /// (`tcp_xmit_timer`), the RTO in whole ticks between `min` and `max` from `initial`,
    /// backed off by `tcp_backoff[]`, and the retransmit timer firing on a tick
    /// (`Measure::rto_deadline`). The samples of every ACK are only observed (min RTT,
    /// events); the endpoint reports sends (`Measure::on_segment_sent`).
    Bsd44,
    /// ns-2.35's TcpAgent (`ns2.rs`, docs/ns2-reading.md): one segment timed at a time in
    /// ticks of `granularity` on the agent's own clock, BSD's fixed point without its origin
    /// of 1, the RTO raised to `min` before the backoff, from `initial`; the timer runs from
    /// when it is set. Samples and sends as under `Bsd44`.
    Ns2,
}

impl RtoRule {
    /// The rule times one segment at a time itself (`Measure::on_segment_sent`) rather than
    /// take a sample from every ACK.
    pub fn times_one_segment(self) -> bool {
        matches!(self, RtoRule::Bsd44 | RtoRule::Ns2)
    }
}

/// The state a rule other than RFC 6298's keeps beside the common one.
#[derive(Clone, Debug)]
enum RuleState {
    Linux(LinuxDeviation),
    Ticks(TickRule),
}

/// A rule that times one segment in ticks (`RtoRule::times_one_segment`): each keeps its own
/// RTO and backoff over the estimator they share (`ticks.rs`).
#[derive(Clone, Debug)]
enum TickRule {
    Bsd(Bsd44),
    Ns2(Ns2Timer),
}

impl TickRule {
    fn estimator(&self) -> &TickEstimator {
        match self {
            TickRule::Bsd(b) => &b.est,
            TickRule::Ns2(t) => &t.est,
        }
    }

    fn estimator_mut(&mut self) -> &mut TickEstimator {
        match self {
            TickRule::Bsd(b) => &mut b.est,
            TickRule::Ns2(t) => &mut t.est,
        }
    }

    fn rto(&self) -> Duration {
        match self {
            TickRule::Bsd(b) => b.rto(),
            TickRule::Ns2(t) => t.rto(),
        }
    }

    fn backed_off(&self) -> bool {
        match self {
            TickRule::Bsd(b) => b.backed_off(),
            TickRule::Ns2(t) => t.backed_off(),
        }
    }

    /// Whether the ACK ended the timing and gave a sample.
    fn on_ack(&mut self, now: Time, ack: u64) -> bool {
        match self {
            TickRule::Bsd(b) => b.on_ack(now, ack).is_some(),
            TickRule::Ns2(t) => t.on_ack(now, ack).is_some(),
        }
    }

    fn on_timeout(&mut self) {
        match self {
            TickRule::Bsd(b) => b.on_timeout(),
            TickRule::Ns2(t) => t.on_timeout(),
        }
    }
}

/// Linux's deviation state (`RtoRule::Linux`), each ×4 as Linux keeps them.
#[derive(Clone, Copy, Debug)]
struct LinuxDeviation {
    /// `tcp_rto_min`: the floor of rttvar.
    min: u64,
    /// `mdev_us`: the smoothed mean deviation.
    mdev: u64,
    /// `mdev_max_us`: the largest `mdev` in the current RTT, from `min` up.
    mdev_max: u64,
    /// `rttvar_us`: what the RTO adds to SRTT.
    rttvar: u64,
    /// `rtt_seq`: the RTT ends at an ACK beyond it (None: the ACK that carries the first
    /// sample sets it).
    rtt_seq: Option<u64>,
    /// A sample came since the last ACK: the once-per-RTT step looks at that ACK.
    sampled: bool,
}

impl LinuxDeviation {
    fn new(min: Duration) -> Self {
        LinuxDeviation { min: min.0, mdev: 0, mdev_max: 0, rttvar: 0, rtt_seq: None, sampled: false }
    }

    /// `tcp_rtt_estimator`'s deviation update for sample `r` (`previous`: SRTT before it).
    /// Out of line, so that `Measure::on_rtt_sample` stays small enough to inline.
    #[inline(never)]
    fn on_sample(&mut self, previous: Option<Duration>, r: Duration) {
        self.sampled = true;
        let Some(srtt) = previous else {
            // The first sample: mdev = 2·r (so that RTO = 3·r), rttvar at least `min`.
            self.mdev = 2 * r.0;
            self.rttvar = self.mdev.max(self.min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = None;
            return;
        };
        let err = r.0.abs_diff(srtt.0);
        let step = err as i64 - (self.mdev / 4) as i64;
        // An RTT that fell raises mdev with an eighth of the gain (Linux's comment: as Eifel,
        // it keeps the RTO from growing when the RTT drops).
        let step = if r.0 < srtt.0 && step > 0 { step / 8 } else { step };
        self.mdev = self.mdev.saturating_add_signed(step);
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
    }

    /// Linux's once-per-RTT step, when `ack` (which carried a sample) passes `rtt_seq`:
    /// rttvar falls a quarter of the way to the RTT's largest deviation, and the next RTT's
    /// largest starts again from `min`. Returns whether rttvar may have changed.
    #[inline(never)]
    fn on_ack(&mut self, ack: u64, snd_nxt: u64) -> bool {
        if !std::mem::take(&mut self.sampled) {
            return false;
        }
        let Some(rtt_seq) = self.rtt_seq else {
            self.rtt_seq = Some(snd_nxt);
            return false;
        };
        if ack <= rtt_seq {
            return false;
        }
        if self.mdev_max < self.rttvar {
            self.rttvar -= (self.rttvar - self.mdev_max) / 4;
        }
        self.rtt_seq = Some(snd_nxt);
        self.mdev_max = self.min;
        true
    }

    /// `__tcp_set_rto`: SRTT + rttvar, rounded up to the clock's ticks, at most `max`.
    fn rto(&self, srtt: Duration, cfg: &RtoConfig) -> Duration {
        (srtt + Duration(self.rttvar)).round_up_to(cfg.granularity).min(cfg.max)
    }
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            initial: Duration::from_secs(1),
            min: Duration::from_secs(1),
            max: Duration::from_secs(60),
            granularity: Duration::ZERO,
            rule: RtoRule::Rfc6298,
        }
    }
}

/// One per-RTT rate measurement, as TCP Vegas takes it: the bytes acknowledged between the
/// start of an epoch and the ACK of the data that was the last sent when the epoch began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    pub acked_bytes: u64,
    /// The bytes sent between the epoch's start and its end (ns-2's `rttLen` = `t_seqno_` −
    /// `v_begseq_`, `tcp/tcp-vegas.cc` `VegasTcpAgent::recv`).
    pub sent_bytes: u64,
    pub interval: Duration,
    /// Smallest RTT sample seen during the epoch (what Linux Vegas compares with BaseRTT).
    pub rtt: Duration,
    /// Mean of the RTT samples of the epoch (what ns-2's Vegas compares with BaseRTT).
    pub mean_rtt: Duration,
}

impl RateSample {
    /// Vegas' Actual rate (Brakmo & Peterson §3.2): the bytes acknowledged in one epoch over
    /// the epoch's RTT, here the mean of its samples as in ns-2's `v_actual_`. Not over the
    /// wall-clock `interval`: an epoch can span an idle period.
    pub fn actual_rate(&self) -> Rate {
        Rate::from_bytes_per(self.acked_bytes, self.mean_rtt)
    }
}

/// What an ACK did to the per-RTT rate epoch (`Measure::on_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateEpoch {
    /// The epoch goes on (or this ACK began one).
    Running,
    /// The epoch ended and `Measure::last_rate()` is its sample.
    Sampled,
    /// The epoch ended without a single RTT sample: every segment acknowledged in it had been
    /// retransmitted (Karn's rule), as in the go-back-N after a timeout. `last_rate()` is an
    /// older epoch's and says nothing about this one.
    Unsampled,
}

#[derive(Clone, Debug)]
pub struct Measure {
    cfg: RtoConfig,
    srtt: Option<Duration>,
    rttvar: Duration,
    /// Present under every rule but RFC 6298's (boxed: every endpoint holds
    /// a `Measure`, and the forwarding path touches thousands of them).
    rule: Option<Box<RuleState>>,
    rto: Duration,
    backoff_shift: u32,
    latest_rtt: Option<Duration>,
    min_rtt: Option<Duration>,
    handshake_rtt: Option<Duration>,
    epoch_start: Option<Time>,
    epoch_end_seq: u64,
    epoch_acked: u64,
    epoch_min_rtt: Option<Duration>,
    epoch_rtt_sum: u64,
    /// u32, beside `backoff_shift`: no epoch holds 2^32 samples, and the pair fills one word.
    epoch_rtt_count: u32,
    last_rate: Option<RateSample>,
    /// RTT samples taken so far.
    rtt_samples: u64,
}

impl Measure {
    /// How many RTT samples were taken.
    pub fn rtt_samples(&self) -> u64 {
        self.rtt_samples
    }

    pub fn new(cfg: RtoConfig) -> Self {
        let rule = match cfg.rule {
            RtoRule::Rfc6298 => None,
            RtoRule::Linux => Some(Box::new(RuleState::Linux(LinuxDeviation::new(cfg.min)))),
            RtoRule::Bsd44 => Some(Box::new(RuleState::Ticks(TickRule::Bsd(Bsd44::new(&cfg))))),
            RtoRule::Ns2 => Some(Box::new(RuleState::Ticks(TickRule::Ns2(Ns2Timer::new(&cfg))))),
        };
        let rto = match rule.as_deref() {
            Some(RuleState::Ticks(t)) => t.rto(),
            _ => cfg.initial,
        };
        Measure {
            cfg,
            srtt: None,
            rttvar: Duration::ZERO,
            rule,
            rto,
            backoff_shift: 0,
            latest_rtt: None,
            min_rtt: None,
            handshake_rtt: None,
            epoch_start: None,
            epoch_end_seq: 0,
            epoch_acked: 0,
            epoch_min_rtt: None,
            epoch_rtt_sum: 0,
            rtt_samples: 0,
            epoch_rtt_count: 0,
            last_rate: None,
        }
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }
    /// RFC 6298's RTTVAR, kept under every rule (t_rttvar / 4 ticks under Bsd44 and Ns2).
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
    pub fn latest_rtt(&self) -> Option<Duration> {
        self.latest_rtt
    }
    /// BaseRTT in Vegas' terms: the smallest RTT sample of the connection.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
    /// The handshake's RTT: SYN to SYN-ACK at the active end, SYN-ACK to ACK at the passive
    /// end; `None` when the SYN or SYN-ACK was sent twice (Karn's rule).
    pub fn handshake_rtt(&self) -> Option<Duration> {
        self.handshake_rtt
    }
    /// The most recent completed per-RTT rate sample.
    pub fn last_rate(&self) -> Option<RateSample> {
        self.last_rate
    }
    /// The bytes acknowledged in the last complete RTT epoch: RFC 7661 §4.3's pipeACK
    /// sample, the data the path delivered in one RTT.
    pub fn delivered_last_rtt(&self) -> Option<u64> {
        self.last_rate.map(|s| s.acked_bytes)
    }

    /// The current retransmission timeout, backoff included.
    pub fn rto(&self) -> Duration {
        // Read on every new ACK, and nearly always without a backoff to apply.
        let backed = match self.backoff_shift {
            0 => self.rto,
            shift => Duration(self.rto.0.saturating_mul(1u64 << shift.min(32))),
        };
        backed.min(self.cfg.max)
    }

    /// The RTO was doubled by a timeout and no valid RTT sample has come since.
    pub fn is_backed_off(&self) -> bool {
        self.backoff_shift > 0 || matches!(self.rule.as_deref(), Some(RuleState::Ticks(t)) if t.backed_off())
    }

    /// Draw what the rule draws from the connection's random stream: under `RtoRule::Ns2`,
    /// the phase of the agent's clock (`boot_time_`).
    pub fn seed_random(&mut self, seed: u64) {
        if let Some(RuleState::Ticks(TickRule::Ns2(t))) = self.rule.as_deref_mut() {
            t.seed_phase(seed);
        }
    }

    /// When a retransmission timer started at `now` expires: `now + rto()`, or under
    /// `RtoRule::Bsd44` on the rto()-th tick of the slow timer after `now`. Inlined: the
    /// endpoint restarts the timer on nearly every ACK; the rule is tested without a load.
    #[inline]
    pub fn rto_deadline(&self, now: Time) -> Time {
        if self.cfg.rule == RtoRule::Bsd44 {
            return self.bsd_deadline(now);
        }
        now + self.rto()
    }

    #[cold]
    fn bsd_deadline(&self, now: Time) -> Time {
        match self.rule.as_deref() {
            Some(RuleState::Ticks(TickRule::Bsd(b))) => b.deadline(now),
            _ => now + self.rto(),
        }
    }

    /// A segment starting at `seq` left at `now` (`retransmission`: sent before). Only the
    /// rules that time one segment (`RtoRule::times_one_segment`: BSD's `tcp_output`, ns-2's
    /// `TcpAgent::output`) take it; the others sample every ACK.
    #[inline]
    pub fn on_segment_sent(&mut self, now: Time, seq: u64, retransmission: bool) {
        if self.cfg.rule.times_one_segment() {
            self.timed_sent(now, seq, retransmission);
        }
    }

    #[cold]
    fn timed_sent(&mut self, now: Time, seq: u64, retransmission: bool) {
        if let Some(RuleState::Ticks(t)) = self.rule.as_deref_mut() {
            t.estimator_mut().on_sent(now, seq, retransmission);
        }
    }

    /// An ACK up to `ack` at `now` that may end the timed segment of a rule that times one
    /// (`RtoRule::times_one_segment`); the sender's new ACKs come here through `on_ack`, the
    /// handshake's from the endpoint. Nothing under the other rules. Out of line, so that
    /// `on_ack` stays small where it is inlined.
    #[inline(never)]
    pub fn on_timed_ack(&mut self, now: Time, ack: u64) {
        let Some(RuleState::Ticks(t)) = self.rule.as_deref_mut() else { return };
        if t.on_ack(now, ack) {
            self.rtt_samples += 1;
            self.rto = t.rto();
            // srtt() keeps the last estimate while the rule's is dropped after a fourth backoff.
            self.srtt = t.estimator().srtt().or(self.srtt);
            self.rttvar = t.estimator().rttvar();
        }
    }

    /// RFC 6298 §5.5: double the RTO when the timer expires (under `RtoRule::Bsd44`,
    /// `tcp_timers`' backoff by tcp_backoff[]; under `RtoRule::Ns2`, `rtt_backoff`; each also
    /// ends the timing of a segment).
    pub fn back_off(&mut self) {
        if let Some(RuleState::Ticks(t)) = self.rule.as_deref_mut() {
            t.on_timeout();
            self.rto = t.rto();
            return;
        }
        if self.rto() < self.cfg.max {
            self.backoff_shift += 1;
        }
    }

    /// RFC 6298 §5.7: when the SYN (or SYN-ACK) timed out and no RTT sample came since, an
    /// RTO below 3 s is re-initialized to 3 s as data transmission begins. Not BSD's: its
    /// data starts with the SYN's backed-off RTO.
    pub fn on_handshake_after_syn_timeout(&mut self) {
        if self.srtt.is_none() && !self.cfg.rule.times_one_segment() {
            self.rto = self.rto.max(Duration::from_secs(3)).min(self.cfg.max);
            self.backoff_shift = 0;
        }
    }

    /// The handshake's RTT; `seeds_rto`: it is also the estimator's first sample
    /// (`RtoTiming`). Under a rule that times one segment it is only observed: the SYN's
    /// sample in ticks comes with `on_timed_ack`.
    pub fn on_handshake_rtt(&mut self, sample: Duration, seeds_rto: bool) {
        self.handshake_rtt = Some(sample);
        if self.cfg.rule.times_one_segment() {
            self.on_rtt_observed(sample);
            return;
        }
        if !seeds_rto {
            return;
        }
        self.on_rtt_sample(sample);
        if let Some(RuleState::Linux(l)) = self.rule.as_deref_mut() {
            // tcp_rtt_estimator sets rtt_seq = snd_nxt at the first sample: here the SYN's
            // end, 1 (the initial sequence number is 0), which the first ACK of data passes
            // (the SYN's ACK is no `on_ack`).
            l.rtt_seq = Some(1);
            l.sampled = false;
        }
    }

    /// A valid RTT sample (Karn's rule is the caller's: never from a retransmitted segment).
    /// Always inlined: the sender takes one on nearly every new ACK, and with the Linux
    /// rule's branch the compiler's heuristics would keep it out of line, a call per sample.
    #[inline(always)]
    pub fn on_rtt_sample(&mut self, r: Duration) {
        self.rtt_samples += 1;
        let g = self.cfg.granularity;
        let previous = self.srtt;
        match previous {
            // RFC 6298 §2.2
            None => {
                self.srtt = Some(r);
                self.rttvar = Duration(r.0 / 2);
            }
            // RFC 6298 §2.3, alpha = 1/8, beta = 1/4
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Duration((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Duration((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.rto = match self.rule.as_deref_mut() {
            None => (srtt + g.max(Duration(4 * self.rttvar.0))).round_up_to(g).max(self.cfg.min).min(self.cfg.max),
            Some(RuleState::Linux(l)) => {
                l.on_sample(previous, r);
                l.rto(srtt, &self.cfg)
            }
            // BSD's and ns-2's estimators take their samples in ticks (`on_timed_ack`), never these.
            Some(RuleState::Ticks(t)) => t.rto(),
        };
        // RFC 6298 §5.7: a new sample after backoff collapses the backed-off RTO.
        self.backoff_shift = 0;
        self.on_rtt_observed(r);
    }

    /// An RTT measured, for everything but the RTO: the latest and least RTTs and the
    /// epoch's (`on_rtt_sample` calls it; alone, for a stack that does not time its RTO from
    /// samples, `RtoTiming::Ns2Full`).
    pub fn on_rtt_observed(&mut self, r: Duration) {
        self.latest_rtt = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.epoch_min_rtt = Some(self.epoch_min_rtt.map_or(r, |m| m.min(r)));
        self.epoch_rtt_sum += r.0;
        self.epoch_rtt_count += 1;
    }

    /// Account `acked_bytes` newly acknowledged by `ack`; `snd_nxt` is the next byte the
    /// sender would send. Says whether this ACK completed a per-RTT rate epoch.
    #[inline]
    pub fn on_ack(&mut self, now: Time, ack: u64, acked_bytes: u64, snd_nxt: u64) -> RateEpoch {
        match self.rule.as_deref_mut() {
            None => {}
            Some(RuleState::Linux(l)) => {
                let stepped = l.on_ack(ack, snd_nxt);
                if let (true, Some(srtt)) = (stepped, self.srtt) {
                    self.rto = l.rto(srtt, &self.cfg);
                }
            }
            Some(RuleState::Ticks(_)) => self.on_timed_ack(now, ack),
        }
        let Some(start) = self.epoch_start else {
            self.begin_epoch(now, snd_nxt);
            return RateEpoch::Running;
        };
        self.epoch_acked += acked_bytes;
        // The epoch is one RTT of a distinguished segment: the first one sent after the
        // epoch began, which starts at `epoch_end_seq` (Brakmo & Peterson; Linux tests
        // `after(ack, beg_snd_nxt)`, ns-2 `seqno >= v_begseq_`). Ending at the ACK of the
        // segment before it would end each epoch one ACK into the next round, and in slow
        // start the boundary would drift back by the segments each ACK releases.
        if ack <= self.epoch_end_seq {
            return RateEpoch::Running;
        }
        let ended = match self.epoch_min_rtt {
            Some(rtt) => {
                self.last_rate = Some(RateSample {
                    acked_bytes: self.epoch_acked,
                    sent_bytes: snd_nxt.saturating_sub(self.epoch_end_seq),
                    interval: now.since(start),
                    rtt,
                    mean_rtt: Duration(self.epoch_rtt_sum / u64::from(self.epoch_rtt_count.max(1))),
                });
                RateEpoch::Sampled
            }
            None => RateEpoch::Unsampled,
        };
        self.begin_epoch(now, snd_nxt);
        ended
    }

    /// The retransmission timer expired and the sender goes back to snd_una (RFC 5681 §3.1,
    /// RFC 6298 §5.4). The epoch in progress waited for the ACK of a segment at or beyond the
    /// old snd_nxt, which go-back-N reaches only after resending everything below it: one
    /// segment per RTT at the loss window, so a Vegas slow start that grows only at epoch ends
    /// would stay at one segment for as many RTTs as there were segments outstanding. Brakmo &
    /// Peterson time a distinguished segment per RTT; after a timeout that is a segment sent
    /// from now on, as Linux re-arms `beg_snd_nxt` when Vegas is enabled again
    /// (`vegas_enable`). The next ACK begins a new epoch.
    pub fn on_timeout(&mut self) {
        self.epoch_start = None;
    }

    fn begin_epoch(&mut self, now: Time, snd_nxt: u64) {
        self.epoch_start = Some(now);
        self.epoch_end_seq = snd_nxt;
        self.epoch_acked = 0;
        self.epoch_min_rtt = None;
        self.epoch_rtt_sum = 0;
        self.epoch_rtt_count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut m = Measure::new(RtoConfig { min: ms(200), ..Default::default() });
        m.on_rtt_sample(ms(100));
        assert_eq!(m.srtt(), Some(ms(100)));
        assert_eq!(m.rttvar(), ms(50));
        assert_eq!(m.rto(), ms(300));
    }

    /// A constant RTT of 200 ms with min 200 ms, one sample per ACK and one RTT per ten
    /// ACKs of 1,000 bytes; the RTO after each of `rtts` RTTs.
    fn constant_rtt(rule: RtoRule, rtts: u64) -> Vec<Duration> {
        let mut m = Measure::new(RtoConfig { min: ms(200), rule, ..Default::default() });
        let mut out = Vec::new();
        for i in 0..rtts * 10 {
            m.on_rtt_sample(ms(200));
            m.on_ack(Time::ZERO + ms(20 * i), 1000 * (i + 1), 1000, 1000 * (i + 11));
            if i % 10 == 9 {
                out.push(m.rto());
            }
        }
        out
    }

    #[test]
    fn rfc6298_rto_comes_down_to_min_on_a_steady_path() {
        // RFC 6298 §2.3: RTTVAR decays by 3/4 per sample, so SRTT + 4·RTTVAR -> 200 ms.
        let rto = constant_rtt(RtoRule::Rfc6298, 10);
        assert!(rto[9] < ms(201), "{:?}", rto[9]);
    }

    #[test]
    fn linux_rto_stays_at_least_srtt_plus_min() {
        // tcp_rtt_estimator: rttvar_us never falls below tcp_rto_min (mdev_max_us restarts
        // from it each RTT), and __tcp_set_rto adds it to SRTT: 200 + 200 ms.
        // rttvar falls from 2·RTT a quarter of its excess per RTT: 400, 350, 312, ... -> 200.
        let rto = constant_rtt(RtoRule::Linux, 30);
        assert_eq!(rto[0], ms(600), "the first sample: rttvar = mdev = 2·RTT, RTO = 3·RTT; its RTT ends with the 11th ACK");
        assert!(rto.windows(2).all(|w| w[1] <= w[0]), "it only falls: {rto:?}");
        assert!(rto[9] > ms(410), "one quarter per RTT, not per sample: {:?}", rto[9]);
        assert!(rto[29] >= ms(400) && rto[29] < ms(401), "{:?}", rto[29]);
    }

    #[test]
    fn linux_rttvar_rises_at_once_and_falls_at_most_once_per_rtt() {
        // tcp_rtt_estimator: a sample raises mdev, and rttvar with it, at once; rttvar falls
        // only when an ACK passes rtt_seq, a quarter of its excess over the RTT's mdev_max.
        let mut m = Measure::new(RtoConfig { min: ms(200), rule: RtoRule::Linux, ..Default::default() });
        let mut ack = 0;
        // One sample per ACK of 1,000 bytes with 10,000 bytes beyond it in flight: an RTT
        // ends eleven ACKs on, at the first ACK beyond rtt_seq.
        let mut step = |m: &mut Measure, rtt: u64| {
            ack += 1000;
            m.on_rtt_sample(ms(rtt));
            m.on_ack(Time::ZERO, ack, 1000, ack + 10_000);
            m.rto() - m.srtt().unwrap()
        };
        for _ in 0..300 {
            step(&mut m, 200);
        }
        let settled = step(&mut m, 200);
        assert!(settled >= ms(200) && settled < ms(201), "down to min: {settled:?}");
        let spiked = step(&mut m, 600);
        assert!(spiked >= ms(400), "|err| = 400 ms, mdev = 3/4 mdev + |err|: {spiked:?}");
        let mut rttvar = vec![spiked];
        for _ in 0..40 {
            rttvar.push(step(&mut m, 200));
        }
        let falls: Vec<usize> = (1..rttvar.len()).filter(|&i| rttvar[i] < rttvar[i - 1]).collect();
        assert!(rttvar.windows(2).all(|w| w[1] <= w[0]), "{rttvar:?}");
        assert!(falls.windows(2).all(|w| w[1] - w[0] >= 11), "once per RTT at most: {falls:?}");
        assert!(!falls.is_empty() && rttvar[40] > ms(250), "falls, a quarter per RTT: {rttvar:?}");
    }

    #[test]
    fn linux_rtt_after_the_handshake_ends_at_the_first_ack_of_data() {
        // tcp_rtt_estimator sets rtt_seq = snd_nxt at the first sample: after the handshake
        // the SYN's end, so the first RTT of data already lets rttvar fall.
        let cfg = RtoConfig { min: ms(200), rule: RtoRule::Linux, ..Default::default() };
        let (mut syn, mut data) = (Measure::new(cfg), Measure::new(cfg));
        syn.on_handshake_rtt(ms(200), true);
        let mut falls_at = [None, None];
        for (k, m) in [&mut syn, &mut data].into_iter().enumerate() {
            for i in 1..=40u64 {
                let before = m.srtt().map(|srtt| m.rto() - srtt);
                m.on_rtt_sample(ms(200));
                m.on_ack(Time::ZERO, 1 + 1000 * i, 1000, 1 + 1000 * (i + 10));
                let rttvar = m.rto() - m.srtt().unwrap();
                if before.is_some_and(|b| rttvar < b) && falls_at[k].is_none() {
                    falls_at[k] = Some(i);
                }
            }
        }
        // An RTT ends at the first ACK beyond rtt_seq, eleven ACKs on. Without the handshake's
        // sample the first RTT of data only starts the count: mdev_max is still the first
        // sample's, and rttvar first falls an RTT later.
        assert_eq!(falls_at, [Some(12), Some(23)]);
    }

    #[test]
    fn later_samples_use_rfc6298_gains() {
        let mut m = Measure::new(RtoConfig { min: ms(1), ..Default::default() });
        m.on_rtt_sample(ms(100));
        m.on_rtt_sample(ms(180));
        // rttvar = 3/4*50 + 1/4*80 = 57.5; srtt = 7/8*100 + 1/8*180 = 110
        assert_eq!(m.rttvar(), Duration(57_500_000));
        assert_eq!(m.srtt(), Some(ms(110)));
        assert_eq!(m.rto(), ms(340));
    }

    #[test]
    fn min_rto_and_tick_rounding_apply() {
        let mut m = Measure::new(RtoConfig { min: ms(1000), ..Default::default() });
        m.on_rtt_sample(ms(10));
        assert_eq!(m.rto(), ms(1000));
        let mut bsd = Measure::new(RtoConfig { min: ms(1), granularity: ms(500), ..Default::default() });
        bsd.on_rtt_sample(ms(10));
        assert_eq!(bsd.rto(), ms(1000), "10 + max(500, 20) ms rounds up to two 500 ms ticks");
    }

    #[test]
    fn backoff_doubles_up_to_max_and_a_sample_resets_it() {
        let mut m = Measure::new(RtoConfig { max: Duration::from_secs(4), ..Default::default() });
        m.back_off();
        assert_eq!(m.rto(), Duration::from_secs(2));
        m.back_off();
        m.back_off();
        assert_eq!(m.rto(), Duration::from_secs(4));
        m.on_rtt_sample(ms(100));
        assert_eq!(m.rto(), Duration::from_secs(1));
    }

    #[test]
    fn rate_epoch_measures_bytes_acked_per_rtt() {
        let mut m = Measure::new(RtoConfig::default());
        let t0 = Time(0);
        assert_eq!(m.on_ack(t0, 1001, 1000, 5001), RateEpoch::Running);
        m.on_rtt_sample(ms(100));
        assert_eq!(m.on_ack(Time(ms(50).0), 3001, 2000, 7001), RateEpoch::Running);
        assert_eq!(m.on_ack(Time(ms(99).0), 5001, 2000, 9001), RateEpoch::Running, "data sent before the epoch began");
        assert_eq!(m.on_ack(Time(ms(100).0), 6001, 1000, 9001), RateEpoch::Sampled, "the first segment sent after it");
        let s = m.last_rate().unwrap();
        assert_eq!(s.acked_bytes, 5000);
        assert_eq!(s.interval, ms(100));
        assert_eq!(s.rtt, ms(100));
    }

    #[test]
    fn rate_epoch_keeps_min_and_mean_rtt() {
        let mut m = Measure::new(RtoConfig::default());
        m.on_ack(Time(0), 1001, 1000, 5001);
        m.on_rtt_sample(ms(100));
        m.on_rtt_sample(ms(110));
        m.on_rtt_sample(ms(120));
        assert_eq!(m.on_ack(Time(ms(100).0), 6001, 5000, 9001), RateEpoch::Sampled);
        let s = m.last_rate().unwrap();
        assert_eq!((s.rtt, s.mean_rtt), (ms(100), ms(110)));
    }

    #[test]
    fn actual_rate_is_bytes_per_mean_rtt_not_per_interval() {
        let mut m = Measure::new(RtoConfig::default());
        m.on_ack(Time(0), 1001, 1000, 5001);
        m.on_rtt_sample(ms(100));
        m.on_rtt_sample(ms(150));
        // The epoch spans an idle second: the interval would give 4 kB/s.
        assert_eq!(m.on_ack(Time(ms(1250).0), 6001, 5000, 9001), RateEpoch::Sampled);
        assert_eq!(m.last_rate().unwrap().actual_rate(), Rate(320_000), "5000 B per 125 ms");
    }
}
