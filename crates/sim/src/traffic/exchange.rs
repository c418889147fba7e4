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

/// One request and its response.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// The server's delay between the whole request and its response.
    pub think: Duration,
    /// The client's pause between the previous response and this request (none before the
    /// first).
    pub gap: Duration,
}

/// What a connection's exchanges carry: the same pair each time, or pairs drawn for it.
#[derive(Clone, Debug)]
enum Script {
    Same(ExchangeSpec),
    Drawn(Box<[Pair]>),
}

impl Script {
    fn len(&self) -> u32 {
        match self {
            Script::Same(s) => s.pairs,
            Script::Drawn(p) => p.len() as u32,
        }
    }
    /// The bytes of all the requests and of all the responses.
    fn bytes(&self) -> (u64, u64) {
        match self {
            Script::Same(s) => (s.request_bytes * s.pairs as u64, s.response_bytes * s.pairs as u64),
            Script::Drawn(p) => p.iter().fold((0, 0), |(q, r), p| (q + p.request_bytes, r + p.response_bytes)),
        }
    }
    fn pair(&self, i: u32) -> Pair {
        match self {
            Script::Same(s) => Pair { request_bytes: s.request_bytes, response_bytes: s.response_bytes, think: s.think, gap: Duration::ZERO },
            Script::Drawn(p) => p[i as usize],
        }
    }
}

/// One connection's exchanges so far.
#[derive(Clone, Debug)]
pub struct Exchange {
    script: Script,
    closer: Closer,
    /// Requests the server has received whole.
    answered: u32,
    /// Responses the client has received whole.
    received: u32,
    /// The bytes the server has received once the request it waits for is whole, and the
    /// bytes the client has received once the response it waits for is.
    request_end: u64,
    response_end: u64,
    /// Each side has closed.
    closed: [bool; 2],
}

impl Exchange {
    pub fn new(spec: ExchangeSpec) -> Exchange {
        Exchange::with(Script::Same(spec), spec.closer)
    }

    /// Exchanges of the pairs drawn for this connection (at least one), in order.
    pub fn drawn(pairs: Box<[Pair]>, closer: Closer) -> Exchange {
        assert!(!pairs.is_empty(), "a connection carries at least one exchange");
        Exchange::with(Script::Drawn(pairs), closer)
    }

    fn with(script: Script, closer: Closer) -> Exchange {
        let first = script.pair(0);
        Exchange { script, closer, answered: 0, received: 0, request_end: first.request_bytes, response_end: first.response_bytes, closed: [false; 2] }
    }

    /// Exchanges in all, and those whose response the client has whole.
    pub fn pairs(&self) -> (u32, u32) {
        (self.script.len(), self.received)
    }

    /// The bytes of all the requests and of all the responses the connection is to carry.
    pub fn bytes(&self) -> (u64, u64) {
        self.script.bytes()
    }

    pub fn on(&mut self, side: Side, hook: Hook, out: &mut Vec<Action>) {
        let n = self.script.len();
        match (side, hook) {
            (Side::Active, Hook::Opened) => out.push(Action::Write(self.script.pair(0).request_bytes)),
            // The client sends its next request only after the response, so at most one
            // request completes at a time.
            (Side::Passive, Hook::Delivered { total }) if self.answered < n && total >= self.request_end => {
                let think = self.script.pair(self.answered).think;
                self.answered += 1;
                if self.answered < n {
                    self.request_end += self.script.pair(self.answered).request_bytes;
                }
                if think == Duration::ZERO {
                    self.respond(out);
                } else {
                    out.push(Action::Timer(think));
                }
            }
            (Side::Passive, Hook::Timer) => self.respond(out),
            (Side::Active, Hook::Delivered { total }) if self.received < n && total >= self.response_end => {
                self.received += 1;
                if self.received < n {
                    let next = self.script.pair(self.received);
                    self.response_end += next.response_bytes;
                    if next.gap == Duration::ZERO {
                        out.push(Action::Write(next.request_bytes));
                    } else {
                        out.push(Action::Timer(next.gap));
                    }
                } else if self.closer == Closer::Client {
                    self.close(Side::Active, out);
                }
            }
            (Side::Active, Hook::Timer) => out.push(Action::Write(self.script.pair(self.received).request_bytes)),
            (side, Hook::PeerFinished) => self.close(side, out),
            _ => {}
        }
    }

    fn respond(&mut self, out: &mut Vec<Action>) {
        out.push(Action::Write(self.script.pair(self.answered - 1).response_bytes));
        if self.answered == self.script.len() && self.closer == Closer::Server {
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
        assert_eq!(x.bytes(), (2000, 20_000), "both exchanges' bytes");
    }

    #[test]
    fn think_time_delays_the_response() {
        let think = Duration::from_millis(5);
        let mut x = Exchange::new(spec(1, think, Closer::Server));
        on(&mut x, Side::Active, Hook::Opened);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 1000 }), [Action::Timer(think)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Timer), [Action::Write(10_000), Action::Close]);
    }

    #[test]
    fn drawn_pairs_keep_their_own_sizes_think_times_and_pauses() {
        let (t1, t2, gap) = (Duration::from_millis(3), Duration::from_millis(4), Duration::from_millis(50));
        let pairs = [
            Pair { request_bytes: 300, response_bytes: 5000, think: t1, gap: Duration::ZERO },
            Pair { request_bytes: 200, response_bytes: 700, think: t2, gap },
        ];
        let mut x = Exchange::drawn(Box::new(pairs), Closer::Server);
        assert_eq!(on(&mut x, Side::Active, Hook::Opened), [Action::Write(300)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 300 }), [Action::Timer(t1)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Timer), [Action::Write(5000)]);
        // The first response is whole at 5000 bytes: the client pauses, then asks again.
        assert_eq!(on(&mut x, Side::Active, Hook::Delivered { total: 4999 }), []);
        assert_eq!(on(&mut x, Side::Active, Hook::Delivered { total: 5000 }), [Action::Timer(gap)]);
        assert_eq!(x.pairs(), (2, 1));
        assert_eq!(on(&mut x, Side::Active, Hook::Timer), [Action::Write(200)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 499 }), []);
        assert_eq!(on(&mut x, Side::Passive, Hook::Delivered { total: 500 }), [Action::Timer(t2)]);
        assert_eq!(on(&mut x, Side::Passive, Hook::Timer), [Action::Write(700), Action::Close]);
        assert_eq!(on(&mut x, Side::Active, Hook::Delivered { total: 5700 }), []);
        assert_eq!(x.pairs(), (2, 2));
    }
}
