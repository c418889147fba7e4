"""scripts/pgo-rustc, the wrapper through which cargo runs rustc: it adds the committed PGO
profile, and the x86-64-v3 level of CPU where this one has it, to optimised builds only
(pgo/README.md)."""

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = ROOT / "scripts" / "pgo-rustc"


@pytest.fixture
def fake_rustc(tmp_path: Path) -> Path:
    """A rustc that names its LLVM and otherwise prints its arguments and one variable (bash,
    as dash would drop it)."""
    llvm = next(p.name[len("llvm-") : -len(".profdata")] for p in (ROOT / "pgo").glob("llvm-*.profdata"))
    rustc = tmp_path / "rustc"
    rustc.write_text(f'#!/usr/bin/env bash\nif [ "$1" = -vV ]; then echo "LLVM version: {llvm}"; exit 0; fi\necho "$@"; env | grep CARGO_BIN_EXE || true\n')
    rustc.chmod(0o755)
    return rustc


def wrap(rustc: Path, *args: str, pgo: str | None = None, cpu: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("RAMPUP_PGO", "RAMPUP_CPU")} | {"CARGO_BIN_EXE_rampup-udp": "/bin/x"}
    if pgo is not None:
        env["RAMPUP_PGO"] = pgo
    if cpu is not None:
        env["RAMPUP_CPU"] = cpu
    return subprocess.run([str(WRAPPER), str(rustc), *args], env=env, capture_output=True, text=True)


def features(cpu: str) -> set[str]:
    out = subprocess.run(["rustc", "--print", "cfg", "-C", f"target-cpu={cpu}"], capture_output=True, text=True, check=True).stdout
    return {line.split('"')[1] for line in out.splitlines() if line.startswith("target_feature=")}


@functools.cache
def cpu_flag() -> str:
    """What the wrapper should add here, by rustc's own reading of this CPU (the oracle):
    the v3 level when this CPU has every feature of it."""
    return " -Ctarget-cpu=x86-64-v3" if features("x86-64-v3") <= features("native") else ""


def test_a_release_build_gets_the_profile_and_a_debug_build_does_not(fake_rustc: Path):
    release = wrap(fake_rustc, "--crate-name", "rampup_sim", "-C", "opt-level=3", cpu="generic")
    profile = next((ROOT / "pgo").glob("llvm-*.profdata"))
    assert release.stdout.splitlines()[0] == f"--crate-name rampup_sim -C opt-level=3 -Cprofile-use={profile}"
    debug = wrap(fake_rustc, "--crate-name", "rampup_sim", "-C", "opt-level=0")
    assert debug.stdout.splitlines()[0] == "--crate-name rampup_sim -C opt-level=0"


def test_rampup_pgo_turns_it_off_or_asks_for_counters(fake_rustc: Path):
    assert wrap(fake_rustc, "-C", "opt-level=3", pgo="off", cpu="generic").stdout.splitlines()[0] == "-C opt-level=3"
    counted = wrap(fake_rustc, "-C", "opt-level=3", pgo="generate:/tmp/raw", cpu="generic")
    assert counted.stdout.splitlines()[0] == "-C opt-level=3 -Cprofile-generate=/tmp/raw"


@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not on the PATH")
def test_an_optimised_build_is_for_v3_where_this_cpu_has_it(fake_rustc: Path):
    flag = cpu_flag()
    profile = next((ROOT / "pgo").glob("llvm-*.profdata"))
    assert wrap(fake_rustc, "-C", "opt-level=3").stdout.splitlines()[0] == f"-C opt-level=3{flag} -Cprofile-use={profile}"
    assert wrap(fake_rustc, "-C", "opt-level=3", pgo="off").stdout.splitlines()[0] == f"-C opt-level=3{flag}"
    counted = wrap(fake_rustc, "-C", "opt-level=3", pgo="generate:/tmp/raw")
    assert counted.stdout.splitlines()[0] == f"-C opt-level=3{flag} -Cprofile-generate=/tmp/raw"


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("pgo", "yes", "scripts/pgo-rustc: RAMPUP_PGO='yes' is not one of: on, off, generate:DIR"),
        ("cpu", "native", "scripts/pgo-rustc: RAMPUP_CPU='native' is not one of: auto, generic"),
    ],
)
def test_a_wrong_setting_is_a_one_line_error(fake_rustc: Path, variable: str, value: str, message: str):
    r = wrap(fake_rustc, "-C", "opt-level=3", **{variable: value})
    assert r.returncode == 2
    assert r.stderr.strip() == message


def test_a_profile_of_another_llvm_is_not_used(tmp_path: Path):
    rustc = tmp_path / "rustc"
    rustc.write_text('#!/bin/sh\nif [ "$1" = -vV ]; then echo "LLVM version: 1.0.0"; exit 0; fi\necho "$@"\n')
    rustc.chmod(0o755)
    assert wrap(rustc, "-C", "opt-level=3", cpu="generic").stdout.splitlines()[0] == "-C opt-level=3"


def test_variables_with_a_hyphen_reach_rustc(fake_rustc: Path):
    # Integration tests read CARGO_BIN_EXE_rampup-udp at compile time.
    assert "CARGO_BIN_EXE_rampup-udp=/bin/x" in wrap(fake_rustc, "-C", "opt-level=3").stdout
