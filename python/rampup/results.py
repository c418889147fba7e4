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
        transfers.parquet udp.parquet packet_totals.parquet connections.parquet | sha256sum

prints it. ``manifest["files"]`` has the SHA-256 of every file written, pcaps included.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from . import _engine
from .folders import MANIFEST, MARKER, OutputError, check_ours, write_folder

__all__ = ["ENGINE_TABLES", "FORMATS", "TABLES", "Result", "TraceWriter", "build", "check_format", "load", "safe_name"]

#: The tables every run has, first in the content hash's order (other tables follow).
TABLES = ("flows", "timeseries", "queues", "links")
#: The flow columns a notebook shows of a result (`Result._repr_html_`).
_HTML_FLOW_COLUMNS = ("flow", "from", "to", "cc", "recovery", "bytes_received", "goodput_bps", "retransmits", "timeouts", "drops")
#: Every table a run returns (docs/results.md; `test_results_doc` keeps the two the same);
#: throughput, rtt and packets only when ``[trace]`` asks for them, phases only with a
#: rate-limited application.
ENGINE_TABLES = ("flows", "transfers", "timeseries", "queues", "links", "udp", "packet_totals", "connections",
                 "throughput", "rtt", "packets", "phases")
FORMATS = ("parquet", "csv")
#: Rows per Parquet row group: the engine hands traces over in chunks of this many rows,
#: and tables held in memory are written in row groups of the same size, so that a
#: table's file is the same bytes however it was written.
ROW_GROUP = _engine.TRACE_CHUNK_ROWS

V = TypeVar("V")


def check_format(fmt: str) -> None:
    """ValueError (one line) unless ``fmt`` is one of `FORMATS`."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt: {fmt!r} is not a format (allowed: {', '.join(FORMATS)})")


class _Lazy(Mapping[str, V], Generic[V]):
    """Values held in memory, or read from a file of the results folder when first asked
    for (a long run's traces are written there as the run ends, not held in memory)."""

    def __init__(self, order: list[str], loaded: dict[str, V], files: dict[str, str],
                 folder: Callable[[], Path | None], read: Callable[[Path], V]) -> None:
        self._order, self._loaded, self._files, self._folder, self._read = order, loaded, files, folder, read

    def __getitem__(self, name: str) -> V:
        if name not in self._loaded:
            folder = self._folder()
            if name not in self._files or folder is None:
                raise KeyError(name)
            self._loaded[name] = self._read(folder / self._files[name])
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)


@dataclass
class Result:
    """The outcome of one run: its tables as DataFrames, the pcaps and the manifest.

    ``flows``, ``timeseries``, ``queues`` and ``links`` are always there; ``tables``
    maps every table the engine returned to its DataFrame (also reachable as
    attributes, e.g. ``result.transfers``), and ``pcaps`` each captured direction to
    its bytes. A run written to a folder as it ended (``rampup.run(..., out=...)``)
    reads its traces and captures from that folder when first asked for.
    ``manifest`` is the content of ``manifest.json`` (filled in even when no folder is
    written); ``out`` is the results folder once written.
    """

    manifest: dict[str, Any]
    tables: Mapping[str, pd.DataFrame] = field(repr=False)
    pcaps: Mapping[str, bytes] = field(default_factory=dict)
    out: Path | None = None
    _files: dict[str, bytes] = field(default_factory=dict, repr=False)  # serialized tables held in memory

    @property
    def flows(self) -> pd.DataFrame:
        return self.tables["flows"]

    @property
    def timeseries(self) -> pd.DataFrame:
        return self.tables["timeseries"]

    @property
    def queues(self) -> pd.DataFrame:
        return self.tables["queues"]

    @property
    def links(self) -> pd.DataFrame:
        return self.tables["links"]

    def __getattr__(self, name: str) -> pd.DataFrame:
        tables = self.__dict__.get("tables") or {}
        if name in tables:
            return tables[name]
        raise AttributeError(f"Result has no attribute or table {name!r} (tables: {', '.join(tables)})")

    @property
    def seed(self) -> int:
        return int(self.manifest["seed"])

    @property
    def content_hash(self) -> str:
        return str(self.manifest["content_hash"])

    def _repr_html_(self) -> str:
        """A notebook's view: the run in one line, its flows (the first 10) and its tables."""
        m = self.manifest
        e = html.escape
        head = f"<b>{e(str(m.get('name') or 'scenario'))}</b>: seed {m.get('seed')}, {m.get('sim_end_s', 0):g} s simulated"
        if self.out is not None:
            head += f", in <code>{e(str(self.out))}</code>"
        columns = [c for c in _HTML_FLOW_COLUMNS if c in self.flows.columns]
        flows = self.flows[columns].head(10).to_html(index=False, border=0, float_format=lambda v: f"{v:.4g}")
        more = f"<p>… and {len(self.flows) - 10} more flows</p>" if len(self.flows) > 10 else ""
        tables = ", ".join(f"<code>{e(name)}</code>" for name in self.tables)
        return f"<div><p>{head}</p>{flows}{more}<p>tables: {tables} (e.g. <code>result.flows</code>)</p></div>"

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
        if self.out is not None:
            raise ValueError(f"this result was written as it ran, to {self.out}; copy that folder instead")
        files = dict(self._files)
        if pcap:
            files |= {f"{safe_name(link)}.pcap": data for link, data in self.pcaps.items()}
        files |= dict(extra_files or {})
        self.manifest["files"] = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
        self.out = write_folder(Path(out), files, self.manifest, overwrite)
        return self.out

    def __repr__(self) -> str:
        return (
            f"<rampup.Result {self.manifest.get('name')!r} seed={self.seed} tables: {', '.join(self.tables)};"
            f" pcaps={sorted(self.pcaps)} out={str(self.out) if self.out else None}>"
        )


