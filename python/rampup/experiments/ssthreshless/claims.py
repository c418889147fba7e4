"""The claims of SPEC.md §001 as explicit checks on the points, and their verdicts.

Each tolerance comes from the paper's words and is printed in the report beside the paper's
value and ours: two-sided where the words are ("about 80%", "converge to the same", HC and SLS
both "scale well"), one-sided where they are ("high", "below 30%", "degrade", "recovers").
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..checks import PRINTED, Check, about, at_least, at_most, lower
from ..framework import ClaimRule, View
from ..then_now import Row
from .paper import DATA, TABLE2_GAMMAS, paper
from .runs import HC, LSS, SLS, SLS_TICK, SS_A, SS_L, SS_S, SWEEP_SCHEMES, VEGAS

HIGH = 70.0  # "high throughput in all the test cases": SLS's utilization >= 70% (the paper's: 74-85%)
NOT_BEATEN = 5.0  # "where the others degrade": none of them more than 5 pp above SLS
AHEAD = 110.0  # a printed throughput ratio >= 110%: the paper has SLS ahead; ours matched on its magnitude (`PRINTED`)
PARITY = (90.0, 110.0)  # a printed ratio below 110% (HC in Tables V, VI: both "scale well"): within 10% either way
FLAT = (5.0, 10.0)  # γ: spread of the three Table II values <= 5 pp; of all swept values <= 10 pp
UDP_LEFTOVER = 0.70  # during the burst [2, 5] s SLS gets >= 70% of the capacity left (40 - 10 Mb/s)
UDP_RECOVER = 0.80  # after it [6, 10] s SLS gets >= 80% of the capacity
FAIR_JAIN = 0.90  # Jain's index of the five flows' goodput over the last third >= 0.9
FAIR_SHARE = (0.75, 1.25)  # "converge to the same window size": each slow-start flow within 25% of the fair share
CATCH_UP = 0.50  # the late flow's mean cwnd 10-20 s after its start >= 50% of the others'
LOW = 30.0  # Table III: "Slow Start and Vegas utilize below 30%"
ABOUT_80 = (70.0, 90.0)  # Table III: SLS "as high as" 80.30%, read as about 80%: within 10 pp either way

#: The sweep, the paper's table and its x for claims (a)-(c).
SWEEP_CLAIMS = {"a": ("buffer", "IV", 50.0), "b": ("delay", "V", 100.0), "c": ("rate", "VI", 150.0)}

RULES = {
    "a": f"for each buffer: SLS ≥ {HIGH:g}% (high), and none of the others more than {NOT_BEATEN:g} pp above SLS (the "
    f"others: the schemes the paper's table has SLS ahead of, ratio ≥ {AHEAD:g}%: here all six); at the Table IV "
    f"point (buffer 50), for each scheme of the paper's table: where its printed throughput ratio is ≥ {AHEAD:g}% "
    f"(SLS ahead), ours within {PRINTED:.0%} of the printed ratio, either way; else (parity) ours within "
    f"{PARITY[0]:g}-{PARITY[1]:g}%, either way; not tested where the printed ratio and the table's own "
    f"utilizations disagree by more than {PRINTED:.0%} (Vegas in Table IV: 271% printed, 733% from 74.08/10.11).",
    "b": "as (a), per delay, ratios at 100 ms (Table V); the others are LSS, SS (S), SS (L) and Vegas: the paper "
    "says HC scales as SLS does (ratio 96.7%), so HC is held to parity, not to degrading.",
    "c": "as (a), per bandwidth, ratios at 150 Mb/s (Table VI); the others are LSS, SS (S), SS (L) and Vegas, HC "
    "is held to parity (ratio 91.45%).",
    "d": f"spread (max − min of mean utilization) over γ = 1, 3, 10 ≤ {FLAT[0]:g} pp; over every γ swept "
    f"(1-30) ≤ {FLAT[1]:g} pp.",
    "e": f"SLS's goodput during [2, 5] s ≥ {UDP_LEFTOVER:.0%} of the 30 Mb/s left; no timeout in any seed; "
    f"goodput during [6, 10] s ≥ {UDP_RECOVER:.0%} of 40 Mb/s; over 10 s, SLS/SS (S) and SLS/Vegas within "
    f"{PRINTED:.0%} of Table VII's 264% and 313%, either way (its numbers, not its words \"almost two times\").",
    "f": f"Jain's index of the five flows' goodput over the last third of the run ≥ {FAIR_JAIN:g}; each "
    f"slow-start flow's goodput there within {FAIR_SHARE[0]:g}-{FAIR_SHARE[1]:g} of the fair share, either way "
    f"(\"converge to the same window size\"); the late flow's mean cwnd 10-20 s after its start ≥ "
    f"{CATCH_UP:.0%} of the other flows' mean.",
    "g": f"SS (A)'s mean utilization over SS (L)'s and over SS (S)'s within {PRINTED:.0%} of Table I's 7.9× and 14.4×, "
    f"either way.",
    "h": f"SLS within {ABOUT_80[0]:g}-{ABOUT_80[1]:g}% (\"about 80%\" is two-sided); SS (A) < {LOW:g}%; Vegas < {LOW:g}%.",
    "i": "SS (A) with buffer 100: drops > 0 and at least one timeout in every seed.",
    "j": "Table I's SS (L): drops > 0 and a timeout in every seed.",
    "k": "Table I's SS (S) and SS (A): no drop and no timeout (means over seeds of 0).",
    "l": "Table III's Vegas: no timeout in any seed, and fewer drops than SS (A), 90% CIs apart.",
}

U = "util_pct"


def _check(part: str, x: float, ours: float, ok: bool, quantity: str, paper_says: str, tolerance: str) -> Check:
    return Check(part, x, bool(ok), quantity, paper_says, float(ours), tolerance)


def _sweep(claim: str) -> Callable[[View], list[Check]]:
    """Claims (a)-(c): SLS high at every x, none of "the others" clearly above it, and the
    throughput ratios at the paper's table point."""
    sweep, table, tx = SWEEP_CLAIMS[claim]

    def check(v: View) -> list[Check]:
        s = v.of("SLS", exp=sweep)
        rivals = {k: v.of(k, exp=sweep) for k in SWEEP_SCHEMES if k not in (SLS, SLS_TICK)}
        # "The others" that degrade: the schemes the paper's table has SLS clearly ahead of.
        others = {k: o for k, o in rivals.items() if (paper(table, k, 2) or 0) >= AHEAD}
        out = []
        for x in s.index:
            out.append(_check("SLS high", x, s.at[x, U], s.at[x, U] >= HIGH, "SLS utilization (%)", "high: 74-85", f"≥ {HIGH:g}"))
            best = max(o.at[x, U] for o in others.values() if x in o.index)
            out.append(_check("none of the others clearly above SLS", x, best - s.at[x, U], s.at[x, U] >= best - NOT_BEATEN,
                              f"best of {', '.join(others)} − SLS, utilization (pp)", "the others degrade: < 0", f"≤ {NOT_BEATEN:g}"))
        if tx in s.index:
            out += [_ratio(k, s.at[tx, U], o.at[tx, U], table, tx) for k, o in rivals.items()
                    if paper(table, k, 2) is not None and tx in o.index]
        return out

    return check


