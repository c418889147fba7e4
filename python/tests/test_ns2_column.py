"""The ns-2.35 column of the reproductions (`rampup.experiments.ns2_column`, `rampup.ns2`): its
section shows ns-2's numbers beside ours when `ns` is installed and says it was not run when
it is not; its runs are cached as data under a key that changes when a script, a helper it
sources or the ns-2 build changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from rampup import cache_entry as entry
from rampup import ns2
from rampup.experiments import ns2_column
from rampup.experiments.report import Heading, Paragraph, Report, Table
from rampup.experiments.ssthreshless import ns2 as ssthreshless_ns2
from rampup.experiments.ssthreshless.runs import LSS, MAIN, READINGS, SCHEMES, SS_A, SS_S, Net

needs_ns = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (apt-get install ns2)")


class TableI(ssthreshless_ns2.Column):
    """Paper 001's column cut to Table I's SS (A) and SS (S) with an ACK per segment: two
    short runs whose ns-2 figures validation/ns2/reference.md gives."""

    def points(self, ctx):  # type: ignore[no-untyped-def]
        return [p for p in super().points(ctx) if p.tags["exp"] == "I" and p.tags["reading"] == "main"
                and p.tags["scheme"] in (SS_A, SS_S)]


def _ctx(tmp: Path) -> SimpleNamespace:
    return SimpleNamespace(cache=tmp / "cache", out=tmp, workers=2, quick=True, seeds_or=lambda default: 1)


def _ours() -> pd.DataFrame:
    """Made-up rows of our runs at the same points, two seeds each."""
    return pd.DataFrame([{"exp": "I", "reading": "main", "scheme": s, "x": 250.0, "seed": seed, "util_pct": u, "drops": 0,
                          "timeouts": 0} for s, u in ((SS_A, 90.0), (SS_S, 15.0)) for seed in (1, 2)])


def _section(tmp: Path) -> list[tuple[str, object]]:
    rep = Report(title="t", folder=tmp)
    ns2_column.section(rep, SimpleNamespace(ns2=TableI()), _ours(), _ctx(tmp))
    return rep.blocks


@needs_ns
def test_the_column_shows_ns2_beside_ours(tmp_path: Path) -> None:
    blocks = _section(tmp_path)
    assert blocks[0] == Heading("ns-2.35 beside rampup")
    assert isinstance(blocks[1], Paragraph) and isinstance(blocks[2], Table)
    text = blocks[1].text
    assert "2 ns-2 runs (0 read from the cache)" in text and "ns 2.35" in text
    table = blocks[2].df
    # reference.md: ssthresh 500 delivers 44,491 packets in 10 s (88.98 % of 40 Mb/s), ssthresh
    # 32 gives 15.08 % (3,770 packets): ns-2's own figures, not ours.
    got = table.set_index("scheme")
    assert got.at[SS_A, "utilization (%), ns-2"] == "88.98" and got.at[SS_A, "utilization (%), rampup"] == "90.00"
    assert got.at[SS_A, "utilization (%), diff"] == "+1.1%"
    assert got.at[SS_S, "utilization (%), ns-2"] == "15.08"
    csv = pd.read_csv(tmp_path / ns2_column.CSV)
    assert list(csv["rampup_seeds"]) == [2, 2] and list(csv["ns2_seeds"]) == [1, 1]
    # A second reproduction reads ns-2's runs from the cache.
    assert "2 ns-2 runs (2 read from the cache)" in _text(_section(tmp_path)[1])


def test_without_ns_the_column_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-folder"))
    blocks = _section(tmp_path)
    assert blocks[0] == Heading("ns-2.35 beside rampup")
    assert len(blocks) == 2 and "Not run: `ns` is not on the PATH (apt-get install ns2)" in _text(blocks[1])
    assert not (tmp_path / ns2_column.CSV).exists()


def test_an_experiment_without_a_column_has_no_section(tmp_path: Path) -> None:
    rep = Report(title="t", folder=tmp_path)
    ns2_column.section(rep, SimpleNamespace(), _ours(), _ctx(tmp_path))
    assert rep.blocks == []


def _scripts(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the scripts' folder, read in place of the package's."""
    folder = tmp / "scripts"
    shutil.copytree(ns2.HERE, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(ns2, "HERE", folder)
    monkeypatch.setattr(ns2, "version", lambda: "2.35 (ns binary test)")
    return folder


def test_the_key_changes_with_the_script_its_helpers_and_ns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _scripts(tmp_path, monkeypatch)

    def key() -> str:
        return ns2.Ns2Job("rbp.tcl", ("scheme=reno-ssr",)).key

    first = key()
    assert key() == first
    (folder / "rbp.tcl").write_text((folder / "rbp.tcl").read_text() + "\n# a comment\n")
    second = key()
    assert second != first
    # A helper the script sources (wire.tcl) is part of what its runs are a function of.
    (folder / "wire.tcl").write_text((folder / "wire.tcl").read_text().replace("packetSize_ 40", "packetSize_ 52"))
    third = key()
    assert third != second
    # A script it does not name is not.
    (folder / "bench.tcl").write_text("# changed\n")
    assert key() == third
    monkeypatch.setattr(ns2, "version", lambda: "2.35 (ns binary other)")
    assert key() != third
    assert ns2.Ns2Job("rbp.tcl", ("scheme=reno-nssr",)).key != key()
    assert ns2.Ns2Job("rbp.tcl", ("scheme=reno-nssr",), (("schedule.txt", "0 0 1.0\n"),)).key != ns2.Ns2Job(
        "rbp.tcl", ("scheme=reno-nssr",), (("schedule.txt", "0 0 2.0\n"),)).key


def test_the_cache_holds_data_made_for_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _scripts(tmp_path, monkeypatch)
    job = ns2.Ns2Job("single_flow.tcl", ("duration=1",))
    ran: list[ns2.Ns2Job] = []

    def fake(j: ns2.Ns2Job) -> dict[str, pd.DataFrame]:
        ran.append(j)
        return ns2.rows("flow tcp=Newreno delivered_pkts=1008 final_cwnd=983.00\n", "", tmp_path)

    monkeypatch.setattr(ns2, "_run", fake)
    cache = tmp_path / "cache"
    (t, again), cached = ns2.run([job, job], cache)
    assert cached == 0 and len(ran) == 1 and again is t  # one run for two jobs of the same key
    assert t["flow"].iloc[0].to_dict() == {"tcp": "Newreno", "delivered_pkts": 1008, "final_cwnd": 983.0}
    stored = cache / ns2.FOLDER / job.key
    assert sorted(p.name for p in stored.iterdir()) == [entry.ENTRY, "flow.arrow"]
    assert json.loads((stored / entry.ENTRY).read_text())["made_for"]["script"] == "single_flow.tcl"
    (t2,), cached = ns2.run([job], cache)
    assert cached == 1 and len(ran) == 1 and t2["flow"].equals(t["flow"])
    monkeypatch.setattr(ns2, "version", lambda: "2.36 (ns binary later)")
    ns2.run([ns2.Ns2Job("single_flow.tcl", ("duration=1",))], cache)
    assert len(ran) == 2


def test_rows_reads_one_table_per_first_word() -> None:
    t = ns2.rows("transfer client=0 round=1 elapsed=-1\nnoise\ntransfer client=1 round=1 elapsed=0.5\nsummary n=2 scheme=x\n",
                 "", Path("."))
    assert list(t) == ["transfer", "summary"]
    assert t["transfer"]["elapsed"].tolist() == [-1.0, 0.5] and t["summary"].at[0, "scheme"] == "x"


def test_a_failing_ns2_run_leaves_the_report_without_the_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ns2, "missing", lambda: None)

    def fails(jobs, cache, workers=None):  # type: ignore[no-untyped-def]
        raise RuntimeError("ns single_flow.tcl: exit status 1: bad argument")

    monkeypatch.setattr(ns2, "run", fails)
    blocks = _section(tmp_path)
    assert len(blocks) == 2 and "Not run: ns-2 failed (ns single_flow.tcl: exit status 1: bad argument)" in _text(blocks[1])


