"""`reproduce`: every run, then the report: claims, set-up, verdict rules, each of the
paper's tables and figures beside ours, and the data."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import then_now
from ..checks import count, verdict
from ..context import Context
from ..framework import Alternate, ClaimRule, Experiment, Point, Results, Verdict, then_now_table
from ..present import docs_table, errorbars, settings_table, with_yours
from ..report import Report
from ..view import View
from ..yours import Beside, Source
from . import ns2
from .claims import ABOUT_A_STARTUP, ABOUT_GAMMA, ABOUT_SLS, BEHIND_TODAYS_QUEUE, DEFAULT_GAMMA, THEN_NOW, claim_rules
from .metrics import METRICS, acked_at, jain, measure, points_of, series_of
from .paper import PAPER_LABEL
from .runs import (
    BBR,
    CUBIC_HS,
    FAIR_DURATION,
    FAIR_LATE,
    HC,
    HPP,
    LSS,
    MAIN,
    MODERN,
    MSS,
    NS2,
    QUICK_FAIR_DURATION,
    QUICK_FAIR_LATE,
    READINGS,
    SCHEMES,
    SEARCH,
    SLS,
    SLS_TICK,
    SS_A,
    SS_L,
    SS_S,
    SWEEP_SCHEMES,
    THEN_NOW_PAIRS,
    TODAY,
    VEGAS,
    VEGAS_RFC,
    Net,
    Sweep,
    points,
    scenario,
    sweeps,
    tcp_for,
)
from .tables import table1, table2, table3, table7, table10, table_fig3, table_sweep, table_sweep_point, tick_table

# ----------------------------------------------------------------------- figures

STYLE = {
    SLS: dict(color="tab:red", marker="o"),
    SLS_TICK: dict(color="tab:red", marker="o", linestyle="--", markerfacecolor="none"),
    HC: dict(color="tab:green", marker="D"),
    LSS: dict(color="tab:purple", marker="v"),
    SS_S: dict(color="tab:blue", marker="s"),
    SS_A: dict(color="tab:cyan", marker="^"),
    SS_L: dict(color="tab:gray", marker="x"),
    VEGAS: dict(color="tab:orange", marker="P"),
    VEGAS_RFC: dict(color="tab:brown", marker="*"),
    HPP: dict(color="black", marker="+", linestyle=":"),
    SEARCH: dict(color="tab:pink", marker="d", linestyle=":"),
    CUBIC_HS: dict(color="tab:olive", marker="X", linestyle=":"),
    BBR: dict(color="tab:brown", marker="1", linestyle="-."),
}


def _line_style(k: str, styles: Mapping[str, dict[str, Any]] = STYLE) -> dict[str, Any]:
    return {a: b for a, b in styles[k].items() if a in ("color", "linestyle")}


def _series(ts: pd.DataFrame, flow: int = 0) -> pd.DataFrame:
    f = ts[ts["flow"] == flow]
    return pd.DataFrame({"t": f["t_ns"].to_numpy() / 1e9, "cwnd": f["cwnd_bytes"].to_numpy() / MSS,
                         "seq": f["snd_nxt"].to_numpy() / MSS,
                         "events": f["congestive_events"].to_numpy() if "congestive_events" in f else 0})


def _queue(q: pd.DataFrame, name: str = "left->right", step: float = 0.005) -> pd.DataFrame:
    """Bottleneck queue length (packets), max per `step` seconds."""
    f = q[q["queue"] == name]
    t = f["t_ns"].to_numpy() / 1e9
    b = (t / step).astype(int)
    g = pd.DataFrame({"b": b, "n": f["packets"].to_numpy()}).groupby("b")["n"].max()
    return pd.DataFrame({"t": g.index * step, "packets": g.to_numpy()})


def _grid_and_legend(axes: Any) -> None:
    """A light grid and a small legend on each of ``axes`` (one or an array)."""
    for ax in np.ravel(axes):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")


def fig_sweep(points: pd.DataFrame, sw: Sweep, title: str, yours: Sequence[str] = ()) -> Figure:
    fig = Figure(figsize=(13, 4.8), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, r in zip(axes, (MAIN, NS2), strict=True):
        errorbars(ax, series_of(points, sw.name, r, SWEEP_SCHEMES + MODERN + list(yours)), "util_pct", with_yours(STYLE, yours))
        ax.set_xlabel(sw.xlabel)
        ax.set_title(f"reading {r}: {READINGS[r].label}", fontsize="small")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("link utilization over 10 s (%)")
    axes[1].legend(fontsize="small", loc="lower right")
    return fig


# ----------------------------------------------------------------------- the experiment

#: Experiments whose seed-1 runs the figures plot.
FIGURE_EXPS = {"I", "fig3", "II", "III", "VII", "fig10"}


#: A ``--with`` startup stands beside SSthreshless Start: at each of its points (Table II's
#: at the default γ alone: the sweep is of SSthreshless Start's parameter), and beside today's
#: startups in Table I, where SSthreshless Start does not run; it plays SSthreshless Start in
#: the claims about it, and then and now holds it against today's startups and against SLS.
BESIDE_STARTUP = Beside(
    SLS, "SLS", "".join(sorted(ABOUT_A_STARTUP)),
    (Source(SLS, "ssthreshless", lambda tags: tags["exp"] != "II" or tags["x"] == DEFAULT_GAMMA),
     Source(HPP, "hystart++", lambda tags: tags["exp"] == "I")),
    what="SSthreshless Start",
    not_judged=f"({'), ('.join(sorted(ABOUT_GAMMA))}) are about SSthreshless Start's γ, and the others about slow "
               "start's ssthresh, Vegas or the paper's TCP around every scheme.")

#: A ``--with`` congestion controller stands beside Vegas, the one controller the paper
#: compares with the NewReno schemes, at Vegas's points (in both readings), playing Vegas in
#: the claims about it.
BESIDE_CC = Beside(
    VEGAS, VEGAS, "hl", (Source(VEGAS, "vegas"),), what="Vegas",
    not_judged="the others are about the startups, which run over NewReno.")


class Ssthreshless(Experiment):
    name = "ssthreshless"
    beside = {"startup": BESIDE_STARTUP, "cc": BESIDE_CC}
    ns2 = ns2.Column()
    index_figure = "fig6"
    then_now_rows, then_now_pairs, then_now_where = THEN_NOW, THEN_NOW_PAIRS, {"reading": MAIN}
    title = "Paper 001 (SSthreshless Start) — reproduction of §II and §V, Tables I-VII, Figures 2-10"
    group = ("exp", "reading", "scheme", "x")
    metrics = tuple(METRICS)
    totals = ("timed_out",)
    firsts = ("rate_mbps", "delay_ms", "buffer", "bdp")
    alternates_intro = "Other readings — "
    rules_intro = "Each claim is a list of checks on the points (means over seeds)."
    rules_after = (
        "The count of sub-claims that hold stands beside each verdict. The verdict in the Claims table uses reading main and SSthreshless "
        "Start with exact RTT samples (SLS); the verdicts with the 10 ms tick and with reading ns2 are given in "
        "the reason. Each tolerance is read from the paper's words, two-sided where they are (\"about 80%\", "
        "\"converge to the same\", HC and SLS both \"scale well\") and one-sided where they are (\"high\", "
        "\"below 30%\", \"degrade\"); none is taken from a run's result.")
    checks_caption = ("Each check (reading main, SLS exact): the quantity, the paper's value (or what its words bound), the "
                      "tolerance, ours over the points checked, and the points that pass")
    data_text = (
        "runs.csv: one row per run (tags exp, reading, scheme, x, seed; utilization, Mb/s, distinct segments "
        "sent, drops, timeouts, retransmissions; from the time series where a run keeps one: peak flight, the "
        "largest cwnd before ssthresh is first set and that ssthresh, when cwnd first reaches the BDP and the "
        "utilization after, congestive events and first-second goodput, interval goodputs for Table VII, and "
        "fairness and early goodput for Fig. 10); "
        "points.csv: means and 90% CI half-widths per (exp, reading, scheme, x); example-scenario.toml: one run's "
        "scenario. The ns-2 cross-check of the baselines (NewReno with ssthresh 32/500/5000, Limited Slow Start, "
        "Vegas) is validation/compare_ns2.py (docs/validation.md).")

    def points(self, ctx: Context) -> list[Point]:
        return points(ctx.seeds_or(5), ctx.quick)

    def measure(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
        return measure(point, tables)

    def example_of(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame] | None:
        """The bottleneck queue and the time-series columns the figures plot, of the seed-1 runs."""
        if point.tags["seed"] != 1 or point.tags["exp"] not in FIGURE_EXPS:
            return None
        out = {}
        if "timeseries" in tables:
            ts = tables["timeseries"]
            out["timeseries"] = ts[[c for c in ("t_ns", "flow", "cwnd_bytes", "snd_nxt", "snd_una", "congestive_events") if c in ts]].copy()
        if "queues" in tables:
            q = tables["queues"]
            out["queues"] = q[q["queue"] == "left->right"].copy()
        return out

    def example_scenario(self) -> tuple[str, dict[str, Any]]:
        net = Net(buffer=200)
        return ("One run of the reproduction: Table III (buffer 200), SSthreshless Start, seed 1.",
                scenario([(tcp_for(SLS, net, READINGS[MAIN]), 0.0)], net, 1, "tsq"))

    def claims(self) -> list[ClaimRule]:
        return claim_rules()

    def views(self, summary: pd.DataFrame) -> tuple[View, Callable[[ClaimRule], Sequence[Alternate]]]:
        def view(reading: str, sls: str) -> View:
            return View(summary, {"reading": reading}, {"SLS": sls})

        def alternates(rule: ClaimRule) -> list[Alternate]:
            sls = rule.id in ABOUT_SLS
            return ([Alternate("SLS with 10 ms tick", view(MAIN, SLS_TICK), True)] if sls else []) + \
                [Alternate("reading ns2", view(NS2, SLS), True)] + \
                ([Alternate("reading ns2 + 10 ms tick", view(NS2, SLS_TICK), True)] if sls else []) + \
                ([Alternate(f"reading {TODAY}", view(TODAY, SLS), True)] if rule.id in BEHIND_TODAYS_QUEUE else [])

        return view(MAIN, SLS), alternates

    def docs_table(self, res: Results, verdicts: list[Verdict]) -> str:
        """The claims as docs/ssthreshless.md shows them: the primary verdict and the other
        readings', each with its count of checks passed."""
        labels = [label for label, _, _ in verdicts[0].alternates] if verdicts else []
        rows = []
        for v in verdicts:
            by_label = {label: f"{verdict(ch)} ({count(ch)})" for label, ch, _ in v.alternates}
            rows.append([f"({v.rule.id}) {v.rule.paper}", v.cell(), *(by_label.get(label, "") for label in labels)])
        now = then_now_table(self, res)
        return (docs_table(["claim", "verdict (main, SLS exact)", *labels], rows) + "\n\n"
                + docs_table(list(now.columns), now.astype(str).values.tolist()) + "\n")

    def setup(self, rep: Report, res: Results, ctx: Context) -> None:
        _setup_text(rep, int(res.runs["seed"].max()), ctx.quick)

    def sections(self, rep: Report, res: Results, verdicts: list[Verdict], ctx: Context) -> None:
        for section in SECTIONS:
            section(rep, res, ctx)


