//! The minimum of a stream of samples over a sliding time window, in constant memory:
//! Kathleen Nichols' estimator, which Linux uses for its min RTT (`tcp_min_rtt_wlen`) and
//! BBR for its bandwidth and RTT filters. It keeps the best sample and two later candidates
//! that take over as older ones leave the window; the estimate can exceed the true windowed
//! minimum by what those candidates miss, never fall below it.

use crate::time::{Duration, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sample {
    at: Time,
    value: Duration,
}

/// No sample yet: every entry holds this value.
const NONE: Sample = Sample { at: Time::ZERO, value: Duration::MAX };

#[derive(Clone, Debug)]
pub struct WindowedMin {
    window: Duration,
    /// The minimum, then the best of what came after it, then the best of what came after
    /// that; equal entries until there are later candidates.
    best: [Sample; 3],
}

impl WindowedMin {
    pub fn new(window: Duration) -> Self {
        WindowedMin { window, best: [NONE; 3] }
    }

    /// The minimum over the window, as of the last sample.
    pub fn get(&self) -> Option<Duration> {
        Some(self.best[0].value).filter(|&v| v != Duration::MAX)
    }

    pub fn update(&mut self, at: Time, value: Duration) {
        let s = Sample { at, value };
        let b = &mut self.best;
        let window = self.window.0;
        // A new minimum, or everything kept is older than the window: start over.
        if value <= b[0].value || at.since(b[2].at).0 > window {
            *b = [s; 3];
            return;
        }
        if value <= b[1].value {
            b[1] = s;
            b[2] = s;
        } else if value <= b[2].value {
            b[2] = s;
        }
        let age = at.since(b[0].at).0;
        if age > window {
            // The minimum left the window: the candidates move up, the new sample last.
            *b = [b[1], b[2], s];
            if at.since(b[0].at).0 > window {
                *b = [b[1], b[2], s];
            }
        } else if b[1] == b[0] && age > window / 4 {
            // A quarter of the window without a second candidate: take this sample.
            b[1] = s;
            b[2] = s;
        } else if b[2] == b[1] && age > window / 2 {
            b[2] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn at(v: u64) -> Time {
        Time::ZERO + ms(v)
    }

    #[test]
    fn tracks_the_minimum_within_the_window() {
        let mut f = WindowedMin::new(ms(1000));
        assert_eq!(f.get(), None);
        f.update(at(0), ms(50));
        f.update(at(100), ms(80));
        f.update(at(200), ms(40));
        f.update(at(300), ms(60));
        assert_eq!(f.get(), Some(ms(40)));
    }

    #[test]
    fn an_old_minimum_expires_and_a_later_candidate_takes_over() {
        let mut f = WindowedMin::new(ms(1000));
        f.update(at(0), ms(10));
        f.update(at(300), ms(30)); // a quarter of the window on: second candidate
        f.update(at(600), ms(50)); // half on: third candidate
        f.update(at(1100), ms(70));
        assert_eq!(f.get(), Some(ms(30)), "10 ms left the window at 1000 ms");
        f.update(at(1400), ms(70));
        assert_eq!(f.get(), Some(ms(50)));
    }

    #[test]
    fn the_estimate_is_never_below_the_true_windowed_minimum() {
        // A deterministic stream with rises and falls, checked against a brute-force minimum.
        let window = ms(500);
        let mut f = WindowedMin::new(window);
        let mut samples = Vec::new();
        let mut x: u64 = 12345;
        for k in 0..2000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = ms(20 + (x >> 33) % 80 + (k / 200) % 3 * 30);
            let t = at(k * 7);
            f.update(t, v);
            samples.push((t, v));
            let truth = samples.iter().filter(|(s, _)| t.since(*s) <= window).map(|(_, v)| *v).min().unwrap();
            let got = f.get().unwrap();
            assert!(got >= truth, "at {t}: {got:?} below the true minimum {truth:?}");
            assert!(samples.iter().any(|(s, v)| *v == got && t.since(*s) <= window), "not a sample of the window");
        }
    }
}
