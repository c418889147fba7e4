//! Kathleen Nichols' windowed max filter as Linux keeps it (`lib/win_minmax.c`): the best,
//! second-best and third-best samples of the window, so that the maximum over the last
//! `win` units of time is known without keeping every sample. BBR's bandwidth filter runs
//! it with time in packet-timed rounds (`bbr_update_bw`: `minmax_running_max`).

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxFilter {
    s: [Sample; 3],
}

impl MaxFilter {
    /// The maximum over the window.
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forget every sample: `meas` at `t` is the only one (`minmax_reset`).
    pub fn reset(&mut self, t: u64, meas: u64) {
        self.s = [Sample { t, v: meas }; 3];
    }

    /// Add `meas` taken at `t`, the window `win` long (`minmax_running_max`).
    pub fn update(&mut self, win: u64, t: u64, meas: u64) -> u64 {
        let val = Sample { t, v: meas };
        if val.v >= self.s[0].v || val.t.saturating_sub(self.s[2].t) > win {
            // A new maximum, or nothing left in the window.
            self.reset(t, meas);
            return self.get();
        }
        if val.v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Age the best samples out as the window passes them (`minmax_subwin_update`): the
    /// second and third best are kept from the later quarters and halves of the window.
    fn subwin_update(&mut self, win: u64, val: Sample) -> u64 {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > win {
            // The best has left the window: the second and third move up.
            self.s = [self.s[1], self.s[2], val];
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window has passed with no second best: take this one.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
        self.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `minmax_running_max`: the maximum holds for the window, then the best sample of the
    /// rounds since takes its place.
    #[test]
    fn the_max_holds_for_the_window_then_ages_out() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 100);
        for t in 1..=10 {
            assert_eq!(f.update(10, t, 50 + t), 100, "round {t}: the maximum of round 0 is in the window");
        }
        assert_eq!(f.update(10, 11, 40), 60, "round 11: round 0 left; the best since is round 10's 60");
    }

    #[test]
    fn a_larger_sample_replaces_the_max_at_once() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 100);
        assert_eq!(f.update(10, 1, 120), 120);
    }
}
