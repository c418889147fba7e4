//! Restart after idle on a dumbbell (the bottleneck of paper 000 §4.1: 800 kb/s, 100 ms one
//! way): one persistent connection sends a 24 KB response, idles 20 s and sends another.
//! What the sender does when the second response starts shows each restart policy; with a
//! 10 KB queue, the NSSR burst overflows it and the paced restarts do not.

use rampup_sim::{run_toml, RunOutput};

const MSS: u64 = 1000;
const SECOND_NS: u64 = 20_000_000_000;

fn scenario(restart: &str, queue: &str) -> String {
    format!(
        r#"
duration = "30s"
[topology]
kind = "dumbbell"
access_rate = "10Mbps"
access_delay = "1ms"
bottleneck_rate = "800kbps"
bottleneck_delay = "100ms"
bottleneck_queue = {queue}
[[flow]]
from = "s0"
to = "r0"
app = {{ kind = "writes", schedule = [ {{ at = "0s", bytes = 24000 }}, {{ at = "20s", bytes = 24000 }} ] }}
tcp = {{ restart = "{restart}", delayed_ack = true, max_window = 32, initial_ssthresh = 32 }}
[trace]
queues = false
"#
    )
}

struct Restarted {
    /// Segments the sender had sent by the end of the instant the second response started.
    burst_segments: u64,
    /// Departure offsets (from the second write) of the segments sent before the first ACK
    /// of the second response came back, as the on-change time series shows them.
    early_departures_ms: Vec<f64>,
    elapsed_s: f64,
    drops: u64,
}

fn run(restart: &str, queue: &str) -> Restarted {
    let out: RunOutput = run_toml(&scenario(restart, queue), Some(1)).expect("valid scenario");
    let ts = out.table("timeseries");
    let (t, nxt, una) = (ts.u64s("t_ns"), ts.u64s("snd_nxt"), ts.u64s("snd_una"));
    let at_write = t.iter().position(|&x| x >= SECOND_NS).expect("rows after the second write");
    let una0 = una[at_write];
    let mut burst_segments = 0;
    let mut early = Vec::new();
    let mut last_nxt = una0;
    for i in at_write..t.len() {
        if una[i] > una0 {
            break; // the first ACK of the second response
        }
        if t[i] == SECOND_NS {
            burst_segments = (nxt[i] - una0) / MSS;
        }
        if nxt[i] > last_nxt {
            early.push((t[i] - SECOND_NS) as f64 / 1e6);
            last_nxt = nxt[i];
        }
    }
    let tr = out.table("transfers");
    Restarted { burst_segments, early_departures_ms: early, elapsed_s: tr.f64s("elapsed_s")[1], drops: tr.u64s("drops")[1] }
}

const BIG_QUEUE: &str = "{ packets = 1000 }";
const SMALL_QUEUE: &str = "{ bytes = 10000 }";

#[test]
fn four_restart_policies_on_a_dumbbell() {
    let nssr = run("nssr", BIG_QUEUE);
    let ssr = run("ssr", BIG_QUEUE);
    let rate = run("rbp-rate", BIG_QUEUE);
    let cwnd = run("rbp-cwnd", BIG_QUEUE);
    for (name, r) in [("nssr", &nssr), ("ssr", &ssr), ("rbp-rate", &rate), ("rbp-cwnd", &cwnd)] {
        println!("{name:9} burst {:2} segments, elapsed {:.3} s, early departures (ms) {:?}", r.burst_segments, r.elapsed_s, r.early_departures_ms);
    }
    assert!(nssr.burst_segments > 10, "NSSR keeps the window of the first response");
    assert_eq!(ssr.burst_segments, 2, "SSR restarts from the initial window");
    for r in [&rate, &cwnd] {
        assert_eq!(r.burst_segments, 1, "RBP sends one segment, then paces");
        let d = &r.early_departures_ms;
        assert!(d.len() >= 2, "at least two paced segments: {d:?}");
        let gaps: Vec<f64> = d.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|g| (g - gaps[0]).abs() < 1e-6), "evenly spaced: {d:?}");
    }
    assert!(cwnd.early_departures_ms.len() as u64 <= nssr.burst_segments, "RBP/cwnd never sends more than NSSR");
    assert!(nssr.elapsed_s < cwnd.elapsed_s && cwnd.elapsed_s < ssr.elapsed_s);
    assert!(rate.elapsed_s < ssr.elapsed_s);
}

#[test]
fn small_queue_drops_the_nssr_burst_but_not_the_paced_restart() {
    let nssr = run("nssr", SMALL_QUEUE);
    let ssr = run("ssr", SMALL_QUEUE);
    let rate = run("rbp-rate", SMALL_QUEUE);
    let cwnd = run("rbp-cwnd", SMALL_QUEUE);
    for (name, r) in [("nssr", &nssr), ("ssr", &ssr), ("rbp-rate", &rate), ("rbp-cwnd", &cwnd)] {
        println!("{name:9} drops {:2}, elapsed {:.3} s", r.drops, r.elapsed_s);
    }
    assert!(nssr.drops > 0, "a window-sized burst overflows a 10 KB queue");
    assert!(rate.drops < nssr.drops && cwnd.drops < nssr.drops);
}

#[test]
fn restart_keys_accept_names_and_times_and_reject_the_rest() {
    let with = |tcp: &str| scenario("ssr", BIG_QUEUE).replace("restart = \"ssr\"", tcp);
    for ok in ["restart = \"ssr-linux\", idle_threshold = \"rto\"", "restart = { kind = \"rbp-cwnd\", scale = 0.75 }, idle_threshold = \"500ms\""] {
        rampup_sim::check_toml(&with(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    for (bad, key) in [
        ("restart = \"slow\"", "flow[0].tcp.restart"),
        ("restart = { kind = \"rbp-rate\", scale = 0.0 }", "flow[0].tcp.restart.scale"),
        ("idle_threshold = \"soon\"", "flow[0].tcp.idle_threshold"),
    ] {
        let e = rampup_sim::check_toml(&with(bad)).expect_err(bad).to_string();
        assert!(e.starts_with(key) && !e.contains('\n'), "{bad}: {e}");
    }
}
