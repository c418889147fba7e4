"""The claims of SPEC.md §003 as explicit checks on the figure points.

A scheme's received rate at a point is the mean over its flows of the data rate each
received in the 10 s after its restart (`phases` table), averaged over seeds; the drop rate
is the share of the packets offered to the bottleneck in the first 10 RTTs after the restart
that it dropped, and the later drop rate the same from then to the end of the run; what a
scheme sent in those 10 RTTs is, per flow, what the bottleneck passed, dropped and queued.
"Fewer" and "better" are one-sided; "about 3%", "within 0.1%" and "less than 0.5%" are the
paper's numbers, with the tolerance each check names; "fewer", "better" and "longer" need
the two 90% CIs apart; "similar", where the paper gives no number, is within 10%. Rates are
compared "in the presence of congestion" only, where the flows ask more than the 2 Mb/s left.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .. import framework
from ..checks import IDENTICAL, Check, about, at_least, at_most, higher, lower
from ..framework import ClaimRule, paper_data
from ..then_now import Row
from ..view import View
from .runs import APP_KBPS, CAREFUL_RESUME, CWV, LOW_MBPS, NEWCWV, NEWCWV_RFC, NEWCWV_RW, NEWCWV_STD, PADDING, STANDARD

RATE, SHARE, DROPS, BEHIND = "rate_kbps", "share", "drop_rate", "behind_s"
#: Packets per flow put into the bottleneck in the first 10 RTTs after the restart, and the
#: drop rate from then to the end of the run.
SENT, LATER_DROPS = "sent_10rtt", "later_drop_rate"
#: "about 3% above the fair share" (below 16 flows): the excess within 2 points of 3%, either way.
ABOUT_EXCESS = 0.02
#: "within 0.1%" from 16 flows: within 1% (ten times the paper's figure: one 10 s window of 16 flows).
AT_SHARE = 0.01
#: "converged": the variants' rates within 5% of each other.
CONVERGED = 0.05
#: "similar" (a rate, a drop rate), where the paper gives no number: within 10% of the other.
SIMILAR = 0.10
#: "a linear function of path RTT": the least-squares line explains at least 90% of the
#: variance; with four RTTs, rates with no trend reach it about one time in twenty.
LINEAR_R2 = 0.9
#: The variants of the paper's form: (D−R)/2, the restart window, the standard response.
VARIANTS = (NEWCWV, NEWCWV_RW, NEWCWV_STD)


def _xs(v: View, sweep: str) -> list[float]:
    return list(v.of(NEWCWV, sweep=sweep).index)


def _at(v: View, scheme: str, sweep: str, x: float, col: str) -> float:
    return float(v.of(scheme, sweep=sweep).at[x, col])


def _mean_ci(v: View, scheme: str, sweep: str, x: float, col: str) -> tuple[float, float]:
    p = v.of(scheme, sweep=sweep)
    return float(p.at[x, col]), float(p.at[x, f"{col}_ci90"])


def _pairs(v: View, a: str, b: str, sweep: str, col: str) -> list[tuple[float, tuple[float, float], tuple[float, float]]]:
    """(x, a's (mean, CI), b's) of ``col`` at every point of ``sweep``, each series read once."""
    pa, pb = v.of(a, sweep=sweep), v.of(b, sweep=sweep)
    return [(float(x), (float(pa.at[x, col]), float(pa.at[x, f"{col}_ci90"])), (float(pb.at[x, col]), float(pb.at[x, f"{col}_ci90"])))
            for x in pa.index]


def check_a(v: View) -> list[Check]:
    rtt, out = 0.2, []
    for sweep in ("clean-idle", "clean-limited"):
        new, new_ci = _mean_ci(v, NEWCWV, sweep, 1, BEHIND)
        out.append(at_most(f"new-CWV resumes within one RTT ({sweep})", 1, new, rtt, "seconds behind the application",
                           "resumes at once"))
        for scheme in (STANDARD, CWV) if sweep == "clean-idle" else (CWV,):
            other, other_ci = _mean_ci(v, scheme, sweep, 1, BEHIND)
            out.append(higher(f"{scheme} behind longer than new-CWV ({sweep})", 1, other, other_ci, new, new_ci,
                              f"seconds behind, {scheme} − new-CWV", "slow-starts: longer"))
            out.append(at_least(f"{scheme} behind for more than one RTT ({sweep})", 1, other, rtt, f"{scheme}'s seconds behind",
                                "several RTTs", strict=True))
    return out


def check_b(v: View) -> list[Check]:
    out = []
    for sweep in ("idle", "limited"):
        for x in _xs(v, sweep):
            new, new_ci = _mean_ci(v, NEWCWV, sweep, x, DROPS)
            for scheme in (STANDARD, PADDING):
                out.append(lower(f"fewer drops than {scheme} ({sweep})", x, new, new_ci, *_mean_ci(v, scheme, sweep, x, DROPS),
                                 f"drop rate, new-CWV − {scheme}", "< 0 (fewer)"))
    return out


def check_c(v: View) -> list[Check]:
    return [higher(f"(D−R)/2 better than the restart window ({sweep})", x, *_mean_ci(v, NEWCWV, sweep, x, RATE),
                   *_mean_ci(v, NEWCWV_RW, sweep, x, RATE), "received rate, (D−R)/2 − restart window, kb/s", "> 0 (better)")
            for sweep in ("idle", "limited", "rtt") for x in _xs(v, sweep)]


def check_d(v: View) -> list[Check]:
    n = paper_data("newcwv")["numbers"]
    out = []
    for x in _xs(v, "idle"):
        s = _at(v, NEWCWV, "idle", x, SHARE)
        if x < 16:
            c = about("about 3% above the fair share, below 16 flows", x, s - 1, n["above_fair_share"], "received rate / fair share − 1",
                      f"≈ {n['above_fair_share']:g}", rel=ABOUT_EXCESS / n["above_fair_share"])
        else:
            c = about("at the fair share from 16 flows", x, s, 1.0, "received rate / fair share", f"1 ± {n['at_16_flows']:g}", rel=AT_SHARE)
        out.append(c)
    return out


def check_e(v: View) -> list[Check]:
    """The variants converge at 800 ms because the RTO resets them: a claim about a
    difference that vanishes, so it is tested only where the variants differ somewhere."""
    x = float(paper_data("newcwv")["numbers"]["converged_rtt_ms"])
    variants = (NEWCWV, NEWCWV_RW, NEWCWV_STD)

    def apart(at: float) -> bool:
        lo, hi = (min(_mean_ci(v, s, "rtt", at, RATE) for s in variants), max(_mean_ci(v, s, "rtt", at, RATE) for s in variants))
        return lo[0] + lo[1] < hi[0] - hi[1]

    below = [r for r in _xs(v, "rtt") if r < x]
    identical = all(len({_mean_ci(v, s, "rtt", r, RATE) for s in variants}) == 1 for r in _xs(v, "rtt"))
    rates = [_at(v, s, "rtt", x, RATE) for s in variants]
    spread = (max(rates) - min(rates)) / max(max(rates), 1e-9)
    if identical:
        why = "the variants are identical at every RTT: their loss responses never act"
        return [Check("the variants differ below 800 ms", min(below, default=x), None, "variants' rates, 90% CIs apart", "differ", note=why),
                Check("the variants converge at 800 ms", x, None, "(max − min) / max of the variants' rates", "≈ 0", spread,
                      f"≤ {CONVERGED:g}", why)]
    return [Check("the variants differ below 800 ms", min(below, default=x), any(apart(r) for r in below),
                  "variants' rates at some RTT below 800 ms, 90% CIs apart", "differ (an RTO resets them only at 800 ms)"),
            at_most("the variants converge at 800 ms", x, spread, CONVERGED, "(max − min) / max of the variants' rates", "≈ 0")]


def check_f(v: View) -> list[Check]:
    out = []
    for x in _xs(v, "idle"):
        pad = _mean_ci(v, PADDING, "idle", x, DROPS)
        out += [higher(f"padding drops more than {k}", x, *pad, *_mean_ci(v, k, "idle", x, DROPS), f"drop rate, padding − {k}", "the most")
                for k in (STANDARD, CWV, NEWCWV)]
    return out


def check_g(v: View) -> list[Check]:
    out = []
    for x in _xs(v, "limited"):
        share, ci = _mean_ci(v, CWV, "limited", x, SHARE)
        out.append(at_most("TCP-CWV below its fair share", x, share + ci, 1.0, "TCP-CWV's rate / fair share, the CI's high end",
                           "conservatively smaller", strict=True))
    return out


def check_h(v: View) -> list[Check]:
    return [higher("new-CWV above TCP-CWV", x, *_mean_ci(v, NEWCWV, "limited", x, RATE), *_mean_ci(v, CWV, "limited", x, RATE),
                   "received rate, new-CWV − TCP-CWV, kb/s", "higher") for x in _xs(v, "limited")]


def _congested(v: View, sweep: str) -> list[float]:
    """The numbers of flows whose 512 kb/s exceed the 2 Mb/s left after the drop (from 4):
    below that every scheme delivers what its application writes, so none can be better,
    more aggressive or send more (§4: "in the presence of congestion")."""
    return [x for x in _xs(v, sweep) if x * APP_KBPS > LOW_MBPS * 1000]


def _within(part: str, x: float, ours: tuple[float, float], ref: tuple[float, float], bound: float, quantity: str, paper: str,
            relative: bool = True, strict: bool = False) -> Check:
    """``ours`` (mean, CI) within ``bound`` of ``ref``, either way: of ``ref`` (relative) or
    absolute. Not tested where the two are identical: the same runs, so what would set them
    apart never acts."""
    if ours == ref:
        return Check(part, x, None, quantity, paper, 0.0, f"{'<' if strict else '≤'} {bound:.3g}", IDENTICAL)
    # Rounded to 1e-9, so that values counted in steps (behind_s, in 100 ms bins) compare as counted.
    gap = round(abs(ours[0] - ref[0]), 9)
    return at_most(part, x, (gap / ref[0] if ref[0] else math.inf) if relative else gap, bound, quantity, paper, strict)


def _not_higher(part: str, x: float, a: tuple[float, float], b: tuple[float, float], quantity: str, paper: str) -> Check:
    """``a`` not above ``b``: fails only where ``a``'s 90% CI lies wholly above ``b``'s."""
    c = higher(part, x, *a, *b, quantity, paper)
    return dataclasses.replace(c, ok=None if c.ok is None else not c.ok, tolerance="not > 0 with 90% CIs apart")


def check_i(v: View) -> list[Check]:
    return [higher(f"{k} above {other}", x, *_mean_ci(v, k, "idle", x, RATE), *_mean_ci(v, other, "idle", x, RATE),
                   f"received rate, {k} − {other}, kb/s", "better") for k in VARIANTS for other in (STANDARD, CWV)
            for x in _congested(v, "idle")]


def check_j(v: View) -> list[Check]:
    out = [higher("TCP-CWV behind longer than standard TCP (clean-limited)", 1, *_mean_ci(v, CWV, "clean-limited", 1, BEHIND),
                  *_mean_ci(v, STANDARD, "clean-limited", 1, BEHIND), "seconds behind, TCP-CWV − standard", "more conservative")]
    # "can be lower": one number of flows where TCP-CWV's rate is below standard TCP's suffices.
    part, quantity = "TCP-CWV below standard TCP at some number of flows (limited)", "received rate, standard − TCP-CWV, kb/s"
    at = [higher(part, x, *_mean_ci(v, STANDARD, "limited", x, RATE), *_mean_ci(v, CWV, "limited", x, RATE), quantity, "can be lower")
          for x in _congested(v, "limited")]
    tested = [c for c in at if c.ok is not None]
    if not tested:
        return [*out, *at[:1]]
    best = max(tested, key=lambda c: (bool(c.ok), c.ours))
    return [*out, dataclasses.replace(best, ok=any(c.ok for c in tested), tolerance="> 0 at one point at least, 90% CIs apart")]


def check_k(v: View) -> list[Check]:
    rtt = 0.2
    clean = _within("TCP-CWV behind as long as standard TCP, within one RTT (clean-idle)", 1, _mean_ci(v, CWV, "clean-idle", 1, BEHIND),
                    _mean_ci(v, STANDARD, "clean-idle", 1, BEHIND), rtt, "seconds behind, |TCP-CWV − standard|", "similar",
                    relative=False)
    return [clean, *(_within("TCP-CWV's rate within 10% of standard TCP's (idle)", x, _mean_ci(v, CWV, "idle", x, RATE),
                             _mean_ci(v, STANDARD, "idle", x, RATE), SIMILAR, "|TCP-CWV / standard − 1|, received rate", "similar")
                     for x in _congested(v, "idle"))]


def check_l(v: View) -> list[Check]:
    return [higher("standard TCP drops more than TCP-CWV", x, *_mean_ci(v, STANDARD, "limited", x, DROPS),
                   *_mean_ci(v, CWV, "limited", x, DROPS), "drop rate, standard − TCP-CWV", "many drops (TCP-CWV mitigates)")
            for x in _xs(v, "limited")]


def check_m(v: View) -> list[Check]:
    within = paper_data("newcwv")["numbers"]["variants_within"]
    out = []
    for sweep in ("idle", "limited"):
        for other in (NEWCWV_RW, NEWCWV_STD):
            out += [_within(f"{other}'s rate within {within:.1%} of (D−R)/2's ({sweep})", x, a, b, within,
                            f"|{other} / (D−R)/2 − 1|, received rate", f"< {within:.1%}", strict=True)
                    for x, a, b in _pairs(v, other, NEWCWV, sweep, RATE)]
            out += [_within(f"{other}'s drop rate within {within * 100:g} points of (D−R)/2's ({sweep})", x, a, b, within,
                            f"|{other} − (D−R)/2|, drop rate", f"< {within:.1%}", relative=False, strict=True)
                    for x, a, b in _pairs(v, other, NEWCWV, sweep, DROPS)]
    return out


def check_n(v: View) -> list[Check]:
    return [higher(f"(D−R)/2 better than the standard response ({sweep})", x, *a, *b, "received rate, (D−R)/2 − standard response, kb/s",
                   "best") for sweep in ("idle", "limited", "rtt") for x, a, b in _pairs(v, NEWCWV, NEWCWV_STD, sweep, RATE)]


def check_o(v: View) -> list[Check]:
    return [_within(f"(D−R)/2's rate within 10% of standard TCP's ({sweep})", x, _mean_ci(v, NEWCWV, sweep, x, RATE),
                    _mean_ci(v, STANDARD, sweep, x, RATE), SIMILAR, "|(D−R)/2 / standard − 1|, received rate", "similar")
            for sweep in ("idle", "limited") for x in _congested(v, sweep)]


def check_p(v: View) -> list[Check]:
    return [higher(f"new-CWV sends more than standard TCP ({sweep})", x, *_mean_ci(v, NEWCWV, sweep, x, SENT),
                   *_mean_ci(v, STANDARD, sweep, x, SENT), "packets per flow into the bottleneck, first 10 RTTs, new-CWV − standard",
                   "more") for sweep in ("idle", "limited") for x in _congested(v, sweep)]


def check_q(v: View) -> list[Check]:
    quantity = "received rate, standard − TCP-CWV, kb/s"
    return ([higher("standard TCP above TCP-CWV (limited)", x, *_mean_ci(v, STANDARD, "limited", x, RATE),
                    *_mean_ci(v, CWV, "limited", x, RATE), quantity, "aggressive") for x in _congested(v, "limited")]
            + [_not_higher("standard TCP not above TCP-CWV (idle)", x, _mean_ci(v, STANDARD, "idle", x, RATE),
                           _mean_ci(v, CWV, "idle", x, RATE), quantity, "only after the limited period")
               for x in _congested(v, "idle")])


def check_r(v: View) -> list[Check]:
    out = []
    for sweep in ("idle", "limited"):
        parts = (f"new-CWV's drops decrease after the first 10 RTTs ({sweep})",
                 *(f"new-CWV's later drop rate within 10% of {k}'s ({sweep})" for k in (STANDARD, CWV)))
        hit = [x for x in _xs(v, sweep) if _at(v, NEWCWV, sweep, x, DROPS) > 0]
        if not hit:
            why = "new-CWV drops nothing in the first 10 RTTs: it meets no congestion to adapt to"
            out += [Check(part, min(_xs(v, sweep)), None, note=why) for part in parts]
            continue
        for x in hit:
            later = _mean_ci(v, NEWCWV, sweep, x, LATER_DROPS)
            out.append(lower(parts[0], x, *later, *_mean_ci(v, NEWCWV, sweep, x, DROPS), "drop rate, later − first 10 RTTs",
                             "decreased"))
            out += [_within(part, x, later, _mean_ci(v, k, sweep, x, LATER_DROPS), SIMILAR,
                            f"|new-CWV / {k} − 1|, later drop rate", "similar") for part, k in zip(parts[1:], (STANDARD, CWV), strict=True)]
    return out


def _r2(v: View) -> float:
    """R² of the least-squares line through new-CWV's rate against the path RTT (NaN where
    the rate does not vary)."""
    p = v.of(NEWCWV, sweep="rtt")
    x, y = np.asarray(p.index, float), p[RATE].to_numpy(float)
    total = float(((y - y.mean()) ** 2).sum())
    fit = np.polyval(np.polyfit(x, y, 1), x)
    return 1 - float(((y - fit) ** 2).sum()) / total if total > 0 else math.nan


def check_s(v: View) -> list[Check]:
    xs = _xs(v, "rtt")
    part, quantity = "new-CWV's rate linear in the path RTT", "R² of the least-squares line, rate against RTT"
    if len(xs) < 3:
        return [Check(part, min(xs), None, quantity, "linear", note="fewer than three RTTs: any line fits them")]
    return [at_least(part, min(xs), _r2(v), LINEAR_R2, quantity, "linear")]


def check_t(v: View) -> list[Check]:
    return [higher(f"new-CWV above {other} ({sweep})", x, *_mean_ci(v, NEWCWV, sweep, x, RATE), *_mean_ci(v, other, sweep, x, RATE),
                   f"received rate, new-CWV − {other}, kb/s", "the best") for sweep in ("idle", "limited")
            for other in (STANDARD, CWV, PADDING) for x in _congested(v, sweep)]


def _rates(v: View, sweep: str, scheme: str) -> str:
    return ", ".join(f"{x:g}: {_at(v, scheme, sweep, x, RATE):.0f}" for x in _xs(v, sweep))


def numbers_a(v: View) -> str:
    cells = [f"{s} {_at(v, s, sw, 1, BEHIND):.1f} s" for s in (STANDARD, CWV, NEWCWV) for sw in ("clean-idle",)]
    lim = [f"{s} {_at(v, s, 'clean-limited', 1, BEHIND):.1f} s" for s in (STANDARD, CWV, NEWCWV)]
    return "behind the application after the idle: " + ", ".join(cells) + "; after 12 kb/s: " + ", ".join(lim) + "."


def numbers_b(v: View) -> str:
    def row(sweep: str) -> str:
        return "; ".join(f"{x:g} flows {_at(v, NEWCWV, sweep, x, DROPS):.1%}/{_at(v, STANDARD, sweep, x, DROPS):.1%}/"
                         f"{_at(v, PADDING, sweep, x, DROPS):.1%}" for x in _xs(v, sweep))
    return f"drop rate new-CWV/standard/padding, idle: {row('idle')}; limited: {row('limited')}."


def numbers_c(v: View) -> str:
    return f"kb/s after the idle, (D−R)/2: {_rates(v, 'idle', NEWCWV)}; restart window: {_rates(v, 'idle', NEWCWV_RW)}."


def numbers_d(v: View) -> str:
    return "received rate / fair share after the idle: " + ", ".join(
        f"{x:g} flows {_at(v, NEWCWV, 'idle', x, SHARE):.3f}" for x in _xs(v, "idle")) + "."


def numbers_e(v: View) -> str:
    return "kb/s at each RTT (ms), (D−R)/2 / restart window / standard: " + "; ".join(
        f"{x:g}: {_at(v, NEWCWV, 'rtt', x, RATE):.0f}/{_at(v, NEWCWV_RW, 'rtt', x, RATE):.0f}/{_at(v, NEWCWV_STD, 'rtt', x, RATE):.0f}"
        for x in _xs(v, "rtt")) + "."


def numbers_f(v: View) -> str:
    return "drop rate after the idle, padding/standard/TCP-CWV/new-CWV: " + "; ".join(
        f"{x:g} flows " + "/".join(f"{_at(v, k, 'idle', x, DROPS):.1%}" for k in (PADDING, STANDARD, CWV, NEWCWV)) for x in _xs(v, "idle")) + "."


def numbers_g(v: View) -> str:
    return "TCP-CWV's rate / fair share after 12 kb/s: " + ", ".join(f"{x:g} flows {_at(v, CWV, 'limited', x, SHARE):.3f}"
                                                                    for x in _xs(v, "limited")) + "."


def numbers_h(v: View) -> str:
    return f"kb/s after 12 kb/s, new-CWV: {_rates(v, 'limited', NEWCWV)}; TCP-CWV: {_rates(v, 'limited', CWV)}."


def _by(v: View, sweep: str, schemes: tuple[str, ...], col: str, xs: list[float], fmt: str = "{:.0f}") -> str:
    """``x: a/b/c`` for each x: the schemes' values of ``col``."""
    return "; ".join(f"{x:g}: " + "/".join(fmt.format(_at(v, k, sweep, x, col)) for k in schemes) for x in xs)


