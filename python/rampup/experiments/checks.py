"""Claim verdicts from explicit checks: each claim of a paper becomes a list of `Check`s,
one per sub-statement and x value; the verdict counts how many pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Check", "by_part", "verdict"]


@dataclass
class Check:
    part: str  # which sub-statement of the claim
    x: float  # the point of the sweep it was checked at
    ok: bool


def verdict(checks: Sequence[Check]) -> str:
    """All checks pass: holds; at least half: partly; fewer (or none to check): does not hold."""
    if not checks:
        return "does not hold"
    passed = sum(c.ok for c in checks)
    if passed == len(checks):
        return "holds"
    return "partly" if passed >= len(checks) / 2 else "does not hold"


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
