//! Applications on TCP connections, sans-IO. A connection's `Driver` hears what happened on
//! one of its ends (`Hook`) and answers with what that end does next (`Action`); the world
//! carries the actions out. A flow's application (`App`) says how many connections it opens
//! and when (`Arrivals`), and which fast paths of the engine its connections allow
//! (`App::fast_paths`).

use rampup_tcp::Duration;
use rand::Rng;

mod exchange;
pub mod packmime;
mod rate_limited;

pub use exchange::{Closer, Exchange, ExchangeSpec, Pair};
pub use packmime::{Http, Load, PackMime, WebSpec};
pub use rate_limited::{Ledger, Phase, RateLimitedSpec, Writing};

/// Which end of a connection: the one that opened it (it sends the SYN) or the one that
/// accepted it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Active = 0,
    Passive = 1,
}

/// One end of the connection in slot `conn`. The world keeps a connection's two ends side
/// by side, so this is also the end's index among all ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndId(u32);

impl EndId {
    pub fn new(conn: u32, side: Side) -> EndId {
        EndId(conn << 1 | side as u32)
    }
    /// The slot of the connection: reused once the connection is closed and nothing of it
    /// is in flight.
    pub fn conn(self) -> u32 {
        self.0 >> 1
    }
    pub fn side(self) -> Side {
        if self.0 & 1 == 0 {
            Side::Active
        } else {
            Side::Passive
        }
    }
    /// The other end of the same connection.
    pub fn peer(self) -> EndId {
        EndId(self.0 ^ 1)
    }
    pub fn index(self) -> usize {
        self.0 as usize
    }
    /// As a rank among events (`engine::Order`).
    pub fn rank(self) -> u32 {
        self.0
    }
}

/// What an end's application hears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    /// The connection was opened; heard by the active end, whose SYN is due.
    Opened,
    /// Bytes arrived in order; `total` delivered on this end so far.
    Delivered { total: u64 },
    /// The peer's FIN arrived in order: it sends nothing more.
    PeerFinished,
    /// The timer this end's application set (`Action::Timer`) expired.
    Timer,
}

/// What an end's application does, on the end that heard the hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Write(u64),
    WriteUnlimited,
    /// No more data from this end: a FIN follows what was written.
    Close,
    /// Hear `Hook::Timer` after this long (one timer per end at a time).
    Timer(Duration),
}

/// A flow's application as the scenario gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum App {
    /// The active end sends `bytes` and closes; `None`: unlimited data.
    Bulk { bytes: Option<u64> },
    /// The active end writes `bytes` at `at` after the flow's start, on one connection.
    Writes { schedule: Vec<(Duration, u64)> },
    /// Connections opened as `arrivals` say, each carrying request/response exchanges.
    RequestResponse { exchange: ExchangeSpec, arrivals: Arrivals },
    /// Web connections as PackMime-HTTP draws them (`packmime`): when each opens, and the
    /// requests and responses it carries.
    Web(WebSpec),
    /// The active end writes at a rate that changes by phases (`rate_limited`), on one
    /// connection.
    RateLimited(RateLimitedSpec),
}

/// When a flow opens its connections: the first at the flow's start, then one after each
/// gap until `connections` are open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrivals {
    pub connections: u64,
    pub mean_gap: Duration,
    /// Exponential gaps (a Poisson process of arrivals); else every gap is `mean_gap`.
    pub poisson: bool,
}

impl Arrivals {
    /// The gap before the next connection, drawn from the flow's own stream.
    pub fn gap(&self, rng: &mut impl Rng) -> Duration {
        if !self.poisson {
            return self.mean_gap;
        }
        // Inversion: -mean · ln(U) is exponential with that mean for U uniform in (0, 1].
        let u = 1.0 - rng.random::<f64>();
        Duration((-(self.mean_gap.as_nanos() as f64) * u.ln()).round() as u64)
    }
}

/// Which of the engine's fast paths a flow's connections allow. The one rule that
/// receive-ahead (`World::plan_receive_ahead`) and the split over two threads
/// (`partition::plan`) consult; a new kind of traffic answers it here, and a fast path it
/// does not allow is never taken. (Cut-through depends on the network alone: a drop decided
/// ahead is counted in an event at its own time, so no application can tell.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastPaths {
    /// The active end may take a segment ahead of its arrival event. Only when nothing but
    /// segments and its own timers acts on it: no write at a set time, and no count read
    /// when a transfer completes (drops decided ahead reach it only at their time).
    pub active_ahead: bool,
    /// The passive end may: when its application does not act on what it receives.
    pub passive_ahead: bool,
    /// The run may be split in two: the flow's connections are opened when the world is
    /// built (each half makes the same), and nothing reads a count that a drop in the
    /// other half would reach only later.
    pub split: bool,
}

