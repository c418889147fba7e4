"""The claims of SPEC.md §000 as explicit checks on the points of one variant.

Each tolerance is read from the paper's words (§4.2, §4.3): two-sided where they are
("about equally fast", "behave similarly", "about 40%"), one-sided where they are ("much
faster", "slower", "substantial", "almost as few", "relatively little"). The claims' words
and what the paper shows are data (``data/rbp.toml``); a view's role "RBP" is RBP/rate in
the primary verdict and RBP/cwnd in the alternate one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from ..checks import Check, at_most, higher, lower
from ..framework import ClaimRule, paper_data
from ..then_now import Row
from ..view import View
from .runs import NSSR, RBP, RBP_CWND, SSR, VEGAS

#: The thresholds of the claim rules (the report prints them).
MUCH_FASTER = 0.80  # "much faster": mean elapsed at most 80% of the other's, CIs disjoint
SAME_SPEED = 0.15  # "about equally fast" (§4.2), "behave similarly" (§4.3): within 15% of NSSR, either way
SLOWER = 1.10  # "slower": mean elapsed at least 110% of the other's, CIs disjoint
MANY_DROPS = 2.0  # "drop many": drop rate >= 2x SSR's, 90% CIs apart
NEAR_SSR = 0.25  # "almost as few as SSR": at most 25% of the way from SSR's drop rate to NSSR's
DISPROPORTIONATE = 1.25  # SSR's growth over the delay sweep >= 1.25x NSSR's, and SSR/NSSR grows
ABOUT_40 = (0.30, 0.50)  # "about 40% of packets need to be retransmitted": within 10 pp either way
FEW = 0.10  # "few": retransmitted fraction <= 10% and <= half of NSSR's
QUEUE_KB = 10.0  # the burst sweep's queue: claim (c) is about bursts larger than it

EL, CI, DROP_RATE, RETX_RATE = "restart_elapsed_s", "restart_elapsed_s_ci90", "restart_drop_rate", "restart_retx_rate"
SAME = f"{1 - SAME_SPEED:.2f}-{1 + SAME_SPEED:.2f} (two-sided)"
NAMES = {NSSR: "NSSR", SSR: "SSR", VEGAS: "Vegas", RBP: "RBP/rate", RBP_CWND: "RBP/cwnd"}


def _ratio(part: str, x: float, a: pd.DataFrame, b: pd.DataFrame, names: str, paper: str, tolerance: str,
           ok: Callable[[float], bool], disjoint: bool = False) -> Check:
    """A check on the ratio of two schemes' mean elapsed times at x (a's over b's); with
    ``disjoint``, their 90% CIs must not overlap either."""
    value = a.at[x, EL] / b.at[x, EL]
    (lo, lo_ci), (hi, hi_ci) = sorted([(a.at[x, EL], a.at[x, CI]), (b.at[x, EL], b.at[x, CI])])
    apart = not disjoint or lo + lo_ci < hi - hi_ci
    return Check(part, x, bool(ok(value) and apart), f"{names} mean elapsed", paper, value,
                 tolerance + (", 90% CIs disjoint" if disjoint else ""))


def check_a(v: View) -> list[Check]:
    n, s, r = (v.of(k, sweep="burst") for k in (NSSR, SSR, "RBP"))
    return [_ratio(f"NSSR much faster than {other}", x, n, o, f"NSSR/{other}", "much faster: < 1", f"≤ {MUCH_FASTER:.2f}",
                   lambda q: q <= MUCH_FASTER, disjoint=True)
            for x in n.index if x < 12 for o, other in ((s, "SSR"), (r, "RBP"))]


def check_b(v: View) -> list[Check]:
    n, s, vg, r = (v.of(k, sweep="burst") for k in (NSSR, SSR, VEGAS, "RBP"))
    out = []
    for x in (x for x in n.index if x > 12):
        out += [_ratio(f"{who} about as fast as NSSR", x, o, n, f"{who}/NSSR", "≈ 1", SAME, lambda q: abs(q - 1) <= SAME_SPEED)
                for o, who in ((r, "RBP"), (vg, "Vegas"))]
        out += [_ratio(f"SSR slower than {other}", x, s, o, f"SSR/{other}", "slower: > 1", f"≥ {SLOWER:.2f}", lambda q: q >= SLOWER,
                       disjoint=True) for o, other in ((n, "NSSR"), (r, "RBP"))]
    return out


def _drop(p: pd.DataFrame, x: float, col: str = DROP_RATE) -> tuple[float, float]:
    return float(p.at[x, col]), float(p.at[x, f"{col}_ci90"])


def _drops_many(name: str, x: float, o: pd.DataFrame, s: pd.DataFrame) -> Check:
    """``o`` drops many at x: above SSR's drop rate with the 90% CIs apart, and at least
    `MANY_DROPS` times it."""
    c = higher(name, x, *_drop(o, x), *_drop(s, x), f"{name.split()[0]} drop rate / SSR's", "many (substantially more than SSR)")
    ratio = o.at[x, DROP_RATE] / s.at[x, DROP_RATE] if s.at[x, DROP_RATE] > 0 else math.inf
    if c.ok is not None:
        c.ok = bool(c.ok and ratio >= MANY_DROPS)
    c.ours, c.tolerance = float(ratio), f"≥ {MANY_DROPS:g}, 90% CIs apart"
    return c


def check_c(v: View) -> list[Check]:
    n, s, vg, r = (v.of(k, sweep="burst") for k in (NSSR, SSR, VEGAS, "RBP"))
    out = []
    for x in (x for x in n.index if x > QUEUE_KB):
        out += [_drops_many(name, x, o, s) for name, o in (("NSSR drops many", n), ("Vegas drops many", vg))]
        gap = n.at[x, DROP_RATE] - s.at[x, DROP_RATE]
        quantity = "RBP's drop rate, as the share of the way from SSR's to NSSR's"
        if _drops_many("NSSR", x, n, s).ok is not True:
            out.append(Check("RBP drops almost as few as SSR", x, None, quantity, "almost as low as SSR: ≈ 0", tolerance=f"≤ {NEAR_SSR:.2f}",
                             note="NSSR does not drop many more than SSR here, so near SSR is not told from near NSSR"))
            continue
        way = (r.at[x, DROP_RATE] - s.at[x, DROP_RATE]) / gap
        out.append(at_most("RBP drops almost as few as SSR", x, way, NEAR_SSR, quantity, "almost as low as SSR: ≈ 0"))
    return out


def check_d(v: View) -> list[Check]:
    n, s, r = (v.of(k, sweep="delay24") for k in (NSSR, SSR, "RBP"))
    lo, hi = n.index.min(), n.index.max()
    grow_s, grow_n = s.at[hi, EL] - s.at[lo, EL], n.at[hi, EL] - n.at[lo, EL]
    change = s.at[hi, EL] / n.at[hi, EL] - s.at[lo, EL] / n.at[lo, EL]
    return [
        Check(f"SSR grows ≥ {DISPROPORTIONATE:g}× NSSR's growth", hi, bool(grow_s >= DISPROPORTIONATE * grow_n),
              "SSR's growth over the delay sweep / NSSR's", "disproportionate: > 1", grow_s / grow_n, f"≥ {DISPROPORTIONATE:g}"),
        Check("SSR/NSSR grows with delay", hi, bool(change > 0), "SSR/NSSR at the largest delay − at the smallest", "grows: > 0",
              change, "> 0"),
        *[_ratio("RBP similar to NSSR", x, r, n, "RBP/NSSR", "≈ 1", SAME, lambda q: abs(q - 1) <= SAME_SPEED) for x in n.index],
    ]


def check_e(v: View) -> list[Check]:
    n, s, vg, r = (v.of(k, sweep="delay10") for k in (NSSR, SSR, VEGAS, "RBP"))
    out = []
    for x in n.index:
        out += [Check(name, x, bool(ABOUT_40[0] <= o.at[x, RETX_RATE] <= ABOUT_40[1]), f"{name.split()[0]} retransmitted fraction",
                      "≈ 0.40", o.at[x, RETX_RATE], f"{ABOUT_40[0]:.2f}-{ABOUT_40[1]:.2f} (two-sided)")
                for name, o in (("NSSR ≈ 40%", n), ("Vegas ≈ 40%", vg))]
        out += [Check(name, x, bool(o.at[x, RETX_RATE] <= FEW and o.at[x, RETX_RATE] <= 0.5 * n.at[x, RETX_RATE]),
                      f"{name.split()[0]} retransmitted fraction", "little", o.at[x, RETX_RATE], f"≤ {FEW:.2f} and ≤ half of NSSR's")
                for name, o in (("SSR few", s), ("RBP few", r))]
    return out


def check_f(v: View) -> list[Check]:
    n, s, vg, r = (v.of(k, sweep="delay24") for k in (NSSR, SSR, VEGAS, "RBP"))
    out = []
    for x in n.index:
        out += [higher(f"{who} loses more than SSR", x, *_drop(o, x, RETX_RATE), *_drop(s, x, RETX_RATE),
                       f"retransmitted fraction, {who} − SSR", "higher than SSR") for o, who in ((n, "NSSR"), (r, "RBP"), (vg, "Vegas"))]
        out.append(at_most("SSR very little", x, float(s.at[x, RETX_RATE]), FEW, "SSR's retransmitted fraction", "very little"))
    return out


def check_g(v: View) -> list[Check]:
    vg, r = (v.of(k, sweep="burst") for k in (VEGAS, "RBP"))
    return [lower("RBP drops fewer than Vegas", x, *_drop(r, x), *_drop(vg, x), "drop rate, RBP − Vegas", "fewer (pacing's effect)")
            for x in r.index if x > QUEUE_KB]


def check_h(v: View) -> list[Check]:
    lo_hi = v.of(NSSR, sweep="delay24").index
    lo, hi = lo_hi.min(), lo_hi.max()
    out = []
    for k in NAMES:
        p = v.of(k, sweep="delay24")
        out.append(higher(f"{NAMES[k]}'s time grows with delay", hi, *_drop(p, hi, EL), *_drop(p, lo, EL),
                          f"{NAMES[k]}'s elapsed at {hi:g} ms − at {lo:g} ms (s)", "larger"))
    return out


def check_i(v: View) -> list[Check]:
    s, r = (v.of(k, sweep="delay24") for k in (SSR, "RBP"))
    lo, hi = s.index.min(), s.index.max()

    def gap(x: float) -> tuple[float, float]:
        return float(s.at[x, EL] - r.at[x, EL]), float(math.hypot(s.at[x, CI], r.at[x, CI]))

    return [higher("RBP's lead over SSR grows with delay", hi, *gap(hi), *gap(lo), f"(SSR − RBP elapsed) at {hi:g} ms − at {lo:g} ms (s)",
                   "larger as RTT increases")]


def _retx_gap(v: View, sweep: str, x: float) -> tuple[float, float]:
    """NSSR's retransmitted fraction minus RBP's at x, and the difference's 90% CI half-width."""
    n, r = v.of(NSSR, sweep=sweep), v.of("RBP", sweep=sweep)
    return float(n.at[x, RETX_RATE] - r.at[x, RETX_RATE]), float(math.hypot(n.at[x, f"{RETX_RATE}_ci90"], r.at[x, f"{RETX_RATE}_ci90"]))


