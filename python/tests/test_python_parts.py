"""Startups and controllers written in Python (`rampup.parts`, docs/python-parts.md): the
Python twins of the engine's NewReno and Hoe give the engine's tables to the byte, a run
with a Python part is deterministic on one thread or two, and a bad part stops the run with
one line naming the part, the hook and the cause (exit 2 for bad input, 1 for an exception
in the part's code, its traceback only with RAMPUP_DEBUG=1) and leaves no results folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from rampup import _engine, parts
from rampup.parts import AckContext, Set, Startup

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `examples.*`, as the scenarios name the classes

from examples import identity  # noqa: E402

#: The repository's examples and the tests' own bad parts importable in a fresh interpreter.
BAD_PARTS = '''
from rampup.parts import Controller, RestartPolicy, Set, Startup

class Raises(Startup):
    def on_ack(self, ctx):
        return 1 // 0

class ZeroWindow(Controller):
    def on_ack(self, ctx):
        return Set(cwnd_bytes=0)

class NoOnAck(Startup):
    pass

class NoIdleEnd(RestartPolicy):
    pass

class NotAPart:
    def on_ack(self, ctx):
        return None
'''


@pytest.mark.parametrize(("scenario", "part"), [(name, part) for name, _ in identity.scenarios() for part in identity.VARIANTS])
def test_python_twin_gives_the_engine_parts_tables_byte_for_byte(scenario: str, part: str) -> None:
    doc = dict(identity.scenarios())[scenario]
    variant = identity.VARIANTS[part]
    rust, python = identity.run(variant(doc, False)), identity.run(variant(doc, True))
    assert identity.digest(python) == identity.digest(rust)
    # Results name the Python part: `newreno-py`, or `newreno-py+ssthreshless` with a startup.
    names = python["tables"]["flows"]["restart" if part in ("ssr", "rbp-cwnd") else "cc"]
    assert all(f"{part}-py" in name.split("+") for name in names), names


def test_the_digest_tells_the_parts_apart() -> None:
    """The identity above is no artefact of the digest: Hoe's startup and slow start differ."""
    doc = dict(identity.scenarios())["demo"]
    assert identity.digest(identity.run(identity.with_hoe(doc, True))) != identity.digest(identity.run(identity.with_controller(doc, True)))


def _demo_with(demo_text: str, part: str) -> str:
    return demo_text.replace('cc = "newreno"', part)


