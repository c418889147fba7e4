"""Whether the stacks of a testbed table agree (docs/testbed.md): for each case, flow and pair
of stacks that should give the same numbers, one line that sets each quantity beside the
other's and says whether it is within its tolerance.

The pairs are the testbed's two acceptance comparisons: the simulator against the kernel (the
same path and segments, a model against a real stack), and rampup-udp against the simulator
(udp) (the same TCP code and segments, a real path against the model of it). The second of a
pair is the reference a difference is taken against.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

__all__ = ["COUNT_TOLERANCE", "HEADER", "PAIRS", "TIME_TOLERANCE", "Tolerance", "agreement_lines", "means"]

#: (stack, reference) pairs that should agree.
PAIRS = (("simulator", "kernel"), ("rampup-udp", "simulator (udp)"))


@dataclass(frozen=True)
class Tolerance:
    """A difference is within tolerance when it is at most ``relative`` of the reference or
    ``absolute`` (in the quantity's unit), whichever is larger."""

    relative: float
    absolute: float

    def allows(self, value: float, reference: float) -> bool:
        return abs(value - reference) <= max(self.relative * abs(reference), self.absolute)

    def describe(self, unit: str) -> str:
        return f"{self.relative:.0%} or {self.absolute:g}{unit}"


#: A transfer's time: 3 %, the simulator's largest difference from the kernel in the unpaced
#: cells of bulk and restart (docs/testbed.md), or 5 ms for short transfers: the delay line
#: releases a frame 3-4 ms late at worst.
TIME_TOLERANCE = Tolerance(relative=0.03, absolute=5.0)
#: Retransmissions and drops: 10 %, or 2 segments: where a burst overflows the queue, a
#: segment's timing on the real path moves the count by one or two.
COUNT_TOLERANCE = Tolerance(relative=0.10, absolute=2.0)

#: What precedes the lines.
HEADER = (f"Agreement (transfer times within {TIME_TOLERANCE.describe(' ms')}, retransmits and drops within "
          f"{COUNT_TOLERANCE.describe('')}):")

_KEYS = ["case", "stack", "flow"]


def means(rows: pd.DataFrame) -> pd.DataFrame:
    """Each (case, stack, flow)'s means over its runs, in the table's order, and its number
    of runs (``runs``)."""
    groups = rows.groupby(_KEYS, sort=False)
    numbers = [c for c in rows.columns if c not in (*_KEYS, "rep")]
    return groups[numbers].mean().assign(runs=groups.size())


def _transfers(table: pd.DataFrame) -> list[str]:
    return sorted((c for c in table.columns if c.startswith("transfer") and c.endswith("_ms")), key=lambda c: int(c[8:-3]))


def agreement_lines(table: pd.DataFrame) -> list[str]:
    """One line per case, flow and pair of `PAIRS` that both ran, for a table of `means`:
    each transfer's time, the retransmissions and the drops of the one stack against the
    other's, and "agrees", or "differs" with what is beyond its tolerance. Quantities that
    either stack lacks (NaN) are left out."""
    quantities = [(c, c.removesuffix("_ms"), " ms", TIME_TOLERANCE) for c in _transfers(table)]
    quantities += [(c, c, "", COUNT_TOLERANCE) for c in ("retransmits", "drops") if c in table.columns]
    flows = table.index.get_level_values("flow").nunique() > 1
    lines = []
    for case, flow in dict.fromkeys((c, f) for c, _, f in table.index):
        for stack, reference in PAIRS:
            if (case, stack, flow) not in table.index or (case, reference, flow) not in table.index:
                continue
            shown, beyond = _compare(table.loc[(case, stack, flow)], table.loc[(case, reference, flow)], quantities)
            if shown:
                verdict = "agrees" if not beyond else "differs: " + ", ".join(beyond)
                where = f"{case}, flow {flow}" if flows else case
                lines.append(f"{where}: {stack} vs {reference}: {', '.join(shown)} — {verdict}")
    return lines


def _compare(a: pd.Series, b: pd.Series, quantities: list[tuple[str, str, str, Tolerance]]) -> tuple[list[str], list[str]]:
    """Each quantity both have, ``a``'s beside ``b``'s, and those beyond their tolerance."""
    shown, beyond = [], []
    for column, name, unit, tolerance in quantities:
        x, ref = a[column], b[column]
        if pd.isna(x) or pd.isna(ref):
            continue
        if unit:
            off = f" ({(x - ref) / ref:+.1%})" if ref else ""
            shown.append(f"{name} {x:.0f} vs {ref:.0f}{unit}{off}")
        else:
            shown.append(f"{name} {x:.1f} vs {ref:.1f}")
        if not tolerance.allows(x, ref):
            by = f"{abs(x - ref) / ref:.1%}" if ref else f"{abs(x - ref):g}"
            beyond.append(f"{name} by {by} (tolerance {tolerance.describe(unit)})")
    return shown, beyond
