"""The results folder: files, determinism, atomic replacement."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

import rampup
from rampup import results

TABLE_FILES = ["flows.parquet", "timeseries.parquet", "queues.parquet", "links.parquet"]


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_folder_contents(demo_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    res = rampup.run(demo_path, out=out)
    assert res.out == out.absolute()
    names = sorted(p.name for p in out.iterdir())
    tables = [f"{t}.parquet" for t in res.tables]
    assert tables[:4] == TABLE_FILES  # the documented tables first, then any others
    assert names == sorted(tables + [f"{link}.pcap" for link in res.pcaps] + ["manifest.json"])
    assert manifest_covers(out) == tables
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest == res.manifest
    assert set(manifest) >= {
        "rampup_version",
        "scenario",
        "scenario_sha256",
        "seed",
        "content_hash",
        "events",
        "sim_end_ns",
        "wall_time_s",
    }
    assert manifest["scenario_sha256"] == hashlib.sha256(demo_path.read_bytes()).hexdigest()
    # The content hash is the SHA-256 of the table files concatenated in a fixed order.
    cat = b"".join((out / f).read_bytes() for f in tables)
    assert manifest["content_hash"] == hashlib.sha256(cat).hexdigest()
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    for link, data in res.pcaps.items():
        assert (out / f"{link}.pcap").read_bytes() == data
    # The files hold the DataFrames.
    pd.testing.assert_frame_equal(pd.read_parquet(out / "flows.parquet"), res.flows)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "timeseries.parquet"), res.timeseries)
    assert _leftovers(tmp_path) == []


def manifest_covers(out: Path) -> list[str]:
    return json.loads((out / "manifest.json").read_text())["content_hash_covers"]


def test_same_seed_same_bytes(demo_path: Path, tmp_path: Path) -> None:
    a = rampup.run(demo_path, seed=3, out=tmp_path / "a")
    b = rampup.run(demo_path, seed=3, out=tmp_path / "b")
    assert a.content_hash == b.content_hash
    names = sorted(p.name for p in (tmp_path / "a").iterdir() if p.name != "manifest.json")
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir() if p.name != "manifest.json")
    for name in names:  # tables and pcaps
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_csv(demo_path: Path, tmp_path: Path) -> None:
    a = rampup.run(demo_path, out=tmp_path / "a", fmt="csv", pcap=False)
    b = rampup.run(demo_path, out=tmp_path / "b", fmt="csv", pcap=False)
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted([f"{t}.csv" for t in a.tables] + ["manifest.json"])  # pcap=False
    assert a.content_hash == b.content_hash
    flows = pd.read_csv(tmp_path / "a" / "flows.csv")
    assert list(flows.columns) == list(a.flows.columns)
    assert len(flows) == len(a.flows)


def test_replaces_an_earlier_results_folder(demo_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    rampup.run(demo_path, out=out, fmt="csv")
    (out / "stale.txt").write_text("from the first run")
    rampup.run(demo_path, out=out)
    names = {p.name for p in out.iterdir()}
    assert "stale.txt" not in names and "flows.csv" not in names
    assert "flows.parquet" in names
    assert _leftovers(tmp_path) == []


def test_replaces_without_rename_exchange(demo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(results, "_rename_exchange", lambda a, b: False)
    out = tmp_path / "res"
    rampup.run(demo_path, out=out, fmt="csv")
    rampup.run(demo_path, out=out)
    assert (out / "flows.parquet").exists() and not (out / "flows.csv").exists()
    assert _leftovers(tmp_path) == []


def test_failed_write_leaves_the_old_folder(tmp_path: Path) -> None:
    out = tmp_path / "res"
    results.write_folder(out, {"manifest.json": b"{}", "a.txt": b"old"})
    with pytest.raises(OSError):
        results.write_folder(out, {"manifest.json": b"{}", "no/such/dir.txt": b"new"})
    assert (out / "a.txt").read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


def test_refuses_to_replace_other_folders_and_files(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text("keep me")
    with pytest.raises(results.OutputError):
        results.write_folder(tmp_path / "docs", {"manifest.json": b"{}"})
    (tmp_path / "file").write_text("keep me too")
    with pytest.raises(results.OutputError):
        results.write_folder(tmp_path / "file", {"manifest.json": b"{}"})
    assert (tmp_path / "docs" / "notes.md").read_text() == "keep me"
    # An empty folder may be filled.
    (tmp_path / "empty").mkdir()
    results.write_folder(tmp_path / "empty", {"manifest.json": b"{}"})
    assert (tmp_path / "empty" / "manifest.json").exists()
