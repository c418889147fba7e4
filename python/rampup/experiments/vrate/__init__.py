"""Paper 004 (Guedes & Peterson, "Improving the Performance of Cooperating TCP Connections"):
§5's LAN experiments.

`rampup reproduce vrate` re-runs Fig. 1 (the stall), Fig. 4 and 5 (an OC-12 client reading
from and writing to n = 1…8 100baseT servers, with Linux-style pacing beside vrate) and Fig. 6
(all 100baseT, one client and two), btcp (4.4BSD's TCP) against vrate (the layer in
crates/sim/src/vrate.rs), and judges each claim of SPEC.md §004 by explicit rules (`claims`).

The modules: `striped` (the striped request and its measure), `runs` (the stacks, the cases,
one run's scenario), `claims` (checks) and `report` (the `Experiment`).
"""

from __future__ import annotations

from pathlib import Path

from ..context import Context
from ..framework import DOCS_TABLE
from ..framework import reproduce as _reproduce
from .report import Vrate
from .striped import Striped, request_rows, requests

__all__ = ["DOCS_TABLE", "Striped", "Vrate", "reproduce", "request_rows", "requests"]


def reproduce(ctx: Context) -> tuple[Path, Path]:
    """Every run of the reproduction, then its report: (report.md, report.html)."""
    return _reproduce(Vrate(), ctx)
