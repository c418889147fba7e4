//! A window beyond TCP's scaled 2^30 bytes (a scenario's `rcv_window` may be up to 2^32 − 1):
//! after a loss, what arrives more than 1 GiB beyond the hole is kept, so each lost segment
//! is resent once (the receiver's bound of 2^30, 5a26222 to c217bd3, dropped it, and the
//! flow went back to its hole by a timeout: 1,285 retransmissions for 4 losses).

use rampup_sim::run_toml;

#[test]
fn a_loss_with_more_than_a_gibibyte_in_flight_is_repaired_without_a_timeout() {
    // 100 Gb/s and 200 ms of RTT: a BDP of 2.5 GB, reached in the 6 s of slow start.
    let text = r#"
duration = "6s"
[topology]
kind = "dumbbell"
access_rate = "400Gbps"
access_delay = "1us"
bottleneck_rate = "100Gbps"
bottleneck_delay = "100ms"
bottleneck_queue = { packets = 100000 }
access_queue = { packets = 100000 }
loss = 0.00002
[tcp]
handshake = false
mss = 60000
rcv_window = 4000000000
initial_window = 10
[trace]
timeseries = false
queues = false
[[flow]]
from = "s0"
to = "r0"
app = { kind = "bulk" }
"#;
    let out = run_toml(text, None).unwrap();
    let flows = out.table("flows");
    let (timeouts, retransmits, drops) = (flows.u64s("timeouts")[0], flows.u64s("retransmits")[0], flows.u64s("drops")[0]);
    assert!(drops > 0, "the run must lose a segment to test anything");
    assert_eq!((timeouts, retransmits), (0, drops), "each lost segment resent once, by fast recovery");
    assert!(flows.u64s("bytes_received")[0] > 1 << 32, "more than 4 GiB delivered");
}
