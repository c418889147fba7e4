#!/usr/bin/env bash
# Build and install rampup with profile-guided optimisation (PGO), as projects such as
# pydantic-core build their release wheels: the engine is built once with counters, runs
# a training workload (scripts/pgo-train.py: the benchmark, the example scenarios and the
# quick reproduction of every paper), and is built again with what the counters saw, which
# lays out its branches and inlines by use. docs/performance.md gives what it changes.
# Before the wheel is installed, the script checks that it delivers what the training
# did, in each benchmark run and example scenario (16 runs).
#
#   scripts/build-pgo.sh            # build, check and install (7.5 minutes on 2 cores);
#                                   # it replaces an editable install (pip install -e .)
#   scripts/build-pgo.sh wheel      # build and check a wheel in target/pgo/wheels only
#
# RUSTFLAGS is not used: the profile's flags go in CARGO_ENCODED_RUSTFLAGS (a path with a
# space in it stays one argument).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-install}
if [ "$mode" != install ] && [ "$mode" != wheel ]; then
  echo "build-pgo.sh: unknown mode '$mode' (allowed: install, wheel)" >&2
  exit 2
fi
work=$PWD/target/pgo
rm -rf "$work/train" "$work/wheels" "$work/check"
mkdir -p "$work/train"

# llvm-profdata must be the one of this rustc's LLVM: rustup's llvm-tools component.
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  if ! command -v rustup >/dev/null; then
    echo "build-pgo.sh: needs llvm-profdata of this rustc's LLVM ($profdata): install rustup's llvm-tools component" >&2
    exit 1
  fi
  rustup component add llvm-tools
  if [ ! -x "$profdata" ]; then
    echo "build-pgo.sh: rustup added llvm-tools, but $profdata is not there (is rustc rustup's?)" >&2
    exit 1
  fi
fi

echo "== 1/4 the engine with counters"
PYO3_BUILD_EXTENSION_MODULE=1 CARGO_ENCODED_RUSTFLAGS="-Cprofile-generate=$work/raw" CARGO_TARGET_DIR="$work/target-gen" \
  cargo build --release -p rampup-py
# The build's own scripts ran instrumented too; their counts are not the engine's (the
# engine's runs make the folder again).
rm -rf "$work/raw"

echo "== 2/4 training"
# The package's dependencies (pandas, ...), for the training's reproductions.
python3 - <<'EOF' > "$work/requirements.txt"
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))
EOF
python3 -m pip install -q -r "$work/requirements.txt"
cp -r python/rampup "$work/train/rampup"
rm -f "$work"/train/rampup/_engine*.so
suffix=$(python3 -c 'import importlib.machinery as m; print(m.EXTENSION_SUFFIXES[0])')
cp "$work/target-gen/release/lib_engine.so" "$work/train/rampup/_engine$suffix"
PYTHONPATH="$work/train" python3 scripts/pgo-train.py "$work/train/out" | tee "$work/train/expected.txt"

echo "== 3/4 merging the counts"
"$profdata" merge -o "$work/merged.profdata" "$work/raw"

echo "== 4/4 the engine built by the counts"
CARGO_ENCODED_RUSTFLAGS="-Cprofile-use=$work/merged.profdata" python3 -m pip wheel -q --no-deps -w "$work/wheels" .
wheel=$(ls "$work"/wheels/*.whl)
# The same deliveries as the instrumented build's, in every benchmark run and example
# scenario (PGO changes the code's layout, not what it computes), before anything is
# installed.
python3 -m pip install -q --no-deps --target "$work/check" "$wheel"
PYTHONPATH="$work/check" python3 scripts/pgo-train.py --check "$work/train/expected.txt"
if [ "$mode" = wheel ]; then
  echo "built with PGO: $wheel"
else
  python3 -m pip install -q --force-reinstall --no-deps "$wheel"
  echo "installed rampup built with PGO; measure it with: RAMPUP_THREADS=1 rampup bench"
fi
