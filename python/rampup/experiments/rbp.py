"""Paper 000 (Visweswaraiah & Heidemann, "Improving restart of idle TCP connections"): §4.

`rampup reproduce rbp` re-runs Figures 6-10 for the paper's four schemes and RBP/cwnd,
writes their data, one figure per paper figure and a verdict per claim of SPEC.md §000.

Set-up (paper §4.1, the authors' ``tcl/ex/rbp_demo.tcl``)::

    c0..c9 --10 Mb/s, 1 ms-- CR ==800 kb/s, delay, drop-tail queue== SR --10 Mb/s, 1 ms-- server

One persistent connection per client, the server sending. Ten rounds: in each, the server
writes B bytes to every client at a time drawn uniformly within ±1.5 s of the round's centre;
centres 120 s apart. The start times come from ``numpy.random.default_rng(seed)``, so a
seed's schedule is the same for every scheme, burst size and delay (common random numbers).
TCP as in ns 2.0b17, which the paper used: initial window 1, 100 ms clock, minimum RTO 1 s,
delayed ACKs (100 ms), window cap 32 = initial ssthresh, no limited transmit, no handshake.
Drop-tail limits are in bytes on the wire (1000 payload + 40 header: a 10 KB queue holds 9
data packets, a 24 KB queue 23).

Metrics per transfer (the engine's ``transfers`` table): elapsed time from the write to the
ACK of its last byte, the flow's data packets dropped meanwhile, and retransmissions. Round 1
(transfer index 0) is the connection's startup; rounds 2-10 are restarts after 120 s idle.
A figure point is the mean over seeds of each seed's mean over its 90 restarts, with a 90%
confidence interval across seeds; round 1 is reported separately.

Claims are judged by the explicit rules in `CLAIM_RULES` (documented in the report), never
by hand: every claim is a list of checks on the data; all pass: holds; at least three
quarters, not all: partly; fewer: does not hold (`checks.verdict`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import _toml
from . import Claim, Context, Job, mean_ci90
from .checks import MEANING, Check, by_part, count, rule_table, verdict

__all__ = ["SCHEMES", "Setup", "reproduce", "scenario", "scenario_text", "start_times", "summarize"]

# ----------------------------------------------------------------------- schemes

#: The paper's labels -> rampup TCP settings. The paper's "Reno" is Reno recovery; its
#: RBP is RBP/rate over Vegas with scale 1 (§3.4); RBP/cwnd runs over Reno (§3.3).
SCHEMES: dict[str, dict[str, Any]] = {
    "reno-ssr": {"cc": "newreno", "recovery": "reno", "restart": "ssr"},
    "reno-nssr": {"cc": "newreno", "recovery": "reno", "restart": "nssr"},
    "vegas-nssr": {"cc": "vegas", "recovery": "reno", "restart": "nssr"},
    "RBP/rate": {"cc": "vegas", "recovery": "reno", "restart": "rbp-rate", "rbp_scale": 1.0},
    "RBP/cwnd": {"cc": "newreno", "recovery": "reno", "restart": "rbp-cwnd", "rbp_scale": 1.0},
}
NSSR, SSR, VEGAS, RBP, RBP_CWND = "reno-nssr", "reno-ssr", "vegas-nssr", "RBP/rate", "RBP/cwnd"

#: TCP of ns 2.0b17 (paper §4.1) and of the authors' rbp_demo.tcl, for every scheme.
ERA_TCP: dict[str, Any] = {
    "initial_window": 1,
    "initial_ssthresh": 32,
    "max_window": 32,
    "delayed_ack": True,
    "delack_timeout": "100ms",
    "min_rto": "1s",
    "initial_rto": "3s",
    "max_rto": "60s",
    "clock_granularity": "100ms",
    "handshake": False,
    "limited_transmit": False,
}

#: Profiles: which loss response and Vegas details. "ns2" models ns-2's agents (the paper's
#: simulator; docs/validation.md), "rfc" keeps rampup's defaults (RFC 5681 / Linux).
PROFILES: dict[str, dict[str, dict[str, Any]]] = {
    "ns2": {
        "newreno": {"loss_window": "cwnd", "rto_in_recovery": "halve"},
        "vegas": {"loss_window": "cwnd", "rto_in_recovery": "halve", "vegas_rtt": "mean",
                  "vegas_slow_start_exit": "eighth"},
    },
    "rfc": {"newreno": {}, "vegas": {}},
}


@dataclass(frozen=True)
class Setup:
    """One experiment configuration (everything but the scheme and the seed)."""

    burst: int = 24_000  # bytes per response
    queue: int = 10_000  # bytes, SR<->CR drop-tail limit (both directions)
    delay_ms: float = 100.0  # bottleneck one-way delay
    mss: int = 1000
    profile: str = "ns2"
    clients: int = 10
    rounds: int = 10
    gap_s: float = 120.0  # between round centres
    first_s: float = 5.0  # centre of round 1
    jitter_s: float = 1.5  # starts uniform in centre ± jitter
    tail_s: float = 120.0  # simulated after the last round's window

    @property
    def segments(self) -> int:
        """Segments of one response."""
        return -(-self.burst // self.mss)


def start_times(seed: int, setup: Setup = Setup()) -> np.ndarray:
    """Start time (s) of each round's response to each client, shape (rounds, clients).

    Drawn from ``numpy.random.default_rng(seed)`` only: the same for every scheme, burst size,
    queue and delay, so comparisons between them use common random numbers."""
    rng = np.random.default_rng(seed)
    offsets = rng.uniform(-setup.jitter_s, setup.jitter_s, size=(setup.rounds, setup.clients))
    centres = setup.first_s + setup.gap_s * np.arange(setup.rounds)
    # Whole microseconds, as written into the scenario.
    return np.round((centres[:, None] + offsets) * 1e6) / 1e6


def _time(seconds: float) -> str:
    return f"{round(seconds * 1e6)}us"


def scenario(scheme: str, setup: Setup, seed: int) -> dict[str, Any]:
    """The scenario (as a dict) of one run: `scheme` on `setup` with `seed`'s schedule."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme: {scheme!r} is not one of {', '.join(SCHEMES)}")
    if setup.profile not in PROFILES:
        raise ValueError(f"profile: {setup.profile!r} is not one of {', '.join(PROFILES)}")
    clients = [f"c{i}" for i in range(setup.clients)]
    links = [
        {"a": c, "b": "CR", "rate": "10Mbps", "delay": "1ms", "queue": {"packets": 1000}} for c in clients
    ]
    links.append({"a": "CR", "b": "SR", "rate": "800kbps", "delay": _time(setup.delay_ms / 1e3),
                  "queue": {"bytes": setup.queue}})
    links.append({"a": "SR", "b": "server", "rate": "10Mbps", "delay": "1ms", "queue": {"packets": 1000}})
    starts = start_times(seed, setup)
    flows = [
        {
            "from": "server",
            "to": c,
            "start": "0s",
            "app": {"kind": "writes",
                    "schedule": [{"at": _time(starts[r, i]), "bytes": setup.burst} for r in range(setup.rounds)]},
        }
        for i, c in enumerate(clients)
    ]
    s = SCHEMES[scheme]
    tcp = {**s, **ERA_TCP, "mss": setup.mss, **PROFILES[setup.profile][s["cc"]]}
    end = setup.first_s + setup.gap_s * (setup.rounds - 1) + setup.jitter_s + setup.tail_s
    return {
        "name": f"rbp {scheme} B={setup.burst} Q={setup.queue} d={setup.delay_ms:g}ms mss={setup.mss} {setup.profile}",
        "duration": _time(end),
        "seed": seed,
        "tcp": tcp,
        "topology": {"kind": "custom", "nodes": [*clients, "CR", "SR", "server"], "link": links},
        "flow": flows,
        "trace": {"timeseries": False, "queues": False},
    }


