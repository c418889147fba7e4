//! Preemptive Retransmission between two endpoints (a sender and a receiver that ACKs every
//! segment) over a channel with a fixed one-way delay of 10 ms and no serialisation, where
//! chosen first transmissions are lost or held back. The handshake RTT is 20 ms, so with
//! k = 3 the preemptive timeout is 60 ms against a minimum RTO of 1 s.

mod common;

use common::{Fate, Pair};
use rampup_tcp::time::Duration;
use rampup_tcp::{Endpoint, PreemptiveConfig, PreemptiveStats, Segment, TcpConfig, Time};

const MSS: u64 = 1000;
const DELAY: Duration = Duration::from_millis(10);

/// The network: a fixed delay, except that the first transmission of the data segment with
/// sequence number in `lose` is lost, and one in `late` takes the given time longer.
fn network(lose: Vec<u64>, late: Vec<(u64, Duration)>) -> impl FnMut(usize, &Segment) -> Fate {
    let mut sent_once: Vec<u64> = Vec::new();
    move |from, seg| {
        if from == 0 && seg.len > 0 && !sent_once.contains(&seg.seq) {
            sent_once.push(seg.seq);
            if lose.contains(&seg.seq) {
                return Fate::Lose;
            }
            if let Some(&(_, extra)) = late.iter().find(|l| l.0 == seg.seq) {
                return Fate::Deliver(DELAY + extra);
            }
        }
        Fate::Deliver(DELAY)
    }
}

fn config(preemptive: Option<PreemptiveConfig>) -> TcpConfig {
    TcpConfig { mss_bytes: MSS as u32, preemptive, ..TcpConfig::default() }
}

/// A `segments`-segment transfer with the given first transmissions lost; the time it took
/// and the sender.
fn transfer(preemptive: Option<PreemptiveConfig>, segments: u64, lose: &[u64], late: &[(u64, Duration)]) -> (Duration, Endpoint) {
    let lose = lose.iter().map(|k| 1 + k * MSS).collect();
    let late = late.iter().map(|&(k, d)| (1 + k * MSS, d)).collect();
    let mut p = Pair::new(config(preemptive), network(lose, late));
    p.ends[0].write(segments * MSS);
    let limit = Time::ZERO + Duration::from_secs(30);
    let done = p.run_until_acked(limit);
    assert!(p.ends[0].all_acked(), "not done by {limit:?}");
    let [sender, _] = p.ends;
    (done.since(Time::ZERO), sender)
}

fn ms(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e6
}

#[test]
fn lost_last_segment_is_repaired_after_k_handshake_rtts_not_the_rto() {
    let on = Some(PreemptiveConfig::default());
    let (clean, _) = transfer(None, 20, &[], &[]);
    let (rto, std_sender) = transfer(None, 20, &[19], &[]);
    let (pre, pre_sender) = transfer(on, 20, &[19], &[]);
    println!("20 segments: clean {:.0} ms, last lost: standard {:.0} ms, preemptive {:.0} ms", ms(clean), ms(rto), ms(pre));
    assert_eq!(std_sender.stats().timeouts, 1, "the standard sender needs its RTO");
    assert_eq!(pre_sender.stats().timeouts, 0);
    assert_eq!(pre_sender.preemptive_stats(), PreemptiveStats { retransmits: 1, spurious: 0 });
    // The clean transfer ends with the ACKs of segments 18 and 19 at the same instant. With
    // 19 lost, its repair leaves at the last new ACK plus the RTO (1 s, restarted by that ACK,
    // RFC 6298 §5.3) or plus the preemptive timeout (60 ms), and is acknowledged one RTT later.
    assert_eq!(rto, clean + Duration::from_millis(1000 + 20));
    assert_eq!(pre, clean + Duration::from_millis(60 + 20));
}

#[test]
fn a_late_original_makes_the_retransmission_spurious() {
    // The timer fires 60 ms after the last new ACK (at 100 ms), when segment 19 would have
    // been acknowledged. Segment 19 arrives 65 ms late: its ACK reaches the sender 5 ms after
    // the retransmission, sooner than one RTT.
    let on = Some(PreemptiveConfig::default());
    let (_, s) = transfer(on, 20, &[], &[(19, Duration::from_millis(65))]);
    assert_eq!(s.preemptive_stats(), PreemptiveStats { retransmits: 1, spurious: 1 });
    // 150 ms late: the retransmission's own ACK comes first, one RTT after it.
    let (_, s) = transfer(on, 20, &[], &[(19, Duration::from_millis(150))]);
    assert_eq!(s.preemptive_stats(), PreemptiveStats { retransmits: 1, spurious: 0 });
}

#[test]
fn past_the_cut_out_a_lost_tail_waits_for_the_rto() {
    let cut = Some(PreemptiveConfig { cutout_bytes: 10 * MSS, ..PreemptiveConfig::default() });
    let (with_cut, s) = transfer(cut, 20, &[19], &[]);
    let (standard, _) = transfer(None, 20, &[19], &[]);
    assert_eq!(with_cut, standard);
    assert_eq!((s.preemptive_stats().retransmits, s.stats().timeouts), (0, 1));
}

#[test]
fn no_loss_no_preemptive_retransmission() {
    let (a, s) = transfer(Some(PreemptiveConfig::default()), 60, &[], &[]);
    let (b, _) = transfer(None, 60, &[], &[]);
    assert_eq!(a, b);
    assert_eq!(s.stats().retransmits, 0);
}
