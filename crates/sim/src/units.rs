//! Quantities as a scenario writes them: `"10ms"`, `"800kbps"`, `"24KB"`. Each parses into
//! the engine's exact integer types; a malformed value names what a valid one looks like.

use std::fmt;

use rampup_tcp::{Duration, Rate};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// The number and the unit of `"1.5ms"`: ("1.5", "ms").
fn split_number(s: &str) -> (&str, &str) {
    let s = s.trim();
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')).unwrap_or(s.len());
    // "1e3ms" would split oddly, but an exponent followed by a unit starting with e/E cannot
    // occur among our units.
    let (num, unit) = s.split_at(end);
    (num, unit.trim())
}

/// `num` times `scale`: exact for an integer, rounded for a decimal; None if negative or
/// beyond u64.
fn scaled(num: &str, scale: u64) -> Option<u64> {
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(scale);
    }
    let v: f64 = num.parse().ok()?;
    let x = (v * scale as f64).round();
    (v.is_finite() && x >= 0.0 && x < u64::MAX as f64).then_some(x as u64)
}

pub fn parse_duration(s: &str) -> Option<Duration> {
    let (v, unit) = split_number(s);
    let scale = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        _ => return None,
    };
    scaled(v, scale).map(Duration)
}

pub fn parse_rate(s: &str) -> Option<Rate> {
    let (v, unit) = split_number(s);
    let scale = match unit {
        "bps" => 1,
        "kbps" | "Kbps" => 1_000,
        "Mbps" => 1_000_000,
        "Gbps" => 1_000_000_000,
        _ => return None,
    };
    scaled(v, scale).map(Rate)
}

pub fn parse_size(s: &str) -> Option<u64> {
    let (v, unit) = split_number(s);
    let scale = match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return None,
    };
    scaled(v, scale)
}

macro_rules! quantity {
    // `$from_int`: what a bare integer means (None: a unit is required).
    ($name:ident, $inner:ty, $parse:ident, $expect:literal, $from_int:expr) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).ok_or_else(|| E::custom(format!("{:?} is not {}", s, $expect)))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        let from_int: fn(u64) -> Option<$inner> = $from_int;
                        from_int(v).map($name).ok_or_else(|| E::custom(format!("{} is not {}", v, $expect)))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        match u64::try_from(v) {
                            Ok(u) => self.visit_u64(u),
                            Err(_) => Err(E::custom(format!("{} is not {}", v, $expect))),
                        }
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!("{} is not {}", v, $expect)))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

quantity!(TimeValue, Duration, parse_duration, "a time with a unit, like \"10ms\" or \"1.5s\" (units: ns, us, ms, s, min)", |_| None);
quantity!(RateValue, Rate, parse_rate, "a rate with a unit, like \"10Mbps\" (units: bps, kbps, Mbps, Gbps)", |_| None);
quantity!(SizeValue, u64, parse_size, "a size in bytes: an integer, or a string like \"24KB\" or \"64KiB\"", Some);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Some(Duration::from_millis(10)));
        assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0s"), Some(Duration::ZERO));
        assert_eq!(parse_duration("10"), None, "a time needs a unit");
        assert_eq!(parse_duration("-1s"), None);
        assert_eq!(parse_duration("fast"), None);
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(parse_rate("800kbps"), Some(Rate(800_000)));
        assert_eq!(parse_rate("1.5Mbps"), Some(Rate(1_500_000)));
        assert_eq!(parse_size("24KB"), Some(24_000));
        assert_eq!(parse_size("10KiB"), Some(10_240));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("3 parsecs"), None);
        assert_eq!(parse_size("9007199254740993"), Some((1 << 53) + 1), "integers are exact, not rounded through f64");
        assert_eq!(parse_size("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_size("18446744073709551616"), None);
        assert_eq!(parse_size("16GiB"), Some(16 << 30));
        assert_eq!(parse_size("1e30"), None);
    }
}
