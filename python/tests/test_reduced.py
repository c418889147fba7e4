"""A reproduction's reduction (`experiments.reduced`): read back when the points, their runs
and the code that measures are unchanged, made again from the runs' cache when any differs,
and the report is the same either way; nothing read from the cache runs code."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path

import pytest

from rampup.cache_entry import ENTRY
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
    runs = entry / "runs.arrow"
    runs.write_bytes(runs.read_bytes()[:100])  # cut short, as a full disk would
    _reproduce(tmp_path, cache, "again")
    assert (tmp_path / "again" / "runs.csv").read_bytes() == (tmp_path / "first" / "runs.csv").read_bytes()
    assert reduced.load(cache, "vrate", entry.name) is not None, "and stored whole again"


class _Payload:
    """Pickled, this object runs ``touch MARKER`` when it is unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def test_nothing_in_a_cache_runs_code(tmp_path: Path) -> None:
    """A cache copied from elsewhere is data: a pickle placed where a reduction or a run's
    table is read, even with an entry file that vouches for it, is never unpickled."""
    cache = tmp_path / "cache"
    first = _reproduce(tmp_path, cache, "first")
    marker = tmp_path / "marker"
    payload = pickle.dumps(_Payload(marker))
    (entry,) = (cache / reduced.FOLDER).iterdir()
    (cache / reduced.FOLDER / f"{entry.name}.pickle").write_bytes(payload)  # where a reduction once was
    for table in [entry / "runs.arrow", *sorted(cache.glob("*/flows.arrow"))[:3]]:
        table.write_bytes(payload)
        info = json.loads((table.parent / ENTRY).read_text())
        info["tables"][table.stem] = {"bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
        (table.parent / ENTRY).write_text(json.dumps(info))
    again = _reproduce(tmp_path, cache, "again")
    assert not marker.exists(), "the pickle ran"
    assert again.cached == first.runs - 3, "the three poisoned runs ran again"
    assert (tmp_path / "again" / "runs.csv").read_bytes() == (tmp_path / "first" / "runs.csv").read_bytes()


def test_a_reduction_copied_under_another_key_is_not_read(tmp_path: Path) -> None:
    """An entry is read only for the key it was made for: one copied whole into the folder
    of another key (its entry file too) is made again."""
    cache = tmp_path / "cache"
    _reproduce(tmp_path, cache, "first")
    (entry,) = (cache / reduced.FOLDER).iterdir()
    other = entry.with_name("0" * 32)
    shutil.copytree(entry, other)
    assert reduced.load(cache, "vrate", entry.name) is not None
    assert reduced.load(cache, "vrate", other.name) is None
    assert reduced.load(cache, "newcwv", entry.name) is None, "nor for another experiment"
