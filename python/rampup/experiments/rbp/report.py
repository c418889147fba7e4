"""The reproduction of paper 000 as an `Experiment`: its points, what a run measures, and
the sections of its report (set-up, Figures 6-10, round 1, the robustness variants)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from .. import then_now
from ..context import Context
from ..framework import Alternate, ClaimRule, Experiment, Point, Results, Verdict, judge, then_now_table
from ..present import docs_table, errorbars, settings_table, with_yours, x_table
from ..report import Report
from ..view import View
from ..yours import Beside, Source
from . import ns2
from .claims import THEN_NOW, claim_rules
from .runs import (
    LINUX_CR,
    LINUX_PACING,
    LINUX_RBP,
    LINUX_SSR,
    MODERN,
    NEW_CONNECTIONS,
    NSSR,
    RBP,
    RBP_CWND,
    SCHEMES,
    SSR,
    THEN_NOW_PAIRS,
    VARIANTS,
    VEGAS,
    Setup,
    scenario,
    sweeps,
)

STYLE = {
    NSSR: dict(color="tab:red", marker="o"),
    SSR: dict(color="tab:blue", marker="s"),
    VEGAS: dict(color="tab:orange", marker="^"),
    RBP: dict(color="tab:green", marker="D"),
    RBP_CWND: dict(color="tab:purple", marker="v", linestyle="--"),
    LINUX_SSR: dict(color="tab:gray", marker="x", linestyle=":"),
    LINUX_PACING: dict(color="tab:brown", marker="+", linestyle=":"),
    LINUX_RBP: dict(color="tab:olive", marker="*", linestyle=":"),
    LINUX_CR: dict(color="tab:cyan", marker="P", linestyle=":"),
}

FIGURES = [
    # (file name, sweep, column, y label, scale, title)
    ("fig6", "burst", "restart_elapsed_s", "elapsed time per transfer (s)", 1.0,
     "Fig. 6: elapsed time per transfer vs burst size (10 KB queue, 100 ms)"),
    ("fig7", "burst", "restart_drop_rate", "packet drop rate per transfer (%)", 100.0,
     "Fig. 7: drop rate per transfer vs burst size (10 KB queue, 100 ms)"),
    ("fig8", "delay24", "restart_elapsed_s", "elapsed time per transfer (s)", 1.0,
     "Fig. 8: elapsed time per transfer vs delay (24 KB burst, 24 KB queue)"),
    ("fig9", "delay24", "restart_drops", "packet losses per transfer", 1.0,
     "Fig. 9: losses per transfer vs delay (24 KB burst, 24 KB queue)"),
    ("fig10", "delay10", "restart_drops", "packet losses per transfer", 1.0,
     "Fig. 10: losses per transfer vs delay (24 KB burst, 10 KB queue)"),
]

#: Per transfer (the engine's transfers table), restarts (rounds 2-10) and startup apart.
PER_PART = ("elapsed_s", "drops", "retransmits", "drop_rate", "retx_rate")
PARTS = ("restart", "startup")

SETUP = (
    "Paper 000 §4.1 and the authors' rbp_demo.tcl: 10 clients c0..c9 on 10 Mb/s, 1 ms links to router CR; "
    "bottleneck CR–SR 800 kb/s, 100 ms one way (swept in Fig. 8-10); the server behind SR on a 10 Mb/s, 1 ms "
    "link. Drop-tail limit at SR towards CR (and back) of 10 KB or 24 KB in bytes on the wire; data packets "
    "are 1000 payload + 40 header bytes, so 10 KB holds 9 packets and 24 KB 23 (the paper's ns-2 counted in "
    "packets of 1000 bytes, i.e. 10 and 24). One persistent connection per client, the server sending. "
    "10 rounds; in each the server writes B bytes to every client at a time uniform within ±1.5 s of the "
    "round's centre; centres 120 s apart. Start times from numpy default_rng(seed): the same for every scheme "
    "and x value. {seeds} seeds per point.")
TCP = (
    "TCP as ns 2.0b17 (the paper's simulator) and rbp_demo.tcl: initial window 1, 100 ms clock, minimum RTO "
    "1 s, initial RTO 3 s, delayed ACKs (100 ms), window cap 32 segments = initial ssthresh, no limited "
    "transmit, no handshake; ns-2's loss response (loss_window = \"cwnd\", rto_in_recovery = \"halve\") and "
    "ns-2's Vegas (cc = { kind = \"vegas\", rtt = \"mean\", slow_start_exit = \"eighth\" }); Reno recovery throughout.")
METRICS_TEXT = (
    "Metrics per transfer (rampup's transfers table): elapsed time = from the write to the ACK of its last "
    "byte; drops = the flow's data packets dropped while the transfer was in progress; drop rate = drops / "
    "segments of the transfer; retransmitted fraction = retransmissions / segments. Each point is the mean "
    "over seeds of each seed's mean over its 90 restarts (rounds 2-10), with the 90% CI across seeds (Student "
    "t). Round 1 (startup) is reported separately below.")

THEN_NOW_TEXT = (
    "Today's Linux on the same path and workload, with the paper's 1000-byte segments (so that the queues hold the "
    "same packets): profile linux (IW 10, CUBIC with HyStart, SACK with RACK-TLP and PRR, minimum RTO 200 ms, "
    "delayed ACKs from 40 ms with quick-ACK mode; docs/modern.md). linux-ssr restarts as Linux does by default "
    "(tcp_slow_start_after_idle = 1: cwnd halved per RTO of idle, down to the initial window of 10); linux-pacing "
    "keeps cwnd after the idle and paces every segment at Linux's rate (tcp_slow_start_after_idle = 0 under the fq "
    "qdisc: 120% of cwnd/srtt, 200% in slow start), RBP's nearest descendant; linux-rbp is RBP/rate (scale 1) in "
    "place of Linux's restart; linux-cr sends each response on a new connection to the client (its elapsed time "
    "includes the handshake, from the write), which resumes with Careful Resume from what the previous connection "
    "saved (draft-ietf-tsvwg-careful-resume, docs/careful-resume.md). Each claim about RBP names a quantity and points; "
    "RBP/rate on the paper's TCP and linux-rbp are compared there with today's default, linux-ssr, with linux-pacing "
    "and with linux-cr. " + then_now.RULES)


#: A ``--with`` restart policy stands where RBP/cwnd does: on NewReno and Reno recovery, the
#: controller of reno-ssr and reno-nssr, which the claims hold RBP against (RBP/rate runs on
#: Vegas), at RBP/cwnd's points of every variant, playing RBP in the claims about it.
BESIDE_RESTART = Beside(
    RBP_CWND, "RBP", "abcdefgij", (Source(RBP_CWND, "rbp-cwnd"),),
    what="RBP (RBP/cwnd's set-up)",
    not_judged="(h) is about every scheme's growth with the delay, (k) about RBP/cwnd against RBP/rate.")

#: A ``--with`` congestion controller stands beside Vegas (vegas-nssr: restart with the window
#: kept, as reno-nssr), the controller the paper compares with Reno, at its points of every
#: variant, playing Vegas in the claims that speak of it.
BESIDE_CC = Beside(
    VEGAS, VEGAS, "bcefg", (Source(VEGAS, "vegas"),), what="Vegas (vegas-nssr)",
    not_judged="the others are about the restart schemes over Reno and RBP/rate, which runs over Vegas.")


class Rbp(Experiment):
    name = "rbp"
    beside = {"restart": BESIDE_RESTART, "cc": BESIDE_CC}
    index_figure = "fig6"
    then_now_rows, then_now_pairs, then_now_where = THEN_NOW, THEN_NOW_PAIRS, {"variant": "main"}
    title = "Paper 000 (RBP): restart after idle — reproduction of §4, Figures 6-10"
    group = ("variant", "sweep", "scheme", "x")
    metrics = tuple(f"{part}_{m}" for part in PARTS for m in PER_PART)
    totals = tuple(f"{part}_incomplete" for part in PARTS)
    data_table = "transfers"
    ns2 = ns2.Column()
    rules_intro = "Each claim is a list of checks on the main variant's points."
    rules_after = (
        "The count of sub-claims that hold stands beside each verdict. RBP means RBP/rate (the paper's figures); the verdict with "
        "RBP/cwnd in its place is given in the reason. Each tolerance is read from the paper's words (§4.2, §4.3), two-sided "
        "where they are (\"about equally fast\", \"behave similarly\", \"about 40%\") and one-sided where they are (\"much "
        "faster\", \"slower\", \"substantial\", \"almost as few\", \"relatively little\"); none is taken from a run's result.")
    checks_caption = ("Each check: the quantity, the paper's value (or what its words bound), the tolerance, ours over the "
                      "points checked, and the points that pass")
    data_text = (
        "transfers.parquet: every transfer of every run (tags: variant, sweep, scheme, x, seed); runs.csv: "
        "per-run means; points.csv: the figure points with 90% CI half-widths; example-scenario.toml: one run's "
        "scenario. The cross-check against ns-2's own RBP agents is validation/compare_rbp.py "
        "(docs/validation.md).")

    def points(self, ctx: Context) -> list[Point]:
        out = []
        for variant, (base, _) in VARIANTS.items():
            for sw in sweeps(ctx.quick):
                for x in sw.xs:
                    setup = sw.make(base, x)
                    for scheme in (s for s in SCHEMES if variant == "main" or s not in MODERN):
                        for seed in range(1, ctx.seeds_or(10) + 1):
                            tags = {"variant": variant, "sweep": sw.name, "scheme": scheme, "x": float(x), "seed": seed,
                                    "segments": setup.segments}
                            out.append(Point(tags, scenario(scheme, setup, seed), keep=("transfers",)))
        return out

    def measure(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
        """Per part, the mean over the run's transfers (incomplete ones left out of the
        elapsed mean and counted) and the rates per segment."""
        t, segments = tables["transfers"], point.tags["segments"]
        if point.tags["scheme"] in NEW_CONNECTIONS:
            # One transfer per flow: its round is the flow's (`runs.scenario`).
            t = t.assign(index=t["flow"] // Setup().clients)
        row: dict[str, Any] = {}
        for part, p in zip(PARTS, (t[t["index"] >= 1], t[t["index"] < 1]), strict=True):
            drops, retransmits = p["drops"].mean(), p["retransmits"].mean()
            row.update({f"{part}_elapsed_s": p["elapsed_s"].mean(), f"{part}_drops": drops, f"{part}_retransmits": retransmits,
                        f"{part}_drop_rate": drops / segments, f"{part}_retx_rate": retransmits / segments,
                        f"{part}_incomplete": float(p["elapsed_s"].isna().sum())})
        return row

    def example_scenario(self) -> tuple[str, dict[str, Any]]:
        return "One run of the reproduction: Fig. 6, B = 24 KB, RBP/rate, seed 1.", scenario(RBP, Setup(), 1)

    def claims(self) -> list[ClaimRule]:
        return claim_rules()

    def views(self, summary: pd.DataFrame) -> tuple[View, Callable[[ClaimRule], Sequence[Alternate]]]:
        variants = [Alternate(desc, _view(summary, k, RBP)) for k, (_, desc) in VARIANTS.items() if k != "main"]
        return _view(summary, "main", RBP), lambda r: [Alternate("With RBP/cwnd as RBP", _view(summary, "main", RBP_CWND)), *variants]

    def docs_table(self, res: Results, verdicts: list[Verdict]) -> str:
        """The claims as docs/rbp.md shows them: the paper's words, our verdict with its count
        of sub-claims that hold and our numbers; then the verdicts of each robustness variant."""
        main = docs_table(["claim", "verdict", "what came out"], [[f"({v.rule.id}) {v.rule.paper}", v.cell(), v.ours] for v in verdicts])
        others = {k: _judge_variant(res.summary, k) for k in VARIANTS if k != "main"}
        cells = [[f"({v.rule.id})"] + [o[i].cell() for o in others.values()] for i, v in enumerate(verdicts)]
        now = then_now_table(self, res)
        return "\n\n".join([main, docs_table(["claim"] + [VARIANTS[k][1] for k in others], cells),
                            docs_table(list(now.columns), now.astype(str).values.tolist())]) + "\n"

    def setup(self, rep: Report, res: Results, ctx: Context) -> None:
        rep.heading("Set-up")
        rep.text(SETUP.format(seeds=int(res.runs["seed"].max())))
        rep.text(TCP)
        rep.table(settings_table(SCHEMES, name="paper label"), "Schemes: the paper's labels and rampup's settings")
        rep.text(METRICS_TEXT)

    def sections(self, rep: Report, res: Results, verdicts: list[Verdict], ctx: Context) -> None:
        main = View(res.summary, {"variant": "main"})
        for name, sweep_name, col, ylabel, scale, title in FIGURES:
            rep.heading(title)
            rep.figure(_figure(main, sweep_name, col, ylabel, scale, ctx.quick, res.yours), name,
                       "Mean over seeds with 90% CI; restarts (rounds 2-10).")
        _figure_data(rep, main, res.yours)
        rep.heading("Then and now: RBP against today's Linux")
        rep.text(THEN_NOW_TEXT)
        rep.table(ctx.then_now, "Claim by claim: RBP against today's Linux")
        _startup(rep, res, main, res.yours)
        for variant in (k for k in VARIANTS if k != "main"):
            _robustness(rep, res, variant, verdicts, ctx.quick, res.yours)


def _view(summary: pd.DataFrame, variant: str, rbp: str) -> View:
    return View(summary, {"variant": variant}, {"RBP": rbp})


def _judge_variant(summary: pd.DataFrame, variant: str) -> list[Verdict]:
    return judge(claim_rules(), _view(summary, variant, RBP))


def _series(v: View, sweep: str, yours: Sequence[str] = ()) -> dict[str, pd.DataFrame]:
    """The schemes that ran in ``v``'s variant (today's run and the ``--with`` parts' in the
    main one only)."""
    return {k: p for k in (*SCHEMES, *yours) if len(p := v.of(k, sweep=sweep))}


def _figure(v: View, sweep: str, col: str, ylabel: str, scale: float, quick: bool, yours: Sequence[str] = ()) -> Figure:
    """One paper figure: every scheme's mean of ``col`` with its CI against the sweep's x."""
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    _panel(fig.add_subplot(), v, sweep, col, ylabel, scale, quick, yours=yours)
    return fig


def _panel(ax: Any, v: View, sweep: str, col: str, ylabel: str, scale: float, quick: bool, title: str = "",
           yours: Sequence[str] = ()) -> None:
    """On ``ax``: every scheme's mean of ``col`` with its CI against the sweep's x."""
    errorbars(ax, _series(v, sweep, yours), col, with_yours(STYLE, yours), scale)
    ax.set_xlabel(next(s for s in sweeps(quick) if s.name == sweep).xlabel)
    ax.set_ylabel(ylabel)
    if title:  # a panel's; a figure's own title is its report heading
        ax.set_title(title, fontsize="medium")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")


def _table(v: View, sweep: str, cols: Sequence[tuple[str, str, float, str]], yours: Sequence[str] = ()) -> pd.DataFrame:
    """x rows, one column per scheme and metric: "mean ± ci"."""
    return x_table(_series(v, sweep, yours), sorted(v.points[v.points["sweep"] == sweep]["x"].unique()), cols)


def _figure_data(rep: Report, v: View, yours: Sequence[str] = ()) -> None:
    rep.heading("Figure data (restarts, mean ± 90% CI)")
    elapsed, drops = [("restart_elapsed_s", "elapsed s", 1, "{:.3f}")], [("restart_drops", "losses", 1, "{:.2f}")]
    rep.table(_table(v, "burst", elapsed, yours), "Fig. 6: x = burst (KB)")
    rep.table(_table(v, "burst", [("restart_drop_rate", "drop %", 100, "{:.1f}")], yours), "Fig. 7: x = burst (KB)")
    rep.table(_table(v, "delay24", elapsed, yours), "Fig. 8: x = one-way delay (ms)")
    rep.table(_table(v, "delay24", drops, yours), "Fig. 9: x = one-way delay (ms)")
    rep.table(_table(v, "delay10", drops, yours), "Fig. 10: x = one-way delay (ms)")
    rep.table(_table(v, "delay10", [("restart_retx_rate", "retx %", 100, "{:.1f}")], yours), "Fig. 10 as retransmitted fraction (claim e)")


def _startup(rep: Report, res: Results, v: View, yours: Sequence[str] = ()) -> None:
    rep.heading("Round 1 (startup), reported separately")
    rep.text("Startup is the same slow start for every Reno-based scheme (RBP acts only after an idle), so reno-ssr, "
             "reno-nssr and RBP/cwnd coincide here, as do vegas-nssr and RBP/rate.")
    rep.table(_table(v, "burst", [("startup_elapsed_s", "elapsed s", 1, "{:.3f}"), ("startup_drop_rate", "drop %", 100, "{:.1f}")], yours),
              "Round 1, Fig. 6/7 set-up: x = burst (KB)")
    runs = res.runs[res.runs["variant"] == "main"]
    incomplete = int(runs[[f"{p}_incomplete" for p in PARTS]].to_numpy().sum())
    rep.text(f"Transfers that did not complete by the end of the run (excluded from the elapsed means): {incomplete}.")


def _robustness(rep: Report, res: Results, variant: str, main: list[Verdict], quick: bool, yours: Sequence[str] = ()) -> None:
    """A robustness variant: its verdicts beside the main ones, and Fig. 6 and 7 again."""
    desc = VARIANTS[variant][1]
    rep.heading(f"Robustness: {desc}")
    rep.text(f"The whole experiment again with {desc}; everything else as above. Verdicts by the same rules.")
    rep.table(pd.DataFrame([{"claim": v.rule.id, "ours": v.ours, "verdict": v.cell(), "main variant": m.cell()}
                            for v, m in zip(_judge_variant(res.summary, variant), main, strict=True)]), f"Claims with {desc}")
    fig = Figure(figsize=(12, 4.5), layout="constrained")
    axes = fig.subplots(1, 2)
    v = View(res.summary, {"variant": variant})
    _panel(axes[0], v, "burst", "restart_elapsed_s", "elapsed time per transfer (s)", 1.0, quick, title="Fig. 6 set-up", yours=yours)
    _panel(axes[1], v, "burst", "restart_drop_rate", "packet drop rate per transfer (%)", 100.0, quick, title="Fig. 7 set-up",
           yours=yours)
    rep.figure(fig, f"fig6-7-{variant}", f"Fig. 6 and 7 with {desc}")

