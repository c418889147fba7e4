use super::*;
use crate::topology::NodeSpec;

#[test]
fn a_packet_takes_72_bytes() {
    // Packets are copied at every step of their way (into the slab, across the cut of a
    // split run); a size creeping up shows here before it shows in `rampup bench`.
    assert_eq!((size_of::<Segment>(), size_of::<Packet>()), (56, 72));
}

#[test]
fn a_hop_reads_four_lines_of_its_port() {
    // `Port`'s layout: each group of hot fields, first to last, in the cache line its
    // comment names.
    use std::mem::offset_of;
    let line = |offset: usize, size: usize| (offset / 64, (offset + size - 1) / 64);
    assert_eq!(line(offset_of!(Port, busy_until), 8), (0, 0));
    assert_eq!(line(offset_of!(Port, backlog), size_of::<Backlog>()), (0, 0));
    assert_eq!(line(offset_of!(Port, backlog_bytes), 8), (0, 0));
    assert_eq!(line(offset_of!(Port, last_tx), size_of::<(u32, Duration)>()), (1, 1));
    assert_eq!(line(offset_of!(Port, limit), size_of::<QueueLimit>()), (1, 1));
    assert_eq!(line(offset_of!(Port, delay), 8), (1, 1));
    assert_eq!(line(offset_of!(Port, rng), 8), (2, 2));
    assert_eq!(line(offset_of!(Port, stats), size_of::<PortStats>()), (2, 2));
    assert_eq!(line(offset_of!(Port, loss), 8), (2, 2));
    assert_eq!(line(offset_of!(Port, to), 4), (3, 3));
    assert_eq!(line(offset_of!(Port, fed_only_by), size_of::<Option<u32>>()), (3, 3));
    assert_eq!(line(offset_of!(Port, wire), size_of::<VecDeque<OnWire>>()), (3, 3));
}

fn line(n: usize) -> NetSpec {
    let nodes = (0..n).map(|i| NodeSpec { name: format!("n{i}") }).collect();
    let links = (1..n)
        .map(|i| LinkSpec {
            a: i - 1,
            b: i,
            rate: Rate(1_000_000),
            delay: Duration::from_millis(1),
            queue: [QueueLimit::Packets(10); 2],
            discipline: [None; 2],
            loss: [0.0; 2],
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::ZERO,
            jitter: Duration::ZERO,
            burst_bytes: None,
        })
        .collect();
    NetSpec { nodes, links }
}

fn ms(v: u64) -> Time {
    Time(Duration::from_millis(v).0)
}

/// n0 -> n1 at 1 Mb/s shaped by a token bucket of `burst` bytes.
fn bucket_line(burst: u64) -> Net {
    let mut spec = line(2);
    spec.links[0].burst_bytes = Some(burst);
    Net::new(&spec, 1)
}

#[test]
fn a_full_bucket_passes_packets_at_once_and_then_spaces_them_at_the_rate() {
    // tc's tbf: after an idle the bucket's burst leaves without serialisation time (each
    // 1000-byte packet takes 8 ms at 1 Mb/s); those beyond it wait for tokens.
    let mut net = bucket_line(2000);
    let p = &mut net.ports[0];
    let mut starts = Vec::new();
    assert_eq!(send(p, Time::ZERO, 0, &mut starts), Some(ms(1)), "the link's delay only");
    for id in 1..4 {
        send(p, Time::ZERO, id, &mut starts);
    }
    assert_eq!(starts, vec![ms(0), ms(0), ms(8), ms(16)]);
    // 100 ms idle fills the bucket to its burst, not beyond.
    p.expire(ms(100), None);
    for id in 4..7 {
        send(p, ms(100), id, &mut starts);
    }
    assert_eq!(starts[4..], [ms(100), ms(100), ms(108)]);
}

#[test]
fn a_bucket_of_one_packet_sends_when_a_serialiser_would_start() {
    // Equal packets and a burst of one: each leaves the bucket when a serialiser at the
    // same rate would start it, whatever the arrivals; the testbed's translation of tbf
    // rests on this (docs/testbed.md).
    let arrivals = [0, 1, 2, 30, 31, 40, 41, 42, 43, 90, 97, 105, 106, 200];
    let starts = |net: &mut Net| {
        let p = &mut net.ports[0];
        let mut starts = Vec::new();
        for (id, &t) in arrivals.iter().enumerate() {
            p.expire(ms(t), None);
            send(p, ms(t), id as u32, &mut starts);
        }
        starts
    };
    let mut serial = Net::new(&line(2), 1);
    assert_eq!(starts(&mut bucket_line(1000)), starts(&mut serial));
}

