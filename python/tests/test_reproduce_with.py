"""`rampup reproduce PAPER --with KIND=module.path:Class` (docs/python-parts.md): the user's part
runs as one more scheme where the paper's part of its family runs, in every table and the
then-and-now rows, with its own verdicts and cache keys; bad input is one line."""

from __future__ import annotations

import importlib
import itertools
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import ROOT

from rampup.cache import Job, each_result
from rampup.experiments import Context, load
from rampup.experiments.framework import Alternate, judge
from rampup.experiments.newcwv.report import BESIDE_RESTART as NEWCWV_RESTART
from rampup.experiments.rbp.claims import claim_rules as rbp_claims
from rampup.experiments.rbp.report import BESIDE_RESTART
from rampup.experiments.rbp.runs import VARIANTS
from rampup.experiments.ssthreshless.claims import ABOUT_A_STARTUP
from rampup.experiments.ssthreshless.report import BESIDE_STARTUP, Ssthreshless
from rampup.experiments.view import View
from rampup.experiments.yours import UserPart, WithError, copies, parse
from rampup.parts import PartException

sys.path.insert(0, str(ROOT))  # `examples.*`, as --with names the classes

EXAMPLE = "startup=examples.rtt_growth:RttGrowthExit"
#: The paper's tables, by the caption each starts with in the report.
TABLES = ("Table I:", "Table II:", "Table III:", "Table IV:", "Table V:", "Table VI:", "Table VII:")


def _reproduce(factory: pytest.TempPathFactory, cache: Path, paper: str, *given: str) -> tuple[Path, Context]:
    ctx = Context(out=factory.mktemp(f"with-{paper}") / "out", cache=cache, quick=True, parts=tuple(map(parse, given)))
    md, _ = load(paper).reproduce(ctx)
    return md, ctx


@pytest.fixture(scope="module")
def startup(tmp_path_factory: pytest.TempPathFactory, quick_cache: Path) -> tuple[Path, Context]:
    """The quick reproduction of paper 001 with the docs' worked example beside SSthreshless Start."""
    return _reproduce(tmp_path_factory, quick_cache, "ssthreshless", EXAMPLE)


def _table_after(text: str, caption: str) -> list[str]:
    """The rows of the report's table captioned ``caption`` (the first with that start)."""
    lines = text[text.index(f"*{caption}"):].splitlines()[1:]
    lines = list(itertools.dropwhile(lambda line: not line.startswith("|"), lines))
    return list(itertools.takewhile(lambda line: line.startswith("|"), lines))


def test_the_example_startup_is_in_tables_i_to_vii(startup: tuple[Path, Context]) -> None:
    md, _ = startup
    text = md.read_text(encoding="utf-8")
    for caption in TABLES:
        rows = _table_after(text, caption)
        assert any("rtt-growth" in row for row in rows), caption
    runs = pd.read_csv(md.parent / "runs.csv")
    mine = runs[runs["scheme"] == "rtt-growth"]
    # Beside SLS wherever it runs (Table II at the default γ alone), and beside today's startups in Table I.
    sls = runs[(runs["scheme"] == "SLS") & ((runs["exp"] != "II") | (runs["x"] == 3))]
    def where(df: pd.DataFrame) -> list[tuple[object, ...]]:
        return [tuple(r) for r in df[["exp", "reading", "x", "seed"]].to_numpy().tolist()]

    assert sorted(where(mine)) == sorted(where(sls) + [("I", "main", 250.0, s) for s in runs["seed"].unique()])


def test_the_then_and_now_rows_hold_it_against_todays_startups_and_sls(startup: tuple[Path, Context]) -> None:
    _, ctx = startup
    assert ctx.then_now is not None
    rows = ctx.then_now[ctx.then_now["scheme"] == "rtt-growth"]
    # Claim (a) twice: behind drop-tail and behind FQ-CoDel with ECN, where SLS's points it copies run too.
    assert sorted(zip(rows["claim"], rows["against"], strict=True)) == \
        sorted((c, other) for c in "abca" for other in ("BBR", "CUBIC+HyStart", "HyStart++", "SEARCH", "SLS"))
    assert set(rows["verdict"]) <= {"still beats", "does not beat", "mixed"}


