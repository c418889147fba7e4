//! What every endpoint and part test shares, in smoltcp's manner: the peer's segments from
//! templates, `#[track_caller]` helpers that receive, send and fire timers, and a fixture per
//! connection state. A test starts from a fixture, feeds segments and reads what comes out.
//!
//! The peer's initial sequence number is 0 like ours (`endpoint::ISS`): its first data byte
//! is 1, and so is ours. The fixtures' handshake takes `HANDSHAKE_RTT`.

use crate::cc::AckCtx;
use crate::config::TcpConfig;
use crate::endpoint::{Endpoint, Role, State};
use crate::measure::{Measure, RateEpoch};
use crate::segment::{Flags, Segment};
use crate::time::{Duration, Time};

pub(crate) use crate::segment::RECV_TEMPL;

pub const MSS: u64 = 1000;
pub const HANDSHAKE_RTT: Duration = Duration::from_millis(20);

/// An ACK of one `mss` segment at `now` that says nothing more: no RTT sample, not
/// application-limited, inside a rate epoch, no rounds counted (ack and snd_nxt 0). A part's
/// test sets what it reads: `AckCtx { rtt_sample, ..ack_ctx(now, mss, &m) }`.
pub fn ack_ctx(now: Time, mss: u64, measure: &Measure) -> AckCtx<'_> {
    AckCtx {
        now,
        mss,
        acked_bytes: mss,
        rtt_sample: None,
        app_limited: false,
        measure,
        rate_epoch: RateEpoch::Running,
        ack: 0,
        snd_nxt: 0,
        rate: None,
        in_recovery: false,
    }
}

/// The peer's pure ACK once established (its SYN took sequence number 0).
pub const ACK: Segment = Segment { seq: 1, ..RECV_TEMPL };
pub const SYN: Segment = Segment { seq: 0, flags: Flags { syn: true, ack: false, ..RECV_TEMPL.flags }, ..RECV_TEMPL };
pub const SYN_ACK: Segment = Segment { seq: 0, ack: 1, flags: Flags { syn: true, ..RECV_TEMPL.flags }, ..RECV_TEMPL };

pub fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

pub fn at(v_ms: u64) -> Time {
    Time::ZERO + ms(v_ms)
}

/// Our data segment `k` (0-based) starts here.
pub fn seg_start(k: u64) -> u64 {
    1 + k * MSS
}

/// The default config with `MSS`.
pub fn config() -> TcpConfig {
    TcpConfig { mss_bytes: MSS as u32, ..TcpConfig::default() }
}

#[track_caller]
pub fn recv(ep: &mut Endpoint, now: Time, seg: Segment) {
    ep.handle_segment(now, &seg);
}

/// The peer acknowledges everything below `ack`.
#[track_caller]
pub fn recv_ack(ep: &mut Endpoint, now: Time, ack: u64) {
    recv(ep, now, Segment { ack, ..ACK });
}

/// Everything the endpoint sends at `now`.
#[track_caller]
pub fn send(ep: &mut Endpoint, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| ep.poll_transmit(now)).collect()
}

/// The segments carrying data or a FIN that the endpoint sends at `now` (pure ACKs left out).
#[track_caller]
pub fn send_data(ep: &mut Endpoint, now: Time) -> Vec<Segment> {
    send(ep, now).into_iter().filter(|s| s.len > 0 || s.flags.fin).collect()
}

#[track_caller]
pub fn send_nothing(ep: &mut Endpoint, now: Time) {
    let sent = send(ep, now);
    assert!(sent.is_empty(), "sent {sent:?} at {now}");
}

/// Fire the timers due at `now`, which must be the next wakeup, then send.
#[track_caller]
pub fn timeout(ep: &mut Endpoint, now: Time) -> Vec<Segment> {
    assert_eq!(ep.poll_timeout(), Some(now), "next wakeup");
    ep.handle_timeout(now);
    send(ep, now)
}

// ---- fixtures, one per state ----

