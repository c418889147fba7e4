"""The Python API: `run` a scenario, get a `Result` of pandas DataFrames."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

from . import _engine, _toml
from .folders import check_target
from .results import Result, build

__all__ = ["Scenario", "check", "run", "scenario_text"]

#: A scenario: a path to a TOML file (str or os.PathLike), TOML text, or a dict.
Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def scenario_text(scenario: Scenario) -> str:
    """The TOML text of a scenario given as a path, as TOML text or as a dict.

    A ``str`` is read as a path when it is a single line without ``=`` (every
    scenario has a ``key = value``); pass a `pathlib.Path` to be explicit.
    """
    if isinstance(scenario, Mapping):
        return _toml.dumps(scenario)
    if isinstance(scenario, os.PathLike):
        return Path(scenario).read_text(encoding="utf-8")
    if isinstance(scenario, str):
        if "\n" not in scenario and "=" not in scenario:
            return Path(scenario).read_text(encoding="utf-8")
        return scenario
    raise TypeError(f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}")


def check(scenario: Scenario) -> None:
    """Parses and validates a scenario without running it; raises `ScenarioError`."""
    _engine.check(scenario_text(scenario))


def run(
    scenario: Scenario,
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    fmt: str = "parquet",
    pcap: bool = True,
    overwrite: bool = False,
) -> Result:
    """Runs a scenario and returns its tables as pandas DataFrames.

    ``seed`` overrides the scenario's ``seed``. With ``out``, the results folder
    is written there atomically, its tables as ``fmt`` ("parquet" or "csv"), with
    the pcaps unless ``pcap=False``. An existing folder there is replaced only if
    it is an earlier rampup folder left as rampup wrote it, or with ``overwrite``.

    Raises `ScenarioError` (a ValueError) for an invalid scenario, and
    `OutputError` (a ValueError) if ``out`` may not be replaced. The GIL is
    released while the engine runs.
    """
    text = scenario_text(scenario)
    if out is not None:
        check_target(Path(out), overwrite)  # fail before a long run, not after
    start = time.perf_counter()
    raw = _engine.run(text, seed)
    wall_time_s = time.perf_counter() - start
    result = build(raw, text, wall_time_s, fmt=fmt)
    if out is not None:
        result.write(out, pcap=pcap, overwrite=overwrite)
    return result
