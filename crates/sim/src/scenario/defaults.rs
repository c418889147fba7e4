//! Every scenario key that may be left out, and what the code then uses: read back from
//! minimal scenarios that leave the keys out, so that the table cannot drift from the code
//! (`rampup defaults`; docs/scenarios.md carries the same table, which a test compares).

use rampup_tcp::registry;
use rampup_tcp::restart::IdleThreshold;
use rampup_tcp::{CcKind, Duration, LossWindow, QuickAck, TcpConfig};

use super::topology::QueueLimit;
use super::{parse, Scenario};
use crate::traffic::{App, Closer, Http};

/// One key's default.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyDefault {
    /// Where the key goes: "" (the top level), "topology", "topology (lan)", "flow", "tcp",
    /// "tcp.startup (ssthreshless)" (a part's table, with its kind), …
    pub table: String,
    pub key: &'static str,
    /// As TOML would write it (`"1s"`, `1000`, `true`), or in words in parentheses where
    /// the default is an absence (`(unlimited)`) or follows another key (`(= access_rate)`).
    pub value: String,
}

const HEAD: &str = "duration = \"1s\"\n";
const DUMBBELL: &str =
    "[topology]\nkind = \"dumbbell\"\naccess_rate = \"1Gbps\"\naccess_delay = \"1ms\"\nbottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"1ms\"\n";
const FLOW: &str = "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\n";
const UDP: &str = "[[udp]]\nfrom = \"s0\"\nto = \"r0\"\nrate = \"1Mbps\"\n";
const LAN: &str = "[topology]\nkind = \"lan\"\nhosts = [{ name = \"a\", rate = \"1Gbps\" }, { name = \"b\", rate = \"1Gbps\" }]\n";
const CUSTOM: &str = "[topology]\nkind = \"custom\"\nnodes = [\"a\", \"b\"]\nlink = [{ a = \"a\", b = \"b\", rate = \"1Gbps\", delay = \"1ms\" }]\n";

/// A minimal dumbbell scenario with one flow of `app` and `tcp` (inline tables' contents).
pub(super) fn minimal(app: &str, tcp: &str) -> String {
    format!("{HEAD}{DUMBBELL}{FLOW}app = {{ {app} }}\ntcp = {{ {tcp} }}\n")
}

fn scenario(text: &str) -> Scenario {
    parse(text).unwrap_or_else(|e| panic!("a minimal scenario is valid: {e}\n{text}"))
}

fn tcp_of(tcp: &str) -> TcpConfig {
    scenario(&minimal("kind = \"bulk\"", tcp)).flows[0].tcp.clone()
}

/// A time as a scenario writes it, quoted: `"200ms"`.
fn time(d: Duration) -> String {
    let ns = d.as_nanos();
    let (n, unit) = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us"), (1, "ns")].into_iter().find(|(u, _)| ns.is_multiple_of(*u)).unwrap();
    format!("\"{}{unit}\"", ns / n)
}

fn queue(q: QueueLimit) -> String {
    match q {
        QueueLimit::Packets(n) => format!("{{ packets = {n} }}"),
        QueueLimit::Bytes(n) => format!("{{ bytes = {n} }}"),
    }
}

/// A variant's name as the scenario spells it, from its `Debug` name ("SsrLinux",
/// "RbpRate { scale: 1.0 }"): lower case, words joined by `sep` (kebab-case "-", snake_case
/// "_", or none).
fn name(debug: &impl std::fmt::Debug, sep: &str) -> String {
    let d = format!("{debug:?}");
    let head = d.split([' ', '(']).next().unwrap_or_default();
    let mut out = String::new();
    for (i, c) in head.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out += sep;
        }
        out.extend(c.to_lowercase());
    }
    format!("\"{out}\"")
}

fn segments(bytes: u64, mss: u64) -> String {
    if bytes == u64::MAX {
        "(unlimited)".into()
    } else {
        (bytes / mss).to_string()
    }
}

