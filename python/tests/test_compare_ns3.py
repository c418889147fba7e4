"""validation/compare_ns3.py's `--loss-events` figures, from drops given by hand (the
comparison itself needs ns-3; docs/validation.md has its tables)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def compare_ns3() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compare_ns3", ROOT / "validation" / "compare_ns3.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered first: its dataclasses look their module up by name.
    sys.modules["compare_ns3"] = module
    spec.loader.exec_module(module)
    return module


def test_loss_events_group_a_flows_drops_and_find_flows_in_step() -> None:
    c = compare_ns3()
    drops = [
        (4.0, 0),  # before 5 s: not counted
        (6.00, 0), (6.03, 0), (6.06, 0),  # one event of flow 0: within 60 ms of its first
        (6.07, 0),  # 70 ms after that first: a new event
        (6.02, 1),  # flow 1 begins 20 ms after flow 0's event: both in step
        (9.00, 1), (9.01, 1),  # alone
        (9.10, 2),  # 100 ms after flow 1's: not in step
    ]
    # A queue of 0 and 2 packets in turn (one packet is 0.416 ms at 20 Mb/s).
    one_packet_ms = c.WIRE_BYTES * 8 / c.RATE_BPS * 1e3
    figures = c.loss_events(drops, [0.0, 2 * one_packet_ms] * 50)
    assert figures["events"] == 5
    assert figures["per_event"] == 8 / 5
    assert figures["big_events"] == 1 / 5
    # Flow 0's first event (6.00) and flow 1's (6.02) are within 40 ms of each other; flow
    # 0's second (6.07) is 50 ms from flow 1's, and 9.00 is 100 ms from 9.10.
    assert figures["in_step"] == 2 / 5
    assert abs(figures["queue_sd"] - 1.0) < 1e-9
