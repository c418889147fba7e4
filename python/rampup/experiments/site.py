"""`rampup reproduce all`: every paper's reproduction into one folder, and an index page.

The site folder holds one sub-folder per paper (its report, figures and data, as `rampup
reproduce PAPER` writes them) and ``index.md`` / ``index.html``: per paper its mechanism and
today's relatives beside it, its claims' verdicts counted, its runs and wall time, and a link
to its report; the versions and the total time. The whole folder is staged and renamed into
place once every paper is done (`rampup.folders`): an interrupted run leaves no half site,
and the cache keeps every finished run for the next.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .. import _engine
from ..cache import engine_build
from ..folders import check_target, staged_folder
from . import PAPERS, Context, families, load, then_now
from .checks import VERDICTS
from .framework import paper_data
from .report import Report

__all__ = ["PaperRun", "listing", "reproduce_all"]

#: Per paper: its mechanism, and what of today's TCP its reproduction runs beside it.
ABOUT: dict[str, tuple[str, str]] = {
    "rbp": ("rate-based pacing after idle (RBP)", "Linux's restart after idle and pacing, RBP on Linux"),
    "ssthreshless": ("SSthreshless Start", "HyStart++ (RFC 9406), SEARCH (draft-chung-ccwg-search-09), CUBIC with HyStart, BBR"),
    "preemptive": ("Preemptive Retransmission", "RACK-TLP's tail loss probe (RFC 8985)"),
    "newcwv": ("new-CWV for rate-limited traffic", "RFC 7661's form"),
    "vrate": ("vrate, a rate controller beneath cooperating connections", "Linux pacing, RFC 9040 ensemble sharing"),
}


def _about(paper: str) -> tuple[str, str, str]:
    """A paper's "number: title", its mechanism and what runs beside it."""
    p = paper_data(paper)
    return (f"{p['number']}: {p['paper']['title']}", *ABOUT[paper])


def listing() -> list[str]:
    """`rampup reproduce --list`: each paper, its mechanism and what runs beside it."""
    lines = [f"{name:13} paper {title} ({mechanism}; beside it: {today})" for name in PAPERS for title, mechanism, today in [_about(name)]]
    return [*lines, f"{'all':13} every paper above, into one folder with an index page"]


@dataclass
class PaperRun:
    paper: str
    runs: int
    cached: int
    seconds: float
    verdicts: dict[str, int]
    #: (letter, statement, verdict cell, the readings it holds under) of each claim.
    claims: list[tuple[str, str, str, str]]
    #: The figure the index shows (a PNG of its report, without .png; "": none).
    figure: str
    #: The mechanism against today's schemes, claim by claim (`then_now.table`).
    then_now: pd.DataFrame | None


def reproduce_all(out: Path, overwrite: bool = False, started: Callable[[str], None] | None = None,
                  **context: Any) -> tuple[Path, Path, list[PaperRun]]:
    """Every paper of `PAPERS` into ``out``/<paper>/, then the index: (index.md, index.html,
    each paper's run). ``started`` hears each paper's name as it starts; ``context`` goes to
    each paper's `Context` (cache, seeds, workers, backend, quick, progress), but for its
    ``parts`` (``--with``): each paper gets those of the families it takes (`families`)."""
    target = check_target(out, overwrite)
    start = time.perf_counter()
    parts = context.pop("parts", ())
    done: list[PaperRun] = []
    manifest = {"kind": "reproduction site", "papers": list(PAPERS), "rampup_version": _engine.__version__}
    with staged_folder(target, manifest, overwrite) as tmp:
        for paper in PAPERS:
            if started:
                started(paper)
            t0 = time.perf_counter()
            takes = families(paper)
            ctx = Context(out=tmp / paper, **context, parts=tuple(p for p in parts if p.kind in takes))
            load(paper).reproduce(ctx)
            counts = Counter(ctx.verdicts)
            done.append(PaperRun(paper, ctx.runs, ctx.cached, time.perf_counter() - t0, {v: counts[v] for v in VERDICTS},
                                 ctx.claims, ctx.index_figure, ctx.then_now))
        yours = [f"{p.label} ({p.kind} {p.cls}) in {', '.join(n for n in PAPERS if p.kind in families(n))}" for p in parts]
        md, page = _index(tmp, done, time.perf_counter() - start, bool(context.get("quick")), yours)
    return target / md.name, target / page.name, done


def _index(folder: Path, done: list[PaperRun], seconds: float, quick: bool, yours: list[str]) -> tuple[Path, Path]:
    title = "rampup: a smoke test of the papers' reproductions (--quick)" if quick else "rampup: the papers reproduced"
    rep = Report(title=title, folder=folder, stem="index")
    runs = "smoke-test runs" if quick else "runs"
    rep.intro = [f"rampup {_engine.__version__} (engine build {engine_build()}); {sum(d.runs for d in done):,} {runs} "
                 f"({sum(d.cached for d in done):,} from the cache) in {seconds:.0f} s."]
    if yours:
        rep.intro.append(f"With your parts (--with) beside the papers' of their families: {'; '.join(yours)}. The claims "
                         "below are the papers' mechanisms'; each paper's report judges your part in a section of its own, and "
                         "the then-and-now table has its rows.")
    if quick:
        rep.intro.append("Quick run: a smoke test of every reproduction, with fewer points and seeds; its verdicts are not "
                         "the papers' reproductions (run without --quick for those).")
    rows = []
    for d in done:
        title, mechanism, today = _about(d.paper)
        rows.append({"paper": title, "mechanism": mechanism, "beside it, today": today, **d.verdicts, "runs": f"{d.runs:,}",
                     "seconds": f"{d.seconds:.0f}"})
    rep.heading("Papers")
    rep.table(pd.DataFrame(rows), f"Each paper's claims by verdict ({' / '.join(VERDICTS)}), its runs and wall time; "
              "its report below")
    rep.links([(f"{d.paper}: the report", f"{d.paper}/report.html") for d in done])
    for d in done:
        if d.figure and (folder / d.paper / f"{d.figure}.png").is_file():
            rep.image(f"{d.paper}/{d.figure}.png", f"{_about(d.paper)[0]}: {d.figure} (its report has every figure)")
    rep.heading("Claims")
    rep.text("Every claim of every paper in one line, with its verdict (built from its sub-claims' verdicts; the count of "
             "sub-claims that hold beside it) and the readings under which it holds: the main one, an alternative "
             "assumption, or none we could state. Each paper's report gives the rule, each sub-claim's verdict, the "
             "points and the whole matrix of claim × reading.")
    rep.table(pd.DataFrame([{"paper": d.paper, "claim": letter, "statement": statement, "verdict": cell, "holds under": under}
                            for d in done for letter, statement, cell, under in d.claims]), "The claims")
    rep.heading("Then and now")
    rep.text("Does each mechanism still beat today's TCP? Each paper's claims about its mechanism, with the quantity each "
             f"speaks of, compared on the claim's points with today's schemes. {then_now.RULES}")
    now = [d.then_now.assign(paper=d.paper) for d in done if d.then_now is not None and not d.then_now.empty]
    if now:
        table = pd.concat(now, ignore_index=True)
        rep.table(table[["paper", *(c for c in table.columns if c != "paper")]], "Claim by claim: each mechanism against "
                  "today's schemes (the quantity's range over the claim's points for each)")
    return rep.write()
