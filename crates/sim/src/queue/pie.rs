//! PIE, Proportional Integral controller Enhanced (RFC 8033): a drop probability updated
//! every `t_update` from the queueing delay and its trend, applied to packets as they
//! arrive.

use rampup_tcp::{Duration, Rate, Time};
use rand::Rng;

use super::{secs, Fifo, Queued, Verdicts};
use crate::rng::{self, Stream};

/// PIE's settings (RFC 8033 §4-5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, the delay PIE steers to (§4.2: 15 ms).
    pub target: Duration,
    /// T_UPDATE, the period of the probability's update (§4.2: 15 ms).
    pub t_update: Duration,
    /// The weight of the delay's distance from target, per second (§4.2: 0.125 Hz).
    pub alpha: f64,
    /// The weight of the delay's change since the last update, per second (§4.2: 1.25 Hz).
    pub beta: f64,
    /// MAX_BURST, the burst let through after an idle (§4.4: 150 ms).
    pub max_burst: Duration,
    /// §5.1's de-randomisation of drops (an option; off as in ns-3 and Linux).
    pub derandomize: bool,
    /// Mark ECN-capable packets while the probability is at most `mark_ecnth` (§5.1).
    pub ecn: bool,
    pub mark_ecnth: f64,
    /// MEAN_PKTSIZE: a queue under two of these is never dropped from (§4.1).
    pub mean_pktsize_bytes: u32,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: Duration::from_millis(15),
            t_update: Duration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Duration::from_millis(150),
            derandomize: false,
            ecn: false,
            mark_ecnth: 0.1,
            mean_pktsize_bytes: 1500,
        }
    }
}

#[derive(Debug)]
pub struct Pie {
    params: PieParams,
    /// The dequeue rate, which the link's rate is: §4.3's estimate of the queueing delay
    /// is the queue's bytes over it.
    rate: Rate,
    queue: Fifo,
    drop_prob: f64,
    qdelay_old: Duration,
    burst_allowance: Duration,
    /// §5.1's accumulated probability, for de-randomised drops.
    accu_prob: f64,
    /// The next update is due at `next_update`.
    next_update: Time,
    rng: Stream,
}

impl Pie {
    pub fn new(params: PieParams, rate: Rate, seed: u64) -> Pie {
        Pie {
            params,
            rate,
            queue: Fifo::default(),
            drop_prob: 0.0,
            qdelay_old: Duration::ZERO,
            burst_allowance: params.max_burst,
            accu_prob: 0.0,
            next_update: Time::ZERO + params.t_update,
            rng: rng::stream(seed, "queue:pie"),
        }
    }

    /// §4.3: the queueing delay, the queue's bytes at the dequeue rate.
    fn current_qdelay(&self) -> Duration {
        self.rate.tx_time(self.queue.bytes())
    }

