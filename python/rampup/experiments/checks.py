"""Claim verdicts from explicit checks, sub-claim by sub-claim.

Each claim of a paper becomes a list of `Check`s, one per sub-statement (``part``) and x
value. A check passes, fails, or is not tested at its point (``ok`` None): where it cannot
discriminate there (both values zero, the mechanism never acted, the quantity undefined),
and then ``note`` says why. A sub-claim's verdict comes from its tested points alone; a
claim's from its sub-claims' (`verdict`): no counting of checks across sub-claims, so a
sub-claim with many points cannot hide the failure of one with few.

A check says what it compares: the quantity, the paper's value or the bound its words give,
ours, and the tolerance. The helpers here are the rules the papers' words map to:
- `lower` / `higher`: a directional word ("faster", "fewer drops", "better") holds at a point
  only when the two 90% confidence intervals over seeds lie apart in that direction; a tie,
  or a difference inside the noise, is not "fewer";
- `about`: a printed number or ratio ("about 40%", "7.9×", "≈"), two-sided, within a stated
  relative tolerance;
- `at_least` / `at_most`: a bound the words give ("more than 8%", "below 30%").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FAILS", "HOLDS", "MEANING", "PARTLY", "PRINTED", "UNTESTED", "VERDICTS", "Check", "about", "at_least", "at_most", "by_part",
           "count", "higher", "lower", "parts", "rule_table", "sub_verdict", "verdict"]

HOLDS, PARTLY, FAILS, UNTESTED = "holds", "partly", "does not hold", "not testable here"
#: Every verdict a claim or sub-claim can have, in the order the reports list them.
VERDICTS = (HOLDS, PARTLY, FAILS, UNTESTED)
#: The share of a sub-claim's tested points that must pass for "partly" (below it: does not
#: hold). Three quarters, not half: "partly" should mean most of the points came out.
SHARE = 0.75
#: A number the paper prints (in its text or a table, or read off a figure) is matched within
#: a quarter of itself either way, unless a claim states its own tolerance.
PRINTED = 0.25
#: What the verdicts mean, as each report's verdict rules say it.
MEANING = (f"A sub-claim holds where every point it is tested at passes, partly where at least {SHARE:.0%} do, and "
           f"does not hold below that; a point where a check cannot discriminate (both values zero, the mechanism never "
           f"acted there) is not tested, and a sub-claim tested nowhere is not testable here. A claim holds when every "
           f"tested sub-claim holds, does not hold when any tested sub-claim does not hold, and is partly otherwise; "
           f"with no tested sub-claim it is not testable here. A directional word (faster, fewer, better) passes at a "
           f"point only when the two 90% confidence intervals over seeds lie apart; a number the paper prints is "
           f"checked on its magnitude, within the tolerance each check names.")


@dataclass
class Check:
    part: str  # which sub-statement of the claim
    x: float  # the point of the sweep it was checked at
    ok: bool | None  # None: not tested at x (`note` says why)
    quantity: str = ""  # what is compared, e.g. "RBP/NSSR mean elapsed"
    paper: str = ""  # the paper's value, or the bound its words give, e.g. "≈ 1"
    ours: float = float("nan")  # our value of the quantity at x
    tolerance: str = ""  # e.g. "0.85-1.15 (two-sided)"
    note: str = ""  # why the point is not tested


#: Why a point is not tested.
UNDEFINED, IDENTICAL = "undefined here", "identical here: what tells them apart never acts"


def _apart(part: str, x: float, below: float, below_ci: float, above: float, above_ci: float, quantity: str, paper: str,
           ours: float, tolerance: str) -> Check:
    """``below``'s 90% CI lies wholly below ``above``'s. Not tested where either is
    undefined, or where the two are the same to the last bit (nothing to tell apart: both
    zero, or the mechanism the claim speaks of never acted)."""
    if math.isnan(below) or math.isnan(above):
        return Check(part, x, None, quantity, paper, math.nan, tolerance, UNDEFINED)
    if below == above and below_ci == above_ci:
        return Check(part, x, None, quantity, paper, 0.0, tolerance, IDENTICAL)
    return Check(part, x, bool(below + below_ci < above - above_ci), quantity, paper, ours, tolerance)


def lower(part: str, x: float, a: float, a_ci: float, b: float, b_ci: float, quantity: str, paper: str) -> Check:
    """``a`` is lower than ``b`` at x: ``a``'s 90% CI lies wholly below ``b``'s (`_apart`)."""
    return _apart(part, x, a, a_ci, b, b_ci, quantity, paper, a - b, "< 0, 90% CIs apart")


def higher(part: str, x: float, a: float, a_ci: float, b: float, b_ci: float, quantity: str, paper: str) -> Check:
    """``a`` is higher than ``b`` at x (`_apart`; ``ours`` is a − b)."""
    return _apart(part, x, b, b_ci, a, a_ci, quantity, paper, a - b, "> 0, 90% CIs apart")


def _judged(part: str, x: float, ours: float, ok: bool, quantity: str, paper: str, tolerance: str, *also: float) -> Check:
    """A check of ``ours`` against a tolerance; not tested where ``ours``, or any value of
    ``also`` it is judged against, is undefined."""
    if any(math.isnan(v) for v in (ours, *also)):
        return Check(part, x, None, quantity, paper, ours, tolerance, UNDEFINED)
    return Check(part, x, bool(ok), quantity, paper, ours, tolerance)


def about(part: str, x: float, ours: float, target: float, quantity: str, paper: str, rel: float = PRINTED) -> Check:
    """``ours`` within ``rel`` of ``target`` either way (relative): a printed number."""
    lo, hi = sorted((target * (1 - rel), target * (1 + rel)))
    tolerance = f"{lo:.3g}-{hi:.3g} (±{rel:.0%} of {target:.3g}, two-sided)"
    return _judged(part, x, ours, lo <= ours <= hi, quantity, paper, tolerance, target)


def at_least(part: str, x: float, ours: float, bound: float, quantity: str, paper: str, strict: bool = False) -> Check:
    """``ours`` ≥ ``bound`` (> with ``strict``): a bound the paper's words give."""
    return _judged(part, x, ours, ours > bound if strict else ours >= bound, quantity, paper, f"{'>' if strict else '≥'} {bound:.3g}")


