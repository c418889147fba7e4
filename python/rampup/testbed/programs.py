"""crates/net's programs that the testbed runs (docs/testbed.md): where each is, built if need be.

An installed wheel holds them in the package (`rampup/bin/`, put there by
scripts/rampup_backend.py); in a checkout (an editable install) cargo builds them on first use,
and again when a source of theirs is newer than the program, with a line that says so; else
the first on PATH. The one that came with this package comes first, so that another install's
programs on PATH are never run against this one's Python side.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path as FsPath

__all__ = ["PROGRAMS", "ProgramError", "program"]

#: The programs a run needs: the delay line (where the kernel has no netem) and rampup's TCP over UDP.
PROGRAMS = ("rampup-delayline", "rampup-udp")
#: Installed with the package (a wheel).
PACKAGED = FsPath(__file__).resolve().parents[1] / "bin"
#: The checkout this package runs from, if it does (an editable install).
CHECKOUT = FsPath(__file__).resolve().parents[3]
#: What the programs are built from: a change to any of these makes cargo build them again
#: (and so makes the program newer; a crate's tests are left out, as cargo leaves them).
SOURCES = ("Cargo.toml", "Cargo.lock", *(f"crates/{c}/{part}" for c in ("net", "tcp", "sim") for part in ("Cargo.toml", "src")))
BUILD = ["cargo", "build", "--release", "-p", "rampup-net", "--bins"]


class ProgramError(RuntimeError):
    """A program is not there and cannot be built here: one line that says what to do."""


def _in_checkout() -> bool:
    return (CHECKOUT / "crates" / "net" / "Cargo.toml").is_file()


def _built(name: str) -> FsPath:
    """Where cargo puts ``name`` in the checkout (CARGO_TARGET_DIR if set)."""
    return FsPath(os.environ.get("CARGO_TARGET_DIR") or CHECKOUT / "target") / "release" / name


def _newest_source() -> float:
    newest = 0.0
    for rel in SOURCES:
        path = CHECKOUT / rel
        files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
        newest = max([newest, *(f.stat().st_mtime for f in files)])
    return newest


@functools.cache
def _build_in_checkout() -> None:
    """Builds the programs with cargo once per process, if one is missing or older than a source."""
    if all(_built(p).exists() and _built(p).stat().st_mtime >= _newest_source() for p in PROGRAMS):
        return
    if shutil.which("cargo") is None:
        if all(_built(p).exists() for p in PROGRAMS):
            return  # older than their sources, but nothing here can build them again
        raise ProgramError(f"{', '.join(PROGRAMS)} are not built and cargo is not on PATH: install Rust (rustup.rs), or pip install .")
    print(f"rampup: building {' and '.join(PROGRAMS)} ({' '.join(BUILD)}; minutes the first time)", file=sys.stderr, flush=True)
    done = subprocess.run(BUILD, cwd=CHECKOUT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.startswith("error")] or done.stderr.strip().splitlines()[-1:]
        raise ProgramError(f"{' '.join(BUILD)} failed: {errors[0] if errors else 'no message'}")


def program(name: str) -> str:
    """The path of ``name`` (one of `PROGRAMS`): the package's own, the checkout's (built
    now if need be), or the first on PATH."""
    if name not in PROGRAMS:
        raise ProgramError(f"program: {name!r} is not one of {', '.join(PROGRAMS)}")
    if (PACKAGED / name).is_file():
        return str(PACKAGED / name)
    if _in_checkout():
        _build_in_checkout()
        return str(_built(name))
    found = shutil.which(name)
    if found:
        return found
    raise ProgramError(f"{name} is not installed: pip install rampup from a source tree builds it (cargo build --release -p rampup-net)")
