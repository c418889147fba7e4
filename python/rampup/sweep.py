"""`rampup.sweep`: one scenario run over a grid of parameter values and several seeds, in
parallel, cached, and collected into one DataFrame.

>>> df = rampup.sweep("scenarios/demo.toml",
...                   {"topology.bottleneck_queue.packets": [10, 50, 100],
...                    "flow[0].tcp.recovery": ["newreno", "sack"]},
...                   seeds=5)
>>> df.groupby(["topology.bottleneck_queue.packets", "flow[0].tcp.recovery"]).goodput_bps.mean()

A key is a path into the scenario: dotted table names, with ``[i]`` to pick an element of
an array of tables (``flow[0]`` is the first ``[[flow]]``). Runs go through the same cache
as `rampup reproduce` (keyed by engine build, scenario text and seed), so a repeated or
interrupted sweep does only the runs it has not done.

Seeds count from 1 everywhere: a scenario's ``seed`` is 1 unless it says otherwise, the
reproductions run seeds 1..N, ``rampup sweep --seeds N`` runs 1..N, and so does
``seeds=N`` here. An iterable of seeds (``seeds=[7, 8]``, ``seeds=range(5)``: 0..4) runs
exactly those.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import numbers
import re
import sys
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import _toml
from .api import Scenario, check_seed, engine_check, scenario_text
from .cache import Job, run_jobs
from .cache_entry import ENTRY
from .results import ENGINE_TABLES

__all__ = ["collect", "kept", "plan", "sweep", "with_values"]

_STEP = re.compile(r"([A-Za-z0-9_-]+)(?:\[(\d+)\])?$")


def _set(doc: dict[str, Any], path: str, value: Any, label: str) -> None:
    """Set `path` (e.g. ``flow[0].tcp.cc``) in `doc`, creating tables on the way; errors
    start with `label` ("sweep key", "--set")."""
    steps = path.split(".")
    node: Any = doc
    for n, step in enumerate(steps):
        m = _STEP.match(step)
        if not m:
            raise ValueError(f"{label} {path!r}: {step!r} is not a key or key[index]")
        key, index = m.group(1), m.group(2)
        last = n == len(steps) - 1
        if not isinstance(node, dict):
            raise ValueError(f"{label} {path!r}: {'.'.join(steps[:n])} is a value, not a table with keys")
        if index is None:
            if isinstance(node.get(key), list) and not last:
                raise ValueError(f"{label} {path!r}: {key} is a list of tables; pick one, like {key}[0]")
            if last:
                node[key] = value
            else:
                node = node.setdefault(key, {})
            continue
        items = node.get(key)
        if not isinstance(items, list) or int(index) >= len(items):
            raise ValueError(f"{label} {path!r}: the scenario has no {key}[{index}]")
        if last:
            items[int(index)] = value
        else:
            node = items[int(index)]


def with_values(base: Mapping[str, Any], point: Mapping[str, Any], verb: str = "sweep") -> str:
    """The TOML text of the scenario `base` (parsed) with each key path of `point` set to
    its value. A ValueError in one line for a path that does not fit the scenario, or that
    a more specific key of the scenario overrides (setting it would change nothing there).
    `verb` ("sweep" or "set") words the errors as the caller's."""
    label = "sweep key" if verb == "sweep" else "--set"
    doc = copy.deepcopy(dict(base))
    for k, v in point.items():
        _set(doc, k, v, label)
    for k in point:
        if (by := _shadowed_by(doc, k)) is not None:
            raise ValueError(f"{label} {k!r}: the scenario's {by} overrides it, so the {verb} would not change it there; "
                             f"{verb} {by!r} instead, or remove {by} from the scenario")
    return _toml.dumps(doc)


def _shadowed_by(doc: Mapping[str, Any], path: str) -> str | None:
    """The more specific key in `doc` that overrides `path` where it applies, if any: a
    flow's own ``[flow.tcp]`` key overrides the ``[tcp]`` defaults, and the dumbbell's
    ``left_``/``right_access_*`` override ``access_*``."""
    if m := re.fullmatch(r"tcp\.([A-Za-z0-9_-]+)", path):
        for i, flow in enumerate(doc.get("flow", [])):
            if m.group(1) in (flow.get("tcp") or {}):
                return f"flow[{i}].tcp.{m.group(1)}"
    if m := re.fullmatch(r"topology\.access_(rate|delay)", path):
        for side in ("left", "right"):
            if f"{side}_access_{m.group(1)}" in doc.get("topology", {}):
                return f"topology.{side}_access_{m.group(1)}"
    return None


