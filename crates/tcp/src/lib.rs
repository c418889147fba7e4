//! rampup's TCP: a sans-IO endpoint and its pluggable parts. Nothing here reads a clock,
//! sleeps or touches a socket; the simulator (or a real-socket driver) supplies `now` with
//! every input and polls for output.

pub mod cc;
pub mod config;
pub mod ecn;
pub mod endpoint;
pub mod measure;
pub mod pacing;
pub mod preemptive;
pub mod rate_sample;
pub mod receiver;
pub mod recovery;
pub mod registry;
pub mod restart;
pub mod segment;
pub mod send_queue;
pub mod sender;
pub mod time;
pub mod wire;

#[cfg(test)]
mod test_util;

pub use config::{CcKind, QuickAck, RtoTiming, SackPermitted, StartupKind, TcpConfig};
pub use endpoint::{Endpoint, Event, Milestones, Role, Snapshot, State, Timer};
pub use pacing::{PacingConfig, PacingRate};
pub use preemptive::{PreemptiveConfig, PreemptiveStats};
pub use recovery::{RecoveryKind, SackPipe};
pub use restart::{IdleThreshold, Restart};
pub use segment::{Ecn, Segment, SeqRange};
pub use sender::{LossWindow, RtoInRecovery};
pub use time::{Duration, Rate, Time};