def check_j(v: View) -> list[Check]:
    return [higher("RBP's loss advantage larger with the 10 KB queue", x, *_retx_gap(v, "delay10", x), *_retx_gap(v, "delay24", x),
                   "(NSSR − RBP retransmitted fraction) with 10 KB − with 24 KB", "most important where the queue is small")
            for x in v.of(NSSR, sweep="delay10").index]


def check_k(v: View) -> list[Check]:
    out = []
    for sweep in ("burst", "delay24", "delay10"):
        r, c = v.of(RBP, sweep=sweep), v.of(RBP_CWND, sweep=sweep)
        out += [_ratio(f"RBP/cwnd as fast as RBP/rate ({sweep})", x, c, r, "RBP/cwnd / RBP/rate", "≈ 1", SAME,
                       lambda q: abs(q - 1) <= SAME_SPEED) for x in r.index]
    return out


def _fmt_x(xs: Sequence[float], unit: str) -> str:
    return ", ".join(f"{x:g}" for x in sorted(xs)) + f" {unit}"


def _range(p: pd.DataFrame, col: str, xs: Sequence[float], scale: float = 1.0, fmt: str = "{:.2f}") -> str:
    vals = [p.at[x, col] * scale for x in xs if x in p.index]
    if not vals:
        return "n/a"
    lo, hi = min(vals), max(vals)
    return fmt.format(lo) if math.isclose(lo, hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"


def _elapsed_over(v: View, sel: Sequence[float]) -> str:
    """Claims (a), (b): every scheme's restart elapsed over the bursts ``sel``."""
    rng = ", ".join(f"{NAMES[k]} {_range(v.of(k, sweep='burst'), EL, sel)}" for k in NAMES)
    if len(sel) <= 3:
        return f"restart elapsed (s) over {_fmt_x(sel, 'KB')}: {rng}"
    return f"restart elapsed (s), {min(sel):g}-{max(sel):g} KB: {rng}"


def _faster(v: View, sweep: str, unit: str, xs: Sequence[float]) -> str:
    """Where RBP/rate is more than SAME_SPEED faster than NSSR (claims b, d): which way those
    checks fail."""
    n, r = v.of(NSSR, sweep=sweep), v.of(RBP, sweep=sweep)
    fast = [x for x in xs if x in r.index and r.at[x, EL] < (1 - SAME_SPEED) * n.at[x, EL]]
    return f" RBP/rate more than {SAME_SPEED:.0%} faster than NSSR at {_fmt_x(fast, unit)}." if fast else ""


def numbers_a(v: View) -> str:
    return _elapsed_over(v, [x for x in sorted(v.of(NSSR, sweep="burst").index) if x < 12]) + "."


def numbers_b(v: View) -> str:
    sel = [x for x in sorted(v.of(NSSR, sweep="burst").index) if x > 12]
    return _elapsed_over(v, sel) + "." + _faster(v, "burst", "KB", sel)


def numbers_c(v: View) -> str:
    big = max(v.of(NSSR, sweep="burst").index)
    return f"drop rate at {big:g} KB: " + ", ".join(f"{NAMES[k]} {v.of(k, sweep='burst').at[big, DROP_RATE]:.1%}" for k in NAMES) + "."


def numbers_d(v: View) -> str:
    p = {k: v.of(k, sweep="delay24") for k in NAMES}
    lo, hi = p[NSSR].index.min(), p[NSSR].index.max()
    at = ", ".join(f"{NAMES[k]} {p[k].at[lo, EL]:.2f} / {p[k].at[hi, EL]:.2f}" for k in NAMES)
    return f"restart elapsed (s) at {lo:g} / {hi:g} ms: {at}." + _faster(v, "delay24", "ms", list(p[NSSR].index))


def numbers_e(v: View) -> str:
    p = {k: v.of(k, sweep="delay10") for k in NAMES}
    xs = sorted(p[NSSR].index)
    return f"retransmitted fraction over {min(xs):g}-{max(xs):g} ms: " + ", ".join(
        f"{NAMES[k]} {_range(p[k], RETX_RATE, xs, 100, '{:.0f}')}%" for k in NAMES) + "."


def numbers_f(v: View) -> str:
    p = {k: v.of(k, sweep="delay24") for k in NAMES}
    xs = sorted(p[NSSR].index)
    return f"retransmitted fraction over {min(xs):g}-{max(xs):g} ms (24 KB queue): " + ", ".join(
        f"{NAMES[k]} {_range(p[k], RETX_RATE, xs, 100, '{:.0f}')}%" for k in NAMES) + "."


def numbers_g(v: View) -> str:
    xs = [x for x in sorted(v.of(NSSR, sweep="burst").index) if x > QUEUE_KB]
    return "drop rate, RBP/rate / Vegas: " + ", ".join(
        f"{x:g} KB {v.of(RBP, sweep='burst').at[x, DROP_RATE]:.1%} / {v.of(VEGAS, sweep='burst').at[x, DROP_RATE]:.1%}" for x in xs) + "."


def numbers_h(v: View) -> str:
    return numbers_d(v)


def numbers_k(v: View) -> str:
    return "; ".join(f"{sweep}: RBP/rate {_range(v.of(RBP, sweep=sweep), EL, list(v.of(RBP, sweep=sweep).index))} s, RBP/cwnd "
                     f"{_range(v.of(RBP_CWND, sweep=sweep), EL, list(v.of(RBP_CWND, sweep=sweep).index))} s"
                     for sweep in ("burst", "delay24", "delay10")) + "."


def numbers_i(v: View) -> str:
    s, r = v.of(SSR, sweep="delay24"), v.of(RBP, sweep="delay24")
    return "SSR − RBP/rate elapsed (s): " + ", ".join(f"{x:g} ms {s.at[x, EL] - r.at[x, EL]:.2f}" for x in s.index) + "."


RULES = {
    "a": f"for each B < 12 KB: NSSR's mean elapsed ≤ {MUCH_FASTER:.0%} of SSR's and of RBP's, with disjoint 90% CIs.",
    "b": f"for each B > 12 KB: RBP's and Vegas' means within {SAME_SPEED:.0%} of NSSR's, either way (\"about equally "
         f"fast\" is two-sided: RBP much faster than NSSR is not what the paper saw); SSR's mean ≥ "
         f"{SLOWER:.0%} of NSSR's and of RBP's, with disjoint CIs.",
    "c": f"for each B > queue: NSSR's and Vegas' drop rates above SSR's, 90% CIs apart, and ≥ {MANY_DROPS:g}× it (the "
         f"magnitude at 24 KB is claim (e)'s: those are Fig. 10's runs at 100 ms); RBP's drop rate ≤ SSR's + "
         f"{NEAR_SSR:.0%} of (NSSR's − SSR's), tested where NSSR drops many.",
    "d": f"SSR's increase from the smallest to the largest delay ≥ {DISPROPORTIONATE:g}× NSSR's, and SSR/NSSR larger "
         f"at the largest delay than at the smallest; for each delay RBP's mean within {SAME_SPEED:.0%} of NSSR's, "
         f"either way (\"behave similarly\", §4.3).",
    "e": f"for each delay: NSSR's and Vegas' retransmitted fraction within {ABOUT_40[0]:.0%}-{ABOUT_40[1]:.0%} "
         f"(\"about 40%\" is two-sided); SSR's and RBP's ≤ {FEW:.0%} and ≤ half of NSSR's.",
    "f": f"for each delay (24 KB queue): NSSR's, RBP's and Vegas' retransmitted fraction above SSR's, 90% CIs apart; "
         f"SSR's ≤ {FEW:.0%} (\"very little\").",
    "g": "for each B > queue: RBP's drop rate below Vegas', 90% CIs apart.",
    "h": "for each scheme (24 KB queue): the mean elapsed at the largest delay above that at the smallest, 90% CIs apart.",
    "i": "SSR's mean elapsed minus RBP's larger at the largest delay than at the smallest (24 KB queue), the difference's "
         "90% CIs apart (each from the two means' CIs, as a root sum of squares).",
    "j": "for each delay: NSSR's retransmitted fraction minus RBP's larger with the 10 KB queue than with the 24 KB one, the "
         "differences' 90% CIs apart (each as a root sum of squares).",
    "k": f"at every point of every sweep: RBP/cwnd's mean elapsed within {SAME_SPEED:.0%} of RBP/rate's, either way.",
}
CHECKS = {"a": check_a, "b": check_b, "c": check_c, "d": check_d, "e": check_e, "f": check_f, "g": check_g, "h": check_h,
          "i": check_i, "j": check_j, "k": check_k}
NUMBERS = {"a": numbers_a, "b": numbers_b, "c": numbers_c, "d": numbers_d, "e": numbers_e, "f": numbers_f, "g": numbers_g,
           "h": numbers_h, "i": numbers_i, "j": numbers_e, "k": numbers_k}


def claim_rules() -> list[ClaimRule]:
    """Claims (a)-(e): the paper's words (data/rbp.toml), our rule and its check."""
    words = paper_data("rbp")["claim"]
    return [ClaimRule(c, words[c]["statement"], words[c]["paper"], RULES[c], CHECKS[c], NUMBERS[c], "KB" if c in "abcg" else "" if c == "k" else "ms")
            for c in RULES]


#: Then and now (`then_now`): the quantity each claim about RBP speaks of, on its points.
THEN_NOW = [
    Row("a", "restart elapsed (s)", EL, True, {"sweep": "burst"}, lambda x: x < 12, "KB"),
    Row("b", "restart elapsed (s)", EL, True, {"sweep": "burst"}, lambda x: x > 12, "KB"),
    Row("c", "restart drop rate (%)", DROP_RATE, True, {"sweep": "burst"}, lambda x: x > QUEUE_KB, "KB", 100.0, "{:.1f}"),
    Row("d", "restart elapsed (s)", EL, True, {"sweep": "delay24"}, unit="ms"),
    Row("e", "restart retransmitted (%)", RETX_RATE, True, {"sweep": "delay10"}, unit="ms", scale=100.0, fmt="{:.1f}"),
]