def test_its_verdicts_are_judged_on_its_own_runs(startup: tuple[Path, Context]) -> None:
    md, ctx = startup
    text = md.read_text(encoding="utf-8")
    section = text[text.index("## Your startup: rtt-growth beside SSthreshless Start"):text.index("## Verdict rules")]
    rows = {r[1].strip(): [c.strip() for c in r[1:-1]] for r in (line.split("|") for line in section.splitlines()
                                                                 if re.match(r"\| [a-z] \|", line))}
    assert set(rows) == ABOUT_A_STARTUP
    # Judged again from the points: the claims with rtt-growth in SLS's role.
    points = pd.read_csv(md.parent / "points.csv")
    exp = Ssthreshless()
    view = View(points, {"reading": "main"}, {"SLS": "rtt-growth"})
    for v in judge([r for r in exp.claims() if r.id in ABOUT_A_STARTUP], view):
        assert rows[v.rule.id][3] == v.cell(), v.rule.id
    # The startup exits slow start on its own rule: its Table III run is not SLS's or slow start's.
    p = points[(points["exp"] == "III") & (points["reading"] == "main")].set_index("scheme")["util_pct"]
    assert p["rtt-growth"] not in (p["SLS"], p["SS (A)"])


def test_the_engines_rules_in_python_beside_rbp_give_the_engines_points_and_verdicts(tmp_path_factory: pytest.TempPathFactory,
                                                                                        quick_cache: Path) -> None:
    """The engine's SSR rewritten in Python (examples/ssr.py) where RBP/cwnd runs (NewReno, Reno
    recovery) is reno-ssr, point for point in every variant, and NewReno in Python where
    vegas-nssr runs is reno-nssr; so the SSR's verdicts in RBP's role are reno-ssr's there, and
    so are the variants it holds under."""
    md, _ = _reproduce(tmp_path_factory, quick_cache, "rbp", "restart=examples.ssr:Ssr", "cc=examples.newreno:NewReno")
    points = pd.read_csv(md.parent / "points.csv")
    cols = [c for c in points.columns if c.startswith(("restart_", "startup_"))]
    for mine, engines in (("ssr-py", "reno-ssr"), ("newreno-py", "reno-nssr")):
        ours, theirs = (points[points["scheme"] == k].set_index(["variant", "sweep", "x"])[cols] for k in (mine, engines))
        assert set(ours.index.get_level_values("variant")) == set(VARIANTS)
        assert len(ours) == len(theirs) > 0
        pd.testing.assert_frame_equal(ours, theirs)
    text = md.read_text(encoding="utf-8")
    start = text.index("## Your restart policy: ssr-py")
    section = text[start:text.index("\n## ", start)]  # up to the next section, the controller's
    rows = (line.split("|") for line in section.splitlines() if re.match(r"\| [a-z] \|", line))
    cells = {r[1].strip(): (r[4].strip(), r[7].strip()) for r in rows}
    assert set(cells) == set(BESIDE_RESTART.claims)
    variants = [Alternate(desc, View(points, {"variant": k}, {"RBP": "reno-ssr"})) for k, (_, desc) in VARIANTS.items() if k != "main"]
    as_reno_ssr = judge([r for r in rbp_claims() if r.id in BESIDE_RESTART.claims], View(points, {"variant": "main"}, {"RBP": "reno-ssr"}),
                        lambda r: variants)
    assert cells == {v.rule.id: (v.cell(), v.holds_under()) for v in as_reno_ssr}


