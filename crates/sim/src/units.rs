//! Quantities as a scenario writes them: `"10ms"`, `"800kbps"`, `"24KB"`. Each parses into
//! the engine's exact integer types; a refused value says what is wrong with it and what a
//! valid one looks like.

use std::fmt;

use rampup_tcp::{Duration, Rate};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// The fastest link a scenario may name: a 1,500-byte packet takes 1.2 ns at 10 Tbps, and
/// faster links leave nothing for the engine's nanosecond clock to tell apart.
pub const MAX_RATE: Rate = Rate(10_000_000_000_000);

/// Why a quantity's text is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a number and a unit written together (`"10ms"`; not `"10 ms"`, `" 10ms"`, `"+5ms"`).
    Malformed,
    /// Below zero.
    Negative,
    /// Above zero but below the resolution of the engine's integers (1 ns, 1 b/s, 1 byte),
    /// which would silently make it zero.
    BelowResolution,
    /// Beyond what the quantity allows.
    TooLarge,
}

impl Refusal {
    /// The error for `shown` (the value as quoted) that a quantity of kind `expect` refused.
    pub fn message(self, shown: &str, expect: &str, step: &str, max: &str) -> String {
        match self {
            Refusal::Malformed => format!("{shown} is not {expect}"),
            Refusal::Negative => format!("{shown} is negative: give {expect}"),
            Refusal::BelowResolution => format!("{shown} is above 0 but below 1 {step}, the smallest step: give 0, or {expect}"),
            Refusal::TooLarge => format!("{shown} is above {max}: give {expect}"),
        }
    }
}

/// The number and the unit of `"1.5ms"`: ("1.5", "ms"). The number is digits, an optional
/// fraction and an optional exponent, written without a sign and without spaces.
fn split_number(s: &str) -> Result<(&str, &str), Refusal> {
    let b = s.as_bytes();
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.first() == Some(&b'-') && b.get(1).is_some_and(u8::is_ascii_digit) {
        return Err(Refusal::Negative);
    }
    let mut end = digits(0);
    if end == 0 {
        return Err(Refusal::Malformed);
    }
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp = digits(end + 1 + sign);
        if exp > end + 1 + sign {
            end = exp;
        }
    }
    Ok(s.split_at(end))
}

/// `num` times `scale`: exact for an integer, rounded for a decimal.
fn scaled(num: &str, scale: u64) -> Result<u64, Refusal> {
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(scale).ok_or(Refusal::TooLarge);
    }
    let v: f64 = num.parse().map_err(|_| Refusal::TooLarge)?;
    let x = (v * scale as f64).round();
    if !v.is_finite() || x >= u64::MAX as f64 {
        return Err(Refusal::TooLarge);
    }
    // "1e-400" parses to 0.0: a mantissa with a digit above 0 is a value above zero.
    let mantissa = num.split(['e', 'E']).next().unwrap_or(num);
    if x == 0.0 && mantissa.bytes().any(|c| (b'1'..=b'9').contains(&c)) {
        return Err(Refusal::BelowResolution);
    }
    Ok(x as u64)
}

pub fn parse_duration(s: &str) -> Result<Duration, Refusal> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        _ => return Err(Refusal::Malformed),
    };
    scaled(v, scale).map(Duration)
}

pub fn parse_rate(s: &str) -> Result<Rate, Refusal> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "bps" => 1,
        "kbps" | "Kbps" => 1_000,
        "Mbps" => 1_000_000,
        "Gbps" => 1_000_000_000,
        _ => return Err(Refusal::Malformed),
    };
    match scaled(v, scale)? {
        bps if bps > MAX_RATE.bps() => Err(Refusal::TooLarge),
        bps => Ok(Rate(bps)),
    }
}

pub fn parse_size(s: &str) -> Result<u64, Refusal> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(Refusal::Malformed),
    };
    scaled(v, scale)
}

/// A value as an error quotes it: cut to its first 40 characters, so that a line stays a line.
pub fn shown(s: &str) -> String {
    const KEEP: usize = 40;
    match s.char_indices().nth(KEEP) {
        None => format!("{s:?}"),
        Some((i, _)) => format!("{:?}… ({} characters in all)", &s[..i], s.chars().count()),
    }
}

