//! One connection end over a UDP socket: what the endpoint sends goes out as datagrams, what
//! arrives is parsed and handed to it, and its timers run on the wall clock.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

use mio::net::UdpSocket;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use rampup_tcp::{wire, Endpoint, Role, TcpConfig, Time};

const SOCKET: Token = Token(0);
const TIMER: Token = Token(1);
/// The largest UDP payload.
const MAX_DATAGRAM: usize = 65_535;

pub struct UdpEnd {
    ep: Endpoint,
    socket: UdpSocket,
    poll: Poll,
    timer: WakeTimer,
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

/// A one-shot wake-up with the kernel's nanosecond resolution (a timerfd), polled beside the
/// socket: mio's poll waits in whole milliseconds (epoll_wait rounds its timeout up), which
/// would make every endpoint timer up to 1 ms late; a pacing gap at 40 Mb/s is 0.3 ms.
struct WakeTimer(OwnedFd);

impl WakeTimer {
    fn new() -> io::Result<WakeTimer> {
        // SAFETY: timerfd_create takes no pointers; a non-negative result is a new descriptor we own.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is open and owned by nothing else.
        Ok(WakeTimer(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Fire once, `after` (more than zero) from now.
    fn arm(&self, after: std::time::Duration) -> io::Result<()> {
        let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        let value = libc::timespec { tv_sec: after.as_secs() as libc::time_t, tv_nsec: after.subsec_nanos() as libc::c_long };
        let spec = libc::itimerspec { it_interval: zero, it_value: value };
        // SAFETY: timerfd_settime reads `spec` and, given a null old value, writes nothing.
        if unsafe { libc::timerfd_settime(self.0.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Take the expiry count, so that the next expiry is a new readiness event.
    fn clear(&self) {
        let mut count = 0u64;
        // SAFETY: read writes at most 8 bytes into `count`; nothing to read (EAGAIN) is fine.
        unsafe { libc::read(self.0.as_raw_fd(), (&mut count as *mut u64).cast(), 8) };
    }
}

impl UdpEnd {
    /// An end bound to `local`; the active end sends to `peer`, the passive end waits for one.
    pub fn bind(local: SocketAddr, cfg: TcpConfig, role: Role, peer: Option<SocketAddr>) -> io::Result<UdpEnd> {
        let mut socket = UdpSocket::bind(local)?;
        enlarge_buffers(socket.as_raw_fd());
        let poll = Poll::new()?;
        poll.registry().register(&mut socket, SOCKET, Interest::READABLE)?;
        let timer = WakeTimer::new()?;
        poll.registry().register(&mut SourceFd(&timer.0.as_raw_fd()), TIMER, Interest::READABLE)?;
        Ok(UdpEnd {
            ep: Endpoint::new(cfg, role),
            socket,
            poll,
            timer,
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
            let wait = std::time::Duration::from_nanos(wake.0.saturating_sub(self.now().0));
            if wait.is_zero() {
                self.poll.poll(&mut events, Some(wait))?;
            } else {
                self.timer.arm(wait)?;
                self.poll.poll(&mut events, None)?;
                self.timer.clear();
            }
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
