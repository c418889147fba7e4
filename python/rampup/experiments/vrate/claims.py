"""The claims of SPEC.md §004 as explicit checks on the figure points (means over seeds).

A point's bandwidth is the application's, as a per cent of bw_max (footnote 2), averaged over
the clients; a run's losses per episode is, over its connections that lost packets, the
largest ratio of a connection's dropped data packets to its loss episodes (fast retransmits
and timeouts): one loss per window gives 1; the spread is that of a request's transfer ends
over its duration.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from .. import framework
from ..checks import Check
from ..framework import ClaimRule, View, paper_data
from ..then_now import Row
from .runs import BTCP, FIG4, FIG5, PACING, SHARING, SIZES_MB, VRATE

PCT, SPREAD, TIMEOUTS, LPE = "pct", "spread_frac", "timeouts", "losses_per_episode"
#: "at least as well": vrate's bandwidth at most this many points of bw_max below btcp's.
AS_GOOD = 2.0
#: "much better": at least 20% more bandwidth where btcp stalls (a timeout per request on
#: average); at two servers in Fig. 4, at least 1.4 × (the paper: 1.8 ×).
MUCH, FIG4_TWO = 1.2, 1.4
#: The paper's gain at two servers in Fig. 4 (0.8: "80% better").
GAIN = paper_data("vrate")["numbers"]["fig4_two_servers_gain"]
#: "finish together": the transfers' ends within 10% of the request's duration.
TOGETHER = 0.10
#: "one loss per window": at most 1.0 losses per episode, with 0.1 of tolerance.
ONE_LOSS = 1.1


def sizes(v: View, fig: str) -> list[float]:
    """The transfer sizes (MB per server) figure `fig` was run at."""
    return sorted(set(v.points[v.points["fig"] == fig]["size_mb"]))


def panels(v: View) -> list[tuple[str, dict[str, object]]]:
    """(label, tags) of every curve pair the claims look at: Fig. 4 and 5 at each size, Fig. 6
    with one and two clients."""
    out: list[tuple[str, dict[str, object]]] = [(f"Fig. {fig}, {size:g} MB", {"fig": fig, "clients": 1, "size_mb": size})
                                                for fig in ("4", "5") for size in sizes(v, fig)]
    for clients in (1, 2):
        if not v.of(VRATE, fig="6", clients=clients).empty:
            out.append((f"Fig. 6, {clients} client{'s' if clients > 1 else ''}", {"fig": "6", "clients": clients}))
    return out


def _pairs(v: View) -> Iterator[tuple[str, float, pd.Series, pd.Series]]:
    """(panel label, servers, btcp's point, vrate's point) over every panel."""
    for label, tags in panels(v):
        b, r = v.of(BTCP, **tags), v.of(VRATE, **tags)
        for x in r.index:
            yield label, float(x), b.loc[x], r.loc[x]


def _ratio(r: pd.Series, b: pd.Series) -> float:
    """vrate's bandwidth over btcp's."""
    return float(r[PCT] / max(b[PCT], 1e-9))


def check_a(v: View) -> list[Check]:
    return [Check(label, x, float(r[PCT] - b[PCT]) >= -AS_GOOD, "% of bw_max, vrate − btcp", "≥ 0", float(r[PCT] - b[PCT]),
                  f"≥ −{AS_GOOD:g}") for label, x, b, r in _pairs(v)]


def check_b(v: View) -> list[Check]:
    out = [Check(f"where btcp stalls ({label})", x, _ratio(r, b) >= MUCH, "bandwidth, vrate / btcp", "15-100% better", _ratio(r, b),
                 f"≥ {MUCH:g}") for label, x, b, r in _pairs(v) if b[TIMEOUTS] >= 1]
    for size in SIZES_MB:
        b, r = v.of(BTCP, fig="4", clients=1, size_mb=size), v.of(VRATE, fig="4", clients=1, size_mb=size)
        if 2.0 in r.index:
            ratio = _ratio(r.loc[2.0], b.loc[2.0])
            out.append(Check(f"Fig. 4, two servers, {size:g} MB", 2, ratio >= FIG4_TWO, "bandwidth, vrate / btcp",
                             f"{1 + GAIN:g}", ratio, f"≥ {FIG4_TWO:g}"))
    return out


def _vrate_at_most(v: View, col: str, bound: float, quantity: str, paper: str) -> list[Check]:
    """A check per point: vrate's `col` at most `bound`."""
    out = []
    for label, tags in panels(v):
        r = v.of(VRATE, **tags)
        for x in r.index:
            ours = float(r.at[x, col])
            out.append(Check(label, x, ours <= bound, quantity, paper, ours, f"≤ {bound:g}"))
    return out