def scenario_text(scheme: str, setup: Setup, seed: int) -> str:
    return _toml.dumps(scenario(scheme, setup, seed))


# ----------------------------------------------------------------------- sweeps

BURSTS_KB = list(range(2, 41, 2))
DELAYS_MS = [25, 50, 100, 200, 300, 400, 600, 800]
QUICK_BURSTS_KB = [4, 10, 24, 40]
QUICK_DELAYS_MS = [50, 200, 800]


@dataclass(frozen=True)
class Sweep:
    """A paper figure's sweep: x values and how each becomes a `Setup`."""

    name: str  # "burst" (Fig. 6, 7), "delay24" (Fig. 8, 9), "delay10" (Fig. 10)
    xs: tuple[float, ...]
    make: Callable[[Setup, float], Setup]
    xlabel: str


def sweeps(quick: bool) -> list[Sweep]:
    bursts = QUICK_BURSTS_KB if quick else BURSTS_KB
    delays = QUICK_DELAYS_MS if quick else DELAYS_MS
    return [
        Sweep("burst", tuple(bursts), lambda s, x: replace(s, burst=int(x * 1000), queue=10_000, delay_ms=100.0),
              "burst size (KB)"),
        Sweep("delay24", tuple(delays), lambda s, x: replace(s, burst=24_000, queue=24_000, delay_ms=float(x)),
              "bottleneck one-way delay (ms)"),
        Sweep("delay10", tuple(delays), lambda s, x: replace(s, burst=24_000, queue=10_000, delay_ms=float(x)),
              "bottleneck one-way delay (ms)"),
    ]


#: Variants of the whole experiment: the main one and two robustness checks.
VARIANTS: dict[str, tuple[Setup, str]] = {
    "main": (Setup(), "mss 1000, ns-2-like loss response (the paper's simulator)"),
    "mss512": (Setup(mss=512), "mss 512 (the paper does not give its segment size)"),
    "rfc": (Setup(profile="rfc"), "rampup's RFC defaults for the loss response and Vegas instead of ns-2's"),
}