def numbers_i(v: View) -> str:
    return (f"kb/s after the idle, (D−R)/2 / restart window / standard response / standard TCP / TCP-CWV: "
            f"{_by(v, 'idle', (*VARIANTS, STANDARD, CWV), RATE, _congested(v, 'idle'))}.")


def numbers_j(v: View) -> str:
    return (f"behind after 12 kb/s: TCP-CWV {_at(v, CWV, 'clean-limited', 1, BEHIND):.1f} s, standard "
            f"{_at(v, STANDARD, 'clean-limited', 1, BEHIND):.1f} s; kb/s after 12 kb/s, standard / TCP-CWV: "
            f"{_by(v, 'limited', (STANDARD, CWV), RATE, _congested(v, 'limited'), '{:.1f}')}.")


def numbers_k(v: View) -> str:
    return (f"behind after the idle: TCP-CWV {_at(v, CWV, 'clean-idle', 1, BEHIND):.1f} s, standard "
            f"{_at(v, STANDARD, 'clean-idle', 1, BEHIND):.1f} s; TCP-CWV's rate / standard's after the idle: "
            + ", ".join(f"{x:g} flows {_at(v, CWV, 'idle', x, RATE) / _at(v, STANDARD, 'idle', x, RATE):.3f}" for x in _congested(v, "idle"))
            + ".")


