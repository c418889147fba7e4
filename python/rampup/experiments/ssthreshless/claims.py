"""The claims of SPEC.md §001 as explicit checks on the points, and their verdicts.

Each tolerance comes from the paper's words and is printed in the report beside the paper's
value and ours: two-sided where the words are ("about 80%", "converge to the same", HC and SLS
both "scale well"), one-sided where they are ("high", "below 30%", "degrade", "recovers").
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from ..checks import PRINTED, Check, about, at_least, at_most, higher, lower
from ..framework import ClaimRule
from ..then_now import Row
from ..view import View
from .paper import DATA, TABLE2_GAMMAS, paper
from .runs import HC, LSS, SLS, SLS_TICK, SS_A, SS_L, SS_S, SWEEP_SCHEMES, TODAY, VEGAS

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
OVER = 400.0  # Fig. 3: slow start doubles cwnd "to over 400 packets" before it sees the loss
CUT = 250.0  # Fig. 3: fast recovery "cuts cwnd to just below 250": below it, by at most `PRINTED` of it
AMPLE = 400.0  # Fig. 6: "ample buffer": 0.8 BDP up to the BDP, the largest buffers of the sweep
T_SLS, T_SS = 2.0, 1.0  # Fig. 5: cwnd reaches the BDP "in around 2s" (SLS) and "in around 1s" (SS (A)), matched as printed
DEFAULT_GAMMA = 3.0  # γ of every run but Table II's (the engine's default, docs/ssthreshless.md)
AS_USUAL = 0.10  # Fig. 9: "ramps up just as usual": first-second goodput within 10% of the run without UDP, either way

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
    "m": "Table I's runs: SS (L)'s peak flight (snd_max − snd_una, the gap between the sequence numbers sent and "
    "received) above BDP + buffer, all the path holds (750 segments), and SS (A)'s at most that.",
    "n": f"Fig. 3's runs (buffer 100): SS (A)'s largest cwnd before its first loss response > {OVER:g} segments (the "
    f"sentence's \"significant packet drops\" is claim (i)'s drops > 0).",
    "o": f"Fig. 3's runs: the ssthresh SS (A)'s first loss response sets, to which fast recovery holds cwnd, < "
    f"{CUT:g} and ≥ {CUT * (1 - PRINTED):g} (\"just below\": under the printed number by at most {PRINTED:.0%} of "
    f"it); the queue that \"barely builds up\" is not checked (queues are kept for seed 1 only).",
    "p": "SS (A)'s utilization with buffer 100 (Fig. 3) below its utilization with buffer 250 (Table I), 90% CIs apart.",
    "q": "SLS's utilization at γ = 3 above that at γ = 1, and at γ = 10 above that at γ = 3, 90% CIs apart (\"more "
    "aggressive\" as γ grows, Table II's 82.15 < 83.95 < 85.39%); \"slightly\" is claim (d)'s spread bound.",
    "r": "SLS's congestive events over the run (its count c at the end) at γ = 1 above those at γ = 10, 90% CIs apart.",
    "s": f"Table III's runs (buffer 200): the time SLS's cwnd first reaches the BDP (500) within {PRINTED:.0%} of "
    f"{T_SLS:g} s, either way (the run's end where it never does); its utilization from then to the end ≥ {HIGH:g}% "
    f"(claim (a)'s \"high\").",
    "t": f"Table III's runs: the time SS (A)'s cwnd first reaches the BDP within {PRINTED:.0%} of {T_SS:g} s, either "
    f"way, and before SLS's, 90% CIs apart (\"in comparison\").",
    "u": "Table III's SS (A): drops > 0 and a timeout in every seed.",
    "v": f"buffer sweep, each buffer ≥ {AMPLE:g} (0.8 BDP up to the BDP): HC's and LSS's utilization < {HIGH:g}% "
    f"(claim (a)'s \"high\"); SS (A) not tested: the paper's own Table I has it at 87.50% with buffer 250, where it "
    f"loses nothing (claim (k)), so no less with any larger buffer, against the sentence.",
    "w": f"SLS's goodput over [0, 1] s with the UDP burst (Table VII's runs) over that without it (Table II's runs at "
    f"the default γ = 3), within {AS_USUAL:.0%} of 1, either way (\"just as usual\": the burst starts at "
    f"1 s, so this checks that nothing else in Fig. 9's set-up moves the startup).",
    "x": "Table VII's SS (S): drops > 0 and a timeout in every seed.",
    "y": "Fig. 10's runs: the mean goodput of the two SLS flows that start at 0 s over the startup window (the "
    "first 10 s, §V-C, before the late flow starts) above that of the two slow-start flows, 90% CIs apart.",
    "z": f"Fig. 10's runs: each of the five flows' mean cwnd over the last third of the run within {PRINTED:.0%} of "
    f"BDP/5 (100 segments), either way (claim (f) checks their goodput shares).",
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


def _seeds_with_timeout(p: pd.Series) -> float:
    return float(p["timed_out"] / p["seeds"])


def _losses_and_timeouts(v: View, k: str, exp: str, x: float, drops_says: str, timeout_says: str) -> list[Check]:
    """``k`` drops packets and times out in every seed of ``exp`` (claims (j), (u), (x))."""
    p = v.of(k, exp=exp).iloc[0]
    return [at_least(f"{k} drops", x, float(p["drops"]), 0, f"{k}'s drops", drops_says, strict=True),
            at_least("a timeout in every seed", x, _seeds_with_timeout(p), 1, "share of seeds with a timeout", timeout_says)]


def check_j(v: View) -> list[Check]:
    return _losses_and_timeouts(v, SS_L, "I", 250, "burst losses", "a series of timeouts")


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


def check_m(v: View) -> list[Check]:
    out = []
    for k, bound in ((SS_L, at_least), (SS_A, at_most)):
        p = v.of(k, exp="I").iloc[0]
        pipe = float(p["bdp"] + p["buffer"])
        out.append(bound(f"{k}'s peak flight", 250, float(p["peak_flight"]), pipe, f"{k}'s peak flight (segments)",
                         "overshoots the BDP" if k == SS_L else "grows to the BDP", strict=k == SS_L))
    return out


def check_n(v: View) -> list[Check]:
    p = v.of(SS_A, exp="fig3").iloc[0]
    return [at_least("peak cwnd over 400", 100, float(p["peak_cwnd"]), OVER, "SS (A)'s cwnd before its first loss response (segments)",
                     "over 400", strict=True)]


def check_o(v: View) -> list[Check]:
    p = v.of(SS_A, exp="fig3").iloc[0]
    cut, quantity = float(p["first_ssthresh"]), "ssthresh the first loss response sets (segments)"
    return [at_most("cut below 250", 100, cut, CUT, quantity, "just below 250", strict=True),
            at_least("cut just below 250", 100, cut, CUT * (1 - PRINTED), quantity, "just below 250")]


def check_p(v: View) -> list[Check]:
    small, table1 = v.of(SS_A, exp="fig3").iloc[0], v.of(SS_A, exp="I").iloc[0]
    return [lower("buffer 100 below buffer 250", 100, float(small[U]), float(small[f"{U}_ci90"]), float(table1[U]),
                  float(table1[f"{U}_ci90"]), "SS (A)'s utilization, buffer 100 − buffer 250 (pp)", "significant underperformance")]


def check_q(v: View) -> list[Check]:
    s = v.of("SLS", exp="II")
    gammas = sorted(TABLE2_GAMMAS)
    return [higher(f"γ {b:g} above γ {a:g}", b, float(s.at[b, U]), float(s.at[b, f"{U}_ci90"]), float(s.at[a, U]),
                   float(s.at[a, f"{U}_ci90"]), f"utilization, γ {b:g} − γ {a:g} (pp)",
                   f"{paper('II', str(b), 0):.2f} > {paper('II', str(a), 0):.2f}")
            for a, b in zip(gammas, gammas[1:], strict=False) if a in s.index and b in s.index]


def check_r(v: View) -> list[Check]:
    s, lo, hi = v.of("SLS", exp="II"), min(TABLE2_GAMMAS), max(TABLE2_GAMMAS)
    return [higher(f"more events at γ {lo:g} than at γ {hi:g}", lo, float(s.at[lo, "congestive_events"]),
                   float(s.at[lo, "congestive_events_ci90"]), float(s.at[hi, "congestive_events"]),
                   float(s.at[hi, "congestive_events_ci90"]), f"congestive events, γ {lo:g} − γ {hi:g}", "more with a small γ")]


def check_s(v: View) -> list[Check]:
    p = v.of("SLS", exp="III").iloc[0]
    return [about("reaches the BDP in around 2 s", 200, float(p["t_bdp_s"]), T_SLS, "time cwnd first reaches the BDP (s)", "around 2"),
            at_least("high utilization ever since", 200, float(p["util_after_bdp_pct"]), HIGH,
                     "utilization from then to the end (%)", "high")]


def check_t(v: View) -> list[Check]:
    a, s = v.of(SS_A, exp="III").iloc[0], v.of("SLS", exp="III").iloc[0]
    return [about("SS (A) reaches the BDP in around 1 s", 200, float(a["t_bdp_s"]), T_SS, "time SS (A)'s cwnd first reaches the BDP (s)",
                  "around 1"),
            lower("before SLS", 200, float(a["t_bdp_s"]), float(a["t_bdp_s_ci90"]), float(s["t_bdp_s"]), float(s["t_bdp_s_ci90"]),
                  "time to the BDP, SS (A) − SLS (s)", "around 1 s against around 2 s")]


def check_u(v: View) -> list[Check]:
    return _losses_and_timeouts(v, SS_A, "III", 200, "packet drops", "Fast Recovery fails: a Timeout")


#: Claim (v): why SS (A) is not tested (the paper's own numbers).
SS_A_AMPLE = "Table I: SS (A) 87.50% with buffer 250, where it loses nothing (claim k)"


def check_v(v: View) -> list[Check]:
    out = []
    for k in (HC, LSS, SS_A):
        p = v.of(k, exp="buffer")
        for x in (x for x in p.index if x >= AMPLE):
            if k == SS_A:
                out.append(Check(f"{k} not high", x, None, f"{k} utilization (%)", "fails to obtain a high throughput",
                                 float(p.at[x, U]), f"< {HIGH:g}", SS_A_AMPLE))
            else:
                out.append(at_most(f"{k} not high", x, float(p.at[x, U]), HIGH, f"{k} utilization (%)", "fails to obtain a high throughput",
                                   strict=True))
    return out


def check_w(v: View) -> list[Check]:
    burst, alone = v.of("SLS", exp="VII").iloc[0], v.of("SLS", exp="II")
    g = DEFAULT_GAMMA
    ratio = float(burst["mbps_0_1"] / alone.at[g, "mbps_0_1"]) if g in alone.index else math.nan
    return [about("first second as without UDP", 10, ratio, 1.0, "goodput over [0, 1] s, with UDP / without", "just as usual",
                  rel=AS_USUAL)]


def check_x(v: View) -> list[Check]:
    return _losses_and_timeouts(v, SS_S, "VII", 10, "incurs losses", "Fast Recovery fails: a Timeout")


def check_y(v: View) -> list[Check]:
    p = v.of("SLS", exp="fig10").iloc[0]
    return [higher("SLS flows above slow-start flows", 0, float(p["sls_mbps_early"]), float(p["sls_mbps_early_ci90"]),
                   float(p["ss_mbps_early"]), float(p["ss_mbps_early_ci90"]), "goodput over the first 10 s, SLS − SS (S) flows (Mb/s)",
                   "uses the bandwidth slow start leaves")]


def check_z(v: View) -> list[Check]:
    p = v.of("SLS", exp="fig10").iloc[0]
    return [about(f"flow {i} window", 0, float(p[f"flow{i}_cwnd_end"]), float(p["bdp"]) / 5, f"flow {i}'s mean cwnd, last third (segments)",
                  "around one-fifth of the BDP") for i in range(1, 6)]


def _startup(v: View, k: str, exp: str) -> str:
    """``k``'s drops and the seeds with a timeout in ``exp``."""
    p = v.of(k, exp=exp).iloc[0]
    return f"{v.name(k)}: {p['drops']:.0f} drops, timeouts in {int(p['timed_out'])}/{int(p['seeds'])} seeds"


