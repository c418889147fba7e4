"""The reproductions' means and 90% confidence intervals (experiments/stats.py)."""

from __future__ import annotations

import math

import pytest

from rampup.experiments.stats import mean_ci90


def test_half_width_is_students_t_quantile_times_the_standard_error() -> None:
    # [1, 2, 3]: mean 2, sample sd 1; t(0.95, 2) = 2.919986 (any t table).
    m, h = mean_ci90([1.0, 2.0, 3.0])
    assert m == 2.0 and h == pytest.approx(2.919986 / math.sqrt(3), rel=1e-6)
    # 40 values (df 39): t(0.95, 39) = 1.684875, not the normal's 1.645.
    xs = [float(i % 2) for i in range(40)]
    sd = math.sqrt(sum((x - 0.5) ** 2 for x in xs) / 39)
    assert mean_ci90(xs)[1] == pytest.approx(1.684875 * sd / math.sqrt(40), rel=1e-6)


def test_one_value_has_no_interval_and_nan_is_left_out() -> None:
    assert mean_ci90([5.0]) == (5.0, 0.0)
    assert mean_ci90([5.0, math.nan]) == (5.0, 0.0)
    m, h = mean_ci90([])
    assert math.isnan(m) and math.isnan(h)
