//! The docs follow the registry (`rampup_tcp::registry`): `docs/scenarios.md` names every
//! registered part and carries a row of the defaults table for each of a part's keys, with
//! the default the registry gives. A part registered without them fails here.

use rampup_tcp::registry::{self, Family};

#[test]
fn every_registered_part_has_its_docs_and_a_default_for_each_key() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenarios.md")).expect("docs/scenarios.md");
    let rows = rampup_sim::scenario::defaults::defaults();
    for p in registry::parts() {
        // An extra is switched on by its own key (`rack_tlp = true`); the others are named.
        let named = if p.family == Family::Extra { p.name.replace('-', "_") } else { format!("\"{}\"", p.name) };
        assert!(doc.contains(&named), "docs/scenarios.md does not name the {} part {named}", p.family.title());
        for k in p.keys {
            let table = p.table();
            let value = k.default.toml();
            assert!(rows.iter().any(|r| r.table == table && r.key == k.name && r.value == value), "rampup defaults has no row {table} {}", k.name);
            let row = format!("| {table} | `{}` | `{value}` |", k.name);
            assert!(doc.contains(&row), "docs/scenarios.md has no row {row}");
        }
    }
}
