"""Reproductions of the papers' experiments: `rampup reproduce NAME`.

Each paper is a package with ``reproduce(ctx: Context) -> (report.md, report.html)``: an
`framework.Experiment` that declares its points, metrics, claims and report sections, run
by `framework.reproduce` through ``ctx.run_each`` (parallel, cached by scenario hash) into
``ctx.out``. `reproduce_into` gives it a staged folder that replaces the report folder only
when everything is written (`rampup.folders`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import _engine
from ..cache import Job
from ..folders import check_target, staged_folder
from .context import Context
from .framework import Experiment
from .report import Claim, Report
from .stats import mean_ci90
from .yours import Beside

__all__ = ["PAPERS", "Claim", "Context", "Job", "Report", "families", "load", "mean_ci90", "reproduce_into"]

#: Paper name -> module in this package.
PAPERS: dict[str, str] = {"rbp": "rbp", "ssthreshless": "ssthreshless", "preemptive": "preemptive", "newcwv": "newcwv",
                         "vrate": "vrate"}


def load(paper: str) -> ModuleType:
    return importlib.import_module(f".{PAPERS[paper]}", __name__)


def families(paper: str) -> Mapping[str, Beside]:
    """The families of part a ``--with`` part may come from in ``paper``, and where each stands
    (its experiment's `Experiment.beside`)."""
    module = load(paper)
    exp = next(v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Experiment) and v.name == paper)
    return exp.beside


def reproduce_into(paper: str, out: Path, overwrite: bool = False, **context: Any) -> tuple[Path, Path, Context]:
    """Reproduces ``paper`` into the folder ``out``: (report.md, report.html, the context).

    The report is built in a temporary sibling and renamed over ``out`` once complete;
    an existing ``out`` is replaced only if it is an earlier rampup folder left as
    rampup wrote it, or with ``overwrite`` (else `OutputError`, before any run).
    """
    module = load(paper)
    target = check_target(out, overwrite)
    manifest = {"kind": "reproduction", "paper": paper, "rampup_version": _engine.__version__}
    with staged_folder(target, manifest, overwrite) as tmp:
        ctx = Context(out=tmp, **context)
        md, page = module.reproduce(ctx)
    ctx.out = target
    return target / md.name, target / page.name, ctx