def _example(res: Results, exp: str, reading: str, scheme: str, x: float | None = None) -> dict[str, pd.DataFrame]:
    """The kept tables of the seed-1 run of ``scheme`` in ``exp`` and ``reading`` (at ``x``)."""
    return res.example(exp=exp, reading=reading, scheme=scheme, seed=1, **({} if x is None else {"x": x}))


def _table1_fig2(rep: Report, res: Results, ctx: Context) -> None:
    points = res.summary
    rep.heading("Table I and Fig. 2: slow start with ssthresh 5000 / 500 / 32 (buffer 250)")
    rep.table(table1(points, res.yours), "Table I: link utilization over 10 s (mean ± 90% CI) in every reading of ACK policy × "
                              "window cap, beside the paper; new segs = distinct segments sent (the paper's highest "
                              "sequence number sent)")
    fig = Figure(figsize=(13, 8), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True)
    for col, r in enumerate((MAIN, NS2)):
        for k in (SS_L, SS_A, SS_S):
            s = _series(_example(res, "I", r, k)["timeseries"])
            axes[0, col].plot(s["t"], s["cwnd"], label=k, drawstyle="steps-post", **_line_style(k))
            axes[1, col].plot(s["t"], s["seq"], label=k, **_line_style(k))
        axes[0, col].set_title(f"reading {r}: {READINGS[r].label}", fontsize="small")
        axes[0, col].set_ylabel("cwnd (segments)")
        axes[0, col].set_yscale("log")
        axes[1, col].set_ylabel("snd_nxt (segments; falls back after a timeout)")
        axes[1, col].set_xlabel("time (s)")
        _grid_and_legend(axes[:, col])
    rep.figure(fig, "fig2", "Fig. 2: cwnd and sequence number over time of NewReno slow start with ssthresh 5000 (L), 500 (A), 32 (S); seed 1")


