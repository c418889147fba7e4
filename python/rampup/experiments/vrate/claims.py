"""The claims of SPEC.md §004 as explicit checks on the figure points (means over seeds).

A point's bandwidth is the application's, as a per cent of bw_max (footnote 2), averaged over
the clients; a run's losses per episode is, over its connections that lost packets, the
largest ratio of a connection's dropped data packets to its loss episodes (fast retransmits
and timeouts): one loss per window gives 1; the spread is that of a request's transfer ends
over its duration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pandas as pd

from .. import framework
from ..checks import PRINTED, Check, about, at_least, at_most, higher, lower
from ..framework import ClaimRule, paper_data
from ..then_now import Row
from ..view import View
from .runs import BTCP, FIG4, FIG5, PACING, PAIR, SHARING, SIZES_MB, VRATE

PCT, SPREAD, TIMEOUTS, LPE = "pct", "spread_frac", "timeouts", "losses_per_episode"
#: "at least as well": vrate's bandwidth at most this many points of bw_max below btcp's.
AS_GOOD = 2.0
#: "15-100% better" where btcp stalls (a timeout per request on average): the abstract's range.
CONGESTED = (1.15, 2.0)
#: The paper's gain at two servers in Fig. 4 (0.8: "80% better"), matched within `PRINTED`.
GAIN = paper_data("vrate")["numbers"]["fig4_two_servers_gain"]
#: "finish together": the transfers' ends within 10% of the request's duration.
TOGETHER = 0.10
#: Fig. 1: btcp's bandwidth as printed (Mb/s), of the OC-3 client's 155 Mb/s; "close to the
#: maximum" in Fig. 6: at least 90% of bw_max.
FIG1_MBPS, OC3_MBPS, NEAR_MAX = paper_data("vrate")["numbers"]["fig1_btcp_mbps"], 155.0, 90.0
#: Fig. 1's stall: the connection that does not stall finishes at least a quarter of the
#: request's time before the other; Fig. 4's "drastic drop" at two servers is at least 20
#: points of bw_max, and "still poor" at the most servers at least 10 points below vrate.
STALL_SPREAD, DRASTIC, POOR = 0.25, 20.0, 10.0
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
    out = []
    for label, x, b, r in _pairs(v):
        if b[TIMEOUTS] >= 1:
            ratio = _ratio(r, b)
            out.append(Check(f"15-100% better where btcp stalls ({label})", x, CONGESTED[0] <= ratio <= CONGESTED[1], "bandwidth, vrate / btcp",
                             "15-100% better", ratio, f"{CONGESTED[0]:g}-{CONGESTED[1]:g}"))
    for size in SIZES_MB:
        b, r = v.of(BTCP, fig="4", clients=1, size_mb=size), v.of(VRATE, fig="4", clients=1, size_mb=size)
        if 2.0 in r.index:
            out.append(about(f"Fig. 4, two servers, {size:g} MB", 2, _ratio(r.loc[2.0], b.loc[2.0]), 1 + GAIN, "bandwidth, vrate / btcp",
                             f"{1 + GAIN:g}"))
    return out


def _vrate_at_most(v: View, col: str, bound: float, quantity: str, paper: str, untested: Callable[[float, float], str]) -> list[Check]:
    """A check per point: vrate's `col` at most `bound`; not tested where ``untested(servers,
    value)`` gives a reason."""
    out = []
    for label, tags in panels(v):
        r = v.of(VRATE, **tags)
        for x in r.index:
            ours = float(r.at[x, col])
            why = untested(float(x), ours)
            out.append(Check(label, x, None, quantity, paper, ours, f"≤ {bound:g}", why) if why
                       else at_most(label, x, ours, bound, quantity, paper))
    return out


def check_c(v: View) -> list[Check]:
    return _vrate_at_most(v, LPE, ONE_LOSS, "vrate's most losses per loss episode of a connection", "1",
                          lambda x, lpe: "no connection lost a packet" if lpe == 0 else "")


def check_d(v: View) -> list[Check]:
    return _vrate_at_most(v, SPREAD, TOGETHER, "vrate's spread of the transfers' ends / the request's time", "≈ 0",
                          lambda x, spread: "one server: one transfer, which finishes with itself" if x == 1 else "")


def _fig(v: View, scheme: str, fig: str, clients: int) -> pd.DataFrame:
    return v.of(scheme, fig=fig, clients=clients)


def check_e(v: View) -> list[Check]:
    b = _fig(v, BTCP, "1", 1)
    return [about("btcp about 70 Mb/s", x, float(b.at[x, PCT]) / 100 * OC3_MBPS, FIG1_MBPS, "btcp's bandwidth, Mb/s", f"≈ {FIG1_MBPS:g}")
            for x in b.index]


def check_f(v: View) -> list[Check]:
    return [at_least(f"{k} near the maximum", x, float(p.at[x, PCT]), NEAR_MAX, f"{k}'s bandwidth, % of bw_max", "close to maximum")
            for k in PAIR for p in [_fig(v, k, "6", 1)] for x in p.index]


def check_g(v: View) -> list[Check]:
    b, r = _fig(v, BTCP, "6", 2), _fig(v, VRATE, "6", 2)
    out = [lower("btcp below vrate", x, float(b.at[x, PCT]), float(b.at[x, f"{PCT}_ci90"]), float(r.at[x, PCT]), float(r.at[x, f"{PCT}_ci90"]),
                 "% of bw_max, btcp − vrate", "btcp degrades") for x in r.index if x >= 2]
    out += [at_least("vrate near the maximum", x, float(r.at[x, PCT]), NEAR_MAX, "vrate's bandwidth, % of bw_max", "close to maximum")
            for x in r.index]
    return out


def _at(v: View, scheme: str, fig: str, size: float, x: float, col: str) -> tuple[float, float]:
    p = v.of(scheme, fig=fig, clients=1, size_mb=size)
    return float(p.at[x, col]), float(p.at[x, f"{col}_ci90"])


def check_h(v: View) -> list[Check]:
    b = _fig(v, BTCP, "1", 1)
    return [c for x in b.index for c in (
        at_least("a btcp connection stalls", x, float(b.at[x, TIMEOUTS]), 1, "btcp's timeouts per request", "one connection stalls"),
        at_least("the other finishes first", x, float(b.at[x, SPREAD]), STALL_SPREAD, "btcp's spread of the ends / the request's time",
                 "completes before the other recovers"))]


def check_i(v: View) -> list[Check]:
    out = []
    for size in sizes(v, "4"):
        xs = sorted(v.of(BTCP, fig="4", clients=1, size_mb=size).index)
        one, two, top = xs[0], 2.0, xs[-1]
        b1, b2, bt = (_at(v, BTCP, "4", size, x, PCT) for x in (one, two, top))
        out += [higher(f"vrate above btcp ({size:g} MB)", x, *_at(v, VRATE, "4", size, x, PCT), *_at(v, BTCP, "4", size, x, PCT),
                       "% of bw_max, vrate − btcp", "always outperforms") for x in xs if x >= 2]
        diff = _at(v, VRATE, "4", size, one, PCT)[0] - b1[0]
        out.append(Check(f"one server alike ({size:g} MB)", one, abs(diff) <= AS_GOOD, "% of bw_max at one server, vrate − btcp",
                         "close together", diff, f"±{AS_GOOD:g} (two-sided)"))
        drop = higher(f"btcp drops at two servers ({size:g} MB)", two, *b1, *b2, "btcp's % of bw_max, one server − two", "a drastic drop")
        drop.ok = None if drop.ok is None else bool(drop.ok and b1[0] - b2[0] >= DRASTIC)
        drop.tolerance = f"≥ {DRASTIC:g}, 90% CIs apart"
        out.append(drop)
        out.append(higher(f"btcp recovers as servers are added ({size:g} MB)", top, *bt, *b2, f"btcp's % of bw_max, {top:g} − 2 servers",
                          "improves"))
        out.append(at_least(f"but stays poor ({size:g} MB)", top, _at(v, VRATE, "4", size, top, PCT)[0] - bt[0], POOR,
                            f"% of bw_max at {top:g} servers, vrate − btcp", "still poor"))
    return out


def check_j(v: View) -> list[Check]:
    return [higher(f"btcp stalls more reading than writing ({size:g} MB)", x, *_at(v, BTCP, "4", size, x, TIMEOUTS),
                   *_at(v, BTCP, "5", size, x, TIMEOUTS), "btcp's timeouts per request, Fig. 4 − Fig. 5", "congestion more likely reading")
            for size in sizes(v, "4") for x in v.of(BTCP, fig="4", clients=1, size_mb=size).index]


def check_k(v: View) -> list[Check]:
    out = []
    for size in sizes(v, "5"):
        top = max(v.of(BTCP, fig="5", clients=1, size_mb=size).index)
        b, r = _at(v, BTCP, "5", size, top, PCT)[0], _at(v, VRATE, "5", size, top, PCT)[0]
        out += [Check(f"the client's link limits both ({size:g} MB)", top, abs(r - b) <= AS_GOOD, "% of bw_max, vrate − btcp", "alike",
                      r - b, f"±{AS_GOOD:g} (two-sided)"),
                at_least(f"both near the maximum ({size:g} MB)", top, min(b, r), NEAR_MAX, "the lower of the two, % of bw_max",
                         "limited by the client")]
    return out


def check_l(v: View) -> list[Check]:
    return [at_least(f"vrate near the maximum at two servers ({size:g} MB)", 2, _at(v, VRATE, "4", size, 2.0, PCT)[0], NEAR_MAX,
                     "vrate's % of bw_max", "close to the maximum") for size in sizes(v, "4")]


def check_m(v: View) -> list[Check]:
    out = []
    for size in sizes(v, "4"):
        b = v.of(BTCP, fig="4", clients=1, size_mb=size)
        out += [higher(f"btcp's ends apart where it stalls ({size:g} MB)", x, *_at(v, BTCP, "4", size, x, SPREAD),
                       *_at(v, VRATE, "4", size, x, SPREAD), "spread of the ends / the request's time, btcp − vrate",
                       "the link left idle") for x in b.index if b.at[x, TIMEOUTS] >= 1]
    return out


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


def numbers_e(v: View) -> str:
    b, r = _fig(v, BTCP, "1", 1), _fig(v, VRATE, "1", 1)
    return "Fig. 1, Mb/s, btcp/vrate: " + ", ".join(f"{x:g} servers {b.at[x, PCT] / 100 * OC3_MBPS:.0f}/{r.at[x, PCT] / 100 * OC3_MBPS:.0f}"
                                                   for x in b.index) + "."


def _fig6(v: View, clients: int) -> str:
    b, r = _fig(v, BTCP, "6", clients), _fig(v, VRATE, "6", clients)
    return f"Fig. 6, {clients} client(s), % of bw_max vrate/btcp: " + ", ".join(f"{x:g}: {r.at[x, PCT]:.0f}/{b.at[x, PCT]:.0f}" for x in r.index)


def numbers_h(v: View) -> str:
    b = _fig(v, BTCP, "1", 1)
    return "Fig. 1, btcp: " + ", ".join(f"{x:g} servers: {b.at[x, TIMEOUTS]:.1f} timeouts per request, ends spread over "
                                        f"{b.at[x, SPREAD]:.0%} of the request" for x in b.index) + "."


def numbers_f(v: View) -> str:
    return _fig6(v, 1) + "."


def numbers_g(v: View) -> str:
    return _fig6(v, 2) + "."


RULES = {
    "a": f"at every point of Fig. 4, 5 (each size) and 6 (one and two clients): vrate's bandwidth at most {AS_GOOD:g} points "
         "of bw_max below btcp's.",
    "b": f"at every point where btcp's requests average at least one timeout: vrate's bandwidth {CONGESTED[0]:g}-{CONGESTED[1]:g} × "
         f"btcp's (\"15-100% better\"); Fig. 4 at two servers (each size): within {PRINTED:.0%} of the paper's {1 + GAIN:g} ×, "
         "either way.",
    "c": f"at every point where a connection lost a packet: vrate's most losses per loss episode of a connection at most "
         f"{ONE_LOSS:g}.",
    "d": f"at every point from two servers on: the spread of vrate's transfer ends at most {TOGETHER:.0%} of its request's time.",
    "e": f"Fig. 1 (an OC-3 client reading from two 100baseT servers): btcp's bandwidth within {PRINTED:.0%} of the paper's "
         f"{FIG1_MBPS:g} Mb/s, either way.",
    "f": f"Fig. 6 with one client: btcp's and vrate's bandwidth at least {NEAR_MAX:g}% of bw_max at every number of servers.",
    "g": f"Fig. 6 with two clients: btcp's bandwidth below vrate's (90% CIs apart) from two servers on, and vrate's at least "
         f"{NEAR_MAX:g}% of bw_max at every number of servers.",
    "h": f"Fig. 1: btcp's requests average at least one timeout, and the spread of its transfers' ends is at least "
         f"{STALL_SPREAD:.0%} of the request's time.",
    "i": f"Fig. 4, each size: vrate above btcp from two servers on (90% CIs apart); at one server the two within "
         f"{AS_GOOD:g} points; btcp at two servers at least {DRASTIC:g} points below one server (CIs apart), higher at the most "
         f"servers than at two (CIs apart) but still at least {POOR:g} points below vrate.",
    "j": "at every number of servers and size: btcp's timeouts per request reading (Fig. 4) above writing (Fig. 5), 90% CIs "
         "apart; a point where neither stalls is not tested.",
    "k": f"Fig. 5 at the most servers: vrate and btcp within {AS_GOOD:g} points of each other, both at least {NEAR_MAX:g}% of "
         "bw_max.",
    "l": f"Fig. 4 at two servers, each size: vrate at least {NEAR_MAX:g}% of bw_max.",
    "m": "Fig. 4, wherever btcp's requests average at least one timeout: the spread of btcp's transfer ends above vrate's, "
         "90% CIs apart.",
}
CHECKS = {"a": check_a, "b": check_b, "c": check_c, "d": check_d, "e": check_e, "f": check_f, "g": check_g, "h": check_h, "i": check_i,
          "j": check_j, "k": check_k, "l": check_l, "m": check_m}
NUMBERS = {"a": numbers_a, "b": numbers_b, "c": numbers_c, "d": numbers_d, "e": numbers_e, "f": numbers_f, "g": numbers_g,
           "h": numbers_h, "i": numbers_a, "j": numbers_b, "k": numbers_a, "l": numbers_a, "m": numbers_d}


def claim_rules() -> list[ClaimRule]:
    return framework.claim_rules("vrate", RULES, CHECKS, NUMBERS)


#: Then and now (`then_now`): claims (a) and (d) on Fig. 4 and 5 (8 MB per server), vrate
#: against today's Linux pacing and RFC 9040's shared window.
THEN_NOW = [Row(c, f"Fig. {fig}: {what}", col, lower, {"fig": fig, "clients": 1, "size_mb": SIZES_MB[-1]}, unit="servers", fmt=fmt)
            for c, what, col, lower, fmt in (("a", "bandwidth (% of bw_max)", PCT, False, "{:.0f}"),
                                             ("d", "spread of the ends (of the request time)", SPREAD, True, "{:.2f}"))
            for fig in (FIG4.fig, FIG5.fig)]
THEN_NOW_PAIRS = ((VRATE, PACING), (VRATE, SHARING))