def at_most(part: str, x: float, ours: float, bound: float, quantity: str, paper: str, strict: bool = False) -> Check:
    """``ours`` ≤ ``bound`` (< with ``strict``)."""
    return _judged(part, x, ours, ours < bound if strict else ours <= bound, quantity, paper, f"{'<' if strict else '≤'} {bound:.3g}")


def parts(checks: Sequence[Check]) -> dict[str, list[Check]]:
    """The checks of each sub-claim, in the order the claim gives them."""
    out: dict[str, list[Check]] = {}
    for c in checks:
        out.setdefault(c.part, []).append(c)
    return out


def sub_verdict(checks: Sequence[Check]) -> str:
    """One sub-claim's verdict from its tested points (`MEANING`)."""
    tested = [c for c in checks if c.ok is not None]
    if not tested:
        return UNTESTED
    passed = sum(bool(c.ok) for c in tested)
    if passed == len(tested):
        return HOLDS
    return PARTLY if passed >= SHARE * len(tested) else FAILS


def verdict(checks: Sequence[Check]) -> str:
    """A claim's verdict from its sub-claims' (`MEANING`)."""
    subs = [s for s in map(sub_verdict, parts(checks).values()) if s != UNTESTED]
    if not subs:
        return UNTESTED
    if FAILS in subs:
        return FAILS
    return HOLDS if all(s == HOLDS for s in subs) else PARTLY


def count(checks: Sequence[Check]) -> str:
    """``held/tested sub-claims`` (and how many are partly true, and not testable), to show beside a verdict."""
    subs = [sub_verdict(cs) for cs in parts(checks).values()]
    tested = [s for s in subs if s != UNTESTED]
    untested = len(subs) - len(tested)
    if not tested:
        return f"{untested} sub-claims, none testable"
    partly = tested.count(PARTLY)
    return (f"{tested.count(HOLDS)}/{len(tested)} sub-claims" + (f", {partly} partly" if partly else "")
            + (f", {untested} not testable" if untested else ""))


def _where(xs: Sequence[float], unit: str) -> str:
    return ", ".join(f"{x:g}" for x in sorted(xs)) + (f" {unit}" if unit else "")


def by_part(checks: Sequence[Check], unit: str = "") -> str:
    """`part: verdict, passed/tested (fails at x, y unit; not tested at z: why)` for each sub-claim."""
    out = []
    for part, cs in parts(checks).items():
        tested = [c for c in cs if c.ok is not None]
        fails = [c.x for c in tested if not c.ok]
        notes = {c.note for c in cs if c.ok is None}
        tail = []
        if fails and len(cs) > 1:
            tail.append(f"fails at {_where(fails, unit)}")
        if len(tested) < len(cs):
            tail.append(f"not tested at {_where([c.x for c in cs if c.ok is None], unit)}: {'; '.join(sorted(notes))}")
        out.append(f"{part}: {sub_verdict(cs)}, {sum(bool(c.ok) for c in tested)}/{len(tested)}"
                   + (f" ({'; '.join(tail)})" if tail else ""))
    return "; ".join(out)


def rule_table(checks: Sequence[Check]) -> list[dict[str, str]]:
    """One row per sub-claim: its quantity, the paper's value, the tolerance, ours (the range
    over the points checked), its verdict and how many tested points pass."""
    rows = []
    for part, cs in parts(checks).items():
        values = [c.ours for c in cs if c.ours == c.ours]  # not NaN
        lo, hi = (min(values), max(values)) if values else (None, None)
        ours = "" if lo is None else f"{lo:.3g}" if lo == hi else f"{lo:.3g} to {hi:.3g}"
        tested = [c for c in cs if c.ok is not None]
        rows.append({"check": part, "quantity": cs[0].quantity, "paper": cs[0].paper, "tolerance": cs[0].tolerance,
                     "ours": ours, "verdict": sub_verdict(cs), "passed": f"{sum(bool(c.ok) for c in tested)}/{len(tested)}"})
    return rows
