//! The tail loss probe (RFC 8985 §7): when the ACKs stop with data outstanding, send one
//! probe after about two round trips instead of waiting for the RTO, so that the ACK it draws
//! lets RACK and SACK recovery repair a loss at the tail of a flight.
//!
//! The endpoint arms the probe timer from `pto`; the sender sends the probe (new data if it
//! may, else the highest segment sent again) and reports the ACKs here. Without DSACK (which
//! rampup's receiver does not send), whether a resent probe repaired a loss is read from the
//! timing of the ACK that covers it, as `preemptive` judges its spurious retransmissions: an
//! ACK sooner than the least RTT after the probe answers the original.

use crate::time::{Duration, Time};

/// WCDelAckT (§7.2): the longest a receiver may delay the ACK of a lone segment.
pub const WORST_CASE_DELAYED_ACK: Duration = Duration(200_000_000);
/// The probe timeout before any RTT sample (§7.2).
pub const PTO_WITHOUT_SRTT: Duration = Duration(1_000_000_000);

/// What the ACKs say about the probe in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// Still unknown, or no probe in flight.
    Pending,
    /// The probe's fate is settled and nothing was lost that it alone repaired.
    NoLoss,
    /// The resent probe repaired a loss: respond as to a fast recovery (§7.4).
    Repaired,
}

#[derive(Clone, Debug, Default)]
pub struct Tlp {
    /// TLP.end_seq: snd_nxt after the probe, while its outcome is unknown.
    end_seq: Option<u64>,
    /// TLP.is_retrans: the probe sent a segment again.
    is_retrans: bool,
    sent_at: Option<Time>,
}

impl Tlp {
    /// TLP_calc_PTO (§7.2): 2·SRTT, plus WCDelAckT when one segment is outstanding; 1 s
    /// without an SRTT; never after the RTO would fire.
    pub fn pto(now: Time, srtt: Option<Duration>, one_segment_out: bool, rto_at: Option<Time>) -> Time {
        let pto = match srtt {
            Some(s) => Duration(2 * s.0) + if one_segment_out { WORST_CASE_DELAYED_ACK } else { Duration::ZERO },
            None => PTO_WITHOUT_SRTT,
        };
        let at = now + pto;
        rto_at.map_or(at, |r| at.min(r))
    }

    /// Whether a probe may be scheduled: none is in flight (§7.3: one probe, then the RTO).
    pub fn idle(&self) -> bool {
        self.end_seq.is_none()
    }

    /// The probe went; `snd_nxt` after it.
    pub fn on_probe_sent(&mut self, now: Time, snd_nxt: u64, is_retrans: bool) {
        self.end_seq = Some(snd_nxt);
        self.is_retrans = is_retrans;
        self.sent_at = Some(now);
    }

    /// §7.4 on an ACK: `ack` the cumulative ACK, `dup` a duplicate ACK that SACKed nothing
    /// new, `min_rtt` the connection's least RTT.
    pub fn on_ack(&mut self, now: Time, ack: u64, dup: bool, min_rtt: Option<Duration>) -> ProbeOutcome {
        let Some(end) = self.end_seq else { return ProbeOutcome::Pending };
        if !self.is_retrans {
            // A probe of new data: RACK finds what it reveals lost.
            if ack >= end {
                self.end_seq = None;
                return ProbeOutcome::NoLoss;
            }
            return ProbeOutcome::Pending;
        }
        if dup {
            // The probe's copy arrived after the original: both got through.
            self.end_seq = None;
            return ProbeOutcome::NoLoss;
        }
        if ack < end {
            return ProbeOutcome::Pending;
        }
        self.end_seq = None;
        let since = self.sent_at.map_or(Duration::ZERO, |t| now.since(t));
        if min_rtt.is_some_and(|m| since < m) {
            // Too soon to be the probe's own ACK: the original was delivered.
            return ProbeOutcome::NoLoss;
        }
        ProbeOutcome::Repaired
    }

    /// A timeout or a recovery takes over: forget the probe.
    pub fn reset(&mut self) {
        self.end_seq = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// §7.2: 2·SRTT with several segments out, plus WCDelAckT with one, 1 s without an
    /// SRTT, and never later than the RTO.
    #[test]
    fn rfc_8985_7_2_the_probe_timeout() {
        let (now, srtt) = (Time(100 * MS), Some(Duration(30 * MS)));
        assert_eq!(Tlp::pto(now, srtt, false, None), Time(160 * MS));
        assert_eq!(Tlp::pto(now, srtt, true, None), Time(360 * MS));
        assert_eq!(Tlp::pto(now, None, false, None), Time(1100 * MS));
        assert_eq!(Tlp::pto(now, srtt, true, Some(Time(300 * MS))), Time(300 * MS), "the RTO comes first");
    }

    /// §7.3: one probe in flight at a time; §7.4: a probe of new data settles when it is
    /// acknowledged.
    #[test]
    fn rfc_8985_7_3_one_probe_then_its_ack() {
        let mut t = Tlp::default();
        assert!(t.idle());
        t.on_probe_sent(Time(0), 5001, false);
        assert!(!t.idle());
        assert_eq!(t.on_ack(Time(10 * MS), 4001, false, Some(Duration(20 * MS))), ProbeOutcome::Pending);
        assert_eq!(t.on_ack(Time(40 * MS), 5001, false, Some(Duration(20 * MS))), ProbeOutcome::NoLoss);
        assert!(t.idle());
    }

    /// §7.4: a resent probe that the ACK covers one RTT later repaired the loss; one that a
    /// duplicate ACK reports, or an ACK sooner than the least RTT, did not.
    #[test]
    fn rfc_8985_7_4_a_resent_probe_repaired_a_loss_or_not() {
        let min = Some(Duration(20 * MS));
        let mut t = Tlp::default();
        t.on_probe_sent(Time(0), 5001, true);
        assert_eq!(t.on_ack(Time(25 * MS), 5001, false, min), ProbeOutcome::Repaired);
        t.on_probe_sent(Time(100 * MS), 5001, true);
        assert_eq!(t.on_ack(Time(105 * MS), 5001, false, min), ProbeOutcome::NoLoss, "the original's ACK");
        t.on_probe_sent(Time(200 * MS), 5001, true);
        assert_eq!(t.on_ack(Time(225 * MS), 4001, true, min), ProbeOutcome::NoLoss, "the probe reported as a duplicate");
        assert!(t.idle());
    }
}