def numbers_l(v: View) -> str:
    return f"drop rate after 12 kb/s, standard / TCP-CWV: {_by(v, 'limited', (STANDARD, CWV), DROPS, _xs(v, 'limited'), '{:.1%}')}."


def _gap(v: View, sweeps: tuple[str, ...], a: str, b: str, col: str) -> tuple[float, int, int]:
    """The largest |a − b| of ``col`` over the points of ``sweeps``, and at how many of how
    many points the two are identical."""
    pts = [(p, q) for sw in sweeps for _, p, q in _pairs(v, a, b, sw, col)]
    return max(abs(p[0] - q[0]) for p, q in pts), sum(p == q for p, q in pts), len(pts)


def numbers_m(v: View) -> str:
    out = []
    for other in (NEWCWV_RW, NEWCWV_STD):
        rate, same, n = _gap(v, ("idle", "limited"), other, NEWCWV, RATE)
        drops = _gap(v, ("idle", "limited"), other, NEWCWV, DROPS)[0]
        out.append(f"{other}: largest gap {rate:.2f} kb/s and {drops:.2%} of drops, identical at {same} of {n} points")
    return "against (D−R)/2 after the idle and 12 kb/s, " + "; ".join(out) + "."


def numbers_n(v: View) -> str:
    gap, same, n = _gap(v, ("idle", "limited", "rtt"), NEWCWV, NEWCWV_STD, RATE)
    return f"(D−R)/2 against the standard response: largest gap {gap:.2f} kb/s, identical at {same} of {n} points."


