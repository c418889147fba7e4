"""The extension module against docs/engine-api.md."""

from __future__ import annotations

import numpy as np
import pytest

from rampup import _engine

TABLES = {"flows", "timeseries", "queues", "links"}


def test_run_returns_the_documented_shape(demo_text: str) -> None:
    out = _engine.run(demo_text)
    assert set(out) == {"tables", "pcaps", "events", "packet_hops", "seed", "sim_end_ns"}
    assert set(out["tables"]) >= TABLES
    for name, table in out["tables"].items():
        lengths = set()
        for column, values in table.items():
            assert isinstance(column, str)
            if isinstance(values, list):
                assert all(isinstance(v, str) for v in values), (name, column)
            else:
                assert isinstance(values, np.ndarray), (name, column)
                assert values.ndim == 1
                assert values.dtype in (np.uint64, np.int64, np.float64), (name, column, values.dtype)
            lengths.add(len(values))
        assert len(lengths) <= 1, f"{name}: columns of different lengths {lengths}"
    assert isinstance(out["events"], int) and out["events"] > 0
    assert isinstance(out["sim_end_ns"], int) and out["sim_end_ns"] > 0
    assert all(isinstance(k, str) and isinstance(v, bytes) for k, v in out["pcaps"].items())


def test_seed_defaults_to_the_scenario_and_can_be_overridden(demo_text: str) -> None:
    assert _engine.run(demo_text)["seed"] == 1  # demo.toml says seed = 1
    assert _engine.run(demo_text, 7)["seed"] == 7
    assert _engine.run(demo_text, seed=2**64 - 1)["seed"] == 2**64 - 1


def test_scenario_error_is_a_value_error_with_one_line(demo_text: str) -> None:
    assert issubclass(_engine.ScenarioError, ValueError)
    # Unknown keys are errors at the top level and inside tables ([trace] here).
    for text in ("bogus_key = 1\n" + demo_text, demo_text + "\nbogus_key = 1\n"):
        with pytest.raises(_engine.ScenarioError) as err:
            _engine.check(text)
        message = str(err.value)
        assert "bogus_key" in message
        assert "\n" not in message.strip()


def test_check_accepts_the_demo_and_rejects_bad_toml(demo_text: str) -> None:
    assert _engine.check(demo_text) == []  # valid, and no warnings
    with pytest.raises(_engine.ScenarioError):
        _engine.check("name = \n[unclosed")
    with pytest.raises(_engine.ScenarioError):
        _engine.run("name = \n[unclosed")


def test_progress_is_visible_while_the_engine_runs(demo_text: str) -> None:
    # The engine runs without the GIL, so this thread can watch the fraction move;
    # were the GIL held, it would only ever see 0.0 and then 1.0.
    import threading
    import time

    long_run = demo_text.replace('duration = "10s"', 'duration = "200s"')
    assert long_run != demo_text
    progress = _engine.Progress()
    assert progress.fraction == 0.0
    worker = threading.Thread(target=_engine.run, args=(long_run, None, progress))
    seen = set()
    worker.start()
    while worker.is_alive():
        seen.add(progress.fraction)
        time.sleep(0.0005)
    worker.join()
    assert progress.fraction == 1.0
    assert any(0.0 < f < 1.0 for f in seen), sorted(seen)


def test_concurrent_runs_agree(demo_text: str) -> None:
    # Runs release the GIL; two at once must not deadlock and must agree. (Not in the
    # number of events: the first may run split over two threads, the other then on one;
    # the packet hops count the same work either way.)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        a, b = pool.map(lambda s: _engine.run(demo_text, s), [1, 1])
    assert a["pcaps"] == b["pcaps"]
    assert a["packet_hops"] == b["packet_hops"] > 0
    assert a["tables"].keys() == b["tables"].keys()
    for name, table in a["tables"].items():
        assert table.keys() == b["tables"][name].keys()
        for column, values in table.items():
            np.testing.assert_array_equal(values, b["tables"][name][column], err_msg=f"{name}.{column}")


# The demo for a simulated day without traces: minutes of work in little memory. "running"
# is printed once the engine has reported progress, so the signal comes while it runs.
_LONG_RUN = """
import sys, threading, time, tomllib
from rampup import _engine, _toml
doc = tomllib.load(open(sys.argv[1], "rb"))
doc["duration"] = "86400s"
doc["trace"] = {"timeseries": False, "queues": False}
progress = _engine.Progress()

def announce():
    while progress.fraction == 0.0:
        time.sleep(0.01)
    print("running", flush=True)

threading.Thread(target=announce, daemon=True).start()
try:
    _engine.run(_toml.dumps(doc), None, progress)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_stops_a_run_with_keyboard_interrupt(demo_path, threads: str) -> None:
    # Python runs signal handlers on its main thread; the engine looks for them as it runs
    # (on one thread or split over two) and returns KeyboardInterrupt, not a panic.
    import os
    import signal
    import subprocess
    import sys

    env = dict(os.environ, RAMPUP_THREADS=threads)
    child = subprocess.Popen([sys.executable, "-c", _LONG_RUN, str(demo_path)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "running"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert out.strip() == "KeyboardInterrupt", err
    assert child.returncode == 0
