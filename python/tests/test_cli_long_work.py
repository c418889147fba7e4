"""The command line over long work and a hostile environment: Ctrl-C from the first instant,
a sweep's progress, its interruption and resumption, a full disk; and the smaller points of
the command line's words (check --set, "did you mean", tables in a pipe)."""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from rampup import cli
from rampup.cli import parts

ROOT = Path(__file__).resolve().parents[2]
SHORT = """
duration = "2s"
[topology]
kind = "dumbbell"
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
bottleneck_queue = { packets = 20 }
[[flow]]
from = "s0"
to = "r0"
app = { kind = "bulk" }
"""


def _one_line(stderr: str, *needles: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rampup: error: "), stderr
    assert "Traceback" not in stderr and "internal fault" not in stderr, stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _maps(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


def _interrupt_when(command: list[str], loaded: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Starts ``command``, sends SIGINT as soon as its process has mapped a file whose path
    holds ``loaded`` (an extension module: the import under way), and waits for its end."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + timeout
        while loaded not in _maps(child.pid) and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.002)
        assert child.poll() is None, "the command ended before the import was under way"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    return subprocess.CompletedProcess(command, child.returncode, out, err)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc to see the import under way")
@pytest.mark.parametrize("loaded", ["_engine.cpython", "pandas/_libs"])
@pytest.mark.parametrize("how", ["script", "module"])
def test_ctrl_c_while_rampup_imports_is_one_line_and_exit_130(loaded: str, how: str) -> None:
    # The engine's extension is mapped first, then pandas' (rampup.api imports it): Ctrl-C in
    # either import gives the command's line, not a traceback from inside an import.
    script = Path(sys.executable).with_name("rampup")
    if how == "script" and not script.exists():
        pytest.skip("no rampup script beside this Python")
    start = [str(script)] if how == "script" else [sys.executable, "-m", "rampup"]
    proc = _interrupt_when([*start, "check", "scenarios/demo.toml"], loaded)
    assert (proc.returncode, proc.stderr, proc.stdout) == (130, "rampup: error: interrupted\n", "")


def test_a_program_importing_rampup_keeps_its_own_ctrl_c() -> None:
    code = "import signal, rampup; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "True\n"


def test_ctrl_c_in_a_sweep_says_what_is_kept_and_how_to_resume(tmp_path: Path) -> None:
    scenario = tmp_path / "long.toml"
    scenario.write_text(SHORT.replace('"2s"', '"300s"'))
    cache = tmp_path / "cache"
    command = [sys.executable, "-m", "rampup", "sweep", str(scenario), "--grid", "topology.loss=0.001,0.002,0.003",
               "--seeds", "4", "--workers", "2", "--cache", str(cache), "--out", str(tmp_path / "s.csv")]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (cache.is_dir() and any(cache.rglob("entry.json"))) and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)  # once a run is kept
        out, err = child.communicate(timeout=300)
    finally:
        child.kill()
    assert child.returncode == 130 and out == "", (child.returncode, err)
    kept = len(list(cache.rglob("entry.json")))
    line = _one_line(err, f"interrupted; {kept} of 12 runs are kept in the cache {cache}",
                     "the same command resumes from there: ")
    assert line.endswith(" ".join(["rampup", *command[3:]])), line
    assert 0 < kept < 12


def test_a_sweep_sums_up_its_runs_and_those_from_the_cache(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    scenario = tmp_path / "s.toml"
    scenario.write_text(SHORT)
    args = ("sweep", scenario, "--grid", "topology.loss=0.0,0.01", "--cache", tmp_path / "cache", "--out", tmp_path / "a.csv")
    proc = run_cli(*args)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr  # no bar in a pipe
    assert re.fullmatch(r"sweep: 2 runs \(0 cached, 2 run in [\d.]+ s, [\d.,]+ runs/s\), 2 rows of flows: .*a\.csv\n",
                        proc.stdout), proc.stdout
    proc = run_cli(*args, "--overwrite", "--seeds", "2")
    assert re.match(r"sweep: 4 runs \(2 cached, 2 run in ", proc.stdout), proc.stdout


def test_a_full_disk_under_a_sweep_table_leaves_no_temporary_file(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    scenario = tmp_path / "s.toml"
    scenario.write_text(SHORT)
    out = tmp_path / "sw.csv"
    tmp = tmp_path / ".sw.csv.tmp"
    tmp.symlink_to("/dev/full")  # the table's temporary file is on a full device: ENOSPC on writing
    proc = run_cli("sweep", scenario, "--grid", "topology.loss=0.0", "--cache", tmp_path / "cache", "--out", out)
    assert proc.returncode == 1, proc.stderr
    _one_line(proc.stderr, f"--out {out}: no space left on the device", "free some space and run the command again",
              "the 1 runs are kept in the cache")
    assert not tmp.exists() and not tmp.is_symlink() and not out.exists()


def test_a_full_disk_under_the_cache_is_one_warning_and_loses_no_result(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    from rampup import cache as run_cache

    stored = []
    real_store = run_cache.store

    def store(job, cache, tables):  # type: ignore[no-untyped-def]
        if stored:
            raise OSError(errno.ENOSPC, "No space left on device", str(cache / job.key))
        stored.append(job)
        real_store(job, cache, tables)

    monkeypatch.setattr(run_cache, "store", store)
    scenario = tmp_path / "s.toml"
    scenario.write_text(SHORT)
    cache, out = tmp_path / "cache", tmp_path / "s.csv"
    args = ["sweep", str(scenario), "--grid", "topology.loss=0.0,0.01,0.02", "--workers", "1", "--cache", str(cache),
            "--out", str(out)]
    result = CliRunner().invoke(cli.main, args)
    assert result.exit_code == 0, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"rampup: warning: the cache {cache}: no space left on the device; 2 of 3 runs are not cached; "
                           "their results are in this sweep's output"), result.stderr
    assert sorted(pd.read_csv(out)["topology.loss"].unique()) == [0.0, 0.01, 0.02]
    # The one run that was cached is read back on the rerun; the two others run again.
    monkeypatch.setattr(run_cache, "store", real_store)
    result = CliRunner().invoke(cli.main, [*args, "--overwrite"])
    assert result.exit_code == 0 and "(1 cached, 2 run in" in result.stdout, result.output


def test_a_full_disk_anywhere_is_the_environments_error_not_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/x")

    monkeypatch.setattr(parts, "defaults_markdown", full)
    result = CliRunner().invoke(cli.main, ["defaults", "--markdown"])
    assert result.exit_code == 1
    _one_line(result.stderr, "writing /somewhere/x: no space left on the device")


def test_check_takes_set_and_says_what_was_meant(run_cli, demo_path: Path) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("check", demo_path, "--set", "flow[0].tcp.cc=vegas")
    assert (proc.returncode, proc.stdout.splitlines()[0]) == (0, f"{demo_path}: ok with flow[0].tcp.cc=vegas"), proc.stderr
    proc = run_cli("check", demo_path, "--set", "flow[0].tcp.ccc=vegas")
    assert proc.returncode == 2
    _one_line(proc.stderr, "flow[0].tcp.ccc: unknown field `ccc` (did you mean `cc`?)")
    proc = run_cli("check", demo_path, "--set", "flow[0].tcp.cc=vegass")
    _one_line(proc.stderr, "unknown cc \"vegass\" (did you mean `vegas`?)")


def test_the_summary_is_not_cut_in_a_pipe(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    long_name = "a_client_host_whose_name_alone_takes_most_of_eighty_columns_of_a_terminal"
    scenario = tmp_path / "lan.toml"
    scenario.write_text((ROOT / "scenarios" / "lan.toml").read_text().replace('"client"', f'"{long_name}"'))
    proc = run_cli("run", scenario, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if long_name in line]
    assert len(rows) == pd.read_parquet(tmp_path / "out" / "flows.parquet").shape[0], proc.stdout
    assert max(len(line) for line in rows) > 80 and "…" not in proc.stdout
