"""What every reproduction shares: points in, report out.

An `Experiment` declares
- its points (`Point`: tags and a scenario; one per run),
- what a run measures (`measure`: one row of runs.csv),
- how runs group into figure points (`group`, the tags other than the seed) and which of
  their columns are averaged over seeds with a 90% CI (`metrics`), summed (`totals`) or
  copied (`firsts`),
- its claims (`ClaimRule`: the rule in words and the function that checks it on a `View`),
  and the readings each claim is judged again under (`readings`, or its own `views`),
- the paper-specific sections of its report (`setup`, `sections`).

`reproduce` does the rest: runs every point once (a scenario shared by two points runs
once), through the cache (`Context.run_each`), each reduced as it comes so that memory holds
a few runs' tables; keeps the examples the figures plot; summarises; judges every claim; writes
runs.csv, points.csv, the kept engine table, an example scenario, the claims table of the
docs page and the report.
"""

from __future__ import annotations

import datetime
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd

from .. import _engine, _toml
from ..cache import Job, engine_build
from . import ns2_column, readings, reduced, then_now, yours
from .checks import MEANING, Check, by_part, count, rule_table, verdict
from .context import Context
from .present import docs_table
from .readings import MAIN, Reading
from .report import Claim, Report
from .stats import summarize
from .view import View

__all__ = ["ClaimRule", "Experiment", "Point", "Results", "Verdict", "claim_rules", "judge", "paper_data",
           "reproduce", "summarize"]

#: The claims table docs/<paper>.md shows (between its `claims` markers), written beside
#: the report; a test checks that the page has the one the full reproduction writes.
DOCS_TABLE = "claims-table.md"


def paper_data(name: str) -> dict[str, Any]:
    """The paper's own numbers and words (``data/<name>.toml``), as printed in it."""
    return tomllib.loads(resources.files(__package__).joinpath("data", f"{name}.toml").read_text(encoding="utf-8"))


@dataclass
class Point:
    """One run: its tags (including ``seed``), its scenario, the engine tables it keeps and
    anything the experiment's `measure` needs besides (``info``)."""

    tags: dict[str, Any]
    scenario: dict[str, Any]
    keep: tuple[str, ...] = ("flows",)
    info: Any = None

    def job(self) -> Job:
        return Job(_toml.engine_text(self.scenario), self.tags["seed"], tags=self.tags, keep=self.keep)


@dataclass(frozen=True)
class ClaimRule:
    """A claim of the paper: its words and what the paper reports (from the paper's data
    file), the rule in our words, and the function that checks it on a view."""

    id: str
    statement: str
    paper: str
    rule: str
    check: Callable[[View], list[Check]]
    numbers: Callable[[View], str]  # our numbers for the claim, briefly
    unit: str = ""  # of the x values a failing check names


def claim_rules(paper: str, rules: Mapping[str, str], checks: Mapping[str, Callable[[View], list[Check]]],
                numbers: Mapping[str, Callable[[View], str]]) -> list[ClaimRule]:
    """A paper's claims, one per key of ``rules``: its words (``data/<paper>.toml``), our rule
    in words, the check and our numbers."""
    words = paper_data(paper)["claim"]
    return [ClaimRule(c, words[c]["statement"], words[c]["paper"], rules[c], checks[c], numbers[c]) for c in rules]


@dataclass
class Verdict:
    """A claim judged on one view, with the other readings' checks beside it."""

    rule: ClaimRule
    checks: list[Check]
    ours: str
    alternates: list[tuple[str, list[Check], str]]  # (label, checks, numbers or "")

    @property
    def verdict(self) -> str:
        return verdict(self.checks)

    def holds_under(self) -> str:
        """The readings under which the claim holds (`readings.holds_under`)."""
        return readings.holds_under(self.verdict, [(label, verdict(ch)) for label, ch, _ in self.alternates])

    def cell(self) -> str:
        """``verdict (held/tested sub-claims)``, as the claims tables show it."""
        return f"{self.verdict} ({count(self.checks)})"

    def reason(self, intro: str) -> str:
        alts = "; ".join(f"{label}: {verdict(ch)} ({count(ch)}{'; ' + n if n else ''})" for label, ch, n in self.alternates)
        tail = f" {intro}{alts}." if self.alternates else ""
        return f"{self.verdict}: {count(self.checks)} ({by_part(self.checks, self.rule.unit)}). Rule: {self.rule.rule}{tail}"


