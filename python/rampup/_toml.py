"""A tiny TOML emitter: enough to turn a scenario dict into scenario text.

Python 3.11 reads TOML (tomllib) but cannot write it. Scenarios only hold tables,
arrays, strings, integers, floats and booleans, so the emitter covers exactly
those; ``tomllib.loads(dumps(d)) == d`` holds for every such dict (a property
test checks it).

Layout: a table's plain values first, then its sub-tables as ``[a.b]`` headers,
and lists of tables as ``[[a.b]]`` arrays of tables, the way scenario files are
written by hand. Tables inside ordinary arrays become inline tables.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["dumps"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def dumps(doc: Mapping[str, Any]) -> str:
    """TOML text for ``doc`` (a mapping of str to TOML-representable values)."""
    if not isinstance(doc, Mapping):
        raise TypeError(f"a scenario must be a dict, not {type(doc).__name__}")
    lines: list[str] = []
    _table(lines, (), doc)
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_table_array(value: Any) -> bool:
    return _is_seq(value) and len(value) > 0 and all(isinstance(v, Mapping) for v in value)


def _is_seq(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def _table(lines: list[str], path: tuple[str, ...], table: Mapping[str, Any]) -> None:
    subtables = []
    for key, value in table.items():
        if not isinstance(key, str):
            raise TypeError(f"{'.'.join(path + (str(key),))}: TOML keys must be str")
        if isinstance(value, Mapping) or _is_table_array(value):
            subtables.append((key, value))
        elif value is None:
            raise TypeError(f"{'.'.join(path + (key,))}: TOML has no null; leave the key out")
        else:
            lines.append(f"{_key(key)} = {_value(value, path + (key,))}")
    for key, value in subtables:
        sub = path + (key,)
        header = ".".join(_key(k) for k in sub)
        if isinstance(value, Mapping):
            # A table with only sub-tables needs no header of its own (they imply it),
            # unless it is empty.
            if not value or any(not (isinstance(v, Mapping) or _is_table_array(v)) for v in value.values()):
                lines += ["", f"[{header}]"]
            _table(lines, sub, value)
        else:
            for item in value:
                lines += ["", f"[[{header}]]"]
                _table(lines, sub, item)


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value: Any, path: tuple[str, ...]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        # float(): numpy's float64 is a float whose repr is "np.float64(0.5)" (numpy 2).
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = repr(value)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        items = ", ".join(f"{_key(k)} = {_value(v, path + (k,))}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    if _is_seq(value):
        return "[" + ", ".join(_value(v, path) for v in value) + "]"
    # numpy scalars and the like: accept anything that behaves as a bool, int or float.
    if type(value).__name__ in ("bool_", "bool") and hasattr(value, "item"):
        return _value(bool(value), path)
    if hasattr(value, "__index__"):
        return str(value.__index__())
    if hasattr(value, "__float__"):
        return _value(float(value), path)
    raise TypeError(f"{'.'.join(path)}: cannot write {type(value).__name__} as TOML")
