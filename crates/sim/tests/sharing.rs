//! Connections that share: an ensemble's members use equal shares of one window (RFC 9040
//! ensemble sharing, `rampup_sim::ensemble`), where alone their windows differ.

use rampup_sim::run_toml;

/// Two bulk flows of 1 MB from host a over paths of 10 and 40 ms RTT, each with its own
/// 10 Mb/s bottleneck whose queue is long enough that nothing is lost (a member in loss
/// recovery keeps its own window: `ensemble`'s unit tests), sharing an ensemble on a when
/// `share`.
fn two_paths(share: bool) -> String {
    let share = if share { "share = \"e\"\n" } else { "" };
    format!(
        "duration = \"10s\"\n[topology]\nkind = \"custom\"\nnodes = [\"a\", \"s\", \"b\", \"c\"]\nlink = [\n\
         {{ a = \"a\", b = \"s\", rate = \"100Mbps\", delay = \"1ms\" }},\n\
         {{ a = \"s\", b = \"b\", rate = \"10Mbps\", delay = \"4ms\", queue = {{ packets = 1000 }} }},\n\
         {{ a = \"s\", b = \"c\", rate = \"10Mbps\", delay = \"19ms\", queue = {{ packets = 1000 }} }},\n]\n\
         [[flow]]\nfrom = \"a\"\nto = \"b\"\napp = {{ kind = \"bulk\", bytes = 1000000 }}\n{share}\
         [[flow]]\nfrom = \"a\"\nto = \"c\"\napp = {{ kind = \"bulk\", bytes = 1000000 }}\n{share}\
         [trace]\ntimeseries = true\nqueues = false\n"
    )
}

/// The share of the instants with timeseries rows, once both flows have sent, at which their
/// windows are equal.
fn equal_windows(share: bool) -> f64 {
    let out = run_toml(&two_paths(share), None).unwrap();
    assert_eq!(out.table("flows").u64s("bytes_received"), &[1_000_000, 1_000_000], "each transfer arrives whole");
    let ts = out.table("timeseries");
    let (t, flow, cwnd) = (ts.u64s("t_ns"), ts.u64s("flow"), ts.u64s("cwnd_bytes"));
    let mut last: [Option<u64>; 2] = [None, None];
    let (mut equal, mut rows) = (0, 0);
    for i in 0..t.len() {
        last[flow[i] as usize] = Some(cwnd[i]);
        // Both windows as they stand once every row of this instant is in.
        if let ([Some(a), Some(b)], true) = (last, t.get(i + 1) != Some(&t[i])) {
            rows += 1;
            equal += (a == b) as u32;
        }
    }
    f64::from(equal) / f64::from(rows.max(1))
}

#[test]
fn an_ensembles_members_send_with_equal_shares_of_one_window() {
    let (alone, shared) = (equal_windows(false), equal_windows(true));
    // Alone, the 10 ms flow's window grows four times as often as the 40 ms one's; shared,
    // each change of either is split between both.
    assert!(alone < 0.2, "alone, the windows were equal at {alone:.2} of the rows");
    assert!(shared > 0.8, "shared, the windows were equal at only {shared:.2} of the rows");
}
