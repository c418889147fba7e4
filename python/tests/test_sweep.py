"""rampup.sweep: a grid of parameter values times seeds, one DataFrame, cached."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

import rampup

SCENARIO = """
duration = "3s"
[topology]
kind = "dumbbell"
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
bottleneck_queue = { packets = 20 }
loss = 0.01
[[flow]]
from = "s0"
to = "r0"
app = { kind = "bulk" }
tcp = { recovery = "newreno" }
"""


def test_grid_times_seeds_gives_one_block_per_run(tmp_path: Path) -> None:
    grid = {"topology.bottleneck_queue.packets": [5, 50], "flow[0].tcp.recovery": ["newreno", "sack"]}
    df = rampup.sweep(SCENARIO, grid, seeds=[1, 2, 3], cache=tmp_path)
    assert len(df) == 2 * 2 * 3
    assert set(df["flow[0].tcp.recovery"]) == {"newreno", "sack"}
    assert set(df["recovery"]) == {"newreno", "sack"}, "the grid value reached the engine"
    # Random loss: seeds differ; a bigger queue delivers more on average.
    assert df.groupby("seed").bytes_received.sum().nunique() == 3
    by_queue = df.groupby("topology.bottleneck_queue.packets").bytes_received.mean()
    assert by_queue[50] > by_queue[5]


def test_a_repeated_sweep_runs_nothing_new(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    grid = {"topology.bottleneck_queue.packets": [5, 50]}
    first = rampup.sweep(SCENARIO, grid, seeds=[1], cache=tmp_path)
    again = rampup.sweep(SCENARIO, grid, seeds=[1], cache=tmp_path, progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (2, 2), "everything came from the cache"
    assert first.equals(again)


def test_numpy_values_in_a_grid_run_as_plain_numbers(tmp_path: Path) -> None:
    # numpy 2 prints np.float64(0.01) as "np.float64(0.01)": it must reach the scenario as 0.01.
    np = pytest.importorskip("numpy")
    plain = rampup.sweep(SCENARIO, {"topology.loss": [0.01, 0.02], "topology.bottleneck_queue.packets": [5]}, cache=tmp_path)
    grid = {"topology.loss": np.array([0.01, 0.02]), "topology.bottleneck_queue.packets": np.array([5])}
    df = rampup.sweep(SCENARIO, grid, cache=tmp_path)
    assert list(df.bytes_received) == list(plain.bytes_received)
    assert df["topology.loss"].tolist() == [0.01, 0.02]


def test_bad_keys_and_values_fail_before_running(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no flow\[3\]"):
        rampup.sweep(SCENARIO, {"flow[3].tcp.cc": ["vegas"]}, cache=tmp_path)
    with pytest.raises(rampup.ScenarioError, match="cc"):
        rampup.sweep(SCENARIO, {"flow[0].tcp.cc": ["bbr3"]}, cache=tmp_path)


def test_a_key_the_scenario_overrides_is_refused(tmp_path: Path) -> None:
    # The flow sets its own recovery: sweeping the [tcp] default would change nothing.
    with pytest.raises(ValueError, match=r"sweep key 'tcp.recovery': the scenario's flow\[0\].tcp.recovery overrides it"):
        rampup.sweep(SCENARIO, {"tcp.recovery": ["newreno", "sack"]}, cache=tmp_path)
    left = SCENARIO.replace('access_delay = "1ms"', 'access_delay = "1ms"\nleft_access_delay = "5ms"')
    with pytest.raises(ValueError, match=r"topology.left_access_delay overrides it"):
        rampup.sweep(left, {"topology.access_delay": ["1ms", "2ms"]}, cache=tmp_path)
    # A default no flow overrides is swept as asked.
    df = rampup.sweep(SCENARIO, {"tcp.mss": [500, 1000]}, cache=tmp_path)
    assert df.groupby("tcp.mss").segments_sent.mean()[500] > df.groupby("tcp.mss").segments_sent.mean()[1000]


def test_the_dask_backend_gives_the_same_frame(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    grid = {"topology.bottleneck_queue.packets": [5, 50]}
    local = rampup.sweep(SCENARIO, grid, seeds=[1, 2], cache=tmp_path / "threads")
    dask = rampup.sweep(SCENARIO, grid, seeds=[1, 2], cache=tmp_path / "dask", backend="dask")
    assert local.equals(dask)
    # The local cluster the sweep made for itself is gone with it.
    from dask.distributed import get_client

    with pytest.raises(ValueError):
        get_client()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"grid": {"flow.tcp.restart": ["nssr"]}}, "sweep key 'flow.tcp.restart': flow is a list of tables; pick one, like flow[0]"),
        ({"grid": {"duration.x": [1]}}, "sweep key 'duration.x': duration is a value, not a table with keys"),
        ({"table": "flow"}, "table: 'flow' is not a table a run writes (flows, transfers,"),
        ({"seeds": [-1]}, "seeds: -1 is not allowed; give a whole number from 0 to 2^64 - 1"),
    ],
)
def test_a_bad_sweep_is_refused_in_one_line_before_any_run(tmp_path: Path, kwargs: dict, message: str) -> None:
    args = {"grid": {"topology.loss": [0.01]}, **kwargs}
    with pytest.raises(ValueError) as e:
        rampup.sweep(SCENARIO, cache=tmp_path, **args)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)
    assert not any(tmp_path.iterdir()), "nothing ran"


def test_a_sweep_shows_a_bar_only_where_someone_watches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grid = {"topology.bottleneck_queue.packets": [5]}
    rampup.sweep(SCENARIO, grid, cache=tmp_path / "a")  # stderr is captured: no terminal
    assert capsys.readouterr().err == ""
    seen: list[tuple[int, int]] = []
    rampup.sweep(SCENARIO, grid, cache=tmp_path / "b", progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (1, 1)
    rampup.sweep(SCENARIO, grid, cache=tmp_path / "c", progress=True)  # asked for: drawn, and gone at the end


def test_a_corrupt_cache_entry_is_run_again_and_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rampup import cache as run_cache

    runs: list[int] = []
    real = run_cache.run_job
    monkeypatch.setattr(run_cache, "run_job", lambda job: runs.append(job.seed) or real(job))
    grid = {"topology.bottleneck_queue.packets": [5, 50]}
    first = rampup.sweep(SCENARIO, grid, seeds=[1], cache=tmp_path)
    assert len(runs) == 2
    # Truncate one entry's table, as an interrupted copy or a full disk would.
    victim = sorted(tmp_path.glob("*/flows.arrow"))[0]
    victim.write_bytes(victim.read_bytes()[:100])
    again = rampup.sweep(SCENARIO, grid, seeds=[1], cache=tmp_path)
    assert len(runs) == 3, "only the corrupt entry ran again"
    assert again.equals(first)
    rampup.sweep(SCENARIO, grid, seeds=[1], cache=tmp_path)
    assert len(runs) == 3, "and it was replaced: nothing runs now"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary folders left"


def test_an_entry_copied_into_another_runs_folder_is_run_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each entry records the key it was made for: another run's files (its entry file too)
    copied into an entry's folder are not read as that run's results."""
    import shutil

    from rampup import cache as run_cache
    from rampup import cache_entry as entry

    runs: list[int] = []
    real = run_cache.run_job
    monkeypatch.setattr(run_cache, "run_job", lambda job: runs.append(job.seed) or real(job))
    grid = {"topology.bottleneck_queue.packets": [5, 50]}
    first = rampup.sweep(SCENARIO, grid, seeds=[1], cache=tmp_path)
    five, fifty = (Path(tmp_path / j) for j in _keys(grid))
    shutil.rmtree(five)
    shutil.copytree(fifty, five)
    again = rampup.sweep(SCENARIO, grid, seeds=[1], cache=tmp_path)
    assert len(runs) == 3, "the swapped entry ran again"
    assert again.equals(first)
    assert json.loads((five / entry.ENTRY).read_text())["made_for"]["key"] == five.name, "and was replaced"


