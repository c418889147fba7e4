"""Output folders: a folder is replaced only when it is provably rampup's own, atomically,
and a failed or interrupted write leaves the previous folder and no temporary folder."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

import rampup
from rampup import experiments, folders

MANIFEST = {"kind": "test"}


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def _users_folder(parent: Path) -> Path:
    """The folder of the report that found the defect: a thesis beside a manifest of `{}`."""
    folder = parent / "thesis"
    folder.mkdir()
    (folder / "thesis.tex").write_text("\\chapter{Two years of work}")
    (folder / "manifest.json").write_text("{}")
    return folder


def _untouched(folder: Path) -> bool:
    return sorted(p.name for p in folder.iterdir()) == ["manifest.json", "thesis.tex"] and (
        (folder / "thesis.tex").read_text() == "\\chapter{Two years of work}"
    )


def test_replaces_an_earlier_results_folder(demo_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    rampup.run(demo_path, out=out, fmt="csv")
    rampup.run(demo_path, out=out)
    names = {p.name for p in out.iterdir()}
    assert "flows.csv" not in names and "flows.parquet" in names
    assert json.loads((out / "manifest.json").read_text())["written_by"] == "rampup"
    assert _leftovers(tmp_path) == []


def test_replaces_without_rename_exchange(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folders, "_rename_exchange", lambda a, b: False)
    out = tmp_path / "res"
    folders.write_folder(out, {"a.csv": b"1"}, MANIFEST)
    folders.write_folder(out, {"b.csv": b"2"}, MANIFEST)
    assert sorted(p.name for p in out.iterdir()) == ["b.csv", "manifest.json"]
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda out: (out / "notes.md").write_text("mine"), id="a file rampup did not write"),
        pytest.param(lambda out: (out / "sub").mkdir() or (out / "sub" / "x").write_text("mine"), id="a subfolder"),
        pytest.param(lambda out: (out / "a.csv").write_text("edited"), id="a file of ours edited"),
        pytest.param(lambda out: (out / "manifest.json").write_text("{}"), id="a manifest without the marker"),
        pytest.param(lambda out: (out / "manifest.json").write_text("not json"), id="a manifest that is not JSON"),
        pytest.param(lambda out: (out / "manifest.json").unlink(), id="no manifest"),
    ],
)
def test_refuses_a_folder_that_is_not_provably_ours(tmp_path: Path, spoil) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "res"
    folders.write_folder(out, {"a.csv": b"1"}, MANIFEST)
    spoil(out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(folders.OutputError, match="--overwrite"):
        folders.write_folder(out, {"b.csv": b"2"}, MANIFEST)
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    folders.write_folder(out, {"b.csv": b"2"}, MANIFEST, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["b.csv", "manifest.json"]
    assert _leftovers(tmp_path) == []


def test_refuses_a_file_and_fills_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("keep me")
    with pytest.raises(folders.OutputError, match="not a folder"):
        folders.write_folder(tmp_path / "file", {}, MANIFEST, overwrite=True)
    assert (tmp_path / "file").read_text() == "keep me"
    (tmp_path / "empty").mkdir()
    folders.write_folder(tmp_path / "empty", {"a": b""}, MANIFEST)
    assert (tmp_path / "empty" / "manifest.json").exists()


def test_failed_write_leaves_the_old_folder(tmp_path: Path) -> None:
    out = tmp_path / "res"
    folders.write_folder(out, {"a.txt": b"old"}, MANIFEST)
    with pytest.raises(OSError):
        folders.write_folder(out, {"no/such/dir.txt": b"new"}, MANIFEST)
    assert (out / "a.txt").read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


def test_interrupted_staging_leaves_the_old_folder(tmp_path: Path) -> None:
    out = tmp_path / "res"
    folders.write_folder(out, {"report.md": b"old"}, MANIFEST)
    with pytest.raises(KeyboardInterrupt):
        with folders.staged_folder(out, MANIFEST) as tmp:
            (tmp / "transfers.parquet").write_bytes(b"")  # half-written when the interrupt comes
            raise KeyboardInterrupt
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "report.md"]
    assert (out / "report.md").read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


def test_a_killed_writers_staging_folder_is_removed_by_the_next_write(tmp_path: Path) -> None:
    # A writer killed outright leaves its staging folder; the next write of the same folder on
    # this host removes it once its process is gone, and leaves a live writer's and another
    # host's alone.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    host = socket.gethostname()
    dead = gone.stdout.strip()
    names = {"dead": f".res.tmp-{host}-{dead}-abcd_123", "live": f".res.tmp-{host}-{os.getpid()}-abcd_123",
             "elsewhere": f".res.tmp-another-host-{dead}-abcd_123", "a longer host's": f".res.tmp-{host}-7-{dead}-abcd_123",
             "other target": f".results.tmp-{host}-{dead}-abcd_123"}
    for name in names.values():
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.md").write_bytes(b"half")
    folders.write_folder(tmp_path / "res", {"report.md": b"new"}, MANIFEST)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["res", *(n for k, n in names.items() if k != "dead")])


def test_a_foreign_file_put_there_during_the_run_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "res"
    folders.write_folder(out, {"a.csv": b"1"}, MANIFEST)
    with pytest.raises(folders.OutputError):
        with folders.staged_folder(out, MANIFEST) as tmp:
            (tmp / "b.csv").write_bytes(b"2")
            (out / "notes.md").write_text("written while the run went on")
    assert (out / "notes.md").exists()
    assert _leftovers(tmp_path) == []


def test_two_writers_at_once_do_not_collide(tmp_path: Path) -> None:
    out, errors = tmp_path / "res", []

    def write(n: int) -> None:
        try:
            for _ in range(20):
                folders.write_folder(out, {f"w{n}.csv": str(n).encode() * 1000}, MANIFEST)
        except Exception as e:  # pragma: no cover - the failure this test looks for
            errors.append(e)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    names = sorted(p.name for p in out.iterdir())
    assert names in (["manifest.json", "w0.csv"], ["manifest.json", "w1.csv"])
    assert _leftovers(tmp_path) == []


def test_cli_run_keeps_a_users_folder(run_cli, demo_path: Path, tmp_path: Path) -> None:
    folder = _users_folder(tmp_path)
    proc = run_cli("run", demo_path, "--out", folder)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [proc.stderr.strip()] and "not one rampup wrote" in proc.stderr
    assert "--overwrite" in proc.stderr and "Traceback" not in proc.stderr
    assert _untouched(folder)
    proc = run_cli("run", demo_path, "--out", folder, "--overwrite")
    assert proc.returncode == 0, proc.stderr
    assert not (folder / "thesis.tex").exists() and (folder / "flows.parquet").exists()


def test_cli_reproduce_keeps_a_users_folder(run_cli, tmp_path: Path) -> None:
    folder = _users_folder(tmp_path)
    proc = run_cli("reproduce", "rbp", "--quick", "--out", folder, "--cache", tmp_path / "cache")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [proc.stderr.strip()] and "--out" in proc.stderr
    assert _untouched(folder)
    assert not (tmp_path / "cache").exists()  # refused before any run


def _fake_paper(fail: bool):  # type: ignore[no-untyped-def]
    def reproduce(ctx):  # type: ignore[no-untyped-def]
        (ctx.out / "report.md").write_text("# failed" if fail else "# new")
        (ctx.out / "report.html").write_text("<p>new</p>")
        if fail:
            raise RuntimeError("a run failed")
        return ctx.out / "report.md", ctx.out / "report.html"

    return SimpleNamespace(reproduce=reproduce)


def test_reproduce_into_is_staged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _users_folder(tmp_path)
    monkeypatch.setattr(experiments, "load", lambda paper: _fake_paper(fail=False))
    with pytest.raises(folders.OutputError):
        experiments.reproduce_into("fake", folder, cache=tmp_path / "cache")
    assert _untouched(folder)
    md, page, ctx = experiments.reproduce_into("fake", folder, overwrite=True, cache=tmp_path / "cache")
    assert md == folder.absolute() / "report.md" and page.read_text() == "<p>new</p>" and ctx.out == folder.absolute()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["kind"] == "reproduction" and sorted(manifest["files"]) == ["report.html", "report.md"]
    # A failed reproduction leaves the previous report as it was.
    monkeypatch.setattr(experiments, "load", lambda paper: _fake_paper(fail=True))
    with pytest.raises(RuntimeError):
        experiments.reproduce_into("fake", folder, cache=tmp_path / "cache")
    assert (folder / "report.md").read_text() == "# new"
    assert _leftovers(tmp_path) == []


def test_an_output_folder_inside_one_rampup_wrote_is_refused(demo_path: Path, tmp_path: Path) -> None:
    # Writing results/demo/sub/ would add files that results/demo's manifest does not list.
    outer = tmp_path / "demo"
    rampup.run(demo_path, out=outer)
    with pytest.raises(rampup.OutputError, match=r"inside .*demo, a folder rampup wrote"):
        rampup.run(demo_path, out=outer / "sub")
    assert not (outer / "sub").exists()
    rampup.load(outer)  # and that folder is still as rampup wrote it
