//! The sender's side of RACK-TLP (RFC 8985), beside SACK recovery: RACK's view of what each
//! ACK delivered and its loss marks (`recovery::Rack`), and the tail loss probe
//! (`recovery::Tlp`). The endpoint owns the two timers: it asks `reorder_timer` and
//! `probe_at` when to fire them and calls back `on_reorder_timer` and `on_probe_timer`.

use super::{AckResult, Sender, TxData};
use crate::cc::CongestionKind;
use crate::measure::Measure;
use crate::rate_sample::RateSample;
use crate::recovery::{ProbeOutcome, Rack, Tlp};
use crate::registry::{Family, PartInfo};
use crate::segment::SeqRange;
use crate::time::{Duration, Time};

/// RACK-TLP in the registry (`rack_tlp = true`): it times every segment sent and arms its
/// timers on every ACK.
pub const INFO: PartInfo = PartInfo {
    family: Family::Extra,
    name: "rack-tlp",
    doc: "RFC 8985 RACK-TLP with SACK recovery: time-based loss marks and the tail loss probe",
    keys: &[],
    per_segment: true,
};

#[derive(Clone, Debug, Default)]
pub struct RackTlp {
    rack: Rack,
    tlp: Tlp,
    /// When RACK's reordering timer is due (§6.2 step 5), if it waits on a segment.
    reorder_at: Option<Time>,
}

impl RackTlp {
    /// A recovery begins: it answers for any loss the probe in flight would reveal, so the
    /// probe's outcome no longer counts (Linux's tcp_init_cwnd_reduction clears tlp_high_seq).
    pub(super) fn on_recovery(&mut self) {
        self.tlp.reset();
    }

    /// A retransmission timeout takes over (§7.3: the RTO follows the one probe).
    pub(super) fn on_rto(&mut self) {
        self.tlp.reset();
        self.reorder_at = None;
    }
}

/// At most this many SACK blocks come on one ACK (RFC 2018 §3: 40 option bytes).
const MAX_BLOCKS: usize = 4;

impl Sender {
    /// `on_ack` with RACK-TLP: the same steps, with RACK told what the ACK delivers before
    /// the scoreboard marks it, and after them the probe's outcome (§7.4) and RACK's loss
    /// detection (§6.2 step 5). Apart from `on_ack` so that a sender without RACK-TLP, on the
    /// hot path, pays one test for it.
    #[cold]
    pub(super) fn on_ack_with_rack_tlp(
        &mut self,
        now: Time,
        ack: u64,
        sack: impl IntoIterator<Item = SeqRange> + Clone,
        pure: bool,
        measure: &mut Measure,
        rate: Option<&RateSample>,
    ) -> AckResult {
        // What was outstanding before this ACK: the flight in which a probe's repair found
        // its loss (§7.4).
        let flight_before = self.flight();
        self.rack_on_ack(now, ack, sack.clone(), measure);
        let newly_sacked = self.rec.on_sack(&mut self.queue, sack);
        let (result, dup) = if ack > self.snd_una {
            (self.on_new_ack(now, ack, measure, rate), false)
        } else {
            let dup = ack == self.snd_una && pure && self.outstanding();
            if dup {
                self.on_dupack(now);
            }
            if let Some(rs) = rate {
                self.on_delivered_without_new_ack(now, ack, measure, rs);
            }
            // A duplicate ACK that SACKs nothing new (§7.4).
            (AckResult::default(), dup && newly_sacked == 0)
        };
        let Some(rt) = &mut self.rack_tlp else { return result };
        if rt.tlp.on_ack(now, ack, dup, measure.min_rtt()) == ProbeOutcome::Repaired {
            // §7.4: the probe alone repaired a loss: the congestion response of a fast
            // recovery, which ends at once. The window that lost is cwnd (the flight is gone
            // by now), as Linux's tcp_init_cwnd_reduction takes it.
            let loss_window = self.congestion.cwnd().min(self.max_window);
            self.resent_in_recovery = 0;
            self.congestion_event(now, CongestionKind::FastRetransmit { inflation_bytes: 0 }, loss_window, flight_before);
            self.recovery_ended(now);
        }
        self.rack_detect(now, measure);
        result
    }