def _keys(grid: dict) -> list[str]:
    from rampup.cache import Job
    from rampup.sweep import with_values

    base = tomllib.loads(SCENARIO)
    ((key, values),) = grid.items()
    return [Job(with_values(base, {key: v}), 1, keep=("flows",)).key for v in values]


def test_abandoned_temporary_folders_of_dead_writers_are_removed(tmp_path: Path) -> None:
    """A write killed before its rename leaves ``.KEY.PID-xxxx``: the next sweep removes it
    if that pid is no longer running, and leaves a live writer's and anything else."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    abandoned = tmp_path / f".{'a' * 32}.{gone.pid}-x1"
    live = tmp_path / f".{'b' * 32}.{os.getpid()}-x2"
    theirs = tmp_path / ".mine"
    for folder in (abandoned, live, theirs):
        folder.mkdir()
        (folder / "flows.arrow").write_bytes(b"partial")
    rampup.sweep(SCENARIO, {"topology.loss": [0.0]}, cache=tmp_path)
    assert not abandoned.exists() and live.exists() and theirs.exists()


def test_a_grid_over_the_seed_is_refused_naming_the_seeds_axis(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=r"sweep key 'seed'.*--seeds"):
        rampup.sweep(SCENARIO, {"seed": [1, 2, 3]}, cache=tmp_path)
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO)
    result = run_cli("sweep", scenario, "--grid", "seed=1,2,3", "--cache", tmp_path / "cache", cwd=tmp_path)
    assert result.returncode == 2 and "--seeds" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "results").exists()


_INTERRUPTED_SWEEP = """
import sys, rampup
scenario = sys.argv[1].replace('duration = "3s"', 'duration = "60s"')
print("sweeping", flush=True)
try:
    rampup.sweep(scenario, {"topology.loss": [i / 10000 for i in range(1, 401)]}, cache=sys.argv[2], workers=2)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


