"""The reproduction of paper 002 as an `Experiment`: its points, what a run measures, and
the sections of its report (set-up, Fig. 6, the base case, the parameters, the durations'
distribution and the gain by response size)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import profiles
from ..context import Context
from ..framework import ClaimRule, Experiment, Point, Results, Verdict
from ..present import errorbars, settings_table, x_table
from ..report import Report
from ..view import View
from . import ns2
from .claims import MEAN, THEN_NOW, THEN_NOW_PAIRS, claim_rules, improvement, paper_improvements
from .runs import PREEMPTIVE, RACK, RACK_PREEMPTIVE, READINGS, RENO, SCHEMES, SIZE_EDGES, SIZE_LABELS, Setup, base, scenario, sweeps, tcp_of

STYLE = {RENO: dict(color="tab:blue", marker="s"), PREEMPTIVE: dict(color="tab:green", marker="D"),
         RACK: dict(color="tab:orange", marker="^"), RACK_PREEMPTIVE: dict(color="tab:purple", marker="v")}
SIZES = tuple(f"size{i}_ms" for i in range(len(SIZE_LABELS)))

SETUP = (
    "Paper 002 §6-7: web traffic from PackMime-HTTP (HTTP/1.0) across a 5 Mb/s bottleneck; one-way delay 10 ms (60 ms in "
    "the delay sweep); loads of 25, 50 and 75%. rampup's web workload draws connections, request and response sizes and "
    "server delays as ns-2.35's PackMimeHTTP does (docs/web-workload.md; cross-checked in docs/validation.md). A client "
    "cloud s0 and a server cloud r0 on 100 Mb/s, 0 ms access links. What the paper leaves out, our readings: the "
    "utilization sets PackMime's rate from the mean response bytes and the bottleneck rate (payload only; the rate is "
    "`rampup inspect`'s web_rate); the DropTail queue holds {queue} packets at each end of the bottleneck (ns-2's "
    "default limit_; swept below); {duration} s simulated per run, connections opened in the last {tail} s not measured; "
    "{seeds} seeds per point. A seed gives the same connections to both schemes.")
TCP = (
    "TCP as ns-2.35's Full-TCP Reno with its defaults (the paper's baseline; profile `ns2-fulltcp`): 536-byte segments "
    "(576 on the wire), initial window 2, window_ 20, Reno recovery, no limited transmit, an ACK per full segment, "
    "Nagle, a 10 ms clock, minimum RTO 200 ms, initial RTO 3 s, and FullTcp's RTO timing: no RTT sample from the "
    "handshake, and a timer restarted by an ACK runs on the RTO from before that ACK's sample, so a server's first "
    "flight is guarded by the 3 s initial RTO. Preemptive Retransmission (docs/preemptive.md) at both ends, k = {factor:g}, "
    "cut-out {cutout} KiB unless swept: the response goes from the passive end, which times it from its handshake RTT "
    "(SYN-ACK to ACK); the paper's Step 1 says \"between the SYN and its acknowledgement\", the active end's reading.")
MODERN = (
    "Then and now: today's repair of a lost tail is RACK-TLP (RFC 8985, docs/tlp.md): SACK recovery whose losses RACK "
    "marks by time, and a tail loss probe about two round trips after the ACKs stop. The schemes sack+rack-tlp and "
    "sack+rack-tlp+preemptive keep every Full-TCP setting above but the loss recovery and the RTT timing (RFC 6298's, "
    "which RACK-TLP presumes: its probe waits 2·SRTT), and run beside the paper's pair at every point.")


class Preemptive(Experiment):
    name = "preemptive"
    ns2 = ns2.Column()
    index_figure = "fig6"
    then_now_rows, then_now_pairs = THEN_NOW, THEN_NOW_PAIRS
    then_now_text = ("Claim (a)'s mean duration at each point of its sweeps: Preemptive Retransmission on Reno, and on SACK with "
                     "RACK-TLP, each against SACK with RACK-TLP alone (today's Linux loss recovery).")
    title = "Paper 002 (Preemptive Retransmission): short web connections — reproduction of §7, Fig. 6"
    group = ("sweep", "scheme", "x")
    readings = READINGS
    metrics = ("mean_ms", "median_ms", "p90_ms", "timeouts", "preemptive", "spurious", *SIZES)
    totals = ("incomplete", "measured")
    rules_intro = "Each claim is a list of checks on the points of the sweeps (means over seeds)."
    rules_after = ("The count of sub-claims that hold stands beside each verdict. The improvement is 1 − Preemptive's mean duration "
                   "/ Reno's; no tolerance is taken from a run's result.")
    checks_caption = ("Each check: the quantity, the paper's value (or what its words bound), the tolerance, ours over the "
                      "points checked, and the points that pass")
    data_text = ("runs.csv: per-run figures (means over the run's measured connections); points.csv: the figure points "
                 "with 90% CI half-widths; example-scenario.toml: one run's scenario. The workload's cross-check against "
                 "ns-2's PackMime is validation/compare_packmime.py (docs/validation.md).")

    def points(self, ctx: Context) -> list[Point]:
        out = []
        for sw in sweeps(ctx.quick):
            for x in sw.xs:
                setup = sw.make(base(ctx.quick), x)
                for scheme in sw.schemes:
                    for seed in range(1, ctx.seeds_or(10) + 1):
                        tags = {"sweep": sw.name, "scheme": scheme, "x": float(x), "seed": seed}
                        out.append(Point(tags, scenario(scheme, setup, seed), keep=("connections",), info=setup))
        return out

    def measure(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
        """Over the connections opened before the run's tail: durations (of those whose
        response came whole), timeouts and preemptive retransmissions per connection, and the
        mean duration per response-size class."""
        c = tables["connections"]
        c = c[c["open_ns"] < point.info.measured_until_ns]
        done = c[c["duration_ns"].notna()]
        ms = done["duration_ns"] / 1e6
        size = pd.cut(done["bytes_down"], SIZE_EDGES, labels=SIZES)
        by_size = ms.groupby(size, observed=False).mean()
        return {"mean_ms": ms.mean(), "median_ms": ms.median(), "p90_ms": ms.quantile(0.9), "measured": len(c),
                "incomplete": len(c) - len(done), "timeouts": c["timeouts"].sum() / max(len(c), 1),
                "preemptive": float(c["preemptive"].sum()), "spurious": float(c["spurious_preemptive"].sum()),
                **{k: by_size.get(k, np.nan) for k in SIZES}}

    def example_of(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame] | None:
        t = point.tags
        if t["sweep"] == "load" and t["x"] == 50 and t["seed"] == 1:
            c = tables["connections"]
            return {"connections": c[c["open_ns"] < point.info.measured_until_ns][["conn", "bytes_down", "duration_ns"]]}
        return None

    def example_scenario(self) -> tuple[str, dict[str, Any]]:
        return "One run of the reproduction: the base case (10 ms, 50%), Reno + Preemptive, seed 1.", scenario(PREEMPTIVE, Setup(), 1)

    def claims(self) -> list[ClaimRule]:
        return claim_rules()

    def setup(self, rep: Report, res: Results, ctx: Context) -> None:
        b = base(ctx.quick)
        rep.heading("Set-up")
        rep.text(SETUP.format(queue=b.queue, duration=b.duration_s, tail=b.tail_s, seeds=int(res.runs["seed"].max())))
        rep.text(TCP.format(factor=b.factor, cutout=b.cutout_kib))
        rep.table(settings_table({s: tcp_of(s, b) for s in SCHEMES}), f"Schemes: rampup settings ({profiles.NS2_FULLTCP.name})")
        rep.text(MODERN)

    def sections(self, rep: Report, res: Results, verdicts: list[Verdict], ctx: Context) -> None:
        v = View(res.summary, {})
        _fig6(rep, v)
        _base_case(rep, v)
        for name, caption in (("factor", "Multiplication factor k (base case)"), ("cutout", "Cut-out limit (base case)"),
                              ("queue", "Bottleneck queue, packets (base case): a set-up detail the paper leaves out")):
            rep.heading(caption)
            rep.table(_sweep_table(v, name), f"{caption}: mean duration (ms), reductions, Preemptive's retransmissions per run, "
                      "timeouts per connection (schemes in column order)")
        _distribution(rep, res)
        _by_size(rep, v)


def _improvements(v: View) -> pd.DataFrame:
    paper = paper_improvements().set_index(["sweep", "x"])["paper"]
    rows = []
    for sw in ("load", "delay"):
        for x in v.of(RENO, sweep=sw).index:
            rows.append({"sweep": sw, "x": x, "ours": improvement(v, sw, x), "paper": paper.get((sw, x), np.nan)})
    return pd.DataFrame(rows)


def _fig6(rep: Report, v: View) -> None:
    rep.heading("Fig. 6: improvement under varying delay (top) and load (bottom)")
    imp = _improvements(v)
    fig = Figure(figsize=(7, 7), layout="constrained")
    for ax, sw, label in zip(fig.subplots(2, 1), ("delay", "load"), ("one-way delay (ms), 25% utilization", "utilization (%), 10 ms"),
                             strict=True):
        d = imp[imp["sweep"] == sw]
        pos = np.arange(len(d))
        ax.bar(pos - 0.2, d["paper"] * 100, 0.4, label="paper (ns-2)", color="tab:gray")
        ax.bar(pos + 0.2, d["ours"] * 100, 0.4, label="rampup", color="tab:green")
        ax.set_xticks(pos, [f"{x:g}" for x in d["x"]])
        ax.set_xlabel(label)
        ax.set_ylabel("reduction of mean duration (%)")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize="small")
    rep.figure(fig, "fig6", "Preemptive's reduction of the mean connection duration against Reno's: the paper's and ours.")
    rep.table(_sweep_table(v, "load"), "Utilization at 10 ms: mean duration (ms) and reductions; the paper: 23%, 38%, 8% for Preemptive vs Reno")
    rep.table(_sweep_table(v, "delay"), "Delay at 25% utilization: the paper: 39% (10 ms), 8% (60 ms)")


def _sweep_table(v: View, sweep: str) -> pd.DataFrame:
    series = {s: p for s in SCHEMES if not (p := v.of(s, sweep=sweep)).empty}
    xs = list(series[PREEMPTIVE].index)
    out = x_table(series, xs, [(MEAN, "mean ms", 1, "{:.1f}")])

    def gain(a: str, b: str) -> list[str]:
        return [f"{1 - series[a].at[x, MEAN] / series[b].at[x, MEAN]:.1%}" for x in xs]

    out["Preemptive vs Reno"] = gain(PREEMPTIVE, RENO)
    if RACK in series:
        out["RACK-TLP vs Reno"] = gain(RACK, RENO)
        out["Preemptive over RACK-TLP"] = gain(RACK_PREEMPTIVE, RACK)
    out["preemptive/run"] = [f"{series[PREEMPTIVE].at[x, 'preemptive']:.0f}" for x in xs]
    out["spurious/run"] = [f"{series[PREEMPTIVE].at[x, 'spurious']:.0f}" for x in xs]
    out["timeouts/conn"] = [", ".join(f"{series[s].at[x, 'timeouts']:.3f}" for s in series) for x in xs]
    return out


def _base_case(rep: Report, v: View) -> None:
    rep.heading("The base case: 10 ms, 50% utilization")
    reno, pre = v.of(RENO, sweep="load"), v.of(PREEMPTIVE, sweep="load")
    rows = [{"": "paper (ns-2)", "Reno mean ms": "297", "Preemptive mean ms": "268", "improvement": "9.8% (the paper says 8%)"},
            {"": "rampup", "Reno mean ms": f"{reno.at[50, MEAN]:.1f} ± {reno.at[50, MEAN + '_ci90']:.1f}",
             "Preemptive mean ms": f"{pre.at[50, MEAN]:.1f} ± {pre.at[50, MEAN + '_ci90']:.1f}", "improvement": f"{improvement(v, 'load', 50):.1%}"}]
    rep.table(pd.DataFrame(rows), "Mean connection duration, SYN to the last byte of the response (mean ± 90% CI over seeds)")
    rep.text("The paper's own numbers disagree: 297 → 268 ms is a 9.8% reduction for the base case, while its Fig. 6 "
             "gives 38% at the same 10 ms and 50% load.")


def _distribution(rep: Report, res: Results) -> None:
    rep.heading("Distribution of durations (base case, seed 1)")
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for scheme in SCHEMES:
        c = res.example(sweep="load", x=50.0, seed=1, scheme=scheme)["connections"]
        ms = np.sort(c["duration_ns"].dropna().to_numpy() / 1e6)
        ax.plot(ms, np.arange(1, len(ms) + 1) / len(ms), label=scheme, color=STYLE[scheme]["color"])
    ax.set_xscale("log")
    ax.set_xlabel("connection duration (ms)")
    ax.set_ylabel("CDF")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    rep.figure(fig, "duration-cdf", "CDF of connection durations, the same connections under both schemes.")


def _by_size(rep: Report, v: View) -> None:
    rep.heading("Gain by response size (base case)")
    reno, pre = v.of(RENO, sweep="load"), v.of(PREEMPTIVE, sweep="load")
    gain = [1 - pre.at[50, k] / reno.at[50, k] for k in SIZES]
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.add_subplot()
    ax.bar(np.arange(len(SIZES)), np.array(gain) * 100, color="tab:green")
    ax.set_xticks(np.arange(len(SIZES)), SIZE_LABELS)
    ax.set_xlabel("response size (536-byte segments)")
    ax.set_ylabel("reduction of mean duration (%)")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.grid(alpha=0.3, axis="y")
    rep.figure(fig, "gain-by-size", "Preemptive's reduction of the mean duration per response-size class (means over seeds).")
    table = pd.DataFrame({"response size": SIZE_LABELS})
    for scheme in SCHEMES:
        p = v.of(scheme, sweep="load")
        table[f"{scheme} mean ms"] = [f"{p.at[50, k]:.1f}" for k in SIZES]
    table["Preemptive vs Reno"] = [f"{g:.1%}" for g in gain]
    rack, rack_pre = v.of(RACK, sweep="load"), v.of(RACK_PREEMPTIVE, sweep="load")
    table["Preemptive over RACK-TLP"] = [f"{1 - rack_pre.at[50, k] / rack.at[50, k]:.1%}" for k in SIZES]
    rep.table(table, "Mean duration per response-size class, base case")
    series = {s: v.of(s, sweep="load") for s in SCHEMES}
    fig2 = Figure(figsize=(7, 4.5), layout="constrained")
    ax2 = fig2.add_subplot()
    errorbars(ax2, series, MEAN, STYLE)
    ax2.set_xlabel("utilization (%)")
    ax2.set_ylabel("mean connection duration (ms)")
    ax2.set_ylim(bottom=0)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize="small")
    rep.figure(fig2, "duration-by-load", "Mean duration against load at 10 ms, with 90% CIs over seeds.")