def numbers_o(v: View) -> str:
    return "(D−R)/2's rate / standard TCP's, " + "; ".join(
        f"{sw}: " + ", ".join(f"{x:g} flows {_at(v, NEWCWV, sw, x, RATE) / _at(v, STANDARD, sw, x, RATE):.3f}" for x in _congested(v, sw))
        for sw in ("idle", "limited")) + "."


def numbers_p(v: View) -> str:
    return "packets per flow into the bottleneck in the first 10 RTTs, new-CWV / standard, " + "; ".join(
        f"{sw}: {_by(v, sw, (NEWCWV, STANDARD), SENT, _congested(v, sw))}" for sw in ("idle", "limited")) + "."


def numbers_q(v: View) -> str:
    return "kb/s, standard / TCP-CWV, " + "; ".join(
        f"after {sw}: {_by(v, sw, (STANDARD, CWV), RATE, _congested(v, sw), '{:.1f}')}" for sw in ("limited", "idle")) + "."


def numbers_r(v: View) -> str:
    cells = [f"{sw} {x:g} flows {_at(v, NEWCWV, sw, x, DROPS):.1%} → {_at(v, NEWCWV, sw, x, LATER_DROPS):.1%}, standard "
             f"{_at(v, STANDARD, sw, x, LATER_DROPS):.1%}, TCP-CWV {_at(v, CWV, sw, x, LATER_DROPS):.1%}"
             for sw in ("idle", "limited") for x in _xs(v, sw) if _at(v, NEWCWV, sw, x, DROPS) > 0]
    return "new-CWV's drop rate, first 10 RTTs → later; the others' later: " + ("; ".join(cells) or "new-CWV drops nothing") + "."


