//! FQ-CoDel (RFC 8290): packets hashed by flow into queues served by deficit round robin,
//! new flows ahead of old ones, each queue run by its own CoDel.

use std::collections::VecDeque;

use rampup_tcp::Time;

use super::codel::{CoDelParams, CoDelState};
use super::{Fifo, Queued, Verdicts};

/// FQ-CoDel's settings (RFC 8290 §5.2, Linux's `fq_codel` defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCoDelParams {
    /// Queues the flows are hashed into (§5.2.4: 1024).
    pub flows: u32,
    /// Bytes a queue may send per round (§5.2.2: one MTU with its Ethernet header, 1514).
    pub quantum_bytes: u32,
    /// Bytes all queues may hold together before the fattest drops (§5.2.5: Linux's 32 MB).
    pub memory_limit_bytes: u64,
    /// Each queue's CoDel (§5.1).
    pub codel: CoDelParams,
}

impl Default for FqCoDelParams {
    fn default() -> Self {
        FqCoDelParams { flows: 1024, quantum_bytes: 1514, memory_limit_bytes: 32 << 20, codel: CoDelParams::default() }
    }
}

/// Which of the two round-robin lists a queue is on (§4.1).
#[derive(Clone, Copy, Debug, PartialEq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue {
    fifo: Fifo,
    /// Bytes the queue may still send this round (§4.2).
    deficit: i64,
    codel: CoDelState,
    list: List,
}

#[derive(Debug)]
pub struct FqCoDel {
    params: FqCoDelParams,
    seed: u64,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
}

impl FqCoDel {
    pub fn new(params: FqCoDelParams, seed: u64) -> FqCoDel {
        let queues = (0..params.flows).map(|_| FlowQueue { fifo: Fifo::default(), deficit: 0, codel: CoDelState::default(), list: List::None }).collect();
        FqCoDel { params, seed, queues, new_flows: VecDeque::new(), old_flows: VecDeque::new(), len: 0, bytes: 0 }
    }

