//! What a run of a scenario will take, from the scenario alone (`rampup check`, `rampup
//! inspect`, `rampup.estimate`): packets, packet hops, connections, trace rows and the
//! engine's peak heap. A fluid model, not a run: each flow's bytes are what its application
//! offers, cut down where the links it crosses cannot carry them all, and its connections
//! live for their transfers (or pile up where the offered load is above the link's rate).
//!
//! It is known to within `ACCURACY` of what runs take (the tests in python/tests compare it
//! with measured runs of bulk, web, request/response and traced scenarios).

use rampup_tcp::{Duration, Rate};

use crate::net::{Net, Packet};
use crate::paths::{self, flow_paths};
use crate::scenario::topology::QueueLimit;
use crate::scenario::{Flow, Scenario};
use crate::trace::{PacketRow, QueueRow, RttRow, StateRow, ThroughputRow};
use crate::traffic::{packmime, App, Http, WebSpec};
use crate::world::{footprint, MAX_OPEN};

/// The factor within which the estimate's packets, packet hops and peak memory meet a
/// run's (either way), as the tests measure it.
pub const ACCURACY: f64 = 3.0;

/// Above this estimated peak memory, `warnings` says so: 4 GiB, a large share of a laptop's
/// memory and far above what any paper's runs take (docs/scenarios.md).
pub const WARN_MEMORY_BYTES: f64 = (4u64 << 30) as f64;

/// Above this many estimated packet hops, `warnings` says so: at the engine's speed
/// (docs/performance.md) such a run takes from minutes to hours.
pub const WARN_PACKET_HOPS: f64 = 1e10;

/// The heap of a run with one flow and nothing traced: the engine's tables and buffers that
/// do not grow with the scenario.
const BASE_BYTES: f64 = (6u64 << 20) as f64;

/// A connection's own packets besides data and its ACKs: SYN, SYN-ACK, ACK, two FINs and
/// their ACKs.
const CONTROL_PACKETS: f64 = 7.0;

/// The columns of a row of the flows and connections tables, as 8-byte values.
const FLOW_TABLE_BYTES: f64 = 40.0 * 8.0;
const CONNECTION_TABLE_BYTES: f64 = 25.0 * 8.0;

/// A segment's record in its sender's queue (`rampup_tcp::send_queue`), and the records an
/// end's queue and reassembly buffers hold at least once it has sent.
const SENT_SEGMENT_BYTES: f64 = 24.0;
const SEGMENTS_PER_END: f64 = 8.0;

/// A packet's entry on a port's wire or in an inbox, besides the packet in the slab.
const WIRE_ENTRY_BYTES: f64 = 16.0;

/// A pending event in the queue: key and payload.
const EVENT_BYTES: f64 = 32.0;

/// What one run will take.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Packets sent: data, ACKs, connections' handshakes and closes, UDP datagrams.
    pub packets: f64,
    /// Packets offered to ports, over all hops: at most the run's events (fast paths take
    /// one event for several hops).
    pub packet_hops: f64,
    /// Connections opened in all, and the most open at once.
    pub connections: f64,
    pub open_connections: f64,
    /// Rows of the traced tables (timeseries, queues, throughput, rtt, packets): they grow
    /// with the run's length.
    pub trace_rows: f64,
    /// The engine's peak heap while it runs into a results folder (its traces go to disk).
    pub memory_bytes: f64,
    /// The traced tables' bytes as columns: held in memory, on top, by a run that returns
    /// them (`rampup.run` without `out`).
    pub tables_bytes: f64,
}

impl Estimate {
    /// Its fields by name, as the Python module hands them over.
    pub fn fields(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("packets", self.packets),
            ("packet_hops", self.packet_hops),
            ("connections", self.connections),
            ("open_connections", self.open_connections),
            ("trace_rows", self.trace_rows),
            ("memory_bytes", self.memory_bytes),
            ("tables_bytes", self.tables_bytes),
            ("accuracy", ACCURACY),
        ]
    }
}

