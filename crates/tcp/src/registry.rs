//! The registry of parts: what a connection can be made of, each part with the keys it
//! owns (name, unit, default and one line of docs) and whether it acts on every segment.
//! The scenario layer reads a part's settings through it, `rampup list` and `rampup
//! defaults` print it, a test holds the docs' key tables to it, and `TcpConfig::is_plain`
//! is derived from it.

use crate::time::Duration;

/// The families of parts; each is one key of a scenario's `tcp` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Cc,
    Startup,
    Recovery,
    Restart,
    Pacing,
    /// The parts that are switched on beside the others (`rack_tlp = true`, `preemptive`).
    Extra,
}

impl Family {
    pub const ALL: [Family; 6] = [Family::Cc, Family::Startup, Family::Recovery, Family::Restart, Family::Pacing, Family::Extra];

    /// The scenario key that names a part of the family.
    pub fn key(self) -> &'static str {
        match self {
            Family::Cc => "cc",
            Family::Startup => "startup",
            Family::Recovery => "recovery",
            Family::Restart => "restart",
            Family::Pacing => "pacing",
            // Each extra is switched on by a key of its own (`rack_tlp = true`).
            Family::Extra => "",
        }
    }

    /// The family's name in words, as `rampup list` heads it.
    pub fn title(self) -> &'static str {
        match self {
            Family::Cc => "congestion control",
            Family::Startup => "startup",
            Family::Recovery => "loss recovery",
            Family::Restart => "restart after idle",
            Family::Pacing => "pacing",
            Family::Extra => "per-segment extras",
        }
    }
}

/// How a scenario writes a key's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    /// A number, integer or not.
    Number,
    /// A whole number of segments (of the connection's mss).
    Segments,
    /// A size: a number of bytes or a string like "80KiB".
    Bytes,
    /// A time with its unit, like "10ms".
    Time,
    /// true or false.
    Flag,
    /// One of these names.
    Choice(&'static [&'static str]),
}

impl Unit {
    /// The unit in words, for the docs' tables and the refusals.
    pub fn describe(self) -> String {
        match self {
            Unit::Number => "a number".into(),
            Unit::Segments => "segments".into(),
            Unit::Bytes => "bytes, like \"80KiB\"".into(),
            Unit::Time => "a time, like \"10ms\"".into(),
            Unit::Flag => "true or false".into(),
            Unit::Choice(names) => names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(" or "),
        }
    }
}

/// A key's value in its unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    Segments(u64),
    Bytes(u64),
    Time(Duration),
    Flag(bool),
    Choice(&'static str),
}

impl Value {
    /// The value as a scenario writes it in TOML: `3.0`, `100`, `"10ms"`, `true`, `"halving"`.
    pub fn toml(&self) -> String {
        match self {
            Value::Number(n) => format!("{n:?}"),
            Value::Segments(n) | Value::Bytes(n) => n.to_string(),
            Value::Time(d) => {
                let ns = d.as_nanos();
                let units = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us"), (1, "ns")];
                let (n, unit) = units.into_iter().find(|(u, _)| ns % u == 0).unwrap_or((1, "ns"));
                format!("\"{}{unit}\"", ns / n)
            }
            Value::Flag(b) => b.to_string(),
            Value::Choice(name) => format!("\"{name}\""),
        }
    }

    /// Whether the value is of `unit` (a default must be).
    pub fn is_of(&self, unit: Unit) -> bool {
        match (self, unit) {
            (Value::Number(_), Unit::Number)
            | (Value::Segments(_), Unit::Segments)
            | (Value::Bytes(_), Unit::Bytes)
            | (Value::Time(_), Unit::Time)
            | (Value::Flag(_), Unit::Flag) => true,
            (Value::Choice(name), Unit::Choice(names)) => names.contains(name),
            _ => false,
        }
    }
}

/// One key a part owns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    pub name: &'static str,
    pub unit: Unit,
    /// What the part uses when the scenario leaves the key out.
    pub default: Value,
    /// One line for the docs' tables.
    pub doc: &'static str,
}

