"""The lines under a testbed table that say whether the stacks that should agree do
(`rampup.testbed.agreement`), on tables made up here: no root, no path."""

from __future__ import annotations

from typing import Any

import pandas as pd

from rampup.testbed.agreement import COUNT_TOLERANCE, HEADER, TIME_TOLERANCE, agreement_lines, means


def _row(case: str, stack: str, transfers: tuple[float, ...], drops: float, rep: int = 1, flow: int = 1) -> dict[str, Any]:
    """A row as `testbed.experiments` makes one (one connection of one run)."""
    return {"case": case, "stack": stack, "rep": rep, "flow": flow, "ms": sum(transfers) + 5000.0, "goodput_mbps": 0.5,
            **{f"transfer{i + 1}_ms": t for i, t in enumerate(transfers)}, "retransmits": drops, "timeouts": 0, "drops": drops}


def test_a_pair_within_its_tolerances_agrees_and_one_beyond_differs_by_what_is_off() -> None:
    rows = [
        _row("IW 4, NSSR", "kernel", (377.0, 650.0), 9.0),
        _row("IW 4, NSSR", "kernel", (377.0, 646.0), 9.0, rep=2),
        _row("IW 4, NSSR", "rampup-udp", (379.0, 1129.0), 10.0),
        _row("IW 4, NSSR", "simulator", (376.0, 640.0), 9.0),
        _row("IW 4, NSSR", "simulator (udp)", (378.0, 993.0), 10.0),
        _row("IW 4, NSSR + pacing", "kernel", (378.0, 483.0), 7.0),
        _row("IW 4, NSSR + pacing", "simulator", (376.0, 576.0), 6.0),
    ]
    lines = agreement_lines(means(pd.DataFrame(rows)))
    assert lines == [
        "IW 4, NSSR: simulator vs kernel: transfer1 376 vs 377 ms (-0.3%), transfer2 640 vs 648 ms (-1.2%), "
        "retransmits 9.0 vs 9.0, drops 9.0 vs 9.0 — agrees",
        "IW 4, NSSR: rampup-udp vs simulator (udp): transfer1 379 vs 378 ms (+0.3%), transfer2 1129 vs 993 ms (+13.7%), "
        "retransmits 10.0 vs 10.0, drops 10.0 vs 10.0 — differs: transfer2 by 13.7% (tolerance 3% or 5 ms)",
        # Only the pair that ran: no rampup-udp here.
        "IW 4, NSSR + pacing: simulator vs kernel: transfer1 376 vs 378 ms (-0.5%), transfer2 576 vs 483 ms (+19.3%), "
        "retransmits 6.0 vs 7.0, drops 6.0 vs 7.0 — differs: transfer2 by 19.3% (tolerance 3% or 5 ms)",
    ]
    assert "3% or 5 ms" in HEADER and "10% or 2" in HEADER


def test_the_tolerances_are_relative_with_an_absolute_floor() -> None:
    # 3 % of 1,000 ms is 30 ms; of 100 ms, 3 ms, below the 5 ms floor.
    assert TIME_TOLERANCE.allows(1030.0, 1000.0) and not TIME_TOLERANCE.allows(1031.0, 1000.0)
    assert TIME_TOLERANCE.allows(105.0, 100.0) and not TIME_TOLERANCE.allows(106.0, 100.0)
    # Counts: 2 segments, or 10 % of many.
    assert COUNT_TOLERANCE.allows(2.0, 0.0) and not COUNT_TOLERANCE.allows(3.0, 0.0)
    assert COUNT_TOLERANCE.allows(610.0, 556.0) and not COUNT_TOLERANCE.allows(160.0, 98.0)


def test_flows_are_named_when_there_are_several_and_a_zero_reference_differs_by_a_count() -> None:
    rows = [_row("cubic", stack, (7100.0 if stack == "kernel" else 7438.0,), drops, flow=flow)
            for flow in (1, 2) for stack, drops in (("kernel", 34.3), ("simulator", 41.0))]
    rows += [_row("cubic", "rampup-udp", (4700.0,), 5.0), _row("cubic", "simulator (udp)", (4720.0,), 0.0)]
    lines = agreement_lines(means(pd.DataFrame(rows)))
    assert [line.split(": ")[:2] for line in lines] == [
        ["cubic, flow 1", "simulator vs kernel"], ["cubic, flow 1", "rampup-udp vs simulator (udp)"], ["cubic, flow 2", "simulator vs kernel"]]
    assert lines[1].endswith("— differs: retransmits by 5 (tolerance 10% or 2), drops by 5 (tolerance 10% or 2)"), lines[1]
    assert "transfer1 7438 vs 7100 ms (+4.8%)" in lines[0] and "drops by 19.5%" in lines[0]


def test_a_quantity_a_stack_lacks_is_left_out() -> None:
    rows = [_row("IW 2, SSR", "kernel", (448.0, 448.0), 0.0), _row("IW 2, SSR", "simulator", (445.0,), 0.0)]
    [line] = agreement_lines(means(pd.DataFrame(rows)))
    assert "transfer2" not in line and line.endswith("— agrees")
