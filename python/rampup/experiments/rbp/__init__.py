"""Paper 000 (Visweswaraiah & Heidemann, "Improving restart of idle TCP connections"): §4.

`rampup reproduce rbp` re-runs Figures 6-10 for the paper's four schemes and RBP/cwnd,
writes their data, one figure per paper figure and a verdict per claim of SPEC.md §000.

Set-up (paper §4.1, the authors' ``tcl/ex/rbp_demo.tcl``)::

    c0..c9 --10 Mb/s, 1 ms-- CR ==800 kb/s, delay, drop-tail queue== SR --10 Mb/s, 1 ms-- server

One persistent connection per client, the server sending. Ten rounds: in each, the server
writes B bytes to every client at a time drawn uniformly within ±1.5 s of the round's centre;
centres 120 s apart. The start times come from ``numpy.random.default_rng(seed)``, so a
seed's schedule is the same for every scheme, burst size and delay (common random numbers).
TCP as in ns 2.0b17, which the paper used (`profiles.NS2_0B17`). Drop-tail limits are in
bytes on the wire (1000 payload + 40 header: a 10 KB queue holds 9 data packets, a 24 KB
queue 23).

Metrics per transfer (the engine's ``transfers`` table): elapsed time from the write to the
ACK of its last byte, the flow's data packets dropped meanwhile, and retransmissions. Round 1
(transfer index 0) is the connection's startup; rounds 2-10 are restarts after 120 s idle.
A figure point is the mean over seeds of each seed's mean over its 90 restarts, with a 90%
confidence interval across seeds; round 1 is reported separately.

Claims are judged by the explicit rules in `claims` (documented in the report), never by
hand. The modules: `runs` (schemes, the scenario, sweeps, variants), `claims` (checks) and
`report` (the `Experiment`: what a run measures and the report's sections).
"""

from __future__ import annotations

from pathlib import Path

from ..context import Context
from ..framework import DOCS_TABLE
from ..framework import reproduce as _reproduce
from .report import Rbp
from .runs import SCHEMES, Setup, scenario, start_times

__all__ = ["DOCS_TABLE", "SCHEMES", "Rbp", "Setup", "reproduce", "scenario", "start_times"]


def reproduce(ctx: Context) -> tuple[Path, Path]:
    """Every run of the reproduction, then its report: (report.md, report.html)."""
    return _reproduce(Rbp(), ctx)