    /// §4.1.1: the queue of flow `key`, by a hash seeded per run (Linux seeds its own per
    /// qdisc), so that which flows share a queue does not depend on their numbering alone.
    fn queue_of(&self, key: u64) -> usize {
        let mut z = key ^ self.seed;
        // splitmix64's finaliser: every bit of the key moves every bit of the hash.
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z % self.params.flows as u64) as usize
    }

    /// §4.1: a packet joins its flow's queue; a queue not on a list goes to the end of the
    /// new flows with a full quantum. Over the limit (`full`, or the memory limit), the
    /// queue holding the most bytes loses its head (§4.1, "drops from the fattest queue").
    pub fn enqueue(&mut self, pkt: Queued, full: bool, out: &mut Verdicts) {
        let i = self.queue_of(pkt.flow);
        let q = &mut self.queues[i];
        q.fifo.push(pkt);
        if q.list == List::None {
            q.list = List::New;
            q.deficit = self.params.quantum_bytes as i64;
            self.new_flows.push_back(i as u32);
        }
        self.len += 1;
        self.bytes += pkt.bytes as u64;
        if full || self.bytes > self.params.memory_limit_bytes {
            self.drop_from_fattest(out);
        }
    }

    fn drop_from_fattest(&mut self, out: &mut Verdicts) {
        // The first of the fattest, so that a tie drops deterministically.
        let fattest = (0..self.queues.len()).rev().max_by_key(|&i| self.queues[i].fifo.bytes()).expect("at least one queue");
        if let Some(p) = self.queues[fattest].fifo.pop() {
            self.len -= 1;
            self.bytes -= p.bytes as u64;
            out.drop(&p);
        }
    }

    /// §4.2: serve the first queue of the new flows, else of the old; a queue out of
    /// deficit gets a quantum more and goes to the end of the old flows; a queue found
    /// empty leaves the new list for the end of the old one (so that a flow cannot come
    /// back new at once), or leaves the old list.
    pub fn dequeue(&mut self, now: Time, out: &mut Verdicts) -> Option<Queued> {
        loop {
            let (i, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i as usize, true),
                (None, Some(&i)) => (i as usize, false),
                (None, None) => return None,
            };
            let q = &mut self.queues[i];
            if q.deficit <= 0 {
                q.deficit += self.params.quantum_bytes as i64;
                self.take_off(from_new);
                self.queues[i].list = List::Old;
                self.old_flows.push_back(i as u32);
                continue;
            }
            let (len, bytes) = (q.fifo.len(), q.fifo.bytes());
            let others = self.bytes - bytes;
            let got = q.codel.dequeue(now, &self.params.codel, &mut q.fifo, others, out);
            self.len -= len - q.fifo.len();
            self.bytes -= bytes - q.fifo.bytes();
            match got {
                Some(p) => {
                    q.deficit -= p.bytes as i64;
                    return Some(p);
                }
                None => {
                    self.take_off(from_new);
                    if from_new {
                        self.queues[i].list = List::Old;
                        self.old_flows.push_back(i as u32);
                    } else {
                        self.queues[i].list = List::None;
                    }
                }
            }
        }
    }

    fn take_off(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::test_util::{ms, pkt};

    /// Two flows known to hash to different queues of `f`.
    fn two_flows(f: &FqCoDel) -> (u64, u64) {
        let a = 1;
        let b = (2..).find(|&k| f.queue_of(k) != f.queue_of(a)).unwrap();
        (a, b)
    }

    #[test]
    fn a_new_flow_is_served_before_the_old_ones() {
        // RFC 8290 §4.2: the new list is served first.
        let mut f = FqCoDel::new(FqCoDelParams::default(), 7);
        let (a, b) = two_flows(&f);
        let mut out = Verdicts::default();
        for i in 0..10 {
            f.enqueue(pkt(i, 1500, 0, a), false, &mut out);
        }
        // Flow a uses up its first quantum and moves to the old list.
        f.dequeue(ms(0), &mut out);
        f.dequeue(ms(0), &mut out);
        f.enqueue(pkt(100, 1500, 0, b), false, &mut out);
        assert_eq!(f.dequeue(ms(0), &mut out).unwrap().id, 100);
    }

    #[test]
    fn quantum_shares_bytes_within_one_packet() {
        // RFC 8290 §4.2 (deficit round robin): backlogged flows get equal bytes, whatever
        // their packet sizes, to within a packet.
        let mut f = FqCoDel::new(FqCoDelParams::default(), 7);
        let (a, b) = two_flows(&f);
        let mut out = Verdicts::default();
        for i in 0..1000 {
            f.enqueue(pkt(i, 1500, 0, a), false, &mut out);
            f.enqueue(pkt(10_000 + i, 300, 0, b), false, &mut out);
        }
        let mut sent = [0u64; 2];
        for _ in 0..600 {
            let p = f.dequeue(ms(0), &mut out).unwrap();
            sent[usize::from(p.flow == b)] += p.bytes as u64;
        }
        assert!(sent[0].abs_diff(sent[1]) <= 1514 + 1500, "bytes sent {sent:?}");
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue() {
        // RFC 8290 §4.1: on overflow the head of the queue with the most bytes goes, not
        // the packet arriving.
        let mut f = FqCoDel::new(FqCoDelParams::default(), 7);
        let (a, b) = two_flows(&f);
        let mut out = Verdicts::default();
        for i in 0..10 {
            f.enqueue(pkt(i, 1500, 0, a), false, &mut out);
        }
        f.enqueue(pkt(50, 1500, 0, b), true, &mut out);
        assert_eq!(out.dropped, vec![0]);
        assert_eq!(f.len(), 10);
    }

    #[test]
    fn the_memory_limit_drops_from_the_fattest_queue() {
        // RFC 8290 §5.2.5: memory_limit bounds the bytes held.
        let mut f = FqCoDel::new(FqCoDelParams { memory_limit_bytes: 3000, ..Default::default() }, 7);
        let mut out = Verdicts::default();
        for i in 0..3 {
            f.enqueue(pkt(i, 1500, 0, 1), false, &mut out);
        }
        assert_eq!((out.dropped, f.bytes()), (vec![0], 3000));
    }

    #[test]
    fn each_queue_runs_its_own_codel() {
        // RFC 8290 §5.1: a flow with a standing queue is dropped from; a sparse one that
        // shares the link is not.
        let mut f = FqCoDel::new(FqCoDelParams::default(), 7);
        let (a, b) = two_flows(&f);
        let mut out = Verdicts::default();
        for i in 0..2000 {
            f.enqueue(pkt(i, 1500, 0, a), false, &mut out);
        }
        for t in 0..300 {
            f.enqueue(pkt(5000 + t as u32, 100, t, b), false, &mut out);
            for _ in 0..3 {
                f.dequeue(ms(t), &mut out);
            }
        }
        assert!(!out.dropped.is_empty());
        assert!(out.dropped.iter().all(|&id| id < 2000), "only the fat flow is dropped from");
    }
}