def _ratio(k: str, sls: float, other: float, table: str, x: float) -> Check:
    """SLS's throughput over ``k``'s: the paper's printed ratio where it has SLS ahead, else
    parity. Where the printed ratio and the ratio of the table's own utilizations disagree by
    more than `PRINTED`, the paper does not say which holds, and the point is not tested."""
    printed = paper(table, k, 2) or math.nan
    ratio = 100.0 * sls / other if other > 0 else math.inf
    own = 100.0 * (paper(table, SLS, 0) or math.nan) / (paper(table, k, 0) or math.nan)
    if not abs(own / printed - 1) <= PRINTED:
        return Check(f"ratio vs {k}", x, None, f"SLS/{k} throughput (%)", f"{printed:.0f}", ratio, "",
                     f"Table {table} prints {printed:.0f}% but its utilizations give {own:.0f}%")
    if printed >= AHEAD:
        return about(f"ratio vs {k}", x, ratio, printed, f"SLS/{k} throughput (%)", f"{printed:.0f}: SLS ahead")
    return _check(f"ratio vs {k}", x, ratio, PARITY[0] <= ratio <= PARITY[1], f"SLS/{k} throughput (%)", f"{printed:.0f}: both scale",
                  f"{PARITY[0]:g}-{PARITY[1]:g} (two-sided)")


