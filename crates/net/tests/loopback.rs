//! Two ends over UDP on the loopback interface, each in its own thread and on its own wall
//! clock, as they would run in two network namespaces.

use std::net::SocketAddr;
use std::thread;

use rampup_net::UdpEnd;
use rampup_tcp::time::Duration;
use rampup_tcp::{RecoveryKind, Role, State, TcpConfig, Time};

const BYTES: u64 = 2_000_000;
const LOCALHOST: &str = "127.0.0.1:0";

fn config(recovery: RecoveryKind) -> TcpConfig {
    TcpConfig { recovery, mss_bytes: 1400, time_wait: Duration::from_millis(100), ..TcpConfig::default() }
}

/// The client writes 2 MB and closes; the server receives every byte in order, closes, and
/// both reach Closed: the handshake, data, FIN exchange and TIME-WAIT over a real socket.
#[test]
fn a_transfer_over_udp_delivers_every_byte_and_both_ends_close() {
    for recovery in [RecoveryKind::NewReno, RecoveryKind::Sack] {
        let until = Time(Duration::from_secs(30).0);
        let mut server = UdpEnd::bind(LOCALHOST.parse().unwrap(), config(recovery), Role::Passive, None).expect("bind");
        let to: SocketAddr = server.local_addr().unwrap();
        let serving = thread::spawn(move || {
            let got = server.run_until(until, |ep| ep.state().peer_finished()).expect("server runs");
            assert!(got, "the client's FIN did not arrive");
            server.close();
            server.run_until(until, |ep| ep.state() == State::Closed).expect("server closes");
            (server.endpoint().bytes_received(), server.endpoint().state(), server.refused)
        });
        let mut client = UdpEnd::bind(LOCALHOST.parse().unwrap(), config(recovery), Role::Active, Some(to)).expect("bind");
        client.write(BYTES);
        client.close();
        let closed = client.run_until(until, |ep| ep.state() == State::Closed).expect("client runs");
        let (received, server_state, refused) = serving.join().expect("server thread");
        assert!(closed, "{recovery:?}: the client ended in {:?}", client.endpoint().state());
        assert_eq!((received, server_state, refused), (BYTES, State::Closed, 0), "{recovery:?}");
        assert_eq!(client.endpoint().bytes_acked(), BYTES);
    }
}

/// The end wakes for its time within a fraction of a millisecond (a timerfd beside the
/// socket): mio's poll alone waits in whole milliseconds, so a wait of 2.3 ms would end at
/// 3 ms, 0.7 ms late, every time.
#[test]
fn a_wait_ends_within_a_fraction_of_a_millisecond_of_its_time() {
    let mut end = UdpEnd::bind("127.0.0.1:0".parse().unwrap(), TcpConfig::default(), Role::Passive, None).unwrap();
    let mut late_us: Vec<u64> = (0..21)
        .map(|_| {
            let until = Time(end.now().0 + Duration::from_micros(2_300).0);
            assert!(!end.run_until(until, |_| false).unwrap(), "nothing to wait for but the time");
            end.now().0.saturating_sub(until.0) / 1_000
        })
        .collect();
    late_us.sort_unstable();
    assert!(late_us[10] < 400, "median lateness {} us (all, sorted: {late_us:?})", late_us[10]);
}
