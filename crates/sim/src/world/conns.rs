//! The connection ends and the slots that hold them. A connection lives in a slot (its two
//! ends side by side in `Conns::ends`) from its opening until both ends are closed and
//! nothing of it is in flight; then its row goes to the `connections` table and the slot is
//! reused, so memory follows the connections open at once.

use std::num::Wrapping;
use std::ops::{Index, IndexMut};

use rampup_tcp::restart::RestartMetrics;
use rampup_tcp::{Duration, Endpoint, Snapshot, State, Time};

use super::flows::FlowState;
use crate::output::{table, Column, Table};
use crate::traffic::{App, Driver, Side};

/// The most connections open at once: two `Endpoint`s of some 1.5 kB each per connection,
/// with their ends' other state and buffers some 3 GB in all, far below the 2^23 that
/// event ranks could tell apart (`engine::MAX_INDEX`), so that a run whose connections pile
/// up (arriving faster than they finish) stops with an error before it exhausts memory.
pub const MAX_OPEN: usize = 1_000_000;

/// One end of a TCP connection placed on a node.
///
/// Laid out by hand (`repr(C)`, on a cache line boundary): what the world reads at every
/// segment in and out of this end fills the 40 bytes after the endpoint, in the endpoint's
/// last cache line. `Endpoint` is in Rust's own order (not `repr(C)`), which puts the
/// endpoint's state and flags in that line too; no test holds the compiler to that. With
/// many flows an end is seldom in a near cache, and each line read is a miss. A test checks
/// that the world's fields share the endpoint's last line.
#[repr(C, align(64))]
pub(super) struct Conn {
    pub(super) ep: Endpoint,
    /// The earliest Timer event in the queue for this end (later ones are stale), `Time::MAX`
    /// when none is: a plain `Time` keeps the fields below within the endpoint's last line.
    pub(super) timer_at: Time,
    /// The acknowledged payload at which its flow's next transfer completes, `u64::MAX`
    /// when none is pending (`records` ends): an ACK that completes none reads no flow
    /// state, whose line is seldom in a near cache (docs/performance.md).
    pub(super) next_done_at: u64,
    pub(super) peer_node: u32,
    /// The port it sends on: its host's route to the peer's, fixed at set-up.
    pub(super) port: u32,
    /// Its vrate group and its place there (`world::host`): what it sends goes through it.
    pub(super) vrate: Option<(u32, u32)>,
    /// Whether this end may take a segment ahead of time (see `World::receive_ahead`).
    pub(super) receives_ahead: bool,
    /// Set while the world sends what this end wants to send: a segment that reaches it
    /// meanwhile, later in simulated time, must wait for its event.
    pub(super) in_service: bool,
    /// The connection was opened at run time (`traffic::App::one_connection` is false): its
    /// application hears what the end receives and its peer's FIN, and its slot is reused
    /// once it is gone, so its packets in flight are counted (`Conns::in_flight`). Not for
    /// a flow's one connection, which keeps its slot and whose application acts only when
    /// the flow starts and on its schedule: its packets then cost no count and its inputs
    /// no look at its state.
    pub(super) counted: bool,
    /// This end is the active end of a flow's one connection: its state is traced and its
    /// acknowledgements complete the flow's transfers (`record_sender`).
    pub(super) records: bool,
    // Read on drops, by traces and by connections opened at run time, and at set-up.
    pub(super) flow: u32,
    pub(super) node: u32,
    /// Its ensemble and its place there (`world::host`): its window is a share.
    pub(super) ensemble: Option<(u32, u32)>,
    /// The state this end was last seen in (`observe`; counted ends only).
    pub(super) seen: State,
    pub(super) last: Option<Snapshot>,
}

impl Conn {
    pub(super) fn new(ep: Endpoint, node: u32, peer_node: u32, port: u32, flow: u32, app: &App, side: Side) -> Conn {
        Conn {
            seen: ep.state(),
            ep,
            node,
            peer_node,
            port,
            flow,
            timer_at: Time::MAX,
            receives_ahead: false,
            in_service: false,
            counted: !app.one_connection(),
            records: app.one_connection() && side == Side::Active,
            next_done_at: u64::MAX,
            last: None,
            vrate: None,
            ensemble: None,
        }
    }
}