@dataclass(frozen=True)
class Alternate:
    """Another reading a claim is judged under: its label, its view and whether the reason
    gives its numbers too."""

    label: str
    view: View
    numbers: bool = False


def judge(rules: Sequence[ClaimRule], view: View, alternates: Callable[[ClaimRule], Sequence[Alternate]] = lambda r: ()) -> list[Verdict]:
    out = []
    for r in rules:
        alts = [(a.label, r.check(a.view), r.numbers(a.view) if a.numbers else "") for a in alternates(r)]
        out.append(Verdict(r, r.check(view), r.numbers(view), alts))
    return out


@dataclass
class Results:
    """What the runs gave: every point, the per-run rows and the figure points."""

    points: list[Point]
    runs: pd.DataFrame
    summary: pd.DataFrame  # the main reading's figure points (every point, for an experiment without `readings`)
    examples: dict[int, dict[str, pd.DataFrame]]  # point index -> its slimmed tables
    data: pd.DataFrame | None = None  # the experiment's `data_table` of every main run, with a ``run`` column
    every_reading: pd.DataFrame | None = None  # with `readings`: the figure points of every reading
    #: The schemes of the parts ``--with`` added (`yours`), in the order given.
    yours: tuple[str, ...] = ()

    @property
    def all_points(self) -> pd.DataFrame:
        """The figure points of every reading (`summary`, for an experiment without `readings`)."""
        return self.summary if self.every_reading is None else self.every_reading

    def example(self, **tags: Any) -> dict[str, pd.DataFrame]:
        """The kept tables of the (first) example point with these tags."""
        for i, t in self.examples.items():
            if all(self.points[i].tags.get(k) == v for k, v in tags.items()):
                return t
        raise KeyError(tags)


class Experiment:
    """A paper's reproduction; subclasses fill in what is specific to the paper."""

    title: str = ""
    #: The paper's name in `PAPERS` and its data file, ``data/<name>.toml``.
    name: str = ""
    group: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    totals: tuple[str, ...] = ()
    firsts: tuple[str, ...] = ()
    #: An engine table kept whole, tagged, as ``<name>.parquet`` (None: none).
    data_table: str | None = None
    #: Before the other readings' verdicts in a claim's reason.
    alternates_intro: str = ""
    #: The report's "Verdict rules" text before `MEANING`, and the check table's caption.
    rules_intro: str = ""
    rules_after: str = ""
    checks_caption: str = ""
    data_text: str = ""
    #: Then and now (`then_now`): each claim's quantity on its points (`then_now.Row`), the
    #: (mechanism, today's scheme) pairs compared and the reading (tags) they are compared
    #: on. The index of `rampup reproduce all` shows the table; the report too, in a section
    #: of its own with this text before the rules (empty: the experiment places it itself).
    then_now_rows: Sequence[then_now.Row] = ()
    then_now_pairs: Sequence[tuple[str, str]] = ()
    then_now_where: Mapping[str, Any] = MappingProxyType({})
    then_now_text: str = ""
    #: The figure (a PNG its report writes, without .png) the index of `rampup reproduce all` shows.
    index_figure: str = ""
    #: The assumptions each claim is judged again under (`readings.Reading`): their points are
    #: run beside the main ones, tagged ``reading``; the figures and tables see the main ones.
    readings: Sequence[Reading] = ()
    #: ns-2.35's own numbers at the figures' points (`ns2_column.Ns2Column`; None: ns-2 has
    #: none of the paper's baselines), shown beside ours in a section of the report.
    ns2: Any = None
    #: Where a Python part of each family (``startup``, ``cc``, ``restart``) given by ``--with``
    #: stands (`yours.Beside`); a family not here has nothing of its own to stand beside.
    beside: Mapping[str, yours.Beside] = MappingProxyType({})

    def points(self, ctx: Context) -> list[Point]:
        raise NotImplementedError

    def measure(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, Any]:
        raise NotImplementedError

    def example_of(self, point: Point, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame] | None:
        """What the figures need of this run's tables, if it is one they plot (else None)."""
        return None

    def example_scenario(self) -> tuple[str, dict[str, Any]]:
        """(a comment line, one run's scenario) for example-scenario.toml."""
        raise NotImplementedError

    def claims(self) -> list[ClaimRule]:
        raise NotImplementedError

    def views(self, summary: pd.DataFrame) -> tuple[View, Callable[[ClaimRule], Sequence[Alternate]]]:
        """The primary view and, per claim, the readings it is judged again under; by
        default the main reading and each of `readings` that judges the claim."""
        if not self.readings:
            return View(summary, {}), lambda r: []
        return View(summary, {"reading": MAIN}), lambda r: [Alternate(rd.label, View(summary, {"reading": rd.name}), True)
                                                            for rd in self.readings if r.id in rd.claims]

    def docs_table(self, res: Results, verdicts: list[Verdict]) -> str:
        """The claims table of the docs page; by default the paper's words, our verdict with
        its count of checks passed, and our numbers."""
        rows = [[f"({v.rule.id}) {v.rule.paper}", v.cell(), v.ours] for v in verdicts]
        return docs_table(["claim", "verdict", "what came out"], rows) + "\n"

    def setup(self, rep: Report, res: Results, ctx: Context) -> None:
        raise NotImplementedError

    def sections(self, rep: Report, res: Results, verdicts: list[Verdict], ctx: Context) -> None:
        raise NotImplementedError