def numbers_j(v: View) -> str:
    return _startup(v, SS_L, "I")


def numbers_k(v: View) -> str:
    return "; ".join(_startup(v, k, "I") for k in (SS_S, SS_A))


def numbers_l(v: View) -> str:
    return "; ".join(_startup(v, k, "III") for k in (VEGAS, SS_A))


def numbers_u(v: View) -> str:
    return _startup(v, SS_A, "III")


def numbers_x(v: View) -> str:
    return _startup(v, SS_S, "VII")


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


def numbers_m(v: View) -> str:
    return "; ".join(f"{k}: peak flight {v.of(k, exp='I').iloc[0]['peak_flight']:.0f} segments" for k in (SS_L, SS_A))


def numbers_n(v: View) -> str:
    return f"SS (A), buffer 100: peak cwnd {v.of(SS_A, exp='fig3').iloc[0]['peak_cwnd']:.0f} segments"


def numbers_o(v: View) -> str:
    return f"SS (A), buffer 100: first loss response sets ssthresh {v.of(SS_A, exp='fig3').iloc[0]['first_ssthresh']:.1f} segments"


def numbers_p(v: View) -> str:
    return f"SS (A): {v.of(SS_A, exp='fig3').iloc[0][U]:.1f}% with buffer 100, {v.of(SS_A, exp='I').iloc[0][U]:.1f}% with 250"


