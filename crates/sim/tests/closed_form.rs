//! Checks against closed-form results: slow-start growth per RTT, full utilisation with a
//! one-BDP buffer, and the Mathis et al. throughput law under random loss.

use rampup_sim::{run_toml, RunOutput};

/// One flow over a dumbbell; `extra_tcp` and `extra_topology` are TOML fragments.
fn one_flow(duration: &str, bottleneck: &str, delay: &str, queue: u64, extra_topology: &str, extra_tcp: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[topology]
kind = "dumbbell"
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "{bottleneck}"
bottleneck_delay = "{delay}"
bottleneck_queue = {{ packets = {queue} }}
{extra_topology}
[[flow]]
from = "s0"
to = "r0"
app = {{ kind = "bulk" }}
tcp = {{ handshake = false {extra_tcp} }}
[trace]
queues = false
"#
    )
}

fn run(text: &str, seed: u64) -> RunOutput {
    run_toml(text, Some(seed)).expect("valid scenario")
}

/// cwnd (in segments) of flow 0 at time `t_ns`, from the on-change time series.
fn cwnd_at(out: &RunOutput, t_ns: u64) -> f64 {
    let ts = out.table("timeseries");
    let (t, cwnd) = (ts.u64s("t_ns"), ts.u64s("cwnd_bytes"));
    let i = t.partition_point(|&x| x <= t_ns);
    assert!(i > 0, "no sample before {t_ns}");
    cwnd[i - 1] as f64 / 1000.0
}

const RTT_NS: u64 = 100_000_000; // 2 x (1 + 48 + 1) ms

#[test]
fn slow_start_doubles_cwnd_every_rtt_with_an_ack_per_segment() {
    // 1 Gb/s everywhere: a burst of 256 segments takes 2 ms, far below the 100 ms RTT, so
    // the rounds of slow start stay apart and each is one RTT.
    let text = one_flow("1s", "1Gbps", "48ms", 10_000, "", "");
    let out = run(&text, 1);
    let rounds: Vec<f64> = (0..8).map(|k| cwnd_at(&out, k * RTT_NS + RTT_NS / 2)).collect();
    assert_eq!(rounds[0], 2.0, "initial window");
    for k in 1..rounds.len() {
        assert_eq!(rounds[k], 2.0 * rounds[k - 1], "round {k}: {rounds:?}");
    }
}

#[test]
fn slow_start_with_delayed_acks_grows_by_half_per_rtt() {
    // RFC 5681 §3.1 with byte counting off: one ACK per two segments, each ACK adds one
    // SMSS, so a round of W segments ends with cwnd ≈ 1.5 W. A lone odd segment is acked by
    // the 200 ms timer, which can land in the next round: so the ratio of a round with W
    // segments lies in [1.5 - 1/(2W), 1.5 + 1/W].
    let text = one_flow("2s", "1Gbps", "48ms", 10_000, "", ", delayed_ack = true");
    let out = run(&text, 1);
    let rounds: Vec<f64> = (0..14).map(|k| cwnd_at(&out, k * RTT_NS + RTT_NS / 2)).collect();
    let mut checked = 0;
    for k in 1..rounds.len() {
        let w = rounds[k - 1];
        if w < 10.0 {
            continue;
        }
        let ratio = rounds[k] / w;
        assert!(ratio >= 1.5 - 1.0 / (2.0 * w) - 1e-9 && ratio <= 1.5 + 1.0 / w + 1e-9, "round {k}: {rounds:?}");
        checked += 1;
    }
    assert!(checked >= 5, "too few rounds checked: {rounds:?}");
}

#[test]
fn newreno_fills_the_bottleneck_with_a_one_bdp_buffer() {
    // 10 Mb/s, RTT 2 x (1 + 18 + 1) = 40 ms: BDP = 50,000 bytes = 48 packets of 1040 bytes.
    let text = one_flow("60s", "10Mbps", "18ms", 48, "", "");
    let out = run(&text, 1);
    // Utilisation after startup: wire bytes the bottleneck carried from 10 s to 60 s.
    let ts = out.table("timeseries");
    let (t, una) = (ts.u64s("t_ns"), ts.u64s("snd_una"));
    let at = |t_ns: u64| una[t.partition_point(|&x| x <= t_ns) - 1];
    let acked = at(60_000_000_000) - at(10_000_000_000);
    let wire_bits = acked as f64 / 1000.0 * 1040.0 * 8.0;
    let utilization = wire_bits / (10e6 * 50.0);
    eprintln!("utilization from 10 s to 60 s: {utilization:.4}");
    assert!(utilization >= 0.95, "utilization {utilization:.4}");
    assert!(out.table("flows").u64s("drops")[0] > 0, "the flow should probe and lose");
}

