//! RFC 6298's RTO against Linux's on a path whose RTT is near `min_rto` (issue: Linux's RTO
//! rule): request/response traffic, 20 KB every 0.5 s over a 200 ms RTT, delayed ACKs,
//! `min_rto = "200ms"`, no loss at all.

use rampup_sim::run_toml;

fn flows_with(rule: &str) -> (u64, u64, u64) {
    let schedule: Vec<String> = (0..100).map(|i| format!("{{ at = \"{}ms\", bytes = 20000 }}", 500 * i)).collect();
    let text = format!(
        r#"
duration = "60s"
[topology]
kind = "dumbbell"
access_rate = "100Mbps"
access_delay = "0.5ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "99ms"
bottleneck_queue = {{ packets = 100 }}
[[flow]]
from = "s0"
to = "r0"
app = {{ kind = "requests", schedule = [{}] }}
[flow.tcp]
min_rto = "200ms"
delayed_ack = true
restart = "nssr"
rto_rule = "{rule}"
[trace]
queues = false
timeseries = false
"#,
        schedule.join(", ")
    );
    let out = run_toml(&text, None).unwrap();
    let flows = out.table("flows");
    (flows.u64s("timeouts")[0], flows.u64s("retransmits")[0], flows.u64s("drops")[0])
}

#[test]
fn rfc6298_times_out_spuriously_where_linux_does_not() {
    // RFC 6298 §2: once RTTVAR has decayed on the steady path, RTO = max(200 ms, SRTT +
    // 4·RTTVAR) is about one RTT, and a request whose last ACK is delayed waits longer.
    let (timeouts, retransmits, drops) = flows_with("rfc6298");
    assert_eq!(drops, 0, "nothing was lost: every timeout is spurious");
    assert!(timeouts > 0 && retransmits > 0, "timeouts {timeouts}, retransmits {retransmits}");
    // tcp_rtt_estimator keeps rttvar >= min_rto: the RTO stays at least SRTT + 200 ms.
    assert_eq!(flows_with("linux"), (0, 0, 0));
}
