"""The Python twins of the engine's parts (`newreno.py`, `hoe.py`, `ssr.py`, `rbp_cwnd.py`) against the parts
themselves, on scenarios/demo.toml, scenarios/restart-after-idle.toml and each paper's example
scenario (the one its report writes as example-scenario.toml): the same scenario run with the Rust part and with the
Python one must give the same tables to the byte. The flows table's `cc` and `restart`
columns are left out of the comparison: they hold the parts' names, which differ by design
(`newreno` against `newreno-py`).

    PYTHONPATH=python:. python3 examples/identity.py      # prints one digest line per run
"""

from __future__ import annotations

import copy
import hashlib
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rampup import _engine, _toml
from rampup.experiments import load

ROOT = Path(__file__).resolve().parents[1]
#: Each paper's `Experiment` class, whose `example_scenario()` gives one run of its reproduction.
PAPERS = {"rbp": "Rbp", "ssthreshless": "Ssthreshless", "preemptive": "Preemptive", "newcwv": "NewCwv", "vrate": "Vrate"}
#: The `cc` names that stand for NewReno with a startup.
SHORTHANDS = ("hoe", "limited-slow-start", "ssthreshless")
PY_NEWRENO = "examples.newreno:NewReno"
PY_HOE = "examples.hoe:Hoe"
PY_SSR = "examples.ssr:Ssr"
PY_RBP_CWND = "examples.rbp_cwnd:RbpCwnd"


def scenarios() -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, scenario document): the demo, the restart after idle and each paper's example run."""
    for name in ("demo", "restart-after-idle"):
        yield name, tomllib.loads((ROOT / "scenarios" / f"{name}.toml").read_text(encoding="utf-8"))
    for paper, cls in PAPERS.items():
        yield paper, getattr(load(paper).report, cls)().example_scenario()[1]


def _tcp_tables(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield doc.setdefault("tcp", {})
    for flow in doc.get("flow", []):
        if "tcp" in flow:
            yield flow["tcp"]


def with_controller(doc: dict[str, Any], python: bool) -> dict[str, Any]:
    """``doc`` with every flow on NewReno (a `cc` shorthand kept as its startup, Vegas and
    CUBIC replaced): the engine's, or the Python twin with the same byte counting."""
    doc = copy.deepcopy(doc)
    top = doc.setdefault("tcp", {})
    for t in _tcp_tables(doc):
        cc = t.get("cc")
        if isinstance(cc, str) and cc in SHORTHANDS:
            t["startup"] = cc
        if t is top or "cc" in t:
            byte_counting = t.get("byte_counting", top.get("byte_counting", t.get("profile", top.get("profile")) == "linux"))
            t["cc"] = {"kind": "python", "class": PY_NEWRENO, "byte_counting": byte_counting} if python else "newreno"
    return doc


def with_hoe(doc: dict[str, Any], python: bool) -> dict[str, Any]:
    """``doc`` with every flow on NewReno and Hoe's startup: the engine's, or the Python twin."""
    doc = copy.deepcopy(doc)
    for t in _tcp_tables(doc):
        t.pop("cc", None)
        t.pop("startup", None)
    doc["tcp"]["cc"] = "newreno"
    doc["tcp"]["startup"] = {"kind": "python", "class": PY_HOE} if python else "hoe"
    return doc


def _with_restart(doc: dict[str, Any], restart: Any) -> dict[str, Any]:
    """``doc`` with every flow restarting after an idle by ``restart``."""
    doc = copy.deepcopy(doc)
    for t in _tcp_tables(doc):
        t.pop("restart", None)
    doc["tcp"]["restart"] = restart
    return doc


def with_ssr(doc: dict[str, Any], python: bool) -> dict[str, Any]:
    """``doc`` with every flow restarting after an idle by RFC 5681 §4.1: the engine's
    policy, or the Python twin."""
    return _with_restart(doc, {"kind": "python", "class": PY_SSR} if python else "ssr")


def with_rbp_cwnd(doc: dict[str, Any], python: bool) -> dict[str, Any]:
    """``doc`` with every flow restarting after an idle by RBP/cwnd, a paced restart (paper
    000 §3.3): the engine's policy, or the Python twin."""
    return _with_restart(doc, {"kind": "python", "class": PY_RBP_CWND, "scale": 1.0} if python else {"kind": "rbp-cwnd", "scale": 1.0})


#: The flows table's columns that name the parts.
NAME_COLUMNS = ("cc", "restart")


def digest(out: dict[str, Any]) -> str:
    """SHA-256 over every table of a run's output, column by column (the flows table's
    columns that name the parts left out)."""
    h = hashlib.sha256()
    for name, table in sorted(out["tables"].items()):
        h.update(name.encode())
        for column, values in table.items():
            if name == "flows" and column in NAME_COLUMNS:
                continue
            h.update(column.encode())
            h.update(repr(values).encode() if isinstance(values, list) else values.dtype.str.encode() + values.tobytes())
    return h.hexdigest()


#: Each twin's part and how a scenario is set to run it.
VARIANTS = {"newreno": with_controller, "hoe": with_hoe, "ssr": with_ssr, "rbp-cwnd": with_rbp_cwnd}


def pairs() -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(scenario, part, the run with the engine's part, the run with the Python twin)."""
    for name, doc in scenarios():
        for part, variant in VARIANTS.items():
            yield name, part, variant(doc, False), variant(doc, True)


def run(doc: dict[str, Any]) -> dict[str, Any]:
    return _engine.run(_toml.dumps(doc))


if __name__ == "__main__":
    for name, part, rust, python in pairs():
        a, b = run(rust), run(python)
        same = "identical" if digest(a) == digest(b) else "DIFFERENT"
        print(f"{name:13} {part:9} rust {digest(a)[:16]}  python {digest(b)[:16]}  {same}  ({b['events']} events)")
