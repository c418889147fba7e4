"""`rampup check` and `rampup inspect`: a scenario read, checked and estimated, not run."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from ..api import inspect as inspect_paths
from .app import stdout_console
from .inputs import check_scenario, estimate_line, read_scenario, scenario_with_sets, set_option, warn_of


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@set_option
def check(file: Path, sets: tuple[str, ...]) -> None:
    """Validate the scenario FILE, with any --set applied, without running it, and estimate what a run takes."""
    text = scenario_with_sets(file, sets)
    click.echo(f"{file}: ok" + (f" with {', '.join(sets)}" if sets else ""))
    click.echo(estimate_line(text))


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
def inspect(file: Path) -> None:
    """Show each flow's path in the scenario FILE without running it: route, bottleneck, RTTs and BDP;
    and estimate what a run takes."""
    text = read_scenario(file)
    warn_of(file, check_scenario(file, text))
    paths = inspect_paths(text)
    table = Table(box=None)
    for column in ("flow", "from → to", "hops", "bottleneck", "propagation RTT", "base RTT", "BDP", "BDP/MSS"):
        table.add_column(column, justify="left" if column == "from → to" else "right")
    for p in paths.to_dict("records"):
        table.add_row(str(p["flow"]), f"{p['from']} → {p['to']}", str(p["hops"]), f"{p['bottleneck_bps'] / 1e6:g} Mb/s",
                      f"{p['propagation_rtt_ns'] / 1e6:.3f} ms", f"{p['base_rtt_ns'] / 1e6:.3f} ms",
                      f"{p['bdp_bytes']:,.0f} B", f"{p['bdp_bytes'] / p['mss_bytes']:,.1f}")
    stdout_console().print(table)
    for p in paths.to_dict("records"):
        if p["web_rate"] == p["web_rate"]:  # not NaN: a web flow
            stdout_console().print(f"flow {p['flow']}: web, {p['web_rate']:.2f} new connections per second")
    click.echo(estimate_line(text))
