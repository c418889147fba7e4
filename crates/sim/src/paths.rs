//! What a scenario's network gives each flow before any packet is sent: its path, base
//! RTT and bandwidth-delay product (`rampup inspect`, `rampup.inspect`). Experiments read
//! these from here rather than recompute them, so they follow the engine's routing.

use crate::net::Net;
use crate::output::{table, Column, Table};
use crate::scenario::{Scenario, ScenarioError};
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

/// The output ports from `from` to `to` (the scenario check guarantees a path).
fn walk(net: &Net, from: usize, to: usize) -> Vec<u32> {
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
    ])
}

/// `paths_table` of a scenario given as TOML text.
pub fn paths_toml(scenario_toml: &str) -> Result<Table, ScenarioError> {
    crate::scenario::parse(scenario_toml).map(|sc| paths_table(&sc))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closed form on a three-link path: a 1040-byte segment and a 40-byte ACK serialised on
    /// each link there and back, plus the delays (paper 001's dumbbell, SPEC.md §001).
    #[test]
    fn base_rtt_and_bdp_of_a_dumbbell() {
        let sc = crate::scenario::parse(
            r#"
            duration = "1s"
            header_bytes = 40
            ack_bytes = 40
            [topology]
            kind = "dumbbell"
            pairs = 1
            access_rate = "1Gbps"
            access_delay = "1ms"
            bottleneck_rate = "40Mbps"
            bottleneck_delay = "48ms"
            [[flow]]
            from = "s0"
            to = "r0"
            app = { kind = "bulk" }
            tcp = { mss = 1000 }
            "#,
        )
        .unwrap();
        let p = &flow_paths(&sc)[0];
        assert_eq!(p.hops, ["s0->left", "left->right", "right->r0"]);
        assert_eq!(p.bottleneck, Rate::from_bps(40_000_000));
        assert_eq!(p.propagation_rtt, Duration(100_000_000));
        // 1040 B: 208,000 ns at 40 Mb/s, 8,320 ns at 1 Gb/s; 40 B: 8,000 ns and 320 ns.
        assert_eq!(p.base_rtt.0, 100_000_000 + 208_000 + 2 * 8_320 + 8_000 + 2 * 320);
        assert_eq!(p.bdp_bytes(), 500_000.0);
    }

    /// The path follows the engine's routing: on a custom graph the route back may differ
    /// from the route there only by direction, and each flow has its own.
    #[test]
    fn each_flow_gets_its_own_route() {
        let sc = crate::scenario::parse(
            r#"
            duration = "1s"
            [topology]
            kind = "custom"
            nodes = ["a", "b", "c"]
            link = [
              { a = "a", b = "b", rate = "10Mbps", delay = "5ms" },
              { a = "b", b = "c", rate = "2Mbps", delay = "20ms" },
            ]
            [[flow]]
            from = "a"
            to = "c"
            app = { kind = "bulk" }
            [[flow]]
            from = "b"
            to = "a"
            app = { kind = "bulk" }
            "#,
        )
        .unwrap();
        let paths = flow_paths(&sc);
        assert_eq!(paths[0].hops, ["a->b", "b->c"]);
        assert_eq!(paths[0].bottleneck, Rate::from_bps(2_000_000));
        assert_eq!(paths[0].propagation_rtt, Duration(50_000_000));
        assert_eq!(paths[1].hops, ["b->a"]);
        assert_eq!(paths[1].propagation_rtt, Duration(10_000_000));
        let t = paths_table(&sc);
        assert_eq!(t.column("bdp_bytes"), Some(&Column::F64(vec![2e6 * 0.05 / 8.0, 1e7 * 0.01 / 8.0])));
    }
}
