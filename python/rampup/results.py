"""Run results: the `Result` object and the results folder.

A results folder holds::

    flows.parquet  timeseries.parquet  queues.parquet  links.parquet   (or .csv)
    <table>.parquet  any further table the engine returns (transfers, udp, ...)
    <link>.pcap      one per captured link ([trace] pcap = [...])
    manifest.json

and is written atomically, and replaces an earlier folder only when that one is
provably rampup's own (`rampup.folders`).

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

import hashlib
import os
import re
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
from .folders import MARKER, write_folder

__all__ = ["FORMATS", "TABLES", "Result", "build", "safe_name"]

#: The tables every run has, first in the content hash's order (other tables follow).
TABLES = ("flows", "timeseries", "queues", "links")
FORMATS = ("parquet", "csv")


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
        overwrite: bool = False,
    ) -> Path:
        """Writes the results folder ``out`` atomically; ``extra_files`` (name -> bytes,
        e.g. plots) go in with the rest. An existing folder is replaced only if it is
        an earlier results folder left as rampup wrote it, or with ``overwrite``."""
        files = dict(self._files)
        if pcap:
            files |= {f"{safe_name(link)}.pcap": data for link, data in self.pcaps.items()}
        files |= dict(extra_files or {})
        self.manifest["files"] = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
        self.out = write_folder(Path(out), files, self.manifest, overwrite)
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
        MARKER[0]: MARKER[1],
        "kind": "run",
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