#[test]
fn a_bucket_s_queue_holds_the_packets_that_have_not_left() {
    // As tbf's child qdisc: a packet that left at once takes no room.
    let mut spec = line(2);
    spec.links[0].burst_bytes = Some(1000);
    spec.links[0].queue = [QueueLimit::Packets(1); 2];
    let mut net = Net::new(&spec, 1);
    let p = &mut net.ports[0];
    p.expire(Time::ZERO, None);
    assert!(matches!(p.offer::<false>(Time::ZERO, 0, &udp(1000), |_| {}), Offer::Sent { .. }));
    p.expire(Time::ZERO, None);
    assert!(matches!(p.offer::<false>(Time::ZERO, 1, &udp(1000), |_| {}), Offer::Sent { .. }), "the first has left");
    assert!(matches!(p.offer::<false>(Time::ZERO, 2, &udp(1000), |_| {}), Offer::Dropped), "the second waits in the queue");
    p.expire(ms(8), None);
    assert_eq!(p.queued_packets(), 0, "the second left at 8 ms");
}

#[test]
fn routes_follow_the_line() {
    let net = Net::new(&line(4), 1);
    // n1 has ports to n0 (index 1, the reverse of link 0) and to n2 (index 2).
    assert_eq!(net.ports[net.route(1, 3) as usize].to, 2);
    assert_eq!(net.ports[net.route(1, 0) as usize].to, 0);
    assert_eq!(net.ports[net.route(0, 3) as usize].to, 1, "a host has one port");
}

fn udp(bytes: u32) -> Packet {
    Packet { dst: 1, wire_bytes: bytes, body: Body::Udp { source: 0 } }
}

/// Offer a 1000-byte packet and put it on the port's wire; the head arrival to schedule.
fn send(p: &mut Port, now: Time, id: u32, starts: &mut Vec<Time>) -> Option<Time> {
    match p.offer::<false>(now, id, &udp(1000), |t| starts.push(t)) {
        Offer::Sent { wire, .. } => p.put_on_wire(wire).map(|w| w.arrival()),
        _ => panic!("packet {id} not sent"),
    }
}

#[test]
fn packet_limit_counts_the_packet_in_service() {
    let mut spec = line(2);
    spec.links[0].queue = [QueueLimit::Packets(1); 2];
    let mut net = Net::new(&spec, 1);
    let p = &mut net.ports[0];
    assert!(matches!(p.offer::<false>(Time::ZERO, 0, &udp(1000), |_| {}), Offer::Sent { .. }));
    assert!(matches!(p.offer::<false>(Time::ZERO, 1, &udp(1000), |_| {}), Offer::Dropped));
    // 1000 bytes at 1 Mb/s take 8 ms; then the queue is free again.
    p.expire(Time(Duration::from_millis(8).0), None);
    assert!(matches!(p.offer::<false>(Time(Duration::from_millis(8).0), 2, &udp(1000), |_| {}), Offer::Sent { .. }));
}

#[test]
fn departures_are_computed_at_admission() {
    let mut net = Net::new(&line(2), 1);
    let p = &mut net.ports[0];
    let mut starts = Vec::new();
    assert_eq!(send(p, Time::ZERO, 0, &mut starts), Some(ms(9)), "the first on the wire is its head");
    assert_eq!(send(p, Time::ZERO, 1, &mut starts), None);
    assert_eq!(send(p, Time::ZERO, 2, &mut starts), None);
    assert_eq!(starts, vec![ms(0), ms(8), ms(16)]);
    // Arrival = finish + 1 ms delay.
    assert_eq!(p.arrive(ms(9)).1.map(|w| (w.arrival(), w.txn())), Some((ms(17), 1)));
    assert!(p.arrive(ms(10)).0.is_none(), "nothing arrives at 10 ms");
}

#[test]
fn a_rate_change_retimes_waiting_packets_only() {
    let mut net = Net::new(&line(2), 1);
    let p = &mut net.ports[0];
    for id in 0..3 {
        send(p, Time::ZERO, id, &mut Vec::new());
    }
    // At 4 ms the first packet is in service (finishes at 8 ms at the old rate); the
    // other two wait and go at 2 Mb/s: 4 ms each.
    assert!(p.set_rate(ms(4), Rate(2_000_000)).is_none(), "the head is in service and keeps its time");
    assert_eq!(p.arrive(ms(9)).1.map(|w| w.arrival()), Some(ms(13)));
    assert_eq!(p.arrive(ms(13)).1.map(|w| w.arrival()), Some(ms(17)));
}

