//! `[[change]]` of a link's rate, delay and loss during a run.

use rampup_sim::{run_toml, Column};

mod common;

/// One 1000-byte write a second on a dumbbell of 2 x (1 + 20 + 1) ms = 44 ms base RTT, with
/// `change` (a `[[change]]` table's keys) at 4.5 s: the elapsed time of each write.
fn elapsed(change: &str) -> Vec<f64> {
    elapsed_traced(change, "")
}

/// `elapsed`, with `trace` (a `[trace]` table's keys) after the change.
fn elapsed_traced(change: &str, trace: &str) -> Vec<f64> {
    let writes: Vec<String> = (1..=8).map(|s| format!("{{ at = \"{s}s\", bytes = 1000 }}")).collect();
    let flow = format!(
        "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = {{ kind = \"writes\", schedule = [{}] }}\ntcp = {{ handshake = false }}\n[[change]]\nat = \"4.5s\"\nlink = \"left-right\"\n{change}\n[trace]\n{trace}\n",
        writes.join(", ")
    );
    let text = common::dumbbell(("100Mbps", "1ms"), ("10Mbps", "20ms"), &flow).replace("duration = \"1s\"", "duration = \"12s\"");
    let out = run_toml(&text, None).unwrap_or_else(|e| panic!("{e}"));
    match out.table("transfers").column("elapsed_s") {
        Some(Column::F64(v)) => v.clone(),
        other => panic!("no elapsed_s: {other:?}"),
    }
}

/// One segment and its ACK: the RTT plus two serialisations on each of the three links.
fn one_exchange_s(one_way_ms: f64) -> f64 {
    let serialise = 1040.0 * 8.0 * (2.0 / 100e6 + 1.0 / 10e6) + 40.0 * 8.0 * (2.0 / 100e6 + 1.0 / 10e6);
    2.0 * (1.0 + one_way_ms + 1.0) / 1e3 + serialise
}

#[test]
fn a_delay_change_applies_to_what_is_sent_after_it() {
    let e = elapsed("delay = \"50ms\"");
    for (i, t) in e.iter().enumerate() {
        let expect = one_exchange_s(if i < 4 { 20.0 } else { 50.0 });
        assert!((t - expect).abs() < 1e-6, "write {}: {t} s, expected {expect} s", i + 1);
    }
}

#[test]
fn a_loss_change_drops_what_is_sent_after_it() {
    // Every packet lost from 4.5 s: the writes before it complete, none after.
    let e = elapsed("loss = 1.0");
    assert!(e[..4].iter().all(|t| (t - one_exchange_s(20.0)).abs() < 1e-6), "{e:?}");
    assert!(e[4..].iter().all(|t| t.is_nan()), "{e:?}");
    // Back to no loss: the same as no change at all.
    assert_eq!(elapsed("loss = 0.0"), elapsed("rate = \"10Mbps\""));
    // The same with no trace watching the ports, where a run of ports without random
    // behaviour takes the hop without code for it (`World::plain_ports`): the change gives
    // the link its random stream.
    let (untraced, traced) = (elapsed_traced("loss = 1.0", "queues = false"), elapsed("loss = 1.0"));
    assert_eq!(format!("{untraced:?}"), format!("{traced:?}"));
}

#[test]
fn a_change_must_change_something() {
    let text = common::dumbbell(("100Mbps", "1ms"), ("10Mbps", "20ms"), "[[change]]\nat = \"1s\"\nlink = \"left-right\"\n");
    let e = rampup_sim::check_toml(&text).unwrap_err().to_string();
    assert_eq!(e, "change[0]: changes nothing: give rate, delay or loss (or several)");
    let e = rampup_sim::check_toml(&(text + "loss = 2.0\n")).unwrap_err().to_string();
    assert_eq!(e, "change[0].loss: must be a probability in [0, 1] (got 2)");
}
