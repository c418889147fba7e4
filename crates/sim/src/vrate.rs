//! vrate (paper 004 §4): a layer between a host's TCP ends and its link. It adds no header
//! and makes no packet; it decides when each packet a member sends may go.
//!
//! The application puts connections in a group. Each member has its own queue, and the
//! group's backlogged queues are served in turn, one packet each (round robin: §4's
//! "approximated fair queuing"), under the group's limiting rate. Each precise RTT sample a
//! member's TCP takes (`Event::RttSample`) updates that member's rate, cwnd / RTT, and the
//! group's limiting rate is the members' rates combined (`Combine`), times `gain`. Packets
//! are charged by their payload, the bytes cwnd counts. Releases fall on the ticks of a
//! timing wheel of period `period`: a packet due between two ticks leaves at the later one.
//! A group whose rate would space full-size packets closer than one period is too fast for
//! the wheel and goes unshaped while that lasts ("we just leave the connection uncontrolled",
//! §4). Until a member has a sample, and while every member with one has all its data
//! acknowledged, the group has no rate and goes unshaped.
//!
//! The world keeps one pending release event per group (`Group::wake_at`); the simulator's
//! event queue, fed only tick times, plays the wheel.

use std::collections::VecDeque;

use rampup_tcp::{Duration, Rate, Time};

/// How a group's limiting rate is made from its members' samples (the paper gives the
/// principle, not the formula); `[vrate] combine` names it in kebab-case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Combine {
    /// The sum of cwnd / RTT over the members, each with its latest sample: the group may
    /// send what its members' windows together send in their RTTs.
    Sum,
    /// The sum of cwnd / least RTT seen: as `Sum`, without the queueing delay in the RTT.
    SumMinRtt,
    /// No sharing: each connection alone in a group of its own at its cwnd / RTT.
    Each,
}

/// The `[vrate]` table: the layer's parameters, the same for every group.
#[derive(Clone, Debug, PartialEq)]
pub struct VrateSpec {
    /// The timing wheel's period.
    pub period: Duration,
    pub combine: Combine,
    /// The limiting rate is `gain` times the combined rate.
    pub gain: f64,
}

impl Default for VrateSpec {
    fn default() -> Self {
        VrateSpec { period: Duration::from_millis(1), combine: Combine::Sum, gain: 1.0 }
    }
}

/// A member's latest precise RTT sample and the window it was taken with.
#[derive(Clone, Copy, Debug)]
struct Sample {
    cwnd_bytes: u64,
    rtt: Duration,
    min_rtt: Duration,
}

#[derive(Default)]
struct Member {
    /// Held packets: (packet id, payload bytes), in the order the member sent them.
    queue: VecDeque<(u32, u32)>,
    sample: Option<Sample>,
    /// Its data all acknowledged: its sample is left out of the group's rate until its next.
    done: bool,
}

/// One group of connections on one host.
pub struct Group {
    period: Duration,
    gain: f64,
    use_min_rtt: bool,
    /// The largest segment a member sends: the unit of the wheel's resolution test.
    mss_bytes: u64,
    members: Vec<Member>,
    /// Members with held packets, in serving order.
    backlogged: VecDeque<usize>,
    /// The limiting rate; `None` while no member's sample counts.
    rate: Option<Rate>,
    /// When the group may send its next packet, exactly (not rounded to a tick).
    next_free: Time,
    /// The release event pending in the world's queue (a later one in the queue is stale).
    pub wake_at: Option<Time>,
}

impl Group {
    pub fn new(spec: &VrateSpec, mss_bytes: u32, members: usize) -> Group {
        Group {
            period: spec.period,
            gain: spec.gain,
            use_min_rtt: spec.combine == Combine::SumMinRtt,
            mss_bytes: mss_bytes as u64,
            members: (0..members).map(|_| Member::default()).collect(),
            backlogged: VecDeque::new(),
            rate: None,
            next_free: Time::ZERO,
            wake_at: None,
        }
    }

