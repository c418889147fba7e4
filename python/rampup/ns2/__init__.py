"""ns-2.35, the papers' own simulator, run on the Tcl scripts of this folder and cached as
rampup's runs are.

An `Ns2Job` is one run of one script here: its command-line arguments and the input files it
reads (written into the run's own temporary folder, which is its working directory, so that
arguments name them by their plain names). `run` runs the jobs that are not cached yet on a
pool of threads, one ``ns`` process each, and stores the tables its `READERS` entry reads from
what the run printed and wrote under ``cache/ns2/<key>/`` (a `cache_entry`: Arrow
tables and one JSON file, never code). The key hashes the ns-2 build (what its ``ns-version``
prints and the SHA-256 of the ``ns`` binary), the script's text and that of each script of
this folder it names (the helpers it sources), the arguments and the input files: a changed
script, a changed helper or another ns-2 runs again.

Most scripts print one line per row, ``TABLE key=value ...`` (`rows`); PackMime's script
writes its own files (`packmime`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import cache_entry

__all__ = ["FOLDER", "HERE", "READERS", "Ns2Job", "missing", "rows", "run", "script_text", "version"]

#: The folder of the scripts.
HERE = Path(__file__).resolve().parent
#: Under the cache folder: one entry per ns-2 run.
FOLDER = "ns2"
_NAMED = re.compile(r"\b([A-Za-z0-9_]+\.tcl)\b")

Tables = dict[str, pd.DataFrame]


def missing() -> str | None:
    """Why ns-2 cannot run here, in a few words, or None when it can."""
    if shutil.which("ns") is None:
        return "`ns` is not on the PATH (apt-get install ns2)"
    return None


@functools.cache
def _version(binary: str) -> str:
    with tempfile.TemporaryDirectory(prefix="rampup-ns2-") as tmp:
        probe = Path(tmp) / "version.tcl"
        probe.write_text("puts [ns-version]\n", encoding="utf-8")
        printed = subprocess.run([binary, str(probe)], capture_output=True, text=True, check=True).stdout.strip()
    digest = hashlib.sha256(Path(binary).read_bytes()).hexdigest()[:16]
    return f"{printed} (ns binary {digest})"


def version() -> str:
    """The ns-2 on the PATH: what its ``ns-version`` prints and its binary's SHA-256."""
    binary = shutil.which("ns")
    if binary is None:
        raise FileNotFoundError(missing())
    return _version(os.path.realpath(binary))


def script_text(script: str) -> str:
    """The script's text and, after it, that of each script of this folder it names (the
    helpers it sources), each once: what its run is a function of besides its inputs."""
    seen: list[str] = []
    todo = [script]
    while todo:
        name = todo.pop(0)
        if name in seen or not (HERE / name).is_file():
            continue
        seen.append(name)
        todo += _NAMED.findall((HERE / name).read_text(encoding="utf-8"))
    return "".join(f"{name}\0{(HERE / name).read_text(encoding='utf-8')}\0" for name in seen)


@dataclass(frozen=True)
class Ns2Job:
    """One run of ``script`` (a file of this folder) with ``args`` and the ``inputs`` it reads
    (file name -> text); ``reader`` names how its output becomes tables (`READERS`)."""

    script: str
    args: tuple[str, ...]
    inputs: tuple[tuple[str, str], ...] = ()
    reader: str = "rows"
    tags: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @functools.cached_property
    def key(self) -> str:
        h = hashlib.sha256()
        for part in ("ns-2", version(), script_text(self.script), self.reader, *self.args, *(f"{n}\0{t}" for n, t in self.inputs)):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:32]

    @functools.cached_property
    def made_for(self) -> dict[str, Any]:
        """What the entry records and its reader checks: the key and what it hashes (texts by
        their SHA-256)."""
        return {"key": self.key, "ns": version(), "script": self.script, "args": list(self.args), "reader": self.reader,
                "scripts_sha256": hashlib.sha256(script_text(self.script).encode()).hexdigest(),
                "inputs_sha256": {n: hashlib.sha256(t.encode()).hexdigest() for n, t in self.inputs}}


