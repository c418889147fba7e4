"""The build backend of `pip install .`: maturin's, and crates/net's two programs in the wheel.

maturin builds one Rust target per wheel (the `rampup._engine` extension); the testbed also
runs `rampup-delayline` and `rampup-udp` (docs/testbed.md). `build_wheel` builds them with
cargo, lets maturin make the wheel, and adds them as `rampup/bin/<name>`, executable, with
their lines in the wheel's RECORD, where `rampup.testbed.programs` finds them. An editable
install (`pip install -e`) is maturin's alone: there the checkout's cargo builds them on first
use.

pip shows none of a backend's output unless run with -v, and the build takes minutes (fat LTO,
one codegen unit: the engine's speed). On a terminal, `_progress` writes a line to it now and
then: the crates compiled so far, the one compiling and the time taken.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

import maturin

# The hooks maturin defines are this backend's too; build_wheel and build_editable wrap its own.
from maturin import (
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable", "get_requires_for_build_sdist",
           "get_requires_for_build_wheel", "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"]

#: The programs of crates/net the testbed runs; `rampup.testbed_programs.PROGRAMS` names the same.
PROGRAMS = ("rampup-delayline", "rampup-udp")
ROOT = Path(__file__).resolve().parents[1]
#: Seconds between two progress lines on the terminal.
EVERY_S = 20.0


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
    with _progress("the testbed's programs"):
        programs = _programs()
    with _progress("the engine"):
        name: str = maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
    _add(Path(wheel_directory) / name, {f"rampup/bin/{p}": file for p, file in programs.items()})
    return name


def build_editable(wheel_directory: str, config_settings: dict[str, object] | None = None,
                   metadata_directory: str | None = None) -> str:
    """maturin's editable wheel (the engine built in place)."""
    with _progress("the engine"):
        name: str = maturin.build_editable(wheel_directory, config_settings, metadata_directory)
    return name


@contextlib.contextmanager
def _progress(what: str) -> Iterator[None]:
    """While building ``what``: everything written to stderr (cargo's and maturin's lines) is
    passed on as it is, and, when there is a terminal that stderr is not (pip captures it),
    a line of progress goes to the terminal every `EVERY_S`."""
    try:
        tty = open("/dev/tty", "w", encoding="utf-8")  # closed when the relay ends
    except OSError:
        yield
        return
    if os.isatty(2):  # stderr is the terminal: cargo draws its own progress bar there
        tty.close()
        yield
        return
    sys.stderr.flush()
    original = os.dup(2)
    read, write = os.pipe()
    os.dup2(write, 2)
    os.close(write)
    relay = threading.Thread(target=relay_progress, args=(os.fdopen(read, "rb"), os.fdopen(os.dup(original), "wb"), tty, what))
    relay.start()
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(original, 2)  # the pipe's last writer closes: the relay reads its end and stops
        os.close(original)
        relay.join()
        tty.close()


def relay_progress(src: BinaryIO, dst: BinaryIO, tty: TextIO, what: str, every_s: float = EVERY_S) -> None:
    """Copies ``src`` to ``dst`` line by line and writes to ``tty`` when the build starts,
    every ``every_s`` after, and when it ends: the crates cargo has compiled ("Compiling x"
    lines) and the last one."""
    start = last = time.monotonic()
    compiled, crate = 0, ""
    tty.write(f"rampup: building {what} (cargo build --release; a few minutes; pip install -v shows cargo's lines)\n")
    tty.flush()
    for line in src:
        dst.write(line)
        dst.flush()
        words = line.decode("utf-8", "replace").split()
        if len(words) >= 2 and words[0] == "Compiling":
            compiled, crate = compiled + 1, words[1]
        now = time.monotonic()
        if now - last >= every_s:
            last = now
            tty.write(f"rampup: building {what}: {_crates(compiled)} compiled, now {crate} ({now - start:.0f} s)\n")
            tty.flush()
    tty.write(f"rampup: built {what}: {_crates(compiled)} compiled in {time.monotonic() - start:.0f} s\n")
    tty.flush()
    dst.close()
    src.close()


def _crates(n: int) -> str:
    return f"{n} crate" if n == 1 else f"{n} crates"
