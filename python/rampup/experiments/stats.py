"""Means with Student-t confidence intervals, as the papers report them (90% in paper 000)."""

from __future__ import annotations

import math
from collections.abc import Sequence

# Two-sided 90% critical values t(0.95, df) for df = 1..30; beyond, the normal 1.645.
_T90 = [6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
        1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
        1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697]


def mean_ci90(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 90% confidence interval (0 for one value)."""
    xs = [float(v) for v in values if not math.isnan(float(v))]
    if not xs:
        return math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    df = len(xs) - 1
    t = _T90[df - 1] if df <= len(_T90) else 1.645
    return m, t * sd / math.sqrt(len(xs))
