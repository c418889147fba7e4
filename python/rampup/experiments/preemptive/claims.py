"""The claims of SPEC.md §002 as explicit checks on the figure points.

The improvement at a point is 1 − (Preemptive's mean duration / Reno's), the means over
seeds; both schemes run the same connections for a seed (the web workload is drawn apart from
TCP), so the comparison is paired. Tolerances come from the paper's words: "shorter" and
"never lower" are one-sided, "more than 8%" is the paper's own bound.
"""

from __future__ import annotations

import pandas as pd

from .. import framework
from ..checks import Check
from ..framework import ClaimRule, View, paper_data
from ..then_now import Row
from .runs import PREEMPTIVE, RACK, RACK_PREEMPTIVE, RENO

MEAN, CI = "mean_ms", "mean_ms_ci90"
MORE_THAN = 0.08  # "more than 8%"
NEARLY_AS_GOOD = 0.05  # "nearly as good": within 5 percentage points of factor 2's gain
#: The sweeps whose points are "every case" of Fig. 6 and §7.2.
CASES = ("load", "delay", "factor", "cutout")


def improvement(v: View, sweep: str, x: float) -> float:
    reno, pre = v.of(RENO, sweep=sweep), v.of(PREEMPTIVE, sweep=sweep)
    return 1.0 - pre.at[x, MEAN] / reno.at[x, MEAN]


def _points(v: View, sweeps=CASES) -> list[tuple[str, float]]:  # type: ignore[no-untyped-def]
    return [(s, x) for s in sweeps for x in v.of(PREEMPTIVE, sweep=s).index]


def check_a(v: View) -> list[Check]:
    return [Check(f"shorter ({s})", x, bool(improvement(v, s, x) > 0), "improvement over Reno", "> 0", improvement(v, s, x), "> 0")
            for s, x in _points(v)]


def check_b(v: View) -> list[Check]:
    out = []
    for s, x in _points(v):
        reno, pre = v.of(RENO, sweep=s), v.of(PREEMPTIVE, sweep=s)
        excess = pre.at[x, MEAN] - (reno.at[x, MEAN] + reno.at[x, CI])
        out.append(Check(f"never worse ({s})", x, bool(excess <= 0), "Preemptive's mean − (Reno's mean + its 90% CI), ms",
                         "≤ 0 (never lower performance)", excess, "≤ 0"))
    return out


def check_c(v: View) -> list[Check]:
    short, long = improvement(v, "delay", 10), improvement(v, "delay", 60)
    return [Check("gain at 10 ms > gain at 60 ms", 60, bool(short > long), "improvement at 10 ms − at 60 ms", "39% − 8% > 0",
                  short - long, "> 0")]


def check_d(v: View) -> list[Check]:
    gains = {x: improvement(v, "factor", x) for x in v.of(PREEMPTIVE, sweep="factor").index}
    pre = v.of(PREEMPTIVE, sweep="factor")
    out = [Check("factor 2 best", x, bool(gains[2] >= gains[x]), "improvement with k = 2 − with k = x", "≥ 0", gains[2] - gains[x], "≥ 0")
           for x in gains if x != 2]
    out.append(Check("k = 4 nearly as good as 2", 4, bool(gains[4] >= gains[2] - NEARLY_AS_GOOD), "improvement with k = 4 − with k = 2",
                     "nearly as good", gains[4] - gains[2], f"≥ −{NEARLY_AS_GOOD:.2f}"))
    out.append(Check("k = 4 fewer spurious", 4, bool(pre.at[4, "spurious"] < pre.at[2, "spurious"]),
                     "spurious retransmissions per run, k = 4 / k = 2", "< 1", pre.at[4, "spurious"] / max(pre.at[2, "spurious"], 1e-9), "< 1"))
    return out


