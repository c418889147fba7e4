"""`rampup.sweep`: one scenario run over a grid of parameter values and several seeds, in
parallel, cached, and collected into one DataFrame.

>>> df = rampup.sweep("scenarios/demo.toml",
...                   {"topology.bottleneck_queue.packets": [10, 50, 100],
...                    "flow[0].tcp.recovery": ["newreno", "sack"]},
...                   seeds=range(5))
>>> df.groupby(["topology.bottleneck_queue.packets", "flow[0].tcp.recovery"]).goodput_bps.mean()

A key is a path into the scenario: dotted table names, with ``[i]`` to pick an element of
an array of tables (``flow[0]`` is the first ``[[flow]]``). Runs go through the same cache
as `rampup reproduce` (keyed by engine build, scenario text and seed), so a repeated or
interrupted sweep does only the runs it has not done.
"""

from __future__ import annotations

import copy
import itertools
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import _engine, _toml
from .api import Scenario, scenario_text
from .experiments.runner import Job, run_jobs

__all__ = ["sweep"]

_STEP = re.compile(r"([A-Za-z0-9_-]+)(?:\[(\d+)\])?$")


def _set(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set `path` (e.g. ``flow[0].tcp.cc``) in `doc`, creating tables on the way."""
    steps = path.split(".")
    node: Any = doc
    for n, step in enumerate(steps):
        m = _STEP.match(step)
        if not m:
            raise ValueError(f"sweep key {path!r}: {step!r} is not a key or key[index]")
        key, index = m.group(1), m.group(2)
        last = n == len(steps) - 1
        if index is None:
            if last:
                node[key] = value
            else:
                node = node.setdefault(key, {})
            continue
        items = node.get(key)
        if not isinstance(items, list) or int(index) >= len(items):
            raise ValueError(f"sweep key {path!r}: the scenario has no {key}[{index}]")
        if last:
            items[int(index)] = value
        else:
            node = items[int(index)]


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
    seeds: Iterable[int] = (1,),
    *,
    table: str = "flows",
    cache: str | Path = "results/cache",
    workers: int | None = None,
    backend: str = "threads",
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Run `scenario` at every combination of the `grid` values and every seed.

    Returns `table` ("flows", "transfers", "links", "udp" ...) of every run, one block per
    run, with a column per grid key and a ``seed`` column. Raises `ScenarioError` at the
    first invalid combination, and ValueError for a grid key that a more specific key of
    the scenario overrides (so that sweeping it would change nothing there), before
    anything runs.
    """
    base = tomllib.loads(scenario_text(scenario))
    keys = list(grid)
    seeds = list(seeds)
    jobs: list[Job] = []
    for values in itertools.product(*(grid[k] for k in keys)):
        doc = copy.deepcopy(base)
        for k, v in zip(keys, values, strict=True):
            _set(doc, k, v)
        for k in keys:
            if (by := _shadowed_by(doc, k)) is not None:
                raise ValueError(f"sweep key {k!r}: the scenario's {by} overrides it, so the sweep would not change "
                                 f"it there; sweep {by!r} instead, or remove {by} from the scenario")
        text = _toml.dumps(doc)
        _engine.check(text)
        point = dict(zip(keys, values, strict=True))
        jobs += [Job(text, seed, tags={**point, "seed": seed}, keep=(table,)) for seed in seeds]
    results = run_jobs(jobs, Path(cache), workers=workers, backend=backend, progress=progress)
    frames = []
    for job, tables in zip(jobs, results, strict=True):
        df = tables[table].copy()
        for k, v in job.tags.items():
            df[k] = v
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
