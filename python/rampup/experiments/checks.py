"""Claim verdicts from explicit checks: each claim of a paper becomes a list of `Check`s,
one per sub-statement and x value; the verdict counts how many pass.

A check says what it compares: the quantity, the paper's value or the bound its words give,
ours, and the tolerance, two-sided where the paper's words are ("about as fast", "≈"),
one-sided where they are ("faster", "few").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MEANING", "PARTLY", "Check", "by_part", "count", "rule_table", "verdict"]

#: The share of checks that must pass for "partly" (below it: does not hold). Three quarters,
#: not half: "partly" should mean most of the claim came out, with the count beside it saying
#: how much.
PARTLY = 0.75
#: What the verdicts mean, as each report's verdict rules say it.
MEANING = (f"Verdicts: holds = every check passes; partly = at least {PARTLY:.0%} of the checks pass, not all; "
           f"does not hold = fewer than {PARTLY:.0%} pass.")


@dataclass
class Check:
    part: str  # which sub-statement of the claim
    x: float  # the point of the sweep it was checked at
    ok: bool
    quantity: str = ""  # what is compared, e.g. "RBP/NSSR mean elapsed"
    paper: str = ""  # the paper's value, or the bound its words give, e.g. "≈ 1"
    ours: float = float("nan")  # our value of the quantity at x
    tolerance: str = ""  # e.g. "0.85-1.15 (two-sided)"


def verdict(checks: Sequence[Check]) -> str:
    """Every check passes: holds; at least `PARTLY` of them: partly; fewer (or none to
    check): does not hold."""
    if not checks:
        return "does not hold"
    passed = sum(c.ok for c in checks)
    if passed == len(checks):
        return "holds"
    return "partly" if passed >= PARTLY * len(checks) else "does not hold"


def count(checks: Sequence[Check]) -> str:
    """``passed/total``, to show beside a verdict."""
    return f"{sum(c.ok for c in checks)}/{len(checks)}"


def by_part(checks: Sequence[Check], unit: str = "") -> str:
    """`part: passed/total (fails at x, y unit)` for each sub-statement."""
    parts: dict[str, list[Check]] = {}
    for c in checks:
        parts.setdefault(c.part, []).append(c)
    out = []
    for part, cs in parts.items():
        ok = sum(c.ok for c in cs)
        fails = sorted(c.x for c in cs if not c.ok)
        where = ", ".join(f"{x:g}" for x in fails) + (f" {unit}" if unit else "")
        tail = f" (fails at {where})" if fails and len(cs) > 1 else ""
        out.append(f"{part}: {ok}/{len(cs)}{tail}")
    return "; ".join(out)


def rule_table(checks: Sequence[Check]) -> list[dict[str, str]]:
    """One row per sub-statement: its quantity, the paper's value, the tolerance, ours (the
    range over the points checked) and how many points pass."""
    parts: dict[str, list[Check]] = {}
    for c in checks:
        parts.setdefault(c.part, []).append(c)
    rows = []
    for part, cs in parts.items():
        values = [c.ours for c in cs if c.ours == c.ours]  # not NaN
        lo, hi = (min(values), max(values)) if values else (None, None)
        ours = "" if lo is None else f"{lo:.3g}" if lo == hi else f"{lo:.3g} to {hi:.3g}"
        rows.append({"check": part, "quantity": cs[0].quantity, "paper": cs[0].paper, "tolerance": cs[0].tolerance,
                     "ours": ours, "passed": count(cs)})
    return rows
