"""Paper 002's baseline in ns-2.35: PackMimeHTTP over Full-TCP Reno (`rampup/ns2/packmime.tcl`),
the report's ns-2 column and the runs validation/compare_packmime.py compares.

PackMime's connection rate is the one rampup draws its web workload at for the point's
utilization (`rampup.inspect`'s ``web_rate``); PackMime's own random streams (its ``set-run``
= our seed) give other connections than ours, so the seeds do not pair up and ours is the
mean over all our seeds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ... import _engine, _toml
from ...ns2 import Ns2Job
from ..ns2_column import Metric, Ns2Column, Ns2Point, Tolerance
from .runs import RENO, Setup, base, scenario, sweeps

__all__ = ["SEEDS", "Column", "durations_ms", "job", "packmime_job", "rate"]

#: The seeds the report's column runs at each point of Fig. 6: a 300 s PackMime run is ns-2's
#: costliest, so one seed, which keeps `rampup reproduce all` within its 5 minutes
#: (docs/ns2-reading.md gives the CPU times); validation/compare_packmime.py runs more.
SEEDS = 1
#: Fig. 6's sweeps: the load at 10 ms and the delay at 25 %.
SWEEPS = ("load", "delay")


def rate(setup: Setup) -> float:
    """PackMime's connections per second for ``setup``: rampup's, from its utilization."""
    return float(_engine.paths(_toml.engine_text(scenario(RENO, setup, 1)))["web_rate"][0])


def packmime_job(connections_per_s: float, delay_ms: float, queue: int, duration_s: float, seed: int) -> Ns2Job:
    """PackMime-HTTP/1.0 over Full-TCP Reno across packmime.tcl's 5 Mb/s dumbbell with run ``seed``."""
    args = (f"{connections_per_s:.6f}", f"{delay_ms:g}", str(queue), f"{duration_s:g}", str(seed), "1.0", "out.dat")
    return Ns2Job("packmime.tcl", args, reader="packmime")


def job(setup: Setup, seed: int) -> Ns2Job:
    """PackMime on ``setup``'s dumbbell, at rampup's rate for its utilization, with run ``seed``."""
    return packmime_job(rate(setup), setup.delay_ms, setup.queue, setup.duration_s, seed)


def durations_ms(tables: dict[str, pd.DataFrame], before_s: float) -> pd.Series:
    """The durations (ms) of the completed responses whose connections opened before ``before_s``."""
    r = tables["responses"]
    return r[r["done_s"] - r["duration_ms"] / 1000 < before_s]["duration_ms"]


class Column(Ns2Column):
    group = ("sweep", "scheme", "x")
    metrics = (Metric("mean_ms", "mean duration (ms)", fmt="{:.1f}"), Metric("median_ms", "median duration (ms)", fmt="{:.1f}"))
    tolerances = (Tolerance("mean_ms", 0.05),)
    text = ("ns-2.35's PackMimeHTTP (HTTP/1.0) over Agent/TCP/FullTcp (Reno) with ns-2's defaults (`rampup/ns2/packmime.tcl`), "
            "on the same dumbbell and queue, at rampup's connection rate for each point of Fig. 6 (the load sweep at 10 ms, the "
            f"delay sweep at 25 %), PackMime's set-run 1 to {SEEDS} per point; the same measure as ours (completed responses of "
            "the connections opened before the run's last 30 s). PackMime's random streams give other connections than ours, so ours is the "
            "mean over all our seeds.")

    def points(self, ctx: Any) -> list[Ns2Point]:
        out = []
        for sw in (s for s in sweeps(ctx.quick) if s.name in SWEEPS):
            for x in sw.xs:
                setup = sw.make(base(ctx.quick), x)
                for seed in range(1, min(SEEDS, ctx.seeds_or(10)) + 1):
                    tags = {"sweep": sw.name, "scheme": RENO, "x": float(x), "seed": seed, "until_s": setup.measured_until_ns / 1e9}
                    out.append(Ns2Point(tags, job(setup, seed)))
        return out

    def measure(self, point: Ns2Point, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
        ms = durations_ms(tables, point.tags["until_s"])
        return {"mean_ms": ms.mean(), "median_ms": ms.median()}

    def ours(self, runs: pd.DataFrame) -> pd.DataFrame:
        return runs[(runs["reading"] == "main") & (runs["scheme"] == RENO)]
