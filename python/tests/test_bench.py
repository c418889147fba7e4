"""`rampup bench`: the timed child process does the same work as the engine in-process."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from rampup import _engine
from rampup.bench import bench_scenario, measure_rampup


def test_the_timed_child_delivers_what_the_engine_delivers_in_process(tmp_path: Path) -> None:
    path = tmp_path / "bench-3.toml"
    path.write_text(bench_scenario(3, 0.5))
    m = measure_rampup(path)
    assert m.packets == _engine.delivered_packets(path.read_text(), 1000)
    assert m.packets > 1000, "three flows for half a second deliver thousands of packets"
    assert m.wall_s > 0
    assert m.peak_rss_mb > 1, "a Python process that loaded the engine holds more than 1 MB"


def test_a_run_of_a_few_milliseconds_still_reports_its_peak_memory(tmp_path: Path) -> None:
    # CI once measured 0 MB here: a sampler from outside missed a 10 ms process.
    path = tmp_path / "bench-1.toml"
    path.write_text(bench_scenario(1, 0.01))
    assert measure_rampup(path).peak_rss_mb > 1


def test_bench_prints_a_row_per_n(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("bench", "--flows", "1,2", "--duration", "0.2", "--repeat", "1", "--no-ns2")
    assert proc.returncode == 0, proc.stderr
    assert "N = 1:" in proc.stdout and "N = 2:" in proc.stdout
    # Ratios move with the CPU, so the output names the machine.
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("machine: ")]
    assert f"{len(os.sched_getaffinity(0))} CPU" in line and platform.system() in line


def test_bench_rejects_a_bad_flow_list(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("bench", "--flows", "1,x", "--no-ns2")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["rampup: error: --flows: '1,x' is not a comma-separated list of whole numbers"]



def test_the_web_bench_counts_the_connections_the_engine_completes() -> None:
    from rampup.bench import run_web_bench, web_scenario

    text, rate = web_scenario(20)
    assert abs(rate - 36.77) < 0.01, "paper 002's base case: 50% of 5 Mb/s"
    row = run_web_bench(1, 20, with_ns2=False)
    assert row["packets"] == _engine.completed_connections(text)
    assert row["packets"] > 500, "about 37 connections a second for 20 s"


def test_bench_web_prints_its_table(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("bench", "--web", "--duration", "5", "--repeat", "1", "--no-ns2")
    assert proc.returncode == 0, proc.stderr
    assert "connections / wall s" in proc.stdout and "rampup" in proc.stdout
