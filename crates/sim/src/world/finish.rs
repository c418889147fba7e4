//! The end of a run: the endpoints' and links' counts turned into the output tables.

use rampup_tcp::Time;

use super::World;
use crate::net::Port;
use crate::output::{table, Column, RunOutput, Table};
use crate::trace::TraceSink;
use crate::RunError;

impl<'s> World<'s> {
    /// The run's tables; the traced ones (`trace::TRACED_TABLES`) and the captures go to
    /// `sink`, not into the output. An error if a trace has passed its budget by the end.
    pub(super) fn finish(mut self, sink: &mut dyn TraceSink) -> Result<RunOutput, RunError> {
        let end = self.now;
        let trace = self.sc.trace.queues;
        // Every packet offered to a port was admitted (a transmission) or dropped: counted
        // before `settle` takes out the transmissions that would start after the end.
        let packet_hops = self.net.ports.iter().map(|p| p.stats.tx_packets + p.stats.drops).sum();
        for (i, p) in self.net.ports.iter_mut().enumerate() {
            let series = &mut self.series;
            let mut record = |p: &Port, t| series.record_queue(t, i as u32, p);
            p.expire(end, trace.then_some(&mut record));
            p.settle(end);
        }
        if let Some(e) = self.over_budget(end) {
            return Err(e);
        }
        let late = self.late_in_flight() + self.other_in_flight;
        let sc = self.sc;
        let names = |i: usize| sc.net.nodes[i].name.clone();
        let nflows = sc.flows.len();
        let mut flows = FlowColumns::default();
        for (i, f) in sc.flows.iter().enumerate() {
            let (snd, rcv) = (&self.conns[2 * i].ep, &self.conns[2 * i + 1].ep);
            let st = snd.stats();
            let fs = &self.flows[i];
            let start = fs.start.unwrap_or(Time::ZERO + f.start);
            let last_end = fs.transfers.last().and_then(|&t| self.transfers[t].end);
            let complete = !fs.transfers.is_empty() && fs.next == fs.transfers.len();
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
            flows.acked.push(snd.bytes_acked());
            flows.received.push(rcv.bytes_received());
            flows.segments.push(st.segments_sent);
            flows.retx.push(st.retransmits);
            flows.timeouts.push(st.timeouts);
            flows.fast.push(st.fast_retransmits);
            flows.preemptive.push(snd.preemptive_stats().retransmits);
            flows.spurious_preemptive.push(snd.preemptive_stats().spurious);
            flows.drops.push(fs.data_drops);
            flows.ack_drops.push(fs.ack_drops);
            flows.goodput.push(if span > 0.0 { rcv.bytes_received() as f64 * 8.0 / span } else { f64::NAN });
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
        let on_wire: u64 = ports.iter().map(|p| p.on_wire() as u64).sum();
        let pk = &self.packets;
        let packets = table(vec![
            ("created", Column::U64(vec![pk.created])),
            ("duplicated", Column::U64(vec![pk.duplicated])),
            ("delivered", Column::U64(vec![pk.delivered])),
            ("dropped", Column::U64(vec![pk.dropped])),
            ("lost", Column::U64(vec![pk.lost])),
            ("in_flight", Column::U64(vec![on_wire + late])),
        ]);
        self.series.drain(sink, |port| ports[port as usize].name.clone());
        for (i, p) in self.pcaps.into_iter().enumerate() {
            if let Some(p) = p {
                let link = ports[i].name.replace("->", "_to_");
                p.out.drain(|bytes| sink.pcap(&link, bytes));
            }
        }
        Ok(RunOutput {
            tables: vec![
                ("flows".into(), flows.into_table()),
                ("transfers".into(), transfers),
                ("links".into(), links),
                ("udp".into(), udp),
                ("packets".into(), packets),
            ],
            pcaps: Vec::new(),
            events: self.events.processed() + self.other_events,
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
    goodput: Vec<f64>,
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
            ("goodput_bps", Column::F64(self.goodput)),
        ])
    }
}