    /// RACK §6.2 steps 2-3 for each segment this ACK delivers (cumulatively or by SACK), before
    /// the scoreboard marks them.
    fn rack_on_ack(&mut self, now: Time, ack: u64, sack: impl IntoIterator<Item = SeqRange>, measure: &Measure) {
        let (Some(rt), queue) = (&mut self.rack_tlp, &self.queue) else { return };
        let mut blocks = [SeqRange { start: 0, end: 0 }; MAX_BLOCKS];
        let mut n = 0;
        for b in sack.into_iter().take(MAX_BLOCKS) {
            blocks[n] = b;
            n += 1;
        }
        let top = blocks[..n].iter().map(|b| b.end).max().unwrap_or(0).max(ack);
        for s in queue.from(self.snd_una) {
            if s.seq >= top {
                break;
            }
            let end = s.seq_end();
            if !s.sacked && (end <= ack || blocks[..n].iter().any(|b| b.start <= s.seq && end <= b.end)) {
                rt.rack.on_delivered(s, now, measure.min_rtt());
            }
        }
    }

    /// RACK_detect_loss (§6.2 step 5): mark what has had its time; a loss outside recovery
    /// starts one (§6.3); the reordering timer waits on the rest.
    fn rack_detect(&mut self, now: Time, measure: &Measure) {
        let Some(rt) = &mut self.rack_tlp else { return };
        let sacked = self.queue.from(self.snd_una).filter(|s| s.sacked).count() as u32;
        let reo_wnd = rt.rack.reo_wnd(self.rec.in_recovery(), sacked, self.rec.dupthresh(), measure.min_rtt(), measure.srtt());
        let (marked, wait) = rt.rack.detect_loss(&mut self.queue, now, reo_wnd);
        rt.reorder_at = wait.map(|w| now + w);
        // RFC 8985 §6.3 starts a recovery on RACK's marks, under the same rule as duplicate
        // ACKs: never inside the window a timeout is still repairing, where go-back-N resends.
        // Marks made there still count once the window is repaired.
        if marked && self.rec.may_enter(self.snd_una) {
            self.enter_recovery(now);
        }
    }

    /// When RACK's reordering timer should fire (§6.2 step 5), if it waits on a segment.
    pub fn reorder_timer(&self) -> Option<Time> {
        self.rack_tlp.as_ref().and_then(|rt| rt.reorder_at)
    }

    /// The reordering timer fired: detect losses again (RACK_detect_loss_and_arm_timer).
    pub fn on_reorder_timer(&mut self, now: Time, measure: &Measure) {
        self.rack_detect(now, measure);
    }

    /// When a probe should go (§7.2), if one may be scheduled now: RACK-TLP runs, data is
    /// outstanding, no recovery and no timeout's window being repaired (Linux probes only in
    /// its Open state, not in Recovery or Loss), nothing SACKed, no probe in flight.
    /// `rto_at`: when the retransmission timer fires.
    pub fn probe_at(&self, now: Time, srtt: Option<Duration>, rto_at: Option<Time>) -> Option<Time> {
        let rt = self.rack_tlp.as_ref()?;
        if !rt.tlp.idle() || self.rec.repairing(self.snd_una) || !self.outstanding() || self.queue.from(self.snd_una).any(|s| s.sacked) {
            return None;
        }
        Some(Tlp::pto(now, srtt, self.flight() <= self.mss, rto_at))
    }

    /// The probe timer fired: the next `poll` sends the probe.
    pub fn on_probe_timer(&mut self) {
        self.probe_due = self.rack_tlp.is_some();
    }

    /// The probe (§7.3): a new segment if there is one and the peer's window takes it (cwnd
    /// is not asked), else the highest segment sent, again.
    pub(super) fn poll_probe(&mut self, now: Time) -> Option<TxData> {
        self.probe_due = false;
        let new = if self.snd_nxt == self.snd_max { self.next_new_segment() } else { None };
        let tx = match new.filter(|&(len, _)| self.flight() + len <= self.peer_window) {
            Some((len, fin)) => self.push_new::<false>(now, len, fin),
            None => {
                let last = self.queue.last()?.seq;
                self.retransmit(last, now)?
            }
        };
        self.stats.tlp_probes += 1;
        let snd_max = self.snd_max;
        self.rack_tlp.as_mut()?.tlp.on_probe_sent(now, snd_max, tx.retransmission);
        Some(TxData { probe: true, ..tx })
    }
}
