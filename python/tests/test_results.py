"""The results folder: files, determinism, atomic replacement."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

import rampup

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
        "packet_hops",
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


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_load_reads_a_results_folder_back(demo_path: Path, tmp_path: Path, fmt: str) -> None:
    res = rampup.run(demo_path, seed=3, out=tmp_path / "demo", fmt=fmt)
    back = rampup.load(tmp_path / "demo")
    assert back.manifest == res.manifest and back.seed == 3 and back.out == tmp_path / "demo"
    assert list(back.tables) == list(res.tables)
    for name in res.tables:
        # CSV holds no types: its integer columns come back as int64, not uint64.
        pd.testing.assert_frame_equal(back.tables[name], res.tables[name], obj=name, check_dtype=fmt == "parquet")
    assert dict(back.pcaps) == dict(res.pcaps) and back.pcaps


def test_load_refuses_a_folder_changed_after_the_run(demo_path: Path, tmp_path: Path) -> None:
    rampup.run(demo_path, out=tmp_path / "demo")
    with (tmp_path / "demo" / "flows.parquet").open("ab") as f:
        f.write(b"x")
    with pytest.raises(rampup.OutputError, match=r"'flows.parquet' was changed after rampup wrote it"):
        rampup.load(tmp_path / "demo")
    with pytest.raises(rampup.OutputError, match="not a folder"):
        rampup.load(tmp_path / "nowhere")
    (tmp_path / "mine").mkdir()
    with pytest.raises(rampup.OutputError, match="not a rampup output folder"):
        rampup.load(tmp_path / "mine")
