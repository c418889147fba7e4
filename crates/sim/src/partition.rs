//! Splitting a run over two threads: the network is cut at one link, each half is
//! simulated by its own world on its own thread, and the packets that cross the link pass
//! between them as messages.
//!
//! This is conservative parallel simulation (Chandy and Misra): a packet sent across the
//! link at time t arrives no earlier than t + its delay, so each half may run up to the
//! other's published clock plus that delay (the lookahead) without ever receiving a packet
//! from its past. Each half handles its own events in the (time, `Order`) order a single
//! world would, so the tables are the same as one world's, bit for bit.

use rampup_tcp::Duration;

use crate::scenario::Scenario;

/// A link whose removal leaves two halves, each with connection ends to simulate.
pub struct Split {
    pub link: usize,
    /// The half (0 or 1) of each node.
    pub half: Vec<u8>,
    /// The link's delay: a packet crossing it takes at least this long.
    pub lookahead: Duration,
}

/// The cut for `sc`, if it has one that pays and keeps the results exact.
///
/// Candidates are bridges (links on no cycle) that never change (a `[[change]]` re-times
/// or alters packets already sent across) and whose delay is at least `MIN_LOOKAHEAD`; of these, the
/// one with the longest delay, then the one that divides the connection ends most evenly.
/// Every flow's application must allow it (`traffic::App::fast_paths`).
pub fn plan(sc: &Scenario) -> Option<Split> {
    // The per-packet trace logs each hop at its own time (`world::traces`).
    // A vrate group's releases are its host's own events (`world::host`), and an ensemble's
    // member changes the others' windows (`world::host`). A queue discipline takes its
    // packets in time order (`world::queued`).
    let disciplined = sc.net.links.iter().any(|l| l.discipline.iter().any(Option::is_some));
    if disciplined || sc.trace.packets || !sc.groups.is_empty() || !sc.shares.is_empty() || sc.flows.iter().any(|f| !f.app.fast_paths().split) {
        return None;
    }
    let mut ends_at = vec![0usize; sc.net.nodes.len()];
    for f in &sc.flows {
        ends_at[f.from] += 1;
        ends_at[f.to] += 1;
    }
    let tree = Search::new(sc, &ends_at);
    let cut = tree
        .bridges
        .iter()
        .filter(|b| sc.net.links[b.link].delay >= MIN_LOOKAHEAD && !sc.changes.iter().any(|c| c.link == b.link) && b.below > 0 && b.below < b.total)
        // The longest delay, then the most even split (the fewest ends on the larger side).
        .min_by_key(|b| (std::cmp::Reverse(sc.net.links[b.link].delay), b.below.max(b.total - b.below)))?;
    // Half 1 is the cut's far side from the search's root: the subtree below it.
    let subtree = tree.found[cut.below_node]..tree.found[cut.below_node] + tree.size[cut.below_node];
    let half: Vec<u8> = tree.found.iter().map(|f| subtree.contains(f) as u8).collect();
    Some(Split { link: cut.link, half, lookahead: sc.net.links[cut.link].delay })
}

/// Below this a half would wait on the other too often for two threads to pay.
const MIN_LOOKAHEAD: Duration = Duration(100_000);

/// A link on no cycle, seen from the depth-first search that found it.
struct Bridge {
    link: usize,
    /// The link's end farther from the search's root.
    below_node: usize,
    /// Connection ends in the subtree below it, and in its connected part of the network.
    below: usize,
    total: usize,
}

/// Tarjan's depth-first search for bridges. Nodes are numbered in the order found, so the
/// subtree below a node is the run of `size` numbers from its own.
struct Search {
    found: Vec<usize>,
    size: Vec<usize>,
    bridges: Vec<Bridge>,
}

