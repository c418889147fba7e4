//! The real path's driver (docs/testbed.md): the same `Endpoint` and `TcpConfig` the
//! simulator drives in virtual time, driven here by the wall clock over a UDP socket, one
//! segment per datagram (`rampup_tcp::wire`).

pub mod delay_line;
mod realtime;
mod udp_end;

pub use delay_line::{DelayLine, Lateness};
pub use realtime::run_realtime;
pub use udp_end::{RunError, UdpEnd};
