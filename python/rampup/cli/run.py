"""`rampup run`: one scenario into its results folder, and the summary it prints."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .. import _engine
from ..api import memory_budget_bytes, run_to_folder
from ..folders import OutputError, check_target
from ..results import Result, safe_name
from .app import EXIT_FAILURE, CliError, stdout_console
from .inputs import scenario_name, scenario_with_sets, set_option, set_pairs
from .progress import with_progress

#: Flows listed in the summary before it says "... and N more".
SUMMARY_ROWS = 20


#: Flow columns in the summary, with their headings, when the engine has them;
#: the flows table in the results folder has them all.
SUMMARY_COLUMNS = {
    "flow": "flow",
    "from": "from",
    "to": "to",
    "cc": "cc",
    "bytes_acked": "bytes\nacked",
    "goodput_bps": "goodput\nMb/s",
    "retransmits": "retrans-\nmits",
    "fast_retransmits": "fast\nretx",
    "timeouts": "time-\nouts",
    "drops": "drops",
}


def _cell(value: Any, column: str) -> Text:
    """One cell of the flows table (Any: a numpy scalar, a bool or a str, as pandas gives it)."""
    if column.endswith("_bps"):
        return Text(f"{float(value) / 1e6:.3f}")
    if isinstance(value, bool):
        text = str(value).lower()
    elif isinstance(value, int) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu"):
        text = f"{int(value):,}"
    elif isinstance(value, float) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "f"):
        text = f"{float(value):.4g}"
    else:
        text = str(value)
    return Text(text)


def _headline(result: Result) -> Text:
    # Only numbers of the result (the same on every machine) and the wall time, named as
    # such; the engine's event count depends on how the run was split over threads.
    m = result.manifest
    delivered = int(result.tables["packet_totals"]["delivered"].iloc[0]) if "packet_totals" in result.tables else None
    packets = f", {delivered:,} packets delivered" if delivered is not None else ""
    return Text(
        f"{m['name'] or 'scenario'}: seed {m['seed']}, {m['sim_end_s']:g} s simulated{packets} "
        f"(wall time {m['wall_time_s']:.2f} s)"
    )


def _summary(result: Result) -> Table:
    flows = result.flows
    columns = [c for c in SUMMARY_COLUMNS if c in flows.columns] or list(flows.columns)
    rows = [
        [_cell(v, c) for v, c in zip(row, columns, strict=True)]
        for row in flows[columns].head(SUMMARY_ROWS).itertuples(index=False)
    ]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, collapse_padding=True)
    for i, col in enumerate(columns):
        heading = SUMMARY_COLUMNS.get(col, str(col))
        width = max([len(line) for line in heading.splitlines()] + [len(row[i]) for row in rows])
        numeric = flows[col].dtype.kind in "iuf"
        table.add_column(heading, justify="right" if numeric else "left", no_wrap=True, min_width=width)
    for row in rows:
        table.add_row(*row)
    if len(flows) > SUMMARY_ROWS:
        table.caption = f"... and {len(flows) - SUMMARY_ROWS} more flows (see the flows table)"
    elif flows.empty:
        table.caption = "no flows"
    return table


def _connections_line(result: Result) -> Text | None:
    """One line on the connections, when some flow opened more than one."""
    conns = result.tables.get("connections")
    if conns is None or len(conns) <= len(result.flows):
        return None
    closed = int(conns["close_ns"].notna().sum())
    # From the opening to the last byte the client got: a request/response's completion time.
    done = (conns["last_byte_down_ns"] - conns["open_ns"]).dropna() / 1e6
    times = f"; open to last byte down: median {done.median():.4g} ms, 99th percentile {done.quantile(0.99):.4g} ms" if len(done) else ""
    return Text(f"{len(conns):,} connections, {closed:,} closed by the end{times} (see the connections table)")


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="Seed (overrides the scenario's `seed`).")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Results folder (default: results/<scenario name>/); an earlier results folder there is replaced "
    "only if rampup wrote it and it is unchanged.",
)
@click.option("--overwrite", is_flag=True, help="Replace the --out folder even if rampup did not write it.")
@click.option("--csv", "csv_", is_flag=True, help="Write tables as CSV instead of Parquet.")
@click.option("--plot/--no-plot", default=False, show_default=True, help="Also write cwnd.png and seq.png.")
@click.option("--memory-budget", "memory_budget", metavar="SIZE", default=None,
              help="Stop the run (exit 2, one line) once the engine's memory passes SIZE, e.g. 2GiB or 500MB "
              "(`rampup check` estimates it).")
@set_option
def run(file: Path, seed: int | None, out: Path | None, overwrite: bool, csv_: bool, plot: bool, memory_budget: str | None,
        sets: tuple[str, ...]) -> None:
    """Run the scenario FILE and write its results folder."""
    try:
        budget = memory_budget_bytes(memory_budget, key="--memory-budget")
    except ValueError as e:
        raise CliError(str(e)) from None
    text = scenario_with_sets(file, sets)
    name = scenario_name(file, text)
    out = out if out is not None else Path("results") / safe_name(name)
    try:
        check_target(out, overwrite)
    except OutputError as e:
        raise CliError(f"--out {e}") from None

    def plots(result: Result) -> dict[str, bytes]:
        from ..plots import render_plots, settings_line  # matplotlib is slow to import; only when asked

        # The name says which scenario; the subtitle what --set changed in it.
        return render_plots(result.timeseries, name, settings_line(set_pairs(sets)))

    def work() -> Result:
        fmt = "csv" if csv_ else "parquet"
        return run_to_folder(text, out, seed=seed, fmt=fmt, overwrite=overwrite, progress=progress,
                             extra_files=plots if plot else None, memory_budget=budget)

    progress = _engine.Progress()
    err = Console(stderr=True)
    try:
        result = with_progress(work, err, f"running {name}", lambda: progress.fraction)
    except _engine.ScenarioError as e:
        raise CliError(f"{file}: {e}") from None
    except OutputError as e:
        raise CliError(f"--out {e}") from None
    except OSError as e:
        raise CliError(f"writing {out}: {e.strerror or e}", EXIT_FAILURE) from None
    # An engine panic (RuntimeError) goes on to `main`: an internal fault, to be reported.

    console = stdout_console()
    console.print(_headline(result))
    console.print(_summary(result))
    if (line := _connections_line(result)) is not None:
        console.print(line)
    console.print(Text(f"results: {out}{os.sep}"))
