//! Bad input: every malformed scenario ends in one line that names the key path, never a
//! panic. A fuzz-style property mangles a valid scenario and checks exactly that.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rampup_sim::{check_toml, run_toml};

const VALID: &str = r#"
name = "demo"
duration = "2s"
seed = 3
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
bottleneck_queue = { packets = 50 }
[[flow]]
from = "s0"
to = "r0"
start = "0s"
app = { kind = "bulk", bytes = 100000 }
[flow.tcp]
cc = "newreno"
recovery = "sack"
mss = 1000
initial_window = 2
[[udp]]
from = "s0"
to = "r0"
rate = "1Mbps"
start = "0.5s"
stop = "1s"
[[change]]
at = "1s"
link = "left-right"
rate = "5Mbps"
[trace]
timeseries = true
pcap = ["left-right"]
"#;

#[track_caller]
fn error_of(text: &str) -> String {
    match check_toml(text) {
        Ok(()) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[track_caller]
fn assert_error(from: &str, to: &str, expect: &[&str]) {
    let text = VALID.replacen(from, to, 1);
    assert_ne!(text, VALID, "the replacement {from:?} did not apply");
    let msg = error_of(&text);
    assert!(!msg.contains('\n'), "not one line: {msg}");
    for e in expect {
        assert!(msg.contains(e), "{msg:?} does not mention {e:?}");
    }
}

#[test]
fn the_valid_scenario_runs() {
    let out = run_toml(VALID, None).unwrap();
    assert_eq!(out.table("flows").u64s("bytes_received"), &[100_000]);
    assert!(out.table("udp").u64s("received")[0] > 0);
}

/// `VALID` as JSON: the same document in the form the Python side hands the engine.
fn valid_as_json() -> String {
    let doc: toml::Value = toml::from_str(VALID).unwrap();
    serde_json::to_string(&doc).unwrap()
}

#[test]
fn a_scenario_given_as_json_is_the_same_scenario() {
    let json = valid_as_json();
    assert_eq!(rampup_sim::scenario::parse(&json).unwrap(), rampup_sim::scenario::parse(VALID).unwrap());
}

#[test]
fn an_error_in_a_json_scenario_names_its_key_in_one_line() {
    let json = valid_as_json().replacen("\"initial_window\":2", "\"initial_window\":\"two\"", 1);
    let msg = error_of(&json);
    assert!(msg.starts_with("flow[0].tcp.initial_window:") && !msg.contains('\n'), "{msg}");
    let msg = error_of(&format!("{} x", valid_as_json()));
    assert!(msg.starts_with("JSON syntax:"), "{msg}");
}

#[test]
fn unknown_key_names_its_path_and_the_allowed_keys() {
    assert_error("mss = 1000", "msss = 1000", &["flow[0].tcp", "msss", "mss"]);
    assert_error("seed = 3", "sed = 3", &["sed", "duration"]);
}

#[test]
fn wrong_type() {
    assert_error("initial_window = 2", "initial_window = \"two\"", &["flow[0].tcp.initial_window"]);
    assert_error("bottleneck_delay = \"20ms\"", "bottleneck_delay = 20", &["topology.bottleneck_delay", "unit"]);
}

#[test]
fn missing_field() {
    assert_error("to = \"r0\"\nstart", "start", &["flow[0]", "to"]);
    assert_error("bottleneck_rate = \"10Mbps\"\n", "", &["topology.bottleneck_rate", "missing"]);
}

#[test]
fn impossible_values() {
    assert_error("bottleneck_rate = \"10Mbps\"", "bottleneck_rate = \"0Mbps\"", &["topology.bottleneck_rate", "greater than 0"]);
    assert_error("mss = 1000", "mss = 0", &["flow[0].tcp.mss"]);
    assert_error("packets = 50", "packets = 0", &["topology.bottleneck_queue.packets", "at least 1"]);
    assert_error("start = \"0s\"", "start = \"-1s\"", &["flow[0].start"]);
    assert_error("initial_window = 2", "initial_window = 0", &["flow[0].tcp.initial_window", "at least 1"]);
    assert_error("duration = \"2s\"", "duration = \"0s\"", &["duration"]);
    assert_error("mss = 1000", "mss = 1000\nrcv_window = \"4GiB\"", &["flow[0].tcp.rcv_window", "at most 4294967295 bytes"]);
    assert_error("mss = 1000", "mss = 1000\nrcv_window = 999", &["flow[0].tcp.rcv_window", "at least one mss"]);
}

#[test]
fn an_error_in_the_tcp_defaults_names_the_key_written() {
    // Not `flow[0].tcp.mss`, where the default would first reach.
    let msg = error_of(&VALID.replacen("[[flow]]", "[tcp]\nmss = 0\n[[flow]]", 1).replacen("mss = 1000\n", "", 1));
    assert!(msg.starts_with("tcp.mss: "), "{msg}");
}

#[test]
fn unknown_algorithm_lists_the_known_ones() {
    assert_error("cc = \"newreno\"", "cc = \"bbr3\"", &["flow[0].tcp.cc", "bbr3", "newreno", "vegas", "cubic", "bbr"]);
    assert_error("kind = \"dumbbell\"", "kind = \"ring\"", &["topology.kind", "dumbbell", "lan", "custom"]);
    assert_error("mss = 1000", "mss = 1000\nsack_permitted = \"yes\"", &["flow[0].tcp.sack_permitted", "as-recovery", "always", "never"]);
}

#[test]
fn sack_permitted_takes_its_three_values() {
    for v in ["as-recovery", "always", "never"] {
        let text = VALID.replacen("mss = 1000", &format!("mss = 1000\nsack_permitted = \"{v}\""), 1);
        assert!(check_toml(&text).is_ok(), "{v}");
    }
}

#[test]
fn rto_rule_takes_rfc6298_and_linux() {
    for v in ["rfc6298", "linux"] {
        let text = VALID.replacen("mss = 1000", &format!("mss = 1000\nrto_rule = \"{v}\""), 1);
        assert!(check_toml(&text).is_ok(), "{v}");
    }
    assert_error("mss = 1000", "mss = 1000\nrto_rule = \"bsd\"", &["flow[0].tcp.rto_rule", "rfc6298", "linux"]);
    assert_error("[[flow]]", "[tcp]\nrto_rule = \"bsd\"\n[[flow]]", &["tcp.rto_rule", "rfc6298", "linux"]);
}

#[test]
fn unknown_or_unconnected_nodes() {
    assert_error("to = \"r0\"\nstart", "to = \"r9\"\nstart", &["flow[0].to", "r9"]);
    let island = r#"
duration = "1s"
[topology]
kind = "custom"
nodes = ["a", "b", "c"]
[[topology.link]]
a = "a"
b = "b"
rate = "1Mbps"
delay = "1ms"
[[flow]]
from = "a"
to = "c"
app = { kind = "bulk" }
"#;
    let msg = error_of(island);
    assert!(msg.starts_with("flow[0]: no path"), "{msg}");
}

#[test]
fn keys_of_another_topology_kind_are_refused() {
    assert_error("pairs = 1", "hosts = []", &["topology.hosts", "dumbbell"]);
    assert_error("pairs = 1", "interswitch_rate = \"1Gbps\"", &["topology.interswitch_rate", "dumbbell"]);
}

#[test]
fn toml_syntax_errors_give_line_and_column() {
    let msg = error_of("duration = \"1s\"\n[topology\nkind = 1");
    assert!(msg.starts_with("TOML syntax, line 2"), "{msg}");
    assert!(!msg.contains('\n'));
}

const WEIRD_VALUES: &[&str] = &[
    "-1",
    "0",
    "\"\"",
    "\"abc\"",
    "1e999",
    "true",
    "[]",
    "{}",
    "\"0s\"",
    "\"1ms\"",
    "3.5",
    "\"0bps\"",
    "nan",
    "-0.0",
    "2147483648",
    "4294967296",
    "4294967336",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "\"1e30\"",
    "\"4294967336B\"",
    "\"1e30Gbps\"",
    "\"1e30s\"",
    "\"1e-30s\"",
    "\"\u{0}\"",
];

proptest! {
    // Seeded, so that a run of the suite is repeatable; 2,000 cases as the issue that
    // found the truncations asked.
    #![proptest_config(ProptestConfig { cases: 2000, rng_seed: RngSeed::Fixed(2024), ..ProptestConfig::default() })]

    /// Mangle one line (delete it, replace its value, duplicate it, or cut it short) and
    /// check that the result is a run or a one-line error naming a key.
    #[test]
    fn mangled_scenarios_end_in_a_result_or_a_one_line_error(
        line in 0usize..40,
        action in 0u8..4,
        value in 0usize..WEIRD_VALUES.len(),
        cut in 0usize..40,
    ) {
        let mut lines: Vec<String> = VALID.lines().map(String::from).collect();
        let i = line % lines.len();
        match action {
            0 => { lines.remove(i); }
            1 => {
                if let Some((k, _)) = lines[i].split_once('=') {
                    lines[i] = format!("{k}= {}", WEIRD_VALUES[value]);
                }
            }
            2 => { let l = lines[i].clone(); lines.insert(i, l); }
            _ => { let l = &lines[i]; lines[i] = l.chars().take(cut % (l.len() + 1)).collect(); }
        }
        let text = lines.join("\n");
        match run_toml(&text, None) {
            Ok(out) => prop_assert!(out.sim_end_ns > 0),
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n'), "not one line: {}", msg);
                prop_assert!(msg.contains(": "), "no key path: {}", msg);
            }
        }
    }
}

#[test]
fn preemptive_values() {
    let with = |v: &str| VALID.replacen("initial_window = 2", &format!("initial_window = 2\npreemptive = {v}"), 1);
    assert!(check_toml(&with("{ factor = 3, cutout = \"80KiB\" }")).is_ok());
    assert!(check_toml(&with("{}")).is_ok(), "both keys have defaults");
    assert!(check_toml(&with("{ factor = 2.5, cutout = 1 }")).is_ok());
    assert_error("initial_window = 2", "initial_window = 2\npreemptive = { factor = 0 }", &["flow[0].tcp.preemptive.factor", "greater than 0"]);
    assert_error("initial_window = 2", "initial_window = 2\npreemptive = { factor = -1 }", &["flow[0].tcp.preemptive.factor"]);
    assert_error("initial_window = 2", "initial_window = 2\npreemptive = { cutout = 0 }", &["flow[0].tcp.preemptive.cutout", "at least 1 byte"]);
    assert_error("initial_window = 2", "initial_window = 2\npreemptive = { k = 3 }", &["flow[0].tcp.preemptive", "k", "factor", "cutout"]);
    assert_error("initial_window = 2", "initial_window = 2\npreemptive = true", &["flow[0].tcp.preemptive"]);
}

/// `[trace] max_rows` stops a run whose trace passes it, with one line naming the trace (a
/// split run: `properties.rs`); a budget the run stays within changes nothing.
#[test]
fn a_trace_over_its_budget_stops_the_run() {
    let with = |max: u64| VALID.replacen("[trace]\n", &format!("[trace]\nmax_rows = {max}\n"), 1);
    let Err(e) = run_toml(&with(1000), None) else { panic!("ran to the end") };
    let msg = e.to_string();
    assert!(msg.starts_with("trace.max_rows: the queues trace passed 1000 rows by "), "{msg}");
    assert!(!msg.contains('\n'));
    let unlimited = run_toml(VALID, None).unwrap();
    assert_eq!(run_toml(&with(1 << 40), None).unwrap().digest(), unlimited.digest());
    assert_error("[trace]\n", "[trace]\nmax_rows = 0\n", &["trace.max_rows", "at least 1"]);
    assert_error("[trace]\n", "[trace]\nthroughput = \"0s\"\n", &["trace.throughput", "greater than 0s"]);
    assert_error("[trace]\n", "[trace]\nqueues_interval = \"0s\"\n", &["trace.queues_interval", "greater than 0s"]);
    assert_error("[trace]\n", "[trace]\npcap_per = \"flow\"\n", &["trace.pcap_per", "\"direction\"", "\"link\""]);
    assert_error("[trace]\n", "[trace]\nqueues = false\nqueues_interval = \"10ms\"\n", &["trace.queues_interval", "trace.queues = false"]);
}

#[test]
fn warnings_name_what_is_valid_but_likely_a_mistake() {
    let warnings = |text: &str| rampup_sim::warnings_toml(text).unwrap();
    assert_eq!(warnings(VALID), Vec::<String>::new());
    let late = VALID.replacen("start = \"0s\"", "start = \"5s\"", 1);
    assert_eq!(warnings(&late), ["flow[0].start: 5s is not before the end of the run (2s): the flow sends nothing"]);
    let router = VALID.replacen("from = \"s0\"\nto = \"r0\"\nstart", "from = \"left\"\nto = \"r0\"\nstart", 1);
    assert_eq!(warnings(&router), ["flow[0].from: \"left\" forwards between 2 links (a router); flows usually run between hosts"]);
    let nothing = VALID.split("[[flow]]").next().unwrap().to_string();
    assert_eq!(warnings(&nothing), ["scenario: no [[flow]] and no [[udp]]: nothing will be sent"]);
}

#[test]
fn rate_limited_values() {
    let app = "app = { kind = \"bulk\", bytes = 100000 }";
    assert_error(app, "app = { kind = \"rate-limited\" }", &["flow[0].app.rate", "missing", "512kbps"]);
    assert_error(app, "app = { kind = \"rate-limited\", rate = 512 }", &["flow[0].app.rate", "a rate with a unit"]);
    assert_error(app, "app = { kind = \"rate-limited\", rate = \"fast\" }", &["flow[0].app.rate", "\"fast\""]);
    assert_error(app, "app = { kind = \"rate-limited\", rate = \"1Mbps\", chunk = 0 }", &["flow[0].app.chunk"]);
    assert_error(app, "app = { kind = \"web\", rate = \"1Mbps\" }", &["flow[0].app.rate", "connections per second"]);
    assert_error(app, "app = { kind = \"rate-limited\", rate = \"1Mbps\", bytes = 3 }", &["flow[0].app.bytes", "rate-limited: rate, chunk, phases, padding"]);
    let phases = "phases = [{ at = \"2s\", rate = \"0bps\", within = \"1s\" }, { at = \"2.5s\", rate = \"1Mbps\" }]";
    assert_error(app, &format!("app = {{ kind = \"rate-limited\", rate = \"1Mbps\", {phases} }}"), &["flow[0].app.phases[1].at", "previous phase"]);
    assert_error(app, "app = { kind = \"rate-limited\", rate = \"1Mbps\", phases = [{ rate = \"0bps\" }] }", &["flow[0].app.phases[0]", "at"]);
    assert_error("cc = \"newreno\"", "restart = { kind = \"ssr\", nvp = \"1s\" }", &["restart.nvp", "new-cwv"]);
    assert_error("cc = \"newreno\"", "restart = { kind = \"new-cwv\", nvp = \"0s\" }", &["tcp.restart.nvp", "greater than 0"]);
}

#[test]
fn vrate_keys_out_of_range() {
    let vrate = "[trace]\ntimeseries = true";
    assert_error(vrate, "[vrate]\nperiod = \"0s\"\n[trace]\ntimeseries = true", &["vrate.period", "greater than 0s"]);
    assert_error(vrate, "[vrate]\ngain = 0.0\n[trace]\ntimeseries = true", &["vrate.gain", "greater than 0"]);
    assert_error(vrate, "[vrate]\ncombine = \"max\"\n[trace]\ntimeseries = true", &["vrate.combine", "sum-min-rtt"]);
    assert_error("start = \"0s\"", "start = \"0s\"\ngroup = \"\"", &["flow[0].group", "a name"]);
    let web = "app = { kind = \"request-response\", request = 100, response = 1000 }\ngroup = \"app\"";
    assert_error("app = { kind = \"bulk\", bytes = 100000 }", web, &["flow[0].group", "one connection"]);
    assert_error("start = \"0s\"", "start = \"0s\"\nshare = \"\"", &["flow[0].share", "a name"]);
}

#[test]
fn a_grouped_flow_runs() {
    let text = VALID.replacen("start = \"0s\"", "start = \"0s\"\ngroup = \"app\"", 1);
    let out = run_toml(&format!("{text}[vrate]\nperiod = \"100us\"\n"), None).unwrap();
    assert_eq!(out.table("flows").u64s("bytes_received"), &[100_000]);
}

#[test]
fn a_quantity_is_a_number_and_a_unit_written_together() {
    // Spaces, a sign, or a value that would silently become zero are refused, each saying why.
    for bad in ["\"10 Mbps\"", "\"  10Mbps  \"", "\"+10Mbps\""] {
        assert_error("bottleneck_rate = \"10Mbps\"", &format!("bottleneck_rate = {bad}"), &["topology.bottleneck_rate", "is not a rate"]);
    }
    assert_error("bottleneck_rate = \"10Mbps\"", "bottleneck_rate = \"-100Mbps\"", &["topology.bottleneck_rate", "is negative"]);
    assert_error("bottleneck_rate = \"10Mbps\"", "bottleneck_rate = \"4294967296Gbps\"", &["is above 10 Tbps"]);
    for tiny in ["1e-400s", "1e-30ms"] {
        assert_error("bottleneck_delay = \"20ms\"", &format!("bottleneck_delay = \"{tiny}\""), &["topology.bottleneck_delay", "below 1 ns"]);
    }
    assert_error("bottleneck_queue = { packets = 50 }", "bottleneck_queue = { packets = -5 }", &["packets", "-5 is negative"]);
}

#[test]
fn an_error_quotes_a_long_value_cut() {
    let long = "9".repeat(100_000);
    for (from, to) in [("bottleneck_rate = \"10Mbps\"", format!("bottleneck_rate = \"{long}\"")), ("cc = \"newreno\"", format!("cc = \"{long}\""))] {
        let msg = error_of(&VALID.replacen(from, &to, 1));
        assert!(msg.len() < 1_000 && msg.contains("100000 characters"), "{} bytes: {}", msg.len(), &msg[..200.min(msg.len())]);
    }
}
