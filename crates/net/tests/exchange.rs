//! `rampup-udp answer` and `ask` over the loopback interface: the request/response application
//! the simulator's `request-response` flows run (`close = "client"`), between two processes.

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_rampup-udp");

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace().find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('='))).unwrap_or_else(|| panic!("no {key} in {line}"))
}

/// Three requests of 100 bytes, each answered by 30,000 after 50 ms of think time: the asking
/// end receives every response byte, the answering end every request byte, and each exchange
/// is timed, the think time in it.
#[test]
fn three_requests_are_each_answered_whole() {
    // A free port for the answering end, found by binding one and letting it go.
    let port = UdpSocket::bind("127.0.0.1:0").and_then(|s| s.local_addr()).expect("a free port").port();
    let at = format!("127.0.0.1:{port}");
    let mut answer = Command::new(BIN).args(["answer", &at, "100:30000@0.05"]).stdout(Stdio::piped()).spawn().expect("answer starts");
    let mut lines = BufReader::new(answer.stdout.take().expect("stdout")).lines();
    assert_eq!(lines.next().expect("a line").expect("text"), "ready");
    let ask = Command::new(BIN).args(["ask", "127.0.0.1:0", &at, "100:30000x3"]).output().expect("ask runs");
    assert!(ask.status.success(), "{}", String::from_utf8_lossy(&ask.stderr));
    let asked = String::from_utf8(ask.stdout).expect("text");
    assert_eq!(field(&asked, "done"), "true", "{asked}");
    assert_eq!(field(&asked, "bytes_received"), "90000");
    assert_eq!(field(&asked, "bytes_acked"), "300");
    let exchanges_ms: Vec<f64> = field(&asked, "transfers_ms").split(',').map(|ms| ms.parse().expect("ms")).collect();
    assert_eq!(exchanges_ms.len(), 3, "one time per exchange");
    assert!(exchanges_ms.iter().all(|ms| *ms >= 50.0), "each exchange waits out the think time: {exchanges_ms:?}");
    let answered = lines.next().expect("a report").expect("text");
    assert!(answer.wait().expect("answer ends").success());
    assert_eq!((field(&answered, "done"), field(&answered, "bytes_received"), field(&answered, "bytes_acked")), ("true", "300", "90000"));
}

#[test]
fn a_malformed_exchange_is_refused_with_the_usage() {
    let out = Command::new(BIN).args(["ask", "127.0.0.1:0", "127.0.0.1:9", "100:"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("EXCHANGE") && err.contains("REQUEST:RESPONSE"), "{err}");
}

#[test]
fn a_negative_think_time_is_refused() {
    let out = Command::new(BIN).args(["answer", "127.0.0.1:0", "100:200@-1"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("@THINK"));
}
