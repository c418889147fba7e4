"""The Dask backend of `run_jobs`: a sweep's runs on the workers of a ``dask.distributed``
cluster (a laptop's `LocalCluster`, a SLURM allocation, a Kubernetes deployment; see
docs/cluster.md).

Workers only simulate: each returns its run's tables, and this process stores them in its
cache, so workers need not share a file system with it. Every worker must run the same
engine build as this process (the cache keys runs by it); `check_workers` says which does
not before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["DaskError", "connect", "run_on_dask"]


class DaskError(ValueError):
    """The cluster cannot run the jobs: no dask, no scheduler there, a worker's engine differs."""


def _distributed() -> Any:
    try:
        import dask.distributed
    except ImportError:
        raise DaskError("backend 'dask' needs the dask extra: pip install 'rampup[dask]'") from None
    return dask.distributed


def connect(scheduler: str | None, timeout_s: float = 10) -> Any:
    """A client of the scheduler at ``scheduler`` (``tcp://host:8786``), or of a cluster of
    this process's threads when None (the engine releases the GIL); else DaskError."""
    distributed = _distributed()
    if scheduler is None:
        return distributed.Client(processes=False)
    try:
        return distributed.Client(scheduler, timeout=timeout_s)
    except (OSError, TimeoutError) as e:
        raise DaskError(f"scheduler {scheduler!r}: cannot connect ({str(e).splitlines()[0]})") from None


def check_workers(client: Any, build: str) -> None:
    """DaskError unless every worker has rampup's engine of this ``build``."""
    builds = client.run(_worker_build, os.getpid())
    if not builds:
        raise DaskError(f"scheduler {client.scheduler.address}: the cluster has no workers")
    other = {w: b for w, b in builds.items() if b != build}
    if other:
        worker, theirs = next(iter(other.items()))
        raise DaskError(f"worker {worker} runs engine build {theirs}, this process {build} ({len(other)} of {len(builds)} "
                        "workers differ): install the same rampup on the workers")


def _worker_build(caller_pid: int) -> str:
    """On a worker: its engine's build (`engine_build`), which must be the caller's. A worker
    process also keeps each run to one thread, as its own threads are the parallelism; a
    worker in the caller's process (``Client(processes=False)``) keeps the user's setting."""
    from .runner import engine_build

    if os.getpid() != caller_pid:
        os.environ["RAMPUP_THREADS"] = "1"
    return engine_build()


def run_on_dask(client: Any, jobs: Sequence[Any], todo: Sequence[int], cache: Path, finished: Callable[[int, Any], None]) -> None:
    """Run ``jobs[i]`` for i in ``todo`` on ``client``'s cluster (the current client, or a
    cluster of this process's threads when None), storing each result here as it comes."""
    from .runner import _run, _store, engine_build

    distributed = _distributed()
    ours = False
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError:
            client, ours = connect(None), True
    futures: dict[Any, int] = {}
    try:
        check_workers(client, engine_build())
        futures = {client.submit(_run, jobs[i], pure=False): i for i in todo}
        for f in distributed.as_completed(list(futures)):
            i = futures.pop(f)
            tables = f.result()
            f.release()  # the worker may drop its copy now
            _store(cache / jobs[i].key, tables)
            finished(i, tables)
    finally:
        if futures:  # an error or Ctrl-C: the runs not finished are cancelled
            client.cancel(list(futures))
        if ours:
            client.close()
