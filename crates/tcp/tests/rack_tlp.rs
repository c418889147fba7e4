//! RACK-TLP (RFC 8985) between two endpoints with SACK, over a channel with a fixed one-way
//! delay of 10 ms and no serialisation (every RTT sample is 20 ms), where chosen data
//! segments are lost. The minimum RTO is 1 s, so a repair by the probe and one by the RTO
//! are far apart.

mod common;

use common::{Fate, Pair};
use rampup_tcp::recovery::RecoveryKind;
use rampup_tcp::time::Duration;
use rampup_tcp::{Endpoint, Segment, TcpConfig, Time};

const MSS: u64 = 1000;
const DELAY: Duration = Duration::from_millis(10);

/// Lose the data segments whose number (0-based) is in `lose`: the first `times`
/// transmissions of each.
fn network(lose: Vec<u64>, times: usize) -> impl FnMut(usize, &Segment) -> Fate {
    let mut sent: Vec<u64> = Vec::new();
    move |from, seg| {
        if from == 0 && seg.len > 0 && lose.contains(&((seg.seq - 1) / MSS)) {
            sent.push(seg.seq);
            if sent.iter().filter(|&&s| s == seg.seq).count() <= times {
                return Fate::Lose;
            }
        }
        Fate::Deliver(DELAY)
    }
}

fn config(rack_tlp: bool) -> TcpConfig {
    TcpConfig { mss_bytes: MSS as u32, recovery: RecoveryKind::Sack, rack_tlp, ..TcpConfig::default() }
}

/// A 20-segment transfer (initial window 10) with segments `lose` lost `times` times; the
/// time it took and the sender.
fn transfer(rack_tlp: bool, lose: &[u64], times: usize) -> (Duration, Endpoint) {
    let mut p = Pair::new(config(rack_tlp), network(lose.to_vec(), times));
    p.ends[0].write(20 * MSS);
    let limit = Time::ZERO + Duration::from_secs(30);
    let done = p.run_until_acked(limit);
    assert!(p.ends[0].all_acked(), "not done by {limit:?}");
    let [sender, _] = p.ends;
    (done.since(Time::ZERO), sender)
}

/// §7.2-7.4: the last segment lost. The last new ACK leaves one segment out, so the probe
/// waits 2·SRTT + WCDelAckT = 240 ms; with no new data it sends the last segment again,
/// whose ACK, a full RTT later, shows the probe repaired a loss: cwnd is reduced as by a fast
/// recovery (to half the cwnd it had, the clean run's). Without RACK-TLP the RTO (1 s)
/// repairs it.
#[test]
fn rfc_8985_7_a_lost_last_segment_is_repaired_by_the_probe_not_the_rto() {
    let (clean, clean_sender) = transfer(true, &[], 0);
    let (rto, plain) = transfer(false, &[19], 1);
    let (tlp, s) = transfer(true, &[19], 1);
    assert_eq!(rto, clean + Duration::from_millis(1000 + 20));
    assert_eq!(tlp, clean + Duration::from_millis(240 + 20));
    assert_eq!((plain.stats().timeouts, s.stats().timeouts, s.stats().tlp_probes), (1, 0, 1));
    let (w, before) = (s.sender().window(), clean_sender.sender().window().cwnd);
    assert_eq!((w.ssthresh, w.cwnd), (before / 2, before / 2), "the probe's repair halves cwnd");
    assert_eq!(clean_sender.sender().window().ssthresh, u64::MAX, "the clean run never reduced it");
}