/// A connection's place in the world.
pub(super) struct Slot {
    /// The connection's number, in the order opened (its row in the `connections` table).
    pub(super) id: u64,
    pub(super) flow: u32,
    /// In use by a connection (else on the free list).
    pub(super) live: bool,
    pub(super) opened: Option<Time>,
    /// Ends that reached `State::Closed`, and when the second did.
    pub(super) ends_closed: u8,
    pub(super) closed: Option<Time>,
    pub(super) driver: Driver,
    /// Each end's application timer, if set (`traffic::Action::Timer`).
    pub(super) app_timers: [Option<Time>; 2],
}

impl Slot {
    pub(super) fn new(flow: u32, driver: Driver) -> Slot {
        Slot { id: 0, flow, live: true, opened: None, ends_closed: 0, closed: None, driver, app_timers: [None; 2] }
    }
}

/// The connection ends, two per slot (`traffic::EndId`, by which they are indexed), the
/// slots, and the limits on how many may be open at once.
pub(super) struct Conns {
    pub(super) ends: Vec<Conn>,
    pub(super) slots: Vec<Slot>,
    free: Vec<u32>,
    /// Packets of each slot's connection in flight: a slot is reused only when none are.
    /// Wrapping: a packet its first port drops is discarded while its end is still sending,
    /// before `serve_counted` adds what was sent, so a count passes below zero for that
    /// moment (and no slot is reclaimed meanwhile: `reclaim_if_done` wants zero).
    pub(super) in_flight: Vec<Wrapping<u32>>,
    next_id: u64,
    /// Rows of the connections whose slots were reused.
    rows: Vec<ConnRow>,
    /// More connections were to be open at once than `max_open` (`MAX_OPEN`).
    pub(super) too_many_open: bool,
    pub(super) max_open: usize,
    /// The run stops once the engine's heap (`memory::allocated_bytes`) is above this; the
    /// heap and the time when a connection was refused for it (`World::new_conn`), if one was.
    pub(super) memory_budget: Option<u64>,
    pub(super) over_memory: Option<(u64, Time)>,
}

impl Index<usize> for Conns {
    type Output = Conn;
    #[inline(always)]
    fn index(&self, i: usize) -> &Conn {
        &self.ends[i]
    }
}

impl IndexMut<usize> for Conns {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut Conn {
        &mut self.ends[i]
    }
}

impl Conns {
    pub(super) fn new() -> Conns {
        Conns {
            ends: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            in_flight: Vec::new(),
            next_id: 0,
            rows: Vec::new(),
            too_many_open: false,
            max_open: MAX_OPEN,
            memory_budget: None,
            over_memory: None,
        }
    }

    /// Whether a connection may open at `now`: not when the heap is past the memory budget,
    /// which the next report turns into the run's error.
    pub(super) fn memory_allows(&mut self, now: Time) -> bool {
        let held = crate::memory::allocated_bytes();
        if self.memory_budget.is_some_and(|b| held > b) {
            self.over_memory = Some((held, now));
            return false;
        }
        true
    }

    /// Place a connection's two ends (active, passive) and its slot in a free slot, or a new
    /// one; `None` when `max_open` are open (the next report stops the run).
    pub(super) fn place(&mut self, ends: [Conn; 2], mut slot: Slot) -> Option<u32> {
        slot.id = self.next_id;
        let s = match self.free.pop() {
            Some(s) => {
                let [a, p] = ends;
                self.ends[2 * s as usize] = a;
                self.ends[2 * s as usize + 1] = p;
                self.slots[s as usize] = slot;
                s
            }
            None => {
                if self.slots.len() >= self.max_open {
                    self.too_many_open = true;
                    return None;
                }
                self.ends.extend(ends);
                self.slots.push(slot);
                self.in_flight.push(Wrapping(0));
                self.slots.len() as u32 - 1
            }
        };
        self.next_id += 1;
        Some(s)
    }

