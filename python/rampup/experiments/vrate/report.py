"""The reproduction of paper 004 as an `Experiment`: its points, what a run measures, and
the sections of its report (set-up, Fig. 1's stall, Fig. 4 and 5 with the modern relative,
Fig. 6 with one and two clients, the combination rule and the wheel's period)."""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from ..context import Context
from ..framework import ClaimRule, Experiment, Point, Results, Verdict, paper_data
from ..present import errorbars, settings_table, x_table
from ..report import Report
from ..view import View
from .claims import LPE, PCT, SPREAD, THEN_NOW, THEN_NOW_PAIRS, TIMEOUTS, claim_rules, sizes
from .runs import (
    BTCP,
    FIG1,
    FIG4,
    FIG5,
    HOST_QUEUE,
    JITTER,
    MAIN,
    OC3,
    PACING,
    PAIR,
    PERIOD,
    READINGS,
    SHARING,
    SIZES_MB,
    STACKS,
    START_JITTER,
    VARIANTS,
    VRATE,
    VRATE_1MS,
    VRATE_100US,
    VRATE_GAIN,
    VRATE_MIN,
    Case,
    fig6,
    scenario,
)
from .striped import Striped, request_rows

COLORS = {BTCP: "tab:blue", VRATE: "tab:green", VRATE_MIN: "tab:olive", PACING: "tab:purple", SHARING: "tab:red",
          VRATE_GAIN: "tab:brown", VRATE_100US: "tab:cyan", VRATE_1MS: "tab:gray"}
STYLE = {s: dict(color=c, marker="o") for s, c in COLORS.items()}

SETUP = (
    "Paper 004 §5: a LAN with one switch, each host on its own full-duplex link, 1 ms per link and 30 packet buffers per "
    "switch output port. One application on a client reads (the servers send) or writes (the client sends) one block striped "
    "over n servers, one connection per server, all opened at once; the request completes with its slowest transfer. The "
    "measure is the application's bandwidth as a per cent of bw_max = min(bw_client, n · bw_server / n_clients) (footnote 2). "
    "btcp is 4.4BSD-Lite's TCP (docs/bsd44.md): Reno, initial window 1, the 500 ms and 200 ms timers. {seeds} seeds per "
    "point. What the paper leaves out, our readings: {sizes} MB per server (two sizes, to show whether the size matters); "
    "a receive window of 256 KB (\"Big Windows\": scaled, larger than the path's 50 KB); each host's own interface queue "
    "{host_queue} packets (the paper models the switch's buffers; a host holds what it sends); {jitter} of jitter per link "
    "and each connection's start drawn in [0, {start_jitter}] per seed; mss 1,000 bytes, 40 bytes of headers. vrate: every "
    "connection in the group \"app\" on its hosts, the wheel's period {period} and the limiting rate the sum of the members' "
    "cwnd / RTT (each member's latest precise sample), docs/vrate.md.")
RELATIVES = (
    "Modern relatives beside vrate on Fig. 4 and 5: Linux-style per-connection pacing (200 % of cwnd / srtt in slow start, "
    "120 % after, on btcp with its RTT timed by RFC 6298 on a 1 ms clock, which pacing needs), and RFC 9040 ensemble sharing "
    "on btcp: a host's connections share one window, each its share of the sum, moved by each member's own change as RFC "
    "8699's Flow State Exchange does (a member in loss recovery keeps its own window meanwhile; docs/vrate.md). The RTT is "
    "not shared: the members open together, so there is no earlier estimate to copy, and BSD's RTO counts 500 ms ticks. In a "
    "read each server has one connection, so sharing changes nothing there.")


FINDINGS = (
    "Why vrate with the sum of cwnd / latest RTT falls behind btcp here. (1) The first sample after the handshake waits for "
    "the receiver's 200 ms delayed-ACK tick (about 197 ms against a 4 ms path), so the group's first rate is cwnd / 197 ms. "
    "(2) A rate of exactly cwnd / RTT has no pull back towards the path's RTT: what the layer holds lengthens the next "
    "samples, and the rate stays at what TCP already sends, so the holding time the first sample set persists; a gain above 1 "
    "or the least RTT drains it. (3) In a read with an OC-12 client, up to six 100baseT servers share no link (600 Mb/s fit "
    "the client's 622), so nothing couples the connections and the number of servers does not change a result; the paper's "
    "drop at two servers needs a coupling our LAN does not have.")


