//! The three-way handshake of one end (RFC 9293 §3.5): the SYN or SYN-ACK it sends and the
//! segments it takes before the connection is established.

use super::{Endpoint, Event, State, Timer, ISS, NO_RESET};
use crate::config::RtoTiming;
use crate::ecn::EcnState;
use crate::segment::{Flags, Segment};
use crate::time::{Duration, Time};

impl Endpoint {
    /// `handle_segment` before the connection is established. Returns true when the segment
    /// goes on to be processed as an established connection's: the ACK that completes a
    /// passive open.
    pub(super) fn handle_handshake_segment(&mut self, now: Time, seg: &Segment) -> bool {
        match self.state {
            State::Listen => {
                if seg.flags.syn && !seg.flags.ack {
                    self.state = State::SynReceived;
                    self.syn_due = true;
                    // RFC 2018 §2: SACK only if both SYNs carry SACK-permitted.
                    self.sack_ok = seg.sack_permitted && self.cfg.offers_sack();
                    self.ecn.on_syn(self.cfg.ecn, seg);
                }
                false
            }
            State::SynSent => {
                if !(seg.flags.syn && seg.flags.ack && seg.ack == ISS + 1) {
                    return false;
                }
                self.sack_ok = seg.sack_permitted && self.cfg.offers_sack();
                self.ecn.on_syn_ack(self.cfg.ecn, seg);
                // Karn's rule holds for the SYN too: no sample from a retransmitted SYN.
                let rtt = self.handshake_sample(now);
                if let Some(rtt) = rtt {
                    self.measure.on_handshake_rtt(rtt, self.cfg.rto_timing == RtoTiming::Rfc6298);
                }
                // The SYN-ACK carries the peer's window, which binds our first flight.
                self.sender.set_peer_window(seg.window as u64);
                self.established(now, rtt);
                self.ack_due = true;
                false
            }
            State::SynReceived => {
                if seg.flags.syn && !seg.flags.ack {
                    self.syn_due = true; // our SYN-ACK was lost; the peer sent its SYN again
                    return false;
                }
                if !(seg.flags.ack && seg.ack > ISS) {
                    return false;
                }
                let rtt = self.handshake_sample(now);
                if let Some(rtt) = rtt {
                    self.measure.on_handshake_rtt(rtt, self.cfg.rto_timing == RtoTiming::Rfc6298);
                }
                self.established(now, rtt);
                true
            }
            State::Closed => {
                // RFC 9293 §3.10.7.1: a segment for a closed connection is answered with a
                // reset at the sequence number it acknowledges. The peer, in LAST-ACK or
                // CLOSING, missed our final ACK: it has nothing left that we did not get.
                if seg.flags.ack && !seg.flags.rst {
                    self.rst_due = seg.ack;
                }
                false
            }
            _ => unreachable!("synchronized states are handled by the caller"),
        }
    }

    /// `poll_transmit` when not synchronized: the SYN or SYN-ACK, when due, or a reset.
    pub(super) fn poll_handshake(&mut self, now: Time) -> Option<Segment> {
        let seq = std::mem::replace(&mut self.rst_due, NO_RESET);
        if seq != NO_RESET {
            return Some(self.segment(seq, 0, Flags { rst: true, ..Flags::default() }));
        }
        if !matches!(self.state, State::SynSent | State::SynReceived) || !self.syn_due {
            return None;
        }
        self.syn_due = false;
        // Karn's rule: a second SYN or SYN-ACK (after our timeout, or because the
        // peer sent its SYN again) makes the handshake's RTT ambiguous.
        self.syn_retransmitted |= self.syn_sent_at != Time::MAX;
        self.syn_sent_at = now;
        self.measure.on_segment_sent(now, ISS, self.syn_retransmitted);
        if self.timers[Timer::Rto as usize].is_none() {
            self.arm(Timer::Rto, self.measure.rto_deadline(now));
        }
        let passive = self.state == State::SynReceived;
        let mut syn = self.segment(ISS, 0, Flags { syn: true, ack: passive, ..Flags::default() });
        // The passive end offers SACK only back to a peer that offered it (RFC 2018 §2).
        syn.sack_permitted = if passive { self.sack_ok } else { self.cfg.offers_sack() };
        if passive {
            self.ecn.mark_syn_ack(&mut syn);
        } else if self.cfg.ecn {
            EcnState::mark_syn(&mut syn);
        }
        Some(syn)
    }

    /// The handshake's RTT sample: from our SYN or SYN-ACK to its answer, if sent once.
    fn handshake_sample(&self, now: Time) -> Option<Duration> {
        (self.syn_sent_at != Time::MAX && !self.syn_retransmitted).then(|| now.since(self.syn_sent_at))
    }

    fn established(&mut self, now: Time, handshake_rtt: Option<Duration>) {
        self.reached.established = now;
        // The ACK of our SYN or SYN-ACK ends its timing under a rule that times one segment
        // (`tcp_input`; ns-2's SYN is its seqno 0).
        self.measure.on_timed_ack(now, ISS + 1);
        // A close before the handshake completed takes effect now (see `close`).
        self.state = if self.sender.is_closing() { State::FinWait1 } else { State::Established };
        if !self.sack_ok {
            self.sender.on_peer_without_sack();
        }
        self.emit(Event::Established { handshake_rtt });
        if let Some(rtt) = handshake_rtt {
            self.emit(Event::RttSample { rtt, cwnd: self.sender.window().cwnd });
        }
        self.timers[Timer::Rto as usize] = None;
        if self.syn_retransmitted {
            self.measure.on_handshake_after_syn_timeout();
        }
        if let Some(p) = &mut self.preemptive {
            // SYN to SYN-ACK at the active end, SYN-ACK to ACK at the passive end (a web
            // server's), `Measure::handshake_rtt`.
            p.on_established(self.measure.handshake_rtt());
        }
    }
}