/// Every key with a default, table by table.
pub fn defaults() -> Vec<KeyDefault> {
    let mut rows = Vec::new();
    let mut put = |table: &'static str, key: &'static str, value: String| rows.push(KeyDefault { table: table.into(), key, value });
    let sc = scenario(&minimal("kind = \"bulk\"", ""));
    put("", "name", format!("{:?}", sc.name));
    put("", "seed", sc.seed.to_string());
    put("", "header_bytes", sc.header_bytes.to_string());
    put("", "ack_bytes", sc.ack_bytes.to_string());
    put("topology", "pairs", ((sc.net.nodes.len() - 2) / 2).to_string());
    let (access, bottleneck) = (&sc.net.links[0], sc.net.links.iter().find(|l| sc.net.nodes[l.a].name == "left" && sc.net.nodes[l.b].name == "right"));
    put("topology", "access_queue", queue(access.queue[0]));
    put("topology", "bottleneck_queue", queue(bottleneck.expect("a dumbbell has a bottleneck").queue[0]));
    put("topology", "loss", format!("{:?}", bottleneck.expect("a dumbbell has a bottleneck").loss[0]));
    for side in ["left_access_rate", "left_access_delay", "right_access_rate", "right_access_delay"] {
        put("topology", side, format!("(= {})", &side[side.find('_').unwrap() + 1..]));
    }
    other_topologies(&mut put);
    queue_disciplines(&mut put);
    let f = &sc.flows[0];
    put("flow", "start", time(f.start));
    put("flow", "start_jitter", time(f.start_jitter));
    put("flow", "group", "(no vrate group)".into());
    put("flow", "share", "(no ensemble)".into());
    request_response(&mut put);
    web(&mut put);
    rate_limited(&mut put);
    let udp = &scenario(&format!("{}{UDP}", minimal("kind = \"bulk\"", ""))).udp[0];
    put("udp", "packet_bytes", udp.packet_bytes.to_string());
    put("udp", "start", time(udp.start));
    put("udp", "stop", "(= duration)".into());
    let trace = &sc.trace;
    put("trace", "timeseries", trace.timeseries.to_string());
    put("trace", "queues", trace.queues.to_string());
    put("trace", "pcap", "[]".into());
    put("trace", "pcap_per", format!("\"{}\"", if trace.pcap_per_link { "link" } else { "direction" }));
    put("trace", "max_rows", trace.max_rows.map_or("(no limit)".into(), |n| n.to_string()));
    put("trace", "queues_interval", trace.queues_interval.map_or("(on change)".into(), time));
    put("trace", "rtt", trace.rtt.to_string());
    put("trace", "packets", trace.packets.to_string());
    put("trace", "throughput", trace.throughput.map_or("(not traced)".into(), time));
    let vrate = &sc.vrate;
    put("vrate", "period", time(vrate.period));
    put("vrate", "combine", name(&vrate.combine, "-"));
    put("vrate", "gain", format!("{:?}", vrate.gain));
    tcp(&mut put);
    // The parts' own keys, as the registry gives their defaults.
    for p in registry::parts() {
        for k in p.keys {
            rows.push(KeyDefault { table: p.table(), key: k.name, value: k.default.toml() });
        }
    }
    rows
}

/// A LAN's and a custom link's settings.
fn other_topologies(put: &mut impl FnMut(&'static str, &'static str, String)) {
    let lan = scenario(&format!("{HEAD}{LAN}"));
    put("topology (lan)", "delay", time(lan.net.links[0].delay));
    put("topology (lan)", "queue", queue(lan.net.links[0].queue[1]));
    put(
        "topology (lan)",
        "host_queue",
        if lan.net.links[0].queue[0] == lan.net.links[0].queue[1] { "(the LAN's queue)".into() } else { queue(lan.net.links[0].queue[0]) },
    );
    put("topology (lan)", "jitter", time(lan.net.links[0].jitter));
    put("topology (lan)", "interswitch_rate", "(none: one switch, sw)".into());
    put("topology.hosts (lan)", "switch", if lan.net.links.iter().all(|l| lan.net.nodes[l.b].name == "sw") { "1".into() } else { "2".into() });
    let custom = scenario(&format!("{HEAD}{CUSTOM}"));
    let l = &custom.net.links[0];
    put("topology.link (custom)", "queue", queue(l.queue[0]));
    put("topology.link (custom)", "loss", format!("{:?}", l.loss[0]));
    put("topology.link (custom)", "duplicate", format!("{:?}", l.duplicate));
    put("topology.link (custom)", "reorder", format!("{:?}", l.reorder));
    put("topology.link (custom)", "reorder_delay", time(l.reorder_delay));
    put("topology.link (custom)", "jitter", time(l.jitter));
    put("topology.link (custom)", "burst", "(none: a serialiser at the rate)".into());
}

