//! BBRv1 (Linux's tcp_bbr.c, `docs/bbr.md`) on a 40 Mb/s bottleneck with a 100 ms base RTT
//! and a drop-tail buffer of 250 packets (under one BDP: 345 packets of 1448 bytes): one
//! flow, then two. The figures are printed (`--nocapture`).

use rampup_sim::{run_toml, RunOutput};

const RATE_BPS: f64 = 40e6;
const MSS: f64 = 1448.0;
/// The path's BDP in segments: 40 Mb/s × 100 ms.
const BDP_SEGMENTS: f64 = RATE_BPS * 0.1 / 8.0 / MSS;
/// The throughput table's interval (`[trace] throughput = "1s"`).
const INTERVAL_NS: u64 = 1_000_000_000;

fn scenario(pairs: u32, flows: &str, duration: &str) -> String {
    // 1 ms + 48 ms + 1 ms each way: 100 ms.
    format!(
        "duration = \"{duration}\"\n[topology]\nkind = \"dumbbell\"\npairs = {pairs}\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\nbottleneck_rate = \"40Mbps\"\nbottleneck_delay = \"48ms\"\nbottleneck_queue = {{ packets = 250 }}\n{flows}[trace]\nqueues = true\ntimeseries = true\nthroughput = \"1s\"\n"
    )
}

fn flow(k: u32, start: &str) -> String {
    format!(
        "[[flow]]\nfrom = \"s{k}\"\nto = \"r{k}\"\nstart = \"{start}\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ mss = 1448, initial_window = 10, recovery = \"sack\", rack_tlp = true, cc = \"bbr\" }}\n"
    )
}

/// The bottleneck's queue samples (packets) from `from_ns` on; the bottleneck is the queue
/// that holds the most.
fn bottleneck_queue(out: &RunOutput, from_ns: u64) -> Vec<u64> {
    let q = out.table("queues");
    let (names, t, packets) = (q.strs("queue"), q.u64s("t_ns"), q.u64s("packets"));
    let busiest = (0..names.len()).max_by_key(|&i| packets[i]).map(|i| names[i].clone()).expect("queue rows");
    (0..names.len()).filter(|&i| names[i] == busiest && t[i] >= from_ns).map(|i| packets[i]).collect()
}

/// When flow `f` first showed mode `mode`.
fn first_mode(out: &RunOutput, f: u64, mode: &str) -> Option<u64> {
    let ts = out.table("timeseries");
    let (t, flows, modes) = (ts.u64s("t_ns"), ts.u64s("flow"), ts.strs("cc_mode"));
    (0..t.len()).find(|&i| flows[i] == f && modes[i] == mode).map(|i| t[i])
}

/// Each flow's rate (bit/s) over the last 10 s of a run of `duration_s`: the throughput
/// table's intervals (`INTERVAL_NS` long, each row at its start) from `duration_s` − 10 s on.
fn last_10_s(out: &RunOutput, duration_s: u64) -> Vec<f64> {
    let tp = out.table("throughput");
    let (t, f, bytes) = (tp.u64s("t_ns"), tp.u64s("flow"), tp.u64s("bytes"));
    let from = (duration_s - 10) * 1_000_000_000;
    let end = t.iter().copied().max().expect("throughput rows") + INTERVAL_NS;
    let mut share = vec![0u64; f.iter().max().map_or(0, |m| *m as usize + 1)];
    for i in 0..t.len() {
        if t[i] >= from {
            share[f[i] as usize] += bytes[i];
        }
    }
    share.iter().map(|b| *b as f64 * 8e9 / (end - from) as f64).collect()
}

