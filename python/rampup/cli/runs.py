"""The commands that run many scenarios through the cache of finished runs: `rampup sweep`
and `rampup reproduce`, and the options they share (where the cache is, and what runs the
jobs: this machine's threads or a Dask cluster, docs/cluster.md)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .. import _engine
from ..cache import run_jobs
from ..cluster import DaskError, connect
from ..folders import FULL_DISK, OutputError, check_target
from ..results import safe_name
from ..sweep import collect, kept, plan
from .app import EXIT_FAILURE, EXIT_INTERRUPTED, CliError, full_disk, invoked_as
from .inputs import check_scenario, read_scenario, scenario_name, toml_value

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


@click.command(name="sweep")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--grid", "grids", multiple=True, required=True, metavar="KEY=V1,V2,...",
              help="A scenario key (as --set names it) and its values, comma-separated. Repeatable: every combination runs.")
@click.option("--seeds", type=click.IntRange(1, 100_000), default=1, show_default=True,
              help="Seeds 1..N at every point (seeds count from 1, as a scenario's default seed and the API's seeds=N).")
@click.option("--table", default="flows", show_default=True, help="The table to collect (docs/results.md).")
@click.option("--out", type=click.Path(path_type=Path), help="Table file, .parquet or .csv (default: results/sweep-<name>.parquet).")
@click.option("--overwrite", is_flag=True, help="Replace the --out file if it exists.")
@run_options
def sweep_command(file: Path, grids: tuple[str, ...], seeds: int, table: str, out: Path | None, overwrite: bool, cache: Path,
                  workers: int | None, backend: str, scheduler: str | None) -> None:
    """Run the scenario FILE at every combination of the --grid values and seeds, and write
    one table: the runs' rows, with a column per grid key and a seed column.

    On a terminal a bar shows the runs done, those taken from the cache and the rate; the
    last line sums them up. Ctrl-C keeps every finished run in the cache: the same command
    resumes."""
    text = read_scenario(file)
    check_scenario(file, text)
    grid: dict[str, list[object]] = {}
    for item in grids:
        key, eq, values = item.partition("=")
        if not eq or not key.strip() or not values:
            raise CliError(f"--grid: {item!r} is not KEY=V1,V2,... (e.g. topology.bottleneck_queue.packets=10,50,100)")
        grid[key.strip()] = [toml_value(v) for v in values.split(",")]
    out = out if out is not None else Path("results") / f"sweep-{safe_name(scenario_name(file, text))}.parquet"
    if out.suffix not in (".parquet", ".csv"):
        raise CliError(f"--out {out}: give a file ending in .parquet or .csv")
    if out.exists() and not overwrite:
        raise CliError(f"--out {out}: exists; pass --overwrite to replace it")
    try:
        jobs = plan(text, grid, seeds, table)
    except _engine.ScenarioError as e:
        raise CliError(f"{file}: {e}") from None
    except ValueError as e:
        raise CliError(str(e)) from None
    try:
        cache.mkdir(parents=True, exist_ok=True)  # before any run, as --out is checked
    except OSError as e:
        raise CliError(f"--cache {cache}: {e.strerror or e}; give a folder rampup may write in") from None
    tally = _Tally(len(jobs))

    def stopped(why: str) -> str:
        return (f"{why}; {kept(jobs, cache)} of {len(jobs)} runs are kept in the cache {cache}, "
                f"and the same command resumes from there: {invoked_as()}")

    try:
        with cluster_client(backend, scheduler) as client, _sweep_bar(tally) as shown:
            results = run_jobs(jobs, cache, workers=workers, backend=backend, client=client, progress=shown)
    except DaskError as e:
        raise CliError(f"--backend dask: {e}") from None
    except KeyboardInterrupt:
        raise CliError(stopped("interrupted"), EXIT_INTERRUPTED) from None
    except OSError as e:
        why = full_disk(e, f"--cache {cache}") if e.errno in FULL_DISK else f"writing the cache {cache}: {e.strerror or e}"
        raise CliError(stopped(why), EXIT_FAILURE) from None
    df = collect(jobs, results, table)
    df.columns = [str(c) for c in df.columns]
    _write_table(df, out, f"; the {len(jobs)} runs are kept in the cache {cache}, so the same command only writes the table")
    click.echo(f"sweep: {len(jobs)} runs ({tally.summary()}), {len(df):,} rows of {table}: {out}")


def _write_table(df: Any, out: Path, after_a_full_disk: str) -> None:
    """Write ``df`` to ``out`` whole or not at all: into a temporary file beside it, then
    moved into place; the temporary file goes whatever stops the writing."""
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix == ".csv":
            df.to_csv(tmp, index=False)
        else:
            df.to_parquet(tmp, index=False)
        os.replace(tmp, out)
    except OSError as e:
        if e.errno in FULL_DISK:
            raise CliError(full_disk(e, f"--out {out}") + after_a_full_disk, EXIT_FAILURE) from None
        raise CliError(f"writing {out}: {e.strerror or e}", EXIT_FAILURE) from None
    finally:
        tmp.unlink(missing_ok=True)


class _Tally:
    """A sweep's runs as they finish: the first report (`run_jobs` makes it before running
    anything) is of those taken from the cache, the rest are run."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.cached: int | None = None
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if self.cached is None:
            self.cached, self.start = done, time.perf_counter()
        self.done, self.total = done, total

    @property
    def ran(self) -> int:
        return self.done - (self.cached or 0)

    def rate(self) -> str:
        seconds = time.perf_counter() - self.start
        return f"{self.ran / seconds:,.1f} runs/s" if self.ran and seconds > 0 else ""

    def summary(self) -> str:
        ran = f", {self.ran} run in {time.perf_counter() - self.start:.1f} s" if self.ran else ""
        return f"{self.cached or 0} cached{ran}" + (f", {self.rate()}" if self.ran else "")


