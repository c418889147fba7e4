"""The scenario example in docs/scenarios.md is valid, so the reference stays true."""

from __future__ import annotations

import re
from pathlib import Path

import rampup

DOC = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"


def test_every_toml_example_in_the_scenario_reference_is_valid() -> None:
    blocks = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        rampup.check(block)
