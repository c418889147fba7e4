"""Reading the scenario FILE a command is given: its text, its check, its warnings, the
`--set KEY=VALUE` changes and the estimate of what a run takes; each failure a `CliError`."""

from __future__ import annotations

import tomllib
from pathlib import Path

import click

from .. import _engine
from ..api import engine_check, estimate, read_scenario_file
from ..sweep import with_values  # the sweep's key paths and checks
from .app import CliError


def read_scenario(path: Path) -> str:
    try:
        return read_scenario_file(path)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except PermissionError:
        raise CliError(f"{path}: permission denied") from None
    except OSError as e:
        raise CliError(f"{path}: {e.strerror or e}") from None
    except ValueError as e:  # not a regular file, too large, or not UTF-8: the message names the path
        raise CliError(str(e)) from None


def scenario_with_sets(path: Path, sets: tuple[str, ...]) -> str:
    """The scenario file at ``path``, checked, with each `--set` applied and checked again;
    its warnings (those of the scenario as changed) printed."""
    text = read_scenario(path)
    warnings = check_scenario(path, text)
    if sets:
        text = with_sets(text, sets)
        warnings = check_scenario(path, text)
    warn_of(path, warnings)
    return text


def check_scenario(path: Path, text: str) -> list[str]:
    """The scenario's warnings (valid, but likely a mistake); a CliError if it is invalid."""
    try:
        return engine_check(text)
    except _engine.ScenarioError as e:
        raise CliError(f"{path}: {e}") from None


def estimate_line(text: str) -> str:
    """One line of what a run of the valid scenario ``text`` will take (`api.estimate`)."""
    e = estimate(text)
    rows = f", {e['trace_rows']:,.0f} trace rows ({engine_bytes(e['tables_bytes'])} as tables)" if e["trace_rows"] else ""
    return (f"estimate: {e['packets']:,.0f} packets, {e['packet_hops']:,.0f} packet hops (events: at most that), "
            f"{e['connections']:,.0f} connections ({e['open_connections']:,.0f} open at once){rows}; "
            f"peak memory {engine_bytes(e['memory_bytes'])}; each within a factor of {e['accuracy']:g}")


def engine_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" or n >= 100 else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def warn_of(path: Path, warnings: list[str]) -> None:
    for w in warnings:
        click.echo(f"rampup: warning: {path}: {w}", err=True)


#: `--set KEY=VALUE`, for the commands that read one scenario file.
set_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Set a scenario key, as a sweep names it (e.g. flow[0].tcp.cc=vegas, topology.bottleneck_rate=20Mbps); "
    "the value is read as TOML, or as a string if it is not TOML. Repeatable.",
)


def set_pairs(sets: tuple[str, ...]) -> list[tuple[str, str]]:
    """Each `--set KEY=VALUE` as (KEY, VALUE), the value as typed."""
    pairs = []
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise CliError(f"--set: {item!r} is not KEY=VALUE (e.g. flow[0].tcp.cc=vegas)")
        pairs.append((key.strip(), value))
    return pairs


def with_sets(text: str, sets: tuple[str, ...]) -> str:
    """The scenario `text` (valid) with each `--set KEY=VALUE` applied."""
    point = {key: toml_value(value) for key, value in set_pairs(sets)}
    try:
        return with_values(tomllib.loads(text), point, verb="set")
    except ValueError as e:
        raise CliError(str(e)) from None


def toml_value(text: str) -> object:
    """A value given on the command line: TOML (3, 0.5, true, "x"), or else the bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text  # a bare word, like vegas or 20Mbps


def scenario_name(path: Path, text: str) -> str:
    try:
        name = tomllib.loads(text).get("name")
    except tomllib.TOMLDecodeError:  # the engine accepted it, so this is unexpected
        name = None
    return name if isinstance(name, str) and name.strip() else path.stem