def _over_gamma(v: View, what: str, column: str, digits: int, unit: str = "") -> str:
    """SLS's ``column`` (mean over seeds) at each of Table II's γ."""
    s = v.of("SLS", exp="II")
    return f"{v.name('SLS')} {what} at γ " + ", ".join(f"{g:g}: {s.at[g, column]:.{digits}f}{unit}"
                                                     for g in sorted(TABLE2_GAMMAS) if g in s.index)


def numbers_q(v: View) -> str:
    return _over_gamma(v, "utilization", U, 2, "%")


def numbers_r(v: View) -> str:
    return _over_gamma(v, "congestive events", "congestive_events", 1)


def _reaches(v: View, k: str) -> str:
    """When ``k``'s cwnd first reaches the BDP in Table III's runs (mean over seeds), and how
    the link is used from then on; or that it never does (the utilization after is then
    undefined in every seed)."""
    p = v.of(k, exp="III").iloc[0]
    if math.isnan(p["util_after_bdp_pct"]):
        return f"{v.name(k)}'s cwnd never reaches the BDP"
    return f"{v.name(k)}'s cwnd reaches the BDP at {p['t_bdp_s']:.2f} s, {p['util_after_bdp_pct']:.1f}% from then on"


def numbers_s(v: View) -> str:
    return f"buffer 200: {_reaches(v, 'SLS')}"


