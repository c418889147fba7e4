"""The run cache: many scenario runs, in parallel, cached by what went into them.

A `Job` is one scenario text and seed plus the tags that place it in an experiment
(figure, scheme, x value). `run_jobs` runs the jobs that are not cached yet on a pool of
threads (the engine releases the GIL, so threads run in parallel) or on a Dask cluster,
reports progress, and stores the tables each job keeps under ``cache/<key>/`` (a
`cache_entry`). The key hashes the engine build, the scenario text, the seed and the kept tables,
and the entry records them: re-running a sweep redoes only the runs whose inputs changed, an
entry copied into another's folder is run again, and an interrupted sweep resumes.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import _engine, cache_entry, cluster
from .folders import FULL_DISK
from .parts import differs_here, sources_key

__all__ = ["AHEAD", "CacheNotWritten", "Job", "Tables", "each_result", "engine_build", "run_job", "run_jobs", "store"]


@dataclass(frozen=True)
class Job:
    """One run of a sweep."""

    scenario: str
    seed: int
    tags: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    keep: tuple[str, ...] = ("flows", "transfers")

    @functools.cached_property
    def sources(self) -> str:
        """The code of the Python parts the scenario names, as this process loads them
        (`rampup.parts.sources_key`; "" for none)."""
        return sources_key(self.scenario)

    @functools.cached_property
    def key(self) -> str:
        """The cache folder's name: the engine build, scenario, seed and tables kept, and the
        source of the Python parts the scenario names (`sources`)."""
        h = hashlib.sha256()
        sources = self.sources
        for part in (engine_build(), self.scenario, str(self.seed), ",".join(self.keep), *([sources] if sources else [])):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:32]

    @functools.cached_property
    def made_for(self) -> dict[str, Any]:
        """What the cache entry of this job records and its reader checks: the key and the
        inputs it hashes (the scenario by its SHA-256)."""
        return {"key": self.key, "engine_build": engine_build(), "seed": self.seed, "keep": list(self.keep),
                "scenario_sha256": hashlib.sha256(self.scenario.encode()).hexdigest()}


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


def run_job_keyed(job_and_sources: tuple[Job, str]) -> dict[str, pd.DataFrame]:
    """On a Dask worker: `run_job`, once the Python parts the job names load there with the code
    the caller keyed the run by (`Job.sources`), so that the cache never holds another
    version's tables under this version's key; `cluster.DaskError` if they do not."""
    job, sources = job_and_sources
    if sources and (why := differs_here(job.scenario, sources)) is not None:
        raise cluster.DaskError(why)
    return run_job(job)


def run_job(job: Job) -> dict[str, pd.DataFrame]:
    """The tables ``job`` keeps, from a run of its scenario (no cache read or written)."""
    traces = _Keep(job.keep)
    raw = _engine.run(job.scenario, job.seed, None, traces)
    return {name: pd.DataFrame(raw["tables"][name]) if name in raw["tables"] else pd.concat(traces.chunks[name], ignore_index=True)
            for name in job.keep}


class CacheNotWritten(UserWarning):
    """Some runs of a sweep could not be cached (a full disk, a read-only folder): their
    results are returned all the same, and a rerun runs them again."""


def _run_and_store(job: Job, cache: Path, unstored: list[OSError]) -> dict[str, pd.DataFrame]:
    """Run and cache in the worker, so that writing Arrow does not serialise the sweep."""
    tables = run_job(job)
    _store_or_note(job, cache, tables, unstored)
    return tables


def _store_or_note(job: Job, cache: Path, tables: dict[str, pd.DataFrame], unstored: list[OSError]) -> None:
    """Cache a run's tables; if the cache cannot take them, note why and keep going: the run
    is done, and its results are worth more than its cache entry."""
    try:
        store(job, cache, tables)
    except OSError as e:
        unstored.append(e)


def _load(job: Job, cache: Path) -> dict[str, pd.DataFrame] | None:
    return cache_entry.load(cache / job.key, job.made_for, job.keep)


def store(job: Job, cache: Path, tables: dict[str, pd.DataFrame]) -> None:
    """Cache a run's tables under ``cache/<key>/``, whole or not at all (`cache_entry.store`)."""
    cache_entry.store(cache / job.key, job.made_for, tables)


