//! The end of a run: the endpoints' and links' counts turned into the output tables.

use rampup_tcp::cc::SlowStartExit;
use rampup_tcp::{Duration, Endpoint, Time};

use super::conns::Slot;
use super::traced::PortTraces;
use super::{Conn, Event, World};
use crate::net::Port;
use crate::output::{table, Column, RunOutput, Table};
use crate::trace::{pcap, TraceSink};
use crate::traffic::{App, Driver};
use crate::RunError;

impl<'s> World<'s> {
    /// Packets in flight that are not on a port's wire but in an event of their own, held
    /// by a vrate group or waiting in a port's queue discipline. (What crossed the cut of a split run is counted too: `run_split`
    /// has every half take what crossed to it before the tables are made.)
    pub(super) fn late_in_flight(&self) -> u64 {
        let held: u64 = self.groups.iter().map(|g| g.group.held() as u64).sum();
        held + self.net.held() + self.events.pending_others().filter(|e| matches!(e, Event::ArriveLate(..) | Event::Discard { .. })).count() as u64
    }

    /// The run's tables; the traced ones (`trace::TRACED_TABLES`) and the captures go to
    /// `sink`, not into the output. An error if a trace has passed its budget by the end.
    pub(super) fn finish(mut self, sink: &mut dyn TraceSink) -> Result<RunOutput, RunError> {
        let end = self.now;
        // Every packet offered to a port was admitted (a transmission), dropped or is held by
        // its discipline: counted
        // before `settle` takes out the transmissions that would start after the end.
        let packet_hops = self.net.ports.iter().map(|p| p.stats.tx_packets + p.stats.drops).sum::<u64>() + self.net.held();
        let mut traces = PortTraces { series: &mut self.series, log: &mut self.packet_log, queues: self.sc.trace.queues };
        for (i, p) in self.net.ports.iter_mut().enumerate() {
            let mut record = |p: &Port, t| traces.departed(i as u32, p, t);
            p.expire(end, self.traces_ports.then_some(&mut record));
            p.settle(end);
        }
        if let Some(interval) = self.sc.trace.throughput {
            for (i, f) in self.flows.iter_mut().enumerate() {
                f.bin.end(i as u32, end, interval, &mut self.series);
            }
        }
        if let Some(e) = self.over_budget(end) {
            return Err(e);
        }
        let late = self.late_in_flight() + self.other_in_flight;
        let phases = self.sc.flows.iter().any(|f| matches!(f.app, App::RateLimited(_))).then(|| self.phases_table(end));
        let sc = self.sc;
        let names = |i: usize| sc.net.nodes[i].name.clone();
        let nflows = sc.flows.len();
        // The connections still in their slots: counted into their flows, and their rows.
        let mut rows = std::mem::take(&mut self.conn_rows);
        for (i, s) in self.slots.iter().enumerate().filter(|(_, s)| s.live) {
            let (a, p) = (&self.conns[2 * i], &self.conns[2 * i + 1]);
            let totals = &mut self.flows[s.flow as usize].totals;
            totals.add(&a.ep);
            totals.add(&p.ep);
            if s.opened.is_some() {
                rows.push(ConnRow::new(i as u32, s, a, p));
            }
        }
        rows.sort_unstable_by_key(|r| r.id);
        let mut flows = FlowColumns::default();
        for (i, f) in sc.flows.iter().enumerate() {
            let fs = &self.flows[i];
            let st = &fs.totals;
            let start = fs.start.unwrap_or(Time::ZERO + f.start);
            let (complete, last_end) = if f.app.one_connection() {
                (!fs.transfers.is_empty() && fs.next == fs.transfers.len(), fs.transfers.last().and_then(|&t| self.transfers[t].end))
            } else {
                (fs.all_closed.is_some(), fs.all_closed)
            };
            let span_end = if complete { last_end.unwrap_or(end) } else { end };
            let span = span_end.since(start).as_secs_f64();
            flows.flow.push(i as u64);
            flows.from.push(names(f.from));
            flows.to.push(names(f.to));
            flows.cc.push(f.tcp.cc_name());
            flows.recovery.push(f.tcp.recovery.name().to_string());
            flows.restart.push(f.tcp.restart.name().to_string());
            flows.idle_restarts.push(st.idle_restarts);
            flows.start.push(start.as_nanos());
            flows.end.push(if complete { last_end.map_or(f64::NAN, |t| t.as_nanos() as f64) } else { f64::NAN });
            flows.acked.push(st.bytes_acked);
            flows.received.push(st.bytes_received);
            flows.segments.push(st.segments_sent);
            flows.retx.push(st.retransmits);
            flows.timeouts.push(st.timeouts);
            flows.fast.push(st.fast_retransmits);
            flows.preemptive.push(st.preemptive);
            flows.spurious_preemptive.push(st.spurious_preemptive);
            flows.drops.push(fs.data_drops);
            flows.ack_drops.push(fs.ack_drops);
            flows.marks.push(fs.marks);
            flows.goodput.push(if span > 0.0 { st.bytes_received as f64 * 8.0 / span } else { f64::NAN });
            flows.slow_start_exit.push(st.slow_start_exit.map_or(f64::NAN, |x| x.at.as_nanos() as f64));
            flows.slow_start_exit_cwnd.push(st.slow_start_exit.map_or(f64::NAN, |x| x.cwnd_bytes as f64));
        }
        debug_assert_eq!(flows.flow.len(), nflows);

        let tr = &self.transfers;
        let transfers = table(vec![
            ("flow", Column::U64(tr.iter().map(|t| t.flow as u64).collect())),
            ("index", Column::U64(tr.iter().map(|t| t.index as u64).collect())),
            ("bytes", Column::U64(tr.iter().map(|t| t.bytes).collect())),
            ("start_ns", Column::U64(tr.iter().map(|t| t.start.as_nanos()).collect())),
            ("elapsed_s", Column::F64(tr.iter().map(|t| t.end.map_or(f64::NAN, |e| e.since(t.start).as_secs_f64())).collect())),
            ("retransmits", Column::U64(tr.iter().map(|t| t.retransmits).collect())),
            ("drops", Column::U64(tr.iter().map(|t| t.drops).collect())),
        ]);

        let ports = &self.net.ports;
        let elapsed = end.as_nanos().max(1) as f64;
        let links = table(vec![
            ("link", Column::Str(ports.iter().map(|p| p.name.clone()).collect())),
            ("rate_bps", Column::U64(ports.iter().map(|p| p.rate.bps()).collect())),
            ("tx_packets", Column::U64(ports.iter().map(|p| p.stats.tx_packets).collect())),
            ("tx_bytes", Column::U64(ports.iter().map(|p| p.stats.tx_bytes).collect())),
            ("drops", Column::U64(ports.iter().map(|p| p.stats.drops).collect())),
            ("marks", Column::U64(ports.iter().map(Port::marks).collect())),
            ("lost", Column::U64(ports.iter().map(|p| p.stats.lost).collect())),
            ("utilization", Column::F64(ports.iter().map(|p| (p.stats.busy.as_nanos() as f64 / elapsed).min(1.0)).collect())),
        ]);
        let udp = table(vec![
            ("source", Column::U64((0..self.udp.len() as u64).collect())),
            ("from", Column::Str(sc.udp.iter().map(|u| names(u.from)).collect())),
            ("to", Column::Str(sc.udp.iter().map(|u| names(u.to)).collect())),
            ("sent", Column::U64(self.udp.iter().map(|u| u.sent).collect())),
            ("received", Column::U64(self.udp.iter().map(|u| u.received).collect())),
            ("received_bytes", Column::U64(self.udp.iter().map(|u| u.received_bytes).collect())),
            ("dropped", Column::U64(self.udp.iter().map(|u| u.dropped).collect())),
        ]);
        let on_wire = self.net.on_wires();
        let pk = &self.packets;
        let packets = table(vec![
            ("created", Column::U64(vec![pk.created])),
            ("duplicated", Column::U64(vec![pk.duplicated])),
            ("delivered", Column::U64(vec![pk.delivered])),
            ("dropped", Column::U64(vec![pk.dropped])),
            ("lost", Column::U64(vec![pk.lost])),
            ("in_flight", Column::U64(vec![on_wire + late])),
        ]);
        let port_names: Vec<String> = ports.iter().map(|p| p.name.clone()).collect();
        self.series.drain(sink, &port_names, &sc.trace, end);
        let mut pcaps = self.pcaps.into_iter().enumerate();
        while let Some((i, p)) = pcaps.next() {
            let Some(p) = p else { continue };
            if sc.trace.pcap_per_link {
                // A link's two ports are made in a row, a->b first (`Net::new`).
                let (_, back) = pcaps.next().expect("a captured link's other direction");
                let back = back.expect("both directions of a captured link are captured");
                let l = &sc.net.links[ports[i].link];
                let link = format!("{}-{}", sc.net.nodes[l.a].name, sc.net.nodes[l.b].name);
                pcap::merge(p.out, back.out, |bytes| sink.pcap(&link, bytes));
            } else {
                let link = ports[i].name.replace("->", "_to_");
                p.out.drain(|bytes| sink.pcap(&link, bytes));
            }
        }
        let mut tables = vec![
            ("flows".into(), flows.into_table()),
            ("transfers".into(), transfers),
            ("links".into(), links),
            ("udp".into(), udp),
            ("packet_totals".into(), packets),
            ("connections".into(), connections_table(&rows, |f| names(sc.flows[f].from), |f| names(sc.flows[f].to))),
        ];
        tables.extend(phases.map(|t| ("phases".into(), t)));
        Ok(RunOutput {
            tables,
            pcaps: Vec::new(),
            events: self.events.processed() + self.crossings_taken + self.other_events,
            packet_hops,
            seed: self.seed,
            sim_end_ns: end.as_nanos(),
        })
    }
}

