//! A part of a flow's TCP as a scenario names it: `startup = "hystart"`, or a table with its
//! `kind` and settings (`startup = { kind = "ssthreshless", gamma = 3.0 }`). The part's keys,
//! units and defaults are the registry's (`rampup_tcp::registry`): this module only reads
//! the values in their units and keeps them, part by part, so that the scenario's `[tcp]`
//! table and a flow's merge key by key.

use rampup_tcp::registry::{self, Family, Key, PartInfo, Unit, Value};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;

use super::{err, within, ScenarioError, CC_SHORTHANDS, MAX_COUNT};
use crate::units::{SizeValue, TimeValue};

/// A part given by its name, or as a table with its `kind` and settings.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PartSpec {
    pub kind: String,
    pub settings: toml::Table,
}

impl<'de> Deserialize<'de> for PartSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = PartSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a name, or a table with its `kind` and settings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PartSpec, E> {
                Ok(PartSpec { kind: v.to_string(), settings: toml::Table::new() })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PartSpec, A::Error> {
                let mut settings = toml::Table::deserialize(de::value::MapAccessDeserializer::new(map))?;
                match settings.remove("kind") {
                    Some(toml::Value::String(kind)) => Ok(PartSpec { kind, settings }),
                    Some(other) => Err(de::Error::custom(format!("kind: {} is not a name", other))),
                    None => Err(de::Error::missing_field("kind")),
                }
            }
        }
        d.deserialize_any(Either)
    }
}

/// One setting of one part, in its key's unit.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Setting {
    pub part: &'static PartInfo,
    pub key: &'static Key,
    pub value: Value,
    /// Where the scenario gave it, for a refusal: `flow[0].tcp.startup.gamma`.
    pub at: String,
}

/// The settings a `tcp` table gives, of any parts; only the chosen part's are used.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Settings(Vec<Setting>);

impl Settings {
    /// Adds one; refused where the same part's key is already given (two spellings of it).
    pub fn add(&mut self, s: Setting) -> Result<(), ScenarioError> {
        if let Some(first) = self.0.iter().find(|o| o.part.is(s.part) && o.key.name == s.key.name) {
            return err(&s.at, format!("given twice: also as {}; keep one", first.at));
        }
        self.0.push(s);
        Ok(())
    }

    /// These settings over `d`'s: a key given here wins over the same key there.
    pub fn over(mut self, d: &Settings) -> Settings {
        for s in &d.0 {
            if !self.0.iter().any(|o| o.part.is(s.part) && o.key.name == s.key.name) {
                self.0.push(s.clone());
            }
        }
        self
    }

    /// The given values of `part`'s keys, for `rampup_tcp::registry::Settings`.
    pub fn of(&self, part: &PartInfo) -> Vec<(&'static str, Value)> {
        self.0.iter().filter(|s| s.part.is(part)).map(|s| (s.key.name, s.value)).collect()
    }

    /// Where `part`'s `key` was given, if it was.
    pub fn at(&self, part: &PartInfo, key: &str) -> Option<&str> {
        self.0.iter().find(|s| s.part.is(part) && s.key.name == key).map(|s| s.at.as_str())
    }
}

/// The registered part of `family` named `name`; refused with the names there are.
pub(super) fn find(family: Family, name: &str, at: &str) -> Result<&'static PartInfo, ScenarioError> {
    registry::find(family, name).ok_or_else(|| {
        let names: Vec<String> = registry::parts().filter(|p| p.family == family).map(|p| format!("`{}`", p.name)).collect();
        ScenarioError::key(at, format!("unknown {} {}, expected one of {}", family.key(), crate::units::shown(name), names.join(", ")))
    })
}

/// Whether the key `chooser` may name part `p`: `cc` names the controllers and the startups
/// it stands for as NewReno with them (`CC_SHORTHANDS`); any other key the parts of `family`.
fn chosen_by(chooser: &str, family: Family, p: &PartInfo) -> bool {
    match chooser {
        "cc" => p.family == Family::Cc || (p.family == Family::Startup && CC_SHORTHANDS.contains(&p.name)),
        _ => p.family == family,
    }
}

/// `value` read as `part`'s setting `key`, given at `at` in the table of the key `chooser`
/// that named the part (`cc`, `startup`, `preemptive`, …). A key the part does not own names
/// the parts `chooser` may name that do.
pub(super) fn setting(part: &'static PartInfo, chooser: &str, key: &str, value: toml::Value, at: String) -> Result<Setting, ScenarioError> {
    let Some(k) = part.key(key) else {
        let owners: Vec<String> =
            registry::parts().filter(|p| chosen_by(chooser, part.family, p) && p.key(key).is_some()).map(|p| format!("\"{}\"", p.name)).collect();
        if owners.is_empty() {
            let own: Vec<&str> = part.keys.iter().map(|k| k.name).collect();
            let takes = if own.is_empty() { "no settings".to_string() } else { format!("only {}", own.join(", ")) };
            let named = if chooser == part.name { chooser.to_string() } else { format!("{chooser} kind \"{}\"", part.name) };
            return err(&at, format!("unknown key: {named} takes {takes}"));
        }
        return err(&at, format!("applies to {chooser} kind {} only", owners.join(" or ")));
    };
    let refused = |e: toml::de::Error| ScenarioError::key(&at, e.message());
    let value = match k.unit {
        Unit::Number => Value::Number(f64::deserialize(value).map_err(refused)?),
        Unit::Segments => Value::Segments(u64::deserialize(value).map_err(refused)?),
        Unit::Bytes => Value::Bytes(within(&at, SizeValue::deserialize(value).map_err(refused)?.0, 0..=MAX_COUNT, "bytes, like \"80KiB\"")?),
        Unit::Time => Value::Time(TimeValue::deserialize(value).map_err(refused)?.0),
        Unit::Flag => Value::Flag(bool::deserialize(value).map_err(refused)?),
        Unit::Choice(names) => {
            let given = String::deserialize(value).map_err(refused)?;
            match names.iter().find(|n| **n == given) {
                Some(n) => Value::Choice(n),
                None => return err(&at, format!("{given:?} is not {}", k.unit.describe())),
            }
        }
    };
    Ok(Setting { part, key: k, value, at })
}

/// A flat key of an earlier release that stands for a part's setting (`max_ssthresh` for
/// `startup = { kind = "limited-slow-start", max_ssthresh = … }`): read as the setting of
/// each part that owns it, with a deprecation note.
pub(super) fn flat(
    settings: &mut Settings,
    notes: &mut Vec<String>,
    value: Option<toml::Value>,
    (family, parts, key, flat_key): (Family, &[&str], &str, &str),
    p: &str,
) -> Result<(), ScenarioError> {
    let Some(v) = value else { return Ok(()) };
    let at = format!("{p}.{flat_key}");
    for part in parts {
        settings.add(setting(find(family, part, &at)?, family.key(), key, v.clone(), at.clone())?)?;
    }
    let kinds: Vec<String> = parts.iter().map(|k| format!("\"{k}\"")).collect();
    notes.push(format!("{at}: deprecated: write {} = {{ kind = {}, {key} = … }}", family.key(), kinds.join(" or ")));
    Ok(())
}