class TraceWriter:
    """The engine's trace sink (`_engine.run(..., sink=)`): writes each traced table to
    ``folder/<table>.<fmt>`` a chunk (one Parquet row group) at a time, and each capture
    to ``folder/<link>.pcap`` (or drops captures with ``pcap=False``)."""

    def __init__(self, folder: Path, fmt: str, pcap: bool = True) -> None:
        self.folder, self.fmt, self.keep_pcaps = folder, fmt, pcap
        self.tables: dict[str, str] = {}  # table -> file name
        self.pcaps: dict[str, str] = {}  # link -> file name
        self._writers: dict[str, Any] = {}
        self._pcap_files: dict[str, Any] = {}

    def rows(self, table: str, columns: dict[str, Any]) -> None:
        chunk = _arrow_table(columns)
        writer = self._writers.get(table)
        if writer is None:
            name = f"{safe_name(table)}.{self.fmt}"
            self.tables[table] = name
            path = self.folder / name
            if self.fmt == "parquet":
                writer = pq.ParquetWriter(path, chunk.schema, compression="zstd")
            else:
                writer = pacsv.CSVWriter(path, chunk.schema)
            self._writers[table] = writer
        if chunk.num_rows or self.fmt == "csv":
            writer.write_table(chunk)

    def pcap(self, link: str, data: bytes) -> None:
        if not self.keep_pcaps:
            return
        f = self._pcap_files.get(link)
        if f is None:
            name = f"{safe_name(link)}.pcap"
            self.pcaps[link] = name
            f = self._pcap_files[link] = open(self.folder / name, "wb")  # closed in close()
        f.write(data)

    def close(self) -> None:
        for w in self._writers.values():
            w.close()
        for f in self._pcap_files.values():
            f.close()


#: How a capture's TCP ports name connections (``manifest["capture"]["ports"]``).
CAPTURE_PORTS = ("a connection's active end (the flow's from) uses port 10000 + slot, its passive end 20000 + slot, "
                 "slot modulo 10000: a flow of one connection has the slot of its index among the [[flow]] tables, a "
                 "connection opened at run time a free slot; the connections table gives each connection's "
                 "client_port and server_port")