def _fig3(rep: Report, res: Results, ctx: Context) -> None:
    points = res.summary
    rep.heading("Fig. 3: ssthresh = BDP with a buffer of 0.2 BDP")
    fig = Figure(figsize=(13, 4.5), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, r in zip(axes, (MAIN, NS2), strict=True):
        t = _example(res, "fig3", r, SS_A)
        s, q = _series(t["timeseries"]), _queue(t["queues"])
        ax.plot(s["t"], s["cwnd"], label="cwnd", drawstyle="steps-post", color="tab:blue")
        ax.plot(q["t"], q["packets"], label="bottleneck queue (packets)", color="tab:orange", linewidth=0.8)
        ax.axhline(100, color="gray", linestyle=":", linewidth=1, label="buffer (100)")
        ax.set_xlim(0, 4)
        ax.set_xlabel("time (s)")
        ax.set_title(f"reading {r}", fontsize="small")
        _grid_and_legend(ax)
    axes[0].set_ylabel("packets")
    rep.figure(fig, "fig3", "Fig. 3: cwnd and bottleneck queue of SS (A) (ssthresh 500 = BDP) with buffer 100 = 0.2 BDP; seed 1, first 4 s")
    rep.table(table_fig3(points), "Fig. 3 runs: utilization, drops and timeouts (means over seeds)")


def _table2_fig4(rep: Report, res: Results, ctx: Context) -> None:
    points = res.summary
    rep.heading("Table II and Fig. 4: sensitivity to γ (buffer 250)")
    rep.text("The paper's three γ values were lost in extraction; we place its 'small / medium / large' rows beside "
             "γ = 1, 3 (our default) and 10, and sweep further.")
    rep.table(table2(points, res.yours), "Table II: SSthreshless Start's link utilization by γ (mean ± 90% CI)")
    fig = Figure(figsize=(15, 4.5), layout="constrained")
    axes = fig.subplots(1, 3)
    gam = sorted(points_of(points, "II", MAIN, SLS).index)
    show = [g for g in (1, 3, 10) if g in gam]
    for ax, s in zip(axes[:2], (SLS, SLS_TICK), strict=True):
        for g, c in zip(show, ("tab:blue", "tab:red", "tab:green"), strict=False):
            ser = _series(_example(res, "II", MAIN, s, g)["timeseries"])
            ax.plot(ser["t"], ser["cwnd"], label=f"γ = {g:g}", color=c, drawstyle="steps-post")
        ax.axhline(500, color="gray", linestyle=":", linewidth=1, label="BDP")
        ax.set_title(f"{s}, reading main, seed 1", fontsize="small")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments)")
        _grid_and_legend(ax)
    for r in (MAIN, NS2):
        for s in (SLS, SLS_TICK):
            p = points_of(points, "II", r, s)
            st = dict(STYLE[s])
            if r == NS2:
                st["color"] = "tab:blue"
            axes[2].errorbar(p.index, p["util_pct"], yerr=p["util_pct_ci90"], capsize=3, label=f"{s} [{r}]", **st)
    axes[2].set_xscale("log")
    axes[2].set_xlabel("γ (segments)")
    axes[2].set_ylabel("link utilization (%)")
    axes[2].set_ylim(0, 100)
    _grid_and_legend(axes[2])
    rep.figure(fig, "fig4", "Fig. 4: SSthreshless Start's cwnd for three γ values, and utilization against γ")


