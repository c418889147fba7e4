//! Quantities as a scenario writes them: `"10ms"`, `"800kbps"`, `"24KB"`. Each parses into
//! the engine's exact integer types; a malformed value names what a valid one looks like.

use std::fmt;

use rampup_tcp::{Duration, Rate};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    // "1e3ms" would split oddly, but an exponent followed by a unit starting with e/E cannot
    // occur among our units.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    v.is_finite().then_some((v, unit.trim()))
}

fn scaled(v: f64, scale: f64) -> Option<u64> {
    let x = (v * scale).round();
    (x >= 0.0 && x < u64::MAX as f64).then_some(x as u64)
}

pub fn parse_duration(s: &str) -> Option<Duration> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        _ => return None,
    };
    scaled(v, scale).map(Duration)
}

pub fn parse_rate(s: &str) -> Option<Rate> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        _ => return None,
    };
    scaled(v, scale).map(Rate)
}

pub fn parse_size(s: &str) -> Option<u64> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    scaled(v, scale)
}

macro_rules! quantity {
    ($name:ident, $inner:ty, $parse:ident, $expect:literal, $ints:expr) => {
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
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        match ($ints, u64::try_from(v)) {
                            (true, Ok(u)) => $parse(&u.to_string()).map($name).ok_or_else(|| E::custom("out of range")),
                            _ => Err(E::custom(format!("{} is not {}", v, $expect))),
                        }
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_i64(i64::try_from(v).unwrap_or(-1))
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

quantity!(TimeValue, Duration, parse_duration, "a time with a unit, like \"10ms\" or \"1.5s\" (units: ns, us, ms, s, min)", false);
quantity!(RateValue, Rate, parse_rate, "a rate with a unit, like \"10Mbps\" (units: bps, kbps, Mbps, Gbps)", false);
quantity!(SizeValue, u64, parse_size, "a size in bytes: an integer, or a string like \"24KB\" or \"64KiB\"", true);

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
    }
}
