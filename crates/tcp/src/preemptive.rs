//! Preemptive Retransmission (paper 002, Tarr & Ghita, §5): for the first `cutout_bytes` of a
//! connection, resend the first unacknowledged segment when nothing has been acknowledged for
//! k × the RTT of the three-way handshake, well before the standard RTO (RFC 6298's minimum
//! of 1 s) would. Short transfers whose tail is lost cannot gather the three duplicate ACKs
//! that fast retransmit needs (paper §4.2), so this timer is their only early repair.
//!
//! The part holds no pointer to the connection: the endpoint calls the `on_*` hooks with what
//! they need and applies the returned `TimerCmd` to `Timer::Preemptive` in its table. The
//! standard RTO and fast retransmit are untouched. See `docs/preemptive.md`.

use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::{Duration, Time};

/// Preemptive Retransmission in the registry: its timer is reset by every ACK and every send.
pub const INFO: PartInfo = PartInfo {
    family: Family::Extra,
    name: "preemptive",
    doc: "paper 002: resend the first unacknowledged segment after k x the handshake's RTT (preemptive = { factor, cutout })",
    keys: &[
        Key {
            name: "factor",
            unit: Unit::Number,
            default: Value::Number(PreemptiveConfig::DEFAULT.factor),
            doc: "k: the timeout is k x the handshake's RTT (§5: 3; §7.2 finds 2 best)",
        },
        Key {
            name: "cutout",
            unit: Unit::Bytes,
            default: Value::Bytes(PreemptiveConfig::DEFAULT.cutout_bytes),
            doc: "off once this many payload bytes are acknowledged (§5: 80 KB)",
        },
    ],
    per_segment: true,
};

/// The paper's parameters (§5). Built into a fresh `Preemptive` per connection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreemptiveConfig {
    /// Multiplication factor k: the timeout is k × handshake RTT. Paper §5: 3 (the largest
    /// ratio of maximum RTT to handshake RTT in its traces); §7.2 finds 2 best. Must be > 0.
    pub factor: f64,
    /// Cut-out limit: once this many payload bytes are acknowledged the mechanism is off for
    /// the rest of the connection. Paper §5: 80 KB, from a 72 KB average page. At least 1.
    pub cutout_bytes: u64,
}

impl Default for PreemptiveConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The factor is kept in millionths so that the timeout is computed in integers.
const FACTOR_SCALE: u64 = 1_000_000;

impl PreemptiveConfig {
    /// The paper's k = 3 and 80 KB (§5); also the registry's defaults.
    pub const DEFAULT: PreemptiveConfig = PreemptiveConfig { factor: 3.0, cutout_bytes: 80 * 1024 };

    pub fn read(s: &Settings) -> Result<PreemptiveConfig, Refusal> {
        let factor = s.number("factor");
        if !(factor.is_finite() && factor > 0.0) {
            return Err(Refusal { key: "factor", why: format!("must be a number greater than 0 (got {factor})") });
        }
        let cutout_bytes = s.bytes("cutout");
        if cutout_bytes == 0 {
            return Err(Refusal { key: "cutout", why: "must be at least 1 byte, like \"80KiB\"".into() });
        }
        Ok(PreemptiveConfig { factor, cutout_bytes })
    }

    /// k × `rtt`, exact to a millionth of the factor; at least 1 ns.
    pub fn timeout(&self, rtt: Duration) -> Duration {
        let k = (self.factor * FACTOR_SCALE as f64).round().max(1.0) as u64;
        Duration(rtt.mul_div(k, FACTOR_SCALE).0.max(1))
    }
}

