"""The reproductions' means and 90% confidence intervals (experiments/stats.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rampup.experiments.stats import mean_ci, mean_ci90


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


def test_summarize_gives_each_groups_mean_and_interval_as_the_reports_do() -> None:
    import pandas as pd

    import rampup

    df = pd.DataFrame({"k": ["a", "a", "a", "b"], "seed": [1, 2, 3, 1], "v": [1.0, 2.0, 3.0, 5.0]})
    out = rampup.summarize(df, by=["k"])
    assert list(out.columns) == ["k", "seeds", "v", "v_ci90"] and list(out["seeds"]) == [3, 1]
    assert (out.at[0, "v"], out.at[0, "v_ci90"]) == mean_ci90([1.0, 2.0, 3.0]) and out.at[1, "v_ci90"] == 0.0
    wide = rampup.summarize(df, by="k", columns=["v"], ci=0.95)
    assert wide.at[0, "v_ci95"] > out.at[0, "v_ci90"], "a wider interval at 95%"
    with pytest.raises(ValueError, match="'z' is not a column"):
        rampup.summarize(df, by=["z"])
    with pytest.raises(ValueError, match="ci: 1.5 is not a confidence level"):
        rampup.summarize(df, by=["k"], ci=1.5)


def test_the_mean_is_the_sum_over_the_seeds_in_order() -> None:
    # The reports' points.csv were written with this arithmetic (stats.py says why): ten
    # seeds of 0.1 sum to just under 1 in order, where numpy's pairwise sum gives 1.0.
    xs = [0.1] * 10
    in_order = 0.0
    for x in xs:
        in_order += x
    assert in_order / 10 != float(np.mean(xs)), "the example tells the two sums apart"
    assert mean_ci(xs)[0] == in_order / 10
