"""The reproduction of paper 003 as an `Experiment`: its points, what a run measures, and
the sections of its report (set-up, Fig. 2/3 on a clean path, Fig. 4/5 after an idle and
Fig. 6/7 after an application-limited period with a capacity drop, the loss responses, the
path RTT)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..context import Context
from ..framework import ClaimRule, Experiment, Point, Results, Verdict
from ..present import errorbars, settings_table, with_yours, x_table
from ..report import Report
from ..view import View
from ..yours import Beside, Source
from . import ns2
from .claims import BEHIND, DROPS, LATER_DROPS, RATE, SENT, SHARE, THEN_NOW, THEN_NOW_PAIRS, claim_rules
from .runs import (
    APP_KBPS,
    DROP_RTTS,
    FIG23,
    LIMITED_KBPS,
    LOW_MBPS,
    MEASURE_S,
    NEWCWV,
    PAUSE_LEN_S,
    PAUSE_S,
    READINGS,
    SCHEMES,
    Setup,
    behind_s,
    scenario,
    sweeps,
    tcp_of,
)

COLORS = {"standard": "tab:blue", "tcp-cwv": "tab:orange", "new-cwv": "tab:green", "new-cwv-rw": "tab:olive",
          "new-cwv-std": "tab:cyan", "new-cwv-rfc7661": "tab:purple", "padding": "tab:red",
          "careful-resume": "tab:brown"}
STYLE = {s: dict(color=c, marker="o") for s, c in COLORS.items()}
#: Bytes per write: the drop rate counts what the receivers got in packets of this payload.
CHUNK = 1000

SETUP = (
    "Paper 003 §4: a dumbbell of 100 Mb/s access links (0 ms) and a 100 Mb/s bottleneck with 100 ms one way (RTT 200 ms; "
    "the RTT sweep changes it) and a DropTail queue of one bandwidth-delay product ({queue} packets of 1040 bytes at "
    "200 ms). Each flow is a {app} kb/s application writing 1000-byte chunks (rampup's rate-limited source, "
    "docs/new-cwv.md), starting at a uniform time within 1 s. At {pause} s every flow pauses for {pause_len} s (Fig. 4/5) "
    "or drops to {limited} kb/s (Fig. 6/7), and the bottleneck falls to {low} Mb/s and stays there; the flows go back to "
    "{app} kb/s at {restart} s, each at a uniform time within 1 s. TCP with SACK, no Nagle, no delayed ACKs, minimum RTO "
    "1 s. Fig. 2/3 run one flow on the same path without the drop. {seeds} seeds per point. What the paper leaves out, "
    "our readings: the received rate is each flow's data rate from its restart to the end of the run, {measure} to {measure_plus} s (the phases table), "
    "averaged over flows; the drop rate is the bottleneck's drops over the packets offered to it in the {drop_rtts} RTTs "
    "after {restart} s (its drops and what the receivers got), and the later drop rate the same from then to the end of "
    "the run; what the flows sent in those {drop_rtts} RTTs is what the bottleneck passed, dropped and queued, per flow; "
    "the fair share is min({app} kb/s, {low} Mb/s / flows); "
    "the capacity stays low after the restart; the queue is one BDP of the 100 Mb/s path in packets.")
SCHEMES_TEXT = (
    "Schemes: standard TCP (RFC 5681, restart window after an idle), TCP-CWV (RFC 2861), new-CWV in the paper's form with "
    "each of its three loss responses ((D−R)/2, the restart window, the standard one), new-CWV in RFC 7661's form, and "
    "padding: standard TCP whose application writes {app} kb/s throughout, the difference being padding, which the "
    "received rate leaves out (the wire carries it); and, after an idle only, careful-resume: each flow stops at the pause and "
    "a second flow between the same hosts opens within 1 s of the restart, resuming from what the first saved "
    "(draft-ietf-tsvwg-careful-resume).")


#: A ``--with`` restart policy stands beside new-CWV (the paper's form, (D−R)/2) at each of
#: its points, in every reading, playing it in the claims about new-CWV as a mechanism.
BESIDE_RESTART = Beside(
    NEWCWV, NEWCWV, "abdfhioprst", (Source(NEWCWV, "new-cwv"),), what="new-CWV",
    not_judged="(c), (e), (m) and (n) compare new-CWV's own loss responses, and (g), (j), (k), (l) and (q) are about "
               "standard TCP and TCP-CWV.")


class NewCwv(Experiment):
    name = "newcwv"
    beside = {"restart": BESIDE_RESTART}
    ns2 = ns2.Column()
    index_figure = "fig4-5"
    then_now_rows, then_now_pairs = THEN_NOW, THEN_NOW_PAIRS
    then_now_text = ("Claim (b) at each number of flows: the paper's new-CWV against RFC 7661's form of it, against the "
                     "standard restart (slow start after idle, as Linux does by default) and, after the idle, against Careful "
                     "Resume: each flow's restart on a new connection between the same hosts (the handshake included), "
                     "resuming from what the connection before the pause saved (draft-ietf-tsvwg-careful-resume, "
                     "docs/careful-resume.md).")
    title = "Paper 003 (new-CWV): rate-limited traffic — reproduction of §4, Fig. 2-7"
    group = ("sweep", "scheme", "x")
    readings = READINGS
    metrics = (RATE, SHARE, DROPS, BEHIND, "wire_kbps", SENT, LATER_DROPS)
    rules_intro = "Each claim is a list of checks on the points of the sweeps (means over seeds)."
    rules_after = "The count of sub-claims that hold stands beside each verdict; no tolerance is taken from a run's result."
    checks_caption = ("Each check: the quantity, the paper's value (or what its words bound), the tolerance, ours over the "
                      "points checked, and the points that pass")
    data_text = ("runs.csv: per-run figures; points.csv: the figure points with 90% CI half-widths; example-scenario.toml: "
                 "one run's scenario. Standard TCP's behaviour here is cross-checked against ns-2.35 by "
                 "validation/compare_newcwv.py (docs/validation.md).")

    def points(self, ctx: Context) -> list[Point]:
        out = []
        for sw in sweeps(ctx.quick):
            seeds = ctx.seeds_or(1 if sw.name.startswith("clean") else 5)
            for x in sw.xs:
                setup = sw.make(x)
                for scheme in sw.schemes:
                    for seed in range(1, seeds + 1):
                        tags = {"sweep": sw.name, "scheme": scheme, "x": float(x), "seed": seed}
                        out.append(Point(tags, scenario(scheme, setup, seed), keep=("phases", "throughput", "queues"), info=setup))
        return out

    def measure(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
        setup: Setup = point.info
        ph = tables["phases"]
        restart = ph[ph["name"] == "restart"]
        secs = (restart["end_ns"] - restart["start_ns"]) / 1e9
        wire = (restart["received_bytes"] * 8 / secs / 1000).mean()
        rate = restart["received_bps"].mean() / 1000
        tp = tables["throughput"]
        t1, t2 = setup.restart_s * 1e9, (setup.restart_s + DROP_RTTS * setup.rtt_ms / 1000) * 1e9
        got = tp[(tp["t_ns"] >= t1) & (tp["t_ns"] < t2)]["bytes"].sum() / CHUNK
        got_later = tp[tp["t_ns"] >= t2]["bytes"].sum() / CHUNK
        q = tables["queues"]
        q = q[q["queue"] == "left->right"]
        drops = _at(q, t2) - _at(q, t1)
        drops_later = _at(q, setup.duration_s * 1e9) - _at(q, t2)
        # What the senders put into the bottleneck in the first DROP_RTTS RTTs: by the
        # port's conservation, what left it (the receivers got), what it dropped and what
        # its queue grew by (§4: new-CWV "can send more than Standard TCP for the first few RTTs").
        sent = got + drops + _at(q, t2, "packets") - _at(q, t1, "packets")
        return {RATE: rate, SHARE: rate / setup.fair_share_kbps, DROPS: drops / max(drops + got, 1), "wire_kbps": wire,
                SENT: sent / setup.flows, LATER_DROPS: drops_later / max(drops_later + got_later, 1),
                BEHIND: behind_s(tp["t_ns"] / 1e9, tp["data_bytes"], restart["start_ns"].min() / 1e9, setup.rtt_ms / 2000)
                if not setup.drop else np.nan}

    def example_of(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame] | None:
        if point.tags["sweep"].startswith("clean") and point.tags["seed"] == 1:
            return {"throughput": tables["throughput"][["t_ns", "data_bytes"]]}
        return None

    def example_scenario(self) -> tuple[str, dict[str, Any]]:
        return "One run of the reproduction: 16 flows pausing 5 s (Fig. 4/5), new-CWV, seed 1.", scenario(NEWCWV, Setup(), 1)

    def claims(self) -> list[ClaimRule]:
        return claim_rules()

    def setup(self, rep: Report, res: Results, ctx: Context) -> None:
        rep.heading("Set-up")
        rep.text(SETUP.format(queue=Setup().queue_packets, app=APP_KBPS, pause=PAUSE_S, pause_len=PAUSE_LEN_S, limited=LIMITED_KBPS,
                              low=LOW_MBPS, restart=PAUSE_S + PAUSE_LEN_S, seeds=int(res.runs["seed"].max()), measure=MEASURE_S, measure_plus=MEASURE_S + 1,
                              drop_rtts=DROP_RTTS))
        rep.text(SCHEMES_TEXT.format(app=APP_KBPS))
        rep.table(settings_table({s: {**tcp_of(s), **({"app padding": True} if SCHEMES[s][1] else {})} for s in SCHEMES}),
                  "Schemes: rampup settings")

    def sections(self, rep: Report, res: Results, verdicts: list[Verdict], ctx: Context) -> None:
        v = View(res.summary, {})
        _clean(rep, res, v, res.yours)
        for sweep, figs, what in (("idle", "4 and 5", f"a {PAUSE_LEN_S} s idle"),
                                  ("limited", "6 and 7", f"{PAUSE_LEN_S} s at {LIMITED_KBPS} kb/s")):
            _transient(rep, v, sweep, figs, what, res.yours)
        _rtt(rep, v, res.yours)
        rep.heading("The queue: a set-up detail the paper leaves out (16 flows, idle)")
        schemes = (*SCHEMES, *res.yours)
        series = {s: p for s in schemes if not (p := v.of(s, sweep="queue")).empty}
        base = {s: v.of(s, sweep="idle") for s in schemes}
        rep.table(x_table(series, sorted(series[NEWCWV].index), [(RATE, "kb/s", 1, "{:.0f}"), (DROPS, "drops %", 100, "{:.1f}")]),
                  f"By bottleneck queue (packets); one BDP at 100 Mb/s, the paper's, is {Setup().queue_packets} packets: "
                  + ", ".join(f"{s} {base[s].at[16.0, RATE]:.0f} kb/s" for s in schemes if 16.0 in base[s].index))


def _at(q: pd.DataFrame, t_ns: float, col: str = "drops") -> float:
    """The port's `col` (its cumulative drops, or the packets in its queue) as of `t_ns`
    (its last row at or before)."""
    before = q[q["t_ns"] <= t_ns]
    return float(before[col].iloc[-1]) if len(before) else 0.0


def _clean(rep: Report, res: Results, v: View, yours: Sequence[str] = ()) -> None:
    rep.heading("Fig. 2 and 3: one flow on a clean path")
    fig = Figure(figsize=(9, 4), layout="constrained")
    for ax, sweep, title in zip(fig.subplots(1, 2), ("clean-idle", "clean-limited"),
                                (f"after a {PAUSE_LEN_S} s idle", f"after {PAUSE_LEN_S} s at {LIMITED_KBPS} kb/s"), strict=True):
        for scheme in (*FIG23, *yours):
            tp = res.example(sweep=sweep, scheme=scheme, seed=1)["throughput"]
            t, mb = tp["t_ns"] / 1e9, tp["data_bytes"].cumsum() / 1e6
            near = (t >= PAUSE_S + PAUSE_LEN_S - 1) & (t <= PAUSE_S + PAUSE_LEN_S + 3)
            ax.plot(t[near], mb[near], label=scheme, color=with_yours(STYLE, yours)[scheme]["color"])
        ax.set_title(title)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("data received (MB)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    rep.figure(fig, "fig2-3", "Data received over time around the restart (seed 1): the paper plots sequence numbers.")
    rows = []
    for scheme in (*FIG23, *yours):
        rows.append({"scheme": scheme, "behind after the idle (s)": f"{v.of(scheme, sweep='clean-idle').at[1.0, BEHIND]:.1f}",
                     "behind after 12 kb/s (s)": f"{v.of(scheme, sweep='clean-limited').at[1.0, BEHIND]:.1f}"})
    rep.table(pd.DataFrame(rows), "How long the received data fell behind the application after its restart (one RTT: 0.2 s)")


def _transient(rep: Report, v: View, sweep: str, figs: str, what: str, yours: Sequence[str] = ()) -> None:
    rep.heading(f"Fig. {figs}: a capacity drop during {what}")
    series = {s: p for s in (*SCHEMES, *yours) if not (p := v.of(s, sweep=sweep)).empty}
    styles = with_yours(STYLE, yours)
    fig = Figure(figsize=(10, 4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    errorbars(ax1, series, RATE, styles)
    xs = np.array(sorted(series[NEWCWV].index))
    ax1.plot(xs, [min(APP_KBPS, LOW_MBPS * 1000 / x) for x in xs], "k--", label="fair share")
    errorbars(ax2, series, DROPS, styles, scale=100)
    for ax, label in ((ax1, "received rate after the restart (kb/s)"), (ax2, f"drop rate, first {DROP_RTTS} RTTs (%)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("number of flows")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    ax1.legend(fontsize="x-small")
    rep.figure(fig, f"fig{figs.replace(' and ', '-')}", f"Received rate against the fair share (left) and the bottleneck's drop rate (right) "
               f"after {what}, 90% CIs over seeds.")
    rep.table(x_table(series, list(xs), [(RATE, "kb/s", 1, "{:.0f}")]), f"Received rate (kb/s) after {what}, by number of flows")
    rep.table(x_table(series, list(xs), [(DROPS, "drops %", 100, "{:.1f}")]), f"Drop rate (%) in the first {DROP_RTTS} RTTs, by number of flows")


def _rtt(rep: Report, v: View, yours: Sequence[str] = ()) -> None:
    rep.heading("The path RTT: the loss responses (16 flows, idle)")
    series = {s: p for s in (*SCHEMES, *yours) if not (p := v.of(s, sweep="rtt")).empty}
    xs = sorted(series[NEWCWV].index)
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.add_subplot()
    errorbars(ax, series, RATE, with_yours(STYLE, yours))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("path RTT (ms)")
    ax.set_ylabel("received rate after the restart (kb/s)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    rep.figure(fig, "rtt", "Received rate after the idle against the path RTT (the queue stays one BDP of the path).")
    rep.table(x_table(series, xs, [(RATE, "kb/s", 1, "{:.0f}"), (DROPS, "drops %", 100, "{:.1f}")]), "By path RTT (ms)")
