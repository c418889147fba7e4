//! Parts written outside this crate: a startup or an avoidance controller that the embedding
//! side builds (the Python module, `docs/python-parts.md`), held as a trait object in one
//! more variant of `StartupPart` and `Avoidance`, so that the built-in parts' dispatch stays
//! static. A scenario names such a part by `kind = "python"`; the embedding side hands the
//! scenario layer a `Factory` that makes a fresh part for each endpoint. The crate bounds
//! the windows such a part decides on (`WindowBounds`).

use std::fmt;
use std::sync::Arc;

use super::{CongestionControl, Startup};
use crate::registry::{Family, PartInfo};
use crate::restart::RestartPolicy;

/// Runs `f`, a hook of a part made outside the crate, out of line: the dispatch `match` that
/// calls it is inlined into the sender's per-ACK path, which the built-in parts' arms keep
/// to themselves.
#[cold]
#[inline(never)]
pub fn out_of_line<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// A startup made outside the crate. Endpoints are cloned (a listening end's template), so
/// the part clones itself.
pub trait ExternalStartup: Startup + Send + fmt::Debug {
    fn boxed_clone(&self) -> Box<dyn ExternalStartup>;
}

/// An avoidance controller made outside the crate.
pub trait ExternalController: CongestionControl + Send + fmt::Debug {
    fn boxed_clone(&self) -> Box<dyn ExternalController>;
}

/// A restart-after-idle or window-validation policy made outside the crate.
pub trait ExternalRestart: RestartPolicy + Send + fmt::Debug {
    fn boxed_clone(&self) -> Box<dyn ExternalRestart>;
}

impl Clone for Box<dyn ExternalRestart> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

impl Clone for Box<dyn ExternalStartup> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

impl Clone for Box<dyn ExternalController> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// The registry's row of a startup written outside the crate: its settings are the class's
/// constructor's, not the registry's.
pub const EXTERNAL_STARTUP: PartInfo =
    PartInfo { family: Family::Startup, name: "python", doc: "a startup written in Python (docs/python-parts.md)", keys: &[], per_segment: false };

/// The registry's row of an avoidance controller written outside the crate.
pub const EXTERNAL_CC: PartInfo =
    PartInfo { family: Family::Cc, name: "python", doc: "a congestion controller written in Python (docs/python-parts.md)", keys: &[], per_segment: false };

/// The registry's row of a restart policy written outside the crate. It may pace a restart
/// (a `Plan` in its `IdleDecision`), which the endpoint's pacer carries out segment by
/// segment, so its connections take the general paths (`TcpConfig::is_plain`).
pub const EXTERNAL_RESTART: PartInfo = PartInfo {
    family: Family::Restart,
    name: "python",
    doc: "a restart-after-idle policy written in Python (docs/python-parts.md)",
    keys: &[],
    per_segment: true,
};

/// How each endpoint gets its own part: `name` is what results show, `spec` tells two
/// factories apart (the class and its constructor's arguments), `make` builds a fresh part.
/// One pointer wide: a config (`TcpConfig`) holds it in its part's enum and an endpoint holds
/// the config, so the built-in parts' configs keep their size.
pub struct Factory<T: ?Sized>(Arc<Made<T>>);

struct Made<T: ?Sized> {
    name: String,
    spec: String,
    sets_pacing_rate: bool,
    make: Box<dyn Fn() -> Box<T> + Send + Sync>,
}

impl<T: ?Sized> Factory<T> {
    pub fn new(name: String, spec: String, make: impl Fn() -> Box<T> + Send + Sync + 'static) -> Self {
        Self::made(name, spec, false, make)
    }

    /// The factory of a controller that sets its own pacing rate
    /// (`CongestionControl::pacing_rate`): the scenario layer paces its connections, as it
    /// does BBR's.
    pub fn pacing(name: String, spec: String, make: impl Fn() -> Box<T> + Send + Sync + 'static) -> Self {
        Self::made(name, spec, true, make)
    }

    fn made(name: String, spec: String, sets_pacing_rate: bool, make: impl Fn() -> Box<T> + Send + Sync + 'static) -> Self {
        Factory(Arc::new(Made { name, spec, sets_pacing_rate, make: Box::new(make) }))
    }

    pub fn sets_pacing_rate(&self) -> bool {
        self.0.sets_pacing_rate
    }

    pub fn build(&self) -> Box<T> {
        (self.0.make)()
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }
}

