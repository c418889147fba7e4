//! One connection end over a UDP socket: what the endpoint sends goes out as datagrams, what
//! arrives is parsed and handed to it, and its timers run on the wall clock.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

use mio::net::UdpSocket;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use rampup_tcp::segment::Segment;
use rampup_tcp::wire::{self, WireError};
use rampup_tcp::{Duration, Endpoint, Role, State, TcpConfig, Time};

const SOCKET: Token = Token(0);
const TIMER: Token = Token(1);
/// The largest UDP payload.
const MAX_DATAGRAM: usize = 65_535;

/// At most this many handshakes in progress at a passive end without a peer (a listener's
/// SYN queue); a SYN from one more address drops the oldest.
const MAX_HANDSHAKES: usize = 8;

/// Why `run_until` stopped short of its end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Io(#[from] io::Error),
    /// Nothing moved for `UdpEnd::stall_limit`: the connection's state, its bytes acknowledged
    /// and its bytes received all stayed as they were.
    #[error(
        "no progress for {:.1} s in {state:?} ({bytes_acked} bytes acknowledged, {bytes_received} received, {corrupt} datagrams corrupt, {refused} refused)",
        limit.as_secs_f64()
    )]
    Stalled { limit: Duration, state: State, bytes_acked: u64, bytes_received: u64, corrupt: u64, refused: u64 },
}

