//! Integer time and rate types. Everything inside the engine is exact: no floats decide
//! the order of events or the state of a connection.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (virtual or wall-clock) time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time since `earlier`, zero if `earlier` is later.
    pub fn since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        Duration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        Duration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * 1_000_000_000)
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// `self * num / den` without intermediate overflow.
    pub fn mul_div(self, num: u64, den: u64) -> Duration {
        Duration((self.0 as u128 * num as u128 / den.max(1) as u128).min(u64::MAX as u128) as u64)
    }
    /// Round up to a whole number of `tick`s (no rounding when `tick` is zero).
    pub fn round_up_to(self, tick: Duration) -> Duration {
        if tick.0 == 0 {
            self
        } else {
            Duration(self.0.div_ceil(tick.0).saturating_mul(tick.0))
        }
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn from_bps(bps: u64) -> Self {
        Rate(bps)
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialise `bytes` at this rate, rounded up to whole nanoseconds.
    pub fn tx_time(self, bytes: u64) -> Duration {
        let rate = self.0.max(1);
        // 64-bit arithmetic for any packet (under 2.3 GB); 128-bit only beyond. This is on
        // the path of every packet.
        match bytes.checked_mul(8_000_000_000) {
            Some(bit_ns) => Duration(bit_ns.div_ceil(rate)),
            None => Duration((bytes as u128 * 8_000_000_000).div_ceil(rate as u128).min(u64::MAX as u128) as u64),
        }
    }
    /// Bytes that `d` carries at this rate (rounded down).
    pub fn bytes_in(self, d: Duration) -> u64 {
        (self.0 as u128 * d.0 as u128 / 8 / 1_000_000_000) as u64
    }
    /// The rate that carries `bytes` in `d`.
    pub fn from_bytes_per(bytes: u64, d: Duration) -> Rate {
        Rate((bytes as u128 * 8 * 1_000_000_000 / d.0.max(1) as u128).min(u64::MAX as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_one_packet_at_10_mbps_is_800_us() {
        assert_eq!(Rate(10_000_000).tx_time(1000), Duration::from_micros(800));
    }

    #[test]
    fn tx_time_rounds_up() {
        assert_eq!(Rate(3).tx_time(1), Duration(2_666_666_667));
    }

    #[test]
    fn tx_time_of_huge_sizes_takes_the_wide_path() {
        assert_eq!(Rate(8_000_000_000).tx_time(u64::MAX / 1000), Duration(u64::MAX / 1000));
    }

    #[test]
    fn rate_bytes_round_trip() {
        let r = Rate::from_bytes_per(125_000, Duration::from_secs(1));
        assert_eq!(r, Rate(1_000_000));
        assert_eq!(r.bytes_in(Duration::from_secs(2)), 250_000);
    }

    #[test]
    fn round_up_to_tick() {
        let tick = Duration::from_millis(500);
        assert_eq!(Duration::from_millis(1).round_up_to(tick), tick);
        assert_eq!(Duration::from_millis(1000).round_up_to(tick), Duration::from_millis(1000));
        assert_eq!(Duration::from_millis(7).round_up_to(Duration::ZERO), Duration::from_millis(7));
    }

    #[test]
    fn time_arithmetic_saturates() {
        assert_eq!(Time(5).since(Time(9)), Duration::ZERO);
        assert_eq!(Time::MAX + Duration(1), Time::MAX);
    }
}
