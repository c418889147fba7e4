"""Shared fixtures. These tests need the built engine: `pip install -e '.[test]'`
(or `maturin develop --release`) from the repository root, then `pytest`."""

from __future__ import annotations

import os
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