def rows(stdout: str, stderr: str, folder: Path) -> Tables:
    """One table per first word of the lines ``TABLE key=value ...``: a row per line, a
    column per key, numbers where every value of a column is one."""
    found: dict[str, list[dict[str, str]]] = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) > 1 and all("=" in w for w in words[1:]):
            found.setdefault(words[0], []).append(dict(w.split("=", 1) for w in words[1:]))
    return {name: _numbers(pd.DataFrame(r)) for name, r in found.items()}


def _numbers(df: pd.DataFrame) -> pd.DataFrame:
    for c in df.columns:
        as_number = pd.to_numeric(df[c], errors="coerce")
        if as_number.notna().all():
            df[c] = as_number
    return df


#: PackMime's per-response lines (`packmime.tcl`): the time the response completed, the
#: request and response bytes, and the duration (ms) from the connection's start.
_PACKMIME_COLUMNS = ("done_s", "request_bytes", "response_bytes", "duration_ms")


def packmime(stdout: str, stderr: str, folder: Path) -> Tables:
    """`packmime.tcl`'s output: the completed responses (its OUTFILE, named ``out.dat``),
    the responses as sent (``out.dat.sizes``) and one summary row (its printed line, and the
    connections started, which PackMime prints to stderr)."""

    def lines(name: str, width: int) -> list[list[float]]:
        return [[float(x) for x in line.split()[:width]] for line in (folder / name).read_text().splitlines() if line.strip()]

    m = re.search(r"bytes_down (\d+) drops_down (\d+)", stdout)
    count = re.findall(r"\d+", stderr)
    if m is None or not count:
        raise RuntimeError(f"packmime.tcl printed no summary: {stdout[-200:]!r} {stderr[-200:]!r}")
    sent = pd.DataFrame(lines("out.dat.sizes", 3), columns=["sent_s", "request_bytes", "response_bytes"])
    return {"responses": pd.DataFrame(lines("out.dat", 4), columns=list(_PACKMIME_COLUMNS)), "sent": sent,
            "summary": pd.DataFrame([{"connections": int(count[-1]), "bytes_down": int(m.group(1)), "drops_down": int(m.group(2))}])}


READERS: dict[str, Callable[[str, str, Path], Tables]] = {"rows": rows, "packmime": packmime}


def _run(job: Ns2Job) -> Tables:
    with tempfile.TemporaryDirectory(prefix="rampup-ns2-") as tmp:
        folder = Path(tmp)
        for name, text in job.inputs:
            (folder / name).write_text(text, encoding="utf-8")
        done = subprocess.run(["ns", str(HERE / job.script), *job.args], cwd=folder, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"ns {job.script} {' '.join(job.args)}: exit status {done.returncode}: {done.stderr.strip()[-300:]}")
        tables = READERS[job.reader](done.stdout, done.stderr, folder)
    if not tables:
        raise RuntimeError(f"ns {job.script} {' '.join(job.args)} printed no table")
    return tables


def run(jobs: Sequence[Ns2Job], cache: Path | None, workers: int | None = None) -> tuple[list[Tables], int]:
    """Each job's tables, in order, and how many came from the cache: cached ones loaded, the
    others run on ``workers`` threads (default one per core) and cached (``cache`` None: none
    read or stored). Jobs of the same key run once."""
    folder = None if cache is None else cache / FOLDER
    if folder is not None:
        cache_entry.remove_abandoned(folder)
    found: dict[str, Tables] = {}
    for j in jobs:
        tables = None if folder is None or j.key in found else cache_entry.load(folder / j.key, j.made_for)
        if tables is not None:
            found[j.key] = tables
    loaded = len(found)
    todo = list({j.key: j for j in jobs if j.key not in found}.values())
    unstored: list[OSError] = []

    def run_and_store(job: Ns2Job) -> Tables:
        tables = _run(job)
        if folder is not None:
            try:
                cache_entry.store(folder / job.key, job.made_for, tables)
            except OSError as e:
                unstored.append(e)
        return tables

    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        for job, tables in zip(todo, pool.map(run_and_store, todo), strict=True):
            found[job.key] = tables
    if unstored:
        warnings.warn(f"{folder}: {len(unstored)} ns-2 runs are not cached ({unstored[0].strerror or unstored[0]})", stacklevel=2)
    return [found[j.key] for j in jobs], loaded
