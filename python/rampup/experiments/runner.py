"""Sweeps: many scenario runs, in parallel, cached by what went into them.

A `Job` is one scenario text and seed plus the tags that place it in an experiment
(figure, scheme, x value). `run_jobs` runs the jobs that are not cached yet on a pool of
threads (the engine releases the GIL, so threads run in parallel) or on a Dask cluster,
shows a progress bar, and stores the tables each job keeps under ``cache/<key>/``. The key
hashes the engine build, the scenario text, the seed and the kept tables: re-running a
sweep redoes only the runs whose inputs changed, and an interrupted sweep resumes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from .. import _engine

__all__ = ["Job", "engine_build", "run_jobs"]


@dataclass(frozen=True)
class Job:
    """One run of a sweep."""

    scenario: str
    seed: int
    tags: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    keep: tuple[str, ...] = ("flows", "transfers")

    @functools.cached_property
    def key(self) -> str:
        """The cache folder's name: the engine build, scenario, seed and tables kept."""
        h = hashlib.sha256()
        for part in (engine_build(), self.scenario, str(self.seed), ",".join(self.keep)):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:32]


@functools.cache
def engine_build() -> str:
    """A hash of the compiled engine, so a rebuilt engine invalidates the cache."""
    data = Path(_engine.__file__).read_bytes()
    return hashlib.sha256(data).hexdigest()[:16]


class _Keep:
    """A trace sink (`_engine.run(..., sink=)`) that keeps the chunks of the traced tables a
    job keeps and drops the rest, so that a sweep of long runs holds only what it stores."""

    def __init__(self, keep: Sequence[str]) -> None:
        self.chunks: dict[str, list[pd.DataFrame]] = {name: [] for name in keep}

    def rows(self, table: str, columns: dict[str, Any]) -> None:
        if table in self.chunks:
            self.chunks[table].append(pd.DataFrame(columns))

    def pcap(self, link: str, data: bytes) -> None:
        pass


def _run(job: Job) -> dict[str, pd.DataFrame]:
    traces = _Keep(job.keep)
    raw = _engine.run(job.scenario, job.seed, None, traces)
    return {name: pd.DataFrame(raw["tables"][name]) if name in raw["tables"] else pd.concat(traces.chunks[name], ignore_index=True)
            for name in job.keep}


def _run_and_store(job: Job, cache: Path) -> dict[str, pd.DataFrame]:
    """Run and cache in the worker, so that writing Parquet does not serialise the sweep."""
    tables = _run(job)
    _store(cache / job.key, tables)
    return tables


#: In each cache entry: the size and SHA-256 of each table file, written last.
ENTRY = "entry.json"


def _digest(data: bytes) -> dict[str, Any]:
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _load(folder: Path, keep: Sequence[str]) -> dict[str, pd.DataFrame] | None:
    """The entry's tables, or None if it is missing or not as it was stored (a file
    truncated or changed, or no `ENTRY`): then the job runs again and replaces it."""
    try:
        entry = json.loads((folder / ENTRY).read_text())
        tables = {}
        for name in keep:
            data = (folder / f"{name}.arrow").read_bytes()  # read once: checked, then parsed
            if _digest(data) != entry[name]:
                return None
            # split_blocks: a column per block, not one copy consolidating them (2-3x faster
            # for the small tables most runs keep: 0.17 against 0.48 ms for a phases table).
            tables[name] = pa.ipc.open_file(pa.BufferReader(data)).read_all().to_pandas(split_blocks=True)
        return tables
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowInvalid):
        return None


#: Arrow's IPC file format, compressed: a run's table is read, checked and converted in
#: 0.7-1.0 ms against Parquet's 1.2-2.0 ms (its fixed cost per file is most of a small
#: table's), at up to a few times Parquet's size (zstd; uncompressed IPC, up to 100 times).
_WRITE = pa.ipc.IpcWriteOptions(compression="zstd")


def _store(folder: Path, tables: dict[str, pd.DataFrame]) -> None:
    """Write atomically: a finished run is either wholly in the cache or not at all. An
    entry already there (one `_load` refused) is replaced."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        entry = {}
        for name, df in tables.items():
            table = pa.Table.from_pandas(df, preserve_index=False)
            buf = pa.BufferOutputStream()
            with pa.ipc.new_file(buf, table.schema, options=_WRITE) as writer:
                writer.write_table(table)
            data = buf.getvalue().to_pybytes()
            (tmp / f"{name}.arrow").write_bytes(data)
            entry[name] = _digest(data)
        (tmp / ENTRY).write_text(json.dumps(entry))
        _replace(tmp, folder)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        # A write that failed while an entry is there (the same job's, stored by a twin of
        # this job meanwhile) loses nothing: `_load` checks that entry the next time.
        if not (isinstance(e, OSError) and folder.exists()):
            raise


def _replace(new: Path, folder: Path) -> None:
    """Rename ``new`` to ``folder``; an old entry there is first renamed aside, then removed
    (it is a cache entry: the cache names its folders by the hash of what went in)."""
    try:
        os.replace(new, folder)
        return
    except OSError:
        if not folder.is_dir():
            raise
    old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old-", dir=folder.parent))
    try:
        os.replace(folder, old / folder.name)
        os.replace(new, folder)
    finally:
        shutil.rmtree(old, ignore_errors=True)


def run_jobs(
    jobs: Sequence[Job],
    cache: Path,
    *,
    workers: int | None = None,
    backend: str = "threads",
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, pd.DataFrame]]:
    """Results of `jobs`, in order: cached ones loaded, the others run and cached.

    ``backend`` is "threads" (this machine, ``workers`` threads, default one per core) or
    "dask": the cluster of ``client`` (a ``dask.distributed.Client``), else of the current
    client, else of this process's threads (`cluster.run_on_dask`).
    ``progress(done, total)`` is called as runs finish.
    """
    if backend not in ("threads", "dask"):
        raise ValueError(f"backend: {backend!r} is not one of 'threads', 'dask'")
    if client is not None and backend != "dask":
        raise ValueError("client: a Dask client goes with backend='dask'")
    results: list[dict[str, pd.DataFrame] | None] = [None] * len(jobs)
    todo: list[int] = []
    for i, job in enumerate(jobs):
        results[i] = _load(cache / job.key, job.keep)
        if results[i] is None:
            todo.append(i)
    done = len(jobs) - len(todo)
    if progress:
        progress(done, len(jobs))

    def finished(i: int, tables: dict[str, pd.DataFrame]) -> None:
        nonlocal done
        results[i] = tables
        done += 1
        if progress:
            progress(done, len(jobs))

    if backend == "threads":
        _run_threads(jobs, todo, workers or os.cpu_count() or 1, cache, finished)
    elif todo:
        from .cluster import run_on_dask

        run_on_dask(client, jobs, todo, cache, finished)
    return [r for r in results if r is not None]


def _run_threads(jobs: Sequence[Job], todo: Iterable[int], workers: int, cache: Path, finished: Callable) -> None:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: dict[Future, int] = {pool.submit(_run_and_store, jobs[i], cache): i for i in todo}
        try:
            while pending:
                ready, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in ready:
                    finished(pending.pop(f), f.result())
        except BaseException:
            # Ctrl-C or a failed run: the runs not started are dropped (else the pool would
            # run them all before the error is raised); those running end first.
            pool.shutdown(cancel_futures=True)
            raise