/// A flow as the model sees it: what its application offers each way over the run, on
/// which ports, in how many connections.
struct Load {
    there: Vec<u32>,
    back: Vec<u32>,
    /// Payload bytes offered from the flow's client (`from`) and from its server.
    up_bytes: f64,
    down_bytes: f64,
    connections: f64,
    /// Connections opened at run time (request/response, web), not the flow's one.
    at_run_time: bool,
    /// Per connection: exchanges, the server's think time, TIME-WAIT.
    pairs: f64,
    wait_s: f64,
    base_rtt_s: f64,
    /// Segments the flow may have in flight (its windows), and its segment size.
    window_segments: f64,
    mss: f64,
}

/// Web flows' rates and mean bytes per connection, worked out once per distinct load, path
/// and HTTP: each takes milliseconds of numeric integration, and a scenario may have
/// thousands of web flows alike.
#[derive(Default)]
struct WebMeans {
    /// By (load, slowest link from server to client, HTTP): connections per second and
    /// mean response bytes.
    seen: Vec<(WebKey, (f64, f64))>,
    request_bytes: Option<f64>,
}

type WebKey = (packmime::Load, Rate, Http);

impl WebMeans {
    /// The flow's connections per second and mean response bytes.
    fn of(&mut self, net: &Net, f: &Flow, w: &WebSpec) -> (f64, f64) {
        let key = (w.load, paths::bottleneck(net, f.to, f.from), w.http);
        if let Some((_, means)) = self.seen.iter().find(|(k, _)| *k == key) {
            return *means;
        }
        let rate = paths::web_rate(net, f).expect("a web flow");
        let means = (rate, packmime::mean_response_bytes(rate, w.http));
        self.seen.push((key, means));
        means
    }

    fn request_bytes(&mut self) -> f64 {
        *self.request_bytes.get_or_insert_with(packmime::mean_request_bytes)
    }
}

fn load(sc: &Scenario, net: &Net, f: &Flow, base_rtt: Duration, web: &mut WebMeans) -> Load {
    let active_s = (sc.duration.as_secs_f64() - f.start.as_secs_f64()).max(0.0);
    let base_rtt_s = base_rtt.as_secs_f64().max(1e-6);
    let mss = f.tcp.mss_bytes as f64;
    let window_bytes = (f.tcp.rcv_window_bytes as f64).min(f.tcp.max_window_bytes as f64);
    let there = paths::walk(net, f.from, f.to);
    let slowest_bps = there.iter().map(|&p| net.ports[p as usize].rate.bps()).min().unwrap_or(0) as f64;
    let mut l = Load {
        there,
        back: paths::walk(net, f.to, f.from),
        up_bytes: 0.0,
        down_bytes: 0.0,
        connections: 1.0,
        at_run_time: !f.app.one_connection(),
        pairs: 1.0,
        wait_s: f.tcp.time_wait.as_secs_f64(),
        base_rtt_s,
        window_segments: (window_bytes / mss).max(1.0),
        mss,
    };
    match &f.app {
        // As fast as its window and its slowest link let it; the links cut it down below.
        App::Bulk { bytes: None } => l.up_bytes = (window_bytes / base_rtt_s).min(slowest_bps / 8.0) * active_s,
        App::Bulk { bytes: Some(b) } => l.up_bytes = *b as f64,
        App::Writes { schedule } => l.up_bytes = schedule.iter().filter(|(at, _)| f.start + *at < sc.duration).map(|(_, b)| *b as f64).sum(),
        App::RateLimited(spec) => {
            let mut ends: Vec<f64> = spec.phases.iter().skip(1).map(|p| p.at.as_secs_f64()).collect();
            ends.push(sc.duration.as_secs_f64());
            let at = |p: &crate::traffic::Phase| p.at.as_secs_f64().max(f.start.as_secs_f64());
            l.up_bytes = spec.phases.iter().zip(ends).map(|(p, end)| p.rate.bps() as f64 / 8.0 * (end - at(p)).max(0.0)).sum();
        }
        App::RequestResponse { exchange, arrivals } => {
            let gaps = active_s / arrivals.mean_gap.as_secs_f64().max(1e-9);
            l.connections = (arrivals.connections as f64).min(1.0 + gaps.floor());
            l.pairs = exchange.pairs as f64;
            l.wait_s += exchange.think.as_secs_f64() * l.pairs;
            l.up_bytes = l.connections * l.pairs * exchange.request_bytes as f64;
            l.down_bytes = l.connections * l.pairs * exchange.response_bytes as f64;
        }
        App::Web(w) => {
            let (rate, response_bytes) = web.of(net, f, w);
            l.connections = (w.connections.unwrap_or(u64::MAX) as f64).min(1.0 + rate * active_s);
            l.up_bytes = l.connections * web.request_bytes();
            l.down_bytes = l.connections * response_bytes;
        }
    }
    l
}

