//! Faults on the path that once wedged a transfer over UDP: a stray SYN that reaches the
//! passive end before its client, and ACK numbers with a bit flipped on the way. Each
//! transfer must still finish, well before its limit; and a peer that never answers ends the
//! run at the stall limit, in one line.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, UdpSocket};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::Instant;

use rampup_net::UdpEnd;
use rampup_tcp::segment::{Flags, Segment};
use rampup_tcp::time::Duration;
use rampup_tcp::{wire, RecoveryKind, Role, State, TcpConfig, Time};

const BYTES: u64 = 1_000_000;
const LOCALHOST: &str = "127.0.0.1:0";
/// Each end gives up after this long on its clock.
const LIMIT: Duration = Duration::from_secs(60);
/// The relay's one-way delay: a hole in the data lasts an RTT, long enough for ACKs to
/// arrive while it is open.
const DELAY: std::time::Duration = std::time::Duration::from_millis(10);
/// The relay's loss, as a queue on a real path would drop.
const LOSS_PERCENT: u64 = 1;
/// A flip falls on one of the ACK number's low bits: one above the flight's size makes an
/// ACK of data never sent or of data long acknowledged, which the sender ignores anyway.
const FLIP_BITS: u64 = 20;
/// Where the ACK number lies in a datagram (`rampup_tcp::wire`).
const ACK_FIELD: std::ops::Range<usize> = 16..24;

fn config() -> TcpConfig {
    TcpConfig { recovery: RecoveryKind::Sack, rack_tlp: true, mss_bytes: 1400, time_wait: Duration::from_millis(100), ..TcpConfig::default() }
}