pub struct UdpEnd {
    /// The connection. At a passive end without a peer yet, the listening endpoint that each
    /// handshake starts from (a copy, with the application's commands so far).
    ep: Endpoint,
    /// A passive end's handshakes in progress, each with the address its SYN came from. The
    /// first to complete (the ACK of our SYN-ACK, from that address: RFC 9293 §3.10.7.3, the
    /// SYN-RECEIVED state's ACK) becomes `ep`, and its address the peer; the others go. A SYN
    /// from elsewhere thus opens a handshake of its own and takes nothing from the client.
    handshakes: Vec<(SocketAddr, Endpoint)>,
    socket: UdpSocket,
    poll: Poll,
    timer: WakeTimer,
    /// The other end: given to the active end, bound at the passive end by its handshake.
    peer: Option<SocketAddr>,
    /// Time zero of the endpoint's clock.
    origin: Instant,
    out: Vec<u8>,
    inbox: Vec<u8>,
    /// Datagrams not taken: from another address than the peer's, before a peer a first
    /// datagram from an address that is not a SYN, or not a segment (`wire::parse`).
    pub refused: u64,
    /// Datagrams whose checksum failed (`wire::WireError::Corrupt`): changed on the way.
    pub corrupt: u64,
    /// Datagrams the socket could not take (its send buffer full): lost before the path.
    pub send_dropped: u64,
    /// `run_until` fails with `RunError::Stalled` when the connection, open (a peer known, not
    /// yet in TIME-WAIT or closed), makes no progress for this long; `None`, never.
    pub stall_limit: Option<Duration>,
    /// The connection's (state, bytes acknowledged, bytes received) when last seen to change,
    /// and when.
    progress: ((State, u64, u64), Time),
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
        let ep = Endpoint::new(cfg, role);
        let progress = ((ep.state(), 0, 0), Time::ZERO);
        Ok(UdpEnd {
            ep,
            handshakes: Vec::new(),
            socket,
            poll,
            timer,
            peer,
            origin: Instant::now(),
            out: Vec::with_capacity(MAX_DATAGRAM),
            inbox: vec![0; MAX_DATAGRAM],
            refused: 0,
            corrupt: 0,
            send_dropped: 0,
            stall_limit: None,
            progress,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.ep
    }

    /// The application's write, to the connection and to every handshake that may become it.
    pub fn write(&mut self, bytes: u64) {
        self.endpoints_mut().for_each(|ep| ep.write(bytes));
    }

    /// The application's close, as `write`.
    pub fn close(&mut self) {
        self.endpoints_mut().for_each(Endpoint::close);
    }

    /// The endpoint's clock: wall-clock time since this end was made.
    pub fn now(&self) -> Time {
        Time(self.origin.elapsed().as_nanos() as u64)
    }

    /// Drive the endpoint until `done` says so (true) or `until` on its clock (false).
    pub fn run_until(&mut self, until: Time, mut done: impl FnMut(&Endpoint) -> bool) -> Result<bool, RunError> {
        let mut events = Events::with_capacity(16);
        loop {
            let now = self.now();
            for ep in self.endpoints_mut() {
                if ep.poll_timeout().is_some_and(|t| t <= now) {
                    ep.handle_timeout(now);
                }
            }
            self.flush(now)?;
            if done(&self.ep) {
                return Ok(true);
            }
            let stall_at = self.watch_progress(now)?;
            if now >= until {
                return Ok(false);
            }
            let timers = std::iter::once(&self.ep).chain(self.handshakes.iter().map(|(_, ep)| ep)).filter_map(Endpoint::poll_timeout);
            let wake = timers.chain(stall_at).fold(until, Time::min);
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

    /// The connection and the handshakes in progress.
    fn endpoints_mut(&mut self) -> impl Iterator<Item = &mut Endpoint> {
        std::iter::once(&mut self.ep).chain(self.handshakes.iter_mut().map(|(_, ep)| ep))
    }

    /// When the stall limit runs out, if it runs; the error once it has.
    fn watch_progress(&mut self, now: Time) -> Result<Option<Time>, RunError> {
        let mark = (self.ep.state(), self.ep.bytes_acked(), self.ep.bytes_received());
        if mark != self.progress.0 {
            self.progress = (mark, now);
        }
        // TIME-WAIT waits out its 2 MSL by design (RFC 9293 §3.4.2), with nothing to move.
        let open = self.peer.is_some() && !matches!(mark.0, State::TimeWait | State::Closed);
        let Some(limit) = self.stall_limit.filter(|_| open) else { return Ok(None) };
        let at = self.progress.1 + limit;
        if now < at {
            return Ok(Some(at));
        }
        let (state, bytes_acked, bytes_received) = mark;
        Err(RunError::Stalled { limit, state, bytes_acked, bytes_received, corrupt: self.corrupt, refused: self.refused })
    }

    /// Send what the connection and each handshake have to send now.
    fn flush(&mut self, now: Time) -> io::Result<()> {
        let to_peer = self.peer.map(|peer| (peer, &mut self.ep));
        for (to, ep) in to_peer.into_iter().chain(self.handshakes.iter_mut().map(|(a, ep)| (*a, ep))) {
            transmit(ep, to, now, &self.socket, &mut self.out, &mut self.send_dropped)?;
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
            let now = self.now();
            match wire::parse(&self.inbox[..n]) {
                Ok(seg) => self.take(now, from, &seg),
                Err(WireError::Corrupt) => self.corrupt += 1,
                Err(_) => self.refused += 1,
            }
            self.flush(now)?;
        }
    }

    /// A segment from `from`: the connection's if from its peer; before there is one, the
    /// handshake's it belongs to, or a new handshake's if it is a SYN.
    fn take(&mut self, now: Time, from: SocketAddr, seg: &Segment) {
        if self.peer.is_none() && self.ep.state() != State::Listen {
            // Without a handshake (`TcpConfig::handshake` off) nothing else can bind the peer.
            self.bind_peer(from, now);
        }
        if let Some(peer) = self.peer {
            if peer == from {
                self.ep.handle_segment(now, seg);
            } else {
                self.refused += 1;
            }
            return;
        }
        let k = match self.handshakes.iter().position(|(a, _)| *a == from) {
            Some(k) => k,
            None if seg.flags.syn && !seg.flags.ack => {
                if self.handshakes.len() == MAX_HANDSHAKES {
                    self.handshakes.remove(0);
                }
                self.handshakes.push((from, self.ep.clone()));
                self.handshakes.len() - 1
            }
            None => {
                self.refused += 1;
                return;
            }
        };
        self.handshakes[k].1.handle_segment(now, seg);
        if self.handshakes[k].1.state() > State::SynReceived {
            let (addr, ep) = self.handshakes.swap_remove(k);
            self.ep = ep;
            self.handshakes.clear();
            self.bind_peer(addr, now);
        }
    }

    fn bind_peer(&mut self, peer: SocketAddr, now: Time) {
        self.peer = Some(peer);
        // The stall limit counts from here: before, the end only waited for a client.
        self.progress.1 = now;
    }
}

/// Send what `ep` has to send now to `to`. A datagram the socket cannot take (its buffer
/// full) is dropped, as a full queue on a path would drop it; TCP repairs the loss.
fn transmit(ep: &mut Endpoint, to: SocketAddr, now: Time, socket: &UdpSocket, out: &mut Vec<u8>, dropped: &mut u64) -> io::Result<()> {
    while let Some(seg) = ep.poll_transmit(now) {
        out.clear();
        wire::emit(&seg, out);
        match socket.send_to(out, to) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => *dropped += 1,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
