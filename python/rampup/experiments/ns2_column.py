"""ns-2.35 beside rampup in a reproduction's report: the column of the papers' own simulator.

An experiment whose baselines ns-2.35 has names an `Ns2Column` (its ``ns2`` attribute): the
ns-2 runs at its figures' points (`Ns2Point`: the tags of the figure point it stands beside,
its seed and its `rampup.ns2.Ns2Job`), what each run measures (the quantities of the
experiment's own `measure`, under the same names, `Metric`), and which of our runs it is set
beside (`ours`: the primary reading). `section` runs them through the cache (`rampup.ns2.run`,
in parallel on this machine's threads, with any backend), writes ``ns2-points.csv`` and the report's section: per point, ns-2's mean over
its seeds, ours and the difference. Where the experiment's seeds give both simulators the same
start times (``paired``), ours is the mean over the same seeds; else over all of ours. Without
``ns``, the section says that the column was not run, and why.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import ns2
from ..ns2 import Ns2Job
from .report import Report

__all__ = ["CSV", "Metric", "Ns2Column", "Ns2Point", "Tolerance", "compare", "section", "within"]

#: The compared points, beside the report.
CSV = "ns2-points.csv"


@dataclass(frozen=True)
class Metric:
    """A quantity both simulators measure: its column, its label, and how it is shown."""

    column: str
    label: str
    scale: float = 1.0
    fmt: str = "{:.3f}"


@dataclass(frozen=True)
class Tolerance:
    """A point is within when ours is within ``relative`` of ns-2's, or within ``absolute``
    of it (for counts so small that a relative difference says little)."""

    metric: str
    relative: float
    absolute: float = 0.0

    def words(self) -> str:
        return f"{self.relative:.0%}" + (f" or {self.absolute:g}" if self.absolute else "")


@dataclass(frozen=True)
class Ns2Point:
    """One ns-2 run: the tags of the figure point it stands beside (with ``seed``) and its job."""

    tags: dict[str, Any]
    job: Ns2Job


class Ns2Column:
    """What ns-2 runs for one paper; a subclass per paper fills it in."""

    #: The tags of a compared point (a figure point's, without the seed).
    group: tuple[str, ...] = ()
    metrics: tuple[Metric, ...] = ()
    #: Whether a seed gives ns-2 and rampup the same draws (then ours is over the same seeds).
    paired: bool = False
    #: What ns-2 runs, with which agents and settings, and at which points and seeds.
    text: str = ""
    #: The report counts the points within each `Tolerance` (issue 52's acceptance: 5 % on a
    #: time or a utilization, 10 % or 0.05 on drops per transfer).
    tolerances: tuple[Tolerance, ...] = ()

    def points(self, ctx: Any) -> list[Ns2Point]:
        raise NotImplementedError

    def measure(self, point: Ns2Point, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
        raise NotImplementedError

    def ours(self, runs: pd.DataFrame) -> pd.DataFrame:
        """Our runs the column is set beside (their group tags, seed and metrics)."""
        raise NotImplementedError


def compare(col: Ns2Column, theirs: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """Per compared point: ns-2's mean over its seeds, ours (over the same seeds if paired)
    and ours relative to ns-2 (NaN where ns-2's is 0, 0 where both are)."""
    keys = list(col.group)
    if col.paired:
        ours = ours.merge(theirs[[*keys, "seed"]].drop_duplicates(), on=[*keys, "seed"])
    names = [m.column for m in col.metrics]
    a = theirs.groupby(keys, sort=False)[names].mean()
    a["ns2_seeds"] = theirs.groupby(keys, sort=False)["seed"].nunique()
    b = ours.groupby(keys, sort=False)[names].mean()
    b["rampup_seeds"] = ours.groupby(keys, sort=False)["seed"].nunique()
    out = a.merge(b, left_index=True, right_index=True, how="left", suffixes=("_ns2", "_rampup")).reset_index()
    for n in names:
        x, y = out[f"{n}_ns2"], out[f"{n}_rampup"]
        out[f"{n}_diff"] = np.where(x == 0, np.where(y == 0, 0.0, np.nan), y / x.where(x != 0) - 1)
    return out


def _shown(col: Ns2Column, table: pd.DataFrame) -> pd.DataFrame:
    """The table as the report shows it: the point's tags, then per metric ns-2, rampup and
    the difference."""
    out = table[list(col.group)].copy()
    for m in col.metrics:
        for who in ("ns2", "rampup"):
            out[f"{m.label}, {'ns-2' if who == 'ns2' else 'rampup'}"] = [
                "" if pd.isna(v) else m.fmt.format(v * m.scale) for v in table[f"{m.column}_{who}"]]
        out[f"{m.label}, diff"] = ["" if pd.isna(v) else f"{0.0 if abs(v) < 5e-4 else v:+.1%}" for v in table[f"{m.column}_diff"]]
    return out


def within(table: pd.DataFrame, tol: Tolerance) -> tuple[int, int]:
    """(points within ``tol``, points where both simulators have a value)."""
    a, b = table[f"{tol.metric}_ns2"], table[f"{tol.metric}_rampup"]
    both = a.notna() & b.notna()
    ok = (table[f"{tol.metric}_diff"].abs() <= tol.relative) | ((b - a).abs() <= tol.absolute)
    return int((ok & both).sum()), int(both.sum())


def run(col: Ns2Column, ctx: Any) -> tuple[pd.DataFrame, int, int]:
    """The ns-2 runs' rows (tags and metrics), how many distinct runs, and how many of them
    came from the cache."""
    points = col.points(ctx)
    tables, cached = ns2.run([p.job for p in points], ctx.cache, ctx.workers)
    rows = pd.DataFrame([{**p.tags, **col.measure(p, t)} for p, t in zip(points, tables, strict=True)])
    return rows, len({p.job.key for p in points}), cached


def section(rep: Report, exp: Any, runs: pd.DataFrame, ctx: Any) -> None:
    """The report's "ns-2.35 beside rampup" section, if ``exp`` has an ns-2 column."""
    col: Ns2Column | None = getattr(exp, "ns2", None)
    if col is None:
        return
    rep.heading("ns-2.35 beside rampup")
    why = ns2.missing()
    if why is not None:
        rep.text(f"{col.text} Not run: {why}; this report has no ns-2 column.")
        return
    try:
        theirs, n, cached = run(col, ctx)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        # The reproduction's own results stand without ns-2's; the report says why they are alone.
        rep.text(f"{col.text} Not run: ns-2 failed ({e}); this report has no ns-2 column.")
        return
    table = compare(col, theirs, col.ours(runs))
    table.to_csv(ctx.out / CSV, index=False)
    labels = {m.column: m.label for m in col.metrics}
    counts = "; ".join(f"{labels[tol.metric]}: {k} of {n} points within {tol.words()}" for tol in col.tolerances
                       for k, n in [within(table, tol)])
    rep.text(f"{col.text} {n} ns-2 runs ({cached} read from the cache), ns {ns2.version()}. \"diff\" is rampup's value "
             f"relative to ns-2's; {CSV} has every figure." + (f" {counts}." if counts else ""))
    rep.table(_shown(col, table), "ns-2.35 beside rampup's primary reading, point by point")
