use proptest::prelude::*;

use super::*;

const MS: Duration = Duration::from_millis(1);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn spec(period: Duration, combine: Combine) -> VrateSpec {
    VrateSpec { period, combine, gain: 1.0 }
}

fn at(d: Duration) -> Time {
    Time::ZERO + d
}

/// What happens to a group at a time.
#[derive(Clone, Debug)]
enum Op {
    /// A member sends a packet with this payload.
    Offer { member: usize, payload: u32 },
    /// A member's TCP takes a sample: RTT and cwnd.
    Sample { member: usize, rtt: Duration, cwnd: u64 },
}

/// Apply `ops` at their times, releasing what the group holds at the times it asks for (as
/// the world does); each packet (numbered in offer order) with the member that sent it and
/// when it left.
fn drive(g: &mut Group, ops: &[(Time, Op)]) -> Vec<(u32, usize, Time)> {
    let mut left = Vec::new();
    let mut sender = Vec::new();
    let mut out = Vec::new();
    let mut release = |g: &mut Group, t: Time, left: &mut Vec<(u32, usize, Time)>, sender: &Vec<usize>| {
        out.clear();
        g.release(t, &mut out);
        left.extend(out.iter().map(|&id| (id, sender[id as usize], t)));
    };
    for (t, op) in ops {
        while let Some(due) = g.due(*t).filter(|d| d < t) {
            release(g, due, &mut left, &sender);
        }
        match *op {
            Op::Offer { member, payload } => {
                let id = sender.len() as u32;
                sender.push(member);
                if g.offer(*t, member, id, payload) {
                    left.push((id, member, *t));
                }
            }
            Op::Sample { member, rtt, cwnd } => g.on_sample(*t, member, rtt, cwnd, false),
        }
        if g.due(*t) == Some(*t) {
            release(g, *t, &mut left, &sender);
        }
    }
    let end = ops.last().map_or(Time::ZERO, |o| o.0);
    while let Some(due) = g.due(end) {
        release(g, due, &mut left, &sender);
    }
    left
}

/// A sample that sets member `m`'s rate: cwnd 10,000 bytes over 10 ms is 8 Mb/s, a
/// 1,000-byte packet every millisecond.
fn eight_mbps(m: usize) -> Op {
    Op::Sample { member: m, rtt: ms(10), cwnd: 10_000 }
}

fn offers(t: Time, member: usize, n: usize) -> Vec<(Time, Op)> {
    (0..n).map(|_| (t, Op::Offer { member, payload: 1000 })).collect()
}

#[test]
fn packets_of_a_group_leave_evenly_spaced_at_the_limiting_rate() {
    // §4: the group is served "with a limiting rate", which breaks a train into evenly
    // spaced packets. A train of 10 full-size packets at 8 Mb/s: one per millisecond, on a
    // wheel whose period divides the spacing.
    let mut g = Group::new(&spec(Duration::from_micros(100), Combine::Sum), 1000, 1);
    let mut ops = vec![(Time::ZERO, eight_mbps(0))];
    ops.extend(offers(Time::ZERO, 0, 10));
    let left = drive(&mut g, &ops);
    let times: Vec<Time> = left.iter().map(|l| l.2).collect();
    assert_eq!(times, (0..10).map(|k| at(ms(k))).collect::<Vec<_>>());
}

#[test]
fn a_packet_due_between_two_ticks_leaves_at_the_later_one() {
    // §4: "All events are grouped by the resolution of the wheel." With a 300 us period a
    // packet due at k ms leaves at the first tick at or after it, never a period late, and
    // the average rate holds.
    let period = Duration::from_micros(300);
    let mut g = Group::new(&spec(period, Combine::Sum), 1000, 1);
    let mut ops = vec![(Time::ZERO, eight_mbps(0))];
    ops.extend(offers(Time::ZERO, 0, 10));
    let left = drive(&mut g, &ops);
    for (k, &(_, _, t)) in left.iter().enumerate() {
        let exact = at(ms(k as u64));
        assert!(t >= exact && t < exact + period, "packet {k} left at {t:?}, due {exact:?}");
        assert_eq!(t.as_nanos() % period.as_nanos(), 0, "packet {k} left off a tick");
    }
}

#[test]
fn backlogged_connections_share_the_rate_within_one_packet() {
    // §4: "approximated fair queuing": three members, the first with its whole train queued
    // before the others send; from the moment all three are backlogged, no member is ever
    // more than one packet ahead of another.
    let mut g = Group::new(&spec(Duration::from_micros(100), Combine::Sum), 1000, 3);
    let mut ops = vec![(Time::ZERO, eight_mbps(0))];
    for m in 0..3 {
        ops.extend(offers(Time::ZERO, m, 20));
    }
    let left = drive(&mut g, &ops);
    assert_eq!(left.len(), 60);
    // The first packet left at once, before the others were offered; the held ones leave
    // in turns.
    let mut sent = [0i32; 3];
    for &(_, m, _) in &left[1..] {
        sent[m] += 1;
        let (hi, lo) = (sent.iter().max().unwrap(), sent.iter().min().unwrap());
        assert!(hi - lo <= 1, "the held packets left unevenly: {sent:?}");
    }
}