def test_a_run_with_a_python_part_is_the_same_on_one_thread_or_two(demo_text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _demo_with(demo_text, 'startup = { kind = "python", class = "examples.rtt_growth:RttGrowthExit", growth_pct = 10 }')
    digests = []
    for threads in ("1", "2", "2"):
        monkeypatch.setenv("RAMPUP_THREADS", threads)
        digests.append(identity.digest(_engine.run(text)))
    assert digests[0] == digests[1] == digests[2]


def test_extra_keys_reach_the_constructor(demo_text: str) -> None:
    runs = {pct: _engine.run(_demo_with(demo_text, f'startup = {{ kind = "python", class = "examples.rtt_growth:RttGrowthExit", growth_pct = {pct} }}'))
            for pct in (5, 1000)}
    exits = {pct: out["tables"]["flows"]["slow_start_exit_cwnd_bytes"][0] for pct, out in runs.items()}
    assert exits[5] < exits[1000], exits


def test_a_part_registered_by_name_runs(demo_text: str) -> None:
    seen: list[AckContext] = []

    class Watch(Startup):
        name = "watch"

        def on_ack(self, ctx: AckContext) -> Set | None:
            seen.append(ctx)
            return None

    parts.register_part("watch", Watch)
    out = _engine.run(_demo_with(demo_text, 'startup = { kind = "python", class = "watch" }'))
    assert out["tables"]["flows"]["cc"] == ["watch"]
    assert len(seen) > 1000 and all(c.mss_bytes == 1000 for c in seen)
    first = seen[0]
    # The first ACK of data: the SYN's sequence number and one segment acknowledged, cwnd the
    # demo's initial window of 2 segments.
    assert (first.snd_una, first.acked_bytes, first.cwnd_bytes) == (1 + 1000, 1000, 2 * 1000)
    with pytest.raises(AttributeError):
        first.cwnd_bytes = 1  # type: ignore[misc]  # the context is read-only
    assert sum(c.round_start for c in seen) > 5, "rounds of one RTT are marked"


def test_register_part_takes_only_part_classes() -> None:
    with pytest.raises(TypeError):
        parts.register_part("x", int)


@pytest.fixture
def bad_parts(tmp_path: Path) -> Path:
    (tmp_path / "badparts.py").write_text(BAD_PARTS, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("part", "code", "line"), [
    ('startup = { kind = "python", class = "badparts:Raises" }', 1,
     "flow[0].tcp.startup (badparts:Raises).on_ack: ZeroDivisionError: integer division or modulo by zero"),
    ('cc = { kind = "python", class = "badparts:ZeroWindow" }', 2,
     "s.toml: flow[0].tcp.cc (badparts:ZeroWindow).on_ack: cwnd_bytes = 0 is below one segment (1000 bytes)"),
    ('startup = { kind = "python", class = "badparts:NoOnAck" }', 2,
     "s.toml: flow[0].tcp.startup (badparts:NoOnAck): defines no on_ack method: a Startup defines on_ack(self, ctx)"),
    ('restart = { kind = "python", class = "badparts:NoIdleEnd" }', 2,
     "s.toml: flow[0].tcp.restart (badparts:NoIdleEnd): defines no on_idle_end method: a RestartPolicy defines on_idle_end(self, ctx)"),
    ('startup = { kind = "python", class = "badparts:ZeroWindow" }', 2,
     "s.toml: flow[0].tcp.startup (badparts:ZeroWindow): is not a subclass of rampup.parts.Startup (it is a rampup.parts.Controller: name it as cc)"),
    ('startup = { kind = "python", class = "badparts:NotAPart" }', 2,
     "s.toml: flow[0].tcp.startup (badparts:NotAPart): is not a subclass of rampup.parts.Startup"),
    ('startup = { kind = "python", class = "nosuchmodule:Start" }', 2,
     "s.toml: flow[0].tcp.startup (nosuchmodule:Start): no module named 'nosuchmodule' (is it on PYTHONPATH?)"),
    ('startup = { kind = "python", class = "badparts:Missing" }', 2,
     "s.toml: flow[0].tcp.startup (badparts:Missing): module 'badparts' has no 'Missing'"),
    ('startup = { kind = "python", class = "badparts:Raises", gamma = 3 }', 2,
     "s.toml: flow[0].tcp.startup (badparts:Raises): the scenario's keys do not fit the constructor Raises(): "
     "got an unexpected keyword argument 'gamma'"),
])
def test_a_bad_part_stops_the_run_with_one_line_and_leaves_no_folder(run_cli: Any, demo_text: str, bad_parts: Path, part: str, code: int,
                                                                     line: str) -> None:
    (bad_parts / "s.toml").write_text(_demo_with(demo_text, part), encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(bad_parts)])}
    proc = run_cli("run", "s.toml", "--out", "out", cwd=bad_parts, env=env)
    assert (proc.returncode, proc.stderr) == (code, f"rampup: error: {line}\n")
    assert not (bad_parts / "out").exists()
    assert not [p for p in bad_parts.iterdir() if p.name not in ("badparts.py", "s.toml", "__pycache__")], "no staged folder left"
    checked = run_cli("check", "s.toml", cwd=bad_parts, env=env)
    if ".on_ack:" in line:  # found only when the hook runs
        assert checked.returncode == 0, checked.stderr
    else:  # `rampup check` imports and validates the class
        assert (checked.returncode, checked.stderr) == (code, proc.stderr)


def test_the_traceback_of_a_part_that_raised_is_shown_only_with_rampup_debug(run_cli: Any, demo_text: str, bad_parts: Path) -> None:
    (bad_parts / "s.toml").write_text(_demo_with(demo_text, 'startup = { kind = "python", class = "badparts:Raises" }'), encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(bad_parts)]), "RAMPUP_DEBUG": "1"}
    proc = run_cli("run", "s.toml", "--out", "out", cwd=bad_parts, env=env)
    assert proc.returncode == 1
    assert "Traceback (most recent call last)" in proc.stderr and "return 1 // 0" in proc.stderr
    assert proc.stderr.endswith("rampup: error: flow[0].tcp.startup (badparts:Raises).on_ack: ZeroDivisionError: integer division or modulo by zero\n")