def numbers_t(v: View) -> str:
    return f"buffer 200: {_reaches(v, SS_A)}; {_reaches(v, 'SLS')}"


def numbers_v(v: View) -> str:
    return "; ".join(f"{k} {min(p[U]):.1f}-{max(p[U]):.1f}%" for k in (HC, LSS, SS_A)
                     if len(p := v.of(k, exp="buffer").loc[lambda d: d.index >= AMPLE]))


def numbers_w(v: View) -> str:
    return (f"{v.name('SLS')} over [0, 1] s: {v.of('SLS', exp='VII').iloc[0]['mbps_0_1']:.3f} Mb/s with UDP, "
            f"{v.of('SLS', exp='II').at[DEFAULT_GAMMA, 'mbps_0_1']:.3f} without")


def numbers_y(v: View) -> str:
    p = v.of("SLS", exp="fig10").iloc[0]
    return f"first 10 s: SLS flows {p['sls_mbps_early']:.2f}, slow-start flows {p['ss_mbps_early']:.2f} Mb/s each"


def numbers_z(v: View) -> str:
    p = v.of("SLS", exp="fig10").iloc[0]
    return "mean cwnd over the last third, flows 1-5: " + ", ".join(f"{p[f'flow{i}_cwnd_end']:.0f}" for i in range(1, 6)) + " segments"


