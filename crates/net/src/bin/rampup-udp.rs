//! rampup-udp: one end of a rampup TCP connection over UDP (docs/testbed.md).
//!
//!     rampup-udp serve BIND [TCP]               wait for one connection, read until the peer closes, close
//!     rampup-udp send BIND PEER WRITES [TCP]    connect, make the writes, close, wait until closed
//!     rampup-udp answer BIND EXCHANGE [TCP]     wait for one connection; answer each request; close after the peer
//!     rampup-udp ask BIND PEER EXCHANGE [TCP]   connect, make the requests one after another, close
//!
//! WRITES is BYTES, or BYTES@SECONDS,... : each write at its time after the start (or when the
//! one before is acknowledged, if later). EXCHANGE is REQUEST:RESPONSE[xPAIRS]
//! in bytes, with @THINK (seconds) for a delay before each response: the simulator's
//! `request-response` application with `close = "client"` and `think`. The asking end writes
//! a request once connected and each next one when the whole response is in; the answering
//! end writes a response THINK after each whole request is in. TCP is a flow's `tcp`
//! table as a scenario writes it, inline (`profile = "linux", mss = 1416`), read as the
//! simulator reads it. Each prints one line of `key=value` results when done: the time from
//! its start to the end (ms), each write's time from the write to the ACK of its last byte or
//! each request's from its write to the last byte of its response (`transfers_ms`; the
//! simulator's transfers table's `elapsed_s`, and for a request-response flow, its connection's
//! `last_byte_down_ns` − `established_ns` over all exchanges), bytes, retransmissions, timeouts,
//! and datagrams refused and corrupt.
//!
//! `--stall-limit SECONDS` (anywhere on the line; 30 by default) ends a connection that makes no
//! progress for that long, its handshake included, with a one-line error and exit status 2;
//! it must exceed the application's own pauses (think times, gaps between writes).

use std::net::SocketAddr;
use std::process::exit;

use rampup_net::{RunError, UdpEnd};
use rampup_tcp::time::Duration;
use rampup_tcp::{Role, State, TcpConfig, Time};

const USAGE: &str = "usage: rampup-udp serve BIND [TCP] | rampup-udp send BIND PEER BYTES[@SECONDS][,...] [TCP] | \
rampup-udp answer BIND REQUEST:RESPONSE[xPAIRS][@THINK] [TCP] | rampup-udp ask BIND PEER REQUEST:RESPONSE[xPAIRS][@THINK] [TCP]; \
each with [--stall-limit SECONDS]";
/// Give up after this long on the end's clock.
const LIMIT: Duration = Duration::from_secs(600);
/// `--stall-limit`'s default: six times the longest pause the testbed's experiments make by
/// design (the exchange's 5 s of thought), and long enough for four retransmissions backed off
/// from a 1 s RTO (RFC 6298 §5.5: at 1, 3, 7 and 15 s) to go unanswered before the path is
/// taken to be gone.
const STALL_LIMIT: Duration = Duration::from_secs(30);

fn fail(message: &str) -> ! {
    eprintln!("rampup-udp: {message}");
    exit(2)
}

/// The connection's end on an error: the run's, or a stall's (with the flag that sets it).
fn failed<T>(e: RunError) -> T {
    match e {
        RunError::Stalled { .. } => fail(&format!("{e}; --stall-limit sets the limit")),
        RunError::Io(e) => fail(&e.to_string()),
    }
}

/// `--stall-limit SECONDS` taken out of `args`, or the default.
fn stall_limit(args: &mut Vec<String>) -> Duration {
    let Some(at) = args.iter().position(|a| a == "--stall-limit") else { return STALL_LIMIT };
    let seconds = args.get(at + 1).and_then(|s| s.parse::<f64>().ok()).filter(|s| s.is_finite() && *s > 0.0);
    let Some(seconds) = seconds else { fail(&format!("--stall-limit takes a number of seconds above 0; {USAGE}")) };
    args.drain(at..at + 2);
    Duration((seconds * 1e9) as u64)
}

fn addr(text: &str) -> SocketAddr {
    text.parse().unwrap_or_else(|_| fail(&format!("{text:?} is not an address like 10.77.0.2:9000; {USAGE}")))
}

/// The `tcp` table `keys`, as a one-flow scenario gives it to its flow.
fn tcp_config(keys: Option<&String>) -> TcpConfig {
    let text = format!(
        "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\nbottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"1ms\"\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ {} }}\n",
        keys.map_or("", |k| k.as_str())
    );
    match rampup_sim::scenario::parse(&text) {
        Ok(s) => s.flows[0].tcp.clone(),
        Err(e) => fail(&e.to_string().replace("flow[0].tcp", "TCP")),
    }
}

/// `BYTES[@SECONDS],...`: (bytes, when after the start).
fn writes(text: &str) -> Vec<(u64, Time)> {
    let one = |w: &str| -> Option<(u64, Time)> {
        let (bytes, at) = w.split_once('@').unwrap_or((w, "0"));
        let at: f64 = at.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
        Some((bytes.parse().ok().filter(|b| *b > 0)?, Time((at * 1e9) as u64)))
    };
    text.split(',').map(|w| one(w).unwrap_or_else(|| fail(&format!("WRITES: {w:?} is not BYTES or BYTES@SECONDS; {USAGE}")))).collect()
}

/// One side's view of `REQUEST:RESPONSE[xPAIRS][@THINK]`.
struct Exchange {
    request: u64,
    response: u64,
    pairs: u64,
    /// The answering end's delay before each response, from the whole request in.
    think: Duration,
}

