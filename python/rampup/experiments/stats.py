"""Means with Student-t confidence intervals, as the papers report them (90% in paper 000)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy.stats import t as student_t


def mean_ci90(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 90% confidence interval (0 for one value)."""
    xs = [float(v) for v in values if not math.isnan(float(v))]
    if not xs:
        return math.nan, math.nan
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    # Two-sided 90%: the 0.95 quantile of Student's t with n - 1 degrees of freedom.
    t = float(student_t.ppf(0.95, len(xs) - 1))
    return m, t * sd / math.sqrt(len(xs))
