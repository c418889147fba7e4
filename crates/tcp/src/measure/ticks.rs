//! What 4.4BSD-Lite's timer (`bsd.rs`) and ns-2.35's (`ns2.rs`) share: a clock of whole
//! ticks, one segment timed on it at a time, and srtt and rttvar in ticks in the fixed point
//! of BSD's `tcp_xmit_timer`, which ns-2's `TcpAgent::rtt_update` (tcp/tcp.cc, "modified to
//! use the tahoe code") copies.

use crate::time::{Duration, Time};

/// TCP_RTT_SHIFT (tcp_var.h), ns-2's T_SRTT_BITS: srtt is kept in ticks × 8.
const RTT_SHIFT: u32 = 3;
/// TCP_RTTVAR_SHIFT (tcp_var.h), ns-2's T_RTTVAR_BITS: rttvar is kept in ticks × 4.
const RTTVAR_SHIFT: u32 = 2;

/// The segment being timed: its first sequence number (BSD's `t_rtseq`, ns-2's `rtt_seq_`)
/// and the clock's tick count when it left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Timed {
    seq: u64,
    sent_tick: u64,
}

/// The tick clock, the timed segment and the fixed-point averages of one connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TickEstimator {
    /// The clock's period.
    pub(super) tick: Duration,
    /// The clock ticks at each multiple of `tick` less this: 0 where every endpoint's clock
    /// ticks together (BSD's), an agent's own `boot_time_` in ns-2.
    phase: Duration,
    /// `t_srtt`: ticks × 8; 0 while there is no estimate.
    pub(super) srtt: i32,
    /// `t_rttvar`: ticks × 4.
    pub(super) rttvar: i32,
    /// A segment is being timed (BSD's `t_rtt` != 0, ns-2's `rtt_active_`).
    timed: Option<Timed>,
}

impl TickEstimator {
    /// No estimate yet, rttvar `rttvar` (ticks × 4), the clock's phase 0.
    pub(super) fn new(tick: Duration, rttvar: i32) -> Self {
        TickEstimator { tick: Duration(tick.0.max(1)), phase: Duration::ZERO, srtt: 0, rttvar, timed: None }
    }

    /// Move the clock's ticks `phase` earlier (taken modulo one tick).
    pub(super) fn set_phase(&mut self, phase: Duration) {
        self.phase = Duration(phase.0 % self.tick.0);
    }

    /// The clock's tick count at `t`: its ticks up to and including `t`.
    pub(super) fn ticks_at(&self, t: Time) -> u64 {
        t.0.saturating_add(self.phase.0) / self.tick.0
    }

    /// A segment starting at `seq` left at `now`. A new segment is timed when none is (BSD's
    /// `tcp_output`, ns-2's `TcpAgent::output`). Karn's rule: a retransmission ends the
    /// timing, as BSD's fast retransmit does (t_rtt = 0) and ns-2's `reset_rtx_timer`, which
    /// comes before each of its retransmissions.
    pub(super) fn on_sent(&mut self, now: Time, seq: u64, retransmission: bool) {
        if retransmission {
            self.timed = None;
        } else if self.timed.is_none() {
            self.timed = Some(Timed { seq, sent_tick: self.ticks_at(now) });
        }
    }

    /// An ACK that advances snd_una to `ack` at `now`: when it covers the timed segment's
    /// first sequence number (BSD's SEQ_GT(ack, t_rtseq), ns-2's `seqno >= rtt_seq_` in
    /// packets), the timing ends and this gives the ticks the clock made since that segment
    /// left.
    pub(super) fn ticks_since_timed(&mut self, now: Time, ack: u64) -> Option<u64> {
        let timed = self.timed.filter(|t| ack > t.seq)?;
        self.timed = None;
        Some(self.ticks_at(now).saturating_sub(timed.sent_tick))
    }

    /// A timeout forgets the timed segment (Karn).
    pub(super) fn stop_timing(&mut self) {
        self.timed = None;
    }

    /// A sample of `rtt` ticks, counted from `origin` (BSD's t_rtt starts at 1, ns-2's t_rtt_
    /// at 0): srtt += (rtt - origin) - srtt/8 in eighths of a tick (the gain 1/8), rttvar +=
    /// |that| - rttvar/4 in quarters (the gain 1/4), each kept at 1 or more. The first sample
    /// (or the first after backoff dropped the estimate) sets srtt = rtt and rttvar = rtt / 2,
    /// without the origin's correction, so that the RTO is 3·rtt.
    pub(super) fn sample(&mut self, rtt: u32, origin: i32) {
        let rtt = i32::try_from(rtt).unwrap_or(i32::MAX >> RTT_SHIFT).min(i32::MAX >> RTT_SHIFT);
        if self.srtt == 0 {
            self.srtt = rtt << RTT_SHIFT;
            self.rttvar = rtt << (RTTVAR_SHIFT - 1);
            return;
        }
        let mut delta = rtt - origin - (self.srtt >> RTT_SHIFT);
        self.srtt = (self.srtt + delta).max(1);
        delta = delta.abs() - (self.rttvar >> RTTVAR_SHIFT);
        self.rttvar = (self.rttvar + delta).max(1);
    }

    /// srtt + 4·rttvar in whole ticks: BSD's TCP_REXMTVAL, (t_srtt >> 3) + t_rttvar (rttvar's
    /// scale of 4 is the factor 4), and ns-2's t_rtxcur_ in ticks, ((t_rttvar_ << 3) +
    /// t_srtt_) >> 3 with `rttvar_exp_` 2 (the same number).
    pub(super) fn rexmtval(&self) -> u32 {
        ((self.srtt >> RTT_SHIFT) + self.rttvar).max(0) as u32
    }

    /// Drop srtt after long backoff, moving it into rttvar so that the RTO holds until the
    /// next sample starts the estimate afresh (BSD's `tcp_timers`, ns-2's `rtt_backoff`).
    pub(super) fn forget_srtt(&mut self) {
        self.rttvar += self.srtt >> RTT_SHIFT;
        self.srtt = 0;
    }

    /// The smoothed RTT as a time (srtt / 8 ticks), `None` before the first sample.
    pub(super) fn srtt(&self) -> Option<Duration> {
        (self.srtt > 0).then(|| self.tick.mul_div(self.srtt as u64, 1 << RTT_SHIFT))
    }

    /// The smoothed mean deviation as a time (rttvar / 4 ticks).
    pub(super) fn rttvar(&self) -> Duration {
        self.tick.mul_div(self.rttvar.max(0) as u64, 1 << RTTVAR_SHIFT)
    }
}