def check_d(v: View) -> list[Check]:
    s = v.of("SLS", exp="II")
    three = [s.at[g, U] for g in TABLE2_GAMMAS if g in s.index]
    printed = [paper("II", str(g), 0) or math.nan for g in TABLE2_GAMMAS]
    return [
        _check("spread over γ 1, 3, 10", 0, max(three) - min(three), max(three) - min(three) <= FLAT[0],
               "max − min utilization over γ 1, 3, 10 (pp)", f"{max(printed) - min(printed):.1f} ({min(printed):.2f}-{max(printed):.2f})",
               f"≤ {FLAT[0]:g}"),
        _check("spread over all γ", 0, s[U].max() - s[U].min(), s[U].max() - s[U].min() <= FLAT[1], "max − min utilization over γ 1-30 (pp)",
               "insensitive", f"≤ {FLAT[1]:g}"),
    ]


def check_e(v: View) -> list[Check]:
    s = v.of("SLS", exp="VII").iloc[0]
    out = [
        _check("uses the leftover during the burst", 10, s["mbps_2_5"] / 30, s["mbps_2_5"] >= UDP_LEFTOVER * 30,
               "SLS goodput in [2, 5] s / the 30 Mb/s left", "adapts", f"≥ {UDP_LEFTOVER:g}"),
        _check("no timeout", 10, s["timed_out"], s["timed_out"] == 0, "seeds with a timeout", "none", "0"),
        _check("recovers after the burst", 10, s["mbps_6_10"] / 40, s["mbps_6_10"] >= UDP_RECOVER * 40, "SLS goodput in [6, 10] s / 40 Mb/s",
               "recovers", f"≥ {UDP_RECOVER:g}"),
    ]
    for k in (SS_S, VEGAS):
        o = v.of(k, exp="VII").iloc[0]
        pr = 100 * (paper("VII", SLS, 3) or math.nan) / (paper("VII", k, 3) or math.nan)
        out.append(about(f"SLS/{k} as printed", 10, 100 * s["mbps"] / o["mbps"], pr, f"SLS/{k} goodput over 10 s (%)", f"{pr:.0f}"))
    return out


def check_f(v: View) -> list[Check]:
    s = v.of("SLS", exp="fig10").iloc[0]
    out = [_check("Jain's index", 0, s["jain_end"], s["jain_end"] >= FAIR_JAIN, "Jain's index, last third", "fair: ≈ 1", f"≥ {FAIR_JAIN:g}")]
    for i in (1, 2):
        share = s[f"flow{i}_mbps_end"] / s["fair_share_mbps"]
        out.append(_check(f"slow-start flow {i} share", 0, share, FAIR_SHARE[0] <= share <= FAIR_SHARE[1], f"flow {i} goodput / fair share",
                          "≈ 1 (BDP/5 each)", f"{FAIR_SHARE[0]:g}-{FAIR_SHARE[1]:g} (two-sided)"))
    out.append(_check("late flow catches up", 0, s["late_catchup"], s["late_catchup"] >= CATCH_UP,
                      "late flow's cwnd / the others', 10-20 s after its start", "reaches them quickly", f"≥ {CATCH_UP:g}"))
    return out


def check_g(v: View) -> list[Check]:
    p = {k: v.of(k, exp="I").iloc[0] for k in (SS_L, SS_A, SS_S)}
    return [about(f"SS (A)/{k} as printed", 250, p[SS_A][U] / p[k][U], (paper("I", SS_A, 0) or math.nan) / (paper("I", k, 0) or math.nan),
                  f"SS (A)/{k} utilization", f"{(paper('I', SS_A, 0) or math.nan) / (paper('I', k, 0) or math.nan):.1f}")
            for k in (SS_L, SS_S)]


