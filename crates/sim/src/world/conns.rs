//! Connections opened and closed at run time, and the applications on them: the world's side
//! of `crate::traffic`. A connection lives in a slot (its two ends side by side in
//! `World::conns`) from its opening until both ends are closed and nothing of it is in
//! flight; then its row goes to the `connections` table and the slot is reused, so memory
//! follows the connections open at once.

use std::num::Wrapping;

use rampup_tcp::{Endpoint, Role, State, Time};

use super::{Conn, Event, FlowState, Transfer, World};
use crate::engine::{Class, Order};
use crate::traffic::{Action, App, Driver, EndId, Hook, PackMime, Side};

/// The most connections open at once: two `Endpoint`s of some 1.5 kB each per connection,
/// with their ends' other state and buffers some 3 GB in all, far below the 2^23 that
/// event ranks could tell apart (`engine::MAX_INDEX`), so that a run whose connections pile
/// up (arriving faster than they finish) stops with an error before it exhausts memory.
pub const MAX_OPEN: usize = 1_000_000;

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

impl Conn {
    fn new(ep: Endpoint, node: u32, peer_node: u32, port: u32, flow: u32, app: &App, side: Side) -> Conn {
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

impl<'s> World<'s> {
    /// A connection for flow `f` in a free slot, or `None` when `MAX_OPEN` are open or the
    /// heap is past the run's memory budget (the next report stops the run).
    pub(super) fn new_conn(&mut self, f: u32) -> Option<u32> {
        let held = crate::memory::allocated_bytes();
        if self.memory_budget.is_some_and(|b| held > b) {
            self.over_memory = Some((held, self.now));
            return None;
        }
        let flow = &self.sc.flows[f as usize];
        if let (App::Web(w), None) = (&flow.app, &self.flows[f as usize].web) {
            let rate = crate::paths::web_rate(&self.net, flow).expect("a web flow");
            self.flows[f as usize].web = Some(Box::new(PackMime::new(rate, w.http, self.seed, f)));
        }
        let (from, to) = (flow.from as u32, flow.to as u32);
        let ends = [(from, to, Role::Active, Side::Active), (to, from, Role::Passive, Side::Passive)].map(|(node, peer, role, side)| {
            let mut ep = Endpoint::new(flow.tcp.clone(), role);
            if self.sc.trace.rtt || flow.group.is_some() {
                // The RTT samples come as events (`World::hear_samples`).
                ep.enable_events();
            }
            Conn::new(ep, node, peer, self.net.route(node, peer), f, &flow.app, side)
        });
        let slot = Slot {
            id: self.next_conn_id,
            flow: f,
            live: true,
            opened: None,
            ends_closed: 0,
            closed: None,
            driver: Driver::new(&flow.app, self.flows[f as usize].web.as_deref_mut()),
            app_timers: [None; 2],
        };
        let s = match self.free_slots.pop() {
            Some(s) => {
                let [a, p] = ends;
                self.conns[2 * s as usize] = a;
                self.conns[2 * s as usize + 1] = p;
                self.slots[s as usize] = slot;
                s
            }
            None => {
                if self.slots.len() >= self.max_open {
                    self.too_many_open = true;
                    return None;
                }
                self.conns.extend(ends);
                self.slots.push(slot);
                self.in_flight.push(Wrapping(0));
                self.slots.len() as u32 - 1
            }
        };
        self.next_conn_id += 1;
        Some(s)
    }

    /// Flow `f` opens its connection number `k`: for a flow of one connection, made with the
    /// world, this is the flow's start.
    pub(super) fn open(&mut self, f: u32, k: u32) {
        let now = self.now;
        let fs = &mut self.flows[f as usize];
        fs.start.get_or_insert(now);
        let slot = match fs.conn {
            Some(s) => s,
            None => match self.new_conn(f) {
                Some(s) => s,
                None => return,
            },
        };
        let fs = &mut self.flows[f as usize];
        fs.opened += 1;
        fs.open += 1;
        self.slots[slot as usize].opened = Some(now);
        match &self.sc.flows[f as usize].app {
            App::Writes { schedule } => {
                for (k, (at, _)) in schedule.iter().enumerate() {
                    self.events.push(now + *at, Order::new(Class::App, f, k as u64 + 1), Event::Write(f, k as u32));
                }
            }
            App::RequestResponse { arrivals, .. } if (k as u64) + 1 < arrivals.connections => {
                let rng = self.flows[f as usize].arrivals.get_or_insert_with(|| crate::rng::stream(self.seed, &format!("flow:{f}:arrivals")));
                let at = now + arrivals.gap(rng);
                self.events.push(at, Order::new(Class::App, f, k as u64 + 1), Event::Open(f, k + 1));
            }
            App::RateLimited(_) => self.start_rate_limited(f),
            App::Web(w) if (k as u64) + 1 < w.connections.unwrap_or(u64::MAX) => {
                let at = now + self.flows[f as usize].web.as_mut().expect("made by new_conn").gap();
                self.events.push(at, Order::new(Class::App, f, k as u64 + 1), Event::Open(f, k + 1));
            }
            _ => {}
        }
        let active = EndId::new(slot, Side::Active);
        self.hear(active, Hook::Opened, now);
        self.service(active, now);
    }

    /// Write `k` of a flow's schedule.
    pub(super) fn write(&mut self, f: u32, k: u32) {
        let (App::Writes { schedule }, Some(slot)) = (&self.sc.flows[f as usize].app, self.flows[f as usize].conn) else { return };
        let end = EndId::new(slot, Side::Active);
        self.act(end, Action::Write(schedule[k as usize].1), self.now);
        self.service(end, self.now);
    }

    /// `end`'s application hears `hook` and acts; whether it did anything.
    pub(super) fn hear(&mut self, end: EndId, hook: Hook, now: Time) -> bool {
        let mut out = std::mem::take(&mut self.actions);
        self.slots[end.conn() as usize].driver.on(end.side(), hook, &mut out);
        let acted = !out.is_empty();
        for a in out.drain(..) {
            self.act(end, a, now);
        }
        self.actions = out;
        acted
    }

    fn act(&mut self, end: EndId, action: Action, now: Time) {
        let c = &mut self.conns[end.index()];
        match action {
            Action::Write(bytes) => {
                if c.records {
                    self.new_transfer(end, bytes);
                }
                self.conns[end.index()].ep.write(bytes);
            }
            Action::WriteUnlimited => c.ep.write_unlimited(),
            Action::Close => c.ep.close(),
            Action::Timer(after) => {
                self.slots[end.conn() as usize].app_timers[end.side() as usize] = Some(now + after);
                self.events.push(now + after, Order::new(Class::Timer, end.rank(), 1), Event::AppTimer(end));
            }
        }
    }

    /// The rest of `service` for an end of a connection opened at run time, which sent
    /// `sent` packets: count them, let its application act on what changed (then serve the
    /// end again, for what that gives it to send), and reuse its slot if the connection is
    /// done.
    #[inline(never)]
    pub(super) fn serve_counted(&mut self, end: EndId, now: Time, sent: u32) {
        self.in_flight[end.conn() as usize] += sent;
        if self.observe(end, now) {
            self.service(end, now);
        } else if self.conns[end.index()].seen == State::Closed {
            self.reclaim_if_done(end.conn());
        }
    }

    /// A segment of a connection opened at run time reached `end`, with new payload or not.
    #[inline(never)]
    pub(super) fn delivered_counted(&mut self, end: EndId, payload: bool, now: Time) {
        self.in_flight[end.conn() as usize] -= 1;
        let c = &self.conns[end.index()];
        if payload {
            let total = c.ep.bytes_received();
            self.hear(end, Hook::Delivered { total }, now);
        }
    }

    /// The timer of `end`'s application, unless it is stale (its slot was reused since).
    pub(super) fn app_timer(&mut self, end: EndId) {
        let timer = &mut self.slots[end.conn() as usize].app_timers[end.side() as usize];
        if *timer == Some(self.now) {
            *timer = None;
            self.hear(end, Hook::Timer, self.now);
            self.service(end, self.now);
        }
    }

    /// After an input to counted `end`: note what changed in its state (peer finished,
    /// closed); whether its application acted on it.
    fn observe(&mut self, end: EndId, now: Time) -> bool {
        let c = &self.conns[end.index()];
        c.ep.state() != c.seen && self.state_changed(end, now)
    }

    #[inline(never)]
    fn state_changed(&mut self, end: EndId, now: Time) -> bool {
        let c = &mut self.conns[end.index()];
        let state = c.ep.state();
        let was = std::mem::replace(&mut c.seen, state);
        let slot = &mut self.slots[end.conn() as usize];
        if state == State::Closed {
            slot.ends_closed += 1;
            if slot.ends_closed == 2 {
                slot.closed = Some(now);
                let fs = &mut self.flows[slot.flow as usize];
                fs.open -= 1;
                if fs.open == 0 && fs.opened == self.sc.flows[slot.flow as usize].app.connections() {
                    fs.all_closed = Some(now);
                }
            }
        }
        state.peer_finished() && !was.peer_finished() && self.hear(end, Hook::PeerFinished, now)
    }

    /// Reuse the slot of connection `slot` if both its ends are closed and nothing of it is
    /// in flight (a segment still on its way would find its end gone). Its row and counts
    /// are kept first. Called for counted connections only, after an end of one was served
    /// closed or one of its packets was dropped.
    #[inline(never)]
    pub(super) fn reclaim_if_done(&mut self, slot: u32) {
        let s = &self.slots[slot as usize];
        if s.ends_closed < 2 || self.in_flight[slot as usize].0 > 0 || !s.live {
            return;
        }
        let (a, p) = (&self.conns[2 * slot as usize], &self.conns[2 * slot as usize + 1]);
        self.conn_rows.push(super::finish::ConnRow::new(slot, s, a, p));
        let totals = &mut self.flows[s.flow as usize].totals;
        totals.add(&a.ep);
        totals.add(&p.ep);
        self.slots[slot as usize].live = false;
        self.free_slots.push(slot);
    }

    /// A write of `bytes` by a flow's one connection: a transfer, complete when its last
    /// byte is acknowledged (`record_sender`).
    fn new_transfer(&mut self, end: EndId, bytes: u64) {
        let c = &self.conns[end.index()];
        let fl = &self.flows[c.flow as usize];
        let prev = fl.transfers.last().map_or(0, |&t| self.transfers[t].done_at_acked);
        let id_in_flow = fl.transfers.len();
        self.transfers.push(Transfer {
            flow: c.flow,
            index: id_in_flow as u32,
            start: self.now,
            done_at_acked: prev + bytes,
            bytes,
            end: None,
            retransmits_at_start: c.ep.stats().retransmits,
            drops_at_start: fl.data_drops,
            retransmits: 0,
            drops: 0,
        });
        let id = self.transfers.len() - 1;
        let fl = &mut self.flows[c.flow as usize];
        fl.transfers.push(id);
        if fl.next == id_in_flow {
            self.conns[end.index()].next_done_at = prev + bytes;
        }
    }

    /// The state of a flow's one connection's active end, traced on change, and its flow's
    /// transfers that its acknowledgements completed. Inlined into `service`, as it runs
    /// after every input to a sender.
    #[inline(always)]
    pub(super) fn record_sender(&mut self, end: EndId, now: Time) {
        let c = &mut self.conns[end.index()];
        if self.sc.trace.timeseries {
            let s = c.ep.snapshot();
            if c.last != Some(s) {
                c.last = Some(s);
                self.series.record_state(super::StateRow { t: now, flow: c.flow, s });
            }
        }
        let acked = c.ep.bytes_acked();
        if acked < c.next_done_at {
            return;
        }
        // Read only now: `flow` is not in the line an ACK reads (`Conn`).
        let fl: &mut FlowState = &mut self.flows[c.flow as usize];
        c.next_done_at = u64::MAX;
        while let Some(&t) = fl.transfers.get(fl.next) {
            let tr = &mut self.transfers[t];
            if acked < tr.done_at_acked {
                c.next_done_at = tr.done_at_acked;
                break;
            }
            tr.end = Some(now);
            tr.retransmits = c.ep.stats().retransmits - tr.retransmits_at_start;
            tr.drops = fl.data_drops - tr.drops_at_start;
            fl.next += 1;
        }
    }
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
