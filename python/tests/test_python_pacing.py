"""A Python controller's own pacing rate (`rampup.parts.Controller.pacing_rate_bps`,
docs/python-parts.md): the rate it returns spaces the data segments (a closed form), None
leaves the scenario's pacing rule (the engine's Linux pacing to the byte), and a rate the
engine cannot use is refused in one line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rampup import _engine, parts
from rampup.parts import PaceContext

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `examples.*`

from examples import identity  # noqa: E402
from examples.newreno import NewReno  # noqa: E402


class FixedRate(NewReno):
    """NewReno paced at a fixed rate, or at the scenario's rule (``rate_bps = 0``: None)."""

    name = "fixed-rate"

    def __init__(self, rate_bps: int = 2_000_000) -> None:
        super().__init__()
        self.rate_bps = rate_bps

    def pacing_rate_bps(self, ctx: PaceContext) -> int | None:
        return self.rate_bps or None


parts.register_part("fixed-rate", FixedRate)


def _demo(demo_text: str, cc: str, initial_window: int = 2) -> str:
    return demo_text.replace('cc = "newreno"', cc).replace("initial_window = 2      # segments", f"initial_window = {initial_window}")


@pytest.mark.parametrize("rate_bps", [2_000_000, 4_000_000])
def test_the_controller_s_rate_spaces_the_segments(demo_text: str, rate_bps: int) -> None:
    # With an initial window of 100 segments cwnd never limits: the first 10 data segments
    # go at once when the handshake's RTT (44 ms) ends, as Linux lets them, and one more
    # every 1000 bytes x 8 / rate after that, until the 10 s run ends. Below the 10 Mb/s
    # bottleneck nothing queues, so nothing drops.
    flows = _engine.run(_demo(demo_text, f'cc = {{ kind = "python", class = "fixed-rate", rate_bps = {rate_bps} }}', 100))["tables"]["flows"]
    interval_s = 1000 * 8 / rate_bps
    expected = 10 + (10.0 - 0.044) / interval_s
    assert abs(int(flows["segments_sent"][0]) - expected) <= 1.5, (flows["segments_sent"][0], expected)
    assert flows["drops"][0] == 0 and flows["cc"] == ["fixed-rate"]


def test_none_leaves_the_scenario_s_rule(demo_text: str) -> None:
    """A controller defining the hook is paced as Linux paces (the default the scenario layer
    gives it); returning None there is the engine's NewReno with ``pacing = "linux"``."""
    python = _engine.run(_demo(demo_text, 'cc = { kind = "python", class = "fixed-rate", rate_bps = 0 }'))
    rust = _engine.run(_demo(demo_text, 'cc = "newreno"\npacing = "linux"'))
    unpaced = _engine.run(demo_text)
    assert identity.digest(python) == identity.digest(rust) != identity.digest(unpaced)


@pytest.mark.parametrize(("rate", "why"), [
    ("0", "returned 0, not None or a rate in bits per second (a whole number from 1 to 2**64 - 1)"),
    ("'fast'", "returned 'fast', not None or a rate in bits per second (a whole number from 1 to 2**64 - 1)"),
    ("1.5e6", "returned 1500000.0, not None or a rate in bits per second (a whole number from 1 to 2**64 - 1)"),
])
def test_a_rate_the_engine_cannot_use_is_refused_in_one_line(demo_text: str, rate: str, why: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"def pacing_rate_bps(self, ctx):\n    return {rate}\n", namespace)
    bad = type("BadRate", (NewReno,), {"pacing_rate_bps": namespace["pacing_rate_bps"]})
    parts.register_part("bad-rate", bad)
    with pytest.raises(_engine.PartError) as e:
        _engine.run(_demo(demo_text, 'cc = { kind = "python", class = "bad-rate" }'))
    assert str(e.value) == f"flow[0].tcp.cc (bad-rate).pacing_rate_bps: {why}"


def test_pacing_none_would_ignore_the_rate(demo_text: str) -> None:
    with pytest.raises(_engine.ScenarioError) as e:
        _engine.check(_demo(demo_text, 'cc = { kind = "python", class = "fixed-rate" }\npacing = "none"'))
    assert str(e.value) == ('flow[0].tcp.pacing: the Python controller sets its own rate (pacing_rate_bps), which "none" would ignore: '
                            'leave pacing out or give "linux" or "quic"')