/// §7 and §6: the last two segments lost. Two segments out: the probe waits 2·SRTT = 40 ms
/// and sends segment 19 again; its SACK shows RACK that segment 18, sent before it, has had
/// its RTT and more: RACK marks it lost and SACK recovery resends it, one RTT after the probe.
#[test]
fn rfc_8985_6_and_7_the_probes_sack_lets_rack_repair_the_rest_of_the_tail() {
    let (clean, _) = transfer(true, &[], 0);
    let (rack, s) = transfer(true, &[18, 19], 1);
    assert_eq!(rack, clean + Duration::from_millis(40 + 20 + 20));
    assert_eq!((s.stats().timeouts, s.stats().tlp_probes, s.stats().fast_retransmits), (0, 1, 1));
    let (rto, plain) = transfer(false, &[18, 19], 1);
    assert!(rto > clean + Duration::from_millis(1000), "without RACK-TLP: {rto:?}");
    assert_eq!(plain.stats().timeouts, 1);
}

/// §7.3: one probe, then the RTO. The last segment is lost and so is the probe that resends
/// it: no second probe; the RTO, restarted when the probe went, repairs it 1 s later.
#[test]
fn rfc_8985_7_3_one_probe_then_the_rto() {
    let (clean, _) = transfer(true, &[], 0);
    let (t, s) = transfer(true, &[19], 2);
    assert_eq!((s.stats().tlp_probes, s.stats().timeouts), (1, 1));
    assert_eq!(t, clean + Duration::from_millis(240 + 1000 + 20));
}

/// §6.2: with no loss, RACK-TLP changes nothing: no probe (the ACKs keep coming) and the
/// same completion time.
#[test]
fn rfc_8985_without_loss_nothing_changes() {
    let (a, with) = transfer(true, &[], 0);
    let (b, without) = transfer(false, &[], 0);
    assert_eq!(a, b);
    assert_eq!((with.stats().tlp_probes, with.stats().retransmits), (0, 0));
    assert_eq!(with.sender().window(), without.sender().window());
}

/// RFC 8985 needs SACK: with a peer that does not offer it, RACK-TLP stays off and a lost
/// tail waits for the RTO.
#[test]
fn rfc_8985_without_sack_rack_tlp_is_off() {
    let no_sack = TcpConfig { sack_permitted: rampup_tcp::SackPermitted::Never, ..config(false) };
    let mut p = Pair::with_configs(config(true), no_sack, network(vec![19], 1));
    p.ends[0].write(20 * MSS);
    p.run_until_acked(Time::ZERO + Duration::from_secs(30));
    assert_eq!((p.ends[0].stats().tlp_probes, p.ends[0].stats().timeouts), (0, 1));
}

/// RFC 6675 §5.1 with RACK (RFC 8985 §6.3): after a timeout no recovery starts until the
/// cumulative ACK passes what was sent before it. Segments 10-19 are lost, and so is the
/// probe; after the RTO the ACK of the resent segment 10 shows RACK that 11-19, sent long
/// before it, are lost. Go-back-N is resending them already: a recovery entered here would
/// send "new" data from snd_nxt, below snd_max (a retransmission storm in the simulator).
#[test]
fn rfc_6675_5_1_rack_starts_no_recovery_inside_the_window_a_timeout_repairs() {
    let mut sent = [0usize; 20];
    let network = move |from: usize, seg: &Segment| {
        if from == 0 && seg.len > 0 {
            let k = ((seg.seq - 1) / MSS) as usize;
            sent[k] += 1;
            // First transmissions of 10-19, and the probe's copy of 19.
            if (k >= 10 && sent[k] == 1) || (k == 19 && sent[k] == 2) {
                return Fate::Lose;
            }
        }
        Fate::Deliver(DELAY)
    };
    let mut p = Pair::new(config(true), network);
    p.ends[0].write(20 * MSS);
    p.run_until_acked(Time::ZERO + Duration::from_secs(30));
    let s = p.ends[0].stats();
    assert!(p.ends[0].all_acked());
    assert_eq!((s.tlp_probes, s.timeouts, s.fast_retransmits), (1, 1, 0));
    assert_eq!(s.retransmits, 1 + 10, "the probe, then go-back-N resends each lost segment once");
    common::check_delivered(&p, 1, 20 * MSS).unwrap();
}
