//! Preemptive Retransmission (paper 002) on a dumbbell: a short transfer whose last segment
//! is lost, on the paper's "UK" path (5 Mb/s bottleneck, 10 ms one way: RTT about 20 ms).
//! Fast retransmit cannot repair a lost tail (no segments follow it to raise duplicate ACKs),
//! so the standard sender waits for its RTO (minimum 1 s); the preemptive one resends after
//! 3 × the handshake RTT.

use rampup_sim::{run_toml, RunOutput};

const MSS: u64 = 1000;
const BYTES: u64 = 20_000;

/// Random loss on the bottleneck (data direction) with a seed under which the standard run
/// loses exactly one packet, the last data segment (checked below).
const LOSS: f64 = 0.05;
const SEED: u64 = 10;

fn scenario(preemptive: &str, loss: f64) -> String {
    format!(
        r#"
duration = "10s"
[topology]
kind = "dumbbell"
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "5Mbps"
bottleneck_delay = "8ms"
bottleneck_queue = {{ packets = 100 }}
loss = {loss}
[[flow]]
from = "s0"
to = "r0"
app = {{ kind = "bulk", bytes = {BYTES} }}
tcp = {{ min_rto = "1s" {preemptive} }}
[trace]
queues = false
"#
    )
}

struct Run {
    elapsed_s: f64,
    timeouts: u64,
    fast: u64,
    retransmits: u64,
    preemptive: u64,
    spurious: u64,
    drops: u64,
    /// snd_una when the sender paused before the repair.
    una_before_repair: u64,
}

fn run(preemptive: &str, loss: f64, seed: u64) -> Run {
    let out: RunOutput = run_toml(&scenario(preemptive, loss), Some(seed)).expect("valid scenario");
    let f = out.table("flows");
    let ts = out.table("timeseries");
    // The repair follows the longest pause in the on-change time series (the RTO's second,
    // or the preemptive timeout): snd_una just before it is what was acknowledged.
    let (t, una) = (ts.u64s("t_ns"), ts.u64s("snd_una"));
    let gap = (1..t.len()).max_by_key(|&i| (t[i] - t[i - 1], std::cmp::Reverse(i))).expect("rows");
    let una_before_repair = una[gap - 1];
    Run {
        elapsed_s: out.table("transfers").f64s("elapsed_s")[0],
        timeouts: f.u64s("timeouts")[0],
        fast: f.u64s("fast_retransmits")[0],
        retransmits: f.u64s("retransmits")[0],
        preemptive: f.u64s("preemptive_retransmits")[0],
        spurious: f.u64s("spurious_preemptive")[0],
        drops: f.u64s("drops")[0],
        una_before_repair,
    }
}

const PREEMPTIVE: &str = r#", preemptive = { factor = 3, cutout = "80KiB" }"#;

#[test]
fn lost_last_segment_finishes_sooner_with_preemptive_retransmission() {
    let standard = run("", LOSS, SEED);
    let preemptive = run(PREEMPTIVE, LOSS, SEED);
    println!(
        "20 KB, last segment lost: standard {:.3} s ({} timeout), preemptive {:.3} s ({} preemptive, {} spurious, {} timeouts)",
        standard.elapsed_s, standard.timeouts, preemptive.elapsed_s, preemptive.preemptive, preemptive.spurious, preemptive.timeouts
    );
    // The seed's premise: one drop, the last of the 20 segments, repaired by the RTO.
    assert_eq!((standard.drops, standard.retransmits, standard.fast, standard.timeouts), (1, 1, 0, 1));
    assert_eq!(standard.una_before_repair, 1 + BYTES - MSS, "the last segment was the one lost");
    assert_eq!(preemptive.una_before_repair, 1 + BYTES - MSS);
    // Preemptive: one retransmission 3 x ~20 ms after the last ACK, no timeout.
    assert_eq!((preemptive.drops, preemptive.retransmits, preemptive.preemptive, preemptive.spurious, preemptive.timeouts), (1, 1, 1, 0, 0));
    assert!(standard.elapsed_s > 1.0, "the RTO's minimum of 1 s: {:.3} s", standard.elapsed_s);
    assert!(preemptive.elapsed_s < 0.25, "{:.3} s", preemptive.elapsed_s);
    assert!(standard.elapsed_s - preemptive.elapsed_s > 0.9);
}

#[test]
fn without_loss_the_transfer_is_unchanged() {
    let standard = run("", 0.0, SEED);
    let preemptive = run(PREEMPTIVE, 0.0, SEED);
    assert_eq!(standard.elapsed_s, preemptive.elapsed_s);
    assert_eq!((preemptive.retransmits, preemptive.preemptive), (0, 0));
}
