"""Scenario dicts to TOML text, with tomli-w (Python 3.11 reads TOML but cannot write it),
and to JSON, the same document in the form the engine reads fastest.

What tomli-w leaves to its caller is done here: numpy scalars (a sweep's values often are)
become plain numbers, and a value TOML cannot hold is a one-line error naming its key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import tomli_w

__all__ = ["dumps", "engine_text"]


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
    True); a TypeError for anything else."""
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} in a scenario")


def _plain(value: Any, path: tuple[str, ...]) -> Any:
    """``value`` with numpy scalars as Python numbers and tuples as lists."""
    where = ".".join(path) or "scenario"
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"{'.'.join((*path, str(key)))}: TOML keys must be str")
        return {k: _plain(v, (*path, k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, path) for v in value]
    if value is None:
        raise TypeError(f"{where}: TOML has no null; leave the key out")
    if isinstance(value, (bool, int, float, str)):
        return value
    try:
        return _scalar(value)
    except TypeError:
        raise TypeError(f"{where}: cannot write {type(value).__name__} as TOML") from None
