"""Paper 003's baseline, standard TCP with SACK, in ns-2.35 (`rampup/ns2/newcwv.tcl`): the
report's ns-2 column at the points of Fig. 4 and 5 (the idle sweep over the number of flows).

ns-2 draws its sources' start and restart times from its own RNG (seeded with the seed), so
the seeds do not pair up and ours is the mean over all our seeds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...ns2 import Ns2Job
from ..ns2_column import Metric, Ns2Column, Ns2Point, Tolerance
from .claims import DROPS, RATE, SHARE
from .runs import APP_KBPS, DROP_RTTS, LOW_MBPS, MEASURE_S, PAUSE_LEN_S, PAUSE_S, STANDARD, Setup, sweeps

__all__ = ["SEEDS", "Column", "job"]

#: The seeds the report's column runs at each number of flows (all seven take about 2.5 s of
#: CPU in ns-2 per seed).
SEEDS = 2


def job(setup: Setup, seed: int) -> Ns2Job:
    """The idle case of Fig. 4/5 with ``setup.flows`` sources and ns-2 RNG seed ``seed``."""
    args = (f"flows={setup.flows}", f"rtt={setup.rtt_ms:g}", f"queue={setup.queue_packets}", f"rate={APP_KBPS}kb",
            f"low={LOW_MBPS}Mb", f"pause={PAUSE_S}", f"pause_len={PAUSE_LEN_S}", f"measure={MEASURE_S}",
            f"drop_rtts={DROP_RTTS}", f"seed={seed}")
    return Ns2Job("newcwv.tcl", args)


def measure(setup: Setup, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
    """As `report.NewCwv.measure`: the mean over sources of the rate received from each one's
    restart to the end, against the fair share, and the bottleneck's drop rate over the first
    `DROP_RTTS` RTTs after the restart."""
    f, w = tables["flow"], tables["window"].iloc[0]
    rate = (f["received_bytes"] * 8 / (setup.duration_s - f["restart"]) / 1000).mean()
    return {RATE: rate, SHARE: rate / setup.fair_share_kbps, DROPS: float(w["drops"]) / max(float(w["drops"] + w["got"]), 1.0)}


class Column(Ns2Column):
    group = ("sweep", "scheme", "x")
    metrics = (Metric(RATE, "received rate after the idle (kb/s)", fmt="{:.1f}"), Metric(SHARE, "rate / fair share", fmt="{:.3f}"),
               Metric(DROPS, "drop rate, 10 RTTs", scale=100, fmt="{:.2f}%"))
    tolerances = (Tolerance(RATE, 0.05),)
    text = ("ns-2.35's standard TCP (`rampup/ns2/newcwv.tcl`: Agent/TCP/Sack1 to TCPSink/Sack1, a CBR application of "
            f"{APP_KBPS} kb/s in 1000-byte writes, windowInit_ 2, minrto_ 1 s, slow_start_restart_ on, the same bytes on the "
            f"wire) at every point of Fig. 4 and 5 (the idle sweep over the number of flows), seeds 1-{SEEDS}: each source "
            f"starts within 1 s, stops at {PAUSE_S} s, when the bottleneck falls to {LOW_MBPS} Mb/s, and restarts within 1 s of "
            f"{PAUSE_S + PAUSE_LEN_S} s. ns-2 draws its own start times, so ours is the mean over all our seeds.")

    def points(self, ctx: Any) -> list[Ns2Point]:
        idle = next(s for s in sweeps(ctx.quick) if s.name == "idle")
        return [Ns2Point({"sweep": "idle", "scheme": STANDARD, "x": float(x), "seed": seed}, job(idle.make(x), seed))
                for x in idle.xs for seed in range(1, min(SEEDS, ctx.seeds_or(5)) + 1)]

    def measure(self, point: Ns2Point, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
        return measure(Setup(kind="idle", flows=int(point.tags["x"])), tables)

    def ours(self, runs: pd.DataFrame) -> pd.DataFrame:
        return runs[runs["reading"] == "main"]