def numbers_s(v: View) -> str:
    r2 = f"; R² {_r2(v):.2f}" if len(_xs(v, "rtt")) >= 3 else ""
    return f"new-CWV's kb/s at each RTT (ms): {_rates(v, 'rtt', NEWCWV)}{r2}."


def numbers_t(v: View) -> str:
    return "kb/s, new-CWV / standard / TCP-CWV / padding, " + "; ".join(
        f"{sw}: {_by(v, sw, (NEWCWV, STANDARD, CWV, PADDING), RATE, _congested(v, sw))}" for sw in ("idle", "limited")) + "."


RULES = {
    "a": "on the clean path, one flow: new-CWV behind the application for at most one RTT (0.2 s) after the idle and after "
         "the 12 kb/s period; standard TCP (after the idle) and TCP-CWV (after both) behind for longer than new-CWV "
         "(90% CIs apart) and for more than one RTT.",
    "b": "at every number of flows, idle and limited: new-CWV's drop rate in the 10 RTTs after the restart below standard "
         "TCP's and below padding's, 90% CIs apart; a point where the two are identical (both drop nothing) is not tested.",
    "c": "at every point of the idle, limited and RTT sweeps: the received rate with (D−R)/2 above the rate with the "
         "restart-window response, 90% CIs apart; a point where the two responses give identical runs (no loss in the "
         "non-validated phase) is not tested.",
    "d": f"below 16 flows (idle): new-CWV's received rate / fair share − 1 within {ABOUT_EXCESS:g} of the paper's 0.03, "
         f"either way (\"about 3% above\"); from 16 flows on, the rate within {AT_SHARE:.0%} of the fair share (the paper: 0.1%).",
    "e": f"the three new-CWV variants' rates differ (90% CIs apart) at some RTT below 800 ms, and at 800 ms lie within "
         f"{CONVERGED:.0%} of each other; where the variants are identical at every RTT, neither is tested (the "
         f"mechanism the claim explains never acts).",
    "f": "at every number of flows (idle): padding's drop rate above standard TCP's, TCP-CWV's and new-CWV's, 90% CIs apart.",
    "g": "at every number of flows (limited): the high end of TCP-CWV's rate / fair share CI below 1.",
    "h": "at every number of flows (limited): new-CWV's received rate above TCP-CWV's, 90% CIs apart.",
    "i": "at every number of flows where the flows' 512 kb/s exceed the 2 Mb/s left (from 4, \"in the presence of "
         "congestion\"; below it every scheme delivers what its application writes), idle: each new-CWV variant's "
         "received rate ((D−R)/2, restart window, standard response) above standard TCP's and above TCP-CWV's, 90% CIs "
         "apart. The paper's \"similar to that of Standard TCP\" (o) says otherwise for (D−R)/2: both hold only where its "
         "gain is real and below 10%.",
    "j": "on the clean path, one flow, after the 12 kb/s period (Fig. 3): TCP-CWV behind the application for longer than "
         "standard TCP, 90% CIs apart; and (\"can be lower\") at one number of flows at least where the flows exceed the "
         "capacity (limited): TCP-CWV's received rate below standard TCP's, 90% CIs apart. Where the two are identical, "
         "not tested.",
    "k": f"the 5 s idle is about five RTOs (\"several RTO periods\"). On the clean path, one flow: TCP-CWV's time behind "
         f"the application within one RTT (0.2 s) of standard TCP's; at every number of flows where the flows exceed the "
         f"capacity (idle): TCP-CWV's received rate within {SIMILAR:.0%} of standard TCP's (\"similar\"), either way.",
    "l": "at every number of flows (limited): standard TCP's drop rate in the 10 RTTs after the restart above TCP-CWV's, 90% "
         "CIs apart; a point where both drop nothing is not tested.",
    "m": "at every number of flows, idle and limited: the restart-window and standard-response variants' received rates "
         "within 0.5% of (D−R)/2's and their drop rates within 0.5 points of its (the paper's \"less than 0.5%\"); a point "
         "where the variants give identical runs (their loss responses never act) is not tested. Claims (c) and (n) ask "
         "(D−R)/2 to be better than both, 90% CIs apart, on the same points: the paper's words hold together only where "
         "its gain is real and below 0.5%.",
    "n": "at every point of the idle, limited and RTT sweeps: the received rate with (D−R)/2 above the rate with the "
         "standard response, 90% CIs apart (claim c compares it with the restart window: together, \"the best\"); a point "
         "where the two give identical runs is not tested. Claim (m), \"less than 0.5%\" between the variants, pulls "
         "the other way.",
    "o": f"at every number of flows where the flows exceed the capacity, idle and limited: (D−R)/2's received rate within "
         f"{SIMILAR:.0%} of standard TCP's, either way (\"similar\"). It conflicts with (i) and (t) after the idle, which "
         f"ask new-CWV to be better than standard TCP there: both hold only where the gain is real and below {SIMILAR:.0%}.",
    "p": "at every number of flows where the flows exceed the capacity, idle and limited: new-CWV's packets into the "
         "bottleneck in the first 10 RTTs (what the receivers got, the drops and the queue's growth, per flow) above "
         "standard TCP's, 90% CIs apart. After the limited period the paper contradicts itself: standard TCP's window "
         "grew meanwhile (l: \"many packet drops\") while new-CWV's stayed, so new-CWV does not restart with the larger one.",
    "q": "at every number of flows where the flows exceed the capacity: standard TCP's received rate (the paper's measure "
         "of aggressiveness, §4) above TCP-CWV's after the limited period, 90% CIs apart; after the idle, not above it "
         "(fails only where standard TCP's CI lies wholly above TCP-CWV's).",
    "r": f"at every number of flows where new-CWV drops in the first 10 RTTs after the restart (\"if a flow experienced "
         f"congestion\"; elsewhere not tested), idle and limited: its drop rate from then to the end of the run below "
         f"that of the first 10 RTTs, 90% CIs apart (\"decreased\"), and within {SIMILAR:.0%} of standard TCP's and "
         f"TCP-CWV's over the same later time (\"similar to both\"); \"stabilised\" is read as that one later rate, "
         f"not its trend.",
    "s": f"over the RTT sweep (three RTTs at least; fewer: not tested): the least-squares line through new-CWV's received "
         f"rate against the path RTT has R² ≥ {LINEAR_R2:g} (with four RTTs, rates without a trend reach it about one time "
         f"in twenty). The paper reports this from [10], not from its figures.",
    "t": "at every number of flows where the flows exceed the capacity, idle and limited: new-CWV's received rate above "
         "standard TCP's, TCP-CWV's and padding's (its data), 90% CIs apart (\"the best\"); (o) asks it to be similar to "
         "standard TCP's.",
}
CHECKS = {"a": check_a, "b": check_b, "c": check_c, "d": check_d, "e": check_e, "f": check_f, "g": check_g, "h": check_h,
          "i": check_i, "j": check_j, "k": check_k, "l": check_l, "m": check_m, "n": check_n, "o": check_o, "p": check_p,
          "q": check_q, "r": check_r, "s": check_s, "t": check_t}
