"""What a run measures (one row of runs.csv, besides its tags)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..framework import Point
from ..view import View
from .runs import MSS, Net


def acked_at(ts: pd.DataFrame, times_s: npt.ArrayLike) -> np.ndarray:
    """snd_una (bytes) of one flow's time series at each time (its first value before it starts)."""
    t = ts["t_ns"].to_numpy()
    v = ts["snd_una"].to_numpy(dtype=float)
    times = np.asarray(times_s)
    if len(t) == 0:
        return np.zeros(len(times))
    idx = np.searchsorted(t, times * 1e9, side="right") - 1
    acked: np.ndarray = np.where(idx >= 0, v[np.clip(idx, 0, None)], v[0])
    return acked


def jain(xs: npt.ArrayLike) -> float:
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
        drops=int(f0["drops"]), marks=int(f0["marks"]), timeouts=int(f0["timeouts"]), retransmits=int(f0["retransmits"]),
        timed_out=int(f0["timeouts"] > 0),
    )
    if point.tags["exp"] == "fig10":
        row.update(fairness_metrics(tables["timeseries"], net.duration_s, point.tags["x"]))
    elif "timeseries" in tables:
        ts = tables["timeseries"]
        row.update(startup_metrics(ts[ts["flow"] == 0], net))
    if point.tags["exp"] == "VII":
        ts = tables["timeseries"]
        a = acked_at(ts[ts["flow"] == 0], [1.0, 2.0, 5.0, 6.0, 10.0])
        row.update(mbps_1_5=(a[2] - a[0]) * 8 / 4e6, mbps_2_5=(a[2] - a[1]) * 8 / 3e6, mbps_5_10=(a[4] - a[2]) * 8 / 5e6,
                   mbps_6_10=(a[4] - a[3]) * 8 / 4e6)
    return row


def startup_metrics(fl: pd.DataFrame, net: Net) -> dict[str, float]:
    """One flow's startup, from its time series (segments, seconds):

    - ``peak_flight``: the most data ever outstanding, snd_max − snd_una (§II, Fig. 2(b): the
      gap between the sequence numbers sent and received);
    - ``first_ssthresh``: the ssthresh first set during the run (NaN if none): for NewReno slow
      start and SSthreshless Start the first loss response's, to which fast recovery holds cwnd
      (§II, Fig. 3: "cuts cwnd to just below 250"); Hoe's change, Vegas and HyStart set it earlier;
    - ``peak_cwnd``: the largest cwnd before then (the whole run's if never): slow start's peak,
      not the window duplicate ACKs inflate in fast recovery (§II, Fig. 3: "over 400");
    - ``t_bdp_s``: when cwnd first reached the BDP (§V-B, Fig. 5); the run's end if it never
      did, a time that "around 2 s" never matches and that a scheme reaching it earlier is
      before;
    - ``util_after_bdp_pct``: the link utilization from then to the end (NaN if never);
    - ``congestive_events``: SSthreshless Start's count c at the end (§V-A, Fig. 4);
    - ``mbps_0_1``: goodput over the first second (§V-D, Fig. 9: before the UDP burst)."""
    t = fl["t_ns"].to_numpy() / 1e9
    cwnd = fl["cwnd_bytes"].to_numpy(dtype=float) / MSS
    ssthresh = fl["ssthresh_bytes"].to_numpy(dtype=float) / MSS
    # ssthresh is first set at the first row where it differs from its initial value (NaN, unlimited, included).
    changed = ~((ssthresh == ssthresh[0]) | (np.isnan(ssthresh) & np.isnan(ssthresh[0])))
    first = int(np.argmax(changed)) if changed.any() else len(t)
    reached = np.flatnonzero(cwnd >= net.bdp)
    t_bdp = float(t[reached[0]]) if len(reached) else net.duration_s
    a = acked_at(fl, [0.0, 1.0, t_bdp, net.duration_s])
    after = net.duration_s - t_bdp
    return dict(
        peak_flight=float(fl["flight_bytes"].max()) / MSS,
        first_ssthresh=float(ssthresh[first]) if first < len(t) else math.nan,
        peak_cwnd=float(cwnd[:first].max()),
        t_bdp_s=t_bdp,
        util_after_bdp_pct=100.0 * (a[3] - a[2]) / (net.rate_mbps * 1e6 / 8 * after) if after > 0 else math.nan,
        congestive_events=float(fl["congestive_events"].iloc[-1]),
        mbps_0_1=(a[1] - a[0]) * 8 / 1e6,
    )


#: §V-C: "we only evaluate the performance in the first 10 seconds": the startup window.
EARLY_S = 10.0


def fairness_metrics(ts: pd.DataFrame, duration: float, late: float) -> dict[str, float]:
    """Last third of the run: each flow's goodput and mean cwnd, Jain's index; the late flow's
    catch-up (its mean cwnd over [late + 10 s, late + 20 s] over the others'); the mean goodput
    of the two slow-start flows and of the two SSthreshless flows that start with them, over
    the startup window (`EARLY_S`, or until the late flow starts if sooner)."""
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
    # §V-E: "at the very beginning", before the late flow starts: the paper's startup window (§V-C, 10 s).
    early = min(EARLY_S, late)
    first = [float(np.diff(acked_at(ts[ts["flow"] == i], [0.0, early]))[0]) * 8 / early / 1e6 for i in range(4)]
    out["ss_mbps_early"], out["sls_mbps_early"] = float(np.mean(first[:2])), float(np.mean(first[2:]))
    out["fair_share_mbps"] = sum(rates) / 5
    w0, w1 = late + 10.0, min(late + 20.0, duration)
    others = float(np.mean([_mean_cwnd(ts[ts["flow"] == i], w0, w1) for i in range(4)]))
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


METRICS = ["util_pct", "mbps", "new_segments", "drops", "marks", "timeouts", "retransmits", "fair_share_mbps",
           "mbps_0_1", "mbps_1_5", "mbps_2_5", "mbps_5_10", "mbps_6_10", "jain_end", "late_catchup",
           "peak_flight", "first_ssthresh", "peak_cwnd", "t_bdp_s", "util_after_bdp_pct", "congestive_events",
           "ss_mbps_early", "sls_mbps_early",
           *[f"flow{i}_mbps_end" for i in range(1, 6)], *[f"flow{i}_cwnd_end" for i in range(1, 6)]]


def points_of(points: pd.DataFrame, exp: str, reading: str, scheme: str) -> pd.DataFrame:
    """One scheme's points of one experiment in one reading, indexed by x."""
    return View(points, {"reading": reading}).of(scheme, exp=exp)


def series_of(points: pd.DataFrame, exp: str, reading: str, schemes: list[str]) -> dict[str, pd.DataFrame]:
    """The points of each of ``schemes`` that ran in ``exp`` and ``reading`` (today's run in
    reading main only)."""
    return {k: p for k in schemes if len(p := points_of(points, exp, reading, k))}
