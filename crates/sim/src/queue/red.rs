//! RED, Random Early Detection (Floyd & Jacobson 1993, "Random Early Detection Gateways
//! for Congestion Avoidance", §4 and Fig. 2; with ns-2's `queue/red.cc` options): a drop
//! probability from the average queue, spread out by the count since the last drop.

use rampup_tcp::{Rate, Time};
use rand::Rng;

use super::{secs, Fifo, Queued, Verdicts};
use crate::rng::{self, Stream};

/// RED's settings; the defaults are ns-2's and ns-3's (`RedQueueDisc`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    /// min_th and max_th, in packets (ns-3: 5 and 15).
    pub min_th: f64,
    pub max_th: f64,
    /// max_p, the probability at max_th (ns-3: 1/LInterm = 1/50).
    pub max_p: f64,
    /// w_q, the average's weight (ns-2, ns-3: 0.002).
    pub w_q: f64,
    /// Between max_th and 2·max_th the probability rises from max_p to 1 instead of
    /// jumping to 1 (Floyd 2000, "gentle" RED; ns-2 and ns-3 default on).
    pub gentle: bool,
    /// ns-2's `wait_`: spread drops by pb/(2 − count·pb), at least 1/pb apart, instead of
    /// the paper's pb/(1 − count·pb) (ns-2 and ns-3 default on).
    pub wait: bool,
    /// The probability scales with the packet's size over `mean_pktsize_bytes` (the
    /// paper's §4 byte mode; ns-2's `bytes_`).
    pub byte_mode: bool,
    /// The typical packet, whose transmission time counts the packets an idle link could
    /// have sent (the paper's m, §4).
    pub mean_pktsize_bytes: u32,
    /// Mark ECN-capable packets instead of dropping them (ns-2's `setbit_`; RFC 3168 §7)
    /// while pb is below `mark_p`.
    pub ecn: bool,
    /// ns-2's `mark_p_`: an ECT packet is marked only while pb, before the count spreads
    /// it, is below this; above, RED drops it as from a non-ECN flow. At max_p (the
    /// default) marks stop at max_th; at 1 they span gentle RED's whole upper region, as
    /// ns-3's `RedQueueDisc` marks everything but its forced drops at 2·max_th.
    pub mark_p: f64,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.02,
            w_q: 0.002,
            gentle: true,
            wait: true,
            byte_mode: false,
            mean_pktsize_bytes: 1500,
            ecn: false,
            mark_p: 0.02,
        }
    }
}

#[derive(Debug)]
pub struct Red {
    params: RedParams,
    /// The typical packet's transmission time on the link, seconds.
    s: f64,
    queue: Fifo,
    avg: f64,
    /// Packets since the last drop while the average was between the thresholds (−1 below
    /// min_th, or while at most one packet waits).
    count: i64,
    /// When the queue went empty, for the decay of the average over an idle period.
    idle_since: Option<Time>,
    rng: Stream,
}

impl Red {
    pub fn new(params: RedParams, rate: Rate, seed: u64) -> Red {
        let s = secs(rate.tx_time(params.mean_pktsize_bytes as u64));
        Red { params, s, queue: Fifo::default(), avg: 0.0, count: -1, idle_since: Some(Time::ZERO), rng: rng::stream(seed, "queue:red") }
    }

    /// Fig. 2: the average at an arrival. After an idle period the average decays as if
    /// m = idle/s packets of an empty queue had come ((1 − w_q)^m), as ns-2 does.
    fn average(&mut self, now: Time) {
        let w = self.params.w_q;
        if let Some(t) = self.idle_since.take() {
            let m = secs(now.since(t)) / self.s;
            self.avg *= (1.0 - w).powf(m);
        }
        self.avg = (1.0 - w) * self.avg + w * self.queue.len() as f64;
    }

