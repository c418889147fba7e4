#!/usr/bin/env bash
# Make the profile that every optimised build of the engine uses (profile-guided
# optimisation, PGO; pgo/README.md): the engine is built with counters, runs a training
# workload (scripts/pgo-train.py: the benchmark, the example scenarios and the quick
# reproduction of every paper), and the counts are merged into pgo/llvm-VERSION.profdata,
# which scripts/pgo-rustc hands to rustc from then on. Run it after a change to the engine
# and commit pgo/ with the change: a function whose code changed is built without the
# profile's guidance until then (a slower build, never a different result).
#
#   scripts/build-pgo.sh            # 6.5 to 7.5 minutes on 2 cores
#
# Both builds are the one `pip install .` makes (maturin, release, no RUSTFLAGS): cargo
# folds RUSTFLAGS into each crate's symbol hashes, and the profile names functions by
# them, so the counters are added by scripts/pgo-rustc (RAMPUP_PGO=generate:DIR), out of
# cargo's sight. Before it ends, the script checks that the engine built with the new
# profile delivers what the training did, in each benchmark run and example scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  echo "build-pgo.sh: takes no arguments (it writes pgo/llvm-VERSION.profdata)" >&2
  exit 2
fi
work=$PWD/target/pgo
rm -rf "$work"
mkdir -p "$work"

# llvm-profdata must be the one of this rustc's LLVM: rustup's llvm-tools component.
version=$(rustc -vV)
host=$(sed -n 's/^host: //p' <<<"$version")
llvm=$(sed -n 's/^LLVM version: //p' <<<"$version")
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

# The package's dependencies (pandas, ...), for the training's reproductions.
python3 - <<'EOF' > "$work/requirements.txt"
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))
EOF
python3 -m pip install -q -r "$work/requirements.txt"

# The wheel `pip install .` would make, in a target folder of its own (cargo cannot see
# a change of profile, so a shared one could hand back an engine built with the old one).
wheel_into() {
  CARGO_TARGET_DIR="$work/target-$1" python3 -m pip wheel -q --no-deps -w "$work/wheel-$1" .
  python3 -m pip install -q --no-deps --target "$work/$1" "$work"/wheel-"$1"/*.whl
}

echo "== 1/4 the engine with counters"
RAMPUP_PGO="generate:$work/raw" wheel_into train
# The counts start with the training's: nothing the build itself ran should have counted
# (build scripts build at opt-level 0), and anything that did is not the engine's use.
rm -rf "$work/raw"

echo "== 2/4 training"
PYTHONPATH="$work/train" python3 scripts/pgo-train.py "$work/out" | tee "$work/expected.txt"

echo "== 3/4 merging the counts into pgo/llvm-$llvm.profdata"
rm -f pgo/llvm-*.profdata
"$profdata" merge -o "pgo/llvm-$llvm.profdata" "$work/raw"

echo "== 4/4 the engine built by the counts"
wheel_into check
# PGO changes the code's layout, not what it computes.
PYTHONPATH="$work/check" python3 scripts/pgo-train.py --check "$work/expected.txt"
# The workspace's own target folder holds crates built by the old profile: rebuild them.
cargo clean -q --release
echo "wrote pgo/llvm-$llvm.profdata; commit it, and reinstall (pip install -e .) to use it here"
