"""A reproduction's reduction (`experiments.reduced`): read back when the points, their runs
and the code that measures are unchanged, made again from the runs' cache when any differs,
and the report is the same either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from rampup.experiments import Context, load, reduced
from rampup.experiments.vrate.report import Vrate


def _reproduce(tmp_path: Path, cache: Path, name: str) -> Context:
    ctx = Context(out=tmp_path / name, cache=cache, quick=True)
    load("vrate").reproduce(ctx)
    return ctx


def test_an_unchanged_rerun_reads_the_reduction_and_a_code_change_measures_again(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    measured: list[int] = []
    real = Vrate.measure
    monkeypatch.setattr(Vrate, "measure", lambda self, point, tables: measured.append(1) or real(self, point, tables))
    cache = tmp_path / "cache"
    first = _reproduce(tmp_path, cache, "first")
    points = len(measured)
    assert points >= first.runs > 50 and len(list((cache / reduced.FOLDER).iterdir())) == 1
    again = _reproduce(tmp_path, cache, "again")
    assert len(measured) == points and again.cached == again.runs == first.runs, "read back, nothing measured"
    # Another version of the measuring code: measured again, every run from the runs' cache.
    monkeypatch.setattr(reduced, "_code", lambda: "another version")
    changed = _reproduce(tmp_path, cache, "changed")
    assert len(measured) == 2 * points and changed.cached == changed.runs
    for name in ("runs.csv", "points.csv", "claims-table.md"):
        texts = {(tmp_path / run / name).read_bytes() for run in ("first", "again", "changed")}
        assert len(texts) == 1, name


def test_a_damaged_reduction_is_made_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _reproduce(tmp_path, cache, "first")
    (entry,) = (cache / reduced.FOLDER).iterdir()
    entry.write_bytes(entry.read_bytes()[:100])  # cut short, as a full disk would
    _reproduce(tmp_path, cache, "again")
    assert (tmp_path / "again" / "runs.csv").read_bytes() == (tmp_path / "first" / "runs.csv").read_bytes()
    assert reduced.load(cache, entry.stem) is not None, "and stored whole again"