fn mathis_ratio(p: f64, seed: u64) -> f64 {
    // 100 Mb/s and a 100 ms RTT: the loss-limited window (about 1.22/sqrt(p) segments)
    // never fills the 1,250-packet pipe, so there is no queueing and RTT is the base RTT.
    let text = one_flow("300s", "100Mbps", "48ms", 10_000, &format!("loss = {p}"), "");
    let out = run(&text, seed);
    let received = out.table("flows").u64s("bytes_received")[0] as f64;
    let throughput = received * 8.0 / 300.0;
    let mathis = 1000.0 * 8.0 / 0.1 * (1.5f64).sqrt() / p.sqrt();
    throughput / mathis
}

#[test]
fn newreno_follows_the_mathis_law_at_one_in_a_thousand() {
    let r = mathis_ratio(0.001, 7);
    eprintln!("p = 0.001: throughput / Mathis = {r:.3}");
    assert!((0.75..=1.25).contains(&r), "throughput / Mathis = {r:.3}");
}

#[test]
fn newreno_follows_the_mathis_law_at_one_in_a_hundred() {
    let r = mathis_ratio(0.01, 7);
    eprintln!("p = 0.01: throughput / Mathis = {r:.3}");
    assert!((0.75..=1.25).contains(&r), "throughput / Mathis = {r:.3}");
}

#[test]
fn the_throughput_trace_adds_up_and_carries_the_bottleneck_rate() {
    // The one-BDP buffer of the test above keeps the bottleneck busy once the flow is past
    // slow start. The flow starts at 0.55 s; the run ends 50 ms after a multiple of 100 ms.
    let text = one_flow("10050ms", "10Mbps", "18ms", 48, "", "").replace("to = \"r0\"\n", "to = \"r0\"\nstart = \"550ms\"\n") + "throughput = \"100ms\"\n";
    let out = run(&text, 1);
    let tp = out.table("throughput");
    let (t, bytes) = (tp.u64s("t_ns"), tp.u64s("bytes"));
    assert!(tp.u64s("flow").iter().all(|&f| f == 0));
    // One row per interval from 0, zeros included; the last, at 10 s, covers 50 ms.
    let interval = 100_000_000;
    assert_eq!(t, (0..=100).map(|i| i * interval).collect::<Vec<u64>>());
    assert!(bytes[..5].iter().all(|&b| b == 0), "nothing before the flow starts: {:?}", &bytes[..6]);
    assert!(bytes[5] > 0, "the handshake and first window arrive within 0.5-0.6 s");
    assert_eq!(bytes.iter().sum::<u64>(), out.table("flows").u64s("bytes_received")[0]);
    // From 5 s to 10 s the bottleneck carries 10 Mb/s of 1040-byte packets with 1000 bytes
    // of payload. In-order delivery can hold bytes back past a boundary (a hole waits for
    // its retransmission), by at most a window: 96 segments, 1.6% of the 6 MB.
    let carried = bytes[50..100].iter().sum::<u64>() as f64;
    let ratio = carried / (10e6 / 8.0 * 5.0 * 1000.0 / 1040.0);
    eprintln!("delivered / bottleneck payload rate, 5-10 s: {ratio:.4}");
    assert!((0.95..=1.02).contains(&ratio), "ratio {ratio:.4}");
}

#[test]
fn rtt_samples_are_the_path_delay_plus_serialisation_and_queueing() {
    // 1 Gb/s everywhere, 2 x (1 + 48 + 1) ms of propagation: an unqueued data segment's
    // sample is that plus the serialisation of its 1040 bytes and of a 40-byte ACK on each
    // of the three links (8,320 ns and 320 ns each).
    let text = one_flow("750ms", "1Gbps", "48ms", 10_000, "", "") + "rtt = true\n";
    let out = run(&text, 1);
    let rtt = out.table("rtt");
    let samples = rtt.u64s("rtt_ns");
    let unqueued = RTT_NS + 3 * 8_320 + 3 * 320;
    assert_eq!(samples[0], unqueued, "the first window meets empty queues");
    assert!(samples.iter().all(|&s| s >= unqueued));
    assert!(rtt.strs("end").iter().all(|e| e == "from"), "only the data sender takes samples");
    // Slow start's rounds (one per RTT, the window doubling from 2) queue at the sender's
    // access link. By 750 ms the samples are of the rounds sent by 650 ms, of at most 128
    // segments: none waits behind more than its window, 128 x 8,320 ns.
    assert!(samples.iter().any(|&s| s > unqueued), "some queueing");
    assert!(samples.iter().all(|&s| s <= unqueued + 128 * 8_320), "max {}", samples.iter().max().unwrap());
    // The smoothed RTT of the timeseries follows from these samples (RFC 6298 §2.2):
    // the first sets srtt.
    let srtt = out.table("timeseries").f64s("srtt_ns");
    assert_eq!(srtt.iter().find(|s| !s.is_nan()).copied(), Some(unqueued as f64));
}