impl Search {
    fn new(sc: &Scenario, ends_at: &[usize]) -> Search {
        let nodes = sc.net.nodes.len();
        let mut adjacent: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nodes];
        for (i, l) in sc.net.links.iter().enumerate() {
            adjacent[l.a].push((l.b, i));
            adjacent[l.b].push((l.a, i));
        }
        const NEW: usize = usize::MAX;
        let (mut found, mut low, mut size, mut below) = (vec![NEW; nodes], vec![0; nodes], vec![1; nodes], ends_at.to_vec());
        let mut bridges = Vec::new();
        let mut clock = 0;
        for root in 0..nodes {
            if found[root] != NEW {
                continue;
            }
            let first = bridges.len();
            // (node, the link it was reached by, the next of its neighbours to look at)
            let mut stack = vec![(root, usize::MAX, 0)];
            found[root] = clock;
            low[root] = clock;
            clock += 1;
            while let Some(&mut (n, via, ref mut next)) = stack.last_mut() {
                if let Some(&(m, link)) = adjacent[n].get(*next) {
                    *next += 1;
                    if link == via {
                        continue;
                    }
                    if found[m] == NEW {
                        found[m] = clock;
                        low[m] = clock;
                        clock += 1;
                        stack.push((m, link, 0));
                    } else {
                        low[n] = low[n].min(found[m]);
                    }
                    continue;
                }
                stack.pop();
                if let Some(&(parent, _, _)) = stack.last() {
                    low[parent] = low[parent].min(low[n]);
                    size[parent] += size[n];
                    below[parent] += below[n];
                    if low[n] > found[parent] {
                        bridges.push(Bridge { link: via, below_node: n, below: below[n], total: 0 });
                    }
                }
            }
            for b in &mut bridges[first..] {
                b.total = below[root];
            }
        }
        Search { found, size, bridges }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dumbbell(pairs: usize, extra: &str) -> Scenario {
        let text = format!(
            "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\npairs = {pairs}\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\nbottleneck_rate = \"100Mbps\"\nbottleneck_delay = \"10ms\"\nbottleneck_queue = {{ packets = 100 }}\n{}{extra}",
            (0..pairs).map(|i| format!("[[flow]]\nfrom = \"s{i}\"\nto = \"r{i}\"\napp = {{ kind = \"bulk\" }}\n")).collect::<String>()
        );
        crate::scenario::parse(&text).unwrap()
    }

    #[test]
    fn a_dumbbell_is_cut_at_its_bottleneck() {
        for pairs in [1, 3] {
            let sc = dumbbell(pairs, "");
            let s = plan(&sc).expect("a split");
            let l = &sc.net.links[s.link];
            assert_eq!(s.lookahead, Duration::from_millis(10));
            assert_ne!(s.half[l.a], s.half[l.b]);
            let node = |name: &str| sc.net.nodes.iter().position(|n| n.name == name).unwrap();
            assert_eq!(s.half[node("s0")], s.half[l.a], "senders on the bottleneck's sending side");
            assert_eq!(s.half[node(&format!("r{}", pairs - 1))], s.half[l.b]);
        }
    }

    #[test]
    fn no_split_for_sized_transfers_or_a_changing_bottleneck() {
        let mut sc = dumbbell(2, "");
        sc.flows[1].app = crate::traffic::App::Bulk { bytes: Some(1000) };
        assert!(plan(&sc).is_none(), "a sized transfer");
        let sc = dumbbell(2, "");
        let cut = plan(&sc).unwrap().link;
        let l = &sc.net.links[cut];
        let change = format!("[[change]]\nat = \"0.5s\"\nlink = \"{}-{}\"\nrate = \"10Mbps\"\n", sc.net.nodes[l.a].name, sc.net.nodes[l.b].name);
        let changed = dumbbell(2, &change);
        let s = plan(&changed);
        assert!(s.is_none_or(|s| s.link != cut), "the bottleneck changes rate");
    }

    #[test]
    fn links_on_a_cycle_are_not_cut() {
        // a - b - c - a is a ring; c - d hangs off it, and the flow runs from a to d.
        let text = r#"
duration = "1s"
[topology]
kind = "custom"
nodes = ["a", "b", "c", "d"]
[[topology.link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "50ms"
[[topology.link]]
a = "b"
b = "c"
rate = "10Mbps"
delay = "50ms"
[[topology.link]]
a = "c"
b = "a"
rate = "10Mbps"
delay = "50ms"
[[topology.link]]
a = "c"
b = "d"
rate = "10Mbps"
delay = "5ms"
[[flow]]
from = "a"
to = "d"
app = { kind = "bulk" }
[[flow]]
from = "d"
to = "b"
app = { kind = "bulk" }
"#;
        let sc = crate::scenario::parse(text).unwrap();
        let s = plan(&sc).expect("the link to d");
        assert_eq!(s.link, 3);
        assert_eq!(s.half, vec![0, 0, 0, 1]);
    }
}