/// The next power of two at or above `n`: a growing table's capacity.
fn capacity(n: f64) -> f64 {
    if n <= 1.0 {
        return n.max(0.0);
    }
    n.log2().ceil().exp2()
}

/// The estimate for `sc`.
pub fn estimate(sc: &Scenario) -> Estimate {
    let net = Net::new(&sc.net, sc.seed);
    let secs = sc.duration.as_secs_f64();
    let mut web = WebMeans::default();
    let loads: Vec<Load> = sc.flows.iter().zip(flow_paths(sc)).map(|(f, p)| load(sc, &net, f, p.base_rtt, &mut web)).collect();
    let ports = net.ports.len();
    // Bytes offered to each port over the run, flows and sources, headers included.
    let header = sc.header_bytes as f64;
    let mut offered = vec![0.0; ports];
    let mut users = vec![0.0f64; ports];
    for l in &loads {
        for (path, bytes) in [(&l.there, l.up_bytes), (&l.back, l.down_bytes)] {
            for &p in path.iter() {
                offered[p as usize] += bytes * (1.0 + header / l.mss);
                users[p as usize] += 1.0;
            }
        }
    }
    let udp_paths: Vec<Vec<u32>> = sc.udp.iter().map(|u| paths::walk(&net, u.from, u.to)).collect();
    let udp_sent: Vec<f64> = sc
        .udp
        .iter()
        .map(|u| {
            let span = (u.stop.min(sc.duration).as_secs_f64() - u.start.as_secs_f64()).max(0.0);
            (u.rate.bps() as f64 / 8.0 * span / u.packet_bytes as f64).ceil()
        })
        .collect();
    for (path, (u, sent)) in udp_paths.iter().zip(sc.udp.iter().zip(&udp_sent)) {
        for &p in path {
            offered[p as usize] += sent * u.packet_bytes as f64;
        }
    }
    let capacity_bytes: Vec<f64> = net.ports.iter().map(|p| p.rate.bps() as f64 / 8.0 * secs).collect();
    // The share of what is offered that a port carries, and the load on it.
    let load_on = |p: u32| offered[p as usize] / capacity_bytes[p as usize].max(1.0);
    let carried = |path: &[u32]| path.iter().map(|&p| 1.0 / load_on(p).max(1.0)).fold(1.0, f64::min);

    let mut e = Estimate::default();
    let mut open_ends = 0.0;
    let mut in_flight_segments = 0.0;
    let mut conn_rows = 0.0;
    let mut data_packets_one = 0.0;
    for (l, f) in loads.iter().zip(&sc.flows) {
        let share = carried(&l.there).min(carried(&l.back));
        let (up, down) = (l.up_bytes * carried(&l.there), l.down_bytes * carried(&l.back));
        let per_ack = if f.tcp.delayed_ack { 2.0 } else { 1.0 };
        let (data_up, data_down) = ((up / l.mss).ceil(), (down / l.mss).ceil());
        // Every connection sends its SYN; the rest of its handshake and its close get
        // through where the links carry what is offered.
        let control = if f.tcp.handshake { 1.0 + (CONTROL_PACKETS - 1.0) * share } else { 2.0 * share } * l.connections;
        let there = data_up + data_down / per_ack + control / 2.0;
        let back = data_down + data_up / per_ack + control / 2.0;
        e.packets += there + back;
        e.packet_hops += there * l.there.len() as f64 + back * l.back.len() as f64;
        e.connections += l.connections;
        if !l.at_run_time {
            open_ends += 2.0;
            data_packets_one += data_up + data_down;
            // Its share of the path's queue and BDP, within its window.
            let bottleneck = l.there.iter().copied().min_by_key(|&p| net.ports[p as usize].rate).unwrap_or(0) as usize;
            let bdp = net.ports[bottleneck].rate.bps() as f64 / 8.0 * l.base_rtt_s / l.mss;
            let queue = match net.ports[bottleneck].limit {
                QueueLimit::Packets(n) => n as f64,
                QueueLimit::Bytes(b) => b as f64 / l.mss,
            };
            in_flight_segments += l.window_segments.min((bdp + queue) / users[bottleneck].max(1.0)).max(2.0);
            continue;
        }
        // A connection lives for its exchanges and TIME-WAIT; where the links cannot carry
        // what arrives, those they cannot serve by the end stay open.
        let rho = l.there.iter().chain(&l.back).map(|&p| load_on(p)).fold(0.0, f64::max);
        let bytes_each = (l.up_bytes + l.down_bytes) / l.connections.max(1.0);
        let slowest = l.back.iter().map(|&p| net.ports[p as usize].rate.bps()).min().unwrap_or(1) as f64 / 8.0;
        let transfer_s = bytes_each / slowest / (1.0 - rho.min(0.9));
        let lifetime_s = (2.0 + l.pairs) * l.base_rtt_s + transfer_s + l.wait_s;
        let rate = l.connections / (sc.duration.as_secs_f64() - f.start.as_secs_f64()).max(1e-9);
        let backlog = if rho > 1.0 { l.connections * (1.0 - 1.0 / rho) } else { 0.0 };
        let open = (rate * lifetime_s).max(backlog).min(l.connections);
        open_ends += 2.0 * open;
        in_flight_segments += open * l.window_segments.min(SEGMENTS_PER_END);
        conn_rows += l.connections;
    }
    for (path, sent) in udp_paths.iter().zip(&udp_sent) {
        e.packets += sent;
        e.packet_hops += sent * path.len() as f64;
    }
    let open_conns = (open_ends / 2.0).min(MAX_OPEN as f64 + sc.flows.len() as f64);
    e.open_connections = open_conns;
    let open_ends = 2.0 * open_conns;

    // Trace rows: those that grow with the run.
    let t = &sc.trace;
    let rows = |on: bool, n: f64| if on { n } else { 0.0 };
    let timeseries = rows(t.timeseries, 2.0 * data_packets_one);
    let queues = match t.queues_interval {
        Some(i) => rows(t.queues, ports as f64 * secs / i.as_secs_f64()),
        None => rows(t.queues, 2.0 * e.packet_hops),
    };
    let throughput = t.throughput.map_or(0.0, |i| sc.flows.len() as f64 * (secs / i.as_secs_f64()).ceil());
    let rtt = rows(t.rtt, e.packets / 2.0);
    let packets = rows(t.packets, 3.0 * e.packet_hops);
    e.trace_rows = timeseries + queues + throughput + rtt + packets;
    // In memory while the run goes: at most `ROWS_IN_MEMORY` rows of each, and a file's
    // write buffer for one that spills.
    let in_run = |n: f64, row: usize| {
        let kept = n.min(crate::trace::ROWS_IN_MEMORY as f64);
        capacity(kept) * row as f64 + if n > kept { (1u64 << 20) as f64 } else { 0.0 }
    };
    let traces = in_run(timeseries, size_of::<StateRow>())
        + in_run(queues, size_of::<QueueRow>())
        + in_run(throughput, size_of::<ThroughputRow>())
        + in_run(rtt, size_of::<RttRow>())
        + in_run(packets, size_of::<PacketRow>());
    e.tables_bytes = 8.0 * (7.0 * timeseries + 4.0 * queues + 4.0 * throughput + 3.0 * rtt + 8.0 * packets);

    let fp = footprint();
    let web_flows = sc.flows.iter().filter(|f| matches!(f.app, App::Web(_))).count() as f64;
    let ends = capacity(open_ends) * fp.end_bytes as f64 + open_ends * SENT_SEGMENT_BYTES * SEGMENTS_PER_END;
    let slots = capacity(open_conns) * fp.slot_bytes as f64 + open_ends * EVENT_BYTES;
    let rows_kept = capacity(conn_rows) * fp.conn_row_bytes as f64 + conn_rows * CONNECTION_TABLE_BYTES;
    let flows = sc.flows.len() as f64 * (fp.flow_bytes as f64 + FLOW_TABLE_BYTES) + web_flows * packmime::GENERATOR_HEAP_BYTES as f64;
    // A segment in flight is a packet, an entry on a wire, and a record at its sender and
    // (out of order) its receiver.
    let packets_held = capacity(in_flight_segments) * (size_of::<Packet>() as f64 + WIRE_ENTRY_BYTES) + in_flight_segments * SENT_SEGMENT_BYTES * 2.0;
    // A port, and as much again for its plan, inbox and routes.
    let ports_bytes = ports as f64 * size_of::<crate::net::Port>() as f64 * 2.0;
    e.memory_bytes = BASE_BYTES + ends + slots + rows_kept + flows + packets_held + ports_bytes + traces;
    e
}

