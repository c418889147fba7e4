"""A reproduction's runs reduced (each run's row, the figures' examples, the kept data table),
cached beside the runs: a rerun with nothing changed reads one file instead of reading and
measuring thousands of runs again.

The key hashes what the reduction is a function of: every run's cache key (engine build,
scenario, seed, tables kept), every point's tags and extra information, and the code that
measures (this package's sources and data files, and the Python, pandas, numpy and pyarrow
it runs on). A
change to any of them misses, and the runs are read and measured again from their own
cache. A reduction is a `cache_entry`, as a run's is: Arrow tables, written whole or not at all,
read only if made for the key asked for, and never code.
"""

from __future__ import annotations

import hashlib
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .. import cache_entry

__all__ = ["Reduction", "key", "load", "store"]

#: Under the cache folder: one entry per reduced reproduction.
FOLDER = "reduced"


def _code() -> str:
    """A hash of the code that measures: every source and data file of this package, read
    each time (about a millisecond), so that code edited in a live session counts."""
    versions = f"python {sys.version_info[:2]} pandas {pd.__version__} numpy {np.__version__} pyarrow {pa.__version__}"
    h = hashlib.sha256(versions.encode())
    root = Path(__file__).parent
    for f in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml")):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def key(name: str, points: Sequence[Any], job_keys: Sequence[str]) -> str:
    """The key of experiment ``name``'s reduction of these points, run as these jobs."""
    h = hashlib.sha256(f"{name}\0{_code()}\0".encode())
    for p, k in zip(points, job_keys, strict=True):
        h.update(f"{k}\0{p.tags!r}\0{p.info!r}\n".encode())  # the job's key holds the tables it keeps
    return h.hexdigest()[:32]


#: Reduced: (each point's row, the figures' examples by point and table, the data table or None).
Reduction = tuple[pd.DataFrame, dict[int, dict[str, pd.DataFrame]], pd.DataFrame | None]


def load(cache: Path, name: str, k: str) -> Reduction | None:
    """The stored reduction, or None (missing, made for another key, or damaged: then it is
    made again)."""
    folder = cache / FOLDER
    cache_entry.remove_abandoned(folder)
    tables = cache_entry.load(folder / k, {"key": k, "experiment": name})
    if tables is None or "runs" not in tables:
        return None
    examples: dict[int, dict[str, pd.DataFrame]] = {}
    for t, df in tables.items():
        if t.startswith("example."):
            _, i, table = t.split(".", 2)
            examples.setdefault(int(i), {})[table] = df
    return tables["runs"], examples, tables.get("data")


def store(cache: Path, name: str, k: str, reduction: Reduction) -> None:
    """Stores the reduction; if it cannot (a full disk), says so and goes on: the reproduction
    itself is done, and the next one reduces its runs again."""
    runs, examples, data = reduction
    tables = {"runs": runs, **{f"example.{i}.{t}": df for i, ex in examples.items() for t, df in ex.items()}}
    if data is not None:
        tables["data"] = data
    folder = cache / FOLDER
    try:
        cache_entry.store(folder / k, {"key": k, "experiment": name}, tables)
    except OSError as e:
        warnings.warn(f"{folder}: the reduction is not cached ({e.strerror or e})", stacklevel=2)
