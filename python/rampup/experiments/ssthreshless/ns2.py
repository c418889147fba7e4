"""Paper 001's single-flow baselines in ns-2.35 (`rampup/ns2/single_flow.tcl`): the report's
ns-2 column and the runs validation/compare_ns2.py compares.

ns-2.35 has the slow-start baselines (Agent/TCP/Newreno with the initial ssthresh set at
t = 0), Limited Slow Start (``max_ssthresh_``) and Vegas; not SSthreshless Start nor Hoe's
change. Its reading ``main`` is an ACK per segment and no window cap; ``ns2`` is DelAck sinks
and ``window_`` = the initial ssthresh for SS (S/A/L) (`runs.READINGS`). One flow on a fixed
path is deterministic in ns-2, which starts it at t = 0; ours start within 10 ms
(``start_jitter``), so ours is the mean over all our seeds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...ns2 import Ns2Job
from ..ns2_column import Metric, Ns2Column, Ns2Point, Tolerance
from .runs import CAPPED, LSS, MAIN, MSS, NS2, READINGS, SCHEMES, SS_A, SS_L, SS_S, VEGAS, Net, Reading, sweeps

__all__ = ["NS2_SCHEMES", "Column", "args", "job"]

#: The schemes ns-2.35 has, and its agent for each.
NS2_SCHEMES = {SS_S: "Newreno", SS_A: "Newreno", SS_L: "Newreno", LSS: "Newreno", VEGAS: "Vegas"}


def args(scheme: str, net: Net, reading: Reading) -> dict[str, Any]:
    """single_flow.tcl's arguments for ``scheme`` on ``net`` under ``reading``."""
    keys = SCHEMES[scheme]
    ssthresh = net.bdp if keys.get("initial_ssthresh") == "BDP" else int(keys.get("initial_ssthresh", 0))
    out: dict[str, Any] = {"tcp": NS2_SCHEMES[scheme], "rate": f"{net.rate_mbps:g}Mb", "delay": f"{net.delay_ms:g}ms",
                           "buffer": net.queue, "ssthresh": ssthresh, "mss": MSS, "duration": f"{net.duration_s:g}",
                           "access_buffer": 10000, "delack": int(reading.delayed_ack)}
    if reading.cap and scheme in CAPPED:
        out["cap"] = ssthresh
    startup = keys.get("startup")
    if isinstance(startup, dict) and startup.get("kind") == "limited-slow-start":
        out["max_ssthresh"] = startup["max_ssthresh"]
    return out


def job(keys: dict[str, Any]) -> Ns2Job:
    return Ns2Job("single_flow.tcl", tuple(f"{k}={v}" for k, v in keys.items()))


class Column(Ns2Column):
    group = ("exp", "reading", "scheme", "x")
    metrics = (Metric("util_pct", "utilization (%)", fmt="{:.2f}"), Metric("drops", "drops", fmt="{:.0f}"),
               Metric("timeouts", "timeouts", fmt="{:.1f}"))
    tolerances = (Tolerance("util_pct", 0.05),)
    text = ("ns-2.35's one-flow runs (`rampup/ns2/single_flow.tcl`, Agent/TCP/Newreno for SS (S/A/L) and LSS with "
            "max_ssthresh_ 100, Agent/TCP/Vegas; windowInit_ 2, tcpTick_ 0.01 s, minrto_ 1 s, the same bytes on the wire) "
            "on Table I in readings main (an ACK per segment, no cap) and ns2 (DelAck sinks, window_ = the initial "
            "ssthresh for SS) and on every point of the buffer, delay and rate sweeps (Tables IV-VI) in reading main. "
            "ns-2 has neither SSthreshless Start nor Hoe's change, and single_flow.tcl no UDP source (Table VII). One "
            "flow is deterministic in ns-2 (one run per point, started at t = 0); ours is the mean over our seeds (starts "
            "within 10 ms).")

    def points(self, ctx: Any) -> list[Ns2Point]:
        specs = [("I", r, s, Net(), 250.0) for r in (MAIN, NS2) for s in (SS_L, SS_A, SS_S)]
        specs += [(sw.name, MAIN, s, sw.make(x), float(x)) for sw in sweeps(ctx.quick) for x in sw.xs for s in NS2_SCHEMES]
        return [Ns2Point({"exp": e, "reading": r, "scheme": s, "x": x, "seed": 1, "capacity_bytes": net.capacity_bytes},
                         job(args(s, net, READINGS[r]))) for e, r, s, net, x in specs]

    def measure(self, point: Ns2Point, tables: dict[str, pd.DataFrame]) -> dict[str, float]:
        f = tables["flow"].iloc[0]
        return {"util_pct": 100.0 * float(f["delivered_bytes"]) / point.tags["capacity_bytes"],
                "drops": float(f["bottleneck_drops"] + f["ack_path_drops"] + f["access_drops"]), "timeouts": float(f["timeouts"])}

    def ours(self, runs: pd.DataFrame) -> pd.DataFrame:
        return runs
