"""The `Context` of a reproduction: where it writes, how many seeds, how its runs run, and
what it found that the index of `rampup reproduce all` shows."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..cache import Job, Tables, each_result
from .report import Report
from .yours import UserPart

__all__ = ["Context"]


@dataclass
class Context:
    """What a reproduction needs: where to write, how many seeds, how to run."""

    out: Path
    cache: Path
    seeds: int | None = None
    workers: int | None = None
    backend: str = "threads"
    #: With backend "dask": the ``dask.distributed.Client`` whose cluster runs the jobs (Any:
    #: dask is an optional dependency, imported only when it is asked for).
    client: Any = None
    quick: bool = False
    progress: Callable[[int, int], None] | None = None
    #: The command that asked for the reproduction, as its report quotes it (None: the
    #: `rampup reproduce` command these settings stand for).
    invoked_as: str | None = None
    #: The Python parts ``--with`` adds, each as one more scheme (`yours`).
    parts: tuple[UserPart, ...] = ()
    runs: int = field(default=0, init=False)
    cached: int = field(default=0, init=False)
    #: Each claim's verdict, as the reproduction judged it ("holds", "partly", ...).
    verdicts: list[str] = field(default_factory=list, init=False)
    #: Each claim as the index lists it: (its letter, its one-line statement, its verdict cell,
    #: the readings it holds under).
    claims: list[tuple[str, str, str, str]] = field(default_factory=list, init=False)
    #: The figure the index of `rampup reproduce all` shows (`Experiment.index_figure`).
    index_figure: str = field(default="", init=False)
    #: The mechanism against today's schemes, claim by claim (`then_now.table`; None: no such table).
    then_now: pd.DataFrame | None = field(default=None, init=False)

    def seeds_or(self, default: int) -> int:
        if self.seeds is not None:
            return self.seeds
        return min(default, 2) if self.quick else default

    def run_each(self, jobs: Sequence[Job], each: Callable[[int, Tables], None]) -> None:
        """``each(i, tables)`` as each job's tables come (`cache.each_result`), counted in
        `runs` and `cached` and shown by `progress`."""
        base = self.runs
        loaded: list[int] = []

        def progress(done: int, total: int) -> None:
            if not loaded:  # the first call: the runs read from the cache (`each_result`)
                loaded.append(done)
            if self.progress:
                self.progress(base + done, base + total)

        each_result(jobs, self.cache, each, workers=self.workers, backend=self.backend, client=self.client,
                    progress=progress)
        self.runs += len(jobs)
        self.cached += loaded[0] if loaded else 0

    def command(self, paper: str) -> str:
        """How the reproduction of ``paper`` with these settings is asked for."""
        if self.invoked_as:
            return self.invoked_as
        flags = [("--quick", self.quick), (f"--seeds {self.seeds}", self.seeds is not None)]
        given = [f"--with {shlex.quote(p.given)}" for p in self.parts]
        return " ".join(["rampup reproduce", paper, *(f for f, on in flags if on), *given])

    def report(self, title: str) -> Report:
        return Report(title=title, folder=self.out)