def check_h(v: View) -> list[Check]:
    p = {k: v.of(k, exp="III").iloc[0] for k in ("SLS", SS_A, VEGAS)}
    out = [_check("SLS about 80%", 200, p["SLS"][U], ABOUT_80[0] <= p["SLS"][U] <= ABOUT_80[1], "SLS utilization (%)",
                  f"{paper('III', SLS, 0):.2f}", f"{ABOUT_80[0]:g}-{ABOUT_80[1]:g} (two-sided)")]
    out += [_check(f"{k} low", 200, p[k][U], p[k][U] < LOW, f"{k} utilization (%)", f"{paper('III', k, 0):.2f}: below {LOW:g}", f"< {LOW:g}")
            for k in (SS_A, VEGAS)]
    return out


def check_i(v: View) -> list[Check]:
    p = v.of(SS_A, exp="fig3").iloc[0]
    return [_check("drops", 100, p["drops"], p["drops"] > 0, "drops", "losses once cwnd passes 250", "> 0"),
            _check("a timeout in every seed", 100, p["timed_out"] / p["seeds"], p["timed_out"] == p["seeds"],
                   "share of seeds with a timeout", "a timeout at about 1.3 s", "1")]


def _seeds_with_timeout(p) -> float:  # type: ignore[no-untyped-def]
    return float(p["timed_out"] / p["seeds"])


def check_j(v: View) -> list[Check]:
    p = v.of(SS_L, exp="I").iloc[0]
    return [at_least("SS (L) drops", 250, float(p["drops"]), 0, "SS (L)'s drops", "burst losses", strict=True),
            at_least("a timeout in every seed", 250, _seeds_with_timeout(p), 1, "share of seeds with a timeout", "a series of timeouts")]


def check_k(v: View) -> list[Check]:
    out = []
    for k in (SS_S, SS_A):
        p = v.of(k, exp="I").iloc[0]
        out += [at_most(f"{k} drops nothing", 250, float(p["drops"]), 0, f"{k}'s drops", "no loss"),
                at_most(f"{k} never times out", 250, _seeds_with_timeout(p), 0, "share of seeds with a timeout", "none")]
    return out


def check_l(v: View) -> list[Check]:
    vg, a = v.of(VEGAS, exp="III").iloc[0], v.of(SS_A, exp="III").iloc[0]
    return [at_most("Vegas never times out", 200, _seeds_with_timeout(vg), 0, "share of Vegas' seeds with a timeout", "avoids multiple losses"),
            lower("Vegas drops fewer than SS (A)", 200, float(vg["drops"]), float(vg["drops_ci90"]), float(a["drops"]), float(a["drops_ci90"]),
                  "drops, Vegas − SS (A)", "fewer")]


def numbers_j(v: View) -> str:
    p = v.of(SS_L, exp="I").iloc[0]
    return f"SS (L): {p['drops']:.0f} drops, timeouts in {int(p['timed_out'])}/{int(p['seeds'])} seeds"


def numbers_k(v: View) -> str:
    return "; ".join(f"{k}: {v.of(k, exp='I').iloc[0]['drops']:.0f} drops, timeouts in {int(v.of(k, exp='I').iloc[0]['timed_out'])}/"
                     f"{int(v.of(k, exp='I').iloc[0]['seeds'])} seeds" for k in (SS_S, SS_A))


def numbers_l(v: View) -> str:
    return "; ".join(f"{k}: {v.of(k, exp='III').iloc[0]['drops']:.0f} drops, timeouts in {int(v.of(k, exp='III').iloc[0]['timed_out'])}/"
                     f"{int(v.of(k, exp='III').iloc[0]['seeds'])} seeds" for k in (VEGAS, SS_A))


