"""The `rampup` command line: exit codes, one-line errors, results and plots."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

import rampup
from rampup import cli
from rampup.cli import inputs, progress
from rampup.cli.progress import with_progress
from rampup.sweep import with_values


def _assert_one_line_error(proc, *needles: str) -> None:  # type: ignore[no-untyped-def]
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("rampup: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert proc.stdout == ""


@pytest.mark.parametrize("command", ["run", "check"])
def test_unknown_key(run_cli, command: str, demo_text: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("bogus_key = 3\n" + demo_text)
    _assert_one_line_error(run_cli(command, bad, cwd=tmp_path), "bad.toml", "bogus_key")
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("command", ["run", "check"])
def test_missing_file(run_cli, command: str, tmp_path: Path) -> None:
    _assert_one_line_error(run_cli(command, tmp_path / "nope.toml"), "nope.toml")


@pytest.mark.parametrize("text", ['name = "x"\n[topology\n', "name = = 1\n", 'name = "unterminated\n'])
def test_bad_toml(run_cli, text: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    _assert_one_line_error(run_cli("run", bad, cwd=tmp_path), "bad.toml")


def test_folder_and_non_utf8(run_cli, tmp_path: Path) -> None:
    _assert_one_line_error(run_cli("run", tmp_path), str(tmp_path))
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b'name = "\xff\xfe"\n')
    _assert_one_line_error(run_cli("run", binary), "bin.toml")


def test_out_is_not_a_results_folder(run_cli, demo_path: Path, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    _assert_one_line_error(run_cli("run", demo_path, "--out", tmp_path), "--out")
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_check_ok(run_cli, demo_path: Path) -> None:
    proc = run_cli("check", demo_path)
    assert proc.returncode == 0, proc.stderr
    ok, estimate = proc.stdout.splitlines()
    assert ok.endswith("ok") and estimate.startswith("estimate: ")


def test_inspect_shows_each_flows_path(run_cli, demo_path: Path, tmp_path: Path) -> None:
    proc = run_cli("inspect", demo_path)
    assert proc.returncode == 0, proc.stderr
    # demo.toml: 10 Mb/s bottleneck, 2 x (20 + 2 x 1) ms of delay, 1000-byte MSS.
    row = next(line.split() for line in proc.stdout.splitlines() if line.strip().startswith("0 "))
    assert row[1:4] == ["s0", "→", "r0"] and "44.000" in row and "55,000" in row and "55.0" in row
    bad = tmp_path / "bad.toml"
    bad.write_text("duration = 1\n")
    proc = run_cli("inspect", bad)
    assert proc.returncode != 0 and proc.stderr.count("\n") == 1 and "duration" in proc.stderr


def test_run_writes_results(run_cli, demo_path: Path, tmp_path: Path) -> None:
    proc = run_cli("run", demo_path, "--seed", "4", "--plot", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "results" / "demo"  # default: results/<scenario name>/
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 4
    for name in ("flows.parquet", "timeseries.parquet", "queues.parquet", "links.parquet"):
        assert (out / name).is_file(), name
    assert list(out.glob("*.pcap"))
    for name in ("cwnd.png", "seq.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    # The summary names the flow's endpoints, and the run left no temp folder behind.
    assert "s0" in proc.stdout and "r0" in proc.stdout and "results" in proc.stdout
    assert max(len(line) for line in proc.stdout.splitlines()) <= 100  # one screen wide
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["demo"]
    assert "Traceback" not in proc.stderr


def test_set_changes_a_key_for_one_run(run_cli, demo_path: Path, tmp_path: Path) -> None:
    proc = run_cli("run", demo_path, "--set", "flow[0].tcp.cc=vegas", "--set", "duration=\"2s\"", "--out", tmp_path / "v")
    assert proc.returncode == 0, proc.stderr
    result = rampup.load(tmp_path / "v")
    assert set(result.flows.cc) == {"vegas"} and result.manifest["sim_end_s"] == 2
    for bad, message in [
        ("cc=vegas", "unknown field `cc`"),  # no such top-level key: the engine names it
        ("flow.tcp.cc=vegas", "--set 'flow.tcp.cc': flow is a list of tables; pick one, like flow[0]"),
        ("flow[0].tcp.cc=bogus", "flow[0].tcp.cc: "),
        ("novalue", "--set: 'novalue' is not KEY=VALUE"),
    ]:
        proc = run_cli("run", demo_path, "--set", bad, "--out", tmp_path / "x")
        assert proc.returncode == 2, (bad, proc.stderr)
        line = proc.stderr.strip()
        assert "\n" not in line and message in line, (bad, line)


def test_sweep_writes_one_table_and_keeps_an_existing_file(run_cli, demo_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "q.csv"
    args = ("sweep", demo_path, "--grid", "topology.bottleneck_queue.packets=10,50", "--grid", "duration=\"2s\"", "--seeds", "2")
    proc = run_cli(*args, "--out", out, "--cache", tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr
    assert "sweep: 4 runs" in proc.stdout
    df = pd.read_csv(out)
    assert sorted(set(df["topology.bottleneck_queue.packets"])) == [10, 50] and sorted(set(df.seed)) == [1, 2]
    assert len(df) == 4  # the demo has one flow
    out.write_text("mine")
    proc = run_cli(*args, "--out", out, "--cache", tmp_path / "cache")
    assert proc.returncode == 2 and "--overwrite" in proc.stderr
    assert out.read_text() == "mine"


def test_list_names_every_part_the_engine_knows(run_cli) -> None:
    proc = run_cli("list")
    assert proc.returncode == 0, proc.stderr
    for family, (key, parts) in cli.PARTS.items():
        assert f"{family} ({key}):" in proc.stdout
        # The engine names every variant when it refuses one: the list has all, and no more.
        doc = {
            "duration": "1s",
            "topology": {"kind": "dumbbell", "access_rate": "1Gbps", "access_delay": "1ms", "bottleneck_rate": "1Gbps", "bottleneck_delay": "1ms"},
            "flow": [{"from": "s0", "to": "r0", "app": {"kind": "bulk"}}],
        }
        with pytest.raises(rampup.ScenarioError) as e:
            rampup.check(with_values(doc, {key.replace("[i]", "[0]"): "bogus"}, verb="set"))
        named = set(re.findall(r"`([a-z0-9+-]+)`", str(e.value).split("expected", 1)[1]))
        # "requests" is only there to be refused with its new name, "writes".
        assert named - {"requests"} == set(parts), family


def test_check_and_run_warn_of_what_is_likely_a_mistake(run_cli, demo_path: Path, tmp_path: Path) -> None:
    late = tmp_path / "late.toml"
    late.write_text(demo_path.read_text().replace('start = "0s"', 'start = "99s"', 1))
    proc = run_cli("check", late)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == f"rampup: warning: {late}: flow[0].start: 99s is not before the end of the run (10s): the flow sends nothing"
    proc = run_cli("run", demo_path, "--set", 'flow[0].start="99s"', "--out", tmp_path / "out")
    assert proc.returncode == 0 and "flow[0].start: 99s is not before the end" in proc.stderr


def test_run_of_many_connections_summarises_them(run_cli, tmp_path: Path) -> None:
    churn = Path(__file__).resolve().parents[2] / "scenarios" / "churn.toml"
    text = churn.read_text().replace("connections = 2000", "connections = 3").replace('"130s"', '"5s"')
    (tmp_path / "few.toml").write_text(text)
    proc = run_cli("run", tmp_path / "few.toml", "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    # Ten flows of three connections each, every one closed within the 5 s.
    assert "30 connections, 30 closed by the end; open to last byte down: median" in proc.stdout
    conns = rampup.load(tmp_path / "out").tables["connections"]
    assert len(conns) == 30 and (conns.bytes_down == 10_000).all()


def test_run_csv_out_and_rerun(run_cli, demo_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    first = run_cli("run", demo_path, "--out", out, "--csv")
    assert first.returncode == 0, first.stderr
    assert (out / "flows.csv").is_file() and not (out / "cwnd.png").exists()
    hash1 = json.loads((out / "manifest.json").read_text())["content_hash"]
    second = run_cli("run", demo_path, "--out", out, "--csv")
    assert second.returncode == 0, second.stderr
    assert json.loads((out / "manifest.json").read_text())["content_hash"] == hash1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_progress_indicator_for_slow_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "PROGRESS_AFTER_S", 0.05)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=80)
    assert with_progress(lambda: time.sleep(0.4) or 42, console, "running demo") == 42
    assert "running demo" in buf.getvalue()
    # With a fraction to report: a bar.
    fraction = iter([0.0, 0.5, 1.0] + [1.0] * 100)
    buf3 = io.StringIO()
    console3 = Console(file=buf3, force_terminal=True, width=100)
    assert (
        with_progress(lambda: time.sleep(0.4) or 1, console3, "running demo", lambda: next(fraction))
        == 1
    )
    assert "%" in buf3.getvalue()
    buf2 = io.StringIO()
    quiet = Console(file=buf2, force_terminal=True, width=80)
    monkeypatch.setattr(progress, "PROGRESS_AFTER_S", 5.0)
    assert with_progress(lambda: 7, quiet, "running demo") == 7
    assert buf2.getvalue() == ""  # fast work: no spinner


def test_errors_in_the_worker_reach_the_caller() -> None:
    console = Console(file=io.StringIO())

    def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        with_progress(boom, console, "x")


def test_a_bad_thread_count_is_refused_in_one_line(run_cli) -> None:  # type: ignore[no-untyped-def]
    for value in ["two", "0", " 1"]:
        proc = run_cli("bench", "--flows", "1", "--duration", "0.1", "--repeat", "1", "--no-ns2", env={"RAMPUP_THREADS": value})
        assert proc.returncode == 2, (value, proc.stderr)
        assert proc.stderr.strip().splitlines() == [f"rampup: error: RAMPUP_THREADS: {value!r} is not allowed; give a whole number of threads, 1 or more"]
    ok = run_cli("bench", "--flows", "1", "--duration", "0.1", "--repeat", "1", "--no-ns2", env={"RAMPUP_THREADS": "1"})
    assert ok.returncode == 0, ok.stderr


def test_exit_codes_of_every_kind_of_error(run_cli, demo_path: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Usage errors: one line naming the help to read, exit 2 (click prints three lines).
    _assert_one_line_error(run_cli("run", "--bogus", "x"), "No such option '--bogus'", "rampup run --help")
    _assert_one_line_error(run_cli("frobnicate"), "No such command 'frobnicate'")
    _assert_one_line_error(run_cli("run"), "Missing argument 'FILE'")
    _assert_one_line_error(run_cli("run", str(demo_path), "--seed", "-1"), "--seed")
    # A symlink loop as the scenario and as --out.
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    _assert_one_line_error(run_cli("check", str(tmp_path / "a")), "symbolic links")
    _assert_one_line_error(run_cli("run", str(demo_path), "--out", str(tmp_path / "a")), "--out", "loop")
    # Not a regular file: refused before reading (/dev/zero would never end).
    _assert_one_line_error(run_cli("run", "/dev/zero"), "/dev/zero: not a regular file")
    _assert_one_line_error(run_cli("check", str(tmp_path)), "a folder")
    # Help and version are not errors.
    assert run_cli("--help").returncode == 0
    assert run_cli("run", "--help").returncode == 0


def test_an_internal_fault_is_one_line_asking_for_a_report(monkeypatch: pytest.MonkeyPatch, demo_path: Path) -> None:
    from click.testing import CliRunner

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AttributeError("'NoneType' object has no attribute 'x'")

    monkeypatch.setattr(inputs, "read_scenario_file", broken)
    monkeypatch.delenv("RAMPUP_DEBUG", raising=False)
    result = CliRunner().invoke(cli.main, ["check", str(demo_path)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rampup: error: internal fault (AttributeError"), result.output
    assert "this is a bug in rampup: please report it" in lines[0]


def test_an_oversized_scenario_file_is_refused_unread(tmp_path: Path) -> None:
    from rampup import api

    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(api.MAX_SCENARIO_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(ValueError, match="larger than 64 MiB"):
        api.read_scenario_file(big)


def _interrupt(args: list[str], ready: Callable[[], bool]) -> subprocess.CompletedProcess[str]:
    """Starts the real command line, sends SIGINT (Ctrl-C) once ``ready()`` (polled for at
    most a minute), and waits for it to exit."""
    child = subprocess.Popen([sys.executable, "-m", "rampup", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not ready() and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def test_ctrl_c_stops_a_run_and_leaves_no_folder(demo_text: str, tmp_path: Path) -> None:
    # The engine runs on the main thread, where Python hears SIGINT: it stops mid-run, the
    # folder being written is removed and the exit code is 130 (128 + SIGINT).
    long = tmp_path / "long.toml"
    long.write_text(re.sub(r'(?m)^duration = .*$', 'duration = "100000s"', demo_text))
    # Interrupted once the run is under way: its staging folder exists beside the target.
    def running() -> bool:
        return any(p.name.startswith(".out.tmp-") for p in tmp_path.iterdir())

    proc = _interrupt(["run", str(long), "--out", str(tmp_path / "out")], running)
    assert (proc.returncode, proc.stderr) == (130, "rampup: error: interrupted\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.toml"]


def test_ctrl_c_stops_a_reproduction_and_keeps_finished_runs(tmp_path: Path) -> None:
    # The runs not started are dropped; each finished run is a whole cache entry, so the
    # next `reproduce` does not redo it (the cache tests check an entry is reused).
    cache = tmp_path / "cache"
    def finished_one() -> bool:
        return cache.is_dir() and any(cache.rglob("entry.json"))

    args = ["reproduce", "rbp", "--out", str(tmp_path / "report"), "--cache", str(cache)]
    proc = _interrupt(args, finished_one)
    assert proc.returncode == 130 and proc.stderr == (
        f"rampup: error: interrupted; every run finished so far is kept in the cache {cache}, "
        f"and the same command resumes from there: rampup {' '.join(args)}\n")
    assert not (tmp_path / "report").exists()
    entries = [p for p in cache.rglob("entry.json")]
    assert entries, "the runs that finished before Ctrl-C stay"
    assert not [p for p in cache.rglob("*") if p.name.startswith(".")], "no half-written entry is left"


def test_an_unwritable_cache_or_out_is_one_line_before_any_run(run_cli, demo_path: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    proc = run_cli("reproduce", "rbp", "--quick", "--cache", blocker / "c", "--out", tmp_path / "r")
    assert proc.returncode == 2 and proc.stderr.startswith(f"rampup: error: --cache {blocker / 'c'}: "), proc.stderr
    proc = run_cli("run", demo_path, "--out", blocker / "x")
    assert proc.returncode == 2 and proc.stderr.startswith(f"rampup: error: --out {blocker / 'x'}: "), proc.stderr
    assert proc.stderr.count("\n") == 1 and blocker.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
