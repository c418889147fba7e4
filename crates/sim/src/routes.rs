//! Static shortest-hop routing: the output port each node takes towards each destination.

use std::collections::VecDeque;

/// Each node's output port towards each destination node, found once at set-up.
pub struct Routes {
    /// How each node picks its output port.
    by_node: Vec<Route>,
    /// The rows of `Route::Row`, one after another: a lookup is one load after the node's
    /// `Route`, not two (a row of its own, or a host's list of ports, would be a second
    /// place in memory to miss at every hop).
    table: Vec<u32>,
}

/// A node's routing: its only port, or where its row of `Routes::table` starts (the port
/// towards each destination node).
#[derive(Clone, Copy)]
enum Route {
    Only(u32),
    Row(usize),
}

const NO_ROUTE: u32 = u32::MAX;

impl Routes {
    /// `node_ports`: each node's output ports, in link order; `port_to`: the node each port
    /// leads to.
    pub fn new(node_ports: &[Vec<u32>], port_to: &[u32]) -> Routes {
        let mut routes = Routes { by_node: Vec::with_capacity(node_ports.len()), table: Vec::new() };
        for (node, ports) in node_ports.iter().enumerate() {
            let route = match ports.as_slice() {
                [] => Route::Only(NO_ROUTE),
                &[only] => Route::Only(only),
                _ => {
                    let start = routes.table.len();
                    routes.table.extend(first_ports(node, node_ports, port_to));
                    Route::Row(start)
                }
            };
            routes.by_node.push(route);
        }
        routes
    }

    /// The output port at `node` towards `dst`. The scenario check guarantees a path.
    #[inline(always)]
    pub fn port(&self, node: u32, dst: u32) -> u32 {
        match self.by_node[node as usize] {
            Route::Only(port) => port,
            Route::Row(start) => self.table[start + dst as usize],
        }
    }
}

/// Breadth-first search from `node`, labelling every reached node with the first port on a
/// shortest-hop path; ties go to the port listed first.
fn first_ports(node: usize, node_ports: &[Vec<u32>], port_to: &[u32]) -> Vec<u32> {
    let mut first_port = vec![NO_ROUTE; node_ports.len()];
    let mut frontier = VecDeque::new();
    for &p in &node_ports[node] {
        let next = port_to[p as usize] as usize;
        if first_port[next] == NO_ROUTE && next != node {
            first_port[next] = p;
            frontier.push_back(next);
        }
    }
    while let Some(n) = frontier.pop_front() {
        for &p in &node_ports[n] {
            let next = port_to[p as usize] as usize;
            if first_port[next] == NO_ROUTE && next != node {
                first_port[next] = first_port[n];
                frontier.push_back(next);
            }
        }
    }
    first_port
}