fn percentile(v: &mut [u64], p: f64) -> u64 {
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn one_flow() -> RunOutput {
    run_toml(&scenario(1, &flow(0, "0s"), "20s"), None).expect("a valid scenario")
}

/// One flow: it leaves STARTUP, reaches PROBE_BW, and in PROBE_BW its queue stays small:
/// its median under a quarter of a BDP, what the 5/4 probing phase adds in one min RTT,
/// where a loss-based flow keeps the buffer full.
#[test]
fn one_bbr_flow_leaves_startup_and_keeps_a_small_queue() {
    let out = one_flow();
    let flows = out.table("flows");
    let goodput = last_10_s(&out, 20)[0];
    let retransmits = flows.u64s("retransmits")[0];
    let drain = first_mode(&out, 0, "drain").expect("STARTUP ends");
    let probe_bw = first_mode(&out, 0, "probe_bw").expect("DRAIN ends");
    let probe_rtt = first_mode(&out, 0, "probe_rtt");
    // From one second after PROBE_BW began: the queue DRAIN left behind is gone.
    let mut q = bottleneck_queue(&out, probe_bw + 1_000_000_000);
    let mean = q.iter().sum::<u64>() as f64 / q.len() as f64;
    let (median, p95, max) = (percentile(&mut q, 0.5), percentile(&mut q, 0.95), percentile(&mut q, 1.0));
    println!(
        "one flow: goodput over the last 10 s {:.2} Mb/s ({:.1} % of the link), {retransmits} retransmits; STARTUP ends {:.3} s, PROBE_BW {:.3} s, PROBE_RTT {:?} s; \
         queue in PROBE_BW: mean {mean:.1}, median {median}, p95 {p95}, max {max} packets (BDP {BDP_SEGMENTS:.0})",
        goodput / 1e6,
        100.0 * goodput / RATE_BPS,
        drain as f64 / 1e9,
        probe_bw as f64 / 1e9,
        probe_rtt.map(|t| t as f64 / 1e9),
    );
    assert!((median as f64) < BDP_SEGMENTS / 4.0, "median queue {median} packets");
}

/// In PROBE_BW one flow paces at its bandwidth estimate and fills the link (the figures:
/// docs/bbr.md, "What the scenario test measured").
#[test]
fn one_bbr_flow_fills_the_link() {
    let goodput = last_10_s(&one_flow(), 20)[0];
    println!("one flow, last 10 s: {:.2} Mb/s", goodput / 1e6);
    assert!(goodput > 0.9 * RATE_BPS, "fills the link: {goodput}");
}

/// Two flows, the second 5 s after the first, over the last 10 s of 30 s.
fn two_flows() -> [f64; 2] {
    let text = scenario(2, &format!("{}{}", flow(0, "0s"), flow(1, "5s")), "30s");
    let out = run_toml(&text, None).expect("a valid scenario");
    let r = last_10_s(&out, 30);
    let retransmits = out.table("flows").u64s("retransmits").to_vec();
    println!("retransmits {retransmits:?}");
    [r[0], r[1]]
}

/// The later flow gets a real share (Jain's index printed).
#[test]
fn two_bbr_flows_share_the_link() {
    let rates = two_flows();
    let jain = (rates[0] + rates[1]).powi(2) / (2.0 * (rates[0].powi(2) + rates[1].powi(2)));
    println!(
        "two flows, last 10 s: {:.2} and {:.2} Mb/s (sum {:.1} % of the link), Jain {jain:.3}",
        rates[0] / 1e6,
        rates[1] / 1e6,
        100.0 * (rates[0] + rates[1]) / RATE_BPS
    );
    assert!(rates.iter().all(|&r| r > 0.2 * RATE_BPS), "each gets a real share: {rates:?}");
}

/// Two flows' estimates add up to the link, so together they fill it (docs/bbr.md).
#[test]
fn two_bbr_flows_fill_the_link() {
    let rates = two_flows();
    assert!(rates[0] + rates[1] > 0.9 * RATE_BPS, "together they fill the link: {rates:?}");
}

/// BBR's defaults and refusals: Linux pacing and no slow-start restart unless given; a
/// pacing other than Linux's, PRR or a startup is one line naming the key.
#[test]
fn bbr_takes_linux_pacing_and_refuses_what_it_replaces() {
    let with = |extra: &str| scenario(1, &flow(0, "0s").replace("cc = \"bbr\"", &format!("cc = \"bbr\"{extra}")), "1s");
    let tcp = &rampup_sim::scenario::parse(&with("")).expect("valid").flows[0].tcp;
    assert_eq!(format!("{:?} {:?}", tcp.pacing, tcp.restart), "Some(PacingConfig { rate: Linux, unpaced_segments: 10 }) Nssr");
    let refused = [
        (", pacing = \"none\"", "pacing"),
        (", pacing = \"quic\"", "pacing"),
        (", prr = true", "prr"),
        (", startup = \"hystart\"", "startup"),
        (", restart = \"ssr\"", "restart"),
        (", rate_limited_increase = true", "rate_limited_increase"),
    ];
    for (extra, key) in refused {
        let e = rampup_sim::scenario::parse(&with(extra)).unwrap_err().to_string();
        assert!(e.starts_with(&format!("flow[0].tcp.{key}: ")) && !e.contains('\n'), "{extra}: {e}");
    }
}

/// The long-term (policer) sampling, off by default, is the part's key; the figures of
/// the one-flow path with it on are printed (docs/bbr.md on why it is off).
#[test]
fn long_term_sampling_is_a_key_of_the_part() {
    let text = scenario(1, &flow(0, "0s").replace("cc = \"bbr\"", "cc = { kind = \"bbr\", long_term = true }"), "20s");
    let tcp = &rampup_sim::scenario::parse(&text).expect("valid").flows[0].tcp;
    assert_eq!(format!("{:?}", tcp.cc), "Bbr(BbrConfig { long_term: true })");
    let out = run_toml(&text, None).expect("a valid scenario");
    let probe_bw = first_mode(&out, 0, "probe_bw").expect("DRAIN ends");
    let mut q = bottleneck_queue(&out, probe_bw + 1_000_000_000);
    println!(
        "long_term = true, one flow: last 10 s {:.2} Mb/s, {} retransmits, median queue in PROBE_BW {} packets",
        last_10_s(&out, 20)[0] / 1e6,
        out.table("flows").u64s("retransmits")[0],
        percentile(&mut q, 0.5)
    );
}

/// With `profile = "linux"` BBR takes the profile's segment size, timers and SACK, and
/// leaves out what Linux's `cong_control` bypasses (HyStart, PRR, the restart, the
/// rate-limited increase), as the kernel does with `tcp_bbr`.
#[test]
fn the_linux_profile_with_bbr_leaves_out_what_bbr_replaces() {
    let text = scenario(1, "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = { kind = \"bulk\" }\ntcp = { profile = \"linux\", cc = \"bbr\" }\n", "1s");
    let tcp = &rampup_sim::scenario::parse(&text).expect("valid").flows[0].tcp;
    let shown = format!(
        "{} {} {:?} {} {:?} {:?} {} {}",
        tcp.mss_bytes, tcp.initial_window_segments, tcp.startup, tcp.prr, tcp.restart, tcp.pacing, tcp.rate_limited_increase, tcp.rack_tlp
    );
    assert_eq!(shown, "1448 10 SlowStart(()) false Nssr Some(PacingConfig { rate: Linux, unpaced_segments: 10 }) false true");
}
