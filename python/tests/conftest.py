"""Shared fixtures. These tests need the built engine: `pip install -e '.[test]'`
(or `maturin develop --release`) from the repository root, then `pytest`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from rampup.experiments.site import PaperRun

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scenarios" / "demo.toml"


@pytest.fixture(scope="session")
def demo_path() -> Path:
    return DEMO


@pytest.fixture(scope="session")
def demo_text() -> str:
    return DEMO.read_text(encoding="utf-8")


def _run_cli(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rampup", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


@pytest.fixture(scope="session")
def run_cli():  # type: ignore[no-untyped-def]
    """Runs the real `rampup` command line in a fresh interpreter (as a user would):
    ``run_cli("run", path, cwd=tmp_path)`` -> CompletedProcess with text stdout/stderr."""
    return _run_cli


@pytest.fixture(scope="session")
def quick_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one cache of the session's quick reproductions (the site's and each paper's), so
    that each quick run is made once; the tests that need a cold cache make their own."""
    return tmp_path_factory.mktemp("quick-cache")


@pytest.fixture(scope="session")
def quick_site(tmp_path_factory: pytest.TempPathFactory, quick_cache: Path) -> tuple[Path, Path, list[PaperRun]]:
    """`rampup reproduce all --quick` (about a minute), built once per session for the tests
    that read the site: (index.md, index.html, each paper's `PaperRun`)."""
    from rampup.experiments.site import reproduce_all

    root = tmp_path_factory.mktemp("site")
    return reproduce_all(root / "all", cache=quick_cache, quick=True)


def quick_reproduction(factory: pytest.TempPathFactory, cache: Path, paper: str):  # type: ignore[no-untyped-def]
    """`rampup reproduce PAPER --quick` into a fresh folder, with the session's quick cache:
    (report.md, report.html, its Context)."""
    from rampup.experiments import Context, load

    root = factory.mktemp(f"reproduce-{paper}")
    ctx = Context(out=root / "out", cache=cache, quick=True)
    md, html = load(paper).reproduce(ctx)
    return md, html, ctx


def checked_report(md: Path, html: Path, out: Path, claims: str, figures: list[str]) -> str:
    """The report's text, once checked: both pages exist, the claims section has a row with
    a verdict for each of ``claims`` (their letters), and each of ``figures`` is written and
    shown."""
    from rampup.experiments.report import VERDICTS

    assert md.exists() and html.exists()
    text = md.read_text(encoding="utf-8")
    claims_part = text[text.index("## Claims"):text.index("## Set-up")]
    rows = [line.split("|") for line in claims_part.splitlines() if line.startswith("| ")][1:]
    assert {r[1].strip() for r in rows} == set(claims)
    for r in rows:
        assert r[5].strip() in VERDICTS, r[1]
    for name in figures:
        assert (out / f"{name}.png").stat().st_size > 1000, name
        assert f"({name}.png)" in text, name
    return text


def second_run_is_all_cached(paper: str, first) -> None:  # type: ignore[no-untyped-def]
    """A second quick run with the first's cache takes every run from it and writes the
    same claims."""
    from rampup.experiments import Context, load

    ctx = Context(out=first.out.parent / "again", cache=first.cache, quick=True)
    load(paper).reproduce(ctx)
    assert ctx.cached == ctx.runs == first.runs
    assert (ctx.out / "claims-table.md").read_text() == (first.out / "claims-table.md").read_text()


_COUNT = r"\d+/\d+ sub-claims(, \d+ partly)?(, \d+ not testable)?|\d+ sub-claims, none testable"
_VERDICT_CELL = re.compile(rf"^((holds|partly|does not hold|not testable here) \(({_COUNT})\))?$")


def verdict_cells(claims_table: Path) -> dict[str, list[str]]:
    """Every verdict cell (with its count of sub-claims that hold) of a reproduction's
    claims-table.md, by claim letter, left to right and table by table; an empty cell is a
    variant that does not test that claim."""
    cells: dict[str, list[str]] = {}
    for line in claims_table.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| \((\w)\)", line)
        if m:
            row = [c.strip() for c in line.strip().strip("|").split("|")][1:]
            cells.setdefault(m.group(1), []).extend(c for c in row if _VERDICT_CELL.match(c))
    return cells
