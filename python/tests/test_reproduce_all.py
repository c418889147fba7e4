"""`rampup reproduce all --quick`: every paper's report in one folder, and an index page whose
verdict counts are the papers' own claims tables'; `rampup reproduce --list`."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import verdict_cells

from rampup.experiments import PAPERS
from rampup.experiments.site import PaperRun, reproduce_all


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[PaperRun]]:
    root = tmp_path_factory.mktemp("site")
    return reproduce_all(root / "all", cache=root / "cache", quick=True)


def test_every_paper_is_in_the_site_and_the_index_counts_its_verdicts(site: tuple[Path, Path, list[PaperRun]]) -> None:
    md, html, done = site
    folder = md.parent
    assert [d.paper for d in done] == list(PAPERS)
    rows = [line for line in md.read_text(encoding="utf-8").splitlines() if re.match(r"\| 00\d: ", line)]
    page = html.read_text(encoding="utf-8")
    for d, row in zip(done, rows, strict=True):
        assert (folder / d.paper / "report.html").is_file() and (folder / d.paper / "report.md").is_file()
        # The counts read from the paper's own claims table (its first verdict per claim).
        table = Counter(cells[0].split(" (")[0] for cells in verdict_cells(folder / d.paper / "claims-table.md").values())
        expected = [table["holds"], table["partly"], table["does not hold"]]
        assert sum(expected) >= 4, f"{d.paper}: each paper states at least four claims"
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert cells[3:7] == [*map(str, expected), f"{d.runs:,}"], (d.paper, row)
        assert f"href='{d.paper}/report.html'" in page
    text = md.read_text(encoding="utf-8")
    assert re.search(r"rampup \S+ \(engine build \w+\); [\d,]+ runs", text) and "Quick run" in text
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {f"{p}/report.html" for p in PAPERS} <= set(manifest["files"]) and "index.html" in manifest["files"]


def test_the_list_names_every_paper(run_cli) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("reproduce", "--list")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert names == [*PAPERS, "all"]
    proc = run_cli("reproduce")
    assert proc.returncode == 2 and "--list" in proc.stderr and "Traceback" not in proc.stderr
