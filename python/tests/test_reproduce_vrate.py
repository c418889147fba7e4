"""`rampup reproduce vrate --quick`: the report, the claims table, every figure and the data
are written; the verdicts are pinned; a second run takes every run from the cache; the
scenarios are the paper's set-ups."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest
from conftest import checked_report, quick_reproduction, second_run_is_all_cached, verdict_cells

from rampup import _toml
from rampup.experiments import Context
from rampup.experiments.vrate.runs import BTCP, FIG1, FIG4, FIG5, VRATE, fig6, scenario

FIGURES = ["fig1", "fig4", "fig5", "fig6"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory, quick_cache: Path) -> tuple[Path, Path, Context]:
    return quick_reproduction(tmp_path_factory, quick_cache, "vrate")


#: The quick run's verdicts, pinned (the runs are deterministic).
PINNED = {
    "a": ["does not hold (0/4 sub-claims)"],
    "b": ["does not hold (0/5 sub-claims)"],
    "c": ["does not hold (0/4 sub-claims)"],
    "d": ["does not hold (0/4 sub-claims)"],
    "e": ["does not hold (0/1 sub-claims)"],
    "f": ["does not hold (0/2 sub-claims)"],
    "h": ["holds (2/2 sub-claims)"],
    "i": ["does not hold (0/5 sub-claims)"],
    "j": ["does not hold (0/1 sub-claims)"],
    "k": ["does not hold (0/2 sub-claims)"],
    "l": ["does not hold (0/1 sub-claims)"],
    "m": ["does not hold (0/1 sub-claims)"],
    "g": ["does not hold (0/2 sub-claims)"],
}


def test_quick_verdicts_are_pinned(quick: tuple[Path, Path, Context]) -> None:
    # A change to a claim's rule, a tolerance or the engine that moves a verdict fails here;
    # if the change is meant, update PINNED and say why in the commit.
    assert verdict_cells(quick[2].out / "claims-table.md") == PINNED


def test_report_claims_figures_and_data_exist(quick: tuple[Path, Path, Context]) -> None:
    md, html, ctx = quick
    checked_report(md, html, ctx.out, "abcdefghijklm", FIGURES)
    points = pd.read_csv(ctx.out / "points.csv")
    assert set(points["fig"].astype(str)) == {"1", "4", "5", "6"}
    runs = pd.read_csv(ctx.out / "runs.csv")
    assert runs["pct"].between(0, 100).all(), "no request is faster than bw_max allows"
    # One server in a read: nothing is shared and nothing lost, whatever the stack.
    one = runs[(runs["fig"].astype(str) == "4") & (runs["x"] == 1) & (runs["scheme"] == BTCP) & (runs["reading"] == "main")]
    assert (one["timeouts"] == 0).all() and (one["losses_per_episode"] == 0).all()


def test_second_run_is_all_cached(quick: tuple[Path, Path, Context]) -> None:
    second_run_is_all_cached("vrate", quick[2])


def test_the_scenarios_are_the_papers_set_ups() -> None:
    doc = tomllib.loads(_toml.dumps(scenario(FIG4, VRATE, 2, 8, 3)))
    topo = doc["topology"]
    assert (topo["kind"], topo["delay"], topo["queue"]) == ("lan", "1ms", {"packets": 30})
    assert [h["rate"] for h in topo["hosts"]] == ["622000000bps", "100000000bps", "100000000bps"]
    assert [(f["from"], f["to"], f["group"]) for f in doc["flow"]] == [("s1", "c1", "app"), ("s2", "c1", "app")]
    assert doc["vrate"] == {"period": "10us", "combine": "sum"} and doc["seed"] == 3
    assert all(f["app"] == {"kind": "bulk", "bytes": 8_000_000} and f["tcp"]["profile"] == "bsd44" for f in doc["flow"])
    assert "vrate" not in scenario(FIG4, BTCP, 2, 8, 3) and "group" not in scenario(FIG4, BTCP, 2, 8, 3)["flow"][0]
    assert [(f["from"], f["to"]) for f in scenario(FIG5, BTCP, 2, 2, 1)["flow"]] == [("c1", "s1"), ("c1", "s2")]
    assert scenario(FIG1, BTCP, 2, 8, 1)["topology"]["hosts"][0]["rate"] == "155000000bps"
    assert len(scenario(fig6(2), BTCP, 3, 8, 1)["flow"]) == 6