#[derive(Default)]
struct FlowColumns {
    flow: Vec<u64>,
    from: Vec<String>,
    to: Vec<String>,
    cc: Vec<String>,
    recovery: Vec<String>,
    restart: Vec<String>,
    idle_restarts: Vec<u64>,
    start: Vec<u64>,
    end: Vec<f64>,
    acked: Vec<u64>,
    received: Vec<u64>,
    segments: Vec<u64>,
    retx: Vec<u64>,
    timeouts: Vec<u64>,
    fast: Vec<u64>,
    preemptive: Vec<u64>,
    spurious_preemptive: Vec<u64>,
    drops: Vec<u64>,
    ack_drops: Vec<u64>,
    marks: Vec<u64>,
    goodput: Vec<f64>,
    slow_start_exit: Vec<f64>,
    slow_start_exit_cwnd: Vec<f64>,
}

impl FlowColumns {
    fn into_table(self) -> Table {
        table(vec![
            ("flow", Column::U64(self.flow)),
            ("from", Column::Str(self.from)),
            ("to", Column::Str(self.to)),
            ("cc", Column::Str(self.cc)),
            ("recovery", Column::Str(self.recovery)),
            ("restart", Column::Str(self.restart)),
            ("idle_restarts", Column::U64(self.idle_restarts)),
            ("start_ns", Column::U64(self.start)),
            ("end_ns", Column::F64(self.end)),
            ("bytes_acked", Column::U64(self.acked)),
            ("bytes_received", Column::U64(self.received)),
            ("segments_sent", Column::U64(self.segments)),
            ("retransmits", Column::U64(self.retx)),
            ("timeouts", Column::U64(self.timeouts)),
            ("fast_retransmits", Column::U64(self.fast)),
            ("preemptive_retransmits", Column::U64(self.preemptive)),
            ("spurious_preemptive", Column::U64(self.spurious_preemptive)),
            ("drops", Column::U64(self.drops)),
            ("ack_drops", Column::U64(self.ack_drops)),
            ("marks", Column::U64(self.marks)),
            ("goodput_bps", Column::F64(self.goodput)),
            // Floats so that a flow that never left slow start can be NaN.
            ("slow_start_exit_ns", Column::F64(self.slow_start_exit)),
            ("slow_start_exit_cwnd_bytes", Column::F64(self.slow_start_exit_cwnd)),
        ])
    }
}

