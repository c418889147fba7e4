"""The commands that run many scenarios through the cache of finished runs: `rampup sweep`
and `rampup reproduce`, and the options they share (where the cache is, and what runs the
jobs: this machine's threads or a Dask cluster, docs/cluster.md)."""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import _engine
from .cli import EXIT_FAILURE, CliError, _check_scenario, _read_scenario, _scenario_name, _toml_value, main
from .folders import OutputError, check_target
from .results import safe_name

F = TypeVar("F", bound=Callable[..., Any])


def run_options(command: F) -> F:
    """--cache, --workers, --backend and --scheduler."""
    options = [
        click.option("--cache", type=click.Path(path_type=Path), default=Path("results/cache"), show_default=True,
                     help="Cache of finished runs, keyed by engine build, scenario and seed: a rerun, or one after an "
                     "interruption, redoes none of them."),
        click.option("--workers", type=click.IntRange(1, 512), help="Parallel runs with --backend threads (default: one per core)."),
        click.option("--backend", type=click.Choice(["threads", "dask"]), default="threads", show_default=True,
                     help="threads: this machine; dask: a Dask cluster (--scheduler, else one of this process's threads)."),
        click.option("--scheduler", metavar="ADDRESS", help="With --backend dask: the cluster's scheduler, e.g. tcp://head:8786 "
                     "(docs/cluster.md). The cache stays on this machine."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@contextlib.contextmanager
def cluster_client(backend: str, scheduler: str | None) -> Iterator[Any]:
    """With --backend dask: a client of the --scheduler's cluster, or of a cluster of this
    process's threads, for the whole command and closed at its end; else None."""
    from .experiments.cluster import DaskError, connect

    if scheduler is not None and backend != "dask":
        raise CliError("--scheduler: goes with --backend dask")
    if backend != "dask":
        yield None
        return
    try:
        client = connect(scheduler)
    except DaskError as e:
        raise CliError(f"--backend dask: {e}") from None
    try:
        yield client
    finally:
        client.close()


@main.command(name="sweep")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--grid", "grids", multiple=True, required=True, metavar="KEY=V1,V2,...",
              help="A scenario key (as --set names it) and its values, comma-separated. Repeatable: every combination runs.")
@click.option("--seeds", type=click.IntRange(1, 100_000), default=1, show_default=True, help="Seeds 1..N at every point.")
@click.option("--table", default="flows", show_default=True, help="The table to collect (docs/results.md).")
@click.option("--out", type=click.Path(path_type=Path), help="Table file, .parquet or .csv (default: results/sweep-<name>.parquet).")
@click.option("--overwrite", is_flag=True, help="Replace the --out file if it exists.")
@run_options
def sweep_command(file: Path, grids: tuple[str, ...], seeds: int, table: str, out: Path | None, overwrite: bool, cache: Path,
                  workers: int | None, backend: str, scheduler: str | None) -> None:
    """Run the scenario FILE at every combination of the --grid values and seeds, and write
    one table: the runs' rows, with a column per grid key and a seed column."""
    from .experiments.cluster import DaskError
    from .sweep import sweep

    text = _read_scenario(file)
    _check_scenario(file, text)
    grid: dict[str, list[object]] = {}
    for item in grids:
        key, eq, values = item.partition("=")
        if not eq or not key.strip() or not values:
            raise CliError(f"--grid: {item!r} is not KEY=V1,V2,... (e.g. topology.bottleneck_queue.packets=10,50,100)")
        grid[key.strip()] = [_toml_value(v) for v in values.split(",")]
    out = out if out is not None else Path("results") / f"sweep-{safe_name(_scenario_name(file, text))}.parquet"
    if out.suffix not in (".parquet", ".csv"):
        raise CliError(f"--out {out}: give a file ending in .parquet or .csv")
    if out.exists() and not overwrite:
        raise CliError(f"--out {out}: exists; pass --overwrite to replace it")
    try:
        with cluster_client(backend, scheduler) as client:
            df = sweep(text, grid, seeds=range(1, seeds + 1), table=table, cache=cache, workers=workers, backend=backend,
                       client=client)
    except _engine.ScenarioError as e:
        raise CliError(f"{file}: {e}") from None
    except DaskError as e:
        raise CliError(f"--backend dask: {e}") from None
    except ValueError as e:
        raise CliError(str(e)) from None
    df.columns = [str(c) for c in df.columns]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.tmp")  # written whole, then moved into place
        if out.suffix == ".csv":
            df.to_csv(tmp, index=False)
        else:
            df.to_parquet(tmp, index=False)
        os.replace(tmp, out)
    except OSError as e:
        raise CliError(f"writing {out}: {e.strerror or e}", EXIT_FAILURE) from None
    runs = seeds * math.prod(len(v) for v in grid.values())
    click.echo(f"sweep: {runs} runs, {len(df):,} rows of {table}: {out}")


@main.command()
@click.argument("paper", required=False)
@click.option("--list", "list_papers", is_flag=True, help="Name the papers and what each reproduction runs, and stop.")
@click.option("--out", type=click.Path(path_type=Path),
              help="Report folder (default: results/reproduce/PAPER/); an earlier report there is replaced "
              "only if rampup wrote it and it is unchanged.")
@click.option("--overwrite", is_flag=True, help="Replace the --out folder even if rampup did not write it.")
@click.option("--seeds", type=click.IntRange(1, 1000), help="Seeds per point (default: the paper's).")
@run_options
@click.option("--quick", is_flag=True, help="Fewer points and seeds: a smoke test of the pipeline.")
def reproduce(paper: str | None, list_papers: bool, out: Path | None, overwrite: bool, cache: Path, seeds: int | None,
              workers: int | None, backend: str, scheduler: str | None, quick: bool) -> None:
    """Re-run every experiment of PAPER and write a report with figures and claim verdicts.

    PAPER is rbp, ssthreshless, preemptive, newcwv or vrate (papers 000-004; --list says what
    each runs), or all: every one of them into one folder with an index page.
    """
    from .experiments import PAPERS, reproduce_into
    from .experiments.cluster import DaskError
    from .experiments.site import listing, reproduce_all

    if list_papers:
        return click.echo("\n".join(listing()))
    if paper is None:
        raise CliError(f"paper: give one of {', '.join(PAPERS)} or all (rampup reproduce --list says what each runs)")
    if paper != "all" and paper not in PAPERS:
        raise CliError(f"paper: {paper!r} is not one of {', '.join(sorted(PAPERS))} or all")
    out = out if out is not None else Path("results") / "reproduce" / paper
    try:
        check_target(out, overwrite)  # before any run, not after
    except OutputError as e:
        raise CliError(f"--out {e}") from None
    try:
        cache.mkdir(parents=True, exist_ok=True)  # before any run, as --out is checked
    except OSError as e:
        raise CliError(f"--cache {cache}: {e.strerror or e}; give a folder rampup may write in") from None
    console = Console(stderr=True)
    start = time.perf_counter()
    invoked_as = shlex.join(["rampup", *sys.argv[1:]])
    with contextlib.ExitStack() as stack, Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), console=console, transient=True, disable=not console.is_terminal) as bar:  # no blank lines in a log
        task = bar.add_task(f"reproducing {paper}", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        def started(name: str) -> None:
            bar.update(task, description=f"reproducing {name}", completed=0, total=None)
            if not console.is_terminal:
                click.echo(f"reproducing {name} ...", err=True)

        try:
            client = stack.enter_context(cluster_client(backend, scheduler))
            settings = dict(cache=cache, seeds=seeds, workers=workers, backend=backend, client=client, quick=quick,
                            progress=progress)
            if paper == "all":
                md, page, done = reproduce_all(out, overwrite, started=started, **settings)
                runs, cached = sum(d.runs for d in done), sum(d.cached for d in done)
                click.echo("\n".join(f"{d.paper}: {d.runs} runs ({d.cached} cached) in {d.seconds:.1f} s" for d in done))
            else:
                md, page, ctx = reproduce_into(paper, out, overwrite, invoked_as=invoked_as, **settings)
                runs, cached = ctx.runs, ctx.cached
        except OutputError as e:
            raise CliError(f"--out {e}") from None
        except DaskError as e:
            raise CliError(f"--backend dask: {e}") from None
        except OSError as e:
            raise CliError(f"writing {out}: {e.strerror or e}", EXIT_FAILURE) from None
    click.echo(f"report: {page} ({md.name}); {runs} runs ({cached} cached) in {time.perf_counter() - start:.1f} s")
