"""`rampup.summarize`: grouped means over seeds with Student-t confidence intervals, by the
code the reproductions' figure points use (`experiments.stats.summarize`).

>>> df = rampup.sweep("scenarios/demo.toml", {"flow[0].tcp.cc": ["newreno", "vegas"]}, seeds=5)
>>> rampup.summarize(df, by=["flow[0].tcp.cc"], columns=["goodput_bps"], ci=0.9)
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = ["summarize"]


def summarize(df: pd.DataFrame, by: Sequence[str], columns: Sequence[str] | None = None, ci: float = 0.9) -> pd.DataFrame:
    """One row per group of ``by``: ``seeds`` (the rows in the group), and for each of
    ``columns`` (default: every numeric column not in ``by``, and not ``seed``) its mean and
    the half-width of its two-sided ``ci`` confidence interval, ``<column>_ci90`` at 0.9."""
    from .experiments.stats import summarize as _summarize  # the experiments package imports matplotlib

    if isinstance(by, str):
        by = [by]
    missing = [c for c in [*by, *(columns or [])] if c not in df.columns]
    if missing:
        raise ValueError(f"summarize: {', '.join(map(repr, missing))} is not a column of the table; it has {', '.join(map(str, df.columns))}")
    if columns is None:
        columns = [c for c in df.select_dtypes("number").columns if c not in by and c != "seed"]
    return _summarize(df, list(by), list(columns), level=ci)