def sweep(
    scenario: Scenario,
    grid: Mapping[str, Sequence[Any]],
    seeds: int | Iterable[int] = (1,),
    *,
    table: str = "flows",
    cache: str | Path = "results/cache",
    workers: int | None = None,
    backend: str = "threads",
    client: Any = None,
    progress: Callable[[int, int], None] | bool | None = None,
) -> pd.DataFrame:
    """Run `scenario` at every combination of the `grid` values and every seed.

    ``seeds`` is a number N, for seeds 1..N as ``rampup sweep --seeds N`` runs, or the
    seeds themselves. Returns `table` ("flows", "transfers", "links", "udp" ...) of every
    run, one block per run, with a column per grid key and a ``seed`` column. Raises
    `ScenarioError` at the first invalid combination, and ValueError for a grid key that a
    more specific key of the scenario overrides (so that sweeping it would change nothing
    there), before anything runs. ``backend="dask"`` runs on the cluster of ``client`` (a
    ``dask.distributed.Client``; default: the current one, else this process's threads),
    with the cache kept here (docs/cluster.md). ``progress`` is called with (runs done, runs in all) as runs finish;
    by default a progress bar shows on stderr when it is a terminal or in a notebook
    (``progress=False``: none).
    """
    jobs = plan(scenario, grid, seeds, table)
    with _progress_shown(progress) as shown:
        results = run_jobs(jobs, Path(cache), workers=workers, backend=backend, client=client, progress=shown)
    return collect(jobs, results, table)


def plan(scenario: Scenario, grid: Mapping[str, Sequence[Any]], seeds: int | Iterable[int], table: str) -> list[Job]:
    """The sweep's runs, each scenario checked: what `sweep` runs, for a caller that runs
    them itself (`rampup sweep`, to count what the cache holds)."""
    base = tomllib.loads(scenario_text(scenario))
    if table not in ENGINE_TABLES:
        raise ValueError(f"table: {table!r} is not a table a run writes ({', '.join(ENGINE_TABLES)})")
    keys = list(grid)
    if "seed" in keys:  # the scenario's seed is what `seeds` sets for each run
        raise ValueError("sweep key 'seed': a run's seed is the sweep's seeds axis, which sets it in every run; "
                         "give the seeds there (--seeds N on the command line, seeds=[...] in the API)")
    if isinstance(seeds, bool) or not isinstance(seeds, (numbers.Integral, Iterable)):
        raise ValueError(f"seeds: {seeds!r} is not allowed; give a number N (seeds 1..N) or the seeds, e.g. [1, 2, 3]")
    if isinstance(seeds, numbers.Integral):
        if seeds < 1:
            raise ValueError(f"seeds: {seeds} is not allowed; give a number N of at least 1 (seeds 1..N), or the seeds")
        seeds = range(1, int(seeds) + 1)
    seeds = list(seeds)
    for s in seeds:
        check_seed(s, "seeds")
    jobs: list[Job] = []
    for values in itertools.product(*(grid[k] for k in keys)):
        point = dict(zip(keys, values, strict=True))
        text = with_values(base, point)
        engine_check(text)
        jobs += [Job(text, seed, tags={**point, "seed": seed}, keep=(table,)) for seed in seeds]
    return jobs


def collect(jobs: Sequence[Job], results: Sequence[Mapping[str, pd.DataFrame]], table: str) -> pd.DataFrame:
    """One frame of `table` from every run, with its grid values and seed as columns."""
    frames = []
    for job, tables in zip(jobs, results, strict=True):
        df = tables[table].copy()
        for k, v in job.tags.items():
            df[k] = v
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def kept(jobs: Sequence[Job], cache: str | Path) -> int:
    """How many of `jobs` have an entry in `cache`: those a rerun does not run again."""
    return sum((Path(cache) / job.key / ENTRY).is_file() for job in jobs)


@contextlib.contextmanager
def _progress_shown(progress: Callable[[int, int], None] | bool | None) -> Iterator[Callable[[int, int], None] | None]:
    """The progress callback for a sweep: the caller's, or a bar where someone watches."""
    if callable(progress):
        yield progress
        return
    if progress is False or (progress is None and not _watched()):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("runs", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _watched() -> bool:
    """stderr is a terminal, or this runs in a Jupyter kernel."""
    if sys.stderr.isatty():
        return True
    shell = sys.modules.get("IPython")
    ipython = shell.get_ipython() if shell is not None else None
    return ipython is not None and hasattr(ipython, "kernel")