Tables = dict[str, pd.DataFrame]


def run_jobs(jobs: Sequence[Job], cache: Path, **how: Any) -> list[Tables]:
    """Results of `jobs`, in order: cached ones loaded, the others run and cached (the
    keywords of `each_result`)."""
    results: list[Tables] = [{}] * len(jobs)

    def keep(i: int, tables: Tables) -> None:
        results[i] = tables

    each_result(jobs, cache, keep, **how)
    return results


def each_result(
    jobs: Sequence[Job],
    cache: Path,
    each: Callable[[int, Tables], None],
    *,
    workers: int | None = None,
    backend: str = "threads",
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """``each(i, tables)`` for each job ``jobs[i]``, in this thread: first for the cached
    ones, loaded, then for the others as their runs end (in any order), while the runs after
    them go on. No more than a few runs per worker wait to be taken, so that a slow ``each``
    does not fill memory with tables.

    ``backend`` is "threads" (this machine, ``workers`` threads, default one per core) or
    "dask": the cluster of ``client`` (a ``dask.distributed.Client``), else of the current
    client, else of this process's threads (`cluster.run_on_dask`).
    ``progress(done, total)`` is called first with the runs read from the cache, then as
    runs finish. Runs the cache cannot take (a full disk) are handed to ``each`` all the same,
    with one `CacheNotWritten` warning for the sweep.
    """
    if backend not in ("threads", "dask"):
        raise ValueError(f"backend: {backend!r} is not one of 'threads', 'dask'")
    if client is not None and backend != "dask":
        raise ValueError("client: a Dask client goes with backend='dask'")
    cache_entry.remove_abandoned(cache)
    todo: list[int] = []
    done = 0
    for i, job in enumerate(jobs):
        tables = _load(job, cache)
        if tables is None:
            todo.append(i)
        else:
            each(i, tables)
            done += 1
    if progress:
        progress(done, len(jobs))

    def finished(i: int, tables: Tables) -> None:
        nonlocal done
        each(i, tables)
        done += 1
        if progress:
            progress(done, len(jobs))

    unstored: list[OSError] = []
    if backend == "threads":
        _run_threads(jobs, todo, workers or os.cpu_count() or 1, cache, finished, unstored)
    elif todo:
        def stored(i: int, tables: Tables) -> None:  # here: the workers need not reach the cache
            _store_or_note(jobs[i], cache, tables, unstored)
            finished(i, tables)

        # Each job goes with the code of its Python parts, which the worker checks (`run_job_keyed`).
        keyed = [(job, job.sources) for job in jobs]
        cluster.run_on_dask(client, keyed, todo, stored, run=run_job_keyed, build_of=engine_build, ahead=AHEAD)
    if unstored:
        e = unstored[0]
        why = "no space left on the device" if e.errno in FULL_DISK else (e.strerror or str(e))
        warnings.warn(CacheNotWritten(f"the cache {cache}: {why}; {len(unstored)} of {len(jobs)} runs are not cached; "
                                      "their results are in this sweep's output all the same, and a rerun runs them again"), stacklevel=2)


#: Runs under way or waiting to be taken, per worker: enough that no worker waits while this
#: thread takes a run's results.
AHEAD = 4


def _run_threads(jobs: Sequence[Job], todo: Sequence[int], workers: int, cache: Path, finished: Callable[[int, Tables], None],
                 unstored: list[OSError]) -> None:
    waiting = iter(todo)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: dict[Future[Tables], int] = {}

        def submit(n: int) -> None:
            for i in itertools.islice(waiting, n):
                pending[pool.submit(_run_and_store, jobs[i], cache, unstored)] = i

        submit(AHEAD * workers)
        try:
            while pending:
                ready, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in ready:
                    finished(pending.pop(f), f.result())
                    submit(1)
        except BaseException:
            # Ctrl-C or a failed run: the runs not started are dropped; those running end first.
            pool.shutdown(cancel_futures=True)
            raise