# ----------------------------------------------------------------------- metrics

def run_metrics(transfers: pd.DataFrame, segments: pd.Series | int) -> pd.DataFrame:
    """Per-run means, restarts (index >= 1) and startup (index 0) separately.

    `transfers` holds one or more runs told apart by a ``run`` column; `segments` is the
    segments per transfer (one number, or per run). Returns one row per run, indexed by run."""
    t = transfers.assign(part=np.where(transfers["index"] >= 1, "restart", "startup"),
                         done=transfers["elapsed_s"].notna())
    g = t.groupby(["run", "part"])
    m = pd.DataFrame({
        "elapsed_s": g["elapsed_s"].mean(),  # NaN (incomplete) left out
        "drops": g["drops"].mean(),
        "retransmits": g["retransmits"].mean(),
        "incomplete": g["done"].size() - g["done"].sum(),
    }).unstack("part")
    out = pd.DataFrame(index=m.index)
    seg = segments if isinstance(segments, int) else segments.reindex(m.index)
    for part in ("restart", "startup"):
        out[f"{part}_elapsed_s"] = m[("elapsed_s", part)]
        out[f"{part}_drops"] = m[("drops", part)]
        out[f"{part}_retransmits"] = m[("retransmits", part)]
        out[f"{part}_drop_rate"] = m[("drops", part)] / seg
        out[f"{part}_retx_rate"] = m[("retransmits", part)] / seg
        out[f"{part}_incomplete"] = m[("incomplete", part)].astype(float)
    return out


