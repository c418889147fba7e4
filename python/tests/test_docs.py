"""The docs stay true: the scenario examples are valid, every file they name is in the
repository, and the numbers they quote from the reproductions are what the reproductions
compute now."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

import rampup
from rampup.experiments import PAPERS, Context, load

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "scenarios.md"


def test_every_toml_example_in_the_scenario_reference_is_valid() -> None:
    blocks = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        rampup.check(block)


def test_the_defaults_table_is_the_engines(run_cli) -> None:
    # docs/scenarios.md carries `rampup defaults --markdown` between its markers: a default that
    # changes, or a key added with one, without the page changing fails here (the engine's own
    # test, scenario::defaults, fails for a tcp key without a row).
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- defaults: rampup defaults --markdown -->\n(.*?)<!-- /defaults -->", text, re.S)
    assert block, "docs/scenarios.md has no defaults table"
    proc = run_cli("defaults", "--markdown")
    assert proc.returncode == 0, proc.stderr
    assert block.group(1) == proc.stdout
    assert "| topology | `bottleneck_queue` | `{ packets = 1000 }` |" in proc.stdout


def test_the_readmes_python_scenario_runs() -> None:
    # The README's scenario built as a dict (per-pair access delays) runs as printed, with the
    # RTTs its comment gives.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "scenario = {" in b)
    names: dict = {"rampup": rampup}
    exec(block[block.index("scenario = {"):], names)
    assert list(rampup.inspect(names["scenario"])["propagation_rtt_ns"]) == [24_000_000, 60_000_000, 180_000_000]


def test_the_docs_name_only_files_a_clone_has() -> None:
    # A path in backticks that looks like a file of ours must exist in the repository; and no
    # page points outside it (a reader's clone has no ../shared or /work).
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "../" not in text and "/work/" not in text, f"{page.name} points outside the repository"
        for path in re.findall(r"`((?:crates|python|docs|scenarios|scripts|validation)/[A-Za-z0-9_./-]+)`", text):
            if "*" in path or "<" in path:
                continue
            assert (ROOT / path.rstrip("/")).exists(), f"{page.name} names {path}, which a clone does not have"


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Context]:
    """Runs a paper's full reproduction once (in this module) and gives its context."""
    done: dict[str, Context] = {}

    def run(paper: str) -> Context:
        if paper not in done:
            root = tmp_path_factory.mktemp(f"full-{paper}")
            ctx = Context(out=root / "out", cache=root / "cache", quick=False)
            load(paper).reproduce(ctx)
            done[paper] = ctx
        return done[paper]

    return run


#: The docs page of each paper's reproduction, where it is not docs/<paper>.md.
PAGES = {"newcwv": "new-cwv"}


@pytest.mark.long
@pytest.mark.parametrize("paper", list(PAPERS))
def test_the_claims_in_docs_are_the_full_reproductions(paper: str, full: Callable[[str], Context]) -> None:
    # docs/<paper>.md quotes the claims table the full reproduction writes (verdicts, counts and
    # numbers) and its number of runs; when the engine or a rule changes them, this fails until
    # the page is updated: copy results/reproduce/<paper>/claims-table.md over the block between
    # the markers.
    doc = (ROOT / "docs" / f"{PAGES.get(paper, paper)}.md").read_text(encoding="utf-8")
    assert "<!-- claims:" in doc and "<!-- end of claims -->" in doc
    block = doc.split("<!-- claims:", 1)[1].split("\n", 1)[1].split("<!-- end of claims -->", 1)[0]
    ctx = full(paper)
    assert block == (ctx.out / load(paper).DOCS_TABLE).read_text(encoding="utf-8")
    assert f"{ctx.runs:,} runs" in doc


def _compare_rbp_rows(doc: str, which: str) -> list[list[str]]:
    """The rows of a table that validation/compare_rbp.py printed into docs/validation.md."""
    block = doc.split(f"<!-- compare_rbp: {which}", 1)[1].split("<!-- end of compare_rbp -->", 1)[0]
    return [[c.strip() for c in line.split("|")[1:-1]] for line in block.splitlines() if re.match(r"\| \d+ KB", line)]


@pytest.mark.long
def test_the_ns2_comparison_has_the_reproductions_numbers(full: Callable[[str], Context]) -> None:
    # docs/validation.md (Paper 000) and docs/rbp.md compare rampup's RBP experiment with ns-2's
    # agents. ns-2's columns do not change; rampup's must be what the reproduction computes now
    # (the same scenarios and seeds), and the bounds the pages state must hold for them. When
    # this fails, rerun `python3 validation/compare_rbp.py` and update the tables and the text.
    doc = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    t = pd.read_parquet(full("rbp").out / "transfers.parquet")
    t = t[(t["variant"] == "main") & (t["sweep"] == "burst")]

    def ours(burst: str, scheme: str, restarts: bool) -> pd.DataFrame:
        g = t[(t["x"] == float(burst.removesuffix(" KB"))) & (t["scheme"] == scheme)]
        return g[g["index"] >= 1] if restarts else g[g["index"] == 0]

    restarts = _compare_rbp_rows(doc, "restarts")
    assert len(restarts) == 15
    for burst, scheme, _, ns2_elapsed, elapsed, _, _, drops, _, _, _, retx, _ in restarts:
        g = ours(burst, scheme, True)
        assert (elapsed, drops, retx) == (f"{g['elapsed_s'].mean():.3f}", f"{g['drops'].mean():.2f}",
                                          f"{g['retransmits'].mean():.2f}"), (burst, scheme)
        # "SSR, NSSR and RBP/cwnd agree within 5 % in elapsed time, Vegas within 10 %".
        bound = {"reno-ssr": 0.05, "reno-nssr": 0.05, "RBP/cwnd": 0.05, "vegas-nssr": 0.10}.get(scheme)
        if bound is not None:
            assert abs(g["elapsed_s"].mean() / float(ns2_elapsed) - 1) <= bound, (burst, scheme)
    startup = _compare_rbp_rows(doc, "startup")
    assert len(startup) == 15
    for burst, scheme, _, elapsed, _, _, drops in startup:
        g = ours(burst, scheme, False)
        assert (elapsed, drops) == (f"{g['elapsed_s'].mean():.3f}", f"{g['drops'].mean():.2f}"), (burst, scheme)