#[test]
fn the_limiting_rate_follows_the_members_samples() {
    let mut g = Group::new(&spec(MS, Combine::Sum), 1000, 2);
    assert_eq!(g.rate(), None, "no sample yet: no rate");
    g.on_sample(Time::ZERO, 0, ms(10), 10_000, false);
    assert_eq!(g.rate(), Some(Rate(8_000_000)));
    g.on_sample(Time::ZERO, 1, ms(20), 20_000, false);
    assert_eq!(g.rate(), Some(Rate(16_000_000)), "8 + 8 Mb/s");
    g.on_sample(Time::ZERO, 0, ms(20), 10_000, false);
    assert_eq!(g.rate(), Some(Rate(12_000_000)), "member 0's latest RTT halves its rate: 4 + 8 Mb/s");
    g.on_sample(Time::ZERO, 1, ms(20), 20_000, true);
    assert_eq!(g.rate(), Some(Rate(4_000_000)), "member 1 has all its data acknowledged: left out");

    let mut g = Group::new(&spec(MS, Combine::SumMinRtt), 1000, 1);
    g.on_sample(Time::ZERO, 0, ms(10), 10_000, false);
    g.on_sample(Time::ZERO, 0, ms(20), 10_000, false);
    assert_eq!(g.rate(), Some(Rate(8_000_000)), "the least RTT, 10 ms, not the latest");

    let mut g = Group::new(&VrateSpec { gain: 1.25, ..spec(MS, Combine::Sum) }, 1000, 1);
    g.on_sample(Time::ZERO, 0, ms(10), 10_000, false);
    assert_eq!(g.rate(), Some(Rate(10_000_000)), "gain 1.25 × 8 Mb/s");
}

#[test]
fn a_rate_too_high_for_the_wheel_goes_unshaped_while_it_lasts() {
    // §4: "If rates are too high to be approximated well by that resolution, we just leave
    // the connection uncontrolled for as long as that situation continues."
    let mut g = Group::new(&spec(MS, Combine::Sum), 1000, 1);
    // 100,000 bytes per ms is 800 Mb/s: a packet every 10 us, under the 1 ms period.
    g.on_sample(Time::ZERO, 0, MS, 100_000, false);
    assert_eq!(g.limit(), None);
    assert!((0..100).all(|id| g.offer(Time::ZERO, 0, id, 1000)), "every packet goes at once");
    // At 8 Mb/s the spacing is one period: shaped again, from the next packet on.
    g.on_sample(at(MS), 0, ms(10), 10_000, false);
    assert_eq!(g.limit(), Some(Rate(8_000_000)));
    assert!(g.offer(at(MS), 0, 100, 1000));
    assert!(!g.offer(at(MS), 0, 101, 1000), "the next is held for its turn");
    assert_eq!(g.due(at(MS)), Some(at(ms(2))));
}

#[test]
fn a_group_without_a_sample_holds_nothing() {
    let mut g = Group::new(&spec(MS, Combine::Sum), 1000, 2);
    assert!((0..50).all(|id| g.offer(Time::ZERO, (id % 2) as usize, id, 1000)));
    assert_eq!(g.due(Time::ZERO), None);
}

fn op() -> impl Strategy<Value = (u64, Op)> {
    let offer = (0usize..3, prop_oneof![Just(0u32), 1u32..1500]).prop_map(|(member, payload)| Op::Offer { member, payload });
    let sample = (0usize..3, 1u64..20_000, 1u64..200_000).prop_map(|(member, rtt_us, cwnd)| Op::Sample { member, rtt: Duration::from_micros(rtt_us), cwnd });
    (0u64..3_000, prop_oneof![4 => offer, 1 => sample])
}

proptest! {
    /// Every packet handed to the layer leaves it exactly once, in the order its connection
    /// sent it, and never before it was sent; whatever the samples make of the rate.
    #[test]
    fn every_packet_leaves_once_in_its_connections_order(
        gaps in prop::collection::vec(op(), 1..300),
        period_us in 1u64..2_000,
        combine in prop_oneof![Just(Combine::Sum), Just(Combine::SumMinRtt)],
    ) {
        let mut g = Group::new(&spec(Duration::from_micros(period_us), combine), 1460, 3);
        let mut t = Time::ZERO;
        let mut ops = Vec::new();
        for (gap_us, op) in gaps {
            t += Duration::from_micros(gap_us);
            ops.push((t, op));
        }
        let offered: Vec<(Time, usize)> = ops.iter().filter_map(|(t, op)| match op {
            Op::Offer { member, .. } => Some((*t, *member)),
            Op::Sample { .. } => None,
        }).collect();
        let left = drive(&mut g, &ops);
        let mut ids: Vec<u32> = left.iter().map(|l| l.0).collect();
        ids.sort_unstable();
        prop_assert_eq!(ids, (0..offered.len() as u32).collect::<Vec<_>>(), "each packet leaves exactly once");
        for m in 0..3 {
            let order: Vec<u32> = left.iter().filter(|l| l.1 == m).map(|l| l.0).collect();
            prop_assert!(order.windows(2).all(|w| w[0] < w[1]), "member {}'s packets left out of order: {:?}", m, order);
        }
        for &(id, _, t) in &left {
            prop_assert!(t >= offered[id as usize].0, "packet {} left before it was sent", id);
        }
    }
}