def _numbers_sweep(claim: str) -> Callable[[View], str]:
    sweep = SWEEP_CLAIMS[claim][0]
    unit = {"buffer": "pkts", "delay": "ms", "rate": "Mb/s"}[sweep]

    def numbers(v: View) -> str:
        s = v.of("SLS", exp=sweep)
        rest = [f"{k} {v.of(k, exp=sweep)[U].min():.0f}-{v.of(k, exp=sweep)[U].max():.0f}%" for k in (HC, LSS, SS_S, SS_A, SS_L, VEGAS)]
        return (f"utilization over {s.index.min():g}-{s.index.max():g} {unit}: {v.name('SLS')} {s[U].min():.1f}-"
                f"{s[U].max():.1f}%; " + ", ".join(rest))

    return numbers


def numbers_d(v: View) -> str:
    s = v.of("SLS", exp="II")
    return "utilization by γ: " + ", ".join(f"{g:g}: {s.at[g, U]:.1f}%" for g in s.index)


def numbers_e(v: View) -> str:
    s = v.of("SLS", exp="VII").iloc[0]
    o = {k: v.of(k, exp="VII").iloc[0]["mbps"] for k in (SS_S, VEGAS)}
    return (f"{v.name('SLS')}: {s['mbps']:.2f} Mb/s over 10 s; [2, 5] s {s['mbps_2_5']:.1f}, [6, 10] s "
            f"{s['mbps_6_10']:.1f} Mb/s; timeouts in {int(s['timed_out'])}/{int(s['seeds'])} seeds; "
            f"SS (S) {o[SS_S]:.2f}, Vegas {o[VEGAS]:.2f} Mb/s")


def numbers_f(v: View) -> str:
    s = v.of("SLS", exp="fig10").iloc[0]
    shares = ", ".join(f"{s[f'flow{i}_mbps_end']:.1f}" for i in range(1, 6))
    return (f"last third: Jain {s['jain_end']:.3f}; goodput of flows 1-5 (1-2 slow start) {shares} Mb/s; "
            f"late flow's cwnd at 10-20 s after start = {s['late_catchup']:.2f} of the others'")


def numbers_g(v: View) -> str:
    return ", ".join(f"{k} {v.of(k, exp='I').iloc[0][U]:.1f}%" for k in (SS_L, SS_A, SS_S))


def numbers_h(v: View) -> str:
    return ", ".join(f"{v.name(k)} {v.of(k, exp='III').iloc[0][U]:.1f}%" for k in ("SLS", SS_A, VEGAS))


def numbers_i(v: View) -> str:
    p = v.of(SS_A, exp="fig3").iloc[0]
    return f"SS (A), buffer 100: {p[U]:.1f}%, {p['drops']:.0f} drops, timeouts in {int(p['timed_out'])}/{int(p['seeds'])} seeds"


CHECKS: dict[str, Callable[[View], list[Check]]] = {
    **{c: _sweep(c) for c in SWEEP_CLAIMS}, "d": check_d, "e": check_e, "f": check_f, "g": check_g, "h": check_h, "i": check_i,
    "j": check_j, "k": check_k, "l": check_l}
NUMBERS: dict[str, Callable[[View], str]] = {
    **{c: _numbers_sweep(c) for c in SWEEP_CLAIMS}, "d": numbers_d, "e": numbers_e, "f": numbers_f, "g": numbers_g, "h": numbers_h,
    "i": numbers_i, "j": numbers_j, "k": numbers_k, "l": numbers_l}
#: Claims about SSthreshless Start, judged again with the 10 ms tick (the others are about slow start).
ABOUT_SLS = set("abcdefh")


def claim_rules() -> list[ClaimRule]:
    """Claims (a)-(i): the paper's words (data/ssthreshless.toml), our rule and its check."""
    words = DATA["claim"]
    return [ClaimRule(c, words[c]["statement"], words[c]["paper"], RULES[c], CHECKS[c], NUMBERS[c]) for c in RULES]


#: Then and now (`then_now`): claims (a)-(c) compare utilization over their sweeps.
THEN_NOW = [Row(c, "utilization (%)", U, False, {"exp": sweep}, unit={"buffer": "pkts", "delay": "ms", "rate": "Mb/s"}[sweep], fmt="{:.1f}")
            for c, (sweep, _, _) in SWEEP_CLAIMS.items()]
