//! The end of a run: the endpoints' and links' counts turned into the output tables.

use rampup_tcp::Time;

use super::conns::connections_table;
use super::{Event, World};
use crate::net::Port;
use crate::output::{table, Column, RunOutput, Table};
use crate::trace::{pcap, TraceSink};
use crate::traffic::App;
use crate::RunError;

impl<'s> World<'s> {
    /// Packets in flight that are not on a port's wire but in an event of their own, held
    /// by a vrate group or waiting in a port's queue discipline. (What crossed the cut of a
    /// split run is counted too: `World::run_split` has every half take what crossed to it
    /// before the tables are made.)
    pub(super) fn late_in_flight(&self) -> u64 {
        self.hosts.held() + self.net.held() + self.events.pending_others().filter(|e| matches!(e, Event::ArriveLate(..) | Event::Discard { .. })).count() as u64
    }

    /// The run's tables; the traced ones (`trace::TRACED_TABLES`) and the captures go to
    /// `sink`, not into the output. An error if a trace has passed its budget by the end.
    pub(super) fn finish(mut self, sink: &mut dyn TraceSink) -> Result<RunOutput, RunError> {
        let end = self.now;
        // Every packet offered to a port was admitted (a transmission), dropped or is held by
        // its discipline: counted before `settle` takes out the transmissions that would
        // start after the end.
        let packet_hops = self.net.ports.iter().map(|p| p.stats.tx_packets + p.stats.drops).sum::<u64>() + self.net.held();
        let watched = self.traces.ports;
        let mut traces = self.traces.at_ports();
        for (i, p) in self.net.ports.iter_mut().enumerate() {
            let mut record = |p: &Port, t| traces.departed(i as u32, p, t);
            p.expire(end, watched.then_some(&mut record));
            p.settle(end);
        }
        if let Some(interval) = self.sc.trace.throughput {
            for (i, f) in self.flows.state.iter_mut().enumerate() {
                f.bin.end(i as u32, end, interval, &mut self.traces.series);
            }
        }
        if let Some(e) = self.over_budget(end) {
            return Err(e);
        }
        let late = self.late_in_flight() + self.half.other_in_flight;
        let phases = self.sc.flows.iter().any(|f| matches!(f.app, App::RateLimited(_))).then(|| self.phases_table(end));
        let sc = self.sc;
        let names = |i: usize| sc.net.nodes[i].name.clone();
        let nflows = sc.flows.len();
        let rows = self.conns.take_rows(&mut self.flows.state);
        let mut flows = FlowColumns::default();
        for (i, f) in sc.flows.iter().enumerate() {
            let fs = &self.flows[i];
            let st = &fs.totals;
            let start = fs.start.unwrap_or(Time::ZERO + f.start);
            let (complete, last_end) = if f.app.one_connection() { self.flows.transfers_done(i) } else { (fs.all_closed.is_some(), fs.all_closed) };
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

        let tr = &self.flows.transfers;
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
        self.traces.series.drain(sink, &port_names, &sc.trace, end);
        let mut pcaps = self.traces.pcaps.into_iter().enumerate();
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
            events: self.events.processed() + self.half.crossings_taken + self.half.other_events,
            packet_hops,
            seed: self.seed,
            sim_end_ns: end.as_nanos(),
        })
    }

    /// The phases table: a row per phase of every rate-limited flow, with what its receiver
    /// got while it ran (until the next phase, or the end of the run at `end`).
    fn phases_table(&self, end: Time) -> Table {
        let (mut flow, mut phase, mut name, mut start, mut stop) = (vec![], vec![], vec![], vec![], vec![]);
        let (mut rate, mut bytes, mut data, mut data_rate) = (vec![], vec![], vec![], vec![]);
        for (i, fs) in self.flows.state.iter().enumerate() {
            let (Some(st), App::RateLimited(s)) = (fs.rate.as_deref(), &self.sc.flows[i].app) else { continue };
            for (k, p) in s.phases.iter().enumerate() {
                let (from, to, got, got_data) = st.ran(k, end);
                flow.push(i as u64);
                phase.push(k as u64);
                name.push(p.name.clone());
                start.push(from.as_nanos());
                stop.push(to.as_nanos());
                rate.push(p.rate.bps());
                bytes.push(got);
                data.push(got_data);
                let secs = to.since(from).as_secs_f64();
                data_rate.push(if secs > 0.0 { got_data as f64 * 8.0 / secs } else { f64::NAN });
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
