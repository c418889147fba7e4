//! Request/response on one connection: the client (the active end) sends a request, the
//! server answers once the whole request has arrived (after an optional think time), and
//! after the last of `pairs` exchanges one side closes; the other closes when it sees the
//! FIN. The building block of the web workload (paper 002) and of striped reads (paper 004).

use rampup_tcp::Duration;

use super::{Action, Hook, Side};

/// Which side closes after the last exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closer {
    /// The client, once the last response is in (HTTP/1.1's persistent connections).
    Client,
    /// The server, its FIN riding on the last response (HTTP/1.0).
    Server,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExchangeSpec {
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// Exchanges per connection, one after the other (the next request follows the response).
    pub pairs: u32,
    /// The server's delay between a whole request and its response.
    pub think: Duration,
    pub closer: Closer,
}

/// One connection's exchanges so far.
#[derive(Clone, Debug)]
pub struct Exchange {
    spec: ExchangeSpec,
    /// Requests the server has answered (or set its think timer for).
    answered: u32,
    /// Responses the client has received whole.
    received: u32,
    /// Each side has closed.
    closed: [bool; 2],
}

impl Exchange {
    pub fn new(spec: ExchangeSpec) -> Exchange {
        Exchange { spec, answered: 0, received: 0, closed: [false; 2] }
    }

    pub fn on(&mut self, side: Side, hook: Hook, out: &mut Vec<Action>) {
        let s = self.spec;
        match (side, hook) {
            (Side::Active, Hook::Opened) => out.push(Action::Write(s.request_bytes)),
            (Side::Passive, Hook::Delivered { total }) => {
                // The client sends its next request only after the response, so at most one
                // request completes at a time.
                let whole = (total / s.request_bytes).min(s.pairs as u64) as u32;
                if whole > self.answered {
                    self.answered = whole;
                    if s.think == Duration::ZERO {
                        self.respond(out);
                    } else {
                        out.push(Action::Timer(s.think));
                    }
                }
            }
            (Side::Passive, Hook::Timer) => self.respond(out),
            (Side::Active, Hook::Delivered { total }) => {
                let whole = (total / s.response_bytes).min(s.pairs as u64) as u32;
                if whole > self.received {
                    self.received = whole;
                    if whole < s.pairs {
                        out.push(Action::Write(s.request_bytes));
                    } else if s.closer == Closer::Client {
                        self.close(Side::Active, out);
                    }
                }
            }
            (side, Hook::PeerFinished) => self.close(side, out),
            _ => {}
        }
    }

    fn respond(&mut self, out: &mut Vec<Action>) {
        out.push(Action::Write(self.spec.response_bytes));
        if self.answered == self.spec.pairs && self.spec.closer == Closer::Server {
            self.close(Side::Passive, out);
        }
    }

    fn close(&mut self, side: Side, out: &mut Vec<Action>) {
        if !std::mem::replace(&mut self.closed[side as usize], true) {
            out.push(Action::Close);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pairs: u32, think: Duration, closer: Closer) -> ExchangeSpec {
        ExchangeSpec { request_bytes: 1000, response_bytes: 10_000, pairs, think, closer }
    }

    fn on(x: &mut Exchange, side: Side, hook: Hook) -> Vec<Action> {
        let mut out = Vec::new();
        x.on(side, hook, &mut out);
        out
    }

    #[test]
    fn the_server_answers_only_a_whole_request_and_closes_after_the_last() {
        let mut x = Exchange::new(spec(1, Duration::ZERO, Closer::Server));
        assert_eq!(on(&mut x, Side::Active, Hook::Opened), [Action::Write(1000)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 999 }), []);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 1000 }), [Action::Write(10_000), Action::Close]);
        // The client has all it asked for; it closes when it sees the server's FIN, once.
        assert_eq!(on(&mut x, Side::Active, Hook::Delivered { total: 10_000 }), []);
        assert_eq!(on(&mut x, Side::Active, Hook::PeerFinished), [Action::Close]);
        assert_eq!(on(&mut x, Side::Passive, Hook::PeerFinished), []);
    }

    #[test]
    fn a_persistent_connection_sends_the_next_request_after_each_response() {
        let mut x = Exchange::new(spec(2, Duration::ZERO, Closer::Client));
        on(&mut x, Side::Active, Hook::Opened);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 1000 }), [Action::Write(10_000)]);
        assert_eq!(on(&mut x, Side::Active, Hook::Delivered { total: 10_000 }), [Action::Write(1000)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 2000 }), [Action::Write(10_000)]);
        assert_eq!(on(&mut x, Side::Active, Hook::Delivered { total: 20_000 }), [Action::Close]);
        assert_eq!(on(&mut x, Side::Passive, Hook::PeerFinished), [Action::Close]);
    }

    #[test]
    fn think_time_delays_the_response() {
        let think = Duration::from_millis(5);
        let mut x = Exchange::new(spec(1, think, Closer::Server));
        on(&mut x, Side::Active, Hook::Opened);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 1000 }), [Action::Timer(think)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Timer), [Action::Write(10_000), Action::Close]);
    }
}
