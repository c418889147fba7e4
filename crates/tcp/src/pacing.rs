//! A pacer: while active it releases at most one segment per interval, the first at once.
//! It holds no policy: a mechanism starts it with an interval and stops it (restart after
//! idle stops it at the first ACK, paper 000 §3). The endpoint gates its data segments on
//! `may_send` and runs `Timer::Pace` to the next release time.

use crate::time::{Duration, Time};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// `None`: inactive, nothing is held back.
    active: Option<Paced>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Paced {
    interval: Duration,
    next_release: Time,
}

impl Pacer {
    /// Start pacing at one segment per `interval`; a segment may go at `now`.
    pub fn start(&mut self, now: Time, interval: Duration) {
        self.active = Some(Paced { interval, next_release: now });
    }

    pub fn stop(&mut self) {
        self.active = None;
    }

    pub fn is_active(&self) -> bool {
        self.active.is_some()
    }

    /// When the next segment may go, while pacing.
    pub fn next_release(&self) -> Option<Time> {
        self.active.map(|p| p.next_release)
    }

    /// A segment may go at `now`: the pacer is inactive or its release time has come.
    pub fn may_send(&self, now: Time) -> bool {
        self.active.is_none_or(|p| p.next_release <= now)
    }

    /// A segment went at `now`; the next may go one interval later. Time a segment waited
    /// for the window is not credited: the spacing is measured from the real departure.
    pub fn on_send(&mut self, now: Time) {
        if let Some(p) = &mut self.active {
            p.next_release = now + p.interval;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn at(ms: u64) -> Time {
        Time(Duration::from_millis(ms).0)
    }

    #[test]
    fn inactive_pacer_holds_nothing_back() {
        let p = Pacer::default();
        assert!(p.may_send(Time::ZERO));
        assert_eq!(p.next_release(), None);
    }

    #[test]
    fn active_pacer_releases_first_segment_at_once_then_one_per_interval() {
        let mut p = Pacer::default();
        p.start(at(100), Duration::from_millis(50));
        assert!(p.may_send(at(100)));
        p.on_send(at(100));
        assert!(!p.may_send(at(149)));
        assert_eq!(p.next_release(), Some(at(150)));
        assert!(p.may_send(at(150)));
    }

    #[test]
    fn active_pacer_send_after_a_wait_measures_spacing_from_departure() {
        let mut p = Pacer::default();
        p.start(at(0), MS);
        p.on_send(at(0));
        p.on_send(at(10)); // the window held the segment back until 10 ms
        assert_eq!(p.next_release(), Some(at(11)));
    }

    #[test]
    fn stopped_pacer_holds_nothing_back() {
        let mut p = Pacer::default();
        p.start(at(0), Duration::from_secs(1));
        p.on_send(at(0));
        p.stop();
        assert!(p.may_send(at(0)));
        assert!(!p.is_active());
    }
}