/// A fixed generator (SplitMix64), so that a run's faults are the same every time.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A relay between a client and `server` that loses `LOSS_PERCENT` % of the datagrams and
/// flips one bit of the ACK number in `percent` % of the others, both ways. The client
/// sends to `Relay::addr`. The loss is what makes a flip harmful: an ACK raised by a flip
/// acknowledges data the receiver may not have, and if that data was lost, the sender never
/// sends it again (over a path without loss the data arrives anyway).
struct Relay {
    addr: SocketAddr,
    flipped: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl Relay {
    fn start(server: SocketAddr, percent: u64, seed: u64) -> Relay {
        let facing_client = UdpSocket::bind(LOCALHOST).expect("bind");
        let facing_server = UdpSocket::bind(LOCALHOST).expect("bind");
        let addr = facing_client.local_addr().expect("addr");
        let client: Arc<OnceLock<SocketAddr>> = Arc::default();
        let (flipped, stop): (Arc<AtomicU64>, Arc<AtomicBool>) = Default::default();
        let ways = [(facing_client.try_clone().expect("clone"), facing_server.try_clone().expect("clone"), true), (facing_server, facing_client, false)];
        for (k, (from, to, upstream)) in ways.into_iter().enumerate() {
            let (client, flipped, stop) = (client.clone(), flipped.clone(), stop.clone());
            thread::spawn(move || {
                let (mut rng, mut d) = (Rng(seed + k as u64), vec![0u8; 65_535]);
                let mut held: VecDeque<(Instant, Vec<u8>)> = VecDeque::new();
                while !stop.load(Ordering::Relaxed) {
                    let now = Instant::now();
                    while held.front().is_some_and(|(at, _)| *at <= now) {
                        let (_, bytes) = held.pop_front().expect("a datagram");
                        let dest = if upstream { server } else { *client.get().expect("the client spoke first") };
                        let _ = to.send_to(&bytes, dest);
                    }
                    let wait = held.front().map_or(std::time::Duration::from_millis(20), |(at, _)| at.saturating_duration_since(now));
                    from.set_read_timeout(Some(wait.max(std::time::Duration::from_micros(1)))).expect("timeout");
                    let Ok((n, sender)) = from.recv_from(&mut d) else { continue };
                    if upstream {
                        client.get_or_init(|| sender);
                    }
                    if rng.next() % 100 < LOSS_PERCENT {
                        continue;
                    }
                    if n >= ACK_FIELD.end && rng.next() % 100 < percent {
                        let bit = rng.next() % FLIP_BITS;
                        // Big-endian: the low bits are in the last bytes.
                        d[ACK_FIELD.end - 1 - (bit / 8) as usize] ^= 1 << (bit % 8);
                        flipped.fetch_add(1, Ordering::Relaxed);
                    }
                    held.push_back((Instant::now() + DELAY, d[..n].to_vec()));
                }
            });
        }
        Relay { addr, flipped, stop }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// How one transfer of `BYTES` went.
#[derive(Debug)]
struct Outcome {
    /// Both ends closed within the limit.
    done: bool,
    /// From the client's start to the ACK of its last byte and FIN.
    ms: f64,
    received: u64,
    /// Datagrams each end refused as corrupt, and the server's refused otherwise.
    corrupt: u64,
    refused: u64,
    /// The client's retransmissions and retransmission timeouts.
    retransmits: u64,
    timeouts: u64,
}

/// The client writes `BYTES` to `server` (at `to`, directly or through a relay) and
/// closes; the server reads until the client's FIN, closes, and both wait for Closed.
fn transfer(mut server: UdpEnd, to: SocketAddr) -> Outcome {
    let until = Time(LIMIT.0);
    let serving = thread::spawn(move || {
        let got = server.run_until(until, |ep| ep.state().peer_finished()).expect("server runs");
        server.close();
        let closed = server.run_until(until, |ep| ep.state() == State::Closed).expect("server runs");
        (got && closed, server)
    });
    let started = Instant::now();
    let mut client = UdpEnd::bind(LOCALHOST.parse().unwrap(), config(), Role::Active, Some(to)).expect("bind");
    client.write(BYTES);
    client.close();
    let acked = client.run_until(until, |ep| ep.all_acked()).expect("client runs");
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let closed = client.run_until(until, |ep| ep.state() == State::Closed).expect("client runs");
    let (served, server) = serving.join().expect("server thread");
    let received = server.endpoint().bytes_received();
    let stats = client.endpoint().stats();
    Outcome {
        done: acked && closed && served,
        ms,
        received,
        corrupt: client.corrupt + server.corrupt,
        refused: server.refused,
        retransmits: stats.retransmits,
        timeouts: stats.timeouts,
    }
}

fn server() -> UdpEnd {
    UdpEnd::bind(LOCALHOST.parse().unwrap(), config(), Role::Passive, None).expect("bind")
}

/// A transfer straight to a fresh server, `before` given the server's address first.
fn direct(before: impl FnOnce(SocketAddr)) -> Outcome {
    let s = server();
    let at = s.local_addr().expect("addr");
    before(at);
    transfer(s, at)
}

/// A transfer through a relay that flips `percent` % of the ACK numbers; with the count of
/// datagrams flipped.
fn relayed(percent: u64) -> (Outcome, u64) {
    let s = server();
    let relay = Relay::start(s.local_addr().expect("addr"), percent, 7);
    let out = transfer(s, relay.addr);
    (out, relay.flipped.load(Ordering::Relaxed))
}

/// A SYN, as the wire carries it, with a valid checksum.
fn syn() -> Vec<u8> {
    let mut d = Vec::new();
    wire::emit(&Segment { window: 65_535, flags: Flags { syn: true, ..Flags::default() }, ..Segment::default() }, &mut d);
    d
}

/// A SYN from another port before the client's opens a handshake of its own: the passive end
/// binds the client, whose handshake completes, and the stray's goes with it.
#[test]
fn a_stray_syn_before_the_client_does_not_take_the_passive_end() {
    let clean = direct(|_| {});
    let stray = UdpSocket::bind(LOCALHOST).expect("bind");
    let faulty = direct(|at| {
        stray.send_to(&syn(), at).expect("the stray SYN");
    });
    eprintln!("stray SYN: {:.1} ms without, {:.1} ms with ({faulty:?})", clean.ms, faulty.ms);
    assert!(clean.done && faulty.done, "without {clean:?}, with {faulty:?}");
    assert_eq!((clean.received, faulty.received), (BYTES, BYTES));
    assert_eq!(faulty.refused, 0, "the stray's SYN opened a handshake of its own");
    let mut answer = [0u8; 100];
    stray.set_nonblocking(true).expect("nonblocking");
    let (n, _) = stray.recv_from(&mut answer).expect("the stray's SYN-ACK");
    assert!(wire::parse(&answer[..n]).is_ok_and(|s| s.flags.syn && s.flags.ack), "a SYN-ACK to the stray");
}

/// A stray SYN between the client's SYN and its ACK: each opens a handshake of its own, the
/// client's completes and binds the peer, and the stray is refused from then on.
#[test]
fn a_stray_syn_during_the_handshake_does_not_take_the_passive_end() {
    let mut s = server();
    let at = s.local_addr().expect("addr");
    let (client, stray) = (UdpSocket::bind(LOCALHOST).expect("bind"), UdpSocket::bind(LOCALHOST).expect("bind"));
    client.send_to(&syn(), at).expect("the client's SYN");
    stray.send_to(&syn(), at).expect("the stray SYN");
    let serving = thread::spawn(move || {
        let until = Time(LIMIT.0);
        let got = s.run_until(until, |ep| ep.state().peer_finished()).expect("server runs");
        // A while more, for the stray's second SYN.
        let a_while = s.now() + Duration::from_millis(200);
        s.run_until(a_while, |_| false).expect("server runs");
        (got, s.endpoint().bytes_received(), s.refused)
    });
    let mut d = [0u8; 100];
    for socket in [&client, &stray] {
        let (n, _) = socket.recv_from(&mut d).expect("a SYN-ACK");
        assert!(wire::parse(&d[..n]).is_ok_and(|seg| seg.flags.syn && seg.flags.ack && seg.ack == 1), "a SYN-ACK to each");
    }
    let mut data = Vec::new();
    let flags = Flags { ack: true, psh: true, fin: true, ..Flags::default() };
    wire::emit(&Segment { seq: 1, ack: 1, len: 1000, window: 65_535, flags, ..Segment::default() }, &mut data);
    client.send_to(&data, at).expect("the client's ACK, data and FIN");
    thread::sleep(std::time::Duration::from_millis(50));
    stray.send_to(&syn(), at).expect("the stray's second SYN");
    let (got, received, refused) = serving.join().expect("server thread");
    assert!(got && received == 1000, "the client's FIN {got}, {received} bytes");
    assert_eq!(refused, 1, "the stray's second SYN");
}

/// One of the ACK number's low bits flipped in 5 % of the datagrams, both ways, over a path
/// that loses 1 %: each flipped datagram is refused as corrupt, and the transfer goes on as
/// over a path that lost it. (Before the checksum the sender took a raised ACK as the
/// receiver's and never sent the lost data it covered again.)
#[test]
fn flipped_ack_numbers_do_not_wedge_a_transfer() {
    let (clean, _) = relayed(0);
    let (faulty, flipped) = relayed(5);
    eprintln!(
        "flipped ACKs: {:.1} ms without ({} retransmits, {} timeouts), {:.1} ms with ({flipped} datagrams flipped, {} refused as corrupt, {} retransmits, {} timeouts)",
        clean.ms, clean.retransmits, clean.timeouts, faulty.ms, faulty.corrupt, faulty.retransmits, faulty.timeouts
    );
    assert!(clean.done && faulty.done, "without {clean:?}, with {faulty:?}");
    assert_eq!((clean.received, faulty.received), (BYTES, BYTES));
    assert_eq!(clean.corrupt, 0);
    assert!(faulty.corrupt > 0 && faulty.corrupt <= flipped, "{} refused as corrupt of {flipped} flipped", faulty.corrupt);
}

const BIN: &str = env!("CARGO_BIN_EXE_rampup-udp");

fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace().find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('='))).unwrap_or_else(|| panic!("no {key} in {line}"))
}

