"""The build backend of `pip install .`: maturin's, and crates/net's two programs in the wheel.

maturin builds one Rust target per wheel (the `rampup._engine` extension); the testbed also
runs `rampup-delayline` and `rampup-udp` (docs/testbed.md). `build_wheel` builds them with
cargo, lets maturin make the wheel, and adds them as `rampup/bin/<name>`, executable, with
their lines in the wheel's RECORD, where `rampup.testbed_programs` finds them. An editable
install (`pip install -e`) is maturin's alone: there the checkout's cargo builds them on first
use.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

# The hooks maturin defines are this backend's too; only build_wheel adds to them.
from maturin import (
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)
from maturin import build_wheel as maturin_build_wheel

__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable", "get_requires_for_build_sdist",
           "get_requires_for_build_wheel", "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"]

#: The programs of crates/net the testbed runs; `rampup.testbed_programs.PROGRAMS` names the same.
PROGRAMS = ("rampup-delayline", "rampup-udp")
ROOT = Path(__file__).resolve().parents[1]


def _programs() -> dict[str, Path]:
    """Builds crates/net's programs (release) and returns where cargo put each."""
    print("rampup: building rampup-delayline and rampup-udp (cargo build --release -p rampup-net --bins)", file=sys.stderr, flush=True)
    done = subprocess.run(["cargo", "build", "--release", "-p", "rampup-net", "--bins", "--message-format=json-render-diagnostics"],
                          cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True)
    built = {}
    for line in done.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] in PROGRAMS:
            built[msg["target"]["name"]] = Path(msg["executable"])
    missing = [p for p in PROGRAMS if p not in built]
    if missing:
        raise RuntimeError(f"cargo build -p rampup-net built no {', '.join(missing)}")
    return built


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _add(wheel: Path, files: dict[str, Path]) -> None:
    """Rewrites ``wheel`` with each of ``files`` (its path in the wheel -> the file) added,
    executable, and listed in RECORD (a wheel's RECORD must name every file it holds)."""
    tmp = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        [record] = [n for n in src.namelist() if n.endswith(".dist-info/RECORD")]
        for item in src.infolist():
            if item.filename != record:
                dst.writestr(item, src.read(item))
        lines = src.read(record).decode().splitlines()
        for arc, file in files.items():
            data = file.read_bytes()
            info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100755 << 16  # a regular file, rwxr-xr-x: pip keeps the x bit
            info.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(info, data)
            lines.append(f"{arc},{_digest(data)},{len(data)}")
        dst.writestr(record, "\n".join(lines) + "\n")
    os.replace(tmp, wheel)


def build_wheel(wheel_directory: str, config_settings: dict[str, object] | None = None, metadata_directory: str | None = None) -> str:
    """maturin's wheel with crates/net's programs in it (`rampup/bin/`)."""
    programs = _programs()
    name: str = maturin_build_wheel(wheel_directory, config_settings, metadata_directory)
    _add(Path(wheel_directory) / name, {f"rampup/bin/{p}": file for p, file in programs.items()})
    return name
