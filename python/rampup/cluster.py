"""The Dask backend of `cache.run_jobs`: a sweep's runs on the workers of a ``dask.distributed``
cluster (a laptop's `LocalCluster`, a SLURM allocation, a Kubernetes deployment; see
docs/cluster.md).

Workers only simulate: each returns its run's tables, and this process stores them in its
cache, so workers need not share a file system with it. Every worker must run the same
engine build as this process (the cache keys runs by it); `check_workers` says which does
not before anything runs. The cache calls this module, so this module imports nothing of
the cache: the caller hands it the run and the engine build's hash as functions, which Dask
sends to the workers by name.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

J = TypeVar("J")
R = TypeVar("R")

__all__ = ["DaskError", "check_workers", "connect", "run_on_dask", "slots"]


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
    except (OSError, TimeoutError, ValueError) as e:  # ValueError: not an address (a dashboard's http://...)
        raise DaskError(f"scheduler {scheduler!r}: cannot connect ({str(e).splitlines()[0]})") from None


#: This process, as a worker tells it from its own: a worker in it (``Client(processes=False)``)
#: keeps the user's RAMPUP_THREADS. Not the pid: a container's worker may have the caller's.
_PROCESS = uuid.uuid4().hex


def check_workers(client: Any, build: str, build_of: Callable[[], str], wait_s: float = 120) -> None:
    """DaskError unless the cluster has a worker (waiting ``wait_s`` for one to join, as a
    SLURM job or a pod may still be starting) and each worker there now has rampup's engine
    of this ``build``, as ``build_of()`` on the worker says. Workers that join later are
    checked by each run (`_run_checked`)."""
    try:
        client.wait_for_workers(1, timeout=wait_s)
    except TimeoutError:
        raise DaskError(f"scheduler {client.scheduler.address}: no worker joined within {wait_s:g} s") from None
    builds = client.run(build_of, on_error="return")
    failed = {w: b for w, b in builds.items() if isinstance(b, BaseException)}
    if failed:
        worker, e = next(iter(failed.items()))
        raise DaskError(f"worker {worker} cannot run rampup ({type(e).__name__}: {e}; {len(failed)} of {len(builds)} workers): "
                        "install the same rampup on the workers")
    other = {w: b for w, b in builds.items() if b != build}
    if other:
        worker, theirs = next(iter(other.items()))
        raise DaskError(f"worker {worker} runs engine build {theirs}, this process {build} ({len(other)} of {len(builds)} "
                        "workers differ): install the same rampup on the workers")


def _run_checked(run: Callable[[J], R], build_of: Callable[[], str], job: J, build: str, process: str) -> R:
    """On a worker: ``run(job)``, if its engine is the caller's ``build`` (a worker may have
    joined after `check_workers`). A worker process keeps each run to one thread, as its own
    threads are the parallelism; a worker in the caller's ``process`` keeps the user's
    setting."""
    if (theirs := build_of()) != build:
        raise DaskError(f"a worker runs engine build {theirs}, this process {build}: install the same rampup on the workers")
    if process != _PROCESS:
        os.environ["RAMPUP_THREADS"] = "1"
    return run(job)


def run_on_dask(client: Any, jobs: Sequence[J], todo: Sequence[int], finished: Callable[[int, R], None], *,
                run: Callable[[J], R], build_of: Callable[[], str], ahead: int) -> None:
    """``run(jobs[i])`` for i in ``todo`` on ``client``'s cluster (the current client, or a
    cluster of this process's threads when None), and ``finished(i, result)`` here as each
    comes, with at most ``ahead`` runs per worker thread waiting on the cluster. ``run`` and
    ``build_of`` (the engine build's hash) are module-level functions, which Dask sends to
    the workers by name."""
    distributed = _distributed()
    ours = False
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError:
            client, ours = connect(None), True
    futures: dict[Any, int] = {}
    waiting = iter(todo)
    try:
        build = build_of()
        check_workers(client, build, build_of)

        def submit(n: int) -> list[Any]:
            new = {client.submit(_run_checked, run, build_of, jobs[i], build, _PROCESS, pure=False): i
                   for i in itertools.islice(waiting, n)}
            futures.update(new)
            return list(new)

        # A few runs per worker thread wait on the cluster, as on threads (`cache.AHEAD`),
        # so that the results not yet taken here stay few.
        ends = distributed.as_completed(submit(ahead * slots(client)))
        for f in ends:
            i = futures.pop(f)
            result = f.result()
            f.release()  # the worker may drop its copy now
            for more in submit(1):
                ends.add(more)
            finished(i, result)
    finally:
        if futures:  # an error or Ctrl-C: the runs not finished are cancelled
            client.cancel(list(futures))
        if ours:
            client.close()


def slots(client: Any) -> int:
    """The runs the cluster of ``client`` runs at once: its workers' threads."""
    return sum(client.nthreads().values())