impl App {
    pub fn fast_paths(&self) -> FastPaths {
        match self {
            App::Bulk { bytes: None } => FastPaths { active_ahead: true, passive_ahead: true, split: true },
            App::Bulk { bytes: Some(_) } | App::Writes { .. } | App::RateLimited(_) => FastPaths { active_ahead: false, passive_ahead: true, split: false },
            App::RequestResponse { .. } | App::Web(_) => FastPaths { active_ahead: false, passive_ahead: false, split: false },
        }
    }

    /// The flow opens one connection, when it starts, and keeps it to the end: its ends are
    /// made with the world and keep their place (and its rows in the traces and transfers
    /// follow that connection's active end). Its application acts only then and on its
    /// schedule; the others open connections at run time and hear what their ends receive.
    pub fn one_connection(&self) -> bool {
        !matches!(self, App::RequestResponse { .. } | App::Web(_))
    }

    /// How many connections the flow opens in all (`u64::MAX`: until the run ends).
    pub fn connections(&self) -> u64 {
        match self {
            App::RequestResponse { arrivals, .. } => arrivals.connections,
            App::Web(w) => w.connections.unwrap_or(u64::MAX),
            _ => 1,
        }
    }
}

/// A connection's application: its rules and its state.
#[derive(Clone, Debug)]
pub enum Driver {
    Bulk {
        bytes: Option<u64>,
    },
    /// Writes come from the flow's schedule or rate (`World::write`, `World::rate_write`),
    /// not from hooks.
    Writes,
    Exchange(Exchange),
}

impl Driver {
    /// The driver of a new connection of a flow with `app`; a web flow's draws what the
    /// connection carries from the flow's generator `web`.
    pub fn new(app: &App, web: Option<&mut PackMime>) -> Driver {
        match (app, web) {
            (App::Bulk { bytes }, _) => Driver::Bulk { bytes: *bytes },
            (App::Writes { .. } | App::RateLimited(_), _) => Driver::Writes,
            (App::RequestResponse { exchange, .. }, _) => Driver::Exchange(Exchange::new(*exchange)),
            // HTTP/1.0 and 1.1 alike: the server's FIN rides on the last response (ns-2's
            // `MSG_EOF`), and the client closes when it sees it.
            (App::Web(_), Some(g)) => Driver::Exchange(Exchange::drawn(g.connection(), Closer::Server)),
            (App::Web(_), None) => unreachable!("a web flow's connections are drawn from its generator"),
        }
    }

    /// What end `side` does on hearing `hook`, appended to `out`.
    pub fn on(&mut self, side: Side, hook: Hook, out: &mut Vec<Action>) {
        match self {
            Driver::Bulk { bytes } => {
                // The receiver of a bulk transfer never closes: a flow's tables describe one
                // direction, and its FIN would add a segment to every run.
                if hook == Hook::Opened {
                    match bytes {
                        None => out.push(Action::WriteUnlimited),
                        Some(b) => out.extend([Action::Write(*b), Action::Close]),
                    }
                }
            }
            Driver::Writes => {}
            Driver::Exchange(x) => x.on(side, hook, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_end_knows_its_connection_side_and_peer() {
        let e = EndId::new(7, Side::Passive);
        assert_eq!((e.conn(), e.side(), e.peer(), e.index()), (7, Side::Passive, EndId::new(7, Side::Active), 15));
        assert_eq!(e.peer().peer(), e);
    }

    #[test]
    fn poisson_gaps_have_the_mean_and_spread_of_an_exponential() {
        let a = Arrivals { connections: 0, mean_gap: Duration::from_millis(10), poisson: true };
        let mut rng = crate::rng::stream(1, "test");
        let gaps: Vec<f64> = (0..100_000).map(|_| a.gap(&mut rng).as_secs_f64()).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        // Exponential: the standard deviation equals the mean. 100,000 draws put the sample
        // mean within 1% of 10 ms (its standard error is 0.3%).
        assert!((mean - 0.010).abs() < 0.0001, "mean {mean}");
        assert!((var.sqrt() - 0.010).abs() < 0.0002, "sd {}", var.sqrt());
        let fixed = Arrivals { poisson: false, ..a };
        assert_eq!(fixed.gap(&mut rng), Duration::from_millis(10));
    }
}