/// `n` with a comma between thousands, as the Python front prints counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The estimate's warnings for `sc`: a peak memory above `WARN_MEMORY_BYTES`, packet hops
/// above `WARN_PACKET_HOPS`; one line each.
pub fn warnings(sc: &Scenario) -> Vec<String> {
    let e = estimate(sc);
    let mut out = Vec::new();
    if e.memory_bytes > WARN_MEMORY_BYTES {
        out.push(format!(
            "estimate: the run may take {} of memory ({} connections open at once), above {}; a budget stops it (rampup run --memory-budget)",
            crate::memory::human_bytes(e.memory_bytes as u64),
            thousands(e.open_connections as u64),
            crate::memory::human_bytes(WARN_MEMORY_BYTES as u64)
        ));
    }
    if e.packet_hops > WARN_PACKET_HOPS {
        out.push(format!("estimate: the run may take {:.1e} packet hops, above {WARN_PACKET_HOPS:.0e}: minutes to hours of wall time", e.packet_hops));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{estimate, warnings, WARN_MEMORY_BYTES};
    use crate::scenario::parse;

    fn dumbbell(flows: &str) -> String {
        format!(
            "duration = \"10s\"\n[topology]\nkind = \"dumbbell\"\npairs = 1\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n\
             bottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"10ms\"\n[tcp]\ntime_wait = \"0s\"\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = {flows}\n"
        )
    }

    #[test]
    fn a_bulk_flow_sends_what_its_bottleneck_carries() {
        let e = estimate(&parse(&dumbbell("{ kind = \"bulk\" }")).unwrap());
        // 10 Mb/s for 10 s in 1,040-byte packets, and an ACK for each.
        let data = 10e6 * 10.0 / 8.0 / 1040.0;
        assert!((e.packets / (2.0 * data) - 1.0).abs() < 0.05, "{e:?}");
        assert_eq!((e.connections, e.open_connections), (1.0, 1.0));
        assert!(e.trace_rows > 0.0 && e.memory_bytes < WARN_MEMORY_BYTES);
    }

    #[test]
    fn a_sized_transfer_sends_its_bytes() {
        let e = estimate(&parse(&dumbbell("{ kind = \"bulk\", bytes = \"1MB\" }")).unwrap());
        assert!((e.packets / 2000.0 - 1.0).abs() < 0.05, "{e:?}");
    }

    #[test]
    fn connections_pile_up_where_more_arrives_than_the_link_carries() {
        let rr = |gap: &str| format!("{{ kind = \"request-response\", request = \"1KB\", response = \"100KB\", connections = 100000, mean_gap = \"{gap}\" }}");
        let light = estimate(&parse(&dumbbell(&rr("1s"))).unwrap());
        let heavy = estimate(&parse(&dumbbell(&rr("1ms"))).unwrap());
        // 11 connections of 100 KB in 10 s over 10 Mb/s finish as they come (no TIME-WAIT
        // holds them); 10,000 cannot.
        assert!(light.open_connections < 2.0, "{light:?}");
        assert!(heavy.open_connections > 0.9 * heavy.connections, "{heavy:?}");
        assert!(heavy.memory_bytes > light.memory_bytes + heavy.open_connections * 2000.0);
    }

    #[test]
    fn a_run_above_the_threshold_warns_in_one_line() {
        let rr = "{ kind = \"request-response\", request = \"1KB\", response = \"100KB\", connections = 2000000, mean_gap = \"1us\" }";
        let lines = warnings(&parse(&dumbbell(rr)).unwrap());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("estimate: the run may take ") && lines[0].contains("1,000,001 connections open at once"), "{lines:?}");
        assert!(warnings(&parse(&dumbbell("{ kind = \"bulk\" }")).unwrap()).is_empty());
    }
}
