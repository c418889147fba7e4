"""The Python API: `run` a scenario, get a `Result` of pandas DataFrames."""

from __future__ import annotations

import difflib
import numbers
import os
import re
import stat
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Union

import pandas as pd

from . import _engine, _toml
from .folders import resolved, staged_folder
from .results import Result, TraceWriter, build, check_format

__all__ = ["Scenario", "check", "estimate", "memory_budget_bytes", "read_scenario_file", "run", "run_to_folder", "scenario_text"]

#: A scenario: a path to a TOML file (str or os.PathLike), TOML text, or a dict.
Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]


#: The largest scenario file read: real ones are a few kilobytes, generated ones (many flows)
#: a few megabytes; a bigger file is a mistake, like /dev/zero, not read to its end.
MAX_SCENARIO_BYTES = 64 << 20


def read_scenario_file(path: Path) -> str:
    """The text of the scenario file ``path``; ValueError (one line) if it is not a regular
    file of at most `MAX_SCENARIO_BYTES` bytes of UTF-8 text, OSError if it cannot be read."""
    info = path.stat()  # follows links; a loop or a missing file is an OSError
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, pipe or socket)"
        raise ValueError(f"{path}: {kind}; a scenario is a TOML file")
    with open(path, "rb") as f:
        data = f.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise ValueError(f"{path}: larger than {MAX_SCENARIO_BYTES >> 20} MiB; not a scenario file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte {e.start})") from None


def scenario_text(scenario: Scenario) -> str:
    """The TOML text of a scenario given as a path, as TOML text or as a dict.

    A ``str`` is read as a path when it is a single line that names a file, or has no
    ``=`` (every scenario has a ``key = value``); pass a `pathlib.Path` to be explicit.
    """
    if isinstance(scenario, Mapping):
        return _toml.dumps(scenario)
    if isinstance(scenario, os.PathLike):
        return read_scenario_file(Path(scenario))
    if isinstance(scenario, str):
        if "\n" not in scenario and ("=" not in scenario or Path(scenario).is_file()):
            return read_scenario_file(Path(scenario))
        return _utf8_text(scenario)
    raise TypeError(f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}")