@contextlib.contextmanager
def _sweep_bar(tally: _Tally) -> Iterator[Callable[[int, int], None]]:
    """The progress callback: it counts, and on a terminal redraws a bar of the runs done,
    those from the cache and the rate (nothing to redraw in a pipe or a log)."""
    console = Console(stderr=True)
    columns = (TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[cached]} cached"),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("runs", total=tally.total, cached=0, rate="")

        def shown(done: int, total: int) -> None:
            first = tally.cached is None
            tally(done, total)
            if first:  # the cached runs are no sample of the speed, which the time left comes from
                bar.reset(task, total=total, completed=done, cached=done, rate="")
            bar.update(task, completed=done, total=total, cached=tally.cached, rate=tally.rate())

        yield shown


@click.command()
@click.argument("paper", required=False)
@click.option("--list", "list_papers", is_flag=True, help="Name the papers and what each reproduction runs, and stop.")
@click.option("--out", type=click.Path(path_type=Path),
              help="Report folder (default: results/reproduce/PAPER/); an earlier report there is replaced "
              "only if rampup wrote it and it is unchanged.")
@click.option("--overwrite", is_flag=True, help="Replace the --out folder even if rampup did not write it.")
@click.option("--seeds", type=click.IntRange(1, 1000), help="Seeds per point (default: the paper's).")
@run_options
@click.option("--quick", is_flag=True, help="Fewer points and seeds: a smoke test of the pipeline.")
@click.option("--with", "with_parts", multiple=True, metavar="KIND=module.path:Class[,key=value...]",
              help="Your Python part (docs/python-parts.md) as one more scheme beside the paper's of its family, in every "
              "table, figure and then-and-now row, with its own verdicts: KIND is startup, cc or restart, the keys go "
              "to its constructor, e.g. startup=examples.rtt_growth:RttGrowthExit,growth_pct=10. Repeatable.")
