//! Hoe's change (J. C. Hoe, "Improving the Startup Behavior of a Congestion Control Scheme
//! for TCP", SIGCOMM 1996): a startup that sets the initial ssthresh to the bandwidth-delay
//! product estimated at the start, the bottleneck rate from a packet pair of ACKs times the
//! RTT; the controller's slow start then grows the window up to it.

use super::{AckCtx, CongestionEvent, Startup, Window};
use crate::time::{Rate, Time};

/// Packet-pair estimate of the bottleneck rate (Keshav 1991): segments sent back to back
/// leave the bottleneck one transmission time apart, and their ACKs return as far apart.
/// The rate is the bytes the second ACK acknowledges over the time since the first.
#[derive(Clone, Debug, Default)]
pub struct PacketPair {
    first_ack_at: Option<Time>,
}

impl PacketPair {
    /// An ACK of new data arrived at `now`. Returns the estimate at the second ACK of the
    /// first pair that arrived apart (two at the same instant tell nothing; the later one
    /// starts a new pair).
    pub fn on_ack(&mut self, now: Time, acked_bytes: u64) -> Option<Rate> {
        match self.first_ack_at {
            Some(t) if now > t => Some(Rate::from_bytes_per(acked_bytes, now.since(t))),
            _ => {
                self.first_ack_at = Some(now);
                None
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Hoe {
    pair: PacketPair,
    /// The estimate was taken (or a loss came first and set ssthresh itself).
    done: bool,
}

impl Hoe {
    pub fn new() -> Self {
        Self::default()
    }
}

registered_without_settings!(Hoe, "hoe", "Hoe (1996): the initial ssthresh is the BDP from a packet-pair rate estimate", Hoe::new());

impl Startup for Hoe {
    /// New data was acknowledged outside loss recovery. At the second ACK of the first pair,
    /// ssthresh = rate × BaseRTT (at least 2 segments, the floor of RFC 5681 eq. (4));
    /// the controller grows the window on every ACK.
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        if !self.done {
            if let (Some(rate), Some(rtt)) = (self.pair.on_ack(ctx.now, ctx.acked_bytes), ctx.measure.min_rtt()) {
                w.ssthresh = rate.bytes_in(rtt).max(2 * ctx.mss);
                self.done = true;
            }
        }
        false
    }

    /// Loss was detected before the estimate: the loss response sets ssthresh instead.
    fn on_congestion_event(&mut self, _w: &Window, _ev: &CongestionEvent) {
        self.done = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Avoidance, Cc, CongestionControl, NewReno, StartupPart};
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;
    use crate::time::Duration;

    #[test]
    fn test_packet_pair_known_spacing_gives_known_bandwidth() {
        let mut p = PacketPair::default();
        let t0 = Time(Duration::from_millis(100).0);
        assert_eq!(p.on_ack(t0, 1000), None);
        // 1000 bytes 200 µs apart: 8000 bits / 200 µs = 40 Mb/s.
        assert_eq!(p.on_ack(t0 + Duration::from_micros(200), 1000), Some(Rate(40_000_000)));
        let mut p = PacketPair::default();
        assert_eq!(p.on_ack(t0, 1000), None);
        assert_eq!(p.on_ack(t0, 1000), None, "no spacing: no estimate");
        assert_eq!(p.on_ack(t0 + Duration::from_micros(800), 1000), Some(Rate(10_000_000)));
    }

    #[test]
    fn test_hoe_sets_ssthresh_to_rate_times_base_rtt_then_slow_starts() {
        let mut m = Measure::new(RtoConfig::default());
        m.on_rtt_sample(Duration::from_millis(100));
        let mut hoe = Cc::new(StartupPart::Hoe(Hoe::new()), Avoidance::NewReno(NewReno::new(false)));
        let mut w = Window { cwnd: 2000, ssthresh: u64::MAX };
        let t0 = Time(Duration::from_millis(100).0);
        for t in [t0, t0 + Duration::from_micros(200)] {
            let ctx = ack_ctx(t, 1000, &m);
            hoe.on_ack(&mut w, &ctx);
        }
        // 40 Mb/s × 100 ms = 500 000 bytes; each ACK still grew the window by one segment.
        assert_eq!(w, Window { cwnd: 4000, ssthresh: 500_000 });
        let ctx = ack_ctx(t0 + Duration::from_millis(1), 1000, &m);
        hoe.on_ack(&mut w, &ctx);
        assert_eq!(w.ssthresh, 500_000, "only the first pair counts");
    }
}