def check_e(v: View) -> list[Check]:
    return [Check(f"more than 8% ({s})", x, bool(improvement(v, s, x) > MORE_THAN), "improvement over Reno", "> 0.08",
                  improvement(v, s, x), "> 0.08") for s, x in _points(v, ("load", "delay"))]


def _pct(v: View, sweep: str, x: float) -> str:
    """The change in mean duration, Preemptive against Reno: "−9.8%" when shorter."""
    change = -improvement(v, sweep, x)
    return "±0.0%" if change == 0 else f"{change:+.1%}".replace("-", "−")


def numbers_a(v: View) -> str:
    return "duration change, Preemptive vs Reno: " + "; ".join(f"{s} {x:g} {_pct(v, s, x)}" for s, x in _points(v)) + "."


def numbers_b(v: View) -> str:
    worst = max(_points(v), key=lambda p: -improvement(v, *p))
    return f"smallest gain {improvement(v, *worst):.1%} ({worst[0]} {worst[1]:g})."


def numbers_c(v: View) -> str:
    return f"at 25% utilization: 10 ms {_pct(v, 'delay', 10)}, 60 ms {_pct(v, 'delay', 60)}."


def numbers_d(v: View) -> str:
    pre = v.of(PREEMPTIVE, sweep="factor")
    return "; ".join(f"k = {x:g}: {_pct(v, 'factor', x)}, {pre.at[x, 'spurious']:.0f} spurious per run" for x in pre.index) + "."


def numbers_e(v: View) -> str:
    reno, pre = v.of(RENO, sweep="load"), v.of(PREEMPTIVE, sweep="load")
    return (f"base case (10 ms, 50%): Reno {reno.at[50, MEAN]:.0f} ms, Preemptive {pre.at[50, MEAN]:.0f} ms ({_pct(v, 'load', 50)}); "
            "load 25/50/75%: " + ", ".join(_pct(v, "load", x) for x in reno.index) + ".")


RULES = {
    "a": "at every point of the load, delay, factor and cut-out sweeps: Preemptive's mean duration below Reno's.",
    "b": "at every such point: Preemptive's mean at most Reno's mean plus Reno's 90% CI half-width (not measurably worse).",
    "c": "the improvement at 10 ms above the improvement at 60 ms (25% utilization).",
    "d": f"k = 2's improvement at least k = 3's and k = 4's; k = 4's within {NEARLY_AS_GOOD:.0%} (points) of k = 2's; fewer "
         "spurious retransmissions with k = 4 than with k = 2.",
    "e": f"at every point of the load and delay sweeps: an improvement above {MORE_THAN:.0%}.",
}
CHECKS = {"a": check_a, "b": check_b, "c": check_c, "d": check_d, "e": check_e}
NUMBERS = {"a": numbers_a, "b": numbers_b, "c": numbers_c, "d": numbers_d, "e": numbers_e}


def claim_rules() -> list[ClaimRule]:
    return framework.claim_rules("preemptive", RULES, CHECKS, NUMBERS)


def paper_improvements() -> pd.DataFrame:
    """The paper's improvements (Fig. 6) as rows: sweep, x, improvement."""
    n = paper_data("preemptive")["numbers"]
    rows = [{"sweep": "delay", "x": float(k), "paper": v / 100} for k, v in n["delay"].items()]
    rows += [{"sweep": "load", "x": float(k), "paper": v / 100} for k, v in n["load"].items()]
    return pd.DataFrame(rows)


#: Then and now (`then_now`): claim (a)'s mean duration on its sweeps, the paper's mechanism
#: against today's loss recovery (SACK with RACK-TLP), alone and on top of it.
THEN_NOW = [Row("a", f"mean duration (ms), the {s} sweep", "mean_ms", True, {"sweep": s}, unit=u, fmt="{:.0f}")
            for s, u in zip(CASES, ("% load", "ms", "", "KiB"), strict=True)]
THEN_NOW_PAIRS = ((PREEMPTIVE, RACK), (RACK_PREEMPTIVE, RACK))
