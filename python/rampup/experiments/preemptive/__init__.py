"""Paper 002 (Tarr & Ghita, "Preemptive Retransmission"): §7.

`rampup reproduce preemptive` re-runs the paper's simulations: PackMime-HTTP web traffic
across a 5 Mb/s bottleneck, Full-TCP Reno with and without Preemptive Retransmission, over
the delay and load of Fig. 6 and the multiplication factor and cut-out of §7.2, and judges
each claim of SPEC.md §002 by explicit rules (`claims`).

Set-up::

    s0 (client cloud) --100 Mb/s, 0 ms-- left ==5 Mb/s, 10 ms, DropTail 50== right --100 Mb/s, 0 ms-- r0 (server cloud)

The modules: `runs` (schemes, the scenario, sweeps), `claims` (checks) and `report` (the
`Experiment`: what a run measures and the report's sections).
"""

from __future__ import annotations

from pathlib import Path

from ..context import Context
from ..framework import DOCS_TABLE
from ..framework import reproduce as _reproduce
from .report import Preemptive
from .runs import SCHEMES, Setup, scenario

__all__ = ["DOCS_TABLE", "SCHEMES", "Preemptive", "Setup", "reproduce", "scenario"]


def reproduce(ctx: Context) -> tuple[Path, Path]:
    """Every run of the reproduction, then its report: (report.md, report.html)."""
    return _reproduce(Preemptive(), ctx)