def then_now_table(exp: Experiment, res: Results, parts: Sequence[yours.UserPart] = ()) -> pd.DataFrame:
    """The experiment's then-and-now table (`then_now.table`; empty if it has no `then_now_rows`),
    with the rows of the ``--with`` parts."""
    return then_now.table(View(res.summary, exp.then_now_where), exp.then_now_rows,
                          yours.then_now_pairs(exp.then_now_pairs, exp.beside, parts))


def check_beside(exp: Experiment, parts: Sequence[yours.UserPart]) -> None:
    """`yours.WithError` for a part of a family the paper compares none of."""
    for part in parts:
        if part.kind not in exp.beside:
            takes = ", ".join(sorted(exp.beside)) or "none"
            raise yours.WithError(f"--with {part.given}: paper {exp.name} runs no {part.kind} of its own for it to stand "
                                  f"beside (the families it takes: {takes})")


def _group(exp: Experiment) -> tuple[str, ...]:
    """The tags of a figure point: the experiment's, and the reading where it has readings."""
    return (*exp.group, "reading") if exp.readings else tuple(exp.group)


def run_points(exp: Experiment, ctx: Context) -> Results:
    """Every point of ``exp`` (and of its readings), each distinct scenario run once and
    reduced as it comes; or the reduction stored by an earlier run of the same points and code
    (`reduced`)."""
    check_beside(exp, ctx.parts)
    points = exp.points(ctx)
    schemes = {p.tags.get("scheme") for p in points}
    for part in ctx.parts:
        if part.label in schemes:
            raise yours.WithError(f"--with {part.given}: the part's name {part.label!r} is a scheme of paper {exp.name}; "
                                  "give the class another name (its name attribute)")
    if exp.readings:
        points = readings.expand(points, exp.readings)
    # After the readings: a part runs in each reading its source scheme runs in.
    points += [c for part in ctx.parts for c in yours.copies(points, exp.beside[part.kind], part)]
    jobs = [p.job() for p in points]
    by_key: dict[str, list[int]] = {}
    for i, job in enumerate(jobs):
        by_key.setdefault(job.key, []).append(i)
    k = reduced.key(exp.name, points, [j.key for j in jobs])
    found = reduced.load(ctx.cache, exp.name, k)
    if found is None:
        found = _reduce(exp, ctx, points, jobs, by_key)
        reduced.store(ctx.cache, exp.name, k, found)
    else:
        ctx.runs, ctx.cached = ctx.runs + len(by_key), ctx.cached + len(by_key)
        if ctx.progress is not None:
            ctx.progress(len(by_key), len(by_key))
    runs, examples, data = found
    summary = summarize(runs, _group(exp), exp.metrics, exp.totals, exp.firsts)
    labels = tuple(part.label for part in ctx.parts)
    if not exp.readings:
        return Results(points, runs, summary, examples, data, yours=labels)
    main = summary[summary["reading"] == MAIN].reset_index(drop=True)
    return Results(points, runs, main, examples, data, every_reading=summary, yours=labels)