/// What the endpoint does with `Timer::Preemptive` after a hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerCmd {
    /// Leave the timer as it is (running or not).
    Keep,
    /// (Re)start the timer to expire at this time.
    Arm(Time),
    /// Stop the timer.
    Stop,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PreemptiveStats {
    /// Preemptive retransmissions sent (each also counts in `SenderStats::retransmits`).
    pub retransmits: u64,
    /// Of those, the ones judged spurious: the retransmitted segment was cumulatively
    /// acknowledged sooner than the connection's smallest RTT sample after the
    /// retransmission, so the ACK must have answered the original (see `on_new_ack`).
    pub spurious: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The handshake has not completed: no timeout known yet. Without a handshake
    /// (`handshake = false`) the connection stays here, so the mechanism is off.
    Starting,
    /// Runs: every send (re)starts the timer, every new ACK restarts or stops it.
    Running { timeout: Duration },
    /// The timer expired and the first unacknowledged segment went again; nothing restarts
    /// the timer until a segment of new data is sent (paper §5, step 4).
    Held { timeout: Duration },
    /// Off for good: the handshake gave no RTT (the passive end, or a retransmitted SYN or
    /// SYN-ACK, Karn's rule).
    NoHandshakeRtt,
    /// Off for good: `cutout_bytes` were acknowledged (paper §5).
    CutOut,
}

/// A preemptive retransmission whose ACK has not come yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    /// End of the retransmitted segment: an ACK at or above it acknowledges it.
    seq_end: u64,
    at: Time,
}

#[derive(Clone, Debug)]
pub struct Preemptive {
    cfg: PreemptiveConfig,
    phase: Phase,
    pending: Option<Pending>,
    stats: PreemptiveStats,
}