def test_within_counts_a_relative_or_an_absolute_match() -> None:
    t = pd.DataFrame({"d_ns2": [1.0, 0.0, 0.02, None], "d_rampup": [1.08, 0.0, 0.06, 1.0], "d_diff": [0.08, 0.0, 2.0, None]})
    assert ns2_column.within(t, ns2_column.Tolerance("d", 0.05)) == (1, 3)
    assert ns2_column.within(t, ns2_column.Tolerance("d", 0.10)) == (2, 3)
    assert ns2_column.within(t, ns2_column.Tolerance("d", 0.10, 0.05)) == (3, 3)


def _text(block: object) -> str:
    assert isinstance(block, Paragraph), block
    return block.text


def test_limited_slow_start_reaches_ns2_with_its_max_ssthresh() -> None:
    """RFC 3742's max_ssthresh goes to ns-2's ``max_ssthresh_`` as our LSS scheme sets it (a
    startup table's setting since the nested form): without it ns-2 runs plain slow start."""
    ours = SCHEMES[LSS]["startup"]
    assert ours["kind"] == "limited-slow-start"
    assert ssthreshless_ns2.args(LSS, Net(), READINGS[MAIN])["max_ssthresh"] == ours["max_ssthresh"]
    assert "max_ssthresh" not in ssthreshless_ns2.args(SS_S, Net(), READINGS[MAIN])
