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
    let mut frontier = VecDeque::from([node]);
    while let Some(n) = frontier.pop_front() {
        for &p in &node_ports[n] {
            let next = port_to[p as usize] as usize;
            if first_port[next] == NO_ROUTE && next != node {
                // A neighbour of `node` is reached by its own port; beyond, by the port that
                // reached the node it is reached from.
                first_port[next] = if n == node { p } else { first_port[n] };
                frontier.push_back(next);
            }
        }
    }
    first_port
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fewest_hops_and_ties_to_the_port_listed_first() {
        // A ring of four routers 0-1-2-3-0 and a host 4 on router 2. Port 2k leads from
        // router k to k+1, port 2k+1 from router k+1 back to k; ports 8 and 9 join 2 and 4.
        let port_to = [1, 0, 2, 1, 3, 2, 0, 3, 4, 2];
        let node_ports = vec![vec![0, 7], vec![1, 2], vec![3, 4, 8], vec![5, 6], vec![9]];
        let routes = Routes::new(&node_ports, &port_to);
        assert_eq!(routes.port(0, 1), 0);
        assert_eq!(routes.port(0, 3), 7, "one hop back round the ring, not three forward");
        assert_eq!(routes.port(0, 2), 0, "two hops either way: the port listed first");
        assert_eq!(routes.port(0, 4), 0, "the host behind router 2, the same way as 2");
        assert_eq!(routes.port(3, 4), 5, "via 2, one hop nearer than via 0");
        assert_eq!(routes.port(4, 0), 9, "a host's only port");
    }
}