    /// Reuse slot `slot` if both its ends are closed and nothing of it is in flight (a
    /// segment still on its way would find its end gone). Its row is kept and its ends'
    /// counts go to its flow (among `flows`) first. Called for counted connections only,
    /// after an end of one was served closed or one of its packets was dropped.
    pub(super) fn reclaim_if_done(&mut self, slot: u32, flows: &mut [FlowState]) {
        let s = &self.slots[slot as usize];
        if s.ends_closed < 2 || self.in_flight[slot as usize].0 > 0 || !s.live {
            return;
        }
        let (a, p) = (&self.ends[2 * slot as usize], &self.ends[2 * slot as usize + 1]);
        self.rows.push(ConnRow::new(slot, s, a, p));
        let totals = &mut flows[s.flow as usize].totals;
        totals.add(&a.ep);
        totals.add(&p.ep);
        self.slots[slot as usize].live = false;
        self.free.push(slot);
    }

    /// At the end of a run: the connections still in their slots counted into their flows
    /// (among `flows`), and the rows of all opened connections, in the order opened.
    pub(super) fn take_rows(&mut self, flows: &mut [FlowState]) -> Vec<ConnRow> {
        let mut rows = std::mem::take(&mut self.rows);
        for (i, s) in self.slots.iter().enumerate().filter(|(_, s)| s.live) {
            let (a, p) = (&self.ends[2 * i], &self.ends[2 * i + 1]);
            let totals = &mut flows[s.flow as usize].totals;
            totals.add(&a.ep);
            totals.add(&p.ep);
            if s.opened.is_some() {
                rows.push(ConnRow::new(i as u32, s, a, p));
            }
        }
        rows.sort_unstable_by_key(|r| r.id);
        rows
    }
}

/// One row of the `connections` table. "Up" is from the active end (the client) to the
/// passive one, "down" the other way; byte times are when the receiving application got them.
pub(super) struct ConnRow {
    id: u64,
    flow: u32,
    /// Its ends' ports in a capture (`trace::pcap`): from its slot.
    ports: (u16, u16),
    open: Time,
    established: Option<Time>,
    first_up: Option<Time>,
    last_up: Option<Time>,
    first_down: Option<Time>,
    last_down: Option<Time>,
    closed: Option<Time>,
    bytes_up: u64,
    bytes_down: u64,
    retransmits: u64,
    timeouts: u64,
    preemptive: u64,
    spurious_preemptive: u64,
    /// Request/response exchanges the connection's application has, and those whose
    /// response the client received whole (0 for other applications).
    requests: u32,
    responses: u32,
    /// What the application is to send each way, in all.
    request_bytes: u64,
    response_bytes: u64,
    handshake_rtt: Option<Duration>,
    /// The restart policies' figures, of whichever end has them (Careful Resume's jump and
    /// Safe Retreat windows).
    resume: RestartMetrics,
}

impl ConnRow {
    /// The row of the opened connection in slot `slot`, `s`, with ends `a` (active) and `p` (passive).
    fn new(slot: u32, s: &Slot, a: &Conn, p: &Conn) -> ConnRow {
        let (sa, sp) = (a.ep.stats(), p.ep.stats());
        let (ma, mp) = (a.ep.milestones(), p.ep.milestones());
        let (pa, pp) = (a.ep.preemptive_stats(), p.ep.preemptive_stats());
        let ((requests, responses), (request_bytes, response_bytes)) = match &s.driver {
            Driver::Exchange(x) => (x.pairs(), x.bytes()),
            _ => ((0, 0), (0, 0)),
        };
        ConnRow {
            id: s.id,
            flow: s.flow,
            ports: crate::trace::pcap::ports_of(slot),
            open: s.opened.expect("only opened connections have rows"),
            established: ma.established,
            first_up: mp.first_delivery,
            last_up: mp.last_delivery,
            first_down: ma.first_delivery,
            last_down: ma.last_delivery,
            closed: s.closed,
            bytes_up: p.ep.bytes_received(),
            bytes_down: a.ep.bytes_received(),
            retransmits: sa.retransmits + sp.retransmits,
            timeouts: sa.timeouts + sp.timeouts,
            preemptive: pa.retransmits + pp.retransmits,
            spurious_preemptive: pa.spurious + pp.spurious,
            requests,
            responses,
            request_bytes,
            response_bytes,
            handshake_rtt: a.ep.measure().handshake_rtt(),
            resume: {
                let (ra, rp) = (a.ep.restart_metrics(), p.ep.restart_metrics());
                RestartMetrics {
                    jump_cwnd_bytes: ra.jump_cwnd_bytes.max(rp.jump_cwnd_bytes),
                    retreat_cwnd_bytes: ra.retreat_cwnd_bytes.max(rp.retreat_cwnd_bytes),
                }
            },
        }
    }
}

