"""Scenario dicts to TOML text, with tomli-w (Python 3.11 reads TOML but cannot write it),
and to JSON, the same document in the form the engine reads fastest.

What tomli-w leaves to its caller is done here: numpy scalars (a sweep's values often are)
become plain numbers, and a value TOML cannot hold is a one-line error naming its key: a
numpy array, a string with a lone surrogate (not UTF-8), tables nested beyond `MAX_DEPTH`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import tomli_w

from ._engine import ScenarioError

__all__ = ["MAX_DEPTH", "dumps", "engine_text"]

#: The deepest nesting of tables and arrays written. A scenario is a few tables deep (e.g.
#: flow[0].app.schedule[0]); a deeper dict is a mistake (a loop, a generator gone wrong),
#: refused in one line before Python's recursion limit turns it into a RecursionError.
MAX_DEPTH = 32


def dumps(doc: Mapping[str, Any]) -> str:
    """TOML text for ``doc`` (a mapping of str to TOML-representable values);
    ``tomllib.loads(dumps(d)) == d`` for every such dict."""
    if not isinstance(doc, Mapping):
        raise TypeError(f"a scenario must be a dict, not {type(doc).__name__}")
    return tomli_w.dumps(_plain(doc, ()))


def engine_text(doc: Mapping[str, Any]) -> str:
    """``doc`` as JSON text, which the engine reads as it reads TOML (`scenario::parse`).
    For the many scenarios a reproduction generates: Python writes JSON in C, where TOML
    took as long to write as a short run takes to simulate. NaN and infinity are refused,
    as in TOML; None becomes null, which the engine reads as an optional key left out."""
    return json.dumps(doc, default=_scalar, allow_nan=False, check_circular=False, separators=(",", ":"))


def _scalar(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (np.float64(0.5) -> 0.5, np.bool_(True) ->
    True); a TypeError for anything else, a numpy array included (`.item()` would take a
    one-element array for its element and fail on others without naming the key)."""
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 0) == 0:
        return value.item()
    if type(value).__module__ == "numpy" and hasattr(value, "shape"):
        raise TypeError(f"a numpy array of shape {tuple(value.shape)} is not one value; give a number, "
                        "or a list (array.tolist()) where the key takes a list")
    raise TypeError(f"cannot write {type(value).__name__} in a scenario")


def _where(path: tuple[str, ...]) -> str:
    """The key at ``path`` as a sweep names it (``flow[0].tcp.mss``), with the middle of a
    very deep one left out."""
    steps = (*path[:4], "…", *path[-2:]) if len(path) > 8 else path
    # A lone surrogate in a key, escaped: the message must print on any stream.
    steps = tuple(s.encode("utf-8", "backslashreplace").decode("utf-8") for s in steps)
    text = "".join(s if s.startswith("[") else f".{s}" for s in steps).lstrip(".")
    return f"{text} ({len(path)} deep)" if len(path) > 8 else text or "scenario"


def _utf8(text: str, path: tuple[str, ...], what: str) -> str:
    """``text``, or a ScenarioError naming the key if it holds a lone surrogate (from bytes
    decoded with surrogateescape, e.g. a non-UTF-8 file name), which UTF-8 cannot hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ScenarioError(f"{_where(path)}: the {what} {text[:40]!r} holds a lone surrogate "
                         f"({text[e.start]!r} at index {e.start}); a scenario is UTF-8 text") from None
    return text


def _plain(value: Any, path: tuple[str, ...]) -> Any:
    """``value`` with numpy scalars as Python numbers and tuples as lists."""
    where = _where(path)
    if len(path) > MAX_DEPTH:
        raise ScenarioError(f"{where}: nested deeper than {MAX_DEPTH} tables; a scenario is a few tables deep")
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"{_where((*path, str(key)))}: TOML keys must be str")
            _utf8(key, (*path, key), "key")
        return {k: _plain(v, (*path, k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # An element counts as one level, so a list of lists cannot go deeper than tables can.
        return [_plain(v, (*path, f"[{i}]")) for i, v in enumerate(value)]
    if value is None:
        raise TypeError(f"{where}: TOML has no null; leave the key out")
    if isinstance(value, str):
        return _utf8(value, path, "string")
    if isinstance(value, (bool, int, float)):
        return value
    try:
        return _scalar(value)
    except TypeError as e:
        if type(value).__module__ == "numpy":
            raise TypeError(f"{where}: {e}") from None
        raise TypeError(f"{where}: cannot write {type(value).__name__} as TOML") from None
