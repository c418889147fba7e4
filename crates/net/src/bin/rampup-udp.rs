//! rampup-udp: one end of a rampup TCP connection over UDP (docs/testbed.md).
//!
//!     rampup-udp serve BIND [TCP]            wait for one connection, read until the peer closes, close
//!     rampup-udp send BIND PEER BYTES [TCP]  connect, write BYTES, close, wait until closed
//!
//! TCP is a flow's `tcp` table as a scenario writes it, inline (`profile = "linux", mss = 1416`),
//! read as the simulator reads it. Each prints one line of `key=value` results when done: the
//! time from its start to the end (ms), bytes, retransmissions, timeouts and datagrams refused.

use std::net::SocketAddr;
use std::process::exit;

use rampup_net::UdpEnd;
use rampup_tcp::time::Duration;
use rampup_tcp::{Role, State, TcpConfig, Time};

const USAGE: &str = "usage: rampup-udp serve BIND [TCP] | rampup-udp send BIND PEER BYTES [TCP]";
/// Give up after this long on the end's clock.
const LIMIT: Duration = Duration::from_secs(600);

fn fail(message: &str) -> ! {
    eprintln!("rampup-udp: {message}");
    exit(2)
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

fn report(end: &UdpEnd, done: bool) {
    let s = end.endpoint().stats();
    println!(
        "done={done} ms={:.3} bytes_received={} bytes_acked={} retransmits={} timeouts={} refused={} send_dropped={}",
        end.now().as_secs_f64() * 1e3,
        end.endpoint().bytes_received(),
        end.endpoint().bytes_acked(),
        s.retransmits,
        s.timeouts,
        end.refused,
        end.send_dropped
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let until = Time(LIMIT.0);
    let bind = |a: &str, cfg, role, peer| UdpEnd::bind(addr(a), cfg, role, peer).unwrap_or_else(|e| fail(&format!("cannot bind {a}: {e}")));
    match args.first().map(String::as_str) {
        Some("serve") if (2..=3).contains(&args.len()) => {
            let mut end = bind(&args[1], tcp_config(args.get(2)), Role::Passive, None);
            println!("ready");
            let mut done = end.run_until(until, |ep| ep.state().peer_finished()).unwrap_or_else(|e| fail(&e.to_string()));
            end.endpoint_mut().close();
            done &= end.run_until(until, |ep| ep.state() == State::Closed).unwrap_or_else(|e| fail(&e.to_string()));
            report(&end, done);
        }
        Some("send") if (4..=5).contains(&args.len()) => {
            let bytes: u64 = args[3].parse().unwrap_or_else(|_| fail(&format!("BYTES: {:?} is not a whole number; {USAGE}", args[3])));
            let mut end = bind(&args[1], tcp_config(args.get(4)), Role::Active, Some(addr(&args[2])));
            end.endpoint_mut().write(bytes);
            end.endpoint_mut().close();
            let done = end.run_until(until, |ep| ep.all_acked()).unwrap_or_else(|e| fail(&e.to_string()));
            report(&end, done);
            // Stay for the peer's FIN and TIME-WAIT's ACKs, not counted in the time above.
            let _ = end.run_until(Time(end.now().0 + Duration::from_secs(2).0), |ep| ep.state() == State::Closed);
        }
        _ => fail(USAGE),
    }
}