METRICS = ["elapsed_s", "drops", "retransmits", "drop_rate", "retx_rate", "incomplete"]


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Figure points: per (variant, sweep, scheme, x), the mean of the per-seed means and
    the half-width of its 90% confidence interval, for restarts and startup."""
    rows = []
    for key, g in runs.groupby(["variant", "sweep", "scheme", "x"], sort=False):
        row: dict[str, Any] = dict(zip(["variant", "sweep", "scheme", "x"], key, strict=True))
        row["seeds"] = len(g)
        for part in ("restart", "startup"):
            for m in METRICS:
                col = f"{part}_{m}"
                if m == "incomplete":
                    row[col] = float(g[col].sum())
                    continue
                mean, ci = mean_ci90(g[col].tolist())
                row[col] = mean
                row[f"{col}_ci90"] = ci
        rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------- claims

#: The thresholds of the claim rules (the report prints them).
MUCH_FASTER = 0.80  # "much faster": mean elapsed at most 80% of the other's, CIs disjoint
SAME_SPEED = 0.15  # "about equally fast" (§4.2), "behave similarly" (§4.3): within 15% of NSSR, either way
SLOWER = 1.10  # "slower": mean elapsed at least 110% of the other's, CIs disjoint
MANY_DROPS = (2.0, 0.05)  # "drop many": drop rate >= 2x SSR's and >= 5% of packets
NEAR_SSR = 0.25  # "almost as few as SSR": at most 25% of the way from SSR's drop rate to NSSR's
DISPROPORTIONATE = 1.25  # SSR's growth over the delay sweep >= 1.25x NSSR's, and SSR/NSSR grows
ABOUT_40 = (0.30, 0.50)  # "about 40% of packets need to be retransmitted": within 10 pp either way
FEW = 0.10  # "few": retransmitted fraction <= 10% and <= half of NSSR's

CLAIM_RULES = [
    ("a", "Below about 12 KB (B < 12 KB, Fig. 6), NSSR is much faster than SSR and RBP.",
     f"for each B < 12 KB: NSSR's mean elapsed ≤ {MUCH_FASTER:.0%} of SSR's and of RBP's, with disjoint 90% CIs."),
    ("b", "Above about 12 KB (B > 12 KB, Fig. 6), RBP, Vegas and NSSR are about equally fast, SSR slower.",
     f"for each B > 12 KB: RBP's and Vegas' means within {SAME_SPEED:.0%} of NSSR's, either way (\"about equally "
     f"fast\" is two-sided: RBP much faster than NSSR is not what the paper saw); SSR's mean ≥ "
     f"{SLOWER:.0%} of NSSR's and of RBP's, with disjoint CIs."),
    ("c", "Once B exceeds the queue (Fig. 7), NSSR and Vegas drop many packets; RBP drops almost as few as SSR, "
          "even at 40 KB.",
     f"for each B > queue: NSSR's and Vegas' drop rates ≥ {MANY_DROPS[0]:g}× SSR's and ≥ {MANY_DROPS[1]:.0%}; "
     f"RBP's drop rate ≤ SSR's + {NEAR_SSR:.0%} of (NSSR's − SSR's)."),
    ("d", "SSR's elapsed time grows disproportionately with delay; RBP tracks NSSR (Fig. 8).",
     f"SSR's increase from the smallest to the largest delay ≥ {DISPROPORTIONATE:g}× NSSR's, and SSR/NSSR larger "
     f"at the largest delay than at the smallest; for each delay RBP's mean within {SAME_SPEED:.0%} of NSSR's, "
     f"either way (\"behave similarly\", §4.3)."),
    ("e", "With a 10 KB queue and 24 KB bursts (Fig. 10), NSSR and Vegas retransmit about 40% of packets, SSR and "
          "RBP few.",
     f"for each delay: NSSR's and Vegas' retransmitted fraction within {ABOUT_40[0]:.0%}-{ABOUT_40[1]:.0%} "
     f"(\"about 40%\" is two-sided); SSR's "
     f"and RBP's ≤ {FEW:.0%} and ≤ half of NSSR's."),
]


def _pt(points: pd.DataFrame, sweep: str, scheme: str) -> pd.DataFrame:
    p = points[(points["sweep"] == sweep) & (points["scheme"] == scheme)]
    return p.set_index("x").sort_index()


def _disjoint_below(a: float, a_ci: float, b: float, b_ci: float) -> bool:
    """a's CI lies entirely below b's."""
    return a + a_ci < b - b_ci


def _checks(points: pd.DataFrame, claim: str, rbp: str) -> list[Check]:
    """The checks of one claim on one variant's points, with `rbp` standing for RBP."""
    el, ci = "restart_elapsed_s", "restart_elapsed_s_ci90"
    out: list[Check] = []
    same = f"{1 - SAME_SPEED:.2f}-{1 + SAME_SPEED:.2f} (two-sided)"

    def ratio(part: str, x: float, a: pd.DataFrame, b: pd.DataFrame, names: str, paper: str, tolerance: str,
              ok: Callable[[float], bool], disjoint: bool = False) -> None:
        """A check on the ratio of two schemes' mean elapsed times at x (a's over b's)."""
        value = a.at[x, el] / b.at[x, el]
        lower, upper = sorted([(a.at[x, el], a.at[x, ci]), (b.at[x, el], b.at[x, ci])])
        apart = not disjoint or _disjoint_below(*lower, *upper)
        out.append(Check(part, x, bool(ok(value) and apart), f"{names} mean elapsed", paper, value,
                         tolerance + (", 90% CIs disjoint" if disjoint else "")))

    if claim in ("a", "b", "c"):
        n, s, v, r = (_pt(points, "burst", k) for k in (NSSR, SSR, VEGAS, rbp))
        queue_kb = 10.0
        for x in n.index:
            if claim == "a" and x < 12:
                for name, o, other in (("NSSR much faster than SSR", s, "SSR"),
                                       ("NSSR much faster than RBP", r, "RBP")):
                    ratio(name, x, n, o, f"NSSR/{other}", "much faster: < 1", f"≤ {MUCH_FASTER:.2f}",
                          lambda q: q <= MUCH_FASTER, disjoint=True)
            if claim == "b" and x > 12:
                for name, o, who in (("RBP about as fast as NSSR", r, "RBP"),
                                     ("Vegas about as fast as NSSR", v, "Vegas")):
                    ratio(name, x, o, n, f"{who}/NSSR", "≈ 1", same, lambda q: abs(q - 1) <= SAME_SPEED)
                for name, o, other in (("SSR slower than NSSR", n, "NSSR"), ("SSR slower than RBP", r, "RBP")):
                    ratio(name, x, s, o, f"SSR/{other}", "slower: > 1", f"≥ {SLOWER:.2f}", lambda q: q >= SLOWER,
                          disjoint=True)
            if claim == "c" and x > queue_kb:
                dr = "restart_drop_rate"
                for name, o in (("NSSR drops many", n), ("Vegas drops many", v)):
                    ok = o.at[x, dr] >= MANY_DROPS[0] * s.at[x, dr] and o.at[x, dr] >= MANY_DROPS[1]
                    out.append(Check(name, x, bool(ok), f"{name.split()[0]} drop rate",
                                     "many (substantially more than SSR)",
                                     o.at[x, dr], f"≥ {MANY_DROPS[0]:g}× SSR's and ≥ {MANY_DROPS[1]:.0%}"))
                gap = max(n.at[x, dr] - s.at[x, dr], 0.0)
                way = (r.at[x, dr] - s.at[x, dr]) / gap if gap > 0 else 0.0
                near = r.at[x, dr] <= s.at[x, dr] + NEAR_SSR * gap
                out.append(Check("RBP drops almost as few as SSR", x, bool(near),
                                 "RBP's drop rate, as the share of the way from SSR's to NSSR's",
                                 "almost as low as SSR: ≈ 0",
                                 way, f"≤ {NEAR_SSR:.2f}"))
    elif claim == "d":
        n, s, r = (_pt(points, "delay24", k) for k in (NSSR, SSR, rbp))
        lo, hi = n.index.min(), n.index.max()
        grow_s, grow_n = s.at[hi, el] - s.at[lo, el], n.at[hi, el] - n.at[lo, el]
        out.append(Check(f"SSR grows ≥ {DISPROPORTIONATE:g}× NSSR's growth", hi,
                         bool(grow_s >= DISPROPORTIONATE * grow_n),
                         "SSR's growth over the delay sweep / NSSR's", "disproportionate: > 1", grow_s / grow_n,
                         f"≥ {DISPROPORTIONATE:g}"))
        change = s.at[hi, el] / n.at[hi, el] - s.at[lo, el] / n.at[lo, el]
        out.append(Check("SSR/NSSR grows with delay", hi, bool(change > 0),
                         "SSR/NSSR at the largest delay − at the smallest",
                         "grows: > 0", change, "> 0"))
        for x in n.index:
            ratio("RBP similar to NSSR", x, r, n, "RBP/NSSR", "≈ 1", same, lambda q: abs(q - 1) <= SAME_SPEED)
    elif claim == "e":
        n, s, v, r = (_pt(points, "delay10", k) for k in (NSSR, SSR, VEGAS, rbp))
        rr = "restart_retx_rate"
        for x in n.index:
            for name, o in (("NSSR ≈ 40%", n), ("Vegas ≈ 40%", v)):
                out.append(Check(name, x, bool(ABOUT_40[0] <= o.at[x, rr] <= ABOUT_40[1]),
                                 f"{name.split()[0]} retransmitted fraction", "≈ 0.40", o.at[x, rr],
                                 f"{ABOUT_40[0]:.2f}-{ABOUT_40[1]:.2f} (two-sided)"))
            for name, o in (("SSR few", s), ("RBP few", r)):
                out.append(Check(name, x, bool(o.at[x, rr] <= FEW and o.at[x, rr] <= 0.5 * n.at[x, rr]),
                                 f"{name.split()[0]} retransmitted fraction", "little", o.at[x, rr],
                                 f"≤ {FEW:.2f} and ≤ half of NSSR's"))
    return out


