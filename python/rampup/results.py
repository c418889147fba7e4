"""Run results: the `Result` object and the results folder.

A results folder holds::

    flows.parquet  timeseries.parquet  queues.parquet  links.parquet   (or .csv)
    <table>.parquet  any further table the engine returns (transfers, udp, ...)
    <link>.pcap      one per captured link ([trace] pcap = [...])
    manifest.json

and is written atomically: everything goes into a hidden temporary folder beside
the target, which is then renamed over it, so readers see either the previous
complete folder or the new complete one, never a half-written one.

Determinism. The table files are byte-identical for the same scenario, seed,
rampup version and pyarrow version (pyarrow writes its version into each Parquet
footer; no timestamps are written). ``manifest.json`` is *not* byte-identical
between runs because it records the wall time. Compare runs by
``manifest["content_hash"]``: the SHA-256 of the table files' bytes concatenated
in a fixed order -- flows, timeseries, queues, links, then the engine's other
tables in the engine's order -- listed in ``manifest["content_hash_covers"]``.
For a Parquet folder from the current engine, ::

    cat flows.parquet timeseries.parquet queues.parquet links.parquet \
        transfers.parquet udp.parquet packets.parquet | sha256sum

prints it. ``manifest["files"]`` has the SHA-256 of every file written, pcaps included.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from . import _engine

__all__ = ["FORMATS", "TABLES", "OutputError", "Result", "build", "check_target", "safe_name", "write_folder"]

#: The tables every run has, first in the content hash's order (other tables follow).
TABLES = ("flows", "timeseries", "queues", "links")
FORMATS = ("parquet", "csv")
MANIFEST = "manifest.json"


class OutputError(ValueError):
    """The results folder cannot be written where asked (bad ``out``)."""


@dataclass
class Result:
    """The outcome of one run: its tables as DataFrames, the pcaps and the manifest.

    ``flows``, ``timeseries``, ``queues`` and ``links`` are always there; ``tables``
    has every table the engine returned (also reachable as attributes, e.g.
    ``result.transfers``). ``manifest`` is the content of ``manifest.json`` (filled
    in even when no folder is written); ``out`` is the results folder once written.
    """

    flows: pd.DataFrame
    timeseries: pd.DataFrame
    queues: pd.DataFrame
    links: pd.DataFrame
    manifest: dict[str, Any]
    pcaps: dict[str, bytes] = field(default_factory=dict)
    out: Path | None = None
    tables: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    _files: dict[str, bytes] = field(default_factory=dict, repr=False)  # serialized tables

    def __getattr__(self, name: str) -> pd.DataFrame:
        tables = self.__dict__.get("tables") or {}
        if name in tables:
            return tables[name]
        raise AttributeError(f"Result has no attribute or table {name!r} (tables: {', '.join(tables)})")

    @property
    def seed(self) -> int:
        return self.manifest["seed"]

    @property
    def content_hash(self) -> str:
        return self.manifest["content_hash"]

    def write(
        self,
        out: str | os.PathLike[str],
        *,
        pcap: bool = True,
        extra_files: Mapping[str, bytes] | None = None,
    ) -> Path:
        """Writes the results folder ``out`` atomically (replacing an earlier results
        folder there); ``extra_files`` (name -> bytes, e.g. plots) go in with the rest."""
        files = dict(self._files)
        if pcap:
            files |= {f"{safe_name(link)}.pcap": data for link, data in self.pcaps.items()}
        files |= dict(extra_files or {})
        self.manifest["files"] = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
        manifest_bytes = (json.dumps(self.manifest, indent=2) + "\n").encode()
        self.out = write_folder(Path(out), files | {MANIFEST: manifest_bytes})
        return self.out

    def __repr__(self) -> str:
        shapes = ", ".join(f"{name}={len(df)}" for name, df in self.tables.items())
        return (
            f"<rampup.Result {self.manifest.get('name')!r} seed={self.seed} rows: {shapes};"
            f" pcaps={sorted(self.pcaps)} out={str(self.out) if self.out else None}>"
        )


def build(raw: dict[str, Any], scenario_text: str, wall_time_s: float, *, fmt: str = "parquet") -> Result:
    """Turns the engine's output (`_engine.run`'s dict) into a `Result` whose tables
    are serialized as ``fmt`` ("parquet" or "csv") for the content hash and `Result.write`."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt: {fmt!r} is not a format (allowed: {', '.join(FORMATS)})")
    names = list(TABLES) + [name for name in raw["tables"] if name not in TABLES]
    tables = {name: _arrow_table(raw["tables"].get(name, {})) for name in names}
    files = {f"{safe_name(name)}.{fmt}": _serialize(table, fmt) for name, table in tables.items()}
    pcaps = dict(raw["pcaps"])
    manifest = {
        "rampup_version": _engine.__version__,
        "name": _scenario_name(scenario_text),
        "scenario": scenario_text,
        "scenario_sha256": hashlib.sha256(scenario_text.encode()).hexdigest(),
        "seed": raw["seed"],
        "format": fmt,
        "content_hash": hashlib.sha256(b"".join(files.values())).hexdigest(),
        "content_hash_covers": list(files),
        "files": {},  # filled in by Result.write: sha256 of each file written
        "events": raw["events"],
        "sim_end_ns": raw["sim_end_ns"],
        "sim_end_s": raw["sim_end_ns"] / 1e9,
        "wall_time_s": round(wall_time_s, 6),
        "pyarrow_version": pa.__version__,
    }
    frames = {name: table.to_pandas() for name, table in tables.items()}
    return Result(
        **{name: frames[name] for name in TABLES},
        manifest=manifest,
        pcaps=pcaps,
        tables=frames,
        _files=files,
    )


