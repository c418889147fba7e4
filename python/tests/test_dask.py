"""The Dask backend (docs/cluster.md): a quick reproduction and a sweep on a `LocalCluster` of
two worker processes give byte for byte the tables the thread backend gives; this process
keeps the cache, so workers need no shared file system; a worker with another engine is
refused before anything runs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

import rampup
from rampup import cache as run_cache
from rampup import cache_entry as entry
from rampup.cluster import DaskError, _run_checked, check_workers
from rampup.experiments import reproduce_into
from rampup.experiments.yours import parse

# `examples.*`, as the scenarios name the Python parts: the worker processes start with this
# process's path, so they import the classes by the same module path.
sys.path.insert(0, str(ROOT))

distributed = pytest.importorskip("dask.distributed", reason="the dask extra is not installed")

GRID = {"topology.bottleneck_queue.packets": [5, 20], "flow[0].tcp.recovery": ["newreno", "sack"]}
#: The quick reproduction run both ways: vrate's is the shortest (about a hundred runs).
PAPER = "vrate"
TABLES = ("runs.csv", "points.csv", "claims-table.md")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _sweep(demo_text: str, cache: Path, **backend: Any) -> str:
    return rampup.sweep(demo_text, GRID, seeds=[1, 2], cache=cache, progress=False, **backend).to_csv(index=False)


def test_a_quick_reproduction_on_two_worker_processes_writes_the_thread_backends_tables(client: Any, tmp_path: Path) -> None:
    outs = {}
    for name, backend in (("threads", {}), ("dask", {"backend": "dask", "client": client})):
        outs[name] = tmp_path / name
        _, _, ctx = reproduce_into(PAPER, outs[name], cache=tmp_path / f"cache-{name}", quick=True, **backend)
        assert ctx.runs > 50 and ctx.cached == 0
    for table in TABLES:
        assert (outs["dask"] / table).read_bytes() == (outs["threads"] / table).read_bytes(), table


def test_a_sweep_on_the_cluster_is_the_thread_sweep_and_its_runs_are_cached_here(client: Any, demo_text: str, tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    on_dask = _sweep(demo_text, tmp_path / "dask", backend="dask", client=client)
    assert on_dask == _sweep(demo_text, tmp_path / "threads")
    # The workers only simulated; this process stored every run, so a rerun here runs none.
    assert len([p for p in (tmp_path / "dask").iterdir() if (p / entry.ENTRY).is_file()]) == 8
    ran: list[int] = []
    real = run_cache.run_job
    monkeypatch.setattr(run_cache, "run_job", lambda job: ran.append(job.seed) or real(job))
    assert _sweep(demo_text, tmp_path / "dask") == on_dask and ran == []


def test_the_command_line_runs_on_a_scheduler_by_its_address(client: Any, demo_path: Path, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    grid = [f"--grid={k}={','.join(map(str, v))}" for k, v in GRID.items()]
    outs = []
    for name, flags in (("threads", []), ("dask", ["--backend", "dask", "--scheduler", client.scheduler.address])):
        out = tmp_path / f"{name}.csv"
        proc = run_cli("sweep", demo_path, *grid, "--seeds", "2", "--out", out, "--cache", tmp_path / f"cache-{name}", *flags)
        assert proc.returncode == 0, proc.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_a_worker_with_another_engine_is_refused(client: Any, demo_text: str) -> None:
    check_workers(client, run_cache.engine_build(), run_cache.engine_build)  # the same build: accepted
    with pytest.raises(DaskError, match=r"runs engine build \w+, this process 0+ \(2 of 2 workers differ\): install the same"):
        check_workers(client, "0000000000000000", run_cache.engine_build)
    # A worker that joined after the check refuses each run itself.
    job = run_cache.Job(demo_text, 1)
    with pytest.raises(DaskError, match=r"a worker runs engine build \w+, this process 0+: install the same"):
        client.submit(_run_checked, run_cache.run_job, run_cache.engine_build, job, "0000000000000000", "caller", pure=False).result()


def test_a_scheduler_that_is_not_there_is_one_line(run_cli, demo_path: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("sweep", demo_path, "--grid", "flow[0].tcp.recovery=sack", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9",
                   "--out", tmp_path / "x.csv", "--cache", tmp_path / "c")
    assert proc.returncode == 2 and proc.stderr.startswith("rampup: error: --backend dask: scheduler 'tcp://127.0.0.1:9': cannot connect")
    assert "Traceback" not in proc.stderr and not (tmp_path / "x.csv").exists()


def _with_startup(demo_text: str, module: str = "examples.rtt_growth") -> str:
    text = demo_text.replace('cc = "newreno"', f'startup = {{ kind = "python", class = "{module}:RttGrowthExit" }}')
    assert text != demo_text
    return text


def test_a_sweep_of_a_python_part_on_worker_processes_is_the_thread_sweep(client: Any, demo_text: str, tmp_path: Path) -> None:
    text, grid = _with_startup(demo_text), {"flow[0].tcp.startup.growth_pct": [5, 20]}
    on_dask = rampup.sweep(text, grid, cache=tmp_path / "dask", progress=False, backend="dask", client=client)
    assert on_dask.to_csv(index=False) == rampup.sweep(text, grid, cache=tmp_path / "threads", progress=False).to_csv(index=False)
    assert set(on_dask["cc"]) == {"rtt-growth"}  # the runs ran the Python part


def test_a_reproduction_with_a_python_part_on_worker_processes_writes_the_thread_backends_tables(client: Any, tmp_path: Path) -> None:
    outs = {}
    for name, backend in (("threads", {}), ("dask", {"backend": "dask", "client": client})):
        outs[name] = tmp_path / name
        reproduce_into("rbp", outs[name], cache=tmp_path / f"cache-{name}", quick=True, parts=(parse("restart=examples.ssr:Ssr"),), **backend)
    assert "ssr-py" in (outs["dask"] / "runs.csv").read_text()
    for table in TABLES:
        assert (outs["dask"] / table).read_bytes() == (outs["threads"] / table).read_bytes(), table


def test_a_worker_without_the_parts_code_is_refused(client: Any, demo_text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = run_cache.Job(_with_startup(demo_text), 1)
    assert run_cache.run_job_keyed((job, job.sources))["flows"] is not None  # here: the code it was keyed by
    with pytest.raises(DaskError, match=r"^a worker has other code for the Python part 'examples.rtt_growth:RttGrowthExit' than this process"):
        client.submit(run_cache.run_job_keyed, (job, "0" * 32), pure=False).result()
    # A module this process imports from a folder the workers' path does not have.
    (tmp_path / "only_here.py").write_text((ROOT / "examples" / "rtt_growth.py").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DaskError, match=r"^a worker cannot import the Python part 'only_here:RttGrowthExit' \(no module named 'only_here'"):
        rampup.sweep(_with_startup(demo_text, "only_here"), {"flow[0].tcp.startup.growth_pct": [5]}, cache=tmp_path / "c",
                     progress=False, backend="dask", client=client)