def reproduce(paper: str | None, list_papers: bool, out: Path | None, overwrite: bool, cache: Path, seeds: int | None,
              workers: int | None, backend: str, scheduler: str | None, quick: bool, with_parts: tuple[str, ...]) -> None:
    """Re-run every experiment of PAPER and write a report with figures and claim verdicts.

    PAPER is rbp, ssthreshless, preemptive, newcwv or vrate (papers 000-004; --list says what
    each runs), or all: every one of them into one folder with an index page.

    With --with, your Python part runs as one more scheme beside the paper's part of its
    family, on the same points and seeds: a startup beside SSthreshless Start (ssthreshless),
    a restart policy beside RBP (rbp) and new-CWV (newcwv), a congestion controller beside
    Vegas (ssthreshless, rbp); with all, in each of those papers. The report gives its
    verdicts on the claims about that part (docs/python-parts.md). Its runs are cached by the
    class's code: an edited class runs again.
    """
    # The reproductions draw figures: matplotlib is slow to import, so only this command does.
    from ..experiments import PAPERS, reproduce_into
    from ..experiments.site import listing, reproduce_all
    from ..experiments.yours import WithError

    if list_papers:
        return click.echo("\n".join(listing()))
    if paper is None:
        raise CliError(f"paper: give one of {', '.join(PAPERS)} or all (rampup reproduce --list says what each runs)")
    if paper != "all" and paper not in PAPERS:
        raise CliError(f"paper: {paper!r} is not one of {', '.join(sorted(PAPERS))} or all")
    parts = _parts(paper, with_parts)
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
    with contextlib.ExitStack() as stack, Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), console=console, transient=True, disable=not console.is_terminal) as bar:  # no blank lines in a log
        task = bar.add_task(f"reproducing {paper}", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        def stopped(why: str) -> str:
            # No count: the experiments report progress per paper, not the runs kept in all.
            return (f"{why}; every run finished so far is kept in the cache {cache}, "
                    f"and the same command resumes from there: {invoked_as()}")

        def started(name: str) -> None:
            bar.update(task, description=f"reproducing {name}", completed=0, total=None)
            if not console.is_terminal:
                click.echo(f"reproducing {name} ...", err=True)

        try:
            client = stack.enter_context(cluster_client(backend, scheduler))
            settings = dict(cache=cache, seeds=seeds, workers=workers, backend=backend, client=client, quick=quick,
                            progress=progress, **({"parts": parts} if parts else {}))
            if paper == "all":
                md, page, done = reproduce_all(out, overwrite, started=started, **settings)
                runs, cached = sum(d.runs for d in done), sum(d.cached for d in done)
                click.echo("\n".join(f"{d.paper}: {d.runs} runs ({d.cached} cached) in {d.seconds:.1f} s" for d in done))
            else:
                md, page, ctx = reproduce_into(paper, out, overwrite, invoked_as=invoked_as(), **settings)
                runs, cached = ctx.runs, ctx.cached
        except OutputError as e:
            raise CliError(f"--out {e}") from None
        except WithError as e:
            raise CliError(str(e)) from None
        except DaskError as e:
            raise CliError(f"--backend dask: {e}") from None
        except KeyboardInterrupt:
            raise CliError(stopped("interrupted"), EXIT_INTERRUPTED) from None
        except OSError as e:
            if e.errno in FULL_DISK:
                raise CliError(stopped(full_disk(e)), EXIT_FAILURE) from None
            raise CliError(f"writing {out}: {e.strerror or e}", EXIT_FAILURE) from None
    click.echo(f"report: {page} ({md.name}); {runs} runs ({cached} cached) in {time.perf_counter() - start:.1f} s")


def _parts(paper: str, given: tuple[str, ...]) -> tuple[Any, ...]:
    """The --with parts, each imported and checked, and checked against the paper's families
    before any run (a `CliError` naming the flag otherwise)."""
    from ..experiments import PAPERS, families
    from ..experiments.yours import WithError, parse

    try:
        parts = tuple(parse(text) for text in given)
    except WithError as e:
        raise CliError(str(e)) from None
    for part in parts:
        where = [p for p in PAPERS if part.kind in families(p)]
        if paper != "all" and paper not in where:
            raise CliError(f"--with {part.given}: paper {paper} runs no {part.kind} of its own for a {part.kind} of yours "
                           f"to stand beside; a {part.kind} goes with {', '.join(where) or 'no paper yet'}")
    labels = [p.label for p in parts]
    if len(set(labels)) < len(labels):
        raise CliError(f"--with: two parts are named {max(labels, key=labels.count)!r}; give each class its own name")
    return parts