def _arrow_table(columns: dict[str, Any]) -> pa.Table:
    # Str columns arrive as lists of str; give them a type even when empty.
    return pa.table(
        {
            name: pa.array(col, type=pa.string()) if isinstance(col, list) else pa.array(col)
            for name, col in columns.items()
        }
    )


def _serialize(table: pa.Table, fmt: str) -> bytes:
    buf = pa.BufferOutputStream()
    if fmt == "parquet":
        # Deterministic: pyarrow stores only the Arrow schema and its own version in
        # the footer. The tables are built from the engine's columns (not from pandas)
        # so no pandas metadata is stored either.
        pq.write_table(table, buf, compression="zstd")
    else:
        pacsv.write_csv(table, buf)
    return buf.getvalue().to_pybytes()


def _scenario_name(text: str) -> str | None:
    try:
        name = tomllib.loads(text).get("name")
    except tomllib.TOMLDecodeError:
        return None
    return name if isinstance(name, str) else None


def safe_name(name: str) -> str:
    """A file name made from a link or scenario name (no separators, not hidden)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")
    return safe or "_"


# --- the folder ---------------------------------------------------------------


def check_target(target: Path) -> Path:
    """The folder to write, after checking that replacing it loses nothing.

    An existing target is replaced only if it is empty or holds a manifest.json,
    so that `--out ~` cannot wipe a home folder.
    """
    if target.is_symlink():
        target = target.resolve()
    if target.exists():
        if not target.is_dir():
            raise OutputError(f"{target}: exists and is not a folder")
        if any(target.iterdir()) and not (target / MANIFEST).is_file():
            raise OutputError(f"{target}: exists and is not a rampup results folder (no {MANIFEST}); not replacing it")
    return target


def write_folder(target: Path, files: dict[str, bytes]) -> Path:
    """Writes ``files`` as the folder ``target``, atomically replacing an existing one."""
    target = check_target(Path(target)).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        for name, data in files.items():
            with open(tmp / name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private
        _swap_in(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync_dir(target.parent)
    return target


def _swap_in(tmp: Path, target: Path) -> None:
    """Renames the folder ``tmp`` to ``target``; an existing ``target`` is replaced."""
    try:
        os.rename(tmp, target)  # atomic; fails if target is a non-empty folder
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not target.is_dir():
            raise
    if _rename_exchange(tmp, target):
        shutil.rmtree(tmp)  # now holds the old folder
        return
    # No atomic exchange: move the old folder aside first (a short window without one).
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rename(target, old / "x")
    try:
        os.rename(tmp, target)
    except BaseException:
        os.rename(old / "x", target)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


def _rename_exchange(a: Path, b: Path) -> bool:
    """Atomically swaps two paths with Linux renameat2(RENAME_EXCHANGE); False if unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # old kernel or file system
        return False
    raise OSError(err, os.strerror(err), str(b))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