def _fmt_x(xs: Sequence[float], unit: str) -> str:
    xs = sorted(xs)
    return ", ".join(f"{x:g}" for x in xs) + f" {unit}"


def _range(p: pd.DataFrame, col: str, xs: Sequence[float], scale: float = 1.0, fmt: str = "{:.2f}") -> str:
    vals = [p.at[x, col] * scale for x in xs if x in p.index]
    if not vals:
        return "n/a"
    lo, hi = min(vals), max(vals)
    return fmt.format(lo) if math.isclose(lo, hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"


def _numbers(points: pd.DataFrame, claim: str) -> str:
    """Our numbers for a claim, briefly."""
    el, dr, rr = "restart_elapsed_s", "restart_drop_rate", "restart_retx_rate"
    names = {NSSR: "NSSR", SSR: "SSR", VEGAS: "Vegas", RBP: "RBP/rate", RBP_CWND: "RBP/cwnd"}
    if claim in ("a", "b", "c"):
        xs = sorted(_pt(points, "burst", NSSR).index)
        sel = {"a": [x for x in xs if x < 12], "b": [x for x in xs if x > 12], "c": [x for x in xs if x > 10]}[claim]
        if claim == "c":
            big = max(xs)
            at = ", ".join(f"{names[k]} {_pt(points, 'burst', k).at[big, dr]:.1%}" for k in names)
            return f"drop rate at {big:g} KB: {at}"
        rng = ", ".join(f"{names[k]} {_range(_pt(points, 'burst', k), el, sel)}" for k in names)
        return f"restart elapsed (s) over {_fmt_x(sel, 'KB')}: {rng}" if len(sel) <= 3 else \
            f"restart elapsed (s), {min(sel):g}-{max(sel):g} KB: {rng}"
    if claim == "d":
        p = {k: _pt(points, "delay24", k) for k in names}
        lo, hi = p[NSSR].index.min(), p[NSSR].index.max()
        return f"restart elapsed (s) at {lo:g} / {hi:g} ms: " + ", ".join(
            f"{names[k]} {p[k].at[lo, el]:.2f} / {p[k].at[hi, el]:.2f}" for k in names)
    p = {k: _pt(points, "delay10", k) for k in names}
    xs = sorted(p[NSSR].index)
    return f"retransmitted fraction over {min(xs):g}-{max(xs):g} ms: " + ", ".join(
        f"{names[k]} {_range(p[k], rr, xs, 100, '{:.0f}')}%" for k in names)


def _faster(points: pd.DataFrame, claim: str) -> str:
    """Where RBP/rate is more than SAME_SPEED faster than NSSR (claims b, d): which way those
    checks fail."""
    if claim not in ("b", "d"):
        return ""
    sweep, unit = ("burst", "KB") if claim == "b" else ("delay24", "ms")
    n, r = _pt(points, sweep, NSSR), _pt(points, sweep, RBP)
    xs = [x for x in n.index if (claim == "d" or x > 12) and x in r.index
          and r.at[x, "restart_elapsed_s"] < (1 - SAME_SPEED) * n.at[x, "restart_elapsed_s"]]
    return f" RBP/rate more than {SAME_SPEED:.0%} faster than NSSR at {_fmt_x(xs, unit)}." if xs else ""


#: The claims table docs/rbp.md shows (between its `claims` markers), written beside the
#: report; a test checks that the page has the one the full reproduction writes.
DOCS_TABLE = "claims-table.md"


def docs_table(claims: Sequence[tuple[str, str, str, str, str, list[Check]]],
               variants: dict[str, Sequence[tuple[str, str, str, str, str, list[Check]]]]) -> str:
    """The claims as docs/rbp.md shows them: the paper's words, our verdict with its count
    of checks passed and our numbers; then the verdicts of each robustness variant."""
    lines = ["| claim | verdict | what came out |", "| --- | --- | --- |"]
    for cid, _, ours, v, _, checks in claims:
        lines.append(f"| ({cid}) {_PAPER[cid]} | {v} ({count(checks)}) | {ours} |")
    lines += ["", "| claim | " + " | ".join(VARIANTS[k][1] for k in variants) + " |",
              "| --- | " + " | ".join("---" for _ in variants) + " |"]
    for i, (cid, *_) in enumerate(claims):
        cells = [f"{vc[i][3]} ({count(vc[i][5])})" for vc in variants.values()]
        lines.append(f"| ({cid}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def judge(points: pd.DataFrame) -> list[tuple[str, str, str, str, str, list[Check]]]:
    """(claim, statement, ours, verdict, reason, checks) for claims (a)-(e) on one variant's points."""
    out = []
    for cid, statement, rule in CLAIM_RULES:
        checks = _checks(points, cid, RBP)
        alt = _checks(points, cid, RBP_CWND)
        unit = "KB" if cid in "abc" else "ms"
        v = verdict(checks)
        ours = f"{_numbers(points, cid)}.{_faster(points, cid)}"
        reason = (f"{v}: {count(checks)} checks pass ({by_part(checks, unit)}). Rule: {rule} "
                  f"With RBP/cwnd as RBP: {verdict(alt)} ({count(alt)}).")
        out.append((cid, statement, ours, v, reason, checks))
    return out


# ----------------------------------------------------------------------- figures

STYLE = {
    NSSR: dict(color="tab:red", marker="o"),
    SSR: dict(color="tab:blue", marker="s"),
    VEGAS: dict(color="tab:orange", marker="^"),
    RBP: dict(color="tab:green", marker="D"),
    RBP_CWND: dict(color="tab:purple", marker="v", linestyle="--"),
}


def _figure(points: pd.DataFrame, sweep: Sweep, col: str, ylabel: str, title: str, scale: float = 1.0,
            ax=None) -> Figure | None:  # type: ignore[no-untyped-def]
    fig = None
    if ax is None:
        fig = Figure(figsize=(7, 4.5), layout="constrained")
        ax = fig.add_subplot()
    for scheme in SCHEMES:
        p = _pt(points, sweep.name, scheme)
        ax.errorbar(p.index, p[col] * scale, yerr=p[f"{col}_ci90"] * scale, label=scheme, capsize=3,
                    linewidth=1.2, markersize=4, **STYLE[scheme])
    ax.set_xlabel(sweep.xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return fig


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


def _table(points: pd.DataFrame, sweep: str, cols: Sequence[tuple[str, str, float, str]]) -> pd.DataFrame:
    """x rows, one column per scheme and metric: "mean ± ci"."""
    p = points[points["sweep"] == sweep]
    xs = sorted(p["x"].unique())
    out = pd.DataFrame({"x": [f"{x:g}" for x in xs]})
    for col, label, scale, fmt in cols:
        for scheme in SCHEMES:
            q = _pt(points, sweep, scheme)
            out[f"{scheme} {label}"] = [
                (fmt.format(q.at[x, col] * scale) + " ± " + fmt.format(q.at[x, f"{col}_ci90"] * scale))
                if x in q.index else "" for x in xs]
    return out


# ----------------------------------------------------------------------- reproduce

def _jobs(ctx: Context) -> list[tuple[dict[str, Any], Job]]:
    seeds = ctx.seeds_or(10)
    specs = []
    for variant, (base, _) in VARIANTS.items():
        for sw in sweeps(ctx.quick):
            for x in sw.xs:
                setup = sw.make(base, x)
                for scheme in SCHEMES:
                    for seed in range(1, seeds + 1):
                        tags = {"variant": variant, "sweep": sw.name, "scheme": scheme, "x": float(x), "seed": seed,
                                "segments": setup.segments}
                        job = Job(scenario_text(scheme, setup, seed), seed, tags=tags, keep=("transfers",))
                        specs.append((tags, job))
    return specs


def run_all(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every run of the reproduction: (per-transfer rows, per-run means), tagged.

    A scenario that belongs to two sweeps (Fig. 6 at 24 KB is Fig. 10 at 100 ms) runs once."""
    specs = _jobs(ctx)
    unique: dict[str, Job] = {}
    for _, job in specs:
        unique.setdefault(job.key, job)
    jobs = list(unique.values())
    results = dict(zip((j.key for j in jobs), ctx.run(jobs), strict=True))
    runs = pd.DataFrame([tags for tags, _ in specs])
    runs.index.name = "run"
    transfers = pd.concat([results[job.key]["transfers"].assign(run=i) for i, (_, job) in enumerate(specs)],
                          ignore_index=True)
    runs = runs.join(run_metrics(transfers, runs["segments"]))
    transfers = transfers.join(runs[["variant", "sweep", "scheme", "x", "seed"]], on="run")
    return transfers, runs.reset_index(drop=True)


def reproduce(ctx: Context):  # type: ignore[no-untyped-def]
    transfers, runs = run_all(ctx)
    points = summarize(runs)
    ctx.out.mkdir(parents=True, exist_ok=True)
    transfers.to_parquet(ctx.out / "transfers.parquet", index=False)
    runs.to_csv(ctx.out / "runs.csv", index=False)
    points.to_csv(ctx.out / "points.csv", index=False)
    example = ctx.out / "example-scenario.toml"
    example.write_text(
        "# One run of the reproduction: Fig. 6, B = 24 KB, RBP/rate, seed 1.\n"
        "# rampup run example-scenario.toml\n" + scenario_text(RBP, Setup(), 1), encoding="utf-8")

    seeds = int(runs["seed"].max())
    main = points[points["variant"] == "main"]
    rep = ctx.report("Paper 000 (RBP): restart after idle — reproduction of §4, Figures 6-10")
    main_claims = judge(main)
    variant_claims = {v: judge(points[points["variant"] == v]) for v in ("mss512", "rfc")}
    (ctx.out / DOCS_TABLE).write_text(docs_table(main_claims, variant_claims), encoding="utf-8")
    for cid, statement, ours, v, reason, checks in main_claims:
        rep.claim(Claim(id=cid, text=statement, paper=_PAPER[cid], ours=ours, verdict=v, reason=reason,
                        checks=count(checks)))

    rep.heading("Set-up")
    rep.text(
        "Paper 000 §4.1 and the authors' rbp_demo.tcl: 10 clients c0..c9 on 10 Mb/s, 1 ms links to router CR; "
        "bottleneck CR–SR 800 kb/s, 100 ms one way (swept in Fig. 8-10); the server behind SR on a 10 Mb/s, 1 ms "
        "link. Drop-tail limit at SR towards CR (and back) of 10 KB or 24 KB in bytes on the wire; data packets "
        "are 1000 payload + 40 header bytes, so 10 KB holds 9 packets and 24 KB 23 (the paper's ns-2 counted in "
        "packets of 1000 bytes, i.e. 10 and 24). One persistent connection per client, the server sending. "
        "10 rounds; in each the server writes B bytes to every client at a time uniform within ±1.5 s of the "
        "round's centre; centres 120 s apart. Start times from numpy default_rng(seed): the same for every scheme "
        f"and x value. {seeds} seeds per point."
    )
    rep.text(
        "TCP as ns 2.0b17 (the paper's simulator) and rbp_demo.tcl: initial window 1, 100 ms clock, minimum RTO "
        "1 s, initial RTO 3 s, delayed ACKs (100 ms), window cap 32 segments = initial ssthresh, no limited "
        "transmit, no handshake; ns-2's loss response (loss_window = \"cwnd\", rto_in_recovery = \"halve\") and "
        "ns-2's Vegas (vegas_rtt = \"mean\", vegas_slow_start_exit = \"eighth\"); Reno recovery throughout."
    )
    rep.table(pd.DataFrame([{"paper label": k, "rampup [flow.tcp]": ", ".join(f"{a} = {b!r}" for a, b in v.items())}
                            for k, v in SCHEMES.items()]), "Schemes: the paper's labels and rampup's settings")
    rep.text(
        "Metrics per transfer (rampup's transfers table): elapsed time = from the write to the ACK of its last "
        "byte; drops = the flow's data packets dropped while the transfer was in progress; drop rate = drops / "
        "segments of the transfer; retransmitted fraction = retransmissions / segments. Each point is the mean "
        "over seeds of each seed's mean over its 90 restarts (rounds 2-10), with the 90% CI across seeds (Student "
        "t). Round 1 (startup) is reported separately below."
    )

    rep.heading("Verdict rules")
    rep.text(f"Each claim is a list of checks on the main variant's points. {MEANING} The count of checks passed "
             "stands beside each verdict. RBP means RBP/rate (the paper's figures); the verdict with RBP/cwnd in its "
             "place is given in the reason. Each tolerance is read from the paper's words (§4.2, §4.3), two-sided "
             "where they are (\"about equally fast\", \"behave similarly\", \"about 40%\") and one-sided where they "
             "are (\"much faster\", \"slower\", \"substantial\", \"almost as few\", \"relatively little\"); none is "
             "taken from a run's result.")
    rep.table(pd.DataFrame([{"claim": c, "checks": r} for c, _, r in CLAIM_RULES]), "Rules")
    rep.table(pd.DataFrame([{"claim": cid, **row} for cid, *_, checks in main_claims for row in rule_table(checks)]),
              "Each check: the quantity, the paper's value (or what its words bound), the tolerance, ours over the "
              "points checked, and the points that pass")

    for name, sweep_name, col, ylabel, scale, title in FIGURES:
        sw = next(s for s in sweeps(ctx.quick) if s.name == sweep_name)
        rep.heading(title)
        fig = _figure(main, sw, col, ylabel, title, scale)
        rep.figure(fig, name, f"{title}. Mean over seeds with 90% CI; restarts (rounds 2-10).")
    rep.heading("Figure data (restarts, mean ± 90% CI)")
    rep.table(_table(main, "burst", [("restart_elapsed_s", "elapsed s", 1, "{:.3f}")]), "Fig. 6: x = burst (KB)")
    rep.table(_table(main, "burst", [("restart_drop_rate", "drop %", 100, "{:.1f}")]), "Fig. 7: x = burst (KB)")
    rep.table(_table(main, "delay24", [("restart_elapsed_s", "elapsed s", 1, "{:.3f}")]),
              "Fig. 8: x = one-way delay (ms)")
    rep.table(_table(main, "delay24", [("restart_drops", "losses", 1, "{:.2f}")]), "Fig. 9: x = one-way delay (ms)")
    rep.table(_table(main, "delay10", [("restart_drops", "losses", 1, "{:.2f}")]), "Fig. 10: x = one-way delay (ms)")
    rep.table(_table(main, "delay10", [("restart_retx_rate", "retx %", 100, "{:.1f}")]),
              "Fig. 10 as retransmitted fraction (claim e)")

    rep.heading("Round 1 (startup), reported separately")
    rep.text("Startup is the same slow start for every Reno-based scheme (RBP acts only after an idle), so reno-ssr, "
             "reno-nssr and RBP/cwnd coincide here, as do vegas-nssr and RBP/rate.")
    rep.table(_table(main, "burst", [("startup_elapsed_s", "elapsed s", 1, "{:.3f}"),
                                     ("startup_drop_rate", "drop %", 100, "{:.1f}")]),
              "Round 1, Fig. 6/7 set-up: x = burst (KB)")
    incomplete = int(runs[runs["variant"] == "main"][["restart_incomplete", "startup_incomplete"]].to_numpy().sum())
    rep.text(f"Transfers that did not complete by the end of the run (excluded from the elapsed means): {incomplete}.")

    for variant, claims in variant_claims.items():
        vp = points[points["variant"] == variant]
        desc = VARIANTS[variant][1]
        rep.heading(f"Robustness: {desc}")
        rep.text(f"The whole experiment again with {desc}; everything else as above. Verdicts by the same rules.")
        rep.table(pd.DataFrame([{"claim": c, "ours": o, "verdict": f"{v} ({count(ch)})",
                                 "main variant": f"{mv} ({count(mch)})"}
                                for (c, _, o, v, _, ch), (_, _, _, mv, _, mch) in zip(claims, main_claims, strict=True)]),
                  f"Claims with {desc}")
        fig = Figure(figsize=(12, 4.5), layout="constrained")
        axes = fig.subplots(1, 2)
        sw = next(s for s in sweeps(ctx.quick) if s.name == "burst")
        _figure(vp, sw, "restart_elapsed_s", "elapsed time per transfer (s)", "Fig. 6 set-up", 1.0, ax=axes[0])
        _figure(vp, sw, "restart_drop_rate", "packet drop rate per transfer (%)", "Fig. 7 set-up", 100.0, ax=axes[1])
        fig.suptitle(desc)
        rep.figure(fig, f"fig6-7-{variant}", f"Fig. 6 and 7 with {desc}")

    rep.heading("Data")
    rep.text("transfers.parquet: every transfer of every run (tags: variant, sweep, scheme, x, seed); runs.csv: "
             "per-run means; points.csv: the figure points with 90% CI half-widths; example-scenario.toml: one run's "
             "scenario. The cross-check against ns-2's own RBP agents is validation/compare_rbp.py "
             "(docs/validation.md).")
    return rep.write()


_PAPER = {
    "a": "Fig. 6: below ~12 KB NSSR much faster than SSR and RBP",
    "b": "Fig. 6: above ~12 KB RBP ≈ Vegas ≈ NSSR; SSR slower",
    "c": "Fig. 7: NSSR and Vegas drop substantially once B > queue; RBP almost as low as SSR up to 40 KB",
    "d": "Fig. 8: SSR grows disproportionately with delay; RBP ≈ NSSR",
    "e": "Fig. 10: NSSR and Vegas about 40% of packets retransmitted; SSR and RBP little",
}
