//! The world's side of a rate-limited flow (`traffic::RateLimitedSpec`): its phases and its
//! writes as events on the flow, and what its receiver got in each phase (the `phases`
//! table), told apart from padding by the flow's `Ledger`.

use rampup_tcp::Time;

use super::{Event, World};
use crate::engine::{Class, Order};
use crate::output::{table, Column, Table};
use crate::traffic::{App, EndId, Ledger, RateLimitedSpec, Side};

/// A rate-limited flow's state.
pub(super) struct RateState {
    /// When each phase starts (drawn when the flow starts).
    starts: Vec<Time>,
    phase: usize,
    /// Writes so far in the phase, and in all (the ranks of the write events).
    phase_writes: u64,
    writes: u64,
    /// The write due next; an event for another is stale (its phase has ended).
    due: Option<u32>,
    ledger: Ledger,
    /// Per phase: payload bytes the receiver got while it ran, and the data among them.
    got: Vec<(u64, u64)>,
}

fn spec(app: &App) -> &RateLimitedSpec {
    match app {
        App::RateLimited(s) => s,
        _ => unreachable!("a rate-limited flow's state belongs to a rate-limited app"),
    }
}

impl World<'_> {
    /// Rate-limited flow `f` starts: its phases are drawn (from the flow's own stream,
    /// "flow:{f}:phases") and set as events; the first begins now.
    pub(super) fn start_rate_limited(&mut self, f: u32) {
        let sc = self.sc;
        let s = spec(&sc.flows[f as usize].app);
        let mut rng = crate::rng::stream(self.seed, &format!("flow:{f}:phases"));
        let starts = s.phase_starts(self.now, &mut rng);
        for (k, &at) in starts.iter().enumerate().skip(1) {
            self.events.push(at, Order::new(Class::App, f, k as u64), Event::Phase(f, k as u32));
        }
        let got = vec![(0, 0); starts.len()];
        self.flows[f as usize].rate = Some(Box::new(RateState { starts, phase: 0, phase_writes: 0, writes: 0, due: None, ledger: Ledger::default(), got }));
        self.phase(f, 0);
    }

    /// Phase `k` of flow `f` begins: its first write is due now, unless it writes nothing.
    pub(super) fn phase(&mut self, f: u32, k: u32) {
        let sc = self.sc;
        let s = spec(&sc.flows[f as usize].app);
        let st = self.flows[f as usize].rate.as_deref_mut().expect("made when the flow started");
        st.phase = k as usize;
        st.phase_writes = 0;
        st.due = None;
        if s.writing(st.phase).write.bps() > 0 {
            self.schedule_write(f, self.now);
        }
    }

    fn schedule_write(&mut self, f: u32, at: Time) {
        let n = spec(&self.sc.flows[f as usize].app).phases.len() as u64;
        let st = self.flows[f as usize].rate.as_deref_mut().expect("made when the flow started");
        let seq = st.writes as u32;
        st.due = Some(seq);
        // Ranked after the flow's phase events (1..n), so that a phase that begins at the
        // instant of a write ends the old phase first.
        self.events.push(at, Order::new(Class::App, f, n + st.writes), Event::RateWrite(f, seq));
    }

    /// Write `seq` of flow `f` is due, unless its phase has ended: one chunk, then the next.
    pub(super) fn rate_write(&mut self, f: u32, seq: u32) {
        let sc = self.sc;
        let s = spec(&sc.flows[f as usize].app);
        let (Some(slot), Some(st)) = (self.flows[f as usize].conn, self.flows[f as usize].rate.as_deref_mut()) else { return };
        if st.due != Some(seq) {
            return;
        }
        let w = s.writing(st.phase);
        st.ledger.written(s.chunk, w);
        st.writes += 1;
        st.phase_writes += 1;
        let next = w.due(st.starts[st.phase], st.phase_writes, s.chunk).max(self.now);
        self.schedule_write(f, next);
        let end = EndId::new(slot, Side::Active);
        self.conns[end.index()].ep.write(s.chunk);
        self.service(end, self.now);
    }

    /// Flow `f`'s receiver got `bytes` at `now`: the data among them (without padding),
    /// counted in the phase that ran then.
    pub(super) fn rate_delivered(&mut self, f: u32, bytes: u64, now: Time) -> u64 {
        let Some(st) = self.flows[f as usize].rate.as_deref_mut() else { return bytes };
        let data = st.ledger.received(bytes);
        let k = st.starts.partition_point(|&t| t <= now).saturating_sub(1);
        st.got[k].0 += bytes;
        st.got[k].1 += data;
        data
    }

    /// The phases table: a row per phase of every rate-limited flow, with what its receiver
    /// got while it ran (until the next phase, or the end of the run at `end`).
    pub(super) fn phases_table(&self, end: Time) -> Table {
        let (mut flow, mut phase, mut name, mut start, mut stop) = (vec![], vec![], vec![], vec![], vec![]);
        let (mut rate, mut bytes, mut data, mut data_rate) = (vec![], vec![], vec![], vec![]);
        for (i, fs) in self.flows.iter().enumerate() {
            let (Some(st), App::RateLimited(s)) = (fs.rate.as_deref(), &self.sc.flows[i].app) else { continue };
            for (k, p) in s.phases.iter().enumerate() {
                let (from, to) = (st.starts[k].min(end), st.starts.get(k + 1).map_or(end, |&t| t.min(end)));
                flow.push(i as u64);
                phase.push(k as u64);
                name.push(p.name.clone());
                start.push(from.as_nanos());
                stop.push(to.as_nanos());
                rate.push(p.rate.bps());
                bytes.push(st.got[k].0);
                data.push(st.got[k].1);
                let secs = to.since(from).as_secs_f64();
                data_rate.push(if secs > 0.0 { st.got[k].1 as f64 * 8.0 / secs } else { f64::NAN });
            }
        }
        table(vec![
            ("flow", Column::U64(flow)),
            ("phase", Column::U64(phase)),
            ("name", Column::Str(name)),
            ("start_ns", Column::U64(start)),
            ("end_ns", Column::U64(stop)),
            ("app_rate_bps", Column::U64(rate)),
            ("received_bytes", Column::U64(bytes)),
            ("data_bytes", Column::U64(data)),
            ("received_bps", Column::F64(data_rate)),
        ])
    }
}