def build(
    raw: dict[str, Any],
    scenario_text: str,
    wall_time_s: float,
    *,
    fmt: str = "parquet",
    written: TraceWriter | None = None,
) -> Result:
    """Turns the engine's output (`_engine.run`'s dict) into a `Result` whose tables
    are serialized as ``fmt`` ("parquet" or "csv") for the content hash and `Result.write`.
    With ``written``, the traces the engine handed to that `TraceWriter` are files of its
    folder (which becomes the result's ``out``), and the other tables are written there too."""
    check_format(fmt)
    on_disk = written.tables if written is not None else {}
    names = list(TABLES) + [name for name in [*raw["tables"], *on_disk] if name not in TABLES]
    tables = {name: _arrow_table(raw["tables"].get(name, {})) for name in names if name not in on_disk}
    files = {f"{safe_name(name)}.{fmt}": _serialize(table, fmt) for name, table in tables.items()}
    table_files = [f"{safe_name(name)}.{fmt}" for name in names]
    h = hashlib.sha256()
    for name in table_files:
        if name in files:
            h.update(files[name])
        elif written is not None:  # a traced table the writer has on disk (`on_disk`)
            with open(written.folder / name, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
    manifest = {
        MARKER[0]: MARKER[1],
        "kind": "run",
        "rampup_version": _engine.__version__,
        "name": _scenario_name(scenario_text),
        "scenario": scenario_text,
        "scenario_sha256": hashlib.sha256(scenario_text.encode()).hexdigest(),
        "seed": raw["seed"],
        "format": fmt,
        "content_hash": h.hexdigest(),
        "content_hash_covers": table_files,
        "files": {},  # filled in by Result.write: sha256 of each file written
        "events": raw["events"],
        "packet_hops": raw["packet_hops"],
        "sim_end_ns": raw["sim_end_ns"],
        "sim_end_s": raw["sim_end_ns"] / 1e9,
        "wall_time_s": round(wall_time_s, 6),
        "pyarrow_version": pa.__version__,
    }
    if raw.get("pcaps") or (written is not None and written.pcaps):
        manifest["capture"] = {
            "addresses": dict(_engine.addresses(scenario_text)),
            "ports": CAPTURE_PORTS,
        }
    frames = {name: table.to_pandas() for name, table in tables.items()}
    if written is None:
        return Result(manifest=manifest, tables=_Lazy(names, frames, {}, lambda: None, _read_table),
                      pcaps=dict(raw["pcaps"]), _files=files)
    for name, data in files.items():
        (written.folder / name).write_bytes(data)
    result = Result(manifest=manifest, tables={}, out=written.folder)
    folder = lambda: result.out  # noqa: E731 -- the folder moves into place after the run
    result.tables = _Lazy(names, frames, on_disk, folder, _read_table)
    result.pcaps = _Lazy(list(written.pcaps), {}, written.pcaps, folder, Path.read_bytes)
    return result


def load(folder: str | os.PathLike[str], *, verify: bool = True) -> Result:
    """The `Result` of a run from its results folder (``rampup run --out``, ``rampup.run(...,
    out=...)``): tables and captures are read from the folder when first asked for.

    With ``verify`` (the default) every file is first checked against the SHA-256 the
    manifest lists, so a result that was changed after the run is an `OutputError`, not a
    silently different DataFrame; ``verify=False`` skips reading every byte of a large folder.
    Parquet tables come back with the types they were written with; CSV holds none, so a
    CSV folder's integer columns come back as int64 (the engine's are uint64)."""
    path = Path(folder)
    if verify:
        check_ours(path)
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise OutputError(f"{path}: cannot read its {MANIFEST} ({e})") from None
    if not isinstance(manifest, dict) or manifest.get(MARKER[0]) != MARKER[1] or manifest.get("kind") != "run":
        raise OutputError(f"{path}: not the results folder of a rampup run")
    tables = {Path(f).stem: f for f in manifest["content_hash_covers"]}
    pcaps = {Path(f).stem: f for f in manifest["files"] if f.endswith(".pcap")}
    result = Result(manifest=manifest, tables={}, out=path)
    result.tables = _Lazy(list(tables), {}, tables, lambda: path, _read_table)
    result.pcaps = _Lazy(list(pcaps), {}, pcaps, lambda: path, Path.read_bytes)
    return result


def _read_table(path: Path) -> pd.DataFrame:
    if path.suffix == ".csv":
        table = pacsv.read_csv(path)
        # A column with no value in any row (a flow's end_ns that never came) has no type in
        # CSV: read it as the float64 NaN column it was written from.
        for i, column in enumerate(table.schema):
            if pa.types.is_null(column.type):
                table = table.set_column(i, column.name, table.column(i).cast(pa.float64()))
        return table.to_pandas()
    return pq.read_table(path).to_pandas()


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
        pq.write_table(table, buf, compression="zstd", row_group_size=ROW_GROUP)
    else:
        pacsv.write_csv(table, buf)
    return cast(bytes, buf.getvalue().to_pybytes())  # pyarrow has no type information


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
