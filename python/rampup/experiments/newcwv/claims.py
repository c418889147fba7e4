"""The claims of SPEC.md §003 as explicit checks on the figure points.

A scheme's received rate at a point is the mean over its flows of the data rate each
received in the 10 s after its restart (`phases` table), averaged over seeds; the drop rate
is the share of the packets offered to the bottleneck in the first 10 RTTs after the restart
that it dropped. "Fewer" and "better" are one-sided; "about 3%" and "within 0.1%" are the
paper's numbers, with the tolerance each check names.
"""

from __future__ import annotations

from .. import framework
from ..checks import Check
from ..framework import ClaimRule, View, paper_data
from ..then_now import Row
from .runs import CWV, NEWCWV, NEWCWV_RFC, NEWCWV_RW, NEWCWV_STD, PADDING, STANDARD

RATE, SHARE, DROPS, BEHIND = "rate_kbps", "share", "drop_rate", "behind_s"
#: "about 3% above the fair share": at most 3% above it, with 2 points of tolerance.
ABOVE_SHARE = 0.03 + 0.02
#: "converged": the variants' rates within 5% of each other.
CONVERGED = 0.05


def _xs(v: View, sweep: str) -> list[float]:
    return list(v.of(NEWCWV, sweep=sweep).index)


def _at(v: View, scheme: str, sweep: str, x: float, col: str) -> float:
    return float(v.of(scheme, sweep=sweep).at[x, col])


def check_a(v: View) -> list[Check]:
    out = []
    for sweep in ("clean-idle", "clean-limited"):
        rtt = 0.2
        new = _at(v, NEWCWV, sweep, 1, BEHIND)
        out.append(Check(f"new-CWV resumes within one RTT ({sweep})", 1, bool(new <= rtt), "seconds behind the application",
                         "resumes at once", new, f"≤ {rtt:g} s (one RTT)"))
        for scheme in (STANDARD, CWV) if sweep == "clean-idle" else (CWV,):
            other = _at(v, scheme, sweep, 1, BEHIND)
            out.append(Check(f"{scheme} takes longer ({sweep})", 1, bool(other > max(new, rtt)), f"{scheme}'s seconds behind",
                             "several RTTs", other, "> new-CWV's and > one RTT"))
    return out


def check_b(v: View) -> list[Check]:
    out = []
    for sweep in ("idle", "limited"):
        for x in _xs(v, sweep):
            new = _at(v, NEWCWV, sweep, x, DROPS)
            for scheme in (STANDARD, PADDING):
                other = _at(v, scheme, sweep, x, DROPS)
                out.append(Check(f"fewer drops than {scheme} ({sweep})", x, bool(new <= other), f"drop rate, new-CWV − {scheme}",
                                 "< 0 (fewer)", new - other, "≤ 0"))
    return out


def check_c(v: View) -> list[Check]:
    out = []
    for sweep in ("idle", "limited", "rtt"):
        for x in _xs(v, sweep):
            d = _at(v, NEWCWV, sweep, x, RATE) - _at(v, NEWCWV_RW, sweep, x, RATE)
            out.append(Check(f"(D−R)/2 ≥ restart window ({sweep})", x, bool(d >= 0), "received rate, (D−R)/2 − restart window, kb/s",
                             "> 0 (better)", d, "≥ 0"))
    return out


def check_d(v: View) -> list[Check]:
    n = paper_data("newcwv")["numbers"]
    out = []
    for x in _xs(v, "idle"):
        s = _at(v, NEWCWV, "idle", x, SHARE)
        out.append(Check("at most about 3% above the fair share", x, bool(s <= 1 + ABOVE_SHARE), "received rate / fair share",
                         f"≈ {1 + n['above_fair_share']:g}", s, f"≤ {1 + ABOVE_SHARE:g}"))
        if x >= 16:
            out.append(Check("at the fair share from 16 flows", x, bool(abs(s - 1) <= 0.01), "received rate / fair share",
                             f"1 ± {n['at_16_flows']:g}", s, "1 ± 0.01"))
    return out


def check_e(v: View) -> list[Check]:
    x = float(paper_data("newcwv")["numbers"]["converged_rtt_ms"])
    rates = [_at(v, s, "rtt", x, RATE) for s in (NEWCWV, NEWCWV_RW, NEWCWV_STD)]
    spread = (max(rates) - min(rates)) / max(max(rates), 1e-9)
    return [Check("the variants converge at 800 ms", x, bool(spread <= CONVERGED), "(max − min) / max of the variants' rates",
                  "≈ 0", spread, f"≤ {CONVERGED:g}")]


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


RULES = {
    "a": "on the clean path, one flow: new-CWV behind the application for at most one RTT (0.2 s) after the idle and after "
         "the 12 kb/s period; standard TCP (after the idle) and TCP-CWV (after both) behind for longer than new-CWV and "
         "than one RTT.",
    "b": "at every number of flows, idle and limited: new-CWV's drop rate in the 10 RTTs after the restart at most "
         "standard TCP's and at most padding's.",
    "c": "at every point of the idle, limited and RTT sweeps: the received rate with (D−R)/2 at least the rate with the "
         "restart-window response.",
    "d": f"at every number of flows (idle): new-CWV's received rate at most {1 + ABOVE_SHARE:g} × the fair share; from 16 "
         "flows on, within 1% of it (the paper: 0.1%).",
    "e": f"at 800 ms: the three new-CWV variants' received rates within {CONVERGED:.0%} of each other.",
}
CHECKS = {"a": check_a, "b": check_b, "c": check_c, "d": check_d, "e": check_e}
NUMBERS = {"a": numbers_a, "b": numbers_b, "c": numbers_c, "d": numbers_d, "e": numbers_e}


def claim_rules() -> list[ClaimRule]:
    return framework.claim_rules("newcwv", RULES, CHECKS, NUMBERS)


#: Then and now (`then_now`): claim (b), the paper's new-CWV against RFC 7661's form of it and
#: against the standard restart (slow start after idle, Linux's default). Claim (d) bounds the
#: rate from above (near the fair share), where more is not better, so it has no row.
THEN_NOW = [Row("b", f"drop rate after the {s} period (%)", DROPS, True, {"sweep": s}, unit="flows", scale=100.0, fmt="{:.2f}")
            for s in ("idle", "limited")]
THEN_NOW_PAIRS = ((NEWCWV, NEWCWV_RFC), (NEWCWV, STANDARD))