CHECKS: dict[str, Callable[[View], list[Check]]] = {
    **{c: _sweep(c) for c in SWEEP_CLAIMS}, "d": check_d, "e": check_e, "f": check_f, "g": check_g, "h": check_h, "i": check_i,
    "j": check_j, "k": check_k, "l": check_l, "m": check_m, "n": check_n, "o": check_o, "p": check_p, "q": check_q, "r": check_r,
    "s": check_s, "t": check_t, "u": check_u, "v": check_v, "w": check_w, "x": check_x, "y": check_y, "z": check_z}
NUMBERS: dict[str, Callable[[View], str]] = {
    **{c: _numbers_sweep(c) for c in SWEEP_CLAIMS}, "d": numbers_d, "e": numbers_e, "f": numbers_f, "g": numbers_g, "h": numbers_h,
    "i": numbers_i, "j": numbers_j, "k": numbers_k, "l": numbers_l, "m": numbers_m, "n": numbers_n, "o": numbers_o, "p": numbers_p,
    "q": numbers_q, "r": numbers_r, "s": numbers_s, "t": numbers_t, "u": numbers_u, "v": numbers_v,
    "w": numbers_w, "x": numbers_x, "y": numbers_y, "z": numbers_z}
#: Claims about SSthreshless Start, judged again with the 10 ms tick (the others are about slow start).
ABOUT_SLS = set("abcdefhqrstwyz")
#: Claims about SSthreshless Start's own parameter γ (Table II's sweep).
ABOUT_GAMMA = set("dqr")
#: The claims a ``--with`` startup is judged on in SSthreshless Start's place: those about
#: SSthreshless Start but its γ's, which a startup of the user's does not have.
ABOUT_A_STARTUP = ABOUT_SLS - ABOUT_GAMMA
#: Claims judged again behind today's bottleneck (reading fq-codel+ecn): those on the
#: experiments it reruns, Table I, Table III and the buffer sweep.
BEHIND_TODAYS_QUEUE = set("aghjklmstuv")


def claim_rules() -> list[ClaimRule]:
    """Claims (a)-(z): the paper's words (data/ssthreshless.toml), our rule and its check."""
    words = DATA["claim"]
    return [ClaimRule(c, words[c]["statement"], words[c]["paper"], RULES[c], CHECKS[c], NUMBERS[c]) for c in RULES]


#: Then and now (`then_now`): claims (a)-(c) compare utilization over their sweeps, and (a)
#: once more behind today's bottleneck (reading fq-codel+ecn), which reruns the buffer sweep.
THEN_NOW = [Row(c, "utilization (%)", U, False, {"exp": sweep}, unit={"buffer": "pkts", "delay": "ms", "rate": "Mb/s"}[sweep], fmt="{:.1f}")
            for c, (sweep, _, _) in SWEEP_CLAIMS.items()] + \
    [Row("a", "utilization (%) behind FQ-CoDel with ECN", U, False, {"exp": "buffer", "reading": TODAY}, unit="pkts", fmt="{:.1f}")]