    /// The probability pb at the average, before the count spreads it (Fig. 2; gentle
    /// beyond max_th), or `None` where every packet is dropped.
    fn pb(&self) -> Option<f64> {
        let p = &self.params;
        if self.avg < p.max_th {
            Some(p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th))
        } else if p.gentle && self.avg < 2.0 * p.max_th {
            Some(p.max_p + (1.0 - p.max_p) * (self.avg - p.max_th) / p.max_th)
        } else {
            None
        }
    }

    /// Fig. 2's pa = pb/(1 − count·pb) (or ns-2's `wait_` form): drops are spread evenly
    /// rather than clustered.
    fn pa(&self, pb: f64, bytes: u32) -> f64 {
        let pb = if self.params.byte_mode { pb * bytes as f64 / self.params.mean_pktsize_bytes as f64 } else { pb };
        let c = self.count as f64 * pb;
        if self.params.wait {
            if c < 1.0 {
                0.0
            } else if c < 2.0 {
                pb / (2.0 - c)
            } else {
                1.0
            }
        } else if c < 1.0 {
            pb / (1.0 - c)
        } else {
            1.0
        }
    }

    pub fn enqueue(&mut self, now: Time, mut pkt: Queued, full: bool, out: &mut Verdicts) {
        self.average(now);
        if full {
            out.drop(&pkt);
            self.count = 0;
            return;
        }
        // ns-2's `queue/red.cc` and ns-3's `RedQueueDisc` leave a queue of at most one
        // packet alone whatever the average: a drop there cannot shorten a queue.
        if self.avg >= self.params.min_th && self.queue.len() > 1 {
            self.count += 1;
            let pb = self.pb();
            let signal = match pb {
                Some(pb) => {
                    let pa = self.pa(pb, pkt.bytes);
                    self.rng.random::<f64>() < pa
                }
                None => true,
            };
            if signal {
                self.count = 0;
                // RFC 3168 §7: mark where RED would drop for congestion; the forced
                // drops (pb None) stay drops, as the queue is then out of control.
                let ecn = self.params.ecn && pb.is_some_and(|pb| pb < self.params.mark_p);
                if !out.signal(&mut pkt, ecn) {
                    return;
                }
            }
        } else {
            self.count = -1;
        }
        self.queue.push(pkt);
    }

    pub fn dequeue(&mut self, now: Time) -> Option<Queued> {
        let p = self.queue.pop();
        if self.queue.is_empty() && self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
        p
    }

    pub(super) fn queue(&self) -> &Fifo {
        &self.queue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::test_util::{ms, pkt};

    fn red(params: RedParams) -> Red {
        Red::new(params, Rate(10_000_000), 3)
    }

    #[test]
    fn the_average_is_an_ewma_of_the_queue_at_arrivals() {
        // Floyd & Jacobson §4, Fig. 2: avg ← (1 − w_q)·avg + w_q·q.
        let mut r = red(RedParams::default());
        let mut out = Verdicts::default();
        r.idle_since = None;
        for i in 0..10 {
            r.queue.push(pkt(i, 1500, 0, 0));
        }
        r.avg = 2.0;
        r.enqueue(ms(0), pkt(99, 1500, 0, 0), false, &mut out);
        assert!((r.avg - (0.998 * 2.0 + 0.002 * 10.0)).abs() < 1e-12);
    }

    #[test]
    fn an_idle_link_decays_the_average_by_the_packets_it_could_have_sent() {
        // Floyd & Jacobson §4: m = (time − q_time)/s; avg ← (1 − w_q)^m·avg.
        let mut r = red(RedParams::default());
        r.avg = 8.0;
        r.idle_since = Some(ms(0));
        r.average(ms(120)); // 1500 bytes take 1.2 ms at 10 Mb/s: m = 100
        assert!((r.avg - 8.0 * 0.998f64.powf(100.0) * 0.998).abs() < 1e-9, "{}", r.avg);
    }

    #[test]
    fn the_probability_grows_with_the_count_since_the_last_drop() {
        // Fig. 2: pa = pb/(1 − count·pb).
        let mut r = red(RedParams { wait: false, ..Default::default() });
        r.avg = 10.0; // halfway: pb = max_p/2 = 0.01
        let pb = r.pb().unwrap();
        assert!((pb - 0.01).abs() < 1e-12);
        r.count = 50;
        assert!((r.pa(pb, 1500) - 0.01 / 0.5).abs() < 1e-12);
        r.count = 100;
        assert_eq!(r.pa(pb, 1500), 1.0);
        // ns-2's wait_: no drop before count reaches 1/pb, then pb/(2 − count·pb).
        r.params.wait = true;
        r.count = 50;
        assert_eq!(r.pa(pb, 1500), 0.0);
        r.count = 150;
        assert!((r.pa(pb, 1500) - 0.01 / 0.5).abs() < 1e-12);
    }

    #[test]
    fn gentle_rises_to_one_at_twice_max_th() {
        let mut r = red(RedParams::default());
        r.avg = 22.5;
        assert!((r.pb().unwrap() - (0.02 + 0.98 * 0.5)).abs() < 1e-12);
        r.avg = 30.0;
        assert_eq!(r.pb(), None);
        r.params.gentle = false;
        r.avg = 15.0;
        assert_eq!(r.pb(), None);
    }

    #[test]
    fn byte_mode_scales_by_packet_size() {
        let mut r = red(RedParams { wait: false, byte_mode: true, ..Default::default() });
        r.count = 0;
        assert!((r.pa(0.01, 750) - 0.005).abs() < 1e-12);
    }

    #[test]
    fn below_min_th_nothing_is_dropped_and_the_count_resets() {
        let mut r = red(RedParams::default());
        let mut out = Verdicts::default();
        for i in 0..4 {
            r.enqueue(ms(0), pkt(i, 1500, 0, 0), false, &mut out);
        }
        assert!(out.dropped.is_empty());
        assert_eq!(r.count, -1);
    }

    /// A RED queue holding `n` packets, its average at `avg` and a count that makes the
    /// next arrival's signal certain.
    fn red_at(params: RedParams, n: u32, avg: f64) -> Red {
        let mut r = red(params);
        r.idle_since = None;
        for i in 0..n {
            r.queue.push(pkt(100 + i, 1500, 0, 0));
        }
        r.avg = avg;
        r.count = 1000;
        r
    }

    fn arrive_ect(r: &mut Red) -> Verdicts {
        let mut out = Verdicts::default();
        r.enqueue(ms(0), Queued { ect: true, ..pkt(1, 1500, 0, 0) }, false, &mut out);
        out
    }

    #[test]
    fn ect_packets_are_marked_below_max_th() {
        // RFC 3168 §7 with ns-2's mark_p_ at max_p: marked at pb < max_p, dropped above.
        let mut r = red_at(RedParams { ecn: true, ..Default::default() }, 3, 14.0);
        let out = arrive_ect(&mut r);
        assert!(out.dropped.is_empty() && out.marks == 1);
        assert_eq!(std::iter::from_fn(|| r.queue.pop()).last().map(|p| (p.id, p.ce)), Some((1, true)));
        let mut r = red_at(RedParams { ecn: true, ..Default::default() }, 3, 20.0);
        let out = arrive_ect(&mut r);
        assert_eq!((out.dropped, out.marks), (vec![1], 0));
    }

    #[test]
    fn mark_p_one_marks_the_gentle_region_and_drops_at_twice_max_th() {
        // ns-3's RedQueueDisc: unforced signals in max_th..2·max_th are marks, forced drops.
        let params = RedParams { ecn: true, mark_p: 1.0, ..Default::default() };
        let out = arrive_ect(&mut red_at(params, 3, 29.0));
        assert!(out.dropped.is_empty() && out.marks == 1);
        let out = arrive_ect(&mut red_at(params, 3, 30.1));
        assert_eq!((out.dropped, out.marks), (vec![1], 0));
    }

    #[test]
    fn a_queue_of_one_packet_is_never_dropped_early() {
        // ns-2 red.cc and ns-3: early drops only when more than one packet waits.
        for (n, dropped) in [(0, false), (1, false), (2, true)] {
            let out = arrive_ect(&mut red_at(RedParams::default(), n, 40.0));
            assert_eq!(!out.dropped.is_empty(), dropped, "{n} waiting");
        }
    }
}