fn exchange(text: &str) -> Exchange {
    let parsed = || -> Option<Exchange> {
        let (sizes, think) = text.split_once('@').unwrap_or((text, "0"));
        let think: f64 = think.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
        let (req, rest) = sizes.split_once(':')?;
        let (resp, pairs) = rest.split_once('x').unwrap_or((rest, "1"));
        let positive = |t: &str| t.parse::<u64>().ok().filter(|n| *n > 0);
        Some(Exchange { request: positive(req)?, response: positive(resp)?, pairs: positive(pairs)?, think: Duration((think * 1e9) as u64) })
    };
    parsed().unwrap_or_else(|| fail(&format!("EXCHANGE: {text:?} is not REQUEST:RESPONSE[xPAIRS][@THINK] (bytes, pairs, seconds); {USAGE}")))
}

fn report(end: &UdpEnd, done: bool, transfers_ms: &[f64]) {
    let s = end.endpoint().stats();
    let transfers: Vec<String> = transfers_ms.iter().map(|ms| format!("{ms:.3}")).collect();
    println!(
        "done={done} ms={:.3} transfers_ms={} bytes_received={} bytes_acked={} retransmits={} timeouts={} refused={} corrupt={} send_dropped={}",
        end.now().as_secs_f64() * 1e3,
        transfers.join(","),
        end.endpoint().bytes_received(),
        end.endpoint().bytes_acked(),
        s.retransmits,
        s.timeouts,
        end.refused,
        end.corrupt,
        end.send_dropped
    );
}

fn main() {
    rampup_net::run_realtime("rampup-udp");
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let stall = stall_limit(&mut args);
    let until = Time(LIMIT.0);
    let bind = |a: &str, cfg, role, peer| {
        let mut end = UdpEnd::bind(addr(a), cfg, role, peer).unwrap_or_else(|e| fail(&format!("cannot bind {a}: {e}")));
        end.stall_limit = Some(stall);
        end
    };
    match args.first().map(String::as_str) {
        Some("serve") if (2..=3).contains(&args.len()) => {
            let mut end = bind(&args[1], tcp_config(args.get(2)), Role::Passive, None);
            println!("ready");
            let mut done = end.run_until(until, |ep| ep.state().peer_finished()).unwrap_or_else(failed);
            end.close();
            done &= end.run_until(until, |ep| ep.state() == State::Closed).unwrap_or_else(failed);
            report(&end, done, &[]);
        }
        Some("send") if (4..=5).contains(&args.len()) => {
            let schedule = writes(&args[3]);
            let mut end = bind(&args[1], tcp_config(args.get(4)), Role::Active, Some(addr(&args[2])));
            let run = |end: &mut UdpEnd, t: Time, done: &dyn Fn(&rampup_tcp::Endpoint) -> bool| end.run_until(t, done).unwrap_or_else(failed);
            let (mut total, mut transfers_ms, mut done) = (0, Vec::new(), true);
            for (bytes, at) in schedule {
                run(&mut end, at, &|_| false);
                let wrote = end.now();
                end.write(bytes);
                total += bytes;
                done &= run(&mut end, until, &|ep| ep.bytes_acked() >= total);
                transfers_ms.push(end.now().since(wrote).as_secs_f64() * 1e3);
            }
            end.close();
            done &= run(&mut end, until, &|ep| ep.all_acked());
            report(&end, done, &transfers_ms);
            // Stay for the peer's FIN and TIME-WAIT's ACKs, not counted in the time above.
            let _ = end.run_until(Time(end.now().0 + Duration::from_secs(2).0), |ep| ep.state() == State::Closed);
        }
        Some("answer") if (3..=4).contains(&args.len()) => {
            let Exchange { request, response, think, .. } = exchange(&args[2]);
            let mut end = bind(&args[1], tcp_config(args.get(3)), Role::Passive, None);
            println!("ready");
            let mut answered = 0;
            let mut done = true;
            loop {
                let whole = (answered + 1) * request;
                done &= end.run_until(until, |ep| ep.bytes_received() >= whole || ep.state().peer_finished()).unwrap_or_else(failed);
                if end.endpoint().bytes_received() < whole || !done {
                    break;
                }
                let at = Time(end.now().0 + think.0);
                let _ = end.run_until(at, |_| false).unwrap_or_else(failed);
                end.write(response);
                answered += 1;
            }
            end.close();
            done &= end.run_until(until, |ep| ep.state() == State::Closed).unwrap_or_else(failed);
            report(&end, done, &[]);
        }
        Some("ask") if (4..=5).contains(&args.len()) => {
            let Exchange { request, response, pairs, .. } = exchange(&args[3]);
            let mut end = bind(&args[1], tcp_config(args.get(4)), Role::Active, Some(addr(&args[2])));
            let run = |end: &mut UdpEnd, done: &dyn Fn(&rampup_tcp::Endpoint) -> bool| end.run_until(until, done).unwrap_or_else(failed);
            let mut done = run(&mut end, &|ep| ep.state() >= State::Established);
            let mut exchanges_ms = Vec::new();
            for k in 1..=pairs {
                if !done {
                    break;
                }
                let wrote = end.now();
                end.write(request);
                done &= run(&mut end, &|ep| ep.bytes_received() >= k * response);
                exchanges_ms.push(end.now().since(wrote).as_secs_f64() * 1e3);
            }
            end.close();
            done &= run(&mut end, &|ep| ep.all_acked());
            report(&end, done, &exchanges_ms);
            // Stay for the peer's FIN and TIME-WAIT's ACKs, not counted in the time above.
            let _ = end.run_until(Time(end.now().0 + Duration::from_secs(2).0), |ep| ep.state() == State::Closed);
        }
        _ => fail(USAGE),
    }
}