_HEADER = re.compile(r"\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r"\s*([A-Za-z0-9_.\"' -]+?)\s*=")


def _utf8_text(text: str) -> str:
    """``text``, or a `ScenarioError` naming the line and key of a lone surrogate (a str
    made from bytes with surrogateescape), which UTF-8, and so the engine, cannot hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        lines = text[: e.start].split("\n")
        table, key = "", None
        for line in lines[:-1]:
            if m := _HEADER.match(line):
                table = m.group(1)
        line = text.split("\n")[len(lines) - 1]
        if m := _KEY.match(line):
            key = f"{table}.{m.group(1)}" if table else m.group(1)
        where = f"line {len(lines)} column {len(lines[-1]) + 1}" + (f" ({key})" if key else "")
        raise _engine.ScenarioError(f"{where}: a lone surrogate {text[e.start]!r}, which UTF-8 cannot hold; "
                                    "a scenario is UTF-8 text") from None
    return text


#: The end of the engine's message for a key or a name it does not know, with what it takes:
#: serde's (unknown field `x`) or a registered part's (unknown cc "x").
_UNKNOWN = re.compile(r"unknown (?:(?:field|variant) `([^`]*)`|[a-z]+ \"([^\"]*)\")(?=, expected (?:one of )?(`.*)$)")


def explained(error: _engine.ScenarioError) -> _engine.ScenarioError:
    """The engine's error, with "did you mean" for a key or a name it does not know that is
    close to one it takes: the engine lists those it takes, and the closest is picked here."""
    message = str(error)
    m = _UNKNOWN.search(message)
    if m is None:
        return error
    allowed = re.findall(r"`([^`]*)`", m.group(3))
    close = difflib.get_close_matches(m.group(1) or m.group(2), allowed, n=1, cutoff=0.6)
    if not close:
        return error
    return _engine.ScenarioError(f"{message[: m.end()]} (did you mean `{close[0]}`?){message[m.end():]}")


def engine_check(text: str) -> list[str]:
    """`_engine.check`, its errors `explained`."""
    try:
        return _engine.check(text)
    except _engine.ScenarioError as e:
        raise explained(e) from None


def check_seed(seed: object, key: str = "seed") -> None:
    """A seed is None (the scenario's) or a whole number the engine takes (64 bits)."""
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"{key}: {seed!r} is not allowed; give a whole number from 0 to 2^64 - 1")


class ScenarioWarning(UserWarning):
    """A scenario that is valid but likely not what was meant (one that sends nothing, a flow
    that starts after the end, a flow from a router)."""


def check(scenario: Scenario) -> list[str]:
    """Parses and validates a scenario without running it; raises `ScenarioError`. Returns
    its warnings, one line each (valid, but likely a mistake)."""
    return engine_check(scenario_text(scenario))


def inspect(scenario: Scenario) -> pd.DataFrame:
    """Each flow's path as the engine routes it, without running: one row per flow with
    ``from``, ``to``, ``hops``, ``path`` (output ports, sender to receiver),
    ``bottleneck_bps``, ``propagation_rtt_ns`` (link delays there and back),
    ``base_rtt_ns`` (plus one segment's and one ACK's serialisation per hop),
    ``mss_bytes``, ``bdp_bytes`` (bottleneck rate × propagation RTT) and ``web_rate`` (a web
    flow's new connections per second, the one its ``utilization`` gives; NaN for others). Raises
    `ScenarioError` for an invalid scenario."""
    text = scenario_text(scenario)
    engine_check(text)
    return pd.DataFrame(_engine.paths(text))


def estimate(scenario: Scenario) -> dict[str, float]:
    """What a run of the scenario will take, from the scenario alone (no run): ``packets``
    sent, ``packet_hops`` (packets offered to ports: at most the run's events),
    ``connections`` opened and ``open_connections`` (the most at once), ``trace_rows`` (of
    the traced tables, which grow with the run's length), ``memory_bytes`` (the engine's
    peak heap in a run into a results folder), ``tables_bytes`` (the traced tables as
    columns, held on top by a run that returns them) and ``accuracy``: the factor, either
    way, within which the tests find runs' figures (docs/scenarios.md). Raises
    `ScenarioError` for an invalid scenario."""
    text = scenario_text(scenario)
    engine_check(text)
    return dict(_engine.estimate(text))


def memory_budget_bytes(budget: int | str | None, key: str = "memory_budget") -> int | None:
    """A memory budget in bytes: None (no budget), a whole number of bytes, or a size as
    scenarios write one ("2GiB", "500MB"); ValueError (one line, naming ``key``) otherwise."""
    if budget is None:
        return None
    if isinstance(budget, str):
        try:
            budget = _engine.parse_size(budget)
        except ValueError as e:
            raise ValueError(f"{key}: {e}") from None
    if isinstance(budget, bool) or not isinstance(budget, numbers.Integral) or not 0 < int(budget) < 2**64:
        raise ValueError(f"{key}: {budget!r} is not allowed; give a size above 0, like \"2GiB\" or a whole number of bytes")
    return int(budget)


def _warn_of(text: str) -> None:
    for w in engine_check(text):
        warnings.warn(w, ScenarioWarning, stacklevel=3)


def run(
    scenario: Scenario,
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    fmt: str = "parquet",
    pcap: bool = True,
    overwrite: bool = False,
    memory_budget: int | str | None = None,
) -> Result:
    """Runs a scenario and returns its tables as pandas DataFrames.

    ``seed`` overrides the scenario's ``seed``. ``memory_budget`` (bytes, or a size such as
    "2GiB") stops the run with a `ScenarioError` that names it once the engine's heap in this
    process passes it (checked every 65,536 events). With ``out``, the results folder
    is written there atomically, its tables as ``fmt`` ("parquet" or "csv"), with
    the pcaps unless ``pcap=False``. An existing folder there is replaced only if
    it is an earlier rampup folder left as rampup wrote it, or with ``overwrite``.

    Raises `ScenarioError` (a ValueError) for an invalid scenario, and
    `OutputError` (a ValueError) if ``out`` may not be replaced. The GIL is
    released while the engine runs.
    """
    text = scenario_text(scenario)
    check_seed(seed)
    budget = memory_budget_bytes(memory_budget)
    _warn_of(text)
    if out is None:
        start = time.perf_counter()
        raw = _engine.run(text, seed, memory_budget=budget)
        return build(raw, text, time.perf_counter() - start, fmt=fmt)
    return run_to_folder(text, Path(out), seed=seed, fmt=fmt, pcap=pcap, overwrite=overwrite, memory_budget=budget)


def run_to_folder(
    text: str,
    out: Path,
    *,
    seed: int | None = None,
    fmt: str = "parquet",
    pcap: bool = True,
    overwrite: bool = False,
    progress: _engine.Progress | None = None,
    extra_files: Callable[[Result], Mapping[str, bytes]] | None = None,
    memory_budget: int | None = None,
) -> Result:
    """Runs the scenario ``text`` into the results folder ``out``: its traces and captures
    are written there as the run ends, a chunk at a time, so a long run's memory does not
    grow with them; the result reads them back from the folder when asked. ``extra_files``
    (e.g. plots) are made from the result before the folder moves into place;
    ``memory_budget`` (bytes) stops the run as `run` says."""
    check_format(fmt)  # before the run, not after
    manifest: dict[str, Any] = {}
    with staged_folder(out, manifest, overwrite) as tmp:
        writer = TraceWriter(tmp, fmt, pcap)
        start = time.perf_counter()
        try:
            raw = _engine.run(text, seed, progress, writer, memory_budget)
        finally:
            writer.close()
        result = build(raw, text, time.perf_counter() - start, fmt=fmt, written=writer)
        for name, data in (extra_files(result) if extra_files else {}).items():
            (tmp / name).write_bytes(data)
        manifest.update(result.manifest)
    result.manifest = manifest
    result.out = resolved(out)
    return result