/// A queue key's discipline and each discipline's own keys, read back from a dumbbell whose
/// bottleneck runs it.
fn queue_disciplines(put: &mut impl FnMut(&'static str, &'static str, String)) {
    use crate::queue::QueueKind;
    put("queue", "kind", "\"drop-tail\"".into());
    let of = |kind: &str| scenario(&with_queue(&format!("kind = \"{kind}\""))).net.links[0].discipline[0].expect("a discipline");
    let QueueKind::Red(r) = of("red") else { unreachable!("red") };
    let t = "queue (red)";
    put(t, "min_th", format!("{:?}", r.min_th));
    put(t, "max_th", format!("{:?}", r.max_th));
    put(t, "max_p", format!("{:?}", r.max_p));
    put(t, "w_q", format!("{:?}", r.w_q));
    put(t, "gentle", r.gentle.to_string());
    put(t, "wait", r.wait.to_string());
    put(t, "byte_mode", r.byte_mode.to_string());
    put(t, "mark_p", format!("{:?}", r.mark_p));
    put(t, "mean_pktsize", r.mean_pktsize_bytes.to_string());
    put(t, "ecn", r.ecn.to_string());
    let QueueKind::CoDel(c) = of("codel") else { unreachable!("codel") };
    for (t, c) in [("queue (codel)", c), ("queue (fq-codel)", c)] {
        put(t, "target", time(c.target));
        put(t, "interval", time(c.interval));
        put(t, "mtu", c.mtu_bytes.to_string());
        put(t, "control_law", format!("{:?}", c.control_law.name()));
        put(t, "ecn", c.ecn.to_string());
    }
    let QueueKind::FqCoDel(f) = of("fq-codel") else { unreachable!("fq-codel") };
    put("queue (fq-codel)", "packets", super::queue::FQ_CODEL_LIMIT_PACKETS.to_string());
    put("queue (fq-codel)", "flows", f.flows.to_string());
    put("queue (fq-codel)", "quantum", f.quantum_bytes.to_string());
    put("queue (fq-codel)", "memory_limit", f.memory_limit_bytes.to_string());
    let QueueKind::Pie(p) = of("pie") else { unreachable!("pie") };
    let t = "queue (pie)";
    put(t, "target", time(p.target));
    put(t, "t_update", time(p.t_update));
    put(t, "alpha", format!("{:?}", p.alpha));
    put(t, "beta", format!("{:?}", p.beta));
    put(t, "max_burst", time(p.max_burst));
    put(t, "derandomize", p.derandomize.to_string());
    put(t, "mark_ecnth", format!("{:?}", p.mark_ecnth));
    put(t, "mean_pktsize", p.mean_pktsize_bytes.to_string());
    put(t, "ecn", p.ecn.to_string());
}

/// The minimal dumbbell with `bottleneck_queue = { queue }`.
fn with_queue(queue: &str) -> String {
    minimal("kind = \"bulk\"", "").replace("[[flow]]", &format!("bottleneck_queue = {{ {queue} }}\n[[flow]]"))
}

fn request_response(put: &mut impl FnMut(&'static str, &'static str, String)) {
    let sc = scenario(&minimal("kind = \"request-response\", request = 1, response = 1", ""));
    let App::RequestResponse { exchange, arrivals } = &sc.flows[0].app else { unreachable!("a request-response app") };
    put("flow.app (request-response)", "pairs", exchange.pairs.to_string());
    put("flow.app (request-response)", "think", time(exchange.think));
    put("flow.app (request-response)", "close", if exchange.closer == Closer::Server { "\"server\"" } else { "\"client\"" }.into());
    put("flow.app (request-response)", "connections", arrivals.connections.to_string());
    put("flow.app (request-response)", "gaps", if arrivals.poisson { "\"exponential\"" } else { "\"fixed\"" }.into());
}

fn web(put: &mut impl FnMut(&'static str, &'static str, String)) {
    let sc = scenario(&minimal("kind = \"web\", rate = 1", ""));
    let App::Web(w) = &sc.flows[0].app else { unreachable!("a web app") };
    put("flow.app (web)", "http", if w.http == Http::V1_0 { "\"1.0\"" } else { "\"1.1\"" }.into());
    put("flow.app (web)", "connections", w.connections.map_or("(unlimited: until the run ends)".into(), |n| n.to_string()));
}

fn rate_limited(put: &mut impl FnMut(&'static str, &'static str, String)) {
    let sc = scenario(&minimal("kind = \"rate-limited\", rate = \"1Mbps\"", ""));
    let App::RateLimited(r) = &sc.flows[0].app else { unreachable!("a rate-limited app") };
    put("flow.app (rate-limited)", "chunk", r.chunk.to_string());
    put("flow.app (rate-limited)", "phases", "(none: the rate throughout)".into());
    put("flow.app (rate-limited)", "padding", r.padding.to_string());
}

