"""Then and now: does a paper's mechanism still beat today's default, claim by claim?

Each claim that speaks of the mechanism names a quantity and the points it is about (a
`Row`). At each point the mechanism and today's scheme are compared by their means and 90%
confidence intervals across seeds: the mechanism *beats* today's scheme where the better
mean's CI lies wholly apart from the other's, *loses* where today's is better that way, and
*ties* otherwise (one seed: the means alone). Over the claim's points:

- "still beats": beats at more than half the points and loses at none;
- "does not beat": beats at none;
- "mixed": anything else.

The counts stand beside the verdict, so a reader sees how it was reached.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from .view import View

__all__ = ["RULES", "Row", "compare", "outcome", "table", "verdict"]

BEATS, TIES, LOSES = "beats", "ties", "loses"
#: The rules above, as a report states them.
RULES = ("At each point the mechanism beats today's scheme where its mean is better and the two 90% confidence "
         "intervals across seeds lie wholly apart, loses where today's is better that way, and ties otherwise. Over a "
         "claim's points: \"still beats\" = beats at more than half and loses at none; \"does not beat\" = beats at "
         "none; \"mixed\" otherwise.")


@dataclass(frozen=True)
class Row:
    """A claim's comparison: its quantity (a column of the points, with ``<col>_ci90``), which
    way is better, and the points it is about (a sweep's tags and a filter on x)."""

    claim: str
    quantity: str
    col: str
    lower_is_better: bool
    tags: dict[str, object]
    xs: Callable[[float], bool] = lambda x: True
    unit: str = ""  # of x
    scale: float = 1.0
    fmt: str = "{:.2f}"
    #: Schemes that do not run at the row's points: a pair with one of them has no line here
    #: (any other pair without points is a fault the reproduction tests catch).
    not_run: frozenset[str] = frozenset()

    def compares(self, mechanism: str, today: str) -> bool:
        return mechanism not in self.not_run and today not in self.not_run


def outcome(mine: float, mine_ci: float, theirs: float, theirs_ci: float, lower_is_better: bool) -> str:
    """The mechanism's mean against today's at one point: beats, ties or loses."""
    ci = [0.0 if pd.isna(c) else c for c in (mine_ci, theirs_ci)]
    sign = 1.0 if lower_is_better else -1.0
    a, b = sign * mine, sign * theirs
    if a + ci[0] < b - ci[1]:
        return BEATS
    if b + ci[1] < a - ci[0]:
        return LOSES
    return TIES


def verdict(outcomes: Sequence[str]) -> str:
    beats, loses = outcomes.count(BEATS), outcomes.count(LOSES)
    if beats > len(outcomes) / 2 and loses == 0:
        return "still beats"
    return "does not beat" if beats == 0 else "mixed"


def compare(v: View, row: Row, mechanism: str, today: str) -> tuple[list[float], list[str]]:
    """The claim's points and the outcome at each."""
    m, t = v.of(mechanism, **row.tags), v.of(today, **row.tags)
    xs = [x for x in m.index if row.xs(x) and x in t.index]
    ci = f"{row.col}_ci90"
    return xs, [outcome(m.at[x, row.col], m.at[x, ci], t.at[x, row.col], t.at[x, ci], row.lower_is_better) for x in xs]


def _span(p: pd.DataFrame, row: Row, xs: Sequence[float]) -> str:
    vals = [p.at[x, row.col] * row.scale for x in xs]
    lo, hi = min(vals), max(vals)
    return row.fmt.format(lo) if row.fmt.format(lo) == row.fmt.format(hi) else f"{row.fmt.format(lo)}-{row.fmt.format(hi)}"


def table(v: View, rows: Sequence[Row], pairs: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """One line per claim and (mechanism, today's scheme) pair: the quantity over the claim's
    points (its range) for each, the outcomes and the verdict."""
    out = []
    for row in rows:
        for mechanism, today in (p for p in pairs if row.compares(*p)):
            xs, outs = compare(v, row, mechanism, today)
            if not xs:
                continue
            out.append({
                "claim": row.claim, "quantity": row.quantity,
                "points": f"{min(xs):g}-{max(xs):g} {row.unit}".strip() if len(xs) > 1 else f"{xs[0]:g} {row.unit}".strip(),
                "scheme": mechanism, "its": _span(v.of(mechanism, **row.tags), row, xs),
                "against": today, "today's": _span(v.of(today, **row.tags), row, xs),
                "beats / ties / loses": f"{outs.count(BEATS)} / {outs.count(TIES)} / {outs.count(LOSES)}",
                "verdict": verdict(outs),
            })
    return pd.DataFrame(out)