/// One part: its family, its name in scenarios and results, one line of docs, its keys, and
/// whether it acts on every segment sent or received beside the window's own rules (pacing,
/// timers per segment, per-segment bookkeeping). A part that does is never built into an
/// endpoint that runs the plain paths (`TcpConfig::is_plain`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartInfo {
    pub family: Family,
    pub name: &'static str,
    pub doc: &'static str,
    pub keys: &'static [Key],
    pub per_segment: bool,
}

impl PartInfo {
    /// Whether `other` is this part. Parts are `const` items, and a `const` has no one
    /// address (each use may be a copy of its own), so a part is known by family and name.
    pub fn is(&self, other: &PartInfo) -> bool {
        self.family == other.family && self.name == other.name
    }

    /// The table a scenario gives the part's settings in, as `rampup defaults` heads it:
    /// `tcp.startup (ssthreshless)`, or an extra's own key, `tcp.preemptive`.
    pub fn table(&self) -> String {
        match self.family {
            Family::Extra => format!("tcp.{}", self.name.replace('-', "_")),
            f => format!("tcp.{} ({})", f.key(), self.name),
        }
    }

    pub fn key(&self, name: &str) -> Option<&'static Key> {
        self.keys.iter().find(|k| k.name == name)
    }
}

/// A setting refused by the part that owns it: the key and why, one line.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub key: &'static str,
    pub why: String,
}

/// A part's settings as a scenario gives them, each value already of its key's unit; a key
/// left out reads as its default.
pub struct Settings<'a> {
    pub part: &'static PartInfo,
    pub mss_bytes: u64,
    pub given: &'a [(&'static str, Value)],
}

impl Settings<'_> {
    /// Every key at its default.
    pub fn defaults(part: &'static PartInfo) -> Settings<'static> {
        Settings { part, mss_bytes: 1, given: &[] }
    }

    /// The value of one of the part's own keys. A name the part does not own is a mistake in
    /// the part's code, which its tests catch (`every_part_reads_its_defaults`).
    fn value(&self, key: &str) -> Value {
        let own = self.part.key(key).unwrap_or_else(|| panic!("{} reads {key}, a key it does not own", self.part.name));
        self.given.iter().find(|(k, _)| *k == key).map_or(own.default, |(_, v)| *v)
    }

    pub fn number(&self, key: &str) -> f64 {
        match self.value(key) {
            Value::Number(n) => n,
            v => panic!("{}.{key} is not a number: {v:?}", self.part.name),
        }
    }

    pub fn segments(&self, key: &str) -> u64 {
        match self.value(key) {
            Value::Segments(n) => n,
            v => panic!("{}.{key} is not in segments: {v:?}", self.part.name),
        }
    }

    pub fn bytes(&self, key: &str) -> u64 {
        match self.value(key) {
            Value::Bytes(n) => n,
            v => panic!("{}.{key} is not in bytes: {v:?}", self.part.name),
        }
    }

    pub fn flag(&self, key: &str) -> bool {
        match self.value(key) {
            Value::Flag(b) => b,
            v => panic!("{}.{key} is not a flag: {v:?}", self.part.name),
        }
    }

    pub fn time(&self, key: &str) -> Duration {
        match self.value(key) {
            Value::Time(d) => d,
            v => panic!("{}.{key} is not a time: {v:?}", self.part.name),
        }
    }

    pub fn choice(&self, key: &str) -> &'static str {
        match self.value(key) {
            Value::Choice(c) => c,
            v => panic!("{}.{key} is not a choice: {v:?}", self.part.name),
        }
    }
}

/// Every registered part, family by family.
pub fn parts() -> impl Iterator<Item = &'static PartInfo> {
    let extras: [&'static PartInfo; 5] =
        [&crate::sender::RACK_TLP, &crate::preemptive::INFO, &crate::receiver::QUICKACK, &crate::receiver::ACK_FIRST_SEGMENT, &crate::ecn::INFO];
    (crate::cc::CC_PARTS.iter())
        .chain(crate::cc::STARTUPS.iter().copied())
        .chain(crate::recovery::PARTS.iter())
        .chain(crate::restart::PARTS.iter())
        .chain(crate::pacing::PARTS.iter())
        .chain(extras)
}

/// The part of `family` named `name`.
pub fn find(family: Family, name: &str) -> Option<&'static PartInfo> {
    parts().find(|p| p.family == family && p.name == name)
}