def test_rampup_check_imports_and_validates_the_class(run_cli: Any, demo_text: str, tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(_demo_with(demo_text, 'startup = { kind = "python", class = "examples.rtt_growth:RttGrowthExit", growth_pct = -1 }'),
                                     encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
    proc = run_cli("check", "s.toml", cwd=tmp_path, env=env)
    assert proc.returncode == 2
    assert proc.stderr == ("rampup: error: s.toml: flow[0].tcp.startup (examples.rtt_growth:RttGrowthExit): RttGrowthExit(growth_pct=25.0) "
                           "refused the scenario's keys: ValueError: growth_pct must be above 0 (got -1)\n")


EXIT_AT = '''
from rampup.parts import Set, Startup

class ExitAt(Startup):
    def __init__(self, segments=8):
        self.segments = segments

    def on_ack(self, ctx):
        if ctx.cwnd_bytes >= self.segments * ctx.mss_bytes and ctx.ssthresh_bytes > ctx.cwnd_bytes:
            return Set(ssthresh_bytes=ctx.cwnd_bytes)
        return None
'''


def test_a_sweep_runs_a_python_part_and_keys_its_cache_by_the_part_s_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_text: str) -> None:
    import importlib

    import rampup
    from rampup.cache import Job

    (tmp_path / "exit_at.py").write_text(EXIT_AT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    text = _demo_with(demo_text, 'startup = { kind = "python", class = "exit_at:ExitAt" }')
    df = rampup.sweep(text, {"flow[0].tcp.startup.segments": [4, 40]}, cache=tmp_path / "cache", progress=False)
    exits = dict(zip(df["flow[0].tcp.startup.segments"], df["slow_start_exit_cwnd_bytes"], strict=True))
    # The exit comes at the ACK that finds cwnd at the given segments (the controller then
    # adds its congestion-avoidance share of that ACK, under one segment).
    assert 4000 <= exits[4] < 5000 and 40_000 <= exits[40] < 41_000, exits
    key = Job(text, 1).key
    assert Job(text, 1).key == key and Job(demo_text, 1).key != key
    import exit_at  # type: ignore[import-not-found]

    (tmp_path / "exit_at.py").write_text(EXIT_AT.replace("segments=8", "segments=9"), encoding="utf-8")
    importlib.reload(exit_at)
    assert Job(text, 1).key != key, "an edited class runs again"


def test_a_restart_policy_s_on_ack_validates_the_window(demo_text: str) -> None:
    """RFC 7661 §4.3's hold: a policy that holds on every ACK keeps the initial window."""
    from rampup.parts import HOLD, IdleContext, RestartPolicy

    class Holds(RestartPolicy):
        def on_idle_end(self, ctx: IdleContext) -> None:
            return None

        def on_ack(self, ctx: AckContext) -> str:
            return HOLD

    parts.register_part("holds", Holds)
    out = _engine.run(_demo_with(demo_text, 'restart = { kind = "python", class = "holds" }'))
    assert out["tables"]["flows"]["restart"] == ["Holds"]
    assert set(out["tables"]["timeseries"]["cwnd_bytes"]) == {2 * 1000}, "the demo's initial window, held"


def test_the_cache_key_reads_the_class_in_either_string_quoting(demo_text: str) -> None:
    # TOML spells a string in double or single quotes; either names the Python part whose
    # code goes into the run cache's key.
    class Keyed(Startup):
        name = "keyed"

        def on_ack(self, ctx: AckContext) -> Set | None:
            return None

    parts.register_part("keyed", Keyed)
    double = parts.sources_key(_demo_with(demo_text, 'startup = { kind = "python", class = "keyed" }'))
    single = parts.sources_key(_demo_with(demo_text, "startup = { kind = 'python', class = 'keyed' }"))
    assert double != "" and single == double
    assert parts.sources_key(demo_text) == ""
