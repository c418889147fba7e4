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


def test_the_docs_name_only_files_a_clone_has() -> None:
    # A path in backticks that looks like a file of ours must exist in the repository; and no
    # page points outside it (a reader's clone has no ../shared or /work).
    root = Path(__file__).resolve().parents[2]
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "../" not in text and "/work/" not in text, f"{page.name} points outside the repository"
        for path in re.findall(r"`((?:crates|python|docs|scenarios|scripts|validation)/[A-Za-z0-9_./-]+)`", text):
            if "*" in path or "<" in path:
                continue
            assert (root / path.rstrip("/")).exists(), f"{page.name} names {path}, which a clone does not have"
