//! rampup-delayline IFACE_A IFACE_B DELAY_US: moves every frame that arrives on one interface
//! out of the other `DELAY_US` microseconds later, both ways, until SIGINT or SIGTERM; then
//! prints, per direction, the frames moved, those lost (the line full, or the receiving
//! socket's buffer) and the lateness of their release (how long after its due time each
//! left) as percentiles (10 µs bins, `Lateness`), one `key=value` line each on stdout.
//!
//! For a path whose kernel has no `netem` (docs/testbed.md): run it in the router's namespace
//! between its two links, which then carry no addresses, so that the kernel does not forward
//! the frames too. What it sends goes through the interface's qdisc (the bottleneck's tbf).

use std::ffi::CString;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rampup_net::{DelayLine, Lateness};

/// Frames held per direction at most (40 Mb/s × 1 s of 1514-byte frames is 3,300).
const CAPACITY: usize = 100_000;
/// Each socket's receive and send buffers (SO_*BUFFORCE: root may exceed the system maximum).
const SOCKET_BUFFER_BYTES: libc::c_int = 64 << 20;
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn stop(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// A raw AF_PACKET socket bound to `iface`, every protocol, non-blocking.
fn open(iface: &str) -> io::Result<libc::c_int> {
    let name = CString::new(iface).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name"))?;
    let proto = (libc::ETH_P_ALL as u16).to_be();
    // SAFETY: plain system calls on values owned here; the address is a zeroed sockaddr_ll
    // with its family, protocol and interface set, passed with its size.
    unsafe {
        let index = libc::if_nametoindex(name.as_ptr());
        if index == 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK, proto as libc::c_int);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut addr: libc::sockaddr_ll = std::mem::zeroed();
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = proto;
        addr.sll_ifindex = index as libc::c_int;
        let len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        if libc::bind(fd, &addr as *const libc::sockaddr_ll as *const libc::sockaddr, len) < 0 {
            return Err(io::Error::last_os_error());
        }
        // Frames come and go with their virtio-net header: a frame whose checksum the sending
        // stack left to the device (checksum offload) or that is a GSO super-frame keeps
        // saying so, and the receiving stack accepts it, as it would have straight off the veth.
        let on: libc::c_int = 1;
        let size = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        if libc::setsockopt(fd, libc::SOL_PACKET, libc::PACKET_VNET_HDR, &on as *const libc::c_int as *const libc::c_void, size) < 0 {
            return Err(io::Error::last_os_error());
        }
        // A burst of GSO super-frames (64 KB each) must not overflow the receive buffer, and
        // the frames waiting in the link's qdisc count against the send buffer (about 200 KB
        // each by default, less than a 250-packet queue): a frame lost here is a loss the path
        // does not have.
        let bytes: libc::c_int = SOCKET_BUFFER_BYTES;
        for option in [libc::SO_RCVBUFFORCE, libc::SO_SNDBUFFORCE] {
            if libc::setsockopt(fd, libc::SOL_SOCKET, option, &bytes as *const libc::c_int as *const libc::c_void, size) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(fd)
    }
}

/// Frames the socket's receive buffer had no room for, since the last call (the kernel's
/// PACKET_STATISTICS, which it resets when read).
fn socket_drops(fd: libc::c_int) -> u64 {
    // SAFETY: getsockopt writes at most the given length into the zeroed tpacket_stats.
    unsafe {
        let mut stats: libc::tpacket_stats = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::tpacket_stats>() as libc::socklen_t;
        if libc::getsockopt(fd, libc::SOL_PACKET, libc::PACKET_STATISTICS, &mut stats as *mut libc::tpacket_stats as *mut libc::c_void, &mut len) < 0 {
            return 0;
        }
        stats.tp_drops as u64
    }
}

/// The next frame that arrived on the socket's interface (not one sent from it), if any.
fn receive(fd: libc::c_int, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: recvfrom writes at most buf.len() bytes into buf and at most the given
        // length into the zeroed address.
        let (n, addr) = unsafe {
            let mut addr: libc::sockaddr_ll = std::mem::zeroed();
            let mut len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            let n =
                libc::recvfrom(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len(), 0, &mut addr as *mut libc::sockaddr_ll as *mut libc::sockaddr, &mut len);
            (n, addr)
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(e) };
        }
        if addr.sll_pkttype != libc::PACKET_OUTGOING {
            return Ok(Some(n as usize));
        }
    }
}