macro_rules! quantity {
    // `$from_int`: what a bare integer means (None: a unit is required); `$step` and `$max`:
    // the smallest step and the largest value, as a refusal names them.
    ($name:ident, $inner:ty, $parse:ident, $expect:literal, $step:literal, $max:literal, $from_int:expr) => {
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
                        $parse(s).map($name).map_err(|why| E::custom(why.message(&shown(s), $expect, $step, $max)))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        let from_int: fn(u64) -> Option<$inner> = $from_int;
                        from_int(v).map($name).ok_or_else(|| E::custom(format!("{} is not {}", v, $expect)))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        match u64::try_from(v) {
                            Ok(u) => self.visit_u64(u),
                            Err(_) => Err(E::custom(Refusal::Negative.message(&v.to_string(), $expect, $step, $max))),
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

quantity!(TimeValue, Duration, parse_duration, "a time with a unit, like \"10ms\" or \"1.5s\" (units: ns, us, ms, s, min)", "ns", "2^64 ns", |_| None);
quantity!(RateValue, Rate, parse_rate, "a rate with a unit, like \"10Mbps\" (units: bps, kbps, Mbps, Gbps)", "bps", "10 Tbps", |_| None);
quantity!(SizeValue, u64, parse_size, "a size in bytes: an integer, or a string like \"24KB\" or \"64KiB\"", "byte", "2^64 bytes", Some);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Ok(Duration::from_millis(10)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("1e3ms"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_duration("10"), Err(Refusal::Malformed), "a time needs a unit");
        assert_eq!(parse_duration("-1s"), Err(Refusal::Negative));
        assert_eq!(parse_duration("fast"), Err(Refusal::Malformed));
    }

    #[test]
    fn a_value_is_written_as_a_number_and_a_unit_together() {
        for s in ["10 ms", "  10ms  ", " 10ms", "10ms ", "+5ms", ".5ms", "5.ms.", "1e", "ms", ""] {
            assert_eq!(parse_duration(s), Err(Refusal::Malformed), "{s:?}");
        }
        assert_eq!(parse_rate("10 Mbps"), Err(Refusal::Malformed));
        assert_eq!(parse_rate("-100Mbps"), Err(Refusal::Negative));
    }

    #[test]
    fn a_value_above_zero_never_becomes_zero() {
        // "1e-400s" parses as 0.0 in f64; "1e-30ms" and "0.4ns" round to 0 ns.
        for s in ["1e-400s", "1e-30ms", "0.4ns"] {
            assert_eq!(parse_duration(s), Err(Refusal::BelowResolution), "{s:?}");
        }
        assert_eq!(parse_duration("0.0ms"), Ok(Duration::ZERO), "zero written as a decimal is zero");
        assert_eq!(parse_duration("0.6ns"), Ok(Duration(1)));
        assert_eq!(parse_rate("0.1bps"), Err(Refusal::BelowResolution));
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(parse_rate("800kbps"), Ok(Rate(800_000)));
        assert_eq!(parse_rate("1.5Mbps"), Ok(Rate(1_500_000)));
        assert_eq!(parse_rate("10000Gbps"), Ok(MAX_RATE));
        assert_eq!(parse_rate("10001Gbps"), Err(Refusal::TooLarge));
        assert_eq!(parse_rate("4294967296Gbps"), Err(Refusal::TooLarge));
        assert_eq!(parse_size("24KB"), Ok(24_000));
        assert_eq!(parse_size("10KiB"), Ok(10_240));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("3 parsecs"), Err(Refusal::Malformed));
        assert_eq!(parse_size("9007199254740993"), Ok((1 << 53) + 1), "integers are exact, not rounded through f64");
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_size("18446744073709551616"), Err(Refusal::TooLarge));
        assert_eq!(parse_size("16GiB"), Ok(16 << 30));
        assert_eq!(parse_size("1e30"), Err(Refusal::TooLarge));
    }

    #[test]
    fn a_refusal_says_what_is_wrong_and_quotes_a_long_value_cut() {
        let m = |s: &str| parse_rate(s).unwrap_err().message(&shown(s), "a rate", "bps", "10 Tbps");
        assert_eq!(m("-100Mbps"), "\"-100Mbps\" is negative: give a rate");
        assert_eq!(m("20000Gbps"), "\"20000Gbps\" is above 10 Tbps: give a rate");
        assert_eq!(m("0.4bps"), "\"0.4bps\" is above 0 but below 1 bps, the smallest step: give 0, or a rate");
        let long = "9".repeat(100_000) + "x";
        let line = m(&long);
        assert!(line.len() < 200 && line.contains("100001 characters"), "{line}");
    }
}
