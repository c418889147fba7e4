"""`rampup reproduce rbp --quick`: the report, the claims table and every figure are written,
and a second run takes every run from the cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import quick_reproduction, verdict_cells

import rampup
from rampup import cache as run_cache
from rampup.experiments import Context, load, rbp
from rampup.experiments.report import VERDICTS

FIGURES = ["fig6", "fig7", "fig8", "fig9", "fig10", "fig6-7-mss512", "fig6-7-rfc", "fig6-7-packets", "fig6-7-fq-codel+ecn"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory, quick_cache: Path) -> tuple[Path, Path, Context]:
    return quick_reproduction(tmp_path_factory, quick_cache, "rbp")


def test_report_claims_and_figures_exist(quick: tuple[Path, Path, Context]) -> None:
    md, html, ctx = quick
    assert md.exists() and html.exists()
    text = md.read_text(encoding="utf-8")
    assert "## Claims" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.split("|")[1].strip() in "abcdefghijk"]
    claims = {line.split("|")[1].strip() for line in rows[:11]}
    assert claims == set("abcdefghijk")
    for line in rows[:11]:
        assert line.split("|")[5].strip() in VERDICTS
    for name in FIGURES:
        assert (ctx.out / f"{name}.png").stat().st_size > 1000, name
        assert f"({name}.png)" in text
    for data in ("transfers.parquet", "runs.csv", "points.csv", "example-scenario.toml"):
        assert (ctx.out / data).exists(), data
    points = pd.read_csv(ctx.out / "points.csv")
    assert set(points["scheme"]) == set(rbp.SCHEMES)
    # Today's Linux runs in the main variant only.
    assert set(points[points["scheme"].str.startswith("linux")]["variant"]) == {"main"}
    assert set(points["sweep"]) == {"burst", "delay24", "delay10"}
    assert ctx.runs > 0


def test_the_report_says_what_it_reproduces_and_shares_as_one_file(quick: tuple[Path, Path, Context]) -> None:
    md, html, ctx = quick
    text = md.read_text(encoding="utf-8")
    intro = text[:text.index("## Claims")]
    assert 'Visweswaraiah and John Heidemann, "Improving Restart of Idle TCP Connections"' in intro and "1997" in intro
    assert f"rampup {rampup.__version__} (engine build {run_cache.engine_build()})" in intro
    assert "`rampup reproduce rbp --quick`" in intro and "Quick run: a smoke test" in intro
    page = html.read_text(encoding="utf-8")
    # Self-contained: every figure embedded, none fetched from beside the page.
    assert page.count("<img src='data:image/png;base64,") == len(FIGURES) and "src='fig" not in page
    # Each figure's title once: its heading, not again in its caption.
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("![") and lines[i - 2].startswith("## "):
            assert lines[i - 2][3:] not in lines[i + 2], lines[i - 2]


def test_second_run_is_all_cached(quick: tuple[Path, Path, Context]) -> None:
    _, _, first = quick
    again = Context(out=first.out, cache=first.cache, quick=True)
    load("rbp").reproduce(again)
    assert again.runs == first.runs
    assert again.cached == again.runs, "every run of the second reproduction should come from the cache"


def test_schedule_is_seeded_and_within_the_window() -> None:
    s = rbp.Setup()
    a, b = rbp.start_times(3, s), rbp.start_times(3, s)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, rbp.start_times(4, s))
    centres = s.first_s + s.gap_s * np.arange(s.rounds)
    assert a.shape == (s.rounds, s.clients)
    assert np.all(np.abs(a - centres[:, None]) <= s.jitter_s + 1e-6)
    # The same seed gives the same schedule whatever the scheme, burst, queue or delay.
    def ats(doc: dict) -> list[list[str]]:
        return [[w["at"] for w in f["app"]["schedule"]] for f in doc["flow"]]

    d1 = rbp.scenario("reno-ssr", rbp.Setup(burst=2000), 3)
    d2 = rbp.scenario("RBP/rate", rbp.Setup(burst=40000, delay_ms=800, queue=24000), 3)
    assert ats(d1) == ats(d2)


def test_the_ns2_profile_runs_each_restart_as_ns2s_agents() -> None:
    # docs/ns2-reading.md: idle at the retransmission timer's expiry (tcp.cc newtimer), SSR to one
    # segment (TcpAgent::timeout), RBP's count, rate and spacing from tcp-rbp.cc; the rfc reading
    # keeps rampup's own.
    def tcp(scheme: str, profile: str) -> dict:
        return rbp.scenario(scheme, rbp.Setup(profile=profile), 1)["tcp"]

    assert tcp("reno-ssr", "ns2")["restart"] == "ssr-ns2"
    assert tcp("reno-nssr", "ns2")["restart"] == "nssr"
    assert tcp("RBP/rate", "ns2")["restart"] == {"kind": "rbp-rate", "scale": 1.0, "form": "ns2"}
    assert tcp("RBP/cwnd", "ns2")["restart"] == {"kind": "rbp-cwnd", "scale": 1.0, "form": "ns2"}
    assert all(tcp(s, "ns2")["idle_threshold"] == "rtx-timer" for s in ("reno-ssr", "vegas-nssr", "RBP/rate"))
    assert tcp("reno-ssr", "rfc")["restart"] == "ssr" and "idle_threshold" not in tcp("RBP/rate", "rfc")
    assert tcp("RBP/rate", "rfc")["restart"] == {"kind": "rbp-rate", "scale": 1.0}
    assert "ack_first_segment" not in tcp("reno-ssr", "ns2"), "rbp.tcl sets SYN_immediate_ack_ false"


#: The quick run's verdicts, pinned (the runs are deterministic): main, mss 512, RFC defaults,
#: the queue in packets, and today's bottleneck (FQ-CoDel with ECN).
PINNED = {
    "a": [
        "does not hold (0/2 sub-claims)", "does not hold (0/2 sub-claims)", "does not hold (0/2 sub-claims)", "does not hold (1/2 sub-claims)",
        "does not hold (1/2 sub-claims)",
    ],
    "b": [
        "does not hold (2/4 sub-claims)", "does not hold (2/4 sub-claims)", "does not hold (2/4 sub-claims)", "does not hold (3/4 sub-claims)",
        "does not hold (2/4 sub-claims)",
    ],
    "c": [
        "does not hold (1/3 sub-claims)", "does not hold (2/3 sub-claims)", "does not hold (1/3 sub-claims)", "does not hold (2/3 sub-claims)",
        "does not hold (0/2 sub-claims, 1 not testable)",
    ],
    "d": [
        "does not hold (2/3 sub-claims)", "does not hold (2/3 sub-claims)", "does not hold (2/3 sub-claims)", "does not hold (2/3 sub-claims)",
        "does not hold (2/3 sub-claims)",
    ],
    "e": [
        "does not hold (2/4 sub-claims)", "does not hold (2/4 sub-claims)", "does not hold (2/4 sub-claims)", "does not hold (2/4 sub-claims)",
        "does not hold (2/4 sub-claims)",
    ],
    "f": [
        "does not hold (2/4 sub-claims)", "does not hold (2/4 sub-claims)", "does not hold (1/4 sub-claims)", "does not hold (1/4 sub-claims)",
        "does not hold (1/3 sub-claims, 1 not testable)",
    ],
    "g": [
        "does not hold (0/1 sub-claims)", "holds (1/1 sub-claims)", "does not hold (0/1 sub-claims)", "holds (1/1 sub-claims)",
        "does not hold (0/1 sub-claims)",
    ],
    "h": [
        "holds (5/5 sub-claims)", "holds (5/5 sub-claims)", "does not hold (4/5 sub-claims)", "holds (5/5 sub-claims)", "holds (5/5 sub-claims)",
    ],
    "i": [
        "holds (1/1 sub-claims)", "holds (1/1 sub-claims)", "holds (1/1 sub-claims)", "holds (1/1 sub-claims)", "holds (1/1 sub-claims)",
    ],
    "j": [
        "does not hold (0/1 sub-claims)", "does not hold (0/1 sub-claims)", "does not hold (0/1 sub-claims)", "does not hold (0/1 sub-claims)",
        "does not hold (0/1 sub-claims)",
    ],
    "k": [
        "does not hold (0/3 sub-claims)", "does not hold (0/3 sub-claims)", "does not hold (1/3 sub-claims)", "does not hold (0/3 sub-claims)",
        "does not hold (0/3 sub-claims)",
    ],
}


def test_quick_verdicts_are_pinned(quick: tuple[Path, Path, Context]) -> None:
    # A change to a claim's rule, a tolerance or the engine that moves a verdict fails here;
    # if the change is meant, update PINNED and say why in the commit.
    assert verdict_cells(quick[2].out / "claims-table.md") == PINNED



def test_then_and_now_compares_rbp_with_todays_linux_claim_by_claim(quick: tuple[Path, Path, Context]) -> None:
    text = quick[0].read_text(encoding="utf-8")
    part = text[text.index("## Then and now"):]
    part = part[:part.index("\n## ", 1)]
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in part.splitlines() if line.startswith("| ") and "---" not in line][1:]
    pairs = [("RBP/rate", "linux-ssr"), ("linux-rbp", "linux-ssr"), ("linux-rbp", "linux-pacing"), ("RBP/rate", "linux-cr"),
             ("linux-rbp", "linux-cr")]
    assert [(r[0], r[3], r[5]) for r in rows] == [(c, m, t) for c in "abcde" for m, t in pairs]
    for r in rows:
        assert r[8] in ("still beats", "does not beat", "mixed"), r
    # The docs page's claims table carries the same comparison.
    assert "| a | restart elapsed (s) |" in (quick[2].out / "claims-table.md").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (apt-get install ns2)")
def test_the_report_sets_ns2_beside_ours(quick: tuple[Path, Path, Context]) -> None:
    # ns-2.35's authors' agents at every quick point, seeds 1-2 with our start times
    # (docs/ns2-reading.md); its figures are ns-2's own: reno-ssr at 4 KB restarts in 0.863 s.
    assert "## ns-2.35 beside rampup" in quick[0].read_text(encoding="utf-8")
    pts = pd.read_csv(quick[2].out / "ns2-points.csv")
    assert len(pts) == 5 * (4 + 3 + 3) and set(pts["ns2_seeds"]) == {2} and set(pts["rampup_seeds"]) == {2}
    row = pts[(pts["sweep"] == "burst") & (pts["scheme"] == "reno-ssr") & (pts["x"] == 4)].iloc[0]
    assert row["restart_elapsed_s_ns2"] == pytest.approx(0.8625, abs=5e-4)