    /// The updates due by `now`, each at its own time (the queue changes only when a
    /// packet comes or goes, so between two calls it is what it is now).
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            self.update();
            self.next_update += self.params.t_update;
        }
    }

    /// §4.2 and §5.2's `calculate_drop_prob`, at each T_UPDATE.
    fn update(&mut self) {
        let p = &self.params;
        let qdelay = self.current_qdelay();
        let delta = secs(qdelay) - secs(p.target);
        let trend = secs(qdelay) - secs(self.qdelay_old);
        let mut adj = p.alpha * delta + p.beta * trend;
        // §5.2: the step is scaled down while the probability is small, so that a light
        // load is controlled by small steps (auto-tuning of alpha and beta).
        adj /= match self.drop_prob {
            x if x < 0.000_001 => 2048.0,
            x if x < 0.000_01 => 512.0,
            x if x < 0.000_1 => 128.0,
            x if x < 0.001 => 32.0,
            x if x < 0.01 => 8.0,
            x if x < 0.1 => 2.0,
            _ => 1.0,
        };
        // §5.2: above 10%, the probability grows by at most 2% an update.
        if self.drop_prob >= 0.1 && adj > 0.02 {
            adj = 0.02;
        }
        self.drop_prob += adj;
        // §4.2: with no queue now nor at the last update, the probability decays by 2%.
        if qdelay == Duration::ZERO && self.qdelay_old == Duration::ZERO {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // §4.4: the burst allowance runs down, and is restored once the queue has been
        // short and the probability zero.
        self.burst_allowance = self.burst_allowance - p.t_update;
        let short = secs(qdelay) < secs(p.target) / 2.0 && secs(self.qdelay_old) < secs(p.target) / 2.0;
        if short && self.drop_prob == 0.0 && self.burst_allowance == Duration::ZERO {
            self.burst_allowance = p.max_burst;
        }
        self.qdelay_old = qdelay;
    }

    /// §5.1 `drop_early`: whether the packet arriving gets a congestion signal.
    fn drop_early(&mut self) -> bool {
        let p = &self.params;
        if self.burst_allowance > Duration::ZERO {
            return false;
        }
        // §4.1: a short queue, or a small delay with a moderate probability, is left alone
        // so that PIE stays work-conserving. The queue is the one the packet finds, before
        // it joins (§4.1 and Appendix A test `queue_.byte_length()` upon the arrival).
        let half_target = secs(p.target) / 2.0;
        if (secs(self.qdelay_old) < half_target && self.drop_prob < 0.2) || self.queue.bytes() <= 2 * p.mean_pktsize_bytes as u64 {
            return false;
        }
        if p.derandomize {
            // §5.1: drops spaced out by the accumulated probability: none before it
            // reaches 0.85, always one once it reaches 8.5.
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                self.accu_prob = 0.0;
                return true;
            }
        }
        let drop = self.rng.random::<f64>() < self.drop_prob;
        if drop {
            self.accu_prob = 0.0;
        }
        drop
    }

    pub fn enqueue(&mut self, now: Time, mut pkt: Queued, full: bool, out: &mut Verdicts) {
        self.catch_up(now);
        if full {
            out.drop(&pkt);
            return;
        }
        if self.drop_early() {
            // §5.1: mark rather than drop only while the probability is low.
            let ecn = self.params.ecn && self.drop_prob <= self.params.mark_ecnth;
            if !out.signal(&mut pkt, ecn) {
                return;
            }
        }
        self.queue.push(pkt);
    }

    pub fn dequeue(&mut self, now: Time) -> Option<Queued> {
        self.catch_up(now);
        self.queue.pop()
    }

    pub(super) fn queue(&self) -> &Fifo {
        &self.queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::test_util::{ms, pkt};

    /// A PIE queue on a 10 Mb/s link (1500 bytes take 1.2 ms) holding `n` packets.
    fn with_queue(n: u32) -> Pie {
        let mut p = Pie::new(PieParams::default(), Rate(10_000_000), 1);
        for i in 0..n {
            p.queue.push(pkt(i, 1500, 0, 0));
        }
        p
    }

    #[test]
    fn the_update_weighs_distance_and_trend_by_alpha_and_beta() {
        // RFC 8033 §4.2: p += alpha·(qdelay − ref) + beta·(qdelay − qdelay_old), scaled by
        // §5.2's table: at probability 0 the step is divided by 2048.
        let mut p = with_queue(25); // 30 ms of queue
        p.catch_up(ms(15));
        let step = 0.125 * (0.030 - 0.015) + 1.25 * (0.030 - 0.0);
        assert!((p.drop_prob - step / 2048.0).abs() < 1e-12, "{}", p.drop_prob);
        // Probability now in [1e-5, 1e-4): the next step (no trend) is divided by 128.
        let before = p.drop_prob;
        p.catch_up(ms(30));
        let step = 0.125 * (0.030 - 0.015) / 128.0;
        assert!((p.drop_prob - before - step).abs() < 1e-12, "{}", p.drop_prob - before);
    }

    #[test]
    fn one_update_per_t_update() {
        let mut p = with_queue(25);
        p.catch_up(ms(44));
        assert_eq!(p.next_update, ms(45));
        assert_eq!(p.qdelay_old, Duration::from_millis(30));
    }

    #[test]
    fn the_increase_above_ten_percent_is_capped_at_two_percent() {
        // RFC 8033 §5.2.
        let mut p = with_queue(500);
        p.drop_prob = 0.5;
        p.update();
        assert!((p.drop_prob - 0.52).abs() < 1e-12);
    }

    #[test]
    fn an_empty_queue_decays_the_probability() {
        // RFC 8033 §4.2: no delay now nor before: p × 0.98.
        let mut p = with_queue(0);
        p.drop_prob = 0.5;
        p.update();
        // The step itself is alpha·(0 − ref) = −0.001875, then the decay.
        assert!((p.drop_prob - (0.5 - 0.125 * 0.015) * 0.98).abs() < 1e-12);
    }

    #[test]
    fn the_burst_allowance_lets_the_first_burst_through() {
        // RFC 8033 §4.4: no drops while the allowance lasts, even at probability 1.
        let mut p = with_queue(100);
        p.drop_prob = 1.0;
        assert!(!p.drop_early());
        p.burst_allowance = Duration::ZERO;
        p.qdelay_old = Duration::from_millis(100);
        assert!(p.drop_early());
    }

    #[test]
    fn a_short_queue_is_never_dropped_from() {
        // RFC 8033 §4.1 and Appendix A's drop_early: no drop while the queue the packet
        // finds holds at most two mean packets (`queue_.byte_length() <= 2 * MEAN_PKTSIZE`,
        // before it joins); a third packet waiting makes the drop possible.
        let mut p = with_queue(2);
        p.params.mean_pktsize_bytes = 1500;
        p.drop_prob = 1.0;
        p.burst_allowance = Duration::ZERO;
        p.qdelay_old = Duration::from_millis(100);
        assert!(!p.drop_early(), "two packets waiting");
        p.queue.push(pkt(9, 1500, 0, 0));
        assert!(p.drop_early(), "three packets waiting");
    }

    #[test]
    fn derandomised_drops_wait_for_the_accumulated_probability() {
        // RFC 8033 §5.1: at p = 0.25 no drop for the first three arrivals (0.75 < 0.85).
        let mut p = with_queue(100);
        p.params.derandomize = true;
        p.drop_prob = 0.25;
        p.burst_allowance = Duration::ZERO;
        p.qdelay_old = Duration::from_millis(100);
        assert!((0..3).all(|_| !p.drop_early()));
        assert!(p.accu_prob >= 0.75);
    }
}
