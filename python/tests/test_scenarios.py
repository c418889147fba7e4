"""Every example in scenarios/ is valid and runs."""

from __future__ import annotations

from pathlib import Path

import pytest

import rampup

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path: Path) -> None:
    result = rampup.run(path)
    assert len(result.flows) > 0
    assert (result.flows["bytes_received"] > 0).all()
