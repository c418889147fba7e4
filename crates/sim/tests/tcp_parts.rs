//! A part of the TCP given as a table (`cc = { kind = "vegas", alpha = 2.0 }`) is the same
//! configuration as the deprecated flat keys (`cc = "vegas"`, `vegas_alpha = 2.0`); a setting
//! its kind does not have, or one given both ways, is one line naming the key.

use rampup_sim::scenario::parse;

mod common;

fn scenario(tcp: &str, flow_tcp: &str) -> String {
    let flow = format!("[tcp]\n{tcp}\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ {flow_tcp} }}\n");
    common::dumbbell(("100Mbps", "1ms"), ("10Mbps", "20ms"), &flow)
}

#[track_caller]
fn same(nested: (&str, &str), flat: (&str, &str)) {
    let a = parse(&scenario(nested.0, nested.1)).unwrap_or_else(|e| panic!("{e}"));
    let b = parse(&scenario(flat.0, flat.1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.flows[0].tcp, b.flows[0].tcp, "{nested:?} is not {flat:?}");
}

#[track_caller]
fn error(tcp: &str, flow_tcp: &str, expect: &str) {
    match parse(&scenario(tcp, flow_tcp)) {
        Ok(_) => panic!("accepted: {tcp} / {flow_tcp}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n') && msg.contains(expect), "{msg:?} does not say {expect:?}");
        }
    }
}

#[test]
fn a_part_table_is_its_flat_keys() {
    same(
        (r#"cc = { kind = "vegas", alpha = 2.0, beta = 4.0, gamma = 0.5, rtt = "mean", slow_start_exit = "eighth" }"#, ""),
        ("cc = \"vegas\"\nvegas_alpha = 2.0\nvegas_beta = 4.0\nvegas_gamma = 0.5\nvegas_rtt = \"mean\"\nvegas_slow_start_exit = \"eighth\"", ""),
    );
    same(
        ("", r#"cc = { kind = "ssthreshless", gamma = 7.0, rtt_tick = "10ms" }"#),
        ("", r#"cc = "ssthreshless", ssthreshless_gamma = 7.0, ssthreshless_rtt_tick = "10ms""#),
    );
    same(("", r#"startup = { kind = "limited-slow-start", max_ssthresh = 50 }"#), ("", r#"startup = "limited-slow-start", max_ssthresh = 50"#));
    same(("", r#"restart = { kind = "rbp-rate", scale = 0.5 }"#), ("", r#"restart = "rbp-rate", rbp_scale = 0.5"#));
    same(("", r#"restart = { kind = "rbp-cwnd", scale = 0.75 }"#), ("", r#"restart = "rbp-cwnd", rbp_scale = 0.75"#));
    same(
        ("", r#"restart = { kind = "new-cwv", form = "paper", nvp = "180s", loss_response = "standard" }"#),
        ("", r#"restart = "new-cwv", new_cwv_form = "paper", nvp = "180s", nvp_loss_response = "standard""#),
    );
    same(("", r#"cc = { kind = "cubic", fast_convergence = false, beta = 0.8 }"#), ("", r#"cc = "cubic", cubic_fast_convergence = false, cubic_beta = 0.8"#));
    same(("", r#"pacing = { kind = "quic", n = 2.0, unpaced = 4 }"#), ("", r#"pacing = "quic", pacing_n = 2.0, pacing_unpaced = 4"#));
}

/// A flat key of an earlier release is read with one deprecation line naming the nested form.
#[test]
fn a_flat_key_is_read_with_a_deprecation_note() {
    let sc = parse(&scenario("", r#"restart = "rbp-rate", rbp_scale = 0.5"#)).expect("valid");
    assert_eq!(sc.deprecated, ["flow[0].tcp.rbp_scale: deprecated: write restart = { kind = \"rbp-rate\" or \"rbp-cwnd\", scale = … }"]);
    assert!(parse(&scenario("", r#"restart = { kind = "rbp-rate", scale = 0.5 }"#)).expect("valid").deprecated.is_empty());
}

#[test]
fn a_flow_and_the_defaults_merge_key_by_key_whichever_form_each_uses() {
    // The defaults' table sets alpha; the flow names the part and sets beta flat.
    same((r#"cc = { kind = "vegas", alpha = 2.0 }"#, r#"cc = "vegas", vegas_beta = 5.0"#), ("", r#"cc = "vegas", vegas_alpha = 2.0, vegas_beta = 5.0"#));
    // A flow's table wins over the defaults' flat key.
    same(("vegas_alpha = 2.0", r#"cc = { kind = "vegas", alpha = 1.5 }"#), ("", r#"cc = "vegas", vegas_alpha = 1.5"#));
}

#[test]
fn a_setting_the_kind_does_not_have_names_the_kinds_that_do() {
    error("", r#"cc = { kind = "newreno", alpha = 2.0 }"#, r#"flow[0].tcp.cc.alpha: applies to cc kind "vegas" only"#);
    error("", r#"cc = { kind = "hoe", gamma = 2.0 }"#, r#"flow[0].tcp.cc.gamma: applies to cc kind "vegas" or "ssthreshless" only"#);
    error(r#"restart = { kind = "ssr", scale = 2.0 }"#, "", r#"tcp.restart.scale: applies to restart kind "rbp-rate" or "rbp-cwnd" only"#);
    error("", r#"pacing = { kind = "linux", n = 2.0 }"#, r#"flow[0].tcp.pacing.n: applies to pacing kind "quic" only"#);
    // RFC 3465 is the tcp table's, for the controllers whose slow start is RFC 5681's.
    error(
        "",
        r#"cc = { kind = "newreno", byte_counting = true }"#,
        "flow[0].tcp.cc.byte_counting: a key of the tcp table: write byte_counting = true beside cc",
    );
    error("", r#"startup = { kind = "hoe", max_ssthresh = 9 }"#, r#"flow[0].tcp.startup.max_ssthresh: applies to startup kind "limited-slow-start" only"#);
}

#[test]
fn a_setting_given_both_ways_is_refused() {
    error("", r#"cc = { kind = "vegas", alpha = 2.0 }, vegas_alpha = 1.0"#, "flow[0].tcp.vegas_alpha: given twice: also as flow[0].tcp.cc.alpha; keep one");
}

#[test]
fn a_part_table_names_its_keys() {
    error(
        "",
        r#"cc = { kind = "vegas", alfa = 2.0 }"#,
        r#"flow[0].tcp.cc.alfa: unknown key: cc kind "vegas" takes only alpha, beta, gamma, rtt, slow_start_exit"#,
    );
    // A startup named by `cc` is named by `cc` in the line, as is a part switched on by a
    // key of its own.
    error("", r#"cc = { kind = "hoe", gamma = 2.0, beta = 1.0 }"#, r#"flow[0].tcp.cc.beta: applies to cc kind "vegas" or "cubic" only"#);
    error("", r#"cc = { kind = "ssthreshless", alfa = 2.0 }"#, r#"flow[0].tcp.cc.alfa: unknown key: cc kind "ssthreshless" takes only"#);
    error("", r#"preemptive = { k = 3 }"#, "flow[0].tcp.preemptive.k: unknown key: preemptive takes only factor, cutout");
    error("", r#"cc = { kind = "reno" }"#, r#"flow[0].tcp.cc: unknown cc "reno", expected one of `newreno`, `vegas`, `cubic`, `bbr`, `hoe`"#);
    error("", r#"cc = { alpha = 2.0 }"#, "flow[0].tcp.cc: missing field `kind`");
    error("", r#"cc = 3"#, "flow[0].tcp.cc: invalid type: integer `3`, expected a name, or a table with its `kind` and settings");
}
