"""A restart policy written in Python beyond `on_idle_end` and `on_ack` (docs/python-parts.md):
its paced restart (`Pace`, paper 000 §3), `on_sent`, `on_congestion_event`, `on_recovery_end`
and `on_rto` are called where the engine's policies hear them, what they return is applied,
and a pacing plan the engine cannot carry out stops the run in one line."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from rampup import _engine, parts
from rampup.parts import CongestionContext, IdleContext, Pace, RestartPolicy, SentContext, Set

ROOT = Path(__file__).resolve().parents[2]
RESTART = (ROOT / "scenarios" / "restart-after-idle.toml").read_text(encoding="utf-8")


def _demo_with(demo_text: str, restart: str) -> str:
    text = demo_text.replace('cc = "newreno"', f'restart = {{ kind = "python", class = "{restart}" }}')
    assert text != demo_text
    return text


class Heard(RestartPolicy):
    """Counts what the engine tells it, and changes nothing."""

    calls: ClassVar[dict[str, int]] = {}

    def _heard(self, hook: str) -> None:
        Heard.calls[hook] = Heard.calls.get(hook, 0) + 1

    def on_idle_end(self, ctx: IdleContext) -> None:
        self._heard("on_idle_end")

    def on_sent(self, ctx: SentContext) -> None:
        assert ctx.flight_bytes > 0  # the segment that went out is in flight
        self._heard("on_sent")

    def on_congestion_event(self, ctx: CongestionContext) -> None:
        self._heard(f"on_congestion_event {ctx.kind}")

    def on_recovery_end(self, cwnd_bytes: int, ssthresh_bytes: int, resent_bytes: int) -> None:
        assert cwnd_bytes == ssthresh_bytes and resent_bytes > 0  # cwnd back at ssthresh, RFC 6582 §3.2 step 6
        self._heard("on_recovery_end")

    def on_rto(self) -> None:
        self._heard("on_rto")


def test_the_hooks_are_called_where_the_engine_hears_of_it(demo_text: str) -> None:
    parts.register_part("heard", Heard)
    Heard.calls.clear()
    flows = _engine.run(_demo_with(demo_text, "heard"))["tables"]["flows"]
    # One call per data segment sent, first sends and retransmissions alike.
    assert Heard.calls["on_sent"] == flows["segments_sent"][0]
    assert Heard.calls["on_rto"] == flows["timeouts"][0] > 0
    assert Heard.calls["on_congestion_event fast_retransmit"] == flows["fast_retransmits"][0] > 0
    # The demo's two timeouts strike in recovery (no new congestion event: the loss was
    # answered); one recovery ends by its ACK, the others by a timeout.
    assert "on_congestion_event rto" not in Heard.calls
    assert 0 < Heard.calls["on_recovery_end"] <= flows["fast_retransmits"][0] - flows["timeouts"][0]


def test_a_window_the_hooks_return_is_applied(demo_text: str) -> None:
    """A policy that answers every fast retransmit with the smallest window, and every
    end of recovery likewise, loses most of the demo's goodput."""

    class Timid(RestartPolicy):
        def on_idle_end(self, ctx: IdleContext) -> None:
            return None

        def on_congestion_event(self, ctx: CongestionContext) -> Set:
            return Set(cwnd_bytes=ctx.mss_bytes, ssthresh_bytes=2 * ctx.mss_bytes)

        def on_recovery_end(self, cwnd_bytes: int, ssthresh_bytes: int, resent_bytes: int) -> Set:
            return Set(cwnd_bytes=2000)

    parts.register_part("timid", Timid)
    parts.register_part("heard", Heard)
    timid, heard = (_engine.run(_demo_with(demo_text, name))["tables"] for name in ("timid", "heard"))
    # ssthresh is set by congestion events alone (NaN before the first): here always the policy's.
    assert np.nanmax(timid["timeseries"]["ssthresh_bytes"]) == 2000 < np.nanmax(heard["timeseries"]["ssthresh_bytes"])
    assert timid["flows"]["goodput_bps"][0] < heard["flows"]["goodput_bps"][0]


def test_a_paced_restart_paces(tmp_path: Path) -> None:
    """Two segments a second apart after each idle: the second waits for the first one's ACK,
    which ends the pacing (paper 000 §3), where two segments 1 ns apart leave together; so
    every restarted response takes longer. (examples/rbp_cwnd.py, paced by `Pace`, gives the
    engine's RBP/cwnd tables to the byte: test_python_parts.py.)"""

    class Slow(RestartPolicy):
        def __init__(self, interval_ns: int) -> None:
            self.interval_ns = interval_ns

        def on_idle_end(self, ctx: IdleContext) -> Pace:
            return Pace(segments=2, interval_ns=self.interval_ns, cwnd_bytes=2 * ctx.mss_bytes)

    parts.register_part("slow", Slow)
    elapsed = {}
    for interval in (1, 1_000_000_000):
        text = RESTART.replace('restart = "rbp-rate"', f'restart = {{ kind = "python", class = "slow", interval_ns = {interval} }}')
        assert text != RESTART
        elapsed[interval] = _engine.run(text)["tables"]["transfers"]["elapsed_s"][1:]
    assert all(paced > at_once + 0.03 for at_once, paced in zip(elapsed[1], elapsed[1_000_000_000], strict=True))


@pytest.mark.parametrize(("pace", "why"), [
    ("Pace(segments=0, interval_ns=1000)", "segments = 0 is not a whole number of 1 or more"),
    ("Pace(segments=2, interval_ns=-5)", "interval_ns = -5 is not a whole number of 1 or more"),
    ("Pace(segments=2, interval_ns=1000, cwnd_bytes=0)", "cwnd_bytes = 0 is below one segment"),
])
def test_a_pacing_plan_the_engine_cannot_carry_out_is_one_line(pace: str, why: str) -> None:
    class Bad(RestartPolicy):
        def on_idle_end(self, ctx: IdleContext) -> Pace:
            return eval(pace)  # the test's own literal

    parts.register_part("bad-pace", Bad)
    text = RESTART.replace('restart = "rbp-rate"', 'restart = { kind = "python", class = "bad-pace" }')
    with pytest.raises(parts.PartError) as e:
        _engine.run(text)
    assert "flow[0].tcp.restart (bad-pace).on_idle_end: " in str(e.value) and why in str(e.value) and "\n" not in str(e.value)
