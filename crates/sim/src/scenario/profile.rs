//! Profiles: `profile = "linux"` in a `tcp` table sets the keys that make rampup's TCP
//! behave as a given stack does by default, so that one line compares a mechanism with it.
//! A profile's keys are written as a scenario writes them; any key the flow or the
//! scenario's `[tcp]` table gives wins over the profile's. A table named by a part holds
//! that part's settings for a flow that chooses the part (`[vegas]`: Vegas as ns-2's).

use rampup_tcp::registry;

use super::part;
use super::tcp::{ProfileName, TcpFile};

/// Linux 6.x defaults (docs/modern.md): IW 10 (`TCP_INIT_CWND`), RTO between 200 ms and
/// 120 s from 1 s (`TCP_RTO_MIN`, `TCP_RTO_MAX`, `TCP_TIMEOUT_INIT`) by `tcp_rtt_estimator`,
/// SACK offered, RACK-TLP and PRR, CUBIC with HyStart reducing from cwnd
/// (`cubictcp_recalc_ssthresh`), slow start after idle as RFC 2861 (`tcp_cwnd_restart`), the
/// cwnd-limited rule (`tcp_is_cwnd_limited`), slow start counting the segments an ACK covers
/// (`tcp_slow_start`), delayed ACKs from 40 ms (`TCP_ATO_MIN`) after quick-ACK mode
/// (`tcp_incr_quickack`) and the end of a write ACKed at once (`tcp_cleanup_rbuf`), and segments of 1448 bytes (a 1500-byte MTU less the timestamps
/// option).
const LINUX: &str = r#"
mss = 1448
initial_window = 10
initial_rto = "1s"
min_rto = "200ms"
max_rto = "120s"
rto_rule = "linux"
recovery = "sack"
sack_permitted = "always"
rack_tlp = true
prr = true
cc = "cubic"
startup = "hystart"
byte_counting = true
loss_window = "cwnd"
restart = "ssr-linux"
rate_limited_increase = true
delayed_ack = true
delack_timeout = "40ms"
quickack = true
"#;

/// ns-2.35's agents as the cross-checks run them (NS2-NOTES.md): the loss window halved is
/// cwnd (`slowdown()`), a timeout in recovery halves it again, and Vegas, where a flow
/// chooses it, as ns-2's.
const NS2: &str = r#"
loss_window = "cwnd"
rto_in_recovery = "halve"

[vegas]
rtt = "mean"
slow_start_exit = "eighth"
"#;

/// 4.4BSD-Lite's TCP (docs/bsd44.md, docs/modern.md): an initial window and a restart after
/// idle of one segment (`tcp_mss`, `tcp_output`'s idle test), Reno recovery with ssthresh
/// from min(snd_wnd, cwnd) / 2 (`tcp_input`), no SACK (Reno recovery does not offer it) and
/// no limited transmit; BSD's timers: the 500 ms slow timer (`PR_SLOWHZ`), one segment timed
/// at a time in whole ticks with srtt and rttvar in fixed point (`tcp_xmit_timer`), an RTO
/// of at least 2 ticks and at most 64 s (`TCPTV_MIN`, `TCPTV_REXMTMAX`) from 6 s
/// (`tcp_newtcpcb`), backed off by `tcp_backoff[]` and firing on a tick (`rto_rule =
/// "bsd44"`), and delayed ACKs sent at the next tick of the 200 ms fast timer
/// (`tcp_fasttimo`, `delack_on_tick`).
const BSD44: &str = r#"
initial_window = 1
recovery = "reno"
limited_transmit = false
loss_window = "cwnd"
clock_granularity = "500ms"
min_rto = "1s"
initial_rto = "6s"
max_rto = "64s"
rto_rule = "bsd44"
delayed_ack = true
delack_timeout = "200ms"
delack_on_tick = true
restart = "ssr"
"#;

pub(super) fn keys(name: ProfileName) -> TcpFile {
    let text = match name {
        ProfileName::Linux => LINUX,
        ProfileName::Ns2 => NS2,
        ProfileName::Bsd44 => BSD44,
    };
    let mut table: toml::Table = toml::from_str(text).expect("a profile is TOML");
    let part_tables: Vec<(String, toml::Value)> = table.iter().filter(|(_, v)| v.is_table()).map(|(k, v)| (k.clone(), v.clone())).collect();
    table.retain(|_, v| !v.is_table());
    let mut keys: TcpFile = toml::Value::Table(table).try_into().expect("a profile's keys are valid");
    for (name, settings) in part_tables {
        let info = registry::parts().find(|p| p.name == name && !p.keys.is_empty()).expect("a profile's table names a part with settings");
        for (key, v) in settings.as_table().expect("a table").clone() {
            keys.add_setting(part::setting(info, info.family.key(), &key, v, format!("profile {name}.{key}")).expect("a profile's settings are valid"))
                .expect("given once");
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/scenarios.md shows each profile's keys as the engine has them.
    #[test]
    fn the_scenarios_page_has_every_profile_as_it_is() {
        let page = include_str!("../../../../docs/scenarios.md");
        for (name, text) in [("linux", LINUX), ("ns2", NS2), ("bsd44", BSD44)] {
            let block = format!("```toml profile\n# profile = \"{name}\"{text}```");
            assert!(page.contains(&block), "docs/scenarios.md lacks, or has another, profile {name}:\n{block}");
        }
    }
}