/// A flow's counts over the ends of all its connections. (A bulk flow's receiver sends no
/// data, so its sums are the sender's counts and the receiver's bytes.)
#[derive(Default)]
pub(super) struct EndTotals {
    idle_restarts: u64,
    bytes_acked: u64,
    bytes_received: u64,
    segments_sent: u64,
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
    preemptive: u64,
    spurious_preemptive: u64,
    /// The earliest of its ends' exits from slow start (the first end's, at a tie).
    slow_start_exit: Option<SlowStartExit>,
}

impl EndTotals {
    pub(super) fn add(&mut self, ep: &Endpoint) {
        let st = ep.stats();
        let pre = ep.preemptive_stats();
        self.idle_restarts += st.idle_restarts;
        self.bytes_acked += ep.bytes_acked();
        self.bytes_received += ep.bytes_received();
        self.segments_sent += st.segments_sent;
        self.retransmits += st.retransmits;
        self.timeouts += st.timeouts;
        self.fast_retransmits += st.fast_retransmits;
        self.preemptive += pre.retransmits;
        self.spurious_preemptive += pre.spurious;
        if let Some(x) = ep.sender().congestion().slow_start_exit() {
            if self.slow_start_exit.is_none_or(|first| x.at < first.at) {
                self.slow_start_exit = Some(x);
            }
        }
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
}

impl ConnRow {
    /// The row of the opened connection in slot `slot`, `s`, with ends `a` (active) and `p` (passive).
    pub(super) fn new(slot: u32, s: &Slot, a: &Conn, p: &Conn) -> ConnRow {
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
        }
    }
}

fn connections_table(rows: &[ConnRow], from: impl Fn(usize) -> String, to: impl Fn(usize) -> String) -> Table {
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
    ])
}
