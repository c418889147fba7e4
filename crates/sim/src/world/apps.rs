//! The applications as the world runs them: the world's side of `crate::traffic`.
//! Connections opened and closed at run time (`world::conns` holds them), a flow's writes
//! and transfers, a rate-limited flow's phases and writes (`world::rate`), and what an
//! end's application and the traces hear of what it received.

use rampup_tcp::{Endpoint, Event as TcpEvent, Role, State, Time};
use rand::RngCore;

use super::conns::{Conn, Slot};
use super::rate::{spec, RateState};
use super::{Event, World};
use crate::engine::{Class, Order};
use crate::trace::{RttRow, StateRow};
use crate::traffic::{Action, App, Driver, EndId, Hook, PackMime, Side};

impl<'s> World<'s> {
    /// A connection for flow `f` in a free slot, or `None` when `MAX_OPEN` are open or the
    /// heap is past the run's memory budget (the next report stops the run).
    pub(super) fn new_conn(&mut self, f: u32) -> Option<u32> {
        if !self.conns.memory_allows(self.now) {
            return None;
        }
        let flow = &self.sc.flows[f as usize];
        if let (App::Web(w), None) = (&flow.app, &self.flows[f as usize].web) {
            let rate = crate::paths::web_rate(&self.net, flow).expect("a web flow");
            self.flows[f as usize].web = Some(Box::new(PackMime::new(rate, w.http, self.seed, f)));
        }
        let (from, to) = (flow.from as u32, flow.to as u32);
        let k = self.flows[f as usize].opened;
        let seed = self.seed;
        let ends = [(from, to, Role::Active, Side::Active), (to, from, Role::Passive, Side::Passive)].map(|(node, peer, role, side)| {
            let mut ep = Endpoint::new(flow.tcp.clone(), role);
            if let Some(stream) = flow.tcp.random_stream() {
                // Its own stream per end of each connection (`rng::stream`), so that no
                // other source's numbers change.
                let name = format!("{stream}:flow{f}:conn{k}:{role:?}");
                ep.seed_random(crate::rng::stream(seed, &name).next_u64());
            }
            if self.sc.trace.rtt || flow.group.is_some() {
                // The RTT samples come as events (`World::hear_samples`).
                ep.enable_events();
            }
            Conn::new(ep, node, peer, self.net.route(node, peer), f, &flow.app, side)
        });
        let slot = Slot::new(f, Driver::new(&flow.app, self.flows[f as usize].web.as_deref_mut()));
        self.conns.place(ends, slot)
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
        self.conns.slots[slot as usize].opened = Some(now);
        for side in [Side::Active, Side::Passive] {
            let c = &mut self.conns[EndId::new(slot, side).index()];
            if let Some(s) = self.flows.saved.remove(&(c.node, c.peer_node)) {
                c.ep.resume_from(s, now);
            }
        }
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
        self.conns.slots[end.conn() as usize].driver.on(end.side(), hook, &mut out);
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
                    // A write of a flow's one connection: a transfer, complete when its last
                    // byte is acknowledged (`record_sender`).
                    if let Some(done_at) = self.flows.new_transfer(c.flow, self.now, bytes, c.ep.stats().retransmits) {
                        c.next_done_at = done_at;
                    }
                }
                self.conns[end.index()].ep.write(bytes);
            }
            Action::WriteUnlimited => c.ep.write_unlimited(),
            Action::Close => c.ep.close(),
            Action::Timer(after) => {
                self.conns.slots[end.conn() as usize].app_timers[end.side() as usize] = Some(now + after);
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
        self.conns.in_flight[end.conn() as usize] += sent;
        if self.observe(end, now) {
            self.service(end, now);
        } else if self.conns[end.index()].seen == State::Closed {
            self.conns.reclaim_if_done(end.conn(), &mut self.flows.state);
        }
    }

    /// A segment of a connection opened at run time reached `end`, with new payload or not.
    #[inline(never)]
    pub(super) fn delivered_counted(&mut self, end: EndId, payload: bool, now: Time) {
        self.conns.in_flight[end.conn() as usize] -= 1;
        let c = &self.conns[end.index()];
        if payload {
            let total = c.ep.bytes_received();
            self.hear(end, Hook::Delivered { total }, now);
        }
    }

    /// The timer of `end`'s application, unless it is stale (its slot was reused since).
    pub(super) fn app_timer(&mut self, end: EndId) {
        let timer = &mut self.conns.slots[end.conn() as usize].app_timers[end.side() as usize];
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
        let c = &mut self.conns.ends[end.index()];
        let state = c.ep.state();
        let was = std::mem::replace(&mut c.seen, state);
        let slot = &mut self.conns.slots[end.conn() as usize];
        if done_sending(state) && !done_sending(was) {
            // Careful Resume §3.1: the end's observation of the path, for a later connection.
            if let Some(s) = c.ep.saved_path(now) {
                self.flows.saved.insert((c.node, c.peer_node), s);
            }
        }
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
                self.traces.series.record_state(StateRow { t: now, flow: c.flow, s });
            }
        }
        let acked = c.ep.bytes_acked();
        if acked < c.next_done_at {
            return;
        }
        // Read only now: `flow` is not in the line an ACK reads (`Conn`).
        c.next_done_at = self.flows.complete_transfers(c.flow, acked, now, c.ep.stats().retransmits);
        // Careful Resume §3.1: a flow's one connection saves its observation of the path as
        // each transfer is done, for a later connection between the same hosts.
        if let Some(s) = c.ep.saved_path(now) {
            self.flows.saved.insert((c.node, c.peer_node), s);
        }
    }

    // ---------------------------------------------------------------- rate-limited flows

    /// Rate-limited flow `f` starts: its phases are drawn (from the flow's own stream,
    /// "flow:{f}:phases") and set as events; the first begins now.
    fn start_rate_limited(&mut self, f: u32) {
        let s = spec(&self.sc.flows[f as usize].app);
        let mut rng = crate::rng::stream(self.seed, &format!("flow:{f}:phases"));
        let starts = s.phase_starts(self.now, &mut rng);
        for (k, &at) in starts.iter().enumerate().skip(1) {
            self.events.push(at, Order::new(Class::App, f, k as u64), Event::Phase(f, k as u32));
        }
        self.flows[f as usize].rate = Some(Box::new(RateState::new(starts)));
        self.phase(f, 0);
    }

    /// Phase `k` of flow `f` begins: its first write is due now, unless it writes nothing.
    /// The writer saves what it observed of the path so far (Careful Resume §3.1): a phase
    /// ends the rate it was observed at, and an idle may be the connection's last.
    pub(super) fn phase(&mut self, f: u32, k: u32) {
        if let Some(slot) = self.flows[f as usize].conn.filter(|_| k > 0) {
            let c = &self.conns[EndId::new(slot, Side::Active).index()];
            if let Some(saved) = c.ep.saved_path(self.now) {
                self.flows.saved.insert((c.node, c.peer_node), saved);
            }
        }
        let s = spec(&self.sc.flows[f as usize].app);
        let st = self.flows[f as usize].rate.as_deref_mut().expect("made when the flow started");
        if st.begin_phase(k, s) {
            self.schedule_write(f, self.now);
        }
    }

    fn schedule_write(&mut self, f: u32, at: Time) {
        let n = spec(&self.sc.flows[f as usize].app).phases.len() as u64;
        let st = self.flows[f as usize].rate.as_deref_mut().expect("made when the flow started");
        let seq = st.next_write();
        // Ranked after the flow's phase events (1..n), so that a phase that begins at the
        // instant of a write ends the old phase first.
        self.events.push(at, Order::new(Class::App, f, n + seq as u64), Event::RateWrite(f, seq));
    }

    /// Write `seq` of flow `f` is due, unless its phase has ended: one chunk, then the next.
    pub(super) fn rate_write(&mut self, f: u32, seq: u32) {
        let s = spec(&self.sc.flows[f as usize].app);
        let (Some(slot), Some(st)) = (self.flows[f as usize].conn, self.flows[f as usize].rate.as_deref_mut()) else { return };
        let Some(next) = st.take_write(seq, s, self.now) else { return };
        self.schedule_write(f, next);
        let end = EndId::new(slot, Side::Active);
        self.conns[end.index()].ep.write(s.chunk);
        self.service(end, self.now);
    }

    // ---------------------------------------------------------------- what ends received

    /// End `ep`'s application got `bytes` (maybe 0) at `now`: the flow's throughput
    /// interval and a rate-limited flow's phase count them, and the RTT samples the segment
    /// gave are heard (`hear_samples`).
    #[inline(never)]
    pub(super) fn delivered_traced(&mut self, ep: EndId, bytes: u64, now: Time) {
        let flow = self.conns[ep.index()].flow;
        let fs = &mut self.flows[flow as usize];
        let data = match fs.rate.as_deref_mut() {
            Some(st) if bytes > 0 => st.delivered(bytes, now),
            _ => bytes,
        };
        if let Some(interval) = self.sc.trace.throughput {
            if bytes > 0 {
                fs.bin.add(flow, bytes, data, now, interval, &mut self.traces.series);
            }
        }
        if self.sc.trace.rtt || !self.hosts.groups.is_empty() {
            self.hear_samples(ep, now);
        }
    }

    /// The RTT samples end `ep`'s last input gave: rows of the rtt trace, and news for its
    /// vrate group (`crate::vrate::Group::on_sample`). Its other events are of no use here.
    fn hear_samples(&mut self, ep: EndId, now: Time) {
        let c = &mut self.conns.ends[ep.index()];
        let connection = self.conns.slots[ep.index() / 2].id;
        let done = c.ep.all_acked();
        while let Some(e) = c.ep.poll_event() {
            let TcpEvent::RttSample { rtt, cwnd } = e else { continue };
            if self.sc.trace.rtt {
                self.traces.series.record_rtt(RttRow { t: now, flow: c.flow, connection, end: ep.side() as u8, rtt, cwnd });
            }
            if let Some((g, m)) = c.vrate {
                self.hosts.groups[g as usize].group.on_sample(now, m as usize, rtt, cwnd, done);
            }
        }
        if let Some((g, _)) = self.conns[ep.index()].vrate {
            self.schedule_release(g, now);
        }
    }
}

/// The end's own FIN is acknowledged (or the connection is gone): it sends no more.
fn done_sending(s: State) -> bool {
    matches!(s, State::FinWait2 | State::TimeWait | State::Closed)
}