/// The `connections` table of `rows`; `from` and `to` name a flow's hosts.
pub(super) fn connections_table(rows: &[ConnRow], from: impl Fn(usize) -> String, to: impl Fn(usize) -> String) -> Table {
    let u = |f: fn(&ConnRow) -> u64| Column::U64(rows.iter().map(f).collect());
    // Times in ns as floats: NaN when the moment never came.
    let t = |f: fn(&ConnRow) -> Option<Time>| Column::F64(rows.iter().map(|r| f(r).map_or(f64::NAN, |t| t.as_nanos() as f64)).collect());
    table(vec![
        ("conn", u(|r| r.id)),
        ("flow", u(|r| r.flow as u64)),
        ("from", Column::Str(rows.iter().map(|r| from(r.flow as usize)).collect())),
        ("to", Column::Str(rows.iter().map(|r| to(r.flow as usize)).collect())),
        ("client_port", u(|r| r.ports.0 as u64)),
        ("server_port", u(|r| r.ports.1 as u64)),
        ("open_ns", u(|r| r.open.as_nanos())),
        ("established_ns", t(|r| r.established)),
        ("first_byte_up_ns", t(|r| r.first_up)),
        ("last_byte_up_ns", t(|r| r.last_up)),
        ("first_byte_down_ns", t(|r| r.first_down)),
        ("last_byte_down_ns", t(|r| r.last_down)),
        ("close_ns", t(|r| r.closed)),
        ("bytes_up", u(|r| r.bytes_up)),
        ("bytes_down", u(|r| r.bytes_down)),
        ("retransmits", u(|r| r.retransmits)),
        ("timeouts", u(|r| r.timeouts)),
        ("preemptive", u(|r| r.preemptive)),
        ("spurious_preemptive", u(|r| r.spurious_preemptive)),
        ("requests", u(|r| r.requests as u64)),
        ("responses", u(|r| r.responses as u64)),
        ("request_bytes", u(|r| r.request_bytes)),
        ("response_bytes", u(|r| r.response_bytes)),
        // From the SYN to the last byte of the last response, once all responses are in.
        (
            "duration_ns",
            Column::F64(
                rows.iter()
                    .map(|r| match r.last_down {
                        Some(t) if r.responses == r.requests && r.requests > 0 => t.since(r.open).as_nanos() as f64,
                        _ => f64::NAN,
                    })
                    .collect(),
            ),
        ),
        ("handshake_rtt_s", Column::F64(rows.iter().map(|r| r.handshake_rtt.map_or(f64::NAN, |d| d.as_secs_f64())).collect())),
        ("resume_jump_bytes", u(|r| r.resume.jump_cwnd_bytes)),
        ("resume_retreat_bytes", u(|r| r.resume.retreat_cwnd_bytes)),
    ])
}

#[cfg(test)]
mod tests {
    use std::mem::offset_of;

    use super::Conn;

    #[test]
    fn what_the_world_reads_of_an_end_shares_the_endpoint_s_last_line() {
        // `Conn`'s layout: from `timer_at` to `records`, in the line the endpoint ends in.
        let line = |offset: usize| offset / 64;
        let endpoint_ends = line(size_of::<rampup_tcp::Endpoint>() - 1);
        assert_eq!(line(offset_of!(Conn, timer_at)), endpoint_ends);
        assert_eq!(line(offset_of!(Conn, records)), endpoint_ends);
    }
}
