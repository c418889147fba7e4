"""`rampup reproduce all --quick`: every paper's report in one folder, and an index page whose
verdict counts are the papers' own claims tables'; `rampup reproduce --list`; a run stopped
midway (Ctrl-C, then a kill) leaves no site, and the next finishes with every run done before."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import verdict_cells

from rampup.cache_entry import ENTRY
from rampup.experiments import PAPERS, load
from rampup.experiments.checks import VERDICTS
from rampup.experiments.site import PaperRun


def test_every_paper_is_in_the_site_and_the_index_counts_its_verdicts(quick_site: tuple[Path, Path, list[PaperRun]]) -> None:
    md, html, done = quick_site
    folder = md.parent
    assert [d.paper for d in done] == list(PAPERS)
    rows = [line for line in md.read_text(encoding="utf-8").splitlines() if re.match(r"\| 00\d: ", line)]
    page = html.read_text(encoding="utf-8")
    for d, row in zip(done, rows, strict=True):
        assert (folder / d.paper / "report.html").is_file() and (folder / d.paper / "report.md").is_file()
        # The counts read from the paper's own claims table (its first verdict per claim).
        table = Counter(cells[0].split(" (")[0] for cells in verdict_cells(folder / d.paper / "claims-table.md").values())
        expected = [table[v] for v in VERDICTS]
        assert sum(expected) >= 4, f"{d.paper}: each paper states at least four claims"
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert cells[3:8] == [*map(str, expected), f"{d.runs:,}"], (d.paper, row)
        assert f"href='{d.paper}/report.html'" in page
    text = md.read_text(encoding="utf-8")
    assert re.search(r"rampup \S+ \(engine build \w+\); [\d,]+ smoke-test runs", text) and "Quick run" in text
    assert text.startswith("# rampup: a smoke test"), "a quick run's title says so"
    # Every claim in one line with its statement and verdict.
    section = text[text.index("## Claims"):text.index("## Then and now")]
    claims = [r for r in section.splitlines() if re.match(r"\| (rbp|ssthreshless|preemptive|newcwv|vrate) \| \w \| ", r)]
    assert len(claims) == sum(len(d.claims) for d in done) and all(d.claims for d in done)
    assert all(len(r.split("|")[3].strip()) > 20 for r in claims), "a statement, not a letter"
    assert all(r.split("|")[5].strip() for r in claims), "and the readings it holds under"
    # One figure per paper, from its report.
    assert all(d.figure and f"![{d.paper}/{d.figure}.png]({d.paper}/{d.figure}.png)" in text for d in done)
    # Each paper's then-and-now table: a line per row and pair (none left out for want of points),
    # and the index shows them all.
    for d in done:
        exp = next(v for v in vars(load(d.paper)).values() if isinstance(v, type) and getattr(v, "name", None) == d.paper)
        lines = sum(row.compares(*pair) for row in exp.then_now_rows for pair in exp.then_now_pairs)
        assert d.then_now is not None and len(d.then_now) == lines > 0, d.paper
    now = text[text.index("## Then and now"):]
    assert len(re.findall(r"^\| (?:" + "|".join(PAPERS) + r") \| [a-i] \|", now, re.M)) == sum(len(d.then_now) for d in done)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {f"{p}/report.html" for p in PAPERS} <= set(manifest["files"]) and "index.html" in manifest["files"]


def test_the_list_names_every_paper(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("reproduce", "--list")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert names == [*PAPERS, "all"]
    proc = run_cli("reproduce")
    assert proc.returncode == 2 and "--list" in proc.stderr and "Traceback" not in proc.stderr


def _entries(cache: Path) -> int:
    """Finished runs in the cache (their folders have an entry; those being written start with a dot)."""
    return sum(1 for p in cache.iterdir() if not p.name.startswith(".") and (p / ENTRY).is_file()) if cache.is_dir() else 0


def _stop_midway(args: list[str], cache: Path, after: int, sig: signal.Signals) -> tuple[int, int]:
    """Starts the real command line, sends ``sig`` once the cache holds ``after`` runs, and
    waits for the end: (its exit code, the runs cached then)."""
    child = subprocess.Popen([sys.executable, "-m", "rampup", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while _entries(cache) < after and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.05)
        assert child.poll() is None, f"finished before it was stopped: {child.stderr.read() if child.stderr else ''}"
        child.send_signal(sig)
        child.communicate(timeout=120)
    finally:
        child.kill()
    return child.returncode, _entries(cache)


# Three quick reproductions of every paper from a cold cache: experiment-size, so in
# scripts/test-long.sh (test_cli.py stops one paper's reproduction in the quick suite).
@pytest.mark.long
def test_a_run_stopped_midway_leaves_no_site_and_the_next_redoes_nothing(quick_site: tuple[Path, Path, list[PaperRun]],
                                                                        tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    total = sum(d.runs for d in quick_site[2])
    out, cache = tmp_path / "site", tmp_path / "cache"
    args = ["reproduce", "all", "--quick", "--out", str(out), "--cache", str(cache)]
    code, first = _stop_midway(args, cache, total // 4, signal.SIGINT)  # Ctrl-C
    assert code == 130 and not out.exists() and [p.name for p in tmp_path.iterdir()] == ["cache"], "no half site, no staging folder"
    code, second = _stop_midway(args, cache, total // 2, signal.SIGKILL)  # no chance to tidy up
    assert code == -signal.SIGKILL and not out.exists() and second > first
    assert len([p for p in tmp_path.iterdir() if p.name.startswith(".site.tmp-")]) == 1, "its staging folder is left"
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "site"], "the killed run's staging folder removed"
    # It ran only what was not cached: every run finished before the stops was reused.
    cached = dict(re.findall(r"^(\w+): \d+ runs \((\d+) cached\)", proc.stdout, re.M))
    assert list(cached) == list(PAPERS) and sum(map(int, cached.values())) >= second
    # And wrote what an uninterrupted run writes.
    whole = quick_site[0].parent
    for paper in PAPERS:
        for name in ("runs.csv", "points.csv", "claims-table.md"):
            assert (out / paper / name).read_bytes() == (whole / paper / name).read_bytes(), f"{paper}/{name}"