fn tcp(put: &mut impl FnMut(&'static str, &'static str, String)) {
    let t = tcp_of("");
    let mss = t.mss_bytes as u64;
    put("tcp", "profile", "(none: each key's own default)".into());
    put("tcp", "mss", mss.to_string());
    put("tcp", "initial_window", t.initial_window_segments.to_string());
    put("tcp", "initial_ssthresh", segments(t.initial_ssthresh_bytes, mss));
    put("tcp", "max_window", segments(t.max_window_bytes, mss));
    put("tcp", "rcv_window", t.rcv_window_bytes.to_string());
    put("tcp", "cc", name(&t.cc, ""));
    put("tcp", "byte_counting", matches!(t.cc, CcKind::NewReno { byte_counting: true }).to_string());
    put("tcp", "startup", name(&t.startup, "-"));
    put("tcp", "recovery", name(&t.recovery, ""));
    put("tcp", "dupthresh", t.dupthresh.to_string());
    put("tcp", "limited_transmit", t.limited_transmit.to_string());
    put("tcp", "nagle", t.nagle.to_string());
    put("tcp", "rack_tlp", t.rack_tlp.to_string());
    put("tcp", "rate_limited_increase", t.rate_limited_increase.to_string());
    put("tcp", "sack_permitted", name(&t.sack_permitted, "-"));
    put("tcp", "sack_pipe", name(&t.sack_pipe, ""));
    put("tcp", "prr", t.prr.to_string());
    put("tcp", "loss_window", if t.loss_window == LossWindow::FlightSize { "\"flight\"".into() } else { name(&t.loss_window, "") });
    put("tcp", "rto_in_recovery", name(&t.rto_in_recovery, "_"));
    put("tcp", "delayed_ack", t.delayed_ack.to_string());
    put("tcp", "ack_every", t.ack_every.to_string());
    put("tcp", "delack_timeout", time(t.delack_timeout));
    put("tcp", "delack_on_tick", t.delack_on_tick.to_string());
    put("tcp", "quickack", (t.quickack == QuickAck::Linux).to_string());
    put("tcp", "ack_first_segment", (t.quickack == QuickAck::FirstSegment).to_string());
    put("tcp", "ecn", t.ecn.to_string());
    put("tcp", "initial_rto", time(t.rto.initial));
    put("tcp", "min_rto", time(t.rto.min));
    put("tcp", "max_rto", time(t.rto.max));
    put("tcp", "clock_granularity", time(t.rto.granularity));
    put("tcp", "rto_rule", name(&t.rto.rule, ""));
    put("tcp", "rto_timing", name(&t.rto_timing, "-"));
    put("tcp", "handshake", t.handshake.to_string());
    put("tcp", "time_wait", time(t.time_wait));
    put("tcp", "restart", name(&t.restart, "-"));
    put(
        "tcp",
        "idle_threshold",
        match t.idle_threshold {
            IdleThreshold::Rto => "\"rto\"".into(),
            IdleThreshold::RtxTimer => "\"rtx-timer\"".into(),
            IdleThreshold::Fixed(d) => time(d),
        },
    );
    put("tcp", "preemptive", t.preemptive.map_or("(off)".into(), |_| "(on)".into()));
    // `TcpConfig::default()` paces only a paced restart; the test below holds this row to it.
    put("tcp", "pacing", "\"none\"".into());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::{self, Deserialize, Deserializer, Visitor};

    /// The keys a `Deserialize` struct accepts, as its derive lists them.
    fn keys<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
        struct Grab(&'static [&'static str]);
        impl<'de> Deserializer<'de> for &mut Grab {
            type Error = de::value::Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
                Err(de::Error::custom("not a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], _: V) -> Result<V::Value, Self::Error> {
                self.0 = fields;
                Err(de::Error::custom("keys taken"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
                unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
            }
        }
        let mut g = Grab(&[]);
        let _ = T::deserialize(&mut g);
        g.0
    }

    /// Every key of `T`, a table written as `table`, has its row in `defaults()`.
    fn assert_every_key_has_a_default<T: for<'de> Deserialize<'de>>(table: &str) {
        let rows = defaults();
        for key in keys::<T>().iter().filter(|k| !super::super::tcp::DEPRECATED.iter().any(|d| d.flat_key == **k)) {
            assert!(rows.iter().any(|r| r.table == table && r.key == *key), "{table}.{key} has no row in defaults()");
        }
    }

    /// Every key of a flow's `tcp` table and of `[trace]` has its row: a key added without
    /// one fails here.
    #[test]
    fn every_tcp_and_trace_key_has_a_default() {
        assert_every_key_has_a_default::<super::super::tcp::TcpFile>("tcp");
        assert_every_key_has_a_default::<super::super::TraceFile>("trace");
        assert_every_key_has_a_default::<super::super::vrate::VrateFile>("vrate");
    }

    /// Writing a default out changes nothing: each row whose value is a TOML value gives the
    /// scenario that leaving it out gives (in the context that picks its part).
    #[test]
    fn writing_a_default_out_changes_nothing() {
        let mut checked = 0;
        for r in defaults().iter().filter(|r| !r.value.starts_with('(')) {
            let line = format!("{} = {}", r.key, r.value);
            let rr = "kind = \"request-response\", request = 1, response = 1";
            let (left_out, written) = match r.table.as_str() {
                "" => (minimal("kind = \"bulk\"", ""), format!("{line}\n{}", minimal("kind = \"bulk\"", ""))),
                "topology" => (minimal("kind = \"bulk\"", ""), minimal("kind = \"bulk\"", "").replace("[[flow]]", &format!("{line}\n[[flow]]"))),
                "flow" => (minimal("kind = \"bulk\"", ""), minimal("kind = \"bulk\"", "").replace("app =", &format!("{line}\napp ="))),
                "flow.app (request-response)" => (minimal(rr, ""), minimal(&format!("{rr}, {line}"), "")),
                "flow.app (web)" => (minimal("kind = \"web\", rate = 1", ""), minimal(&format!("kind = \"web\", rate = 1, {line}"), "")),
                "flow.app (rate-limited)" => {
                    let rl = "kind = \"rate-limited\", rate = \"1Mbps\"";
                    (minimal(rl, ""), minimal(&format!("{rl}, {line}"), ""))
                }
                "trace" => (minimal("kind = \"bulk\"", ""), minimal("kind = \"bulk\"", "") + &format!("[trace]\n{line}\n")),
                "vrate" => (minimal("kind = \"bulk\"", ""), minimal("kind = \"bulk\"", "") + &format!("[vrate]\n{line}\n")),
                "udp" => (minimal("kind = \"bulk\"", "") + UDP, minimal("kind = \"bulk\"", "") + UDP + &line + "\n"),
                "topology (lan)" => (format!("{HEAD}{LAN}"), format!("{HEAD}{LAN}{line}\n")),
                "topology.hosts (lan)" => {
                    (format!("{HEAD}{LAN}"), format!("{HEAD}{LAN}").replacen("rate = \"1Gbps\" }", &format!("rate = \"1Gbps\", {line} }}"), 1))
                }
                "topology.link (custom)" => {
                    (format!("{HEAD}{CUSTOM}"), format!("{HEAD}{CUSTOM}").replace("delay = \"1ms\" }", &format!("delay = \"1ms\", {line} }}")))
                }
                "tcp" => (minimal("kind = \"bulk\"", ""), minimal("kind = \"bulk\"", &line)),
                "queue" => (minimal("kind = \"bulk\"", ""), with_queue(&line)),
                t if t.starts_with("queue (") => {
                    let kind = format!("kind = \"{}\"", &t[7..t.len() - 1]);
                    (with_queue(&kind), with_queue(&format!("{kind}, {line}")))
                }
                "tcp.preemptive" => (minimal("kind = \"bulk\"", "preemptive = {}"), minimal("kind = \"bulk\"", &format!("preemptive = {{ {line} }}"))),
                // A part's table: `tcp.startup (ssthreshless)`.
                t if t.starts_with("tcp.") => {
                    let (family, kind) = t["tcp.".len()..].trim_end_matches(')').split_once(" (").expect("a part's table names its kind");
                    (
                        minimal("kind = \"bulk\"", &format!("{family} = \"{kind}\"")),
                        minimal("kind = \"bulk\"", &format!("{family} = {{ kind = \"{kind}\", {line} }}")),
                    )
                }
                t => panic!("no context for table {t:?}"),
            };
            assert_eq!(scenario(&written), scenario(&left_out), "{}.{} = {}", r.table, r.key, r.value);
            checked += 1;
        }
        assert!(checked > 50, "only {checked} rows checked");
    }
}