/// Send a frame out of the socket's interface; false if it was not sent: the socket's buffer
/// was full, or the interface's qdisc dropped it (the bottleneck's queue full; counted there
/// too, per segment of a GSO frame).
fn send(fd: libc::c_int, frame: &[u8]) -> bool {
    // SAFETY: send reads frame.len() bytes of frame.
    unsafe { libc::send(fd, frame.as_ptr() as *const libc::c_void, frame.len(), 0) >= 0 }
}

struct Direction {
    from: libc::c_int,
    to: libc::c_int,
    line: DelayLine,
    lateness: Lateness,
    /// Frames not sent: refused by the socket, or dropped by the qdisc.
    send_failed: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: rampup-delayline IFACE_A IFACE_B DELAY_US";
    let [_, a, b, delay] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(delay_us) = delay.parse::<u64>() else {
        eprintln!("rampup-delayline: DELAY_US: {delay:?} is not a whole number of microseconds; {usage}");
        std::process::exit(2);
    };
    let (fa, fb) = match (open(a), open(b)) {
        (Ok(fa), Ok(fb)) => (fa, fb),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("rampup-delayline: cannot open {a} and {b}: {e}");
            std::process::exit(2);
        }
    };
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, stop as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, stop as *const () as libc::sighandler_t);
    }
    rampup_net::run_realtime("rampup-delayline");
    let delay = Duration::from_micros(delay_us);
    let mut dirs = [fa, fb].map(|from| Direction {
        from,
        to: if from == fa { fb } else { fa },
        line: DelayLine::new(delay, CAPACITY),
        lateness: Lateness::new(),
        send_failed: 0,
    });
    let mut buf = vec![0u8; 65_536];
    println!("ready");
    while !STOP.load(Ordering::Relaxed) {
        let now = Instant::now();
        for d in &mut dirs {
            let (to, failed, lateness) = (d.to, &mut d.send_failed, &mut d.lateness);
            d.line.release(now, |due, frame| {
                *failed += !send(to, frame) as u64;
                lateness.record(now.duration_since(due));
            });
        }
        let next = dirs.iter().filter_map(|d| d.line.next_due()).min();
        let wait = next.map_or(Duration::from_millis(100), |t| t.saturating_duration_since(Instant::now()));
        let mut fds = [libc::pollfd { fd: fa, events: libc::POLLIN, revents: 0 }, libc::pollfd { fd: fb, events: libc::POLLIN, revents: 0 }];
        let ts = libc::timespec { tv_sec: wait.as_secs() as libc::time_t, tv_nsec: wait.subsec_nanos() as libc::c_long };
        // SAFETY: ppoll reads the two pollfds and the timespec, and writes revents.
        unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
        for d in &mut dirs {
            while let Ok(Some(n)) = receive(d.from, &mut buf) {
                d.line.push(Instant::now(), &buf[..n]);
            }
        }
    }
    for (d, name) in dirs.iter().zip([format!("{a}->{b}"), format!("{b}->{a}")]) {
        let l = &d.lateness;
        println!(
            "direction={name} frames={} dropped={} socket_dropped={} send_failed={} lateness_us_p50={} p90={} p99={} max={}",
            l.count(),
            d.line.dropped,
            socket_drops(d.from),
            d.send_failed,
            l.percentile_us(0.5),
            l.percentile_us(0.9),
            l.percentile_us(0.99),
            l.max_us()
        );
    }
}
