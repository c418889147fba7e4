"""The scenario example in docs/scenarios.md is valid, so the reference stays true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("paper", ["rbp", "ssthreshless"])
def test_the_claims_in_docs_are_the_full_reproductions(paper: str, tmp_path: Path) -> None:
    # docs/<paper>.md quotes the claims table the full reproduction writes (verdicts, counts and
    # numbers); when the engine or a rule changes it, this fails until the page is updated:
    # copy results/reproduce/<paper>/claims-table.md over the block between the markers.
    from rampup.experiments import Context, load

    doc = (Path(__file__).resolve().parents[2] / "docs" / f"{paper}.md").read_text(encoding="utf-8")
    assert "<!-- claims:" in doc and "<!-- end of claims -->" in doc
    block = doc.split("<!-- claims:", 1)[1].split("\n", 1)[1].split("<!-- end of claims -->", 1)[0]
    module = load(paper)
    ctx = Context(out=tmp_path / "out", cache=tmp_path / "cache", quick=False)
    module.reproduce(ctx)
    assert block == (ctx.out / module.DOCS_TABLE).read_text(encoding="utf-8")