impl<T: ?Sized> Clone for Factory<T> {
    fn clone(&self) -> Self {
        Factory(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> fmt::Debug for Factory<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Factory({})", self.0.spec)
    }
}

impl<T: ?Sized> PartialEq for Factory<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.spec == other.0.spec
    }
}

/// The windows a part written outside the crate may decide on: at least one segment (the
/// loss window of RFC 5681 §3.1, the least window a sender can send with) and not past the
/// receive window in one leap. A sender uses min(cwnd, rwnd) (RFC 9293 §3.8.6.2.1) and
/// RFC 5681's growth does not stop at rwnd, so a cwnd already at or near the receive window
/// may go on growing by what one ACK may add (at most L = 2 SMSS, RFC 3465 §2.2); a decision
/// that takes cwnd above the receive window by more than that at once is refused. ssthresh
/// has the same floor and no ceiling (the initial ssthresh is "arbitrarily high", RFC 5681 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowBounds {
    pub mss_bytes: u64,
    pub rcv_window_bytes: u64,
}

impl WindowBounds {
    /// `cwnd`, decided on an ACK that found `before`, or why it is refused, in one line.
    pub fn cwnd(&self, before: u64, cwnd: u64) -> Result<u64, String> {
        if cwnd < self.mss_bytes {
            Err(format!("cwnd_bytes = {cwnd} is below one segment ({} bytes)", self.mss_bytes))
        } else if cwnd > self.rcv_window_bytes && cwnd > before.saturating_add(2 * self.mss_bytes) {
            Err(format!(
                "cwnd_bytes = {cwnd} is above the receive window ({} bytes) by more than one ACK may grow it (2 segments, from {before})",
                self.rcv_window_bytes
            ))
        } else {
            Ok(cwnd)
        }
    }

    /// `ssthresh`, or why it is refused, in one line.
    pub fn ssthresh(&self, ssthresh: u64) -> Result<u64, String> {
        if ssthresh < self.mss_bytes {
            Err(format!("ssthresh_bytes = {ssthresh} is below one segment ({} bytes)", self.mss_bytes))
        } else {
            Ok(ssthresh)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5681 §3.1's one-segment loss window is the floor; past the receive window (RFC
    /// 9293 §3.8.6.2.1) cwnd grows by at most RFC 3465 §2.2's L = 2 SMSS per ACK; ssthresh
    /// has only the floor.
    #[test]
    fn rfc_5681_3_1_windows_below_one_segment_or_leaps_past_the_receive_window_are_refused() {
        let b = WindowBounds { mss_bytes: 1000, rcv_window_bytes: 64_000 };
        assert_eq!(b.cwnd(10_000, 1000), Ok(1000));
        assert_eq!(b.cwnd(10_000, 64_000), Ok(64_000));
        assert_eq!(b.cwnd(10_000, 999), Err("cwnd_bytes = 999 is below one segment (1000 bytes)".into()));
        assert_eq!(b.cwnd(10_000, 0), Err("cwnd_bytes = 0 is below one segment (1000 bytes)".into()));
        assert_eq!(b.cwnd(63_500, 65_500), Ok(65_500), "one ACK's growth past the receive window");
        assert_eq!(b.cwnd(90_000, 92_000), Ok(92_000), "and on, as RFC 5681's growth goes");
        assert_eq!(
            b.cwnd(63_500, 65_501),
            Err("cwnd_bytes = 65501 is above the receive window (64000 bytes) by more than one ACK may grow it (2 segments, from 63500)".into())
        );
        assert!(b.cwnd(10_000, u64::MAX).is_err());
        assert_eq!(b.ssthresh(u64::MAX), Ok(u64::MAX));
        assert!(b.ssthresh(1).is_err());
    }

    #[test]
    fn factories_are_the_same_part_when_their_specs_are() {
        #[derive(Debug, Clone)]
        struct Nothing;
        impl Startup for Nothing {
            fn on_ack(&mut self, _: &mut super::super::Window, _: &super::super::AckCtx) -> bool {
                false
            }
        }
        impl ExternalStartup for Nothing {
            fn boxed_clone(&self) -> Box<dyn ExternalStartup> {
                Box::new(self.clone())
            }
        }
        let f = |spec: &str| Factory::<dyn ExternalStartup>::new("n".into(), spec.into(), || Box::new(Nothing));
        assert_eq!(f("a"), f("a"));
        assert_ne!(f("a"), f("b"));
        assert_eq!(format!("{:?}", f("a").build()), "Nothing");
    }
}