def _reduce(exp: Experiment, ctx: Context, points: list[Point], jobs: list[Job], by_key: dict[str, list[int]]) -> reduced.Reduction:
    """(each point's row, the figures' examples, the data table): each distinct run read or
    run and reduced as it comes, so that memory holds only the tables a few runs make."""
    keys = list(by_key)
    alternative = {r.name for r in exp.readings}
    rows: list[dict[str, Any]] = [{}] * len(points)
    examples: dict[int, dict[str, pd.DataFrame]] = {}
    kept: list[pd.DataFrame] = []

    def reduce(j: int, tables: dict[str, pd.DataFrame]) -> None:
        for i in by_key[keys[j]]:
            rows[i] = {**points[i].tags, **exp.measure(points[i], tables)}
            if points[i].tags.get("reading") in alternative:
                continue  # a reading's runs are judged, not plotted
            example = exp.example_of(points[i], tables)
            if example is not None:
                examples[i] = example
            if exp.data_table:
                kept.append(tables[exp.data_table].assign(run=i))

    ctx.run_each([jobs[by_key[k][0]] for k in keys], reduce)
    # Runs end in any order: the examples and the data go in the points' order.
    data = pd.concat(kept, ignore_index=True).sort_values("run", kind="stable", ignore_index=True) if kept else None
    return pd.DataFrame(rows), dict(sorted(examples.items())), data


def _write_data(exp: Experiment, ctx: Context, res: Results) -> None:
    out = ctx.out
    out.mkdir(parents=True, exist_ok=True)
    if exp.data_table and res.data is not None:
        res.data.join(res.runs[[*_group(exp), "seed"]], on="run").to_parquet(out / f"{exp.data_table}.parquet", index=False)
    res.runs.to_csv(out / "runs.csv", index=False)
    res.all_points.to_csv(out / "points.csv", index=False)
    comment, doc = exp.example_scenario()
    (out / "example-scenario.toml").write_text(f"# {comment}\n# rampup run example-scenario.toml\n" + _toml.dumps(doc),
                                               encoding="utf-8")


QUICK = ("Quick run: a smoke test of the pipeline, with fewer points and seeds. Its verdicts are not the paper's "
         "reproduction; run without --quick for those.")


def about(exp: Experiment, ctx: Context) -> list[str]:
    """What was reproduced (the paper, from its data file), by what and how: the report's intro."""
    p = paper_data(exp.name)["paper"]
    lines = [f"Paper: {p['authors']}, \"{p['title']}\", {p['published']}.",
             f"Reproduced by rampup {_engine.__version__} (engine build {engine_build()}) on "
             f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d} with `{ctx.command(exp.name)}`."]
    return lines + ([QUICK] if ctx.quick else [])


def verdict_rules(rep: Report, exp: Experiment, verdicts: list[Verdict]) -> None:
    """The "Verdict rules" section: how a verdict is reached, each rule and each check."""
    rep.heading("Verdict rules")
    rep.text(f"{exp.rules_intro} {MEANING} {exp.rules_after}")
    rep.table(pd.DataFrame([{"claim": v.rule.id, "checks": v.rule.rule} for v in verdicts]), "Rules")
    rep.table(pd.DataFrame([{"claim": v.rule.id, **row} for v in verdicts for row in rule_table(v.checks)]), exp.checks_caption)