#[test]
fn a_rate_change_applies_to_the_next_packet_of_a_size_already_sent() {
    let mut net = Net::new(&line(2), 1);
    let p = &mut net.ports[0];
    // 1000 bytes: 8 ms at 1 Mb/s, then 4 ms at 2 Mb/s (the kept serialisation time of
    // this size must not outlive the rate), each plus 1 ms of delay.
    assert_eq!(send(p, Time::ZERO, 0, &mut Vec::new()), Some(ms(9)));
    p.arrive(ms(9));
    p.set_rate(ms(20), Rate(2_000_000));
    assert_eq!(send(p, ms(20), 1, &mut Vec::new()), Some(ms(25)));
}

#[test]
fn a_reordered_packet_that_is_also_duplicated_keeps_its_copy() {
    let mut spec = line(2);
    spec.links[0].duplicate = 1.0;
    spec.links[0].reorder = 1.0;
    spec.links[0].reorder_delay = Duration::from_millis(5);
    let mut net = Net::new(&spec, 1);
    // 8 ms serialisation, 1 ms delay, 5 ms held back; the copy comes with it.
    match net.ports[0].offer::<false>(Time::ZERO, 0, &udp(1000), |_| {}) {
        Offer::Reordered { at, txn, duplicate } => assert_eq!((at, txn, duplicate), (ms(14), 0, Some(ms(14)))),
        _ => panic!("every packet is reordered"),
    }
}

#[test]
fn cut_through_needs_one_in_order_feeder() {
    // n0 - n1 - n2 - n3: ports 0 (n0->n1), 2 (n1->n2), 4 (n2->n3) carry n0's packets to n3.
    let fed = |spec: &NetSpec, paths: &[(u32, u32)], changing: &[usize]| {
        let mut net = Net::new(spec, 1);
        net.plan_cut_through(paths.iter().copied(), changing);
        net.ports.iter().map(|p| p.fed_only_by).collect::<Vec<_>>()
    };
    let spec = line(4);
    let one = fed(&spec, &[(0, 3)], &[]);
    assert_eq!((one[0], one[2], one[4]), (None, Some(0), Some(2)), "a host's own port is never cut through");
    let two = fed(&spec, &[(0, 3), (1, 3)], &[]);
    assert_eq!((two[2], two[4]), (None, Some(2)), "n1 sends on port 2 too: two feeders");
    assert_eq!(fed(&spec, &[(0, 3)], &[1])[2..5], [None, None, None], "link 1 changes rate");
    let mut dup = line(4);
    dup.links[0].duplicate = 0.1;
    assert_eq!(fed(&dup, &[(0, 3)], &[])[2], None, "duplicates from port 0 arrive out of order");
    let mut net = Net::new(&spec, 1);
    net.plan_cut_through([(0, 3)], &[]);
    let end = Time(Duration::from_secs(1).0);
    assert_eq!(net.cut_through(0, net.ports[0].leaving(), 3, Time::ZERO, end), Some(2));
    assert_eq!(net.cut_through(0, net.ports[0].leaving(), 3, end + Duration(1), end), None, "arrives after the run");
    assert_eq!(net.cut_through(4, net.ports[4].leaving(), 3, Time::ZERO, end), None, "arrived");
}

