//! One connection end over a UDP socket: what the endpoint sends goes out as datagrams, what
//! arrives is parsed and handed to it, and its timers run on the wall clock.

use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::time::Instant;

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use rampup_tcp::{wire, Endpoint, Role, TcpConfig, Time};

const SOCKET: Token = Token(0);
/// The largest UDP payload.
const MAX_DATAGRAM: usize = 65_535;

pub struct UdpEnd {
    ep: Endpoint,
    socket: UdpSocket,
    poll: Poll,
    /// The other end: given to the active end, learnt by the passive end from the first
    /// datagram that parses.
    peer: Option<SocketAddr>,
    /// Time zero of the endpoint's clock.
    origin: Instant,
    out: Vec<u8>,
    inbox: Vec<u8>,
    /// Datagrams not taken: from another address than the peer's, or refused by `wire::parse`.
    pub refused: u64,
    /// Datagrams the socket could not take (its send buffer full): lost before the path.
    pub send_dropped: u64,
}

/// Each socket buffer's size: a window of datagrams sent at once (or arriving faster than
/// the end reads them) must fit, or the host loses what the path would not.
const SOCKET_BUFFER_BYTES: libc::c_int = 16 << 20;

/// Raise the socket's send and receive buffers to `SOCKET_BUFFER_BYTES`: as root beyond the
/// system's maximum (SO_SNDBUFFORCE), else up to it.
fn enlarge_buffers(fd: std::os::fd::RawFd) {
    let size = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    for (force, plain) in [(libc::SO_SNDBUFFORCE, libc::SO_SNDBUF), (libc::SO_RCVBUFFORCE, libc::SO_RCVBUF)] {
        let bytes = &SOCKET_BUFFER_BYTES as *const libc::c_int as *const libc::c_void;
        // SAFETY: setsockopt reads one c_int from `bytes`; a refusal leaves the buffer as it was.
        unsafe {
            if libc::setsockopt(fd, libc::SOL_SOCKET, force, bytes, size) < 0 {
                libc::setsockopt(fd, libc::SOL_SOCKET, plain, bytes, size);
            }
        }
    }
}

impl UdpEnd {
    /// An end bound to `local`; the active end sends to `peer`, the passive end waits for one.
    pub fn bind(local: SocketAddr, cfg: TcpConfig, role: Role, peer: Option<SocketAddr>) -> io::Result<UdpEnd> {
        let mut socket = UdpSocket::bind(local)?;
        enlarge_buffers(socket.as_raw_fd());
        let poll = Poll::new()?;
        poll.registry().register(&mut socket, SOCKET, Interest::READABLE)?;
        Ok(UdpEnd {
            ep: Endpoint::new(cfg, role),
            socket,
            poll,
            peer,
            origin: Instant::now(),
            out: Vec::with_capacity(MAX_DATAGRAM),
            inbox: vec![0; MAX_DATAGRAM],
            refused: 0,
            send_dropped: 0,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.ep
    }

    /// The application's commands (write, close) go to the endpoint itself.
    pub fn endpoint_mut(&mut self) -> &mut Endpoint {
        &mut self.ep
    }

    /// The endpoint's clock: wall-clock time since this end was made.
    pub fn now(&self) -> Time {
        Time(self.origin.elapsed().as_nanos() as u64)
    }

    /// Drive the endpoint until `done` says so (true) or `until` on its clock (false).
    pub fn run_until(&mut self, until: Time, mut done: impl FnMut(&Endpoint) -> bool) -> io::Result<bool> {
        let mut events = Events::with_capacity(16);
        loop {
            let now = self.now();
            if self.ep.poll_timeout().is_some_and(|t| t <= now) {
                self.ep.handle_timeout(now);
            }
            self.flush(now)?;
            if done(&self.ep) {
                return Ok(true);
            }
            if now >= until {
                return Ok(false);
            }
            let wake = self.ep.poll_timeout().map_or(until, |t| t.min(until));
            self.poll.poll(&mut events, Some(std::time::Duration::from_nanos(wake.0.saturating_sub(now.0))))?;
            self.receive()?;
        }
    }

    /// Send what the endpoint has to send now. A datagram the socket cannot take (its buffer
    /// full) is dropped, as a full queue on a path would drop it; TCP repairs the loss.
    fn flush(&mut self, now: Time) -> io::Result<()> {
        let Some(peer) = self.peer else { return Ok(()) };
        while let Some(seg) = self.ep.poll_transmit(now) {
            self.out.clear();
            wire::emit(&seg, &mut self.out);
            match self.socket.send_to(&self.out, peer) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.send_dropped += 1,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Hand every datagram waiting on the socket to the endpoint (mio's readiness is
    /// edge-triggered: read until the socket would block).
    fn receive(&mut self) -> io::Result<()> {
        loop {
            let (n, from) = match self.socket.recv_from(&mut self.inbox) {
                Ok(got) => got,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(e),
            };
            let seg = match wire::parse(&self.inbox[..n]) {
                Ok(seg) if self.peer.is_none_or(|p| p == from) => seg,
                _ => {
                    self.refused += 1;
                    continue;
                }
            };
            self.peer.get_or_insert(from);
            let now = self.now();
            self.ep.handle_segment(now, &seg);
            self.flush(now)?;
        }
    }
}