def sentences(paper: str) -> list[dict[str, str]]:
    """Every result sentence of the paper (``data/<paper>.toml``), each judged by claims, not
    testable here, or open."""
    return list(paper_data(paper).get("sentence", []))


def sentence_counts(paper: str) -> str:
    """The paper's result sentences counted by how they are judged, in one line."""
    ss = sentences(paper)
    judged, untestable = sum("claims" in s for s in ss), sum("untestable" in s for s in ss)
    return (f"Result sentences of the paper: {len(ss)}; judged by a claim: {judged}; not testable here: {untestable}; "
            f"open (testable by these runs, no rule yet): {len(ss) - judged - untestable}.")


def sentences_section(rep: Report, exp: Experiment) -> None:
    """The "Result sentences" section: every statement of the paper about a result and what judges it."""
    ss = sentences(exp.name)
    if not ss:
        return
    rep.heading("The paper's result sentences")
    rep.text(f"{sentence_counts(exp.name)} Each statement about a result in the paper's evaluation, conclusion and abstract, "
             "read sentence by sentence, and the claim that judges it; a sentence no simulation can test says why, and an "
             "open one gives the rule it would get.")
    rows = [{"where": s["where"], "sentence": s["text"],
             "judged by": f"claim {s['claims']}" + (f" ({s['note']})" if s.get("note") else "") if "claims" in s
             else f"not testable here: {s['untestable']}" if "untestable" in s else f"open: {s['open']}"} for s in ss]
    rep.table(pd.DataFrame(rows), "Result sentences")


def readings_matrix(rep: Report, exp: Experiment, verdicts: list[Verdict]) -> None:
    """The "Readings" section: claim × reading → verdict, and the readings each claim holds under."""
    rep.heading("Readings: which assumption flips a verdict")
    declared = "".join(f" {r.label}: {r.why}" for r in exp.readings)
    rep.text("Each claim judged under the main reading (the set-up above) and again under each alternative reading of an "
             "assumption the paper leaves open or where our model departs from the authors' simulator; a blank cell is a "
             f"reading that does not rerun that claim's points.{declared}")
    rep.table(readings.matrix([(v.rule.id, v.cell(), [(label, f"{verdict(ch)} ({count(ch)})") for label, ch, _ in v.alternates])
                               for v in verdicts], [r.label for r in exp.readings]), "Claim × reading → verdict")


def judge_yours(exp: Experiment, view: View, alternates: Callable[[ClaimRule], Sequence[Alternate]],
                verdicts: Sequence[Verdict], parts: Sequence[yours.UserPart]) -> list[tuple[yours.UserPart, list[Verdict]]]:
    """Each ``--with`` part's verdicts: the claims about the scheme it stands beside, judged on
    the primary view with the part in that scheme's role, and again under each other reading
    with the part in it."""
    out = []
    for part in parts:
        b = exp.beside[part.kind]
        rules = [v.rule for v in verdicts if v.rule.id in b.claims]
        out.append((part, judge(rules, _cast(view, b.role, part.label), _cast_alternates(view, alternates, b.role, part.label))))
    return out


def _cast(view: View, role: str, scheme: str) -> View:
    """``view`` with ``scheme`` playing ``role``."""
    return View(view.points, view.where, {**view.roles, role: scheme})


def _cast_alternates(view: View, alternates: Callable[[ClaimRule], Sequence[Alternate]], role: str,
                     scheme: str) -> Callable[[ClaimRule], list[Alternate]]:
    """The readings of ``alternates`` with ``scheme`` playing ``role``; a reading that differs
    from the primary one only in who plays the role (paper 001's 10 ms tick, say) is the
    primary one once the role is cast, and is left out, as is a second copy of another."""
    primary = _key(_cast(view, role, scheme))

    def cast(rule: ClaimRule) -> list[Alternate]:
        seen, out = [primary], []
        for a in alternates(rule):
            v = _cast(a.view, role, scheme)
            if _key(v) not in seen:
                seen.append(_key(v))
                out.append(Alternate(a.label, v, a.numbers))
        return out
    return cast


