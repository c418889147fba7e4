"""Paper 003 (Sathiaseelan, Secchi & Fairhurst, "Enhancing TCP to Support Rate-Limited
Traffic"): §4.

`rampup reproduce newcwv` re-runs the paper's simulations: 512 kb/s rate-limited sources over
a 100 Mb/s path with 100 ms one way, pausing or slowing to 12 kb/s for 5 s while the
bottleneck falls to 2 Mb/s, under standard TCP, TCP-CWV, new-CWV (its three loss responses,
and RFC 7661's form) and padding; and one flow on a clean path (Fig. 2/3). Each claim of
SPEC.md §003 is judged by explicit rules (`claims`).

Set-up::

    s0..sN --100 Mb/s, 0 ms-- left ==100 Mb/s (2 Mb/s from 28 s), 100 ms, one BDP== right --100 Mb/s, 0 ms-- r0..rN

The modules: `runs` (schemes, the scenario, sweeps), `claims` (checks) and `report` (the
`Experiment`: what a run measures and the report's sections).
"""

from __future__ import annotations

from pathlib import Path

from ..context import Context
from ..framework import DOCS_TABLE
from ..framework import reproduce as _reproduce
from .report import NewCwv
from .runs import SCHEMES, Setup, scenario

__all__ = ["DOCS_TABLE", "SCHEMES", "NewCwv", "Setup", "reproduce", "scenario"]


def reproduce(ctx: Context) -> tuple[Path, Path]:
    """Every run of the reproduction, then its report: (report.md, report.html)."""
    return _reproduce(NewCwv(), ctx)
