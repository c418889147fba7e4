"""The build backend's progress on a terminal while pip hides the build's output
(scripts/rampup_backend.py): cargo's lines are passed on whole, and the terminal gets a line
at the start, now and then, and at the end."""

from __future__ import annotations

import importlib
import io
import os
import sys
import types
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    # maturin is a build requirement, not a test one: its hooks are stand-ins here.
    fake = types.ModuleType("maturin")
    for hook in ("build_sdist", "build_wheel", "build_editable", "get_requires_for_build_editable",
                 "get_requires_for_build_sdist", "get_requires_for_build_wheel", "prepare_metadata_for_build_editable",
                 "prepare_metadata_for_build_wheel"):
        setattr(fake, hook, lambda *a, **k: "x.whl")
    monkeypatch.setitem(sys.modules, "maturin", fake)
    monkeypatch.syspath_prepend(str(SCRIPTS))
    monkeypatch.delitem(sys.modules, "rampup_backend", raising=False)
    return importlib.import_module("rampup_backend")


def test_cargo_lines_pass_through_and_the_terminal_hears_of_each_crate(backend: types.ModuleType) -> None:
    cargo = b"   Compiling libc v0.2.150\n   Compiling pyo3 v0.20.0\nwarning: something\n   Compiling rampup-engine v0.1.0\n"
    src, dst, tty = io.BytesIO(cargo), io.BytesIO(), io.StringIO()
    dst.close = lambda: None  # type: ignore[method-assign]  # read back below
    backend.relay_progress(src, dst, tty, "the engine", every_s=0.0)
    assert dst.getvalue() == cargo
    lines = tty.getvalue().splitlines()
    assert lines[0].startswith("rampup: building the engine (cargo build --release")
    assert lines[1:4] == [f"rampup: building the engine: {n} compiled, now {c} (0 s)"
                          for n, c in (("1 crate", "libc"), ("2 crates", "pyo3"), ("2 crates", "pyo3"))]
    assert lines[-1] == "rampup: built the engine: 3 crates compiled in 0 s"


def test_without_a_terminal_nothing_is_added(backend: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_tty(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(6, "No such device or address")

    before = os.fstat(2)
    monkeypatch.setattr("builtins.open", no_tty)
    with backend._progress("the engine"):
        during = os.fstat(2)
    assert (during.st_dev, during.st_ino) == (before.st_dev, before.st_ino)  # stderr is not replaced by a relay
