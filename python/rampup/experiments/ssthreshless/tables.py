"""The report's tables: each of the paper's tables beside ours, and the figure data."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..present import pm, x_table
from .metrics import points_of, series_of
from .paper import PAPER_LABEL, TABLE2_GAMMAS, paper
from .runs import MAIN, MODERN, MSS, NS2, READINGS, SLS, SLS_TICK, SS_A, SS_L, SS_S, SWEEP_SCHEMES, TODAY, VEGAS, VEGAS_RFC, Sweep


def _fmt(v: float | None, fmt: str = "{:.2f}") -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)


def table1(points: pd.DataFrame, yours: Sequence[str] = ()) -> pd.DataFrame:
    """Table I's slow starts in every reading, then today's startups and the ``--with``
    startups (`yours`; reading main only)."""
    rows = []
    for k in (SS_L, SS_A, SS_S):
        row: dict[str, Any] = {"scheme": PAPER_LABEL[k], "paper util %": _fmt(paper("I", k, 0)),
                               "paper highest seq": _fmt(paper("I", k, 1), "{:.0f}")}
        for r in READINGS:
            p = points_of(points, "I", r, k)
            row[f"util % [{r}]"] = pm(p, 250, "util_pct")
        m = points_of(points, "I", MAIN, k)
        n = points_of(points, "I", NS2, k)
        row["new segs [main]"] = pm(m, 250, "new_segments", "{:.0f}")
        row["new segs [ns2]"] = pm(n, 250, "new_segments", "{:.0f}")
        row["drops / timeouts [main]"] = f"{m.at[250, 'drops']:.0f} / {m.at[250, 'timeouts']:.1f}"
        row["drops / timeouts [ns2]"] = f"{n.at[250, 'drops']:.0f} / {n.at[250, 'timeouts']:.1f}"
        rows.append(row)
    for k, m in series_of(points, "I", MAIN, MODERN + list(yours)).items():
        rows.append({"scheme": k, "util % [main]": pm(m, 250, "util_pct"), "new segs [main]": pm(m, 250, "new_segments", "{:.0f}"),
                     "drops / timeouts [main]": f"{m.at[250, 'drops']:.0f} / {m.at[250, 'timeouts']:.1f}"})
    return pd.DataFrame(rows).fillna("")


def table2(points: pd.DataFrame, yours: Sequence[str] = ()) -> pd.DataFrame:
    """SSthreshless Start by γ; a ``--with`` startup, which has no γ, ran once at the set-up's
    defaults and stands in every row."""
    rows = []
    xs = sorted(points_of(points, "II", MAIN, SLS).index)
    for g in xs:
        row: dict[str, Any] = {"γ": f"{g:g}", "paper": TABLE2_GAMMAS.get(int(g), "").replace("SLS gamma ", ""),
                               "paper util %": _fmt(paper("II", str(int(g)), 0)),
                               "paper highest seq": _fmt(paper("II", str(int(g)), 1), "{:.0f}")}
        for r in (MAIN, NS2):
            for s in (SLS, SLS_TICK):
                row[f"{s} util % [{r}]"] = pm(points_of(points, "II", r, s), g, "util_pct")
        row["SLS drops [main]"] = f"{points_of(points, 'II', MAIN, SLS).at[g, 'drops']:.0f}"
        for k in yours:
            for r in (MAIN, NS2):
                p = points_of(points, "II", r, k)
                row[f"{k} util % [{r}] (no γ)"] = pm(p, p.index[0], "util_pct") if len(p) else ""
        rows.append(row)
    return pd.DataFrame(rows)


def table3(points: pd.DataFrame, yours: Sequence[str] = ()) -> pd.DataFrame:
    rows = []
    for k in (SLS, SLS_TICK, SS_A, VEGAS, VEGAS_RFC, *yours):
        lab = PAPER_LABEL.get(k, "")
        m, n, t = (points_of(points, "III", r, k) for r in (MAIN, NS2, TODAY))
        rows.append({
            "scheme": k, "paper": lab, "paper util %": _fmt(paper("III", k, 0)) if k in PAPER_LABEL else "",
            "paper highest seq": _fmt(paper("III", k, 1), "{:.0f}") if k in PAPER_LABEL else "",
            "util % [main]": pm(m, 200, "util_pct"), "new segs [main]": pm(m, 200, "new_segments", "{:.0f}"),
            "drops / timeouts [main]": f"{m.at[200, 'drops']:.0f} / {m.at[200, 'timeouts']:.1f}",
            "util % [ns2]": pm(n, 200, "util_pct"), "new segs [ns2]": pm(n, 200, "new_segments", "{:.0f}"),
            "drops / timeouts [ns2]": f"{n.at[200, 'drops']:.0f} / {n.at[200, 'timeouts']:.1f}",
            f"util % [{TODAY}]": pm(t, 200, "util_pct"),
            f"drops / marks / timeouts [{TODAY}]": f"{t.at[200, 'drops']:.0f} / {t.at[200, 'marks']:.0f} / {t.at[200, 'timeouts']:.1f}",
        })
    return pd.DataFrame(rows)


def table_sweep_point(points: pd.DataFrame, sw: Sweep, yours: Sequence[str] = ()) -> pd.DataFrame:
    """Tables IV-VI: every scheme (and each ``--with`` startup) at the sweep's table point,
    utilization and throughput ratio."""
    x = float(sw.table_x)
    rows = []
    base = {r: {s: points_of(points, sw.name, r, s) for s in (SLS, SLS_TICK)} for r in (MAIN, NS2)}
    for k in SWEEP_SCHEMES + MODERN + list(yours):
        pr, ps = paper(sw.table, k, 2), paper(sw.table, SLS, 0)
        row: dict[str, Any] = {"scheme": k, "paper util %": _fmt(paper(sw.table, k, 0)),
                               "paper ratio %": _fmt(pr),
                               # The paper's SLS utilization over its ratio: where this differs from the
                               # printed utilization, one of the two paper numbers is wrong.
                               "paper util implied by ratio %": _fmt(100 * ps / pr if pr and ps else None)}
        for r in (MAIN, NS2):
            p = points_of(points, sw.name, r, k)
            row[f"util % [{r}]"] = pm(p, x, "util_pct")
            for s, lab in ((SLS, "ratio %"), (SLS_TICK, "ratio (tick) %")):
                b = base[r][s]
                ok = x in p.index and x in b.index and p.at[x, "util_pct"] > 0
                row[f"{lab} [{r}]"] = f"{100 * b.at[x, 'util_pct'] / p.at[x, 'util_pct']:.1f}" if ok else ""
        rows.append(row)
    return pd.DataFrame(rows)


def table_sweep(points: pd.DataFrame, sw: Sweep, reading: str, yours: Sequence[str] = ()) -> pd.DataFrame:
    """Figure data: x rows, one column per scheme, mean utilization ± 90% CI."""
    xs = sorted(points_of(points, sw.name, reading, SLS).index)
    return x_table(series_of(points, sw.name, reading, SWEEP_SCHEMES + MODERN + list(yours)), xs, [("util_pct", "", 1.0, "{:.1f}")])


def tick_table(points: pd.DataFrame, sw: Sweep) -> pd.DataFrame:
    """Where the base RTT falls on the 10 ms grid and how much queue reads as one more tick."""
    rows = []
    p = points_of(points, sw.name, MAIN, SLS_TICK)
    q = points_of(points, sw.name, MAIN, SLS)
    for x in sorted(p.index):
        net = sw.make(x)
        base = net.base_rtt_ms
        ticks = int(base / 10 + 0.5)
        margin = (ticks + 0.5) * 10 - base
        pkt_ms = (MSS + 40) * 8 / (net.rate_mbps * 1e6) * 1e3
        rows.append({"x": f"{x:g}", "base RTT (ms)": f"{base:.2f}", "ticks": ticks,
                     "queue that reads as +1 tick (ms)": f"{margin:.2f}",
                     "… in packets": f"{margin / pkt_ms:.1f}",
                     "SLS (10 ms tick) util % [main]": f"{p.at[x, 'util_pct']:.1f}",
                     "SLS util % [main]": f"{q.at[x, 'util_pct']:.1f}"})
    return pd.DataFrame(rows)


def table7(points: pd.DataFrame, yours: Sequence[str] = ()) -> pd.DataFrame:
    rows = []
    for k in SWEEP_SCHEMES + list(yours):
        m, n = points_of(points, "VII", MAIN, k), points_of(points, "VII", NS2, k)
        rows.append({
            "scheme": k, "paper Mb/s": _fmt(paper("VII", k, 3)),
            "paper highest seq": _fmt(paper("VII", k, 1), "{:.0f}"),
            "Mb/s [main]": pm(m, 10, "mbps"), "new segs [main]": pm(m, 10, "new_segments", "{:.0f}"),
            "Mb/s in 1-5 s / 6-10 s [main]": f"{m.at[10, 'mbps_1_5']:.1f} / {m.at[10, 'mbps_6_10']:.1f}",
            "drops / timeouts [main]": f"{m.at[10, 'drops']:.0f} / {m.at[10, 'timeouts']:.1f}",
            "Mb/s [ns2]": pm(n, 10, "mbps"), "new segs [ns2]": pm(n, 10, "new_segments", "{:.0f}"),
        })
    return pd.DataFrame(rows)


def table10(points: pd.DataFrame, yours: Sequence[str] = ()) -> pd.DataFrame:
    """Fig. 10's runs: flows 3-5 run SSthreshless Start, in either RTT reading, or a ``--with`` startup."""
    rows = []
    for r in (MAIN, NS2):
        for s in (SLS, SLS_TICK, *yours):
            p = points_of(points, "fig10", r, s).iloc[0]
            row: dict[str, Any] = {"reading": r, "flows 3-5": s,
                                   "Jain (last third)": f"{p['jain_end']:.3f} ± {p['jain_end_ci90']:.3f}"}
            for i in range(1, 6):
                kind = " (SS (S))" if i <= 2 else ""  # flows 3-5 run the row's startup
                row[f"flow {i}{kind} Mb/s / cwnd"] = f"{p[f'flow{i}_mbps_end']:.1f} / {p[f'flow{i}_cwnd_end']:.0f}"
            row["late flow catch-up"] = f"{p['late_catchup']:.2f}"
            rows.append(row)
    return pd.DataFrame(rows)


def table_fig3(points: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3's runs: utilization, drops and timeouts of SS (A) with buffer 100."""
    rows = []
    for r in (MAIN, NS2):
        p = points_of(points, "fig3", r, SS_A)
        rows.append({"reading": r, "util %": pm(p, 100, "util_pct"), "drops": f"{p.at[100, 'drops']:.0f}",
                     "timeouts": f"{p.at[100, 'timeouts']:.1f}",
                     "seeds with a timeout": int(p.at[100, "timed_out"])})
    return pd.DataFrame(rows)
