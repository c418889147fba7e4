"""`rampup bench`: the benchmark dumbbell (or paper 002's web case) timed, beside ns-2."""

from __future__ import annotations

from typing import Any

import click
from rich import box
from rich.table import Table

from ..bench import machine, ns2_missing, run_bench, run_web_bench
from .app import EXIT_FAILURE, CliError, stdout_console

#: `rampup bench` times ns-2 up to this many flows: beyond, it needs minutes and gigabytes.
NS2_MAX_FLOWS = 1000


def _bench_web(repeat: int, duration: float, ns2: bool) -> None:
    missing = ns2_missing() if ns2 else None
    console = stdout_console()
    if missing:
        console.print(f"ns-2 skipped: {missing}; timing rampup only")
    try:
        row = run_web_bench(repeat, duration, ns2 and missing is None)
    except RuntimeError as e:
        raise CliError(str(e), EXIT_FAILURE) from None
    table = Table(box=box.SIMPLE_HEAD)
    cols = ["", "connections completed", "wall s", "connections / wall s", "peak MB"]
    for c in cols:
        table.add_column(c, justify="right")
    table.add_row("rampup", str(row["packets"]), f"{row['rampup_wall_s']:.2f}", f"{row['rampup_pkts_per_s']:,.0f}",
                  f"{row['rampup_peak_mb']:.0f}")
    if "ns2_packets" in row:
        table.add_row("ns-2", str(row["ns2_packets"]), f"{row['ns2_wall_s']:.2f}", f"{row['ns2_pkts_per_s']:,.0f}",
                      f"{row['ns2_peak_mb']:.0f}")
        table.add_row("ratio", "" if row["same_work"] else "differs by > 5%", "", f"{row['speedup']:.1f}x",
                      f"{row['rampup_peak_mb'] / row['ns2_peak_mb']:.2f}")
    console.print(table)
    console.print(f"medians of {repeat} run(s); paper 002's base case, {row['rate']:.2f} new connections/s, {duration:g} "
                  "simulated seconds; whole processes, set-up included; one thread (web runs are not split)")
    console.print(f"machine: {machine()}", soft_wrap=True)


def _int_list(value: str) -> list[int]:
    try:
        ns = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise CliError(f"--flows: {value!r} is not a comma-separated list of whole numbers") from None
    if not ns or any(n < 1 for n in ns):
        raise CliError(f"--flows: {value!r}: each N must be at least 1")
    return ns


@click.command()
@click.option("--flows", default="1,10,100,1000,10000", show_default=True, help="Comma-separated flow counts N.")
@click.option("--large", is_flag=True, help="Also N = 100,000.")
@click.option("--repeat", type=click.IntRange(1, 50), default=3, show_default=True, help="Runs per N (medians).")
@click.option("--duration", type=click.FloatRange(0.001, 3600), default=60.0, show_default=True, help="Simulated seconds.")
@click.option("--ns2/--no-ns2", default=True, show_default=True, help="Also time ns-2 when `ns` is on the PATH.")
@click.option("--web", is_flag=True, help="Time short web connections instead: paper 002's base case (PackMime-HTTP at "
              "50% of 5 Mb/s, Full-TCP Reno), completed connections per wall second; --duration 300 unless given.")
def bench(flows: str, large: bool, repeat: int, duration: float, ns2: bool, web: bool) -> None:
    """Time the benchmark dumbbell: data packets delivered per wall second and peak memory."""
    if web:
        source = click.get_current_context().get_parameter_source("duration")
        _bench_web(repeat, 300.0 if source == click.core.ParameterSource.DEFAULT else duration, ns2)
        return

    ns = _int_list(flows) + ([100_000] if large else [])
    missing = ns2_missing() if ns2 else None
    with_ns2 = ns2 and missing is None
    console = stdout_console()
    if missing:
        console.print(f"ns-2 skipped: {missing}; timing rampup only")
    if with_ns2 and max(ns) > NS2_MAX_FLOWS:
        console.print(f"ns-2 skipped above N = {NS2_MAX_FLOWS:,}: it needs minutes and gigabytes there")
    table = Table(box=box.SIMPLE_HEAD)
    cols = ["N", "packets", "rampup Mpkt/s", "CPU/wall", "MB"]
    if with_ns2:
        cols += ["ns-2 Mpkt/s", "MB", "ratio", "same work"]
    for c in cols:
        table.add_column(c, justify="right")

    def report(row: dict[str, Any]) -> None:
        cells = [str(row["flows"]), str(row["packets"]), f"{row['rampup_pkts_per_s'] / 1e6:.3f}",
                 f"{row['rampup_cpu_s'] / row['rampup_wall_s']:.2f}", f"{row['rampup_peak_mb']:.0f}"]
        if with_ns2:
            if "ns2_packets" in row:
                cells += [f"{row['ns2_pkts_per_s'] / 1e6:.3f}", f"{row['ns2_peak_mb']:.0f}", f"{row['speedup']:.1f}x",
                          "yes" if row["same_work"] else f"NO ({row['ns2_packets']})"]
            else:
                cells += ["-"] * 4
        table.add_row(*cells)
        console.print(f"N = {row['flows']:,}: {row['rampup_pkts_per_s'] / 1e6:.2f} M pkt/s")

    try:
        for n in ns:
            run_bench([n], repeat, duration, with_ns2 and n <= NS2_MAX_FLOWS, report)
    except RuntimeError as e:
        raise CliError(str(e), EXIT_FAILURE) from None
    console.print(table)
    console.print(f"medians of {repeat} run(s) per N; {duration:g} simulated seconds; whole processes, set-up included")
    console.print("rampup splits a run over two threads where it can (RAMPUP_THREADS=1: one); "
                  "CPU/wall is its CPU time over wall time")
    console.print(f"machine: {machine()}", soft_wrap=True)
