//! What a scenario's network gives each flow before any packet is sent: its path, base
//! RTT and bandwidth-delay product (`rampup inspect`, `rampup.inspect`). Experiments read
//! these from here rather than recompute them, so they follow the engine's routing.

use crate::net::Net;
use crate::output::{table, Column, Table};
use crate::scenario::{Flow, Scenario, ScenarioError};
use crate::traffic::{packmime, App, Load};
use rampup_tcp::time::{Duration, Rate};

/// One flow's path as the engine routes it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowPath {
    /// Output port names, sender to receiver ("a->b").
    pub hops: Vec<String>,
    /// The slowest link of the data direction.
    pub bottleneck: Rate,
    /// Link delays there and back: the RTT of a packet of no size.
    pub propagation_rtt: Duration,
    /// `propagation_rtt` plus serialising one full data segment (MSS + header) on every hop
    /// there and one ACK on every hop back: the smallest RTT a sample can read.
    pub base_rtt: Duration,
    pub mss_bytes: u64,
}

impl FlowPath {
    /// Bottleneck rate × propagation RTT, in bytes: the window that fills the path without
    /// a queue (the papers' BDP, e.g. 40 Mb/s × 100 ms = 500 kB in paper 001).
    pub fn bdp_bytes(&self) -> f64 {
        // One rounding: the product is exact in 128 bits.
        (self.bottleneck.bps() as u128 * self.propagation_rtt.0 as u128) as f64 / 8e9
    }
}

/// Each flow's path, in the order of the scenario's `[[flow]]`s.
pub fn flow_paths(sc: &Scenario) -> Vec<FlowPath> {
    let net = Net::new(&sc.net, sc.seed);
    sc.flows
        .iter()
        .map(|f| {
            let mss = f.tcp.mss_bytes as u64;
            let there = walk(&net, f.from, f.to);
            let back = walk(&net, f.to, f.from);
            let delay = |ports: &[u32], bytes: u64| -> Duration {
                Duration(ports.iter().map(|&p| net.ports[p as usize].delay.0 + net.ports[p as usize].rate.tx_time(bytes).0).sum())
            };
            let propagation = delay(&there, 0).0 + delay(&back, 0).0;
            FlowPath {
                hops: there.iter().map(|&p| net.ports[p as usize].name.clone()).collect(),
                bottleneck: there.iter().map(|&p| net.ports[p as usize].rate).min().unwrap_or_default(),
                propagation_rtt: Duration(propagation),
                base_rtt: Duration(delay(&there, mss + sc.header_bytes as u64).0 + delay(&back, sc.ack_bytes as u64).0),
                mss_bytes: mss,
            }
        })
        .collect()
}

/// A web flow's new connections per second (`traffic::Load`): as given, or the rate whose
/// mean responses fill the given share of the slowest link from server to client.
pub fn web_rate(net: &Net, flow: &Flow) -> Option<f64> {
    let App::Web(w) = &flow.app else { return None };
    Some(match w.load {
        Load::Rate(r) => r,
        Load::Utilization(u) => packmime::rate_for(u, bottleneck(net, flow.to, flow.from).bps() as f64, w.http),
    })
}

/// The slowest link on the way from `from` to `to`.
pub fn bottleneck(net: &Net, from: usize, to: usize) -> Rate {
    walk(net, from, to).iter().map(|&p| net.ports[p as usize].rate).min().unwrap_or_default()
}

/// The output ports from `from` to `to` (the scenario check guarantees a path).
pub(crate) fn walk(net: &Net, from: usize, to: usize) -> Vec<u32> {
    let (mut node, mut ports) = (from as u32, Vec::new());
    while node != to as u32 {
        let p = net.route(node, to as u32);
        ports.push(p);
        node = net.ports[p as usize].to;
    }
    ports
}

/// The `paths` table: one row per flow.
pub fn paths_table(sc: &Scenario) -> Table {
    let paths = flow_paths(sc);
    let net = Net::new(&sc.net, sc.seed);
    let u64s = |f: fn(&FlowPath) -> u64| Column::U64(paths.iter().map(f).collect());
    table(vec![
        ("flow", Column::U64((0..paths.len() as u64).collect())),
        ("from", Column::Str(sc.flows.iter().map(|f| sc.net.nodes[f.from].name.clone()).collect())),
        ("to", Column::Str(sc.flows.iter().map(|f| sc.net.nodes[f.to].name.clone()).collect())),
        ("hops", Column::U64(paths.iter().map(|p| p.hops.len() as u64).collect())),
        ("path", Column::Str(paths.iter().map(|p| p.hops.join(" ")).collect())),
        ("bottleneck_bps", u64s(|p| p.bottleneck.bps())),
        ("propagation_rtt_ns", u64s(|p| p.propagation_rtt.0)),
        ("base_rtt_ns", u64s(|p| p.base_rtt.0)),
        ("mss_bytes", u64s(|p| p.mss_bytes)),
        ("bdp_bytes", Column::F64(paths.iter().map(FlowPath::bdp_bytes).collect())),
        ("web_rate", Column::F64(sc.flows.iter().map(|f| web_rate(&net, f).unwrap_or(f64::NAN)).collect())),
    ])
}

/// Each node's name and the IPv4 address its packets carry in a capture (`trace::pcap`), in
/// node order.
pub fn addresses(sc: &Scenario) -> Vec<(String, String)> {
    (0..sc.net.nodes.len()).map(|n| (sc.net.nodes[n].name.clone(), std::net::Ipv4Addr::from(crate::trace::pcap::addr(n as u32)).to_string())).collect()
}

/// `paths_table` of a scenario given as TOML text.
pub fn paths_toml(scenario_toml: &str) -> Result<Table, ScenarioError> {
    crate::scenario::parse(scenario_toml).map(|sc| paths_table(&sc))
}
