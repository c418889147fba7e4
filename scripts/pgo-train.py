"""The training workload of scripts/build-pgo.sh, run with the engine built with counters.

    pgo-train.py OUT            run it (OUT: a scratch folder); print what each benchmark
                                run and example scenario delivered, one line each
    pgo-train.py --check FILE   run those again with the installed rampup and exit 1
                                unless each line equals FILE's (the training's)

What trains the build is what users run most: `rampup bench` (N = 1 to 1,000, on one
thread and split over two), the example scenarios, and every paper's quick reproduction.
"""

import os
import subprocess
import sys
from pathlib import Path

from rampup import _engine
from rampup.bench import bench_scenario

ROOT = Path(__file__).resolve().parent.parent


def results() -> list[str]:
    """What each benchmark run and example scenario delivered, one line each."""
    lines = []
    for flows in (1, 10, 100, 1000):
        for threads in ("1", "2"):
            os.environ["RAMPUP_THREADS"] = threads
            lines.append(f"bench N={flows} threads={threads}: {_engine.delivered_packets(bench_scenario(flows), 1)} bytes")
    os.environ["RAMPUP_THREADS"] = "2"
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        lines.append(f"scenario {path.name}: {_engine.delivered_packets(path.read_text(), 1)} bytes")
    return lines


def train(out: Path) -> None:
    for line in results():
        print(line, flush=True)
    cmd = [sys.executable, "-m", "rampup", "reproduce", "all", "--quick", "--out", str(out / "site"), "--cache", str(out / "cache")]
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def check(expected: Path) -> int:
    want, got = expected.read_text().splitlines(), results()
    if got != want:
        differ = "; ".join(sorted(set(got) ^ set(want))) or "the same lines in another order"
        print(f"pgo-train: the PGO build differs from the training in: {differ}", file=sys.stderr)
        return 1
    print(f"pgo-train: the PGO build delivers what the training did in all {len(got)} runs")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(Path(sys.argv[2])))
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    train(Path(sys.argv[1]))
