#!/usr/bin/env bash
# Set up and run every test: the Rust crates (unit, scenario and property tests) and the
# Python package (API, CLI, results, pcap read back by tshark, ns-2 cross-check).
# Works on a fresh machine with Python 3.11, pip and Rust; installs the rest itself.
set -euo pipefail
cd "$(dirname "$0")/.."

# tshark reads our pcap files back in a test; ns-2 is the reference simulator; chromium
# renders the reproduction report in a test (every figure loads, no console errors).
need=()
command -v tshark >/dev/null || need+=(tshark)
command -v ns >/dev/null || need+=(ns2)
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "note: ${need[*]} missing and not root; the tests that need them are skipped" >&2
  fi
fi

python3 -m pip install -q --upgrade pip >/dev/null

# One build serves the whole command (the engine pip installs, cargo's tests, the testbed's
# programs): optimised, so that the tests run at engine speed, but without whole-program LTO,
# PGO or debug info, which take most of a cold build's time and change no result
# (pgo/README.md). It has a target folder of its own, so the optimised build that
# `pip install .` made is kept; the engine installed after this command is this build, and
# `pip install .` puts the optimised one back.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/tests"
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=0
export RAMPUP_PGO=off
python3 -m pip install -q -e '.[test]'

# Lints: warnings are errors (rustup's default profile has clippy and rustfmt; without
# them, say so). Formatting as rustfmt.toml says; Python by the rules in pyproject.toml.
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
else
  echo "note: cargo fmt is not installed (rustup component add rustfmt); formatting not checked" >&2
fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --release --workspace --all-targets --quiet -- -D warnings
else
  echo "note: cargo clippy is not installed (rustup component add clippy); lints skipped" >&2
fi
ruff check python/ scripts/
# Types: mypy --strict over the package, as pyproject.toml's [tool.mypy] sets it.
python3 -m mypy
cargo test --release --workspace --exclude rampup-py
# The experiment-size tests and the debug-assertion run of the TCP core are in
# scripts/test-long.sh (CI runs both scripts).
# pytest-xdist: a worker per core, each taking whole files (a file's tests share its module
# fixtures; the testbed's count the namespaces and processes its own tests made).
python3 -m pytest -q -n auto --dist loadfile -m "not long" python/tests
