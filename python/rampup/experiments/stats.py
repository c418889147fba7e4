"""Means with Student-t confidence intervals, as the papers report them (90% in paper 000), and
the figure points they make of a table of runs (`summarize`).

scipy gives the t quantile. The mean and standard deviation are sums over the seeds in
their order, and `summarize` groups with pandas but reduces each group with `mean_ci`:
numpy's pairwise summation (from 8 values on) and pandas' compensated groupby sums round
differently in the last bit, and every reproduction's points.csv would change with them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd
from scipy.stats import t as student_t


def mean_ci(values: Sequence[float], level: float = 0.9) -> tuple[float, float]:
    """Mean and the half-width of its two-sided ``level`` confidence interval (0 for one
    value); NaNs are left out."""
    if not 0 < level < 1:
        raise ValueError(f"ci: {level!r} is not a confidence level; give one between 0 and 1, like 0.9")
    xs = [float(v) for v in values if not math.isnan(float(v))]
    if not xs:
        return math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    # Two-sided: the (1 + level) / 2 quantile of Student's t with n - 1 degrees of freedom.
    t = float(student_t.ppf((1 + level) / 2, len(xs) - 1))
    return m, t * sd / math.sqrt(len(xs))


def mean_ci90(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 90% confidence interval, as the papers report them."""
    return mean_ci(values, 0.9)


def summarize(runs: pd.DataFrame, group: Sequence[str], metrics: Sequence[str], totals: Sequence[str] = (),
              firsts: Sequence[str] = (), level: float = 0.9) -> pd.DataFrame:
    """One row per figure point (the runs sharing ``group``'s tags): the seeds, each of
    ``metrics`` as the mean over seeds and the half-width of its ``level`` CI (``<m>_ci90``
    at 90%; a metric no run of the point has is left out), ``totals`` summed and ``firsts``
    copied. `rampup.summarize` is this, for any table of runs (the reproductions' figure
    points are made by it)."""
    suffix = f"_ci{level * 100:g}"
    rows = []
    for key, g in runs.groupby(list(group), sort=False):
        row: dict[str, Any] = dict(zip(group, key, strict=True))
        row["seeds"] = len(g)
        row.update({c: g[c].iloc[0] for c in firsts})
        for m in metrics:
            if m in g and g[m].notna().any():
                row[m], row[f"{m}{suffix}"] = mean_ci(g[m].tolist(), level)
        row.update({c: g[c].sum() for c in totals})
        rows.append(row)
    return pd.DataFrame(rows)
