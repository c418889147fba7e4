"""Shared fixtures. These tests need the built engine: `pip install -e '.[test]'`
(or `maturin develop --release`) from the repository root, then `pytest`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
        [sys.executable, "-m", "rampup.cli", *map(str, args)],
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


_VERDICT_CELL = re.compile(r"^((holds|partly|does not hold) \(\d+/\d+\))?$")


def verdict_cells(claims_table: Path) -> dict[str, list[str]]:
    """Every verdict cell (with its count of checks passed) of a reproduction's
    claims-table.md, by claim letter, left to right and table by table; an empty cell is a
    variant that does not test that claim."""
    cells: dict[str, list[str]] = {}
    for line in claims_table.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| \((\w)\)", line)
        if m:
            row = [c.strip() for c in line.strip().strip("|").split("|")][1:]
            cells.setdefault(m.group(1), []).extend(c for c in row if _VERDICT_CELL.match(c))
    return cells
