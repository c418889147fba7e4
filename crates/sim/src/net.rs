//! The runtime network: packets, output ports (one per link direction) with drop-tail
//! queues, and static shortest-hop routing.

use std::collections::VecDeque;

use rampup_tcp::{Duration, Rate, Segment};

use crate::rng::{self, Stream};
use crate::topology::{LinkSpec, NetSpec, QueueLimit};

/// What a packet carries.
#[derive(Clone, Debug)]
pub enum Body {
    /// A TCP segment for connection end `ep`.
    Tcp { ep: u32, seg: Segment },
    /// A UDP datagram of constant-bit-rate source `source`.
    Udp { source: u32 },
}

#[derive(Clone, Debug)]
pub struct Packet {
    pub src: u32,
    pub dst: u32,
    pub wire_bytes: u32,
    pub body: Body,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PortStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Dropped by the queue (full on arrival).
    pub drops: u64,
    /// Lost in transit by the link's random loss.
    pub lost: u64,
    pub busy: Duration,
}

/// One direction of a link: a FIFO output queue feeding a serialiser and a wire.
pub struct Port {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub link: usize,
    pub rate: Rate,
    pub delay: Duration,
    pub limit: QueueLimit,
    /// Waiting packets; the front one is being serialised while `busy`.
    pub queue: VecDeque<Packet>,
    pub queued_bytes: u64,
    pub busy: bool,
    pub loss: f64,
    pub duplicate: f64,
    pub reorder: f64,
    pub reorder_delay: Duration,
    pub jitter: Duration,
    /// Arrival time of the last packet sent, so that jitter never reorders.
    pub last_arrival: rampup_tcp::Time,
    /// Only ports with random behaviour draw from a stream.
    pub rng: Option<Stream>,
    pub stats: PortStats,
}

impl Port {
    fn new(spec: &LinkSpec, link: usize, from: usize, to: usize, names: &NetSpec, seed: u64) -> Port {
        let name = format!("{}->{}", names.nodes[from].name, names.nodes[to].name);
        let loss = if from == spec.a { spec.loss[0] } else { spec.loss[1] };
        let random = loss > 0.0 || spec.duplicate > 0.0 || spec.reorder > 0.0 || spec.jitter > Duration::ZERO;
        Port {
            rng: random.then(|| rng::stream(seed, &format!("port:{name}"))),
            name,
            from: from as u32,
            to: to as u32,
            link,
            rate: spec.rate,
            delay: spec.delay,
            limit: spec.queue,
            queue: VecDeque::new(),
            queued_bytes: 0,
            busy: false,
            loss,
            duplicate: spec.duplicate,
            reorder: spec.reorder,
            reorder_delay: spec.reorder_delay,
            jitter: spec.jitter,
            last_arrival: rampup_tcp::Time::ZERO,
            stats: PortStats::default(),
        }
    }

    /// Drop-tail admission: a limit in packets counts the packet being serialised too.
    pub fn admits(&self, wire_bytes: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.queue.len() as u64) < n,
            QueueLimit::Bytes(b) => self.queued_bytes + wire_bytes as u64 <= b,
        }
    }
}

pub struct Net {
    pub ports: Vec<Port>,
    /// Output ports of each node, in link order.
    node_ports: Vec<Vec<u32>>,
    /// For nodes with more than one port: the port towards each destination node.
    routes: Vec<Option<Vec<u32>>>,
}

const NO_ROUTE: u32 = u32::MAX;

impl Net {
    pub fn new(spec: &NetSpec, seed: u64) -> Net {
        let mut ports = Vec::with_capacity(spec.links.len() * 2);
        let mut node_ports = vec![Vec::new(); spec.nodes.len()];
        for (i, l) in spec.links.iter().enumerate() {
            for (from, to) in [(l.a, l.b), (l.b, l.a)] {
                node_ports[from].push(ports.len() as u32);
                ports.push(Port::new(l, i, from, to, spec, seed));
            }
        }
        let mut net = Net { ports, node_ports, routes: Vec::new() };
        net.routes = (0..spec.nodes.len()).map(|n| net.route_table(n)).collect();
        net
    }

    /// Breadth-first search from `node`, labelling every reached node with the first port
    /// on a shortest-hop path; ties go to the port listed first.
    fn route_table(&self, node: usize) -> Option<Vec<u32>> {
        if self.node_ports[node].len() <= 1 {
            return None;
        }
        let mut first_port = vec![NO_ROUTE; self.node_ports.len()];
        let mut frontier = VecDeque::new();
        for &p in &self.node_ports[node] {
            let next = self.ports[p as usize].to as usize;
            if first_port[next] == NO_ROUTE && next != node {
                first_port[next] = p;
                frontier.push_back(next);
            }
        }
        while let Some(n) = frontier.pop_front() {
            for &p in &self.node_ports[n] {
                let next = self.ports[p as usize].to as usize;
                if first_port[next] == NO_ROUTE && next != node {
                    first_port[next] = first_port[n];
                    frontier.push_back(next);
                }
            }
        }
        Some(first_port)
    }

    /// The output port at `node` towards `dst`. The scenario check guarantees a path.
    pub fn route(&self, node: u32, dst: u32) -> u32 {
        match &self.routes[node as usize] {
            None => self.node_ports[node as usize][0],
            Some(table) => table[dst as usize],
        }
    }

    /// Set the rate of both directions of link `link`; packets already being serialised
    /// finish at the old rate.
    pub fn set_link_rate(&mut self, link: usize, rate: Rate) {
        for p in self.ports.iter_mut().filter(|p| p.link == link) {
            p.rate = rate;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::NodeSpec;

    fn line(n: usize) -> NetSpec {
        let nodes = (0..n).map(|i| NodeSpec { name: format!("n{i}") }).collect();
        let links = (1..n)
            .map(|i| LinkSpec {
                a: i - 1,
                b: i,
                rate: Rate(1_000_000),
                delay: Duration::from_millis(1),
                queue: QueueLimit::Packets(10),
                loss: [0.0; 2],
                duplicate: 0.0,
                reorder: 0.0,
                reorder_delay: Duration::ZERO,
                jitter: Duration::ZERO,
            })
            .collect();
        NetSpec { nodes, links }
    }

    #[test]
    fn routes_follow_the_line() {
        let net = Net::new(&line(4), 1);
        // n1 has ports to n0 (index 1, the reverse of link 0) and to n2 (index 2).
        assert_eq!(net.ports[net.route(1, 3) as usize].to, 2);
        assert_eq!(net.ports[net.route(1, 0) as usize].to, 0);
        assert_eq!(net.ports[net.route(0, 3) as usize].to, 1, "a host has one port");
    }

    #[test]
    fn packet_limit_counts_the_packet_in_service() {
        let mut spec = line(2);
        spec.links[0].queue = QueueLimit::Packets(1);
        let mut net = Net::new(&spec, 1);
        let p = &mut net.ports[0];
        assert!(p.admits(1000));
        p.queue.push_back(Packet { src: 0, dst: 1, wire_bytes: 1000, body: Body::Udp { source: 0 } });
        assert!(!p.admits(1000));
    }
}