    /// The limiting rate, when the group is shaped: it has a rate, and that rate spaces
    /// full-size packets at least one wheel period apart.
    pub fn limit(&self) -> Option<Rate> {
        self.rate.filter(|r| r.tx_time(self.mss_bytes) >= self.period)
    }

    /// Member `m` sends packet `id` with `payload` bytes at `now`: true if it goes now,
    /// false if the group holds it (then `due` says when the group wants its release).
    pub fn offer(&mut self, now: Time, m: usize, id: u32, payload: u32) -> bool {
        if self.backlogged.is_empty() {
            match self.limit() {
                None => return true,
                Some(rate) if self.next_free <= now => {
                    self.next_free = now + rate.tx_time(payload as u64);
                    return true;
                }
                Some(_) => {}
            }
        }
        let q = &mut self.members[m].queue;
        if q.is_empty() {
            self.backlogged.push_back(m);
        }
        q.push_back((id, payload));
        false
    }

    /// When the group next has a packet to release: the wheel's tick at or after the time
    /// its rate allows, or `now` when it is unshaped; `None` when nothing is held.
    pub fn due(&self, now: Time) -> Option<Time> {
        if self.backlogged.is_empty() {
            return None;
        }
        Some(match self.limit() {
            Some(_) => self.tick_at_or_after(self.next_free.max(now)),
            None => now,
        })
    }

    fn tick_at_or_after(&self, t: Time) -> Time {
        Time::ZERO + Duration(t.as_nanos()).round_up_to(self.period)
    }

    /// Release, in serving order, the packets the group may send by `now` (a tick): each
    /// into `out`.
    pub fn release(&mut self, now: Time, out: &mut Vec<u32>) {
        let limit = self.limit();
        while let Some(&m) = self.backlogged.front() {
            if limit.is_some() && self.next_free > now {
                break;
            }
            self.backlogged.pop_front();
            let q = &mut self.members[m].queue;
            let (id, payload) = q.pop_front().expect("a backlogged member holds a packet");
            if !q.is_empty() {
                self.backlogged.push_back(m);
            }
            if let Some(rate) = limit {
                self.next_free += rate.tx_time(payload as u64);
            }
            out.push(id);
        }
    }

    /// Member `m`'s TCP took a precise RTT sample `rtt` with window `cwnd_bytes` at `now`
    /// (§4: "TCP notifies vrate, which in turn combines the information"); `done`: all its
    /// data is acknowledged, so its rate no longer counts until its next sample.
    pub fn on_sample(&mut self, now: Time, m: usize, rtt: Duration, cwnd_bytes: u64, done: bool) {
        let member = &mut self.members[m];
        let min_rtt = member.sample.map_or(rtt, |s| s.min_rtt.min(rtt));
        member.sample = Some(Sample { cwnd_bytes, rtt, min_rtt });
        member.done = done;
        let was_shaped = self.limit().is_some();
        self.rate = self.combined();
        if !was_shaped && self.limit().is_some() {
            // Shaping starts now: what went unshaped before leaves no debt or credit.
            self.next_free = now;
        }
    }

    /// gain × Σ cwnd / RTT over the members whose samples count.
    fn combined(&self) -> Option<Rate> {
        let mut bps: u128 = 0;
        let mut any = false;
        for s in self.members.iter().filter(|m| !m.done).filter_map(|m| m.sample) {
            let rtt = if self.use_min_rtt { s.min_rtt } else { s.rtt };
            bps += Rate::from_bytes_per(s.cwnd_bytes, rtt).bps() as u128;
            any = true;
        }
        any.then(|| Rate(((bps as f64) * self.gain).round().clamp(1.0, u64::MAX as f64) as u64))
    }

    /// Packets the group holds.
    pub fn held(&self) -> usize {
        self.members.iter().map(|m| m.queue.len()).sum()
    }

    /// The limiting rate, shaped or not (for tests and traces).
    pub fn rate(&self) -> Option<Rate> {
        self.rate
    }
}

#[cfg(test)]
mod tests;