def test_copies_swap_the_part_only_in_the_flows_that_ran_the_source() -> None:
    part = UserPart("startup", "examples.rtt_growth:RttGrowthExit", {"growth_pct": 10}, "rtt-growth", EXAMPLE)
    exp = Ssthreshless()
    points = [p for p in exp.points(Context(out=Path("."), cache=Path("."), quick=True)) if p.tags["seed"] == 1]
    made = copies(points, BESIDE_STARTUP, part)
    fairness = next(p for p in made if p.tags["exp"] == "fig10")
    startups = [f["tcp"].get("startup") for f in fairness.scenario["flow"]]
    # Flows 1-2 run slow start (ssthresh 32), flows 3-5 the paper's SLS: those become the part.
    assert startups[:2] == [None, None] and startups[2:] == [part.table()] * 3
    assert {p.tags["exp"] for p in made} == {"I", "II", "III", "buffer", "delay", "rate", "VII", "fig10"}
    assert all(p.tags["x"] == 3 for p in made if p.tags["exp"] == "II")
    assert all(p.tags["scheme"] == "rtt-growth" for p in made)


def test_an_edited_class_runs_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs of a --with part are keyed by its code: the same class is taken from the cache,
    an edited one runs again."""
    source = (ROOT / "examples" / "rtt_growth.py").read_text(encoding="utf-8")
    (tmp_path / "mystart_edit.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    exp = Ssthreshless()
    points = [p for p in exp.points(Context(out=tmp_path, cache=tmp_path, quick=True)) if p.tags["exp"] == "III" and p.tags["seed"] == 1]

    def jobs() -> list[Job]:
        return [p.job() for p in copies(points, BESIDE_STARTUP, parse("startup=mystart_edit:RttGrowthExit"))]

    def cached(js: list[Job]) -> int:
        loaded: list[int] = []
        each_result(js, tmp_path / "cache", lambda i, t: None, progress=lambda done, total: loaded.append(done) if not loaded else None)
        return loaded[0]

    first = jobs()
    assert len(first) == 3 and cached(first) == 0  # the three readings Table III runs in, run
    assert cached(jobs()) == 3  # the same code: from the cache
    (tmp_path / "mystart_edit.py").write_text(source.replace("growth_pct: float = 25.0", "growth_pct: float = 10.0"), encoding="utf-8")
    importlib.reload(sys.modules["mystart_edit"])
    edited = jobs()
    assert {j.key for j in edited}.isdisjoint({j.key for j in first})
    assert cached(edited) == 0


def test_parse_names_the_class_and_its_keys() -> None:
    part = parse("startup=examples.rtt_growth:RttGrowthExit,growth_pct=10")
    assert (part.kind, part.cls, dict(part.args), part.label) == ("startup", "examples.rtt_growth:RttGrowthExit", {"growth_pct": 10}, "rtt-growth")
    assert part.table() == {"kind": "python", "class": "examples.rtt_growth:RttGrowthExit", "growth_pct": 10}
    with pytest.raises(WithError, match=r"^--with 'speed=x:Y': give KIND=module\.path:Class\[,key=value\.\.\.\] with KIND one of startup, cc, restart"):
        parse("speed=x:Y")


@pytest.mark.parametrize(("given", "line"), [
    ("startup", "--with 'startup': give KIND=module.path:Class[,key=value...] with KIND one of startup, cc, restart"),
    ("startup=examples.rtt_growth:RttGrowthExit,x", "--with 'startup=examples.rtt_growth:RttGrowthExit,x': 'x' is not key=value"),
    ("startup=nosuchmodule:Start", "--with startup=nosuchmodule:Start: nosuchmodule:Start: no module named 'nosuchmodule'"),
    ("restart=examples.rtt_growth:RttGrowthExit", "is not a subclass of rampup.parts.RestartPolicy (it is a rampup.parts.Startup"),
    ("startup=examples.rtt_growth:RttGrowthExit,gamma=3", "the keys given do not fit the constructor RttGrowthExit"),
    ("startup=examples.rtt_growth:RttGrowthExit,growth_pct=-1", "ValueError: growth_pct must be above 0 (got -1)"),
])
def test_a_with_that_does_not_fit_names_the_flag(given: str, line: str) -> None:
    with pytest.raises(WithError) as e:
        parse(given)
    assert str(e.value).startswith("--with ") and line in str(e.value) and "\n" not in str(e.value)


def test_a_constructor_that_raises_is_the_users_exception(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "raising_start.py").write_text("from rampup.parts import Startup\n\n\nclass Raises(Startup):\n"
                                               "    def __init__(self):\n        raise RuntimeError('not today')\n\n"
                                               "    def on_ack(self, ctx):\n        return None\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PartException, match=r"^--with startup=raising_start:Raises: raising_start:Raises: RuntimeError: not today$") as e:
        parse("startup=raising_start:Raises")
    assert isinstance(e.value.__cause__, RuntimeError)


@pytest.mark.parametrize(("given", "paper", "line"), [
    ("speed=examples.rtt_growth:RttGrowthExit", "ssthreshless", "--with 'speed=examples.rtt_growth:RttGrowthExit': give KIND="),
    ("startup=examples.rtt_growth:RttGrowthExit", "vrate",
     "--with startup=examples.rtt_growth:RttGrowthExit: paper vrate runs no startup of its own for a startup of yours to stand "
     "beside; a startup goes with ssthreshless"),
    ("restart=examples.ssr:Ssr", "ssthreshless", "paper ssthreshless runs no restart of its own for a restart of yours to stand "
     "beside; a restart goes with rbp, newcwv"),
])
def test_bad_with_is_one_line_and_exit_2(run_cli, tmp_path: Path, given: str, paper: str, line: str) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("reproduce", paper, "--quick", "--with", given, "--out", tmp_path / "out", "--cache", tmp_path / "cache",
                   cwd=ROOT, env={"PYTHONPATH": f"{ROOT / 'python'}:{ROOT}"})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("rampup: error: ") and line in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not (tmp_path / "out").exists()


def test_reproduce_all_puts_the_part_in_each_paper_that_takes_its_family(tmp_path: Path, quick_cache: Path,
                                                                         quick_site: tuple[Path, Path, list[Any]]) -> None:
    """`reproduce all --with restart=...`: the restart policy stands beside RBP (rbp) and new-CWV
    (newcwv); the papers without a restart policy of their own run as without --with, every
    run from the cache."""
    from rampup.experiments.site import reproduce_all

    index, _, done = reproduce_all(tmp_path / "all", cache=quick_cache, quick=True, parts=(parse("restart=examples.ssr:Ssr"),))
    alone = {d.paper: d for d in quick_site[2]}
    for d in done:
        report = (index.parent / d.paper / "report.md").read_text(encoding="utf-8")
        if d.paper in ("rbp", "newcwv"):
            assert d.runs > alone[d.paper].runs and "ssr-py" in report, d.paper
            # In every variant or reading the policy it stands beside runs in.
            runs = pd.read_csv(index.parent / d.paper / "runs.csv")
            by = [c for c in ("variant", "reading", "sweep", "x", "seed") if c in runs.columns]
            source = {"rbp": BESIDE_RESTART, "newcwv": NEWCWV_RESTART}[d.paper].sources[0].scheme
            mine, theirs = (sorted(map(tuple, runs[runs["scheme"] == k][by].to_numpy().tolist())) for k in ("ssr-py", source))
            assert mine == theirs and len(mine) > 0, d.paper
        else:
            assert (d.runs, d.cached) == (alone[d.paper].runs, alone[d.paper].runs) and "ssr-py" not in report, d.paper
            assert (index.parent / d.paper / "runs.csv").read_bytes() == (quick_site[0].parent / d.paper / "runs.csv").read_bytes()
    assert "With your parts (--with) beside the papers' of their families: ssr-py (restart examples.ssr:Ssr) in rbp, newcwv." \
        in index.read_text(encoding="utf-8")
