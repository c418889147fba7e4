"""Paper 001 (Lu, Zhang, Fu & Foh, "SSthreshless Start"): §II and §V, Tables I-VII, Figures 2-10.

`rampup reproduce ssthreshless` re-runs every table and figure of the paper for NewReno with
SSthreshless Start and its baselines, writes the data, one figure per paper figure, every table
beside the paper's numbers (`paper.PAPER`, as printed) and a verdict per claim of SPEC.md §001.

Set-up (SPEC.md §001, reconstructed: the extracted text lost its numbers)::

    s_i --1 Gb/s, 1 ms-- left ==40 Mb/s, 48 ms, drop-tail B packets== right --1 Gb/s, 1 ms-- r_i

Base RTT 100 ms, 1000-byte segments + 40 B header, 40-byte ACKs, BDP = rate x base RTT / 1000 B
= 500 packets, B = BDP/2 = 250 unless an experiment says otherwise; one bulk flow, 10 s; link
utilization = bytes delivered in order / (capacity x 10 s). Every flow starts at a uniform random
time in [0, 10 ms] (``start_jitter``, drawn from the run's seed), so seeds matter; every number is
the mean over seeds with a 90% Student-t confidence interval.

Readings. The paper ran ns-2.34 and does not say how its agents were configured. Two readings of
the TCP around every scheme are run everywhere (`READINGS`):

- ``main`` (primary): rampup's defaults: the receiver ACKs every segment, no window cap, RFC 5681
  loss response.
- ``ns2``: what ns-2 needs to give the paper's Table I (SPEC §001): delayed-ACK receiver (every
  2nd segment, 100 ms timer), window cap (ns-2's ``window_``) = the initial ssthresh for the
  slow-start schemes SS (S/A/L), ns-2's loss response (``loss_window = "cwnd"``,
  ``rto_in_recovery = "halve"``), LSS as ns-2's ``opencwnd`` applies it (``rule = "ns2"``:
  above ssthresh again after a timeout), and ns-2's RTT estimator and RTO on its 10 ms clock
  (``rto_rule = "ns2"``, single_flow.tcl's initial RTO 3 s and maximum 60 s).

Table I also runs the two other corners of ACK policy x window cap. SSthreshless Start runs with
both RTT readings of docs/ssthreshless.md: exact samples ("SLS", primary) and RTT rounded to
ns-2's 10 ms TCP tick ("SLS (10 ms tick)"). Vegas is ns-2's Vegas (``cc = { kind = "vegas",
rtt = "mean", slow_start_exit = "eighth" }``) in both readings, since the paper's Vegas is ns-2's.

Claims are judged by the explicit rules in `claims.CLAIM_RULES` (printed in the report), never by hand:
each claim is a list of checks on the data; all pass: holds; at least three quarters: partly; fewer: does
not hold. The primary verdict uses reading ``main`` and SLS with exact RTT; the verdicts with the
10 ms tick and with reading ``ns2`` are given in the reason.

Then and now: HyStart++ and SEARCH over NewReno, CUBIC with HyStart and BBR (`runs.MODERN`) run on
Table I and the three throughput sweeps in reading ``main``; the report compares SLS with each on
claims (a)-(c) (`then_now`).

The modules, in the order a run goes through them: `runs` (schemes, readings, the dumbbell and
every run of every experiment), `metrics` (what a run measures), `paper` (the paper's numbers,
from ``data/ssthreshless.toml``), `claims` (checks), `tables` and `report` (the `Experiment`
and its report's sections).
"""

from __future__ import annotations

from pathlib import Path

from ..context import Context
from ..framework import DOCS_TABLE
from ..framework import reproduce as _reproduce
from .metrics import acked_at, jain
from .report import Ssthreshless
from .runs import MODERN, READINGS, SCHEMES, SWEEP_SCHEMES, Net, scenario, tcp_for

__all__ = ["DOCS_TABLE", "MODERN", "READINGS", "SCHEMES", "SWEEP_SCHEMES", "Net", "Ssthreshless", "acked_at", "jain",
           "reproduce", "scenario", "tcp_for"]


def reproduce(ctx: Context) -> tuple[Path, Path]:
    """Every run of the reproduction, then its report: (report.md, report.html)."""
    return _reproduce(Ssthreshless(), ctx)
