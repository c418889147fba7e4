//! Ensemble sharing (RFC 9040 §7): connections of one host that share a path share one
//! congestion window, each using its share of the sum. RFC 9040 leaves the ongoing division
//! open ("adjust sum as appropriate", its Table 7); the rule here is RFC 8699's Flow State
//! Exchange (§5.3.1) with equal priorities: the sum moves by each member's own change
//! (S += new − assigned), and every sharing member is assigned S / n.
//!
//! Where RFC 8699 §6.2 says TCP needs care: a member in loss recovery keeps its own window
//! (its inflation and deflation are Reno's own arithmetic) and takes its share out of the
//! sum meanwhile; it rejoins with the window recovery left it, so the group's sum loses
//! what that member's reduction lost. A member whose retransmission timer fired does the
//! same through its slow start from one segment, and rejoins once its window is back at
//! ssthresh: handed a share at once, its go-back-N would leave as one burst (the jump RFC
//! 8699 §6.2 warns of). A member whose data is all acknowledged leaves; as RFC 8699 §5.3.1
//! step 2 removes the flow and not its share from the sum, the others share it at the next
//! update. ssthresh stays each member's own.

/// Where a member stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Sharing,
    /// In loss recovery: its own window, out of the sum.
    Recovering,
    /// Slow-starting on its own after a retransmission timeout, out of the sum.
    Restarting,
    /// All its data acknowledged.
    Done,
}

/// What a member's TCP stands at after an input.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemberState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub in_recovery: bool,
    /// Its retransmission timeouts so far.
    pub timeouts: u64,
    /// All its data acknowledged.
    pub done: bool,
}

pub struct Ensemble {
    assigned: Vec<u64>,
    part: Vec<Part>,
    timeouts: Vec<u64>,
    /// S: the sum of the sharing members' windows.
    sum: u64,
    mss: u64,
}

impl Ensemble {
    /// Members joining with these windows (RFC 8699 §5.3.1 step 1: the sum starts as theirs).
    pub fn new(initial: &[u64], mss: u64) -> Ensemble {
        let n = initial.len();
        Ensemble { assigned: initial.to_vec(), part: vec![Part::Sharing; n], timeouts: vec![0; n], sum: initial.iter().sum(), mss }
    }

    /// Member `m`'s TCP now stands at `st`. The share every sharing member now has, when it
    /// changed (the caller applies it to each of them).
    pub fn update(&mut self, m: usize, st: MemberState) -> Option<u64> {
        let timed_out = std::mem::replace(&mut self.timeouts[m], st.timeouts) < st.timeouts;
        let was = self.part[m];
        let next = if st.done {
            Part::Done
        } else if timed_out || (was == Part::Restarting && (st.in_recovery || st.cwnd < st.ssthresh)) {
            Part::Restarting
        } else if st.in_recovery {
            Part::Recovering
        } else {
            Part::Sharing
        };
        self.part[m] = next;
        match (was, next) {
            (Part::Sharing, Part::Sharing) if st.cwnd == self.assigned[m] => None,
            (Part::Sharing, Part::Sharing) => {
                self.sum = (self.sum + st.cwnd).saturating_sub(self.assigned[m]);
                self.split()
            }
            (Part::Sharing, Part::Recovering | Part::Restarting) => {
                self.sum = self.sum.saturating_sub(self.assigned[m]);
                self.split()
            }
            (Part::Sharing, Part::Done) => self.split(),
            (_, Part::Sharing) => {
                self.sum += st.cwnd;
                self.split()
            }
            _ => None,
        }
    }

    /// S / n to every sharing member, at least one segment.
    fn split(&mut self) -> Option<u64> {
        let n = self.part.iter().filter(|&&p| p == Part::Sharing).count() as u64;
        if n == 0 {
            return None;
        }
        let share = (self.sum / n).max(self.mss);
        for (a, _) in self.assigned.iter_mut().zip(&self.part).filter(|(_, &p)| p == Part::Sharing) {
            *a = share;
        }
        Some(share)
    }

    /// Member `m` takes its window from the ensemble now.
    pub fn sharing(&self, m: usize) -> bool {
        self.part[m] == Part::Sharing
    }

    pub fn sum(&self) -> u64 {
        self.sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn open(cwnd: u64) -> MemberState {
        MemberState { cwnd, ssthresh: u64::MAX, ..MemberState::default() }
    }

    #[test]
    fn the_sum_starts_as_the_members_windows_and_moves_by_each_change() {
        // RFC 8699 §5.3.1 steps 1 and 3: S = Σ initial; S += new − assigned; each gets S / n.
        let mut e = Ensemble::new(&[2000, 2000], MSS);
        assert_eq!(e.sum(), 4000);
        assert_eq!(e.update(0, open(3000)), Some(2500), "one ACK grew member 0 by a segment: both get half");
        assert_eq!(e.sum(), 5000);
        assert_eq!(e.update(1, open(2500)), None, "a window equal to the share changes nothing");
        assert_eq!(e.update(1, open(3500)), Some(3000));
    }

    #[test]
    fn a_member_in_recovery_keeps_its_window_and_rejoins_with_what_recovery_left() {
        let mut e = Ensemble::new(&[10_000, 10_000], MSS);
        // Member 0 enters fast recovery: its share leaves the sum, member 1's is unchanged.
        assert_eq!(e.update(0, MemberState { in_recovery: true, ..open(8000) }), Some(10_000));
        assert!(!e.sharing(0) && e.sum() == 10_000);
        // Its inflation is its own: no share moves.
        assert_eq!(e.update(0, MemberState { in_recovery: true, ..open(9000) }), None);
        // It leaves recovery with ssthresh = 5,000: the sum loses half a share.
        assert_eq!(e.update(0, open(5000)), Some(7500));
        assert_eq!(e.sum(), 15_000);
    }

    #[test]
    fn a_member_done_leaves_its_share_to_the_others() {
        let mut e = Ensemble::new(&[4000, 4000], MSS);
        assert_eq!(e.update(0, MemberState { done: true, ..open(4000) }), Some(8000), "RFC 8699 §5.3.1 step 2: the flow goes, the sum stays");
        assert!(!e.sharing(0));
        assert_eq!(e.update(0, MemberState { done: true, ..open(4000) }), None);
    }

    #[test]
    fn a_member_that_timed_out_slow_starts_on_its_own_until_ssthresh() {
        let mut e = Ensemble::new(&[20_000, 20_000], MSS);
        let rto = MemberState { cwnd: 1000, ssthresh: 10_000, timeouts: 1, ..MemberState::default() };
        assert_eq!(e.update(0, rto), Some(20_000), "its share leaves the sum; member 1 keeps its own");
        assert_eq!(e.update(0, MemberState { cwnd: 8000, ..rto }), None, "still below ssthresh: its own window");
        assert!(!e.sharing(0));
        assert_eq!(e.update(0, MemberState { cwnd: 10_000, ..rto }), Some(15_000), "back at ssthresh: it rejoins");
        assert!(e.sharing(0));
    }

    #[test]
    fn a_share_is_at_least_one_segment() {
        let mut e = Ensemble::new(&[1000, 1000, 1000], MSS);
        assert_eq!(e.update(0, open(0)), Some(1000), "(1,000 + 1,000) / 3 rounds below a segment");
    }
}