NUMBERS = {"a": numbers_a, "b": numbers_b, "c": numbers_c, "d": numbers_d, "e": numbers_e, "f": numbers_f, "g": numbers_g,
           "h": numbers_h, "i": numbers_i, "j": numbers_j, "k": numbers_k, "l": numbers_l, "m": numbers_m, "n": numbers_n,
           "o": numbers_o, "p": numbers_p, "q": numbers_q, "r": numbers_r, "s": numbers_s, "t": numbers_t}


def claim_rules() -> list[ClaimRule]:
    return framework.claim_rules("newcwv", RULES, CHECKS, NUMBERS)


#: Then and now (`then_now`): claim (b), the paper's new-CWV against RFC 7661's form of it and
#: against the standard restart (slow start after idle, Linux's default). Claim (d) bounds the
#: rate from above (near the fair share), where more is not better, so it has no row. Careful
#: Resume runs in the idle sweep only: a sender limited to a low rate keeps its connection.
THEN_NOW = [Row("b", f"drop rate after the {s} period (%)", DROPS, True, {"sweep": s}, unit="flows", scale=100.0, fmt="{:.2f}",
                not_run=frozenset() if s == "idle" else frozenset({CAREFUL_RESUME}))
            for s in ("idle", "limited")]
THEN_NOW_PAIRS = ((NEWCWV, NEWCWV_RFC), (NEWCWV, STANDARD), (NEWCWV, CAREFUL_RESUME))