def check_c(v: View) -> list[Check]:
    return _vrate_at_most(v, LPE, ONE_LOSS, "vrate's most losses per loss episode of a connection", "1")


def check_d(v: View) -> list[Check]:
    return _vrate_at_most(v, SPREAD, TOGETHER, "vrate's spread of the transfers' ends / the request's time", "≈ 0")


def _pair(v: View, col: str, fmt: str) -> str:
    cells: dict[str, list[str]] = {}
    for label, x, b, r in _pairs(v):
        cells.setdefault(label, []).append(f"{x:g}: {fmt.format(r[col])}/{fmt.format(b[col])}")
    return "; ".join(f"{label}: " + ", ".join(c) for label, c in cells.items())


def numbers_a(v: View) -> str:
    return "% of bw_max by servers, vrate/btcp — " + _pair(v, PCT, "{:.0f}") + "."


def numbers_b(v: View) -> str:
    b, r = v.of(BTCP, fig="4", clients=1, size_mb=SIZES_MB[-1]), v.of(VRATE, fig="4", clients=1, size_mb=SIZES_MB[-1])
    two = f"Fig. 4 ({SIZES_MB[-1]} MB), two servers: {r.at[2.0, PCT]:.0f}% against {b.at[2.0, PCT]:.0f}%" if 2.0 in r.index else ""
    return f"{two}; timeouts per request, vrate/btcp — " + _pair(v, TIMEOUTS, "{:.1f}") + "."


def numbers_c(v: View) -> str:
    return "most losses per episode, vrate/btcp — " + _pair(v, LPE, "{:.1f}") + "."


def numbers_d(v: View) -> str:
    return "spread of the ends / request time, vrate/btcp — " + _pair(v, SPREAD, "{:.2f}") + "."


RULES = {
    "a": f"at every point of Fig. 4, 5 (each size) and 6 (one and two clients): vrate's bandwidth at most {AS_GOOD:g} points "
         "of bw_max below btcp's.",
    "b": f"at every point where btcp's requests average at least one timeout: vrate's bandwidth at least {MUCH:g} × btcp's; "
         f"Fig. 4 at two servers (each size): at least {FIG4_TWO:g} × (the paper: {1 + GAIN:g} ×).",
    "c": f"at every point: vrate's most losses per loss episode of a connection at most {ONE_LOSS:g}.",
    "d": f"at every point: the spread of vrate's transfer ends at most {TOGETHER:.0%} of its request's time.",
}
CHECKS = {"a": check_a, "b": check_b, "c": check_c, "d": check_d}
NUMBERS = {"a": numbers_a, "b": numbers_b, "c": numbers_c, "d": numbers_d}


def claim_rules() -> list[ClaimRule]:
    return framework.claim_rules("vrate", RULES, CHECKS, NUMBERS)


#: Then and now (`then_now`): claims (a) and (d) on Fig. 4 and 5 (8 MB per server), vrate
#: against today's Linux pacing and RFC 9040's shared window.
THEN_NOW = [Row(c, f"Fig. {fig}: {what}", col, lower, {"fig": fig, "clients": 1, "size_mb": SIZES_MB[-1]}, unit="servers", fmt=fmt)
            for c, what, col, lower, fmt in (("a", "bandwidth (% of bw_max)", PCT, False, "{:.0f}"),
                                             ("d", "spread of the ends (of the request time)", SPREAD, True, "{:.2f}"))
            for fig in (FIG4.fig, FIG5.fig)]
THEN_NOW_PAIRS = ((VRATE, PACING), (VRATE, SHARING))
