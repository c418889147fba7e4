"""The then-and-now comparison (`rampup.experiments.then_now`): a point's outcome from two
means and their 90% CIs, a claim's verdict from its points' outcomes, and the table."""

from __future__ import annotations

import math

import pandas as pd

from rampup.experiments.framework import View
from rampup.experiments.then_now import Row, outcome, table, verdict


def test_a_point_is_won_only_where_the_cis_lie_apart() -> None:
    # Lower is better: 1.0 ± 0.1 against 1.5 ± 0.1 wins; against 1.15 ± 0.1 the CIs overlap.
    assert outcome(1.0, 0.1, 1.5, 0.1, lower_is_better=True) == "beats"
    assert outcome(1.0, 0.1, 1.15, 0.1, lower_is_better=True) == "ties"
    assert outcome(1.5, 0.1, 1.0, 0.1, lower_is_better=True) == "loses"
    # Higher is better (utilization): the same numbers the other way round.
    assert outcome(1.5, 0.1, 1.0, 0.1, lower_is_better=False) == "beats"
    assert outcome(1.0, 0.1, 1.5, 0.1, lower_is_better=False) == "loses"


def test_one_seed_compares_the_means_alone() -> None:
    assert outcome(1.0, math.nan, 1.01, math.nan, lower_is_better=True) == "beats"
    assert outcome(1.0, math.nan, 1.0, math.nan, lower_is_better=True) == "ties"


def test_a_claims_verdict() -> None:
    assert verdict(["beats", "beats", "ties"]) == "still beats"
    assert verdict(["beats", "ties", "ties"]) == "mixed"  # not more than half
    assert verdict(["beats", "beats", "loses"]) == "mixed"  # a loss
    assert verdict(["ties", "loses"]) == "does not beat"


def test_the_table_compares_each_pair_on_the_claims_points() -> None:
    rows = [{"scheme": s, "sweep": "burst", "x": x, "el": el, "el_ci90": 0.05}
            for s, els in (("RBP", [1.0, 2.0, 3.0]), ("linux", [1.5, 2.0, 2.0])) for x, el in zip((4.0, 24.0, 40.0), els, strict=True)]
    v = View(pd.DataFrame(rows), {})
    t = table(v, [Row("b", "elapsed (s)", "el", True, {"sweep": "burst"}, lambda x: x > 12, "KB")], [("RBP", "linux")])
    assert t.to_dict("records") == [{
        "claim": "b", "quantity": "elapsed (s)", "points": "24-40 KB", "scheme": "RBP", "its": "2.00-3.00",
        "against": "linux", "today's": "2.00", "beats / ties / loses": "0 / 1 / 1", "verdict": "does not beat"}]
