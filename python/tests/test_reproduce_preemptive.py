"""`rampup reproduce preemptive --quick`: the report, the claims table, every figure and the data
are written; the verdicts are pinned; a second run takes every run from the cache; the
scenario is the paper's set-up with Full-TCP Reno and Preemptive Retransmission at both ends."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import checked_report, quick_reproduction, second_run_is_all_cached, verdict_cells

from rampup.experiments import Context, preemptive
from rampup.experiments.preemptive.runs import PREEMPTIVE, RACK, RACK_PREEMPTIVE, RENO

FIGURES = ["fig6", "duration-cdf", "gain-by-size", "duration-by-load"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory, quick_cache: Path) -> tuple[Path, Path, Context]:
    return quick_reproduction(tmp_path_factory, quick_cache, "preemptive")


#: The quick run's verdicts, pinned (the runs are deterministic).
PINNED = {
    "a": ["does not hold (0/4 sub-claims)"],
    "b": ["holds (4/4 sub-claims)"],
    "c": ["does not hold (0/3 sub-claims)"],
    "d": ["does not hold (1/3 sub-claims)"],
    "e": ["holds (1/1 sub-claims)"],
    "f": ["does not hold (0/1 sub-claims)"],
    "g": ["does not hold (0/1 sub-claims)"],
    "h": ["does not hold (0/1 sub-claims)"],
    "i": ["does not hold (0/1 sub-claims)"],
}


def test_quick_verdicts_are_pinned(quick: tuple[Path, Path, Context]) -> None:
    # A change to a claim's rule, a tolerance or the engine that moves a verdict fails here;
    # if the change is meant, update PINNED and say why in the commit.
    assert verdict_cells(quick[2].out / "claims-table.md") == PINNED


def test_report_claims_figures_and_data_exist(quick: tuple[Path, Path, Context]) -> None:
    md, html, ctx = quick
    text = checked_report(md, html, ctx.out, "abcdefghi", FIGURES)
    # The paper's numbers stand beside ours, and today's RACK-TLP beside the paper's pair.
    assert "297" in text and "268" in text and "Preemptive over RACK-TLP" in text
    points = pd.read_csv(ctx.out / "points.csv")
    assert set(points["sweep"]) == {"load", "delay", "factor", "cutout", "queue"}
    load_points = points[points["sweep"] == "load"]
    assert set(load_points["scheme"]) == {RENO, PREEMPTIVE, RACK, RACK_PREEMPTIVE}
    factor_points = points[points["sweep"] == "factor"]
    assert set(factor_points["scheme"]) == {RENO, PREEMPTIVE, RACK, RACK_PREEMPTIVE}
    # Preemptive fired, and counted its spurious retransmissions, in the base case.
    base = load_points[(load_points["scheme"] == PREEMPTIVE) & (load_points["x"] == 50)].iloc[0]
    assert base["preemptive"] > 0 and 0 <= base["spurious"] <= base["preemptive"]


def test_second_run_is_all_cached(quick: tuple[Path, Path, Context]) -> None:
    second_run_is_all_cached("preemptive", quick[2])


def test_the_scenario_is_the_papers_set_up() -> None:
    sc = preemptive.scenario(PREEMPTIVE, preemptive.Setup(), 1)
    assert sc["topology"]["bottleneck_rate"] == "5Mbps" and sc["topology"]["bottleneck_delay"] == "10ms"
    assert sc["flow"][0]["app"] == {"kind": "web", "utilization": 0.5}
    tcp = sc["tcp"]
    assert (tcp["mss"], tcp["recovery"], tcp["initial_window"], tcp["max_window"]) == (536, "reno", 2, 20)
    assert tcp["preemptive"] == {"factor": 3.0, "cutout": "80KiB"}
    assert "preemptive" not in preemptive.scenario(RENO, preemptive.Setup(), 1)["tcp"]
    modern = preemptive.scenario(RACK_PREEMPTIVE, preemptive.Setup(), 1)["tcp"]
    assert (modern["recovery"], modern["rack_tlp"], modern["mss"]) == ("sack", True, 536)
    with pytest.raises(ValueError, match="scheme"):
        preemptive.scenario("cubic", preemptive.Setup(), 1)
