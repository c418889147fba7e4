"""Paper 000 in ns-2.35 with the authors' own agents (`rampup/ns2/rbp.tcl`): the report's
ns-2 column and the runs validation/compare_rbp.py compares.

Each scheme maps to the agent ns-2.35 ships for it: reno-ssr / reno-nssr = Agent/TCP/Reno with
slow_start_restart_ 1 / 0, vegas-nssr = Agent/TCP/Vegas, RBP/rate = Agent/TCP/Vegas/RBP
(rbp_rate_algorithm_ 1), RBP/cwnd = Agent/TCP/Reno/RBP, with rbp_scale_ 1 (the paper's). A
seed's start times (`runs.start_times`) go to ns-2 as a schedule file, so the two simulators'
runs of a seed pair up.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...ns2 import Ns2Job
from ..ns2_column import Metric, Ns2Column, Ns2Point, Tolerance
from .runs import NSSR, RBP, RBP_CWND, SSR, VEGAS, Setup, start_times, sweeps

__all__ = ["AGENT", "SEEDS", "TCL_SCHEME", "Column", "job", "transfers"]

TCL_SCHEME = {SSR: "reno-ssr", NSSR: "reno-nssr", VEGAS: "vegas-nssr", RBP: "rbp-rate", RBP_CWND: "rbp-cwnd"}
AGENT = {SSR: "Reno, ssr 1", NSSR: "Reno, ssr 0", VEGAS: "Vegas, ssr 0", RBP: "Vegas/RBP", RBP_CWND: "Reno/RBP"}
#: The seeds the report's column runs at every point of Figures 6-10: 2 of the 10 keep
#: `rampup reproduce all` within its 5 minutes (docs/ns2-reading.md gives the CPU times);
#: validation/compare_rbp.py runs all 10 at the points it is given.
SEEDS = 2


def job(scheme: str, setup: Setup, seed: int, scale: float = 1.0) -> Ns2Job:
    """The ns-2 run of ``scheme`` on ``setup`` with seed ``seed``'s start times."""
    starts = start_times(seed, setup)
    schedule = "".join(f"{i} {r} {starts[r, i]:.6f}\n" for r in range(setup.rounds) for i in range(setup.clients))
    args = (f"scheme={TCL_SCHEME[scheme]}", f"burst={setup.burst}", f"queue={setup.queue}", f"delay={setup.delay_ms:g}ms",
            f"scale={scale:g}", f"mss={setup.mss}", "schedule=schedule.txt", "tmp=.")
    return Ns2Job("rbp.tcl", args, (("schedule.txt", schedule),))


def transfers(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """rbp.tcl's transfers as rampup's transfers table names them (``index`` = round, NaN
    elapsed for a transfer that never completed)."""
    t = tables["transfer"]
    return pd.DataFrame({"flow": t["client"], "index": t["round"], "elapsed_s": t["elapsed"].where(t["elapsed"] >= 0),
                         "drops": t["drops"], "retransmits": t["retransmits"]})


class Column(Ns2Column):
    group = ("sweep", "scheme", "x")
    metrics = (Metric("restart_elapsed_s", "restart elapsed (s)"), Metric("restart_drops", "restart drops per transfer", fmt="{:.2f}"),
               Metric("startup_elapsed_s", "round 1 elapsed (s)"))
    tolerances = (Tolerance("restart_elapsed_s", 0.05), Tolerance("restart_drops", 0.10, 0.05), Tolerance("startup_elapsed_s", 0.05))
    paired = True
    text = (f"ns-2.35 with the authors' agents (`rampup/ns2/rbp.tcl`: reno-ssr and reno-nssr = Agent/TCP/Reno with "
            "slow_start_restart_ 1 and 0, vegas-nssr = Agent/TCP/Vegas, RBP/rate = Agent/TCP/Vegas/RBP, RBP/cwnd = "
            "Agent/TCP/Reno/RBP, rbp_scale_ 1; ns 2.0b17's windowInit_ 1, tcpTick_ 0.1 s and minrto_ 1 s, window_ 32, DelAck "
            "sinks, no limited transmit; the 10 KB and 24 KB queues as the 9 and 23 packets of 1040 bytes they hold) at every "
            f"point of Figures 6-10, seeds 1-{SEEDS} with the same start times as ours, beside our main variant at those seeds.")

    def points(self, ctx: Any) -> list[Ns2Point]:
        out = []
        for sw in sweeps(ctx.quick):
            for x in sw.xs:
                setup = sw.make(Setup(), x)
                for scheme in TCL_SCHEME:
                    for seed in range(1, min(SEEDS, ctx.seeds_or(10)) + 1):
                        out.append(Ns2Point({"sweep": sw.name, "scheme": scheme, "x": float(x), "seed": seed}, job(scheme, setup, seed)))
        return out

    def measure(self, point: Ns2Point, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
        t = transfers(tables)
        restart, startup = t[t["index"] >= 1], t[t["index"] < 1]
        return {"restart_elapsed_s": restart["elapsed_s"].mean(), "restart_drops": restart["drops"].mean(),
                "startup_elapsed_s": startup["elapsed_s"].mean()}

    def ours(self, runs: pd.DataFrame) -> pd.DataFrame:
        return runs[runs["variant"] == "main"]
