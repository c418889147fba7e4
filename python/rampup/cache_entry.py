"""A cache entry: a folder of Arrow tables and an `ENTRY` file, written whole or not at all.

The entry file names what the entry was made for (its key and the inputs the key hashes)
and each table file's size and SHA-256. An entry is read only if it was made for what the
reader asks for and every file is as it was stored; anything else reads as missing, and
the caller makes it again and replaces it. Everything in a cache is data: tables in
Arrow's IPC format and one JSON file, parsed and checked, never unpickled or imported, so
a cache copied from a colleague or unpacked from an archive cannot run code. (The digests
catch damage and misplaced files, not a forger: one who rewrites the entry file and its
tables to match can change what a reproduction reports, as one who edits its results can.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

__all__ = ["ENTRY", "load", "remove_abandoned", "store"]

#: In each entry: what it was made for and each table file's size and SHA-256, written last.
ENTRY = "entry.json"
#: A table's name: its file is ``<name>.arrow`` in the entry's folder, never a path elsewhere.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
#: Arrow's IPC file format, compressed with zstd: a small table reads faster than from
#: Parquet, whose fixed cost per file is most of a small table's (docs/architecture.md
#: gives the figures).
_WRITE = pa.ipc.IpcWriteOptions(compression="zstd")


def _digest(data: bytes) -> dict[str, Any]:
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def load(folder: Path, made_for: Mapping[str, Any], names: Sequence[str] | None = None) -> dict[str, pd.DataFrame] | None:
    """The entry's tables (``names``, or every table it has), or None if it is missing, was
    made for something other than ``made_for``, or is not as it was stored (a file cut
    short or changed, a name that is not a table's)."""
    try:
        entry = json.loads((folder / ENTRY).read_text(encoding="utf-8"))
        if not isinstance(entry, dict) or entry.get("made_for") != dict(made_for):
            return None
        files = entry["tables"]
        tables = {}
        for name in files if names is None else names:
            if not isinstance(name, str) or not _NAME.fullmatch(name):
                return None
            data = (folder / f"{name}.arrow").read_bytes()  # read once: checked, then parsed
            if _digest(data) != files[name]:
                return None
            # split_blocks: a column per block, not one copy consolidating them, which is most
            # of the cost for the small tables most runs keep.
            tables[name] = pa.ipc.open_file(pa.BufferReader(data)).read_all().to_pandas(split_blocks=True)
        return tables
    except (OSError, ValueError, KeyError, TypeError, AttributeError, pa.ArrowException):
        return None


def store(folder: Path, made_for: Mapping[str, Any], tables: Mapping[str, pd.DataFrame]) -> None:
    """Write atomically: the entry is either wholly in the cache or not at all. An entry
    already there (one `load` refused) is replaced."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=_temporary_prefix(folder.name), dir=folder.parent))
    try:
        files = {}
        for name, df in tables.items():
            if not _NAME.fullmatch(name):
                raise ValueError(f"cache table name {name!r} is not a plain file name")
            table = pa.Table.from_pandas(df, preserve_index=False)
            buf = pa.BufferOutputStream()
            with pa.ipc.new_file(buf, table.schema, options=_WRITE) as writer:
                writer.write_table(table)
            data = buf.getvalue().to_pybytes()
            (tmp / f"{name}.arrow").write_bytes(data)
            files[name] = _digest(data)
        (tmp / ENTRY).write_text(json.dumps({"made_for": dict(made_for), "tables": files}), encoding="utf-8")
        _replace(tmp, folder)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        # A write that failed while an entry is there (the same job's, stored by a twin of
        # this job meanwhile) loses nothing: `load` checks that entry the next time.
        if not (isinstance(e, OSError) and folder.exists()):
            raise


def _temporary_prefix(name: str) -> str:
    """A temporary folder's name starts with a dot, the entry's name and the writer's pid,
    so that `remove_abandoned` can tell a killed writer's folder from a live one's."""
    return f".{name}.{os.getpid()}-"


_TEMPORARY = re.compile(r"\.[0-9a-f]+\.(\d+)-[^/]*")


#: The cache folders this process has swept (`remove_abandoned`): once per process, as a
#: sweep reads every entry's name; a write killed later is removed by the next process.
_SWEPT: set[Path] = set()


def remove_abandoned(cache: Path) -> None:
    """Remove the temporary folders of writers on this machine that are no longer running
    (a write killed between its first file and its rename), once per process and folder.
    Another live process's folders, and anything not named as this module names its
    folders, are left alone."""
    if cache in _SWEPT:
        return
    try:
        with os.scandir(cache) as entries:
            temporary = [e for e in entries if e.name.startswith(".") and e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    _SWEPT.add(cache)
    for e in temporary:
        m = _TEMPORARY.fullmatch(e.name)
        if m and not _alive(int(m.group(1))):
            shutil.rmtree(e.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or not a pid we can ask about: leave it
    return True


def _replace(new: Path, folder: Path) -> None:
    """Rename ``new`` to ``folder``; an old entry there is first renamed aside, then removed
    (it is a cache entry: the cache names its folders by the hash of what went in)."""
    try:
        os.replace(new, folder)
        return
    except OSError:
        if not folder.is_dir():
            raise
    old = Path(tempfile.mkdtemp(prefix=_temporary_prefix(folder.name), dir=folder.parent))
    try:
        os.replace(folder, old / folder.name)
        os.replace(new, folder)
    finally:
        shutil.rmtree(old, ignore_errors=True)