def _key(view: View) -> tuple[dict[str, Any], dict[str, str]]:
    return dict(view.where), dict(view.roles)


def yours_section(rep: Report, exp: Experiment, verdicts: Sequence[Verdict],
                  judged: Sequence[tuple[yours.UserPart, list[Verdict]]]) -> None:
    """One section per ``--with`` part: where it ran, and its verdict on each claim about the
    scheme it stands beside, beside that scheme's."""
    primary = {v.rule.id: v for v in verdicts}
    for part, theirs in judged:
        b, word = exp.beside[part.kind], yours.WORDS[part.kind]
        others = [s.scheme for s in b.sources[1:]]
        rep.heading(f"Your {word}: {part.label} beside {b.what or b.scheme}")
        rep.text(f"`--with {part.given}` runs `{part.cls}` as one more scheme, {part.label}: at every point where "
                 f"{b.scheme} runs" + (f", and beside {', '.join(others)} where {b.scheme} does not" if others else "")
                 + f", on the same set-up and seeds, in place of the {word} of the flows that ran the paper's. It is in "
                 f"every table and figure of those points and in the then-and-now table. Below, each claim about "
                 f"{b.what or b.scheme} judged again with {part.label} in its place, by the same rules, on the primary "
                 f"reading and under each other reading it ran in (the readings it holds under); the numbers are "
                 f"{part.label}'s where the claim's words name {b.scheme}. "
                 + (f"The other claims are not judged with it: {b.not_judged}" if b.not_judged else ""))
        rows = [{"claim": v.rule.id, "statement": v.rule.statement, f"{b.scheme}": primary[v.rule.id].cell(),
                 part.label: v.cell(), f"{part.label}'s numbers": v.ours,
                 "sub-claims": by_part(v.checks, v.rule.unit), "holds under": v.holds_under()} for v in theirs]
        rep.table(pd.DataFrame(rows), f"The claims about {b.scheme}, with {part.label} in its place")


def reproduce(exp: Experiment, ctx: Context) -> tuple[Path, Path]:
    """Runs ``exp`` and writes its data and report into ``ctx.out``: (report.md, report.html)."""
    res = run_points(exp, ctx)
    _write_data(exp, ctx, res)
    view, alternates = exp.views(res.all_points)
    verdicts = judge(exp.claims(), view, alternates)
    judged = judge_yours(exp, view, alternates, verdicts, ctx.parts)
    ctx.verdicts = [v.verdict for v in verdicts]
    ctx.claims = [(v.rule.id, v.rule.statement, v.cell(), v.holds_under()) for v in verdicts]
    ctx.index_figure = exp.index_figure
    ctx.then_now = now = then_now_table(exp, res, ctx.parts) if exp.then_now_rows else None
    (ctx.out / DOCS_TABLE).write_text(exp.docs_table(res, verdicts) + "\n" + sentence_counts(exp.name) + "\n", encoding="utf-8")
    rep = ctx.report(exp.title)
    rep.intro = about(exp, ctx)
    for v in verdicts:
        rep.claim(Claim(id=v.rule.id, text=v.rule.statement, paper=v.rule.paper, ours=v.ours, verdict=v.verdict,
                        reason=v.reason(exp.alternates_intro), checks=count(v.checks)))
    exp.setup(rep, res, ctx)
    yours_section(rep, exp, verdicts, judged)
    verdict_rules(rep, exp, verdicts)
    readings_matrix(rep, exp, verdicts)
    sentences_section(rep, exp)
    exp.sections(rep, res, verdicts, ctx)
    ns2_column.section(rep, exp, res.runs, ctx)
    if now is not None and exp.then_now_text:
        rep.heading("Then and now")
        rep.text(f"{exp.then_now_text} {then_now.RULES}")
        rep.table(now, "Claim by claim: the mechanism against today's schemes")
    rep.heading("Data")
    rep.text(exp.data_text)
    return rep.write()