#[test]
fn the_next_hop_is_known_where_the_routes_through_a_port_agree() {
    // n0 - n1 - n2 - n3, ports 0 (n0->n1), 2 (n1->n2), 4 (n2->n3) and their reverses 1, 3, 5.
    let mut net = Net::new(&line(4), 1);
    net.plan_cut_through([(0, 3), (3, 0)], &[]);
    let after = |net: &Net, p: usize| net.ports[p].after;
    assert_eq!(after(&net, 0), After::Next { port: 2, cut: true });
    assert_eq!(after(&net, 2), After::Next { port: 4, cut: true });
    assert_eq!(after(&net, 4), After::End);
    assert_eq!((after(&net, 5), after(&net, 1)), (After::Next { port: 3, cut: true }, After::End));
    assert_eq!((net.next_hop(0, 3), net.next_hop(4, 3)), (Some(2), None));

    // A flow that ends at n2 too: the routes through port 2 part at n2.
    net.plan_cut_through([(0, 3), (0, 2)], &[]);
    assert_eq!(after(&net, 2), After::ByRoute);
    assert_eq!((net.next_hop(2, 2), net.next_hop(2, 3)), (None, Some(4)));
    let end = Time(Duration::from_secs(1).0);
    assert_eq!(
        (net.cut_through(2, net.ports[2].leaving(), 2, Time::ZERO, end), net.cut_through(2, net.ports[2].leaving(), 3, Time::ZERO, end)),
        (None, Some(4))
    );

    // n1 sends to n3 as well: port 2 has two feeders, so port 0's packets stop at n1 for
    // their arrival event (waiting for it in port 2's inbox), whose next hop needs no lookup
    // all the same.
    net.plan_cut_through([(0, 3), (1, 3)], &[]);
    assert_eq!(after(&net, 0), After::Merge { port: 2 });
    assert_eq!((net.cut_through(0, net.ports[0].leaving(), 3, Time::ZERO, end), net.next_hop(0, 3)), (None, Some(2)));

    // Hop by hop (no routes given): every next hop by lookup, nothing cut through.
    net.plan_cut_through([], &[]);
    assert!(net.ports.iter().all(|p| p.after == After::ByRoute));
    assert_eq!((net.next_hop(0, 3), net.cut_through(0, net.ports[0].leaving(), 3, Time::ZERO, end)), (Some(2), None));
}

/// n0 and n1 both send to n3 through n2: ports 0 (n0->n2) and 2 (n1->n2) feed port 4
/// (n2->n3), whose inbox takes their packets while they come in order.
fn star() -> Net {
    let mut spec = line(4);
    spec.links[0].b = 2;
    let mut net = Net::new(&spec, 1);
    net.plan_cut_through([(0, 3), (1, 3)], &[]);
    net
}

#[test]
fn an_inbox_takes_packets_in_arrival_order_and_leaves_the_others_on_their_wires() {
    let mut net = star();
    assert_eq!((net.ports[0].after, net.ports[2].after), (After::Merge { port: 4 }, After::Merge { port: 4 }));
    let on_wire = |arrival: Time, txn: u64, id: u32| OnWire { arrival, txn, extra: Duration::ZERO, id };
    let put = |net: &mut Net, port: u32, w: OnWire| {
        let from = net.ports[port as usize].leaving();
        net.put_on_wire(port, from, w)
    };
    // The inbox's first packet is its event; one arriving later joins it; one arriving
    // earlier than the inbox's last goes on its own wire, whose first it is.
    assert_eq!(put(&mut net, 0, on_wire(ms(5), 0, 10)), Some((ms(5), inbox_order(0, 0))));
    assert_eq!(put(&mut net, 2, on_wire(ms(7), 0, 11)), None);
    assert_eq!(put(&mut net, 0, on_wire(ms(6), 1, 12)), Some((ms(6), arrival_order(0, 1))));
    assert_eq!(net.on_wires(), 3);
    // Taken in time order, each ring gives its next packet's event.
    assert_eq!(net.arrive(0, inbox_order(0, 0), ms(5)), (Some(10), Some((ms(7), inbox_order(2, 0)))));
    assert_eq!(net.arrive(0, arrival_order(0, 1), ms(6)), (Some(12), None));
    assert_eq!(net.arrive(2, inbox_order(2, 0), ms(7)), (Some(11), None));
    assert_eq!(net.on_wires(), 0);
    // At the same arrival, the rank decides: port 0's packet ranks before port 2's, so it
    // cannot follow it into the inbox.
    assert_eq!(put(&mut net, 2, on_wire(ms(9), 1, 13)), Some((ms(9), inbox_order(2, 1))));
    assert_eq!(put(&mut net, 0, on_wire(ms(9), 2, 14)), Some((ms(9), arrival_order(0, 2))));
    assert!(arrival_order(0, 2) < inbox_order(2, 1), "the wire's packet comes first");
    // Ranked as the wire's event would be, one place after it.
    assert_eq!(inbox_order(0, 3).tie(), arrival_order(0, 3).tie() + 1);
}

#[test]
fn a_changing_or_reordering_feeder_sends_to_no_inbox() {
    let mut net = star();
    net.plan_cut_through([(0, 3), (1, 3)], &[0]);
    assert_eq!((net.ports[0].after, net.ports[2].after), (After::Next { port: 4, cut: false }, After::Merge { port: 4 }));
    net.ports[2].reorder = 0.1;
    net.plan_cut_through([(0, 3), (1, 3)], &[]);
    assert_eq!((net.ports[0].after, net.ports[2].after), (After::Merge { port: 4 }, After::Next { port: 4, cut: false }));
}
