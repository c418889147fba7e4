"""`rampup list` and `rampup defaults`: the parts a scenario may pick, and the value of
every key it may leave out."""

from __future__ import annotations

import click
from rich.table import Table

from .. import _engine
from .app import stdout_console


def _registered_parts() -> dict[str, tuple[str, dict[str, str]]]:
    """The TCP's parts chosen by name, family by family, from the engine's registry."""
    families: dict[str, tuple[str, dict[str, str]]] = {}
    for family, key, name, doc in _engine.parts():
        families.setdefault(family, (key, {}))[1][name] = doc
    return families


#: What `rampup list` prints: each family of parts, the scenario key that picks one, and
#: each part with a line on what it is: the TCP's from the engine's registry, the rest here.
#: A test checks the names against the engine's.
PARTS: dict[str, tuple[str, dict[str, str]]] = {
    **_registered_parts(),
    "profile": ("tcp.profile", {
        "linux": "Linux 6.x defaults under the keys given: CUBIC with HyStart, SACK, RACK-TLP, PRR, IW 10 (docs/modern.md)",
        "ns2": "ns-2.35's loss response and Vegas details",
        "bsd44": "4.4BSD-Lite's TCP: IW 1, Reno, its 500 ms and 200 ms timers (RTT in ticks, fixed-point RTO; docs/bsd44.md)",
    }),
    "RTO rule": ("tcp.rto_rule", {
        "rfc6298": "RTO = max(min_rto, SRTT + 4 RTTVAR)",
        "linux": "Linux's estimator: RTO = SRTT + rttvar, rttvar at least min_rto",
        "bsd44": "4.4BSD-Lite's: one segment timed in ticks of clock_granularity, fixed-point srtt/rttvar, RTO on ticks",
        "ns2": "ns-2.35's TcpAgent: one segment timed in ticks of clock_granularity on the agent's clock, BSD's fixed point, min_rto before backoff",
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