def _table3_fig5(rep: Report, res: Results, ctx: Context) -> None:
    points = res.summary
    rep.heading("Table III and Fig. 5: buffer 200 (0.4 BDP): cwnd and backlog")
    rep.table(table3(points, res.yours), "Table III: link utilization over 10 s (mean ± 90% CI) beside the paper")
    fig = Figure(figsize=(13, 7), layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    styles = with_yours(STYLE, res.yours)
    for k in (SS_A, VEGAS, SLS, SLS_TICK, *res.yours):
        t = _example(res, "III", MAIN, k)
        s, q = _series(t["timeseries"]), _queue(t["queues"], step=0.02)
        axes[0].plot(s["t"], s["cwnd"], label=k, drawstyle="steps-post", **_line_style(k, styles))
        axes[1].plot(q["t"], q["packets"], label=k, linewidth=0.8, **_line_style(k, styles))
    axes[0].axhline(500, color="gray", linestyle=":", linewidth=1, label="BDP")
    axes[0].set_ylim(0, 1200)  # SS (A)'s window inflated by duplicate ACKs in fast recovery is clipped
    axes[1].axhline(200, color="gray", linestyle=":", linewidth=1, label="buffer")
    axes[0].set_ylabel("cwnd (segments)")
    axes[1].set_ylabel("bottleneck backlog (packets, max per 20 ms)")
    axes[1].set_xlabel("time (s)")
    _grid_and_legend(axes)
    rep.figure(fig, "fig5", "Fig. 5: cwnd and bottleneck backlog of SS (A), Vegas and SSthreshless Start, buffer 200; reading main, seed 1 "
                            "(cwnd axis clipped at 1200)")


def _sweeps(rep: Report, res: Results, ctx: Context) -> None:
    points = res.summary
    for sw, fig_name, title in zip(sweeps(ctx.quick), ("fig6", "fig7", "fig8"),
                                   ("Fig. 6: link utilization vs buffer size (40 Mb/s, 100 ms RTT)",
                                    "Fig. 7: link utilization vs bottleneck one-way delay (40 Mb/s, buffer BDP/2)",
                                    "Fig. 8: link utilization vs bottleneck bandwidth (48 ms, buffer BDP/2)"), strict=True):
        rep.heading(f"{title.split(':')[0]} and Table {sw.table}")
        rep.figure(fig_sweep(points, sw, title, res.yours), fig_name, f"{title}. Mean over seeds with 90% CI.")
        unit = {"buffer": "packets", "delay": "ms", "rate": "Mb/s"}[sw.name]
        rep.table(table_sweep_point(points, sw, res.yours),
                  f"Table {sw.table}: x = {sw.table_x:g} {unit}. Throughput ratio = SLS's utilization over the "
                  f"scheme's (×100%), as in the paper; 'ratio (tick)' uses SLS with the 10 ms tick")
        name = title.split(":")[0]
        rep.table(table_sweep(points, sw, MAIN, res.yours), f"{name} data, reading main: utilization % (x in {unit})")
        rep.table(table_sweep(points, sw, NS2, res.yours), f"{name} data, reading ns2: utilization % (x in {unit})")
        if sw.name == "buffer":
            rep.text(f"Behind today's bottleneck (reading {TODAY}): the same buffer, managed by FQ-CoDel (RFC 8290 at "
                     "Linux's defaults: 5 ms target, 100 ms interval), which marks ECN-capable packets instead of "
                     "dropping them, with ECN at both ends (RFC 3168). The buffer stays the limit, and a packet that "
                     "finds it full is dropped: CoDel marks only after the queue has stood above its target for an "
                     "interval, so an overshoot that fills a small buffer within 100 ms is still lost. Claims "
                     f"({'), ('.join(sorted(BEHIND_TODAYS_QUEUE))}) are judged again under this reading.")
            rep.table(table_sweep(points, sw, TODAY, res.yours), f"{name} data, reading {TODAY}: utilization % (x in {unit})")
        if sw.name in ("delay", "rate"):
            rep.table(tick_table(points, sw),
                      f"The 10 ms tick reading against the base RTT (x in {unit}): a sample is rounded to whole 10 ms "
                      "ticks, so the queueing delay at which the backlog estimate first sees a queue is the distance "
                      "from the base RTT to the next rounding boundary (computed: propagation + serialization)")


def _table7_fig9(rep: Report, res: Results, ctx: Context) -> None:
    points = res.summary
    rep.heading("Table VII and Fig. 9: 10 Mb/s UDP from 1 s to 5 s")
    rep.table(table7(points, res.yours), "Table VII: TCP goodput over 10 s (Mb/s, mean ± 90% CI) beside the paper (whose Mb/s is "
                              "its highest sequence number × 8000 bit / 10 s)")
    fig = Figure(figsize=(13, 7), layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    styles = with_yours(STYLE, res.yours)
    for k in (SLS, SLS_TICK, SS_S, VEGAS, *res.yours):
        t = _example(res, "VII", MAIN, k)
        s = _series(t["timeseries"])
        axes[0].plot(s["t"], s["cwnd"], label=k, drawstyle="steps-post", **_line_style(k, styles))
        edges = np.arange(0, 10.01, 0.25)
        a = acked_at(t["timeseries"][t["timeseries"]["flow"] == 0], edges)
        axes[1].step(edges[1:], np.diff(a) * 8 / 0.25 / 1e6, where="pre", label=k, **_line_style(k, styles))
    for ax in axes:
        ax.axvspan(1, 5, color="gray", alpha=0.12, label="UDP 10 Mb/s")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small")
    axes[0].set_ylabel("cwnd (segments)")
    axes[1].set_ylabel("TCP goodput (Mb/s, per 250 ms)")
    axes[1].set_xlabel("time (s)")
    axes[1].axhline(30, color="gray", linestyle=":", linewidth=1)
    rep.figure(fig, "fig9", "Fig. 9: cwnd and goodput with a 10 Mb/s UDP burst from 1 s to 5 s; reading main, seed 1")


def _fig10(rep: Report, res: Results, ctx: Context) -> None:
    points = res.summary
    dur = QUICK_FAIR_DURATION if ctx.quick else FAIR_DURATION
    late = QUICK_FAIR_LATE if ctx.quick else FAIR_LATE
    rep.heading("Fig. 10: five flows, two slow start (ssthresh 32), three SSthreshless Start, one late")
    rep.text(f"Flows 1-2: NewReno slow start with ssthresh 32; flows 3-5: SSthreshless Start; flows 1-4 start at "
             f"0 s (+ up to 10 ms jitter), flow 5 at {late:g} s; {dur:g} s; buffer 250. Jain's index over the "
             f"last third of the run from each flow's goodput; 'late flow catch-up' = flow 5's mean cwnd 10-20 s "
             f"after its start over flows 1-4's mean.")
    rep.table(table10(points, res.yours), "Fig. 10: fairness over the last third (mean over seeds; per-flow Mb/s / mean cwnd)")
    shown = (SLS, SLS_TICK, *res.yours)
    fig = Figure(figsize=(7 * len(shown), 8), layout="constrained")
    axes = fig.subplots(2, len(shown), sharex=True)
    colors = ["tab:blue", "tab:cyan", "tab:red", "tab:orange", "tab:green"]
    for col, s in enumerate(shown):
        t = _example(res, "fig10", MAIN, s)["timeseries"]
        for i in range(5):
            ser = _series(t, i)
            kind = "SS (S)" if i < 2 else s
            axes[0, col].plot(ser["t"], ser["cwnd"], color=colors[i], linewidth=0.8,
                              label=f"flow {i + 1} ({kind})", drawstyle="steps-post")
        edges = np.arange(0, dur + 1e-9, 1.0)
        rates = np.array([np.diff(acked_at(t[t["flow"] == i], edges)) for i in range(5)])
        jt = [jain(rates[:, j] if edges[j] >= late else rates[:4, j]) for j in range(len(edges) - 1)]
        axes[1, col].plot(edges[1:], jt, color="black", drawstyle="steps-pre", label="Jain's index (1 s bins)")
        axes[0, col].axhline(100, color="gray", linestyle=":", linewidth=1, label="BDP/5")
        axes[0, col].set_title(f"flows 3-5: {s}; reading main, seed 1", fontsize="small")
        axes[0, col].set_ylabel("cwnd (segments)")
        axes[1, col].set_ylabel("Jain's fairness index")
        axes[1, col].set_ylim(0, 1.05)
        axes[1, col].set_xlabel("time (s)")
        _grid_and_legend(axes[:, col])
    rep.figure(fig, "fig10", "Fig. 10: coexistence of slow start and SSthreshless Start flows: cwnd of five flows and Jain's fairness "
                             "index over time")


def _setup_text(rep: Report, seeds: int, quick: bool) -> None:
    rep.heading("Set-up")
    rep.text(
        "SPEC.md §001 (the paper's numbers were lost in extraction; these are reconstructed): dumbbell, one sender "
        "and one receiver; bottleneck 40 Mb/s, 48 ms one way; side links 1 Gb/s, 1 ms; base RTT 100 ms; 1000-byte "
        "segments + 40-byte header; 40-byte ACKs; BDP = 500 packets; drop-tail buffer BDP/2 = 250 packets (both "
        "directions) unless an experiment says otherwise; initial window 2; no handshake; minimum RTO 1 s; 10 s. "
        "Link utilization = bytes delivered in order by 10 s / (capacity × 10 s). In the delay and bandwidth sweeps "
        "the BDP changes with x (BDP = rate × 2 × (delay + 2 ms) / 8000 bytes) and the buffer is BDP/2; SS (A) then "
        "uses ssthresh = that BDP. Every TCP flow starts at a uniform random time in [0, 10 ms] drawn from the seed; "
        f"{seeds} seeds per point; every number is a mean over seeds with its 90% confidence interval (Student t). "
        "What the differences from the paper mean: docs/ssthreshless.md, section "
        "'What the reproduction found'."
        + (" QUICK MODE: fewer x values, 2 seeds, Fig. 10 shortened." if quick else ""))
    rep.table(settings_table(SCHEMES, labels=PAPER_LABEL),
              "Schemes ('BDP' = the set-up's BDP in packets). SLS = SSthreshless Start with exact RTT samples "
              "(primary); SLS (10 ms tick) = RTT rounded to ns-2's 10 ms TCP clock (docs/ssthreshless.md). γ = 3 "
              "and the halving schedule unless Table II says otherwise. LSS keeps an unlimited initial ssthresh "
              "(the paper does not give one). Vegas is ns-2's; 'Vegas (rampup default)' appears in Table III only.")
    rep.table(pd.DataFrame([{"reading": r.name, "receiver ACKs": "every 2nd segment, 100 ms timer" if r.delayed_ack
                             else "every segment",
                             "window cap": "= initial ssthresh for SS (S/A/L), except in Fig. 10 (none: capped at 32, the "
                             "slow-start flows could not reach BDP/5)" if r.cap else "none",
                             "loss response": "ns-2 (loss_window = cwnd, rto_in_recovery = halve; LSS rule = ns2; RTO as TcpAgent's, 10 ms clock)"
                             if r.loss == "ns2"
                             else "RFC 5681 (rampup default)",
                             "bottleneck": "FQ-CoDel with ECN marks, ECN at both ends" if r.todays_queue else "drop-tail",
                             "used in": "all" if r.name in (MAIN, NS2) else "Table I, Table III, the buffer sweep"
                             if r.todays_queue else "Table I"} for r in READINGS.values()]),
              "Readings of the TCP around every scheme: main is primary; ns2 is what ns-2 needs to give the paper's "
              "Table I (SPEC §001)")


def _then_now_section(rep: Report, res: Results, ctx: Context) -> None:
    rep.heading("Then and now: SSthreshless Start against today's startups")
    rep.text(
        "Today's startups on the same dumbbell and the same TCP around them (reading main: IW 2, an ACK per segment, "
        "NewReno recovery): HyStart++ (RFC 9406, with Conservative Slow Start) over NewReno, the IETF's; SEARCH "
        "(draft-chung-ccwg-search-09, docs/search.md) over NewReno, which watches delivery instead of delay; and CUBIC "
        "with Linux's HyStart, Linux's default, reducing from cwnd as Linux does (docs/modern.md); and BBR (Linux's "
        "tcp_bbr.c, docs/bbr.md), whose STARTUP doubles its delivery rate each round until it stops growing and which "
        "paces at its own rate. None needs an ssthresh guess, as SSthreshless Start does not. They run on Table I and "
        "on the buffer, delay and bandwidth sweeps "
        "(claims a-c), in the figures and tables above. The other claims are about SSthreshless Start's own parameter "
        "(d), slow start's ssthresh (g, i) or experiments not run with today's schemes (e, f, h). For claims a-c, "
        "SLS's utilization, with exact RTT samples and with ns-2's 10 ms tick, is compared with each of today's at "
        "every x, and claim a once more behind FQ-CoDel with ECN (reading fq-codel+ecn), where today's startups run "
        "on the buffer sweep too. " + then_now.RULES)
    rep.table(ctx.then_now, "Claim by claim: SSthreshless Start against today's startups (utilization %)")


#: The report's sections after the verdict rules, in order.
SECTIONS = (_table1_fig2, _fig3, _table2_fig4, _table3_fig5, _sweeps, _then_now_section, _table7_fig9, _fig10)