/// Active end: its SYN went out at 0 ms.
#[track_caller]
pub fn syn_sent(cfg: TcpConfig) -> Endpoint {
    let mut ep = Endpoint::new(cfg, Role::Active);
    let syn = send(&mut ep, Time::ZERO);
    assert!(syn.len() == 1 && syn[0].flags.syn, "{syn:?}");
    assert_eq!(ep.state(), State::SynSent);
    ep
}

/// Passive end: a SYN arrived at 0 ms and the SYN-ACK went out.
#[track_caller]
pub fn syn_received(cfg: TcpConfig) -> Endpoint {
    let mut ep = Endpoint::new(cfg, Role::Passive);
    recv(&mut ep, Time::ZERO, SYN);
    let syn_ack = send(&mut ep, Time::ZERO);
    assert!(syn_ack.len() == 1 && syn_ack[0].flags.syn && syn_ack[0].flags.ack, "{syn_ack:?}");
    ep
}

/// Active end, established at `HANDSHAKE_RTT` with the handshake's ACK sent, nothing written.
#[track_caller]
pub fn established(cfg: TcpConfig) -> Endpoint {
    let mut ep = syn_sent(cfg);
    recv(&mut ep, Time::ZERO + HANDSHAKE_RTT, SYN_ACK);
    assert_eq!(ep.state(), State::Established);
    assert_eq!(send(&mut ep, Time::ZERO + HANDSHAKE_RTT).len(), 1, "the handshake's ACK");
    ep
}

/// Passive end, established by the handshake's ACK at `HANDSHAKE_RTT`.
#[track_caller]
pub fn established_passive(cfg: TcpConfig) -> Endpoint {
    let mut ep = syn_received(cfg);
    recv(&mut ep, Time::ZERO + HANDSHAKE_RTT, Segment { ack: 1, ..ACK });
    assert_eq!(ep.state(), State::Established);
    ep
}

/// `established`, then the application closed at 20 ms: the FIN (sequence number 1) is out.
#[track_caller]
pub fn fin_wait_1(cfg: TcpConfig) -> Endpoint {
    let mut ep = established(cfg);
    ep.close();
    let fin = send_data(&mut ep, at(20));
    assert!(fin.len() == 1 && fin[0].flags.fin && fin[0].seq == 1, "{fin:?}");
    assert_eq!(ep.state(), State::FinWait1);
    ep
}

/// `fin_wait_1`, and our FIN acknowledged at 40 ms.
#[track_caller]
pub fn fin_wait_2(cfg: TcpConfig) -> Endpoint {
    let mut ep = fin_wait_1(cfg);
    recv_ack(&mut ep, at(40), 2);
    assert_eq!(ep.state(), State::FinWait2);
    ep
}

/// The peer's FIN (no data, sequence number 1), acknowledging everything below `ack`.
pub fn peer_fin(ack: u64) -> Segment {
    Segment { ack, flags: Flags { fin: true, ..ACK.flags }, ..ACK }
}

/// `established`, then the peer's FIN arrived at 40 ms and was acknowledged.
#[track_caller]
pub fn close_wait(cfg: TcpConfig) -> Endpoint {
    let mut ep = established(cfg);
    recv(&mut ep, at(40), peer_fin(1));
    assert_eq!(ep.state(), State::CloseWait);
    let ack = send(&mut ep, at(40));
    assert!(ack.len() == 1 && ack[0].ack == 2, "{ack:?}");
    ep
}

/// `close_wait`, then the application closed at 40 ms and its FIN went out.
#[track_caller]
pub fn last_ack(cfg: TcpConfig) -> Endpoint {
    let mut ep = close_wait(cfg);
    ep.close();
    assert_eq!(send_data(&mut ep, at(40)).len(), 1, "the FIN");
    assert_eq!(ep.state(), State::LastAck);
    ep
}

/// `fin_wait_2`, then the peer's FIN at 60 ms.
#[track_caller]
pub fn time_wait(cfg: TcpConfig) -> Endpoint {
    let mut ep = fin_wait_2(cfg);
    recv(&mut ep, at(60), peer_fin(2));
    assert_eq!(ep.state(), State::TimeWait);
    ep
}