impl Preemptive {
    pub fn new(cfg: PreemptiveConfig) -> Self {
        Preemptive { cfg, phase: Phase::Starting, pending: None, stats: PreemptiveStats::default() }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn stats(&self) -> PreemptiveStats {
        self.stats
    }
    /// The timeout in use (k × handshake RTT), while the mechanism is on.
    pub fn timeout(&self) -> Option<Duration> {
        match self.phase {
            Phase::Running { timeout } | Phase::Held { timeout } => Some(timeout),
            _ => None,
        }
    }

    /// The handshake completed. Step 1: the timeout is k × its RTT (SYN to SYN-ACK), if the
    /// endpoint measured one. Before: `Starting`; after: `Running` or `NoHandshakeRtt`.
    pub fn on_established(&mut self, handshake_rtt: Option<Duration>) {
        if self.phase != Phase::Starting {
            return;
        }
        self.phase = match handshake_rtt {
            Some(rtt) => Phase::Running { timeout: self.cfg.timeout(rtt) },
            None => Phase::NoHandshakeRtt,
        };
    }

    /// A segment that occupies sequence space (data or FIN) was sent at `now`; `new_data`
    /// is false for a retransmission. Step 2: (re)start the timer. While `Held` only new
    /// data does (step 4), and the preemptive retransmission itself never does.
    pub fn on_send(&mut self, now: Time, new_data: bool) -> TimerCmd {
        match self.phase {
            Phase::Running { timeout } => TimerCmd::Arm(now + timeout),
            Phase::Held { timeout } if new_data => {
                self.phase = Phase::Running { timeout };
                TimerCmd::Arm(now + timeout)
            }
            _ => TimerCmd::Keep,
        }
    }

    /// An ACK advanced snd_una to `snd_una`; `bytes_acked` payload bytes are now acknowledged
    /// in all, and `outstanding` says whether anything is still unacknowledged. `min_rtt` is
    /// the connection's smallest RTT sample (the handshake's included).
    ///
    /// First the spurious test: an ACK that covers the last preemptive retransmission less
    /// than `min_rtt` after it was sent cannot have been caused by it, so the original had
    /// arrived. Then the cut-out; then step 3: stop the timer when nothing is outstanding,
    /// else restart it. While `Held` the timer stays off (step 4).
    pub fn on_new_ack(&mut self, now: Time, snd_una: u64, bytes_acked: u64, outstanding: bool, min_rtt: Option<Duration>) -> TimerCmd {
        if let Some(p) = self.pending.filter(|p| snd_una >= p.seq_end) {
            self.pending = None;
            if min_rtt.is_some_and(|rtt| now.since(p.at) < rtt) {
                self.stats.spurious += 1;
            }
        }
        let timeout = match self.phase {
            Phase::Running { timeout } => timeout,
            Phase::Held { .. } if bytes_acked >= self.cfg.cutout_bytes => {
                self.phase = Phase::CutOut;
                return TimerCmd::Stop;
            }
            _ => return TimerCmd::Keep,
        };
        if bytes_acked >= self.cfg.cutout_bytes {
            self.phase = Phase::CutOut;
            TimerCmd::Stop
        } else if outstanding {
            TimerCmd::Arm(now + timeout)
        } else {
            TimerCmd::Stop
        }
    }

    /// The timer expired at `now`. `first_unacked_end` is the end of the first unacknowledged
    /// segment, `None` when nothing is outstanding. Returns true when that segment must be
    /// retransmitted now (step 4); the part is then `Held`.
    pub fn on_timeout(&mut self, now: Time, first_unacked_end: Option<u64>) -> bool {
        let (Phase::Running { timeout }, Some(seq_end)) = (self.phase, first_unacked_end) else {
            return false;
        };
        self.phase = Phase::Held { timeout };
        self.pending = Some(Pending { seq_end, at: now });
        self.stats.retransmits += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Duration = Duration::from_millis(20);

    fn ms(v: u64) -> Time {
        Time::ZERO + Duration::from_millis(v)
    }

    fn running(factor: f64, cutout_bytes: u64) -> Preemptive {
        let mut p = Preemptive::new(PreemptiveConfig { factor, cutout_bytes });
        p.on_established(Some(RTT));
        p
    }

    #[test]
    fn timeout_is_factor_times_rtt_in_integers() {
        let c = |factor| PreemptiveConfig { factor, cutout_bytes: 1 };
        assert_eq!(c(3.0).timeout(RTT), Duration::from_millis(60));
        assert_eq!(c(2.5).timeout(RTT), Duration::from_millis(50));
        assert_eq!(c(1e-12).timeout(Duration(1)), Duration(1), "never zero");
    }

    #[test]
    fn test_starting_nothing_happens_before_the_handshake() {
        let mut p = Preemptive::new(PreemptiveConfig::default());
        assert_eq!(p.on_send(ms(0), true), TimerCmd::Keep);
        assert!(!p.on_timeout(ms(100), Some(1001)));
    }

    #[test]
    fn test_established_without_handshake_rtt_is_off() {
        let mut p = Preemptive::new(PreemptiveConfig::default());
        p.on_established(None);
        assert_eq!(p.phase(), Phase::NoHandshakeRtt);
        assert_eq!(p.on_send(ms(0), true), TimerCmd::Keep);
    }

    #[test]
    fn test_running_expiry_holds_until_new_data() {
        let mut p = running(3.0, 80 * 1024);
        assert_eq!(p.on_send(ms(0), true), TimerCmd::Arm(ms(60)));
        assert!(p.on_timeout(ms(60), Some(1001)));
        assert_eq!(p.phase(), Phase::Held { timeout: Duration::from_millis(60) });
        // The retransmission itself, an ACK with data outstanding: no restart.
        assert_eq!(p.on_send(ms(60), false), TimerCmd::Keep);
        assert_eq!(p.on_new_ack(ms(70), 1001, 1000, true, Some(RTT)), TimerCmd::Keep);
        // New data: running again.
        assert_eq!(p.on_send(ms(70), true), TimerCmd::Arm(ms(130)));
    }

    #[test]
    fn test_running_cut_out_at_the_limit() {
        let mut p = running(3.0, 2000);
        assert_eq!(p.on_new_ack(ms(20), 1001, 1000, true, Some(RTT)), TimerCmd::Arm(ms(80)));
        assert_eq!(p.on_new_ack(ms(21), 2001, 2000, true, Some(RTT)), TimerCmd::Stop);
        assert_eq!(p.phase(), Phase::CutOut);
        assert_eq!(p.on_send(ms(22), true), TimerCmd::Keep);
    }

    #[test]
    fn spurious_when_the_ack_comes_sooner_than_one_rtt() {
        let mut p = running(3.0, 80 * 1024);
        assert!(p.on_timeout(ms(60), Some(1001)));
        p.on_new_ack(ms(65), 1001, 1000, false, Some(RTT));
        assert_eq!(p.stats(), PreemptiveStats { retransmits: 1, spurious: 1 });
        p.on_send(ms(100), true);
        assert!(p.on_timeout(ms(160), Some(2001)));
        // A partial ACK below the segment does not decide; an ACK 20 ms later (one RTT) may
        // answer the retransmission: not counted.
        p.on_new_ack(ms(170), 1500, 1499, true, Some(RTT));
        p.on_new_ack(ms(180), 2001, 2000, false, Some(RTT));
        assert_eq!(p.stats(), PreemptiveStats { retransmits: 2, spurious: 1 });
    }
}

/// Through one sender `Endpoint`, in smoltcp's style: the peer's segments come from
/// templates, helpers send and receive. The fixture `established`: SYN at 0 ms, SYN-ACK at
/// 20 ms, so the handshake RTT is 20 ms and, with k = 3, the timeout 60 ms; the RTO is 1 s
/// (the minimum) and the initial window two segments.
#[cfg(test)]
mod endpoint_tests {
    use super::*;
    use crate::config::TcpConfig;
    use crate::endpoint::{Endpoint, Role, Timer};
    use crate::test_util::{self, *};

    /// The data segments' sequence numbers sent at `now`.
    #[track_caller]
    fn send_seqs(ep: &mut Endpoint, now: Time) -> Vec<u64> {
        send_data(ep, now).iter().map(|s| s.seq).collect()
    }

    /// Fire the timers due at `now`, then the data segments' sequence numbers sent.
    #[track_caller]
    fn timeout_seqs(ep: &mut Endpoint, now: Time) -> Vec<u64> {
        timeout(ep, now).iter().filter(|s| s.len > 0).map(|s| s.seq).collect()
    }

    fn config(preemptive: Option<PreemptiveConfig>) -> TcpConfig {
        TcpConfig { initial_window_segments: 2, preemptive, ..test_util::config() }
    }

    fn on() -> Option<PreemptiveConfig> {
        Some(PreemptiveConfig::default())
    }

    /// `test_util::established` (SYN-ACK at 20 ms) with `segments` written; the initial
    /// window went out at 20 ms.
    fn established(cfg: TcpConfig, segments: u64) -> Endpoint {
        let mut ep = test_util::established(cfg);
        assert_eq!(ep.measure().handshake_rtt(), Some(HANDSHAKE_RTT));
        ep.write(segments * MSS);
        assert_eq!(send_seqs(&mut ep, at(20)), vec![seg_start(0), seg_start(1)]);
        ep
    }

    #[test]
    fn test_established_off_by_default() {
        assert_eq!(TcpConfig::default().preemptive, None);
        let mut ep = established(config(None), 2);
        assert!(ep.preemptive().is_none());
        assert_eq!(ep.timer(Timer::Preemptive), None);
        assert_eq!(timeout_seqs(&mut ep, at(1020)), vec![seg_start(0)], "only the RTO, at 1 s");
    }

    #[test]
    fn test_established_send_arms_k_times_handshake_rtt() {
        let mut ep = established(config(on()), 10);
        assert_eq!(ep.preemptive().unwrap().timeout(), Some(Duration::from_millis(60)));
        assert_eq!(ep.timer(Timer::Preemptive), Some(at(80)));
        // Each send restarts it: the ACK at 45 ms releases two new segments.
        recv_ack(&mut ep, at(45), seg_start(1));
        assert_eq!(send_seqs(&mut ep, at(45)), vec![seg_start(2), seg_start(3)]);
        assert_eq!(ep.timer(Timer::Preemptive), Some(at(105)));
        // A factor of 2 gives 40 ms.
        let ep = established(config(Some(PreemptiveConfig { factor: 2.0, ..PreemptiveConfig::default() })), 10);
        assert_eq!(ep.timer(Timer::Preemptive), Some(at(60)));
    }

    #[test]
    fn test_established_new_ack_restarts_with_data_outstanding_and_cancels_without() {
        let mut ep = established(config(on()), 2);
        recv_ack(&mut ep, at(40), seg_start(1));
        assert!(send_seqs(&mut ep, at(40)).is_empty());
        assert_eq!(ep.timer(Timer::Preemptive), Some(at(100)), "restarted by the ACK");
        // A duplicate ACK is not a new ACK: no change.
        recv_ack(&mut ep, at(50), seg_start(1));
        assert_eq!(ep.timer(Timer::Preemptive), Some(at(100)));
        recv_ack(&mut ep, at(55), seg_start(2));
        assert_eq!(ep.timer(Timer::Preemptive), None, "nothing outstanding");
    }

    #[test]
    fn test_established_expiry_retransmits_the_first_unacked_and_holds() {
        let mut ep = established(config(on()), 4);
        let rto_at = ep.timer(Timer::Rto);
        assert_eq!(rto_at, Some(at(1020)));
        let cwnd = ep.snapshot().cwnd;
        assert_eq!(timeout_seqs(&mut ep, at(80)), vec![seg_start(0)], "exactly the first unacknowledged segment");
        assert_eq!(ep.timer(Timer::Preemptive), None, "not restarted by the retransmission");
        assert_eq!(ep.timer(Timer::Rto), rto_at, "the RTO runs on");
        assert_eq!(ep.snapshot().cwnd, cwnd, "the window is untouched");
        assert_eq!((ep.stats().retransmits, ep.stats().timeouts, ep.preemptive_stats().retransmits), (1, 0, 1));
        // The original of segment 0 was lost; the retransmission is acknowledged one RTT
        // later. Data stays outstanding, but held, the timer is not restarted by the ACK...
        recv_ack(&mut ep, at(100), seg_start(1));
        assert_eq!(ep.timer(Timer::Preemptive), None);
        // ...only by the new segments that ACK releases.
        assert_eq!(send_seqs(&mut ep, at(100)), vec![seg_start(2), seg_start(3)]);
        assert_eq!(ep.timer(Timer::Preemptive), Some(at(160)));
        assert_eq!(ep.preemptive_stats().spurious, 0, "acknowledged one RTT after: not spurious");
    }

    #[test]
    fn test_established_held_ack_without_new_data_leaves_the_rest_to_the_rto() {
        let mut ep = established(config(on()), 2);
        assert_eq!(timeout_seqs(&mut ep, at(80)), vec![seg_start(0)]);
        recv_ack(&mut ep, at(100), seg_start(1));
        assert!(send_seqs(&mut ep, at(100)).is_empty());
        assert_eq!(ep.timer(Timer::Preemptive), None);
        // The RTO (restarted by the new ACK, RFC 6298 §5.3) resends segment 1.
        assert_eq!(timeout_seqs(&mut ep, at(1100)), vec![seg_start(1)]);
        assert_eq!(ep.stats().timeouts, 1);
        assert_eq!(ep.timer(Timer::Preemptive), None, "a retransmission does not end the hold");
    }

    #[test]
    fn test_established_ack_sooner_than_an_rtt_after_the_retransmission_is_spurious() {
        let mut ep = established(config(on()), 2);
        assert_eq!(timeout_seqs(&mut ep, at(80)), vec![seg_start(0)]);
        // The original was only late: its ACK comes 5 ms after the retransmission.
        recv_ack(&mut ep, at(85), seg_start(2));
        assert_eq!(ep.preemptive_stats(), PreemptiveStats { retransmits: 1, spurious: 1 });
    }

    #[test]
    fn test_established_past_the_cut_out_nothing_happens() {
        let cfg = PreemptiveConfig { cutout_bytes: 2 * MSS, ..PreemptiveConfig::default() };
        let mut ep = established(config(Some(cfg)), 10);
        recv_ack(&mut ep, at(40), seg_start(1));
        assert_eq!(ep.timer(Timer::Preemptive), Some(at(100)), "1000 bytes acknowledged: still on");
        send_seqs(&mut ep, at(40));
        recv_ack(&mut ep, at(41), seg_start(2));
        assert_eq!(ep.preemptive().unwrap().phase(), Phase::CutOut);
        assert_eq!(ep.timer(Timer::Preemptive), None);
        assert!(!send_seqs(&mut ep, at(41)).is_empty());
        assert_eq!(ep.timer(Timer::Preemptive), None, "sends no longer arm it");
        // Nothing acknowledged for a long time: only the RTO acts.
        assert_eq!(ep.poll_timeout(), ep.timer(Timer::Rto));
    }

    #[test]
    fn test_syn_sent_without_a_handshake_rtt_it_stays_off() {
        // A retransmitted SYN (Karn's rule: no handshake RTT).
        let mut ep = syn_sent(config(on()));
        ep.write(4 * MSS);
        assert_eq!(timeout(&mut ep, at(1000)).len(), 1, "the SYN again");
        recv(&mut ep, at(1020), SYN_ACK);
        assert_eq!(send_seqs(&mut ep, at(1020)).len(), 2);
        assert_eq!(ep.preemptive().unwrap().phase(), Phase::NoHandshakeRtt);
        assert_eq!(ep.timer(Timer::Preemptive), None);
        // No handshake at all.
        let mut ep = Endpoint::new(TcpConfig { handshake: false, ..config(on()) }, Role::Active);
        ep.write(4 * MSS);
        assert_eq!(send_seqs(&mut ep, at(0)).len(), 2);
        assert_eq!(ep.preemptive().unwrap().phase(), Phase::Starting);
        assert_eq!(ep.timer(Timer::Preemptive), None);
    }

    #[test]
    fn test_established_expiry_with_the_rto_sends_one_copy() {
        // k = 50: both timers expire at 1020 ms. The RTO fires first (table order) and starts
        // a go-back-N from snd_una; the preemptive retransmission is that same segment.
        let cfg = PreemptiveConfig { factor: 50.0, ..PreemptiveConfig::default() };
        let mut ep = established(config(Some(cfg)), 4);
        assert_eq!(ep.timer(Timer::Preemptive), ep.timer(Timer::Rto));
        assert_eq!(timeout_seqs(&mut ep, at(1020)), vec![seg_start(0)]);
        assert_eq!((ep.stats().retransmits, ep.stats().timeouts, ep.preemptive_stats().retransmits), (1, 1, 1));
        // The go-back-N goes on from segment 1 (slow start: cwnd 2 after the ACK).
        recv_ack(&mut ep, at(1040), seg_start(1));
        assert_eq!(send_seqs(&mut ep, at(1040)), vec![seg_start(1), seg_start(2)]);
    }

    /// The same inputs to an endpoint with the part off and one with it on but a timeout too
    /// long to fire (k = 1000: 20 s): every segment sent and every RTO deadline agree,
    /// through fast retransmit, NewReno recovery and a timeout.
    #[test]
    fn test_established_rto_and_fast_retransmit_unchanged() {
        let slow = PreemptiveConfig { factor: 1000.0, ..PreemptiveConfig::default() };
        let mut off = established(config(None), 20);
        let mut on = established(config(Some(slow)), 20);
        // (time in ms, cumulative ACK); None: fire the next timer instead.
        let script: &[(u64, Option<u64>)] = &[
            (40, Some(seg_start(1))),
            (41, Some(seg_start(2))),
            // segment 2 is lost; 3 and 4 arrive: duplicate ACKs, then fast retransmit
            (60, Some(seg_start(2))),
            (61, Some(seg_start(2))),
            (62, Some(seg_start(2))),
            (63, Some(seg_start(2))),
            // the fast retransmission is lost as well: the RTO repairs it
            (0, None),
            (1300, Some(seg_start(6))),
        ];
        for &(t, ack) in script {
            let (a, b) = match ack {
                Some(n) => {
                    recv_ack(&mut off, at(t), n);
                    recv_ack(&mut on, at(t), n);
                    (send_seqs(&mut off, at(t)), send_seqs(&mut on, at(t)))
                }
                None => {
                    let at = off.poll_timeout().unwrap();
                    assert_eq!(at, off.timer(Timer::Rto).unwrap());
                    (timeout_seqs(&mut off, at), timeout_seqs(&mut on, at))
                }
            };
            assert_eq!(a, b, "at {t} ms");
            assert_eq!(off.timer(Timer::Rto), on.timer(Timer::Rto), "at {t} ms");
            assert_eq!(off.snapshot(), on.snapshot(), "at {t} ms");
        }
        assert_eq!(on.stats(), off.stats());
        assert_eq!((on.stats().fast_retransmits, on.stats().timeouts), (1, 1));
        assert_eq!(on.preemptive_stats().retransmits, 0);
    }
}
