"""A reproduction's runs reduced (each run's row, the figures' examples, the kept data table),
cached beside the runs: a rerun with nothing changed reads one file instead of reading and
measuring thousands of runs again.

The key hashes what the reduction is a function of: every run's cache key (engine build,
scenario, seed, tables kept), every point's tags and extra information, and the code that
measures (this package's sources and data files, and the Python, pandas, numpy and pyarrow
it runs on). A
change to any of them misses, and the runs are read and measured again from their own
cache. Entries are written whole or not at all, as the runs' are.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["key", "load", "store"]

#: Under the cache folder: one file per reduced reproduction.
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


def load(cache: Path, k: str) -> Any | None:
    """The stored reduction, or None (missing, or unreadable: then it is made again)."""
    try:
        with open(cache / FOLDER / f"{k}.pickle", "rb") as f:
            return pickle.load(f)
    except Exception:  # noqa: BLE001 -- a damaged file fails in many ways; it is only a cache
        return None


def store(cache: Path, k: str, reduction: Any) -> None:
    """Stores the reduction; if it cannot (a full disk), says so and goes on: the reproduction
    itself is done, and the next one reduces its runs again."""
    folder = cache / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{k}.", dir=folder)
    except OSError as e:
        warnings.warn(f"{folder}: the reduction is not cached ({e.strerror or e})", stacklevel=2)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(reduction, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, folder / f"{k}.pickle")
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        warnings.warn(f"{folder}: the reduction is not cached ({e.strerror or e})", stacklevel=2)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