/// `rampup-udp serve` given a stray SYN before `send` arrives serves `send` all the same.
#[test]
fn rampup_udp_serves_its_client_after_a_stray_syn() {
    let port = UdpSocket::bind(LOCALHOST).and_then(|s| s.local_addr()).expect("a free port").port();
    let at = format!("127.0.0.1:{port}");
    let mut serve = Command::new(BIN).args(["serve", &at]).stdout(Stdio::piped()).spawn().expect("serve starts");
    let mut lines = BufReader::new(serve.stdout.take().expect("stdout")).lines();
    assert_eq!(lines.next().expect("a line").expect("text"), "ready");
    let stray = UdpSocket::bind(LOCALHOST).expect("bind");
    stray.send_to(&syn(), &at).expect("the stray SYN");
    let send = Command::new(BIN).args(["send", "127.0.0.1:0", &at, "300000", "--stall-limit", "10"]).output().expect("send runs");
    assert!(send.status.success(), "{}", String::from_utf8_lossy(&send.stderr));
    let sent = String::from_utf8(send.stdout).expect("text");
    eprintln!("send after a stray SYN: {sent}");
    assert_eq!((field(&sent, "done"), field(&sent, "bytes_acked")), ("true", "300000"), "{sent}");
    let served = lines.next().expect("a report").expect("text");
    assert!(serve.wait().expect("serve ends").success());
    assert_eq!((field(&served, "done"), field(&served, "bytes_received")), ("true", "300000"), "{served}");
}

/// A peer that never answers ends the end at the stall limit, with one line on stderr and
/// status 2, not at the run's 600 s.
#[test]
fn a_silent_peer_ends_at_the_stall_limit_in_one_line() {
    let silent = UdpSocket::bind(LOCALHOST).expect("bind");
    let to = silent.local_addr().expect("addr").to_string();
    let started = Instant::now();
    let out = Command::new(BIN).args(["send", "127.0.0.1:0", &to, "1000", "--stall-limit", "1.5"]).output().expect("runs");
    let took = started.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    eprintln!("after {took:.2} s: {err}");
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("rampup-udp: no progress for 1.5 s in SynSent") && err.contains("--stall-limit"), "{err}");
    assert!((1.5..5.0).contains(&took), "ended after {took:.2} s");
    let bad = Command::new(BIN).args(["send", "127.0.0.1:0", &to, "1000", "--stall-limit", "0"]).output().expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--stall-limit takes a number of seconds above 0"));
}