def test_ctrl_c_stops_a_sweep_and_keeps_the_finished_runs(tmp_path: Path) -> None:
    # SIGINT during a sweep of 400 runs: the runs not started are dropped, the caller gets
    # KeyboardInterrupt once the two running ones end, and every finished run is a whole
    # cache entry (a half-written one would start with a dot).
    import signal
    import subprocess
    import sys
    import time

    cache = tmp_path / "cache"
    child = subprocess.Popen([sys.executable, "-c", _INTERRUPTED_SWEEP, SCENARIO, str(cache)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "sweeping"
        deadline = time.monotonic() + 60
        while not (cache.is_dir() and any(cache.rglob("entry.json"))) and time.monotonic() < deadline:
            time.sleep(0.1)
        child.send_signal(signal.SIGINT)  # once a run has finished
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert out.strip() == "KeyboardInterrupt", err
    entries = list(cache.rglob("entry.json"))
    assert 0 < len(entries) < 400, len(entries)
    assert not [p for p in cache.rglob("*") if p.name.startswith(".")], "no half-written entry is left"


def test_seeds_count_from_one_as_on_the_command_line(tmp_path: Path) -> None:
    # seeds=N is seeds 1..N, as `rampup sweep --seeds N`; explicit seeds run as given.
    df = rampup.sweep(SCENARIO, {"topology.loss": [0.01]}, seeds=3, cache=tmp_path, progress=False)
    assert sorted(df.seed) == [1, 2, 3]
    df = rampup.sweep(SCENARIO, {"topology.loss": [0.01]}, seeds=range(2), cache=tmp_path, progress=False)
    assert sorted(df.seed) == [0, 1]
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match=r"^seeds: .* is not allowed"):
            rampup.sweep(SCENARIO, {"topology.loss": [0.01]}, seeds=bad, cache=tmp_path, progress=False)


def test_each_result_comes_once_per_run_in_the_callers_thread_with_few_runs_ahead(monkeypatch: pytest.MonkeyPatch,
                                                                                 tmp_path: Path) -> None:
    import threading
    import time

    from rampup import cache as run_cache

    started: list[int] = []
    real_run = run_cache.run_job

    def run(job):  # type: ignore[no-untyped-def]
        started.append(job.seed)
        return real_run(job)

    monkeypatch.setattr(run_cache, "run_job", run)
    short = SCENARIO.replace('duration = "3s"', 'duration = "100ms"')
    jobs = [run_cache.Job(short, seed) for seed in range(1, 41)]
    taken: list[int] = []
    ahead: list[int] = []

    def each(i: int, tables) -> None:  # type: ignore[no-untyped-def]
        assert threading.current_thread() is threading.main_thread()
        taken.append(i)
        ahead.append(len(started) - len(taken))
        time.sleep(0.02)  # a slow reduction: the runs must not race ahead of it

    run_cache.each_result(jobs, tmp_path, each, workers=2)
    assert sorted(taken) == list(range(40))
    # Under way or waiting to be taken: at most AHEAD per worker.
    assert max(ahead) <= run_cache.AHEAD * 2, ahead
    # A second pass reads every run from the cache, in the jobs' order.
    again: list[int] = []
    run_cache.each_result(jobs, tmp_path, lambda i, t: again.append(i), workers=2)
    assert again == list(range(40)) and len(started) == 40
