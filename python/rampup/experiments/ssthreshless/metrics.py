"""What a run measures (one row of runs.csv, besides its tags)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..framework import Point, View
from .runs import MSS


def acked_at(ts: pd.DataFrame, times_s: Sequence[float]) -> np.ndarray:
    """snd_una (bytes) of one flow's time series at each time (its first value before it starts)."""
    t = ts["t_ns"].to_numpy()
    v = ts["snd_una"].to_numpy(dtype=float)
    if len(t) == 0:
        return np.zeros(len(times_s))
    idx = np.searchsorted(t, np.asarray(times_s) * 1e9, side="right") - 1
    return np.where(idx >= 0, v[np.clip(idx, 0, None)], v[0])


def jain(xs: Sequence[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 = equal shares, 1/n = one flow takes all."""
    a = np.asarray(xs, dtype=float)
    s2 = float((a * a).sum())
    return float(a.sum() ** 2 / (len(a) * s2)) if s2 > 0 else math.nan


def measure(point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """The first flow's totals (and, for Fig. 9/10, intervals); ``timed_out``: 1 if it had
    a timeout (summed over seeds: the seeds with one)."""
    net = point.info
    row: dict[str, Any] = dict(rate_mbps=net.rate_mbps, delay_ms=net.delay_ms, buffer=net.queue, bdp=net.bdp)
    f0 = tables["flows"].iloc[0]
    row.update(
        util_pct=100.0 * float(f0["bytes_received"]) / net.capacity_bytes,
        mbps=float(f0["bytes_received"]) * 8 / net.duration_s / 1e6,
        new_segments=int(f0["segments_sent"] - f0["retransmits"]),
        drops=int(f0["drops"]), timeouts=int(f0["timeouts"]), retransmits=int(f0["retransmits"]),
        timed_out=int(f0["timeouts"] > 0),
    )
    if point.tags["exp"] == "VII":
        ts = tables["timeseries"]
        a = acked_at(ts[ts["flow"] == 0], [0.0, 1.0, 2.0, 5.0, 6.0, 10.0])
        row.update(
            mbps_0_1=(a[1] - a[0]) * 8 / 1e6, mbps_1_5=(a[3] - a[1]) * 8 / 4e6, mbps_2_5=(a[3] - a[2]) * 8 / 3e6,
            mbps_5_10=(a[5] - a[3]) * 8 / 5e6, mbps_6_10=(a[5] - a[4]) * 8 / 4e6)
    if point.tags["exp"] == "fig10":
        row.update(fairness_metrics(tables["timeseries"], net.duration_s, point.tags["x"]))
    return row


def fairness_metrics(ts: pd.DataFrame, duration: float, late: float) -> dict[str, float]:
    """Last third of the run: each flow's goodput and mean cwnd, Jain's index; the late flow's
    catch-up (its mean cwnd over [late + 10 s, late + 20 s] over the others')."""
    lo = duration - min(20.0, duration / 3)
    out: dict[str, float] = {}
    rates = []
    for i in range(5):
        fl = ts[ts["flow"] == i]
        a = acked_at(fl, [lo, duration])
        r = (a[1] - a[0]) * 8 / (duration - lo) / 1e6
        rates.append(r)
        out[f"flow{i + 1}_mbps_end"] = r
        out[f"flow{i + 1}_cwnd_end"] = _mean_cwnd(fl, lo, duration)
    out["jain_end"] = jain(rates)
    out["fair_share_mbps"] = sum(rates) / 5
    w0, w1 = late + 10.0, min(late + 20.0, duration)
    others = np.mean([_mean_cwnd(ts[ts["flow"] == i], w0, w1) for i in range(4)])
    out["late_catchup"] = _mean_cwnd(ts[ts["flow"] == 4], w0, w1) / others if others > 0 else math.nan
    return out


def _mean_cwnd(fl: pd.DataFrame, a: float, b: float) -> float:
    """Time-weighted mean cwnd (segments) of one flow over [a, b] s."""
    t = fl["t_ns"].to_numpy() / 1e9
    c = fl["cwnd_bytes"].to_numpy(dtype=float) / MSS
    if len(t) == 0:
        return math.nan
    grid = np.linspace(a, b, 2001)
    idx = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, None)
    return float(c[idx].mean())


METRICS = ["util_pct", "mbps", "new_segments", "drops", "timeouts", "retransmits", "fair_share_mbps",
           "mbps_1_5", "mbps_2_5", "mbps_5_10", "mbps_6_10", "jain_end", "late_catchup",
           *[f"flow{i}_mbps_end" for i in range(1, 6)], *[f"flow{i}_cwnd_end" for i in range(1, 6)]]


def points_of(points: pd.DataFrame, exp: str, reading: str, scheme: str) -> pd.DataFrame:
    """One scheme's points of one experiment in one reading, indexed by x."""
    return View(points, {"reading": reading}).of(scheme, exp=exp)


def series_of(points: pd.DataFrame, exp: str, reading: str, schemes: list[str]) -> dict[str, pd.DataFrame]:
    """The points of each of ``schemes`` that ran in ``exp`` and ``reading`` (today's run in
    reading main only)."""
    return {k: p for k in schemes if len(p := points_of(points, exp, reading, k))}
