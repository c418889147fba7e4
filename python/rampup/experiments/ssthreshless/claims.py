"""The claims of SPEC.md §001 as explicit checks on the points, and their verdicts.

Each tolerance comes from the paper's words and is printed in the report beside the paper's
value and ours: two-sided where the words are ("about 80%", "converge to the same", HC and SLS
both "scale well"), one-sided where they are ("high", "below 30%", "degrade", "recovers").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ..checks import Check, by_part, count, verdict
from .metrics import points_of
from .paper import TABLE2_GAMMAS, paper
from .runs import HC, LSS, MAIN, NS2, SLS, SLS_TICK, SS_A, SS_L, SS_S, SWEEP_SCHEMES, VEGAS

HIGH = 70.0  # "high throughput in all the test cases": SLS's utilization >= 70% (the paper's: 74-85%)
NOT_BEATEN = 5.0  # "where the others degrade": none of them more than 5 pp above SLS
AHEAD = 110.0  # a printed throughput ratio >= 110%: the paper has SLS ahead, and so must ours be
PARITY = (90.0, 110.0)  # a printed ratio below 110% (HC in Tables V, VI: both "scale well"): within 10% either way
FLAT = (5.0, 10.0)  # γ: spread of the three Table II values <= 5 pp; of all swept values <= 10 pp
UDP_LEFTOVER = 0.70  # during the burst [2, 5] s SLS gets >= 70% of the capacity left (40 - 10 Mb/s)
UDP_RECOVER = 0.80  # after it [6, 10] s SLS gets >= 80% of the capacity
UDP_GAIN = 150.0  # over the run SLS delivers >= 150% of SS (S)'s and of Vegas' ("almost two times")
FAIR_JAIN = 0.90  # Jain's index of the five flows' goodput over the last third >= 0.9
FAIR_SHARE = (0.75, 1.25)  # "converge to the same window size": each slow-start flow within 25% of the fair share
CATCH_UP = 0.50  # the late flow's mean cwnd 10-20 s after its start >= 50% of the others'
TABLE1_FACTOR = 2.0  # "affects greatly": SS (A) delivers >= 2x SS (L) and SS (S) (the paper: 8x and 14x)
LOW = 30.0  # Table III: "Slow Start and Vegas utilize below 30%"
ABOUT_80 = (70.0, 90.0)  # Table III: SLS "as high as" 80.30%, read as about 80%: within 10 pp either way

#: The sweep, the paper's table and its x for claims (a)-(c).
SWEEP_CLAIMS = {"a": ("buffer", "IV", 50.0), "b": ("delay", "V", 100.0), "c": ("rate", "VI", 150.0)}

CLAIM_RULES = [
    ("a", "SSthreshless Start reaches high utilization across buffer sizes (BDP/10 to BDP), where the others "
          "degrade (Fig. 6, Table IV).",
     f"for each buffer: SLS ≥ {HIGH:g}% (high), and none of the others more than {NOT_BEATEN:g} pp above SLS (the "
     f"others: the schemes the paper's table has SLS ahead of, ratio ≥ {AHEAD:g}%: here all six); at the Table IV "
     f"point (buffer 50), for each scheme of the paper's table: where its throughput ratio is ≥ {AHEAD:g}% "
     f"(SLS ahead), ours ≥ {AHEAD:g}%, else (parity) ours within {PARITY[0]:g}-{PARITY[1]:g}%, either way."),
    ("b", "… across bottleneck one-way delays (10 to 100 ms, buffer BDP/2), where the others degrade (Fig. 7, "
          "Table V).",
     "as (a), per delay, ratios at 100 ms (Table V); the others are LSS, SS (S), SS (L) and Vegas: the paper "
     "says HC scales as SLS does (ratio 96.7%), so HC is held to parity, not to degrading."),
    ("c", "… across bottleneck bandwidths (10 to 150 Mb/s, buffer BDP/2), where the others degrade (Fig. 8, "
          "Table VI).",
     "as (a), per bandwidth, ratios at 150 Mb/s (Table VI); the others are LSS, SS (S), SS (L) and Vegas, HC "
     "is held to parity (ratio 91.45%)."),
    ("d", "SSthreshless Start is insensitive to γ (Table II: 82-85% for three values, Fig. 4).",
     f"spread (max − min of mean utilization) over γ = 1, 3, 10 ≤ {FLAT[0]:g} pp; over every γ swept "
     f"(1-30) ≤ {FLAT[1]:g} pp."),
    ("e", "It adapts to the 10 Mb/s UDP burst (1-5 s) and recovers after it (Fig. 9, Table VII).",
     f"SLS's goodput during [2, 5] s ≥ {UDP_LEFTOVER:.0%} of the 30 Mb/s left; no timeout in any seed; "
     f"goodput during [6, 10] s ≥ {UDP_RECOVER:.0%} of 40 Mb/s; over 10 s ≥ {UDP_GAIN:g}% of SS (S)'s and "
     f"of Vegas' (one-sided: the paper's own ratios, 264% and 313%, are above its words \"almost two times\")."),
    ("f", "It shares fairly with NewReno slow-start flows; a late SSthreshless flow catches up (Fig. 10).",
     f"Jain's index of the five flows' goodput over the last third of the run ≥ {FAIR_JAIN:g}; each "
     f"slow-start flow's goodput there within {FAIR_SHARE[0]:g}-{FAIR_SHARE[1]:g} of the fair share, either way "
     f"(\"converge to the same window size\"); the late flow's mean cwnd 10-20 s after its start ≥ "
     f"{CATCH_UP:.0%} of the other flows' mean."),
    ("g", "An inadequate initial ssthresh greatly hurts slow start: SS (A) far above SS (L) and SS (S) "
          "(Table I, Fig. 2).",
     f"SS (A)'s mean utilization ≥ {TABLE1_FACTOR:g}× SS (L)'s and ≥ {TABLE1_FACTOR:g}× SS (S)'s."),
    ("h", "With buffer 200 (0.4 BDP), SSthreshless Start gets about 80% while slow start with ssthresh = BDP "
          "and Vegas stay below 30% (Table III, Fig. 5).",
     f"SLS within {ABOUT_80[0]:g}-{ABOUT_80[1]:g}% (\"about 80%\" is two-sided); SS (A) < {LOW:g}%; Vegas < {LOW:g}%."),
    ("i", "Even ssthresh = BDP overshoots a buffer of 0.2 BDP: losses, failed fast recovery, a timeout (Fig. 3).",
     "SS (A) with buffer 100: drops > 0 and at least one timeout in every seed."),
]


def checks_of(points: pd.DataFrame, claim: str, reading: str, sls: str) -> list[Check]:
    """The checks of one claim in one reading, with `sls` standing for SSthreshless Start."""
    u = "util_pct"
    out: list[Check] = []

    def add(part: str, x: float, ours: float, ok: bool, quantity: str, paper_says: str, tolerance: str) -> None:
        out.append(Check(part, x, bool(ok), quantity, paper_says, float(ours), tolerance))

    def pt(exp: str, scheme: str) -> pd.DataFrame:
        return points_of(points, exp, reading, scheme)

    if claim in SWEEP_CLAIMS:
        sw_name, table, tx = SWEEP_CLAIMS[claim]
        s = pt(sw_name, sls)
        rivals = {k: pt(sw_name, k) for k in SWEEP_SCHEMES if k not in (SLS, SLS_TICK)}
        # "The others" that degrade: the schemes the paper's table has SLS clearly ahead of.
        others = {k: o for k, o in rivals.items() if (paper(table, k, 2) or 0) >= AHEAD}
        for x in s.index:
            add("SLS high", x, s.at[x, u], s.at[x, u] >= HIGH, "SLS utilization (%)", "high: 74-85", f"≥ {HIGH:g}")
            best = max(o.at[x, u] for o in others.values() if x in o.index)
            add("none of the others clearly above SLS", x, best - s.at[x, u], s.at[x, u] >= best - NOT_BEATEN,
                f"best of {', '.join(others)} − SLS, utilization (pp)", "the others degrade: < 0",
                f"≤ {NOT_BEATEN:g}")
        if tx in s.index:
            for k, o in rivals.items():
                pr = paper(table, k, 2)
                if pr is None or tx not in o.index:
                    continue
                ratio = 100.0 * s.at[tx, u] / o.at[tx, u] if o.at[tx, u] > 0 else math.inf
                if pr >= AHEAD:
                    add(f"ratio vs {k}", tx, ratio, ratio >= AHEAD, f"SLS/{k} throughput (%)", f"{pr:.0f}: SLS ahead",
                        f"≥ {AHEAD:g}")
                else:
                    add(f"ratio vs {k}", tx, ratio, PARITY[0] <= ratio <= PARITY[1], f"SLS/{k} throughput (%)",
                        f"{pr:.0f}: both scale", f"{PARITY[0]:g}-{PARITY[1]:g} (two-sided)")
    elif claim == "d":
        s = pt("II", sls)
        three = [s.at[g, u] for g in TABLE2_GAMMAS if g in s.index]
        printed = [paper("II", str(g), 0) or math.nan for g in TABLE2_GAMMAS]
        add("spread over γ 1, 3, 10", 0, max(three) - min(three), max(three) - min(three) <= FLAT[0],
            "max − min utilization over γ 1, 3, 10 (pp)",
            f"{max(printed) - min(printed):.1f} ({min(printed):.2f}-{max(printed):.2f})", f"≤ {FLAT[0]:g}")
        add("spread over all γ", 0, s[u].max() - s[u].min(), s[u].max() - s[u].min() <= FLAT[1],
            "max − min utilization over γ 1-30 (pp)", "insensitive", f"≤ {FLAT[1]:g}")
    elif claim == "e":
        p = {k: pt("VII", k) for k in (sls, SS_S, VEGAS)}
        s = p[sls].iloc[0]
        add("uses the leftover during the burst", 10, s["mbps_2_5"] / 30, s["mbps_2_5"] >= UDP_LEFTOVER * 30,
            "SLS goodput in [2, 5] s / the 30 Mb/s left", "adapts", f"≥ {UDP_LEFTOVER:g}")
        add("no timeout", 10, s["timeouts_runs"], s["timeouts_runs"] == 0, "seeds with a timeout", "none", "0")
        add("recovers after the burst", 10, s["mbps_6_10"] / 40, s["mbps_6_10"] >= UDP_RECOVER * 40,
            "SLS goodput in [6, 10] s / 40 Mb/s", "recovers", f"≥ {UDP_RECOVER:g}")
        for k in (SS_S, VEGAS):
            o = p[k].iloc[0]
            pr = 100 * (paper("VII", SLS, 3) or math.nan) / (paper("VII", k, 3) or math.nan)
            add(f"≥ {UDP_GAIN:g}% of {k}", 10, 100 * s["mbps"] / o["mbps"], 100 * s["mbps"] >= UDP_GAIN * o["mbps"],
                f"SLS/{k} goodput over 10 s (%)", f"{pr:.0f}", f"≥ {UDP_GAIN:g}")
    elif claim == "f":
        s = pt("fig10", sls).iloc[0]
        add("Jain's index", 0, s["jain_end"], s["jain_end"] >= FAIR_JAIN, "Jain's index, last third", "fair: ≈ 1",
            f"≥ {FAIR_JAIN:g}")
        for i in (1, 2):
            share = s[f"flow{i}_mbps_end"] / s["fair_share_mbps"]
            add(f"slow-start flow {i} share", 0, share, FAIR_SHARE[0] <= share <= FAIR_SHARE[1],
                f"flow {i} goodput / fair share", "≈ 1 (BDP/5 each)",
                f"{FAIR_SHARE[0]:g}-{FAIR_SHARE[1]:g} (two-sided)")
        add("late flow catches up", 0, s["late_catchup"], s["late_catchup"] >= CATCH_UP,
            "late flow's cwnd / the others', 10-20 s after its start", "reaches them quickly", f"≥ {CATCH_UP:g}")
    elif claim == "g":
        p = {k: pt("I", k).iloc[0] for k in (SS_L, SS_A, SS_S)}
        for k in (SS_L, SS_S):
            pr = (paper("I", SS_A, 0) or math.nan) / (paper("I", k, 0) or math.nan)
            add(f"SS (A) ≥ {TABLE1_FACTOR:g}× {k}", 250, p[SS_A][u] / p[k][u], p[SS_A][u] >= TABLE1_FACTOR * p[k][u],
                f"SS (A)/{k} utilization", f"{pr:.1f}", f"≥ {TABLE1_FACTOR:g}")
    elif claim == "h":
        p = {k: pt("III", k).iloc[0] for k in (sls, SS_A, VEGAS)}
        add("SLS about 80%", 200, p[sls][u], ABOUT_80[0] <= p[sls][u] <= ABOUT_80[1], "SLS utilization (%)",
            f"{paper('III', SLS, 0):.2f}", f"{ABOUT_80[0]:g}-{ABOUT_80[1]:g} (two-sided)")
        for k, name in ((SS_A, "SS (A)"), (VEGAS, "Vegas")):
            add(f"{name} low", 200, p[k][u], p[k][u] < LOW, f"{name} utilization (%)",
                f"{paper('III', k, 0):.2f}: below {LOW:g}", f"< {LOW:g}")
    elif claim == "i":
        p = pt("fig3", SS_A).iloc[0]
        add("drops", 100, p["drops"], p["drops"] > 0, "drops", "losses once cwnd passes 250", "> 0")
        add("a timeout in every seed", 100, p["timeouts_runs"] / p["seeds"], p["timeouts_runs"] == p["seeds"],
            "share of seeds with a timeout", "a timeout at about 1.3 s", "1")
    return out


def _numbers(points: pd.DataFrame, claim: str, reading: str, sls: str) -> str:
    """Our numbers for a claim, briefly."""
    u = "util_pct"

    def pt(exp: str, scheme: str) -> pd.DataFrame:
        return points_of(points, exp, reading, scheme)

    if claim in SWEEP_CLAIMS:
        sw_name = SWEEP_CLAIMS[claim][0]
        unit = {"buffer": "pkts", "delay": "ms", "rate": "Mb/s"}[sw_name]
        s = pt(sw_name, sls)
        rest = [f"{k} {pt(sw_name, k)[u].min():.0f}-{pt(sw_name, k)[u].max():.0f}%"
                for k in (HC, LSS, SS_S, SS_A, SS_L, VEGAS)]
        return (f"utilization over {s.index.min():g}-{s.index.max():g} {unit}: {sls} {s[u].min():.1f}-"
                f"{s[u].max():.1f}%; " + ", ".join(rest))
    if claim == "d":
        s = pt("II", sls)
        return "utilization by γ: " + ", ".join(f"{g:g}: {s.at[g, u]:.1f}%" for g in s.index)
    if claim == "e":
        s = pt("VII", sls).iloc[0]
        o = {k: pt("VII", k).iloc[0]["mbps"] for k in (SS_S, VEGAS)}
        return (f"{sls}: {s['mbps']:.2f} Mb/s over 10 s; [2, 5] s {s['mbps_2_5']:.1f}, [6, 10] s "
                f"{s['mbps_6_10']:.1f} Mb/s; timeouts in {int(s['timeouts_runs'])}/{int(s['seeds'])} seeds; "
                f"SS (S) {o[SS_S]:.2f}, Vegas {o[VEGAS]:.2f} Mb/s")
    if claim == "f":
        s = pt("fig10", sls).iloc[0]
        shares = ", ".join(f"{s[f'flow{i}_mbps_end']:.1f}" for i in range(1, 6))
        return (f"last third: Jain {s['jain_end']:.3f}; goodput of flows 1-5 (1-2 slow start) {shares} Mb/s; "
                f"late flow's cwnd at 10-20 s after start = {s['late_catchup']:.2f} of the others'")
    if claim == "g":
        return ", ".join(f"{k} {pt('I', k).iloc[0][u]:.1f}%" for k in (SS_L, SS_A, SS_S))
    if claim == "h":
        return ", ".join(f"{k} {pt('III', k).iloc[0][u]:.1f}%" for k in (sls, SS_A, VEGAS))
    p = pt("fig3", SS_A).iloc[0]
    return (f"SS (A), buffer 100: {p[u]:.1f}%, {p['drops']:.0f} drops, timeouts in "
            f"{int(p['timeouts_runs'])}/{int(p['seeds'])} seeds")


#: The claims table docs/ssthreshless.md shows (between its `claims` markers), written
#: beside the report; a test checks that the page has the one the full reproduction writes.
DOCS_TABLE = "claims-table.md"


def docs_table(claims: Sequence[tuple[str, str, str, str, str, list[Check], list[tuple[str, str]]]]) -> str:
    """The claims as docs/ssthreshless.md shows them: the primary verdict and the other
    readings', each with its count of checks passed."""
    labels = [label for label, _ in claims[0][6]] if claims else []
    lines = ["| claim | verdict (main, SLS exact) | " + " | ".join(labels) + " |",
             "| --- | --- | " + " | ".join("---" for _ in labels) + " |"]
    for cid, _, _, v, _, checks, alts in claims:
        by_label = dict(alts)
        lines.append(f"| ({cid}) {PAPER_CLAIM[cid]} | {v} ({count(checks)}) | "
                     + " | ".join(by_label.get(label, "") for label in labels) + " |")
    return "\n".join(lines) + "\n"


