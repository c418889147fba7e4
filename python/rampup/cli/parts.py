"""`rampup list` and `rampup defaults`: the parts a scenario may pick, and the value of
every key it may leave out."""

from __future__ import annotations

import click
from rich.table import Table

from .. import _engine
from .app import stdout_console

#: What `rampup list` prints: each family of parts, the scenario key that picks one, and
#: each part with a line on what it is. A test checks the names against the engine's.
PARTS: dict[str, tuple[str, dict[str, str]]] = {
    "congestion control": ("tcp.cc", {
        "newreno": "RFC 5681 slow start and AIMD congestion avoidance",
        "vegas": "TCP Vegas: delay-based, with its own slow start (vegas_alpha, vegas_beta, vegas_gamma)",
        "cubic": "RFC 9438 CUBIC, as Linux's default (cubic_fast_convergence; docs/modern.md)",
        "hoe": "short for newreno with startup = \"hoe\"",
        "limited-slow-start": "short for newreno with startup = \"limited-slow-start\"",
        "ssthreshless": "short for newreno with startup = \"ssthreshless\"",
    }),
    "startup": ("tcp.startup", {
        "slow-start": "RFC 5681 slow start up to ssthresh",
        "hoe": "Hoe (1996): the initial ssthresh is the BDP from a packet-pair rate estimate",
        "limited-slow-start": "RFC 3742: slower growth above max_ssthresh",
        "ssthreshless": "paper 001: SSthreshless Start, no ssthresh needed (ssthreshless_gamma, ssthreshless_schedule)",
        "hystart": "Linux's HyStart: delay and ACK-train exits from 16 segments",
        "hystart++": "RFC 9406 HyStart++: a rise of the round's least RTT enters Conservative Slow Start",
    }),
    "profile": ("tcp.profile", {
        "linux": "Linux 6.x defaults under the keys given: CUBIC with HyStart, SACK, RACK-TLP, PRR, IW 10 (docs/modern.md)",
        "ns2": "ns-2.35's loss response and Vegas details",
        "bsd44": "4.4BSD-Lite's TCP: IW 1, Reno, its 500 ms and 200 ms timers (RTT in ticks, fixed-point RTO; docs/bsd44.md)",
    }),
    "loss recovery": ("tcp.recovery", {
        "reno": "RFC 5681 fast retransmit and fast recovery",
        "newreno": "RFC 6582: recovery holds until all data outstanding at the loss is acknowledged",
        "sack": "RFC 6675 SACK-based recovery (sack_pipe: rfc6675 or ns-2's sack1)",
    }),
    "restart after idle": ("tcp.restart", {
        "ssr": "RFC 5681 §4.1: cwnd back to the initial window",
        "ssr-linux": "RFC 2861 as Linux: cwnd halved per RTO of idle",
        "nssr": "no restart: keep cwnd",
        "rbp-rate": "paper 000: rate-based pacing at the Vegas rate measured before the idle",
        "rbp-cwnd": "paper 000: pace cwnd over one srtt",
        "cwv": "RFC 2861 (TCP-CWV): an unused window decays, after an idle and while application-limited",
        "new-cwv": "paper 003 / RFC 7661: a rate-limited sender keeps cwnd for the NVP (new_cwv_form, nvp, nvp_loss_response)",
    }),
    "pacing": ("tcp.pacing", {
        "none": "no pacing, but for a paced restart after idle",
        "linux": "Linux's rate, 200 % of cwnd/srtt in slow start and 120 % after, from the 11th segment",
        "quic": "RFC 9002 §7.7: pacing_n x cwnd/srtt",
    }),
    "RTO rule": ("tcp.rto_rule", {
        "rfc6298": "RTO = max(min_rto, SRTT + 4 RTTVAR)",
        "linux": "Linux's estimator: RTO = SRTT + rttvar, rttvar at least min_rto",
        "bsd44": "4.4BSD-Lite's: one segment timed in ticks of clock_granularity, fixed-point srtt/rttvar, RTO on ticks",
    }),
    "RTO timing": ("tcp.rto_timing", {
        "rfc6298": "RTT samples (the handshake's first) set the RTO",
        "ns2-full": "ns-2's FullTcp: no RTT sample sets the RTO, which stays at initial_rto (backed off on timeouts)",
    }),
    "application": ("flow[i].app.kind", {
        "bulk": "the client sends bytes (or unlimited data) on one connection",
        "writes": "the client writes on one connection at set times (a schedule)",
        "request-response": "connections arriving as a Poisson process, each with request/response exchanges",
        "web": "PackMime-HTTP web traffic as ns-2.35 draws it (paper 002; docs/web-workload.md)",
        "rate-limited": "the client writes at a rate that changes by phases: idle, application-limited (paper 003; docs/new-cwv.md)",
    }),
    "topology": ("topology.kind", {
        "dumbbell": "senders s0.., receivers r0.., routers left and right, one bottleneck",
        "lan": "hosts on one switch",
        "custom": "nodes and links as listed",
    }),
}


@click.command(name="list")
def list_parts() -> None:
    """List every congestion control, startup, recovery, restart policy, RTO rule,
    application and topology, with the key that picks it (docs/scenarios.md)."""
    for family, (key, parts) in PARTS.items():
        click.echo(f"{family} ({key}):")
        width = max(len(name) for name in parts)
        for name, what in parts.items():
            click.echo(f"  {name:<{width}}  {what}")


def defaults_markdown() -> str:
    """The defaults table of docs/scenarios.md."""
    def cell(value: str) -> str:  # in words where the default is an absence or follows another key
        return value[1:-1] if value.startswith("(") else f"`{value}`"

    rows = [f"| {table or '(top level)'} | `{key}` | {cell(value)} |" for table, key, value in _engine.defaults()]
    return "\n".join(["| table | key | default |", "| --- | --- | --- |", *rows]) + "\n"


@click.command(name="defaults")
@click.option("--markdown", is_flag=True, help="As the Markdown table of docs/scenarios.md.")
def defaults_command(markdown: bool) -> None:
    """Every scenario key that may be left out, and the value rampup then uses."""
    if markdown:
        click.echo(defaults_markdown(), nl=False)
        return
    table = Table(box=None)
    for column in ("table", "key", "default"):
        table.add_column(column)
    for where, key, value in _engine.defaults():
        table.add_row(where or "(top level)", key, value)
    stdout_console().print(table)
