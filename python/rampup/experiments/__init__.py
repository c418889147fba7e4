"""Reproductions of the papers' experiments: `rampup reproduce NAME`.

Each paper is a module with ``reproduce(ctx: Context) -> (report.md, report.html)``. It
builds its sweeps as `Job` lists, runs them through ``ctx.run`` (parallel, cached by
scenario hash), and writes a `Report` with one figure per paper figure and a verdict per
claim.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import pandas as pd

from .report import Claim, Report
from .runner import Job, run_jobs
from .stats import mean_ci90

__all__ = ["PAPERS", "Claim", "Context", "Job", "Report", "load", "mean_ci90"]

#: Paper name -> module in this package.
PAPERS: dict[str, str] = {"rbp": "rbp", "ssthreshless": "ssthreshless"}


def load(paper: str) -> ModuleType:
    return importlib.import_module(f".{PAPERS[paper]}", __name__)


@dataclass
class Context:
    """What a reproduction needs: where to write, how many seeds, how to run."""

    out: Path
    cache: Path
    seeds: int | None = None
    workers: int | None = None
    backend: str = "threads"
    quick: bool = False
    progress: Callable[[int, int], None] | None = None
    runs: int = field(default=0, init=False)
    cached: int = field(default=0, init=False)

    def seeds_or(self, default: int) -> int:
        if self.seeds is not None:
            return self.seeds
        return min(default, 2) if self.quick else default

    def run(self, jobs: Sequence[Job]) -> list[dict[str, pd.DataFrame]]:
        base = self.runs
        total_before = self.cached

        def progress(done: int, total: int) -> None:
            if self.progress:
                self.progress(base + done, base + total)

        before = sum(1 for j in jobs if (self.cache / j.key).exists())
        results = run_jobs(jobs, self.cache, workers=self.workers, backend=self.backend, progress=progress)
        self.runs += len(jobs)
        self.cached = total_before + before
        return results

    def report(self, title: str) -> Report:
        return Report(title=title, folder=self.out)