def judge(points: pd.DataFrame) -> list[tuple[str, str, str, str, str, list[Check], list[tuple[str, str]]]]:
    """(claim, statement, ours, verdict, reason, checks, [(other reading, its verdict and count)]):
    primary = reading main, SLS exact; the other readings also in the reason."""
    out = []
    for cid, statement, rule in CLAIM_RULES:
        checks = checks_of(points, cid, MAIN, SLS)
        v = verdict(checks)
        alts, others = [], []
        sls_claim = cid not in ("g", "i")
        variants = [("SLS with 10 ms tick", MAIN, SLS_TICK)] if sls_claim else []
        variants.append(("reading ns2", NS2, SLS))
        if sls_claim:
            variants.append(("reading ns2 + 10 ms tick", NS2, SLS_TICK))
        for label, reading, sls in variants:
            alt = checks_of(points, cid, reading, sls)
            alts.append(f"{label}: {verdict(alt)} ({count(alt)}; {_numbers(points, cid, reading, sls)})")
            others.append((label, f"{verdict(alt)} ({count(alt)})"))
        reason = (f"{v}: {count(checks)} checks pass ({by_part(checks)}). Rule: {rule} "
                  f"Other readings — " + "; ".join(alts) + ".")
        out.append((cid, statement, _numbers(points, cid, MAIN, SLS), v, reason, checks, others))
    return out


#: What the paper reports for each claim, in the claims tables.
PAPER_CLAIM = {
    "a": "Fig. 6 / Table IV: SLS high for every buffer; at BDP/10 SLS 74% vs 5-24%, ratios 271-1391%",
    "b": "Fig. 7 / Table V: SLS and HC scale with delay; at 100 ms SLS 83%, HC 86%, others 5-30%",
    "c": "Fig. 8 / Table VI: SLS and HC scale with bandwidth; at 150 Mb/s SLS 83%, HC 91%, others 2-52%",
    "d": "Table II: 82.15 / 83.95 / 85.39% for three γ, small to large",
    "e": "Table VII: SLS 27.73 Mb/s vs SS (S) 10.50, Vegas 8.86; SLS goes back to exponential growth after the burst",
    "f": "Fig. 10: all five converge to about BDP/5; the late flow reaches the others' state quickly",
    "g": "Table I: SS (L) 11.13%, SS (A) 87.50%, SS (S) 6.08%",
    "h": "Table III: SLS 80.30%, SS (A) 28.20%, Vegas 22.35%",
    "i": "Fig. 3: drops once cwnd passes 250, fast recovery fails, timeout at about 1.3 s",
}