class Vrate(Experiment):
    name = "vrate"
    index_figure = "fig4"
    then_now_rows, then_now_pairs = THEN_NOW, THEN_NOW_PAIRS
    then_now_text = ("Claims (a) and (d) on Fig. 4 and 5 (8 MB per server): vrate against Linux pacing and against RFC 9040's "
                     "shared window, at each number of servers.")
    title = "Paper 004 (vrate): cooperating connections — reproduction of §5, Fig. 1 and 4-6"
    group = ("fig", "clients", "size_mb", "scheme", "x")
    readings = READINGS
    metrics = (PCT, SPREAD, "spread_s", TIMEOUTS, LPE)
    rules_intro = "Each claim is a list of checks on the points of the figures (means over seeds)."
    rules_after = "The count of sub-claims that hold stands beside each verdict; no tolerance is taken from a run's result."
    checks_caption = ("Each check: the quantity, the paper's value (or what its words bound), the tolerance, ours over the "
                      "points checked, and the points that pass")
    data_text = "runs.csv: per-run figures; points.csv: the figure points with 90% CI half-widths; example-scenario.toml: one run's scenario."

    def points(self, ctx: Context) -> list[Point]:
        seeds = ctx.seeds_or(10)
        ns = (1, 2, 4, 8) if ctx.quick else tuple(range(1, 9))
        sizes = SIZES_MB[-1:] if ctx.quick else SIZES_MB
        out: list[Point] = []

        def add(case: Case, stack: str, n: int, size: int, trace: bool = False) -> None:
            # One request and one scenario for all seeds (the seed changes only the seed key).
            st, doc = case.striped(stack, n, size), scenario(case, stack, n, size, 1)
            for seed in range(1, seeds + 1):
                traced = trace and seed == 1
                tags = {"fig": case.fig, "clients": case.clients, "size_mb": size, "scheme": stack, "x": float(n), "seed": seed}
                keep = ("flows", "transfers", "timeseries") if traced else ("flows", "transfers")
                run = scenario(case, stack, n, size, seed, trace=True) if traced else {**doc, "seed": seed}
                out.append(Point(tags, run, keep=keep, info=st))

        for stack in PAIR:
            add(FIG1, stack, 2, SIZES_MB[-1], trace=True)
        for case in (FIG4, FIG5):
            for size in sizes:
                for n in ns:
                    for stack in MAIN:
                        add(case, stack, n, size)
            if not ctx.quick:
                for n in (2, 4):
                    for stack in VARIANTS:
                        add(case, stack, n, SIZES_MB[-1])
        for clients in (1, 2):
            for n in ns:
                for stack in PAIR:
                    add(fig6(clients), stack, n, SIZES_MB[-1])
        return out

    def measure(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
        st: Striped = point.info
        rows = request_rows(tables["transfers"], tables["flows"], st)
        fl = tables["flows"]
        episodes = (fl["fast_retransmits"] + fl["timeouts"]).clip(lower=1)
        lpe = (fl["drops"] / episodes)[fl["drops"] > 0]
        took = rows["finished_s"] - rows["began_s"]
        return {PCT: rows["pct_of_bw_max"].mean(), SPREAD: (rows["ends_spread_s"] / took).mean(), "spread_s": rows["ends_spread_s"].mean(),
                TIMEOUTS: rows["timeouts"].mean(), LPE: float(lpe.max()) if len(lpe) else 0.0, "drops": int(fl["drops"].sum())}

    def example_of(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame] | None:
        if "timeseries" in tables:
            return {"timeseries": tables["timeseries"][["t_ns", "flow", "snd_una"]]}
        return None

    def example_scenario(self) -> tuple[str, dict[str, Any]]:
        return "One run of the reproduction: Fig. 4, an OC-12 client reads 8 MB from each of two servers, vrate, seed 1.", \
            scenario(FIG4, VRATE, 2, SIZES_MB[-1], 1)

    def claims(self) -> list[ClaimRule]:
        return claim_rules()

    def setup(self, rep: Report, res: Results, ctx: Context) -> None:
        rep.heading("Set-up")
        rep.text(SETUP.format(seeds=int(res.runs["seed"].max()), sizes=" and ".join(str(s) for s in sorted(set(res.runs["size_mb"]))),
                              host_queue=HOST_QUEUE, jitter=JITTER, start_jitter=START_JITTER, period=PERIOD))
        rep.text(RELATIVES)
        rep.table(settings_table({s: {**tcp, **({"[vrate]": v} if v else {}), **({"share": "app"} if sh else {})}
                                  for s, (tcp, v, sh) in STACKS.items()}, name="stack"),
                  "Stacks: rampup settings")

    def sections(self, rep: Report, res: Results, verdicts: list[Verdict], ctx: Context) -> None:
        v = View(res.summary, {})
        _fig1(rep, res, v)
        for case, what in ((FIG4, "an OC-12 client reads from 100baseT servers"), (FIG5, "an OC-12 client writes to 100baseT servers")):
            _by_servers(rep, v, case.fig, what)
        _fig6(rep, v)
        _periods(rep, v)


def _axes(ax: Any, ylabel: str) -> None:
    ax.set_xlabel("servers")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small")


def _fig1(rep: Report, res: Results, v: View) -> None:
    rep.heading("Fig. 1: the stall (an OC-3 client reads from two 100baseT servers)")
    fig = Figure(figsize=(10, 4), layout="constrained")
    for ax, stack in zip(fig.subplots(1, 2, sharey=True), PAIR, strict=True):
        ts = res.example(fig="1", scheme=stack, seed=1)["timeseries"]
        for flow, g in ts.groupby("flow"):
            ax.plot(g["t_ns"] / 1e9, g["snd_una"] / 1e6, label=f"connection {int(flow) + 1}", drawstyle="steps-post")
        ax.set_title(stack)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("acknowledged (MB)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    rep.figure(fig, "fig1", f"Each connection's acknowledged data over time, {SIZES_MB[-1]} MB from each of two servers (seed 1).")
    rows = [{"stack": s, "% of bw_max": f"{p.at[2.0, PCT]:.1f}", "Mb/s": f"{p.at[2.0, PCT] / 100 * OC3 / 1e6:.0f}",
             "timeouts per request": f"{p.at[2.0, TIMEOUTS]:.1f}", "spread of the ends (s)": f"{p.at[2.0, 'spread_s']:.2f}"}
            for s in PAIR if not (p := v.of(s, fig="1")).empty]
    paper = paper_data("vrate")["numbers"]["fig1_btcp_mbps"]
    rep.table(pd.DataFrame(rows), f"Fig. 1's case over the seeds (the paper: about {paper} Mb/s with btcp)")


def _by_servers(rep: Report, v: View, fig: str, what: str) -> None:
    rep.heading(f"Fig. {fig}: {what}")
    f = Figure(figsize=(5 * len(sizes(v, fig)), 4), layout="constrained")
    axes = f.subplots(1, len(sizes(v, fig)), squeeze=False)[0]
    for ax, size in zip(axes, sizes(v, fig), strict=True):
        series = {s: p for s in MAIN if not (p := v.of(s, fig=fig, clients=1, size_mb=size)).empty}
        errorbars(ax, series, PCT, STYLE)
        ax.set_title(f"{size:g} MB per server")
        _axes(ax, "% of bw_max")
        xs = sorted(series[BTCP].index)
        cols = [(PCT, "%", 1, "{:.0f}"), (TIMEOUTS, "timeouts", 1, "{:.1f}"), (LPE, "losses/episode", 1, "{:.1f}")]
        rep.table(x_table(series, xs, cols[:1]), f"Fig. {fig}, {size:g} MB per server: % of bw_max by servers")
        rep.table(x_table({s: series[s] for s in (BTCP, VRATE)}, xs, cols[1:]),
                  f"Fig. {fig}, {size:g} MB: timeouts per request and the most losses per loss episode of a connection")
    rep.figure(f, f"fig{fig}", f"Fig. {fig}: the application's bandwidth as a per cent of bw_max, 90% CIs over seeds.")


def _fig6(rep: Report, v: View) -> None:
    rep.heading("Fig. 6: all links 100baseT, clients write to the servers, one client and two")
    f = Figure(figsize=(10, 4), layout="constrained")
    for ax, clients in zip(f.subplots(1, 2, sharey=True), (1, 2), strict=True):
        series = {s: p for s in PAIR if not (p := v.of(s, fig="6", clients=clients)).empty}
        errorbars(ax, series, PCT, STYLE)
        ax.set_title(f"{clients} client{'s' if clients > 1 else ''}")
        _axes(ax, "% of bw_max")
        rep.table(x_table(series, sorted(series[BTCP].index), [(PCT, "%", 1, "{:.0f}"), (SPREAD, "spread", 1, "{:.2f}")]),
                  f"Fig. 6, {clients} client{'s' if clients > 1 else ''}: % of bw_max and the spread of the ends / request time")
    rep.figure(f, "fig6", "Fig. 6: each client's bandwidth as a per cent of bw_max (each server's link shared by the clients).")


def _periods(rep: Report, v: View) -> None:
    rep.heading("What the combination rule and the wheel's period change")
    rows = []
    for fig in ("4", "5"):
        for stack in (BTCP, VRATE, VRATE_MIN, *VARIANTS):
            p = v.of(stack, fig=fig, clients=1, size_mb=SIZES_MB[-1])
            if p.empty:
                continue
            rows.append({"fig": fig, "stack": stack, **{f"{x:g} servers": f"{p.at[x, PCT]:.0f}" for x in (2.0, 4.0) if x in p.index}})
    rep.table(pd.DataFrame(rows), f"% of bw_max at two and four servers, {SIZES_MB[-1]} MB: the rule (sum of cwnd / latest RTT, or "
              "of cwnd / least RTT), a gain of 1.25 over the sum, and the period (10 us, 100 us, 1 ms: at 1 ms a group faster than 8 Mb/s, a "
              "1,000-byte payload a millisecond, is too fast for the wheel and goes unshaped)")
    rep.text(FINDINGS)
