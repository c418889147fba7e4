#!/usr/bin/env python3
"""Where the engine's instructions (or cache misses) go, by function, inlined ones included.

The optimised engine is inlined into a few functions (the PGO build most of all), so
callgrind's totals per function say little, and its totals per source line split an inlined
function over the lines of every caller; a build with the hot functions kept out of line
is another program (at N = 10: 1,005.6 M instructions against the PGO build's 677.2 M).
This runs a scenario under callgrind with a cost per instruction (`--dump-instr=yes`),
asks addr2line for each instruction's chain of inlined functions, and prints the tree the
chains form: each function with what its instructions and those inlined into it cost, in
all and per delivered data packet.

    scripts/inline-profile.py SCENARIO.toml                    instructions (Ir)
    scripts/inline-profile.py SCENARIO.toml --event DLmr       second-level read misses
    scripts/inline-profile.py SCENARIO.toml --event Bcm        mispredicted branches
    scripts/inline-profile.py SCENARIO.toml --event cpu-clock  time, by perf's samples
        [--root NAME] [--depth N] [--min PERCENT] [--keep FILE] [--runs N]

`--event` Dr to DLmw simulates the caches (`--cache`, default 32 KiB first level and 512
KiB second level per core); Bc and Bcm, valgrind's model of a branch predictor (simpler
than a CPU's, so read its counts as where to look). `cpu-clock` samples the real run with
`perf record` (20,000 a second, over `--runs` runs; figures per mille of the samples, not
per packet): where the time goes, which may differ from where the instructions go (on AMD
EPYC at N = 10, the arrivals' heap took 13% of the time and 7% of the instructions;
docs/performance-steps.md). `--root` prints only the trees whose
outermost function's name contains NAME. Profiles the installed engine (`rampup._engine`),
or the build `--engine` names, on one thread in the bare process `rampup bench` times.
Needs valgrind and binutils' addr2line (apt-get install valgrind binutils);
docs/performance-steps.md has the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "cpu-clock")


def self_costs(lines, object_suffix: str, event: str) -> dict[int, int]:
    """Each instruction address's own cost of `event` in the object whose file name ends
    with `object_suffix`, from a callgrind file written with `--dump-instr=yes`.

    Positions are absolute or relative to the previous line's (`+n`, `-n`, `*`); the line
    after `calls=` holds what the call cost in all, which is not the instruction's own.
    """
    column = 2  # of the event in a cost line: address, line, events; set by `events:`, which comes first
    costs: dict[int, int] = defaultdict(int)
    objects: dict[str, str] = {}
    inside = after_call = False
    addr = 0
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        head = line[0]
        if head.isdigit() or head in "+-*":
            fields = line.split()
            tok = fields[0]
            addr = addr if tok == "*" else addr + int(tok, 0) if head in "+-" else int(tok, 0)
            if after_call:
                after_call = False
            elif inside:
                # Absent trailing events are 0.
                if column < len(fields):
                    costs[addr] += int(fields[column])
            continue
        if line.startswith("events:"):
            events = line.split()[1:]
            if event not in events:
                raise SystemExit(f"inline-profile: the run recorded {', '.join(events)}, not {event}")
            column = 2 + events.index(event)
        elif line.startswith("calls="):
            after_call = True
        else:
            m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?", line)
            if m:
                kind, ref, name = m.groups()
                if name:
                    objects[ref] = name
                if kind == "ob":
                    inside = objects.get(ref, "").endswith(object_suffix)
    return {a: c for a, c in costs.items() if c}


def perf_costs(cmd: list[str], engine: Path, runs: int, data: Path) -> tuple[dict[int, int], str]:
    """Samples of `perf record -e cpu-clock` per instruction address of `engine` (as
    addr2line reads them) over `runs` runs of `cmd`, and the last run's output."""
    # A sample's address less the library's load address is an offset in the file; the
    # executable segment's addresses in the library are its file offsets plus this.
    segments = subprocess.run(["readelf", "-lW", str(engine)], capture_output=True, text=True, check=True).stdout
    load = next(line.split() for line in segments.splitlines() if line.split()[:1] == ["LOAD"] and " R E " in line)
    shift = int(load[2], 16) - int(load[1], 16)
    costs: dict[int, int] = defaultdict(int)
    stdout = ""
    for _ in range(runs):
        record = ["perf", "record", "-q", "-F", "20000", "-e", "cpu-clock", "-o", str(data), *cmd]
        run = subprocess.run(record, env=os.environ | {"RAMPUP_THREADS": "1"}, capture_output=True, text=True, check=True)
        stdout = run.stdout
        script = ["perf", "script", "-i", str(data), "-F", "ip,dso", "--show-mmap-events"]
        lines = subprocess.run(script, capture_output=True, text=True, check=True).stdout.splitlines()
        for addr, n in perf_samples(lines, engine.name, shift).items():
            costs[addr] += n
    return dict(costs), stdout


def perf_samples(lines, object_name: str, shift: int) -> dict[int, int]:
    """Samples per address of the object named `object_name`, from `perf script -F ip,dso
    --show-mmap-events`: a sample's address less the object's load address (its mmap
    event's first field), plus the mapped file offset and `shift` (the executable segment's
    addresses less its file offsets)."""
    costs: dict[int, int] = defaultdict(int)
    start = offset = None
    for line in lines:
        if "PERF_RECORD_MMAP" in line:
            m = re.search(r"\[(0x[0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0) .*r-xp (\S+)", line)
            if m and m.group(3).endswith(object_name):
                start, offset = int(m.group(1), 16), int(m.group(2), 16)
        elif start is not None and line.rstrip().endswith(f"{object_name})"):
            costs[int(line.split()[0], 16) - start + offset + shift] += 1
    return dict(costs)


def inline_chains(addresses: list[int], binary: Path) -> dict[int, list[str]]:
    """Each address's functions, outermost first: the one compiled and those inlined in it."""
    out = subprocess.run(
        ["addr2line", "-i", "-f", "-C", "-a", "-e", str(binary)],
        input="\n".join(hex(a) for a in addresses),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    chains: dict[int, list[str]] = {}
    addr = None
    i = 0
    while i < len(out):
        if out[i].startswith("0x"):
            addr = int(out[i], 16)
            chains[addr] = []
            i += 1
        else:
            # A function's name, then the place in it (skipped).
            chains[addr].insert(0, short_name(out[i]))
            i += 2
    return chains


def short_name(name: str) -> str:
    """A function's name without generic arguments and crate prefixes; a qualified path
    (`<T as Trait>::f`, `<Type<E>>::f`) keeps only the method's name."""
    while True:
        shorter = re.sub(r"<[^<>]*>", "", name)
        if shorter == name:
            break
        name = shorter
    for prefix in ("rampup_sim::", "rampup_tcp::", "core::", "alloc::"):
        name = name.replace(prefix, "")
    # An impl block (`ahead::<impl World>::f`) leaves an empty segment.
    return re.sub(r"(::)+", "::", name).strip(":") or name


def tree(costs: dict[int, int], chains: dict[int, list[str]]) -> dict:
    """Nested {name: [cost, children]}: a function's cost holds those of all inlined in it
    (an inlined function that calls itself counts once per instruction)."""
    root: dict = {}
    for addr, cost in costs.items():
        level = root
        last = None
        for name in chains.get(addr) or ["?"]:
            if name == last:
                continue
            node = level.setdefault(name, [0, {}])
            node[0] += cost
            level, last = node[1], name
    return root


def render(level: dict, per: float, floor: float, depth: int, samples: bool = False, indent: int = 0) -> list[str]:
    """Rows of the tree: each function's cost in all (millions of events, or samples as
    counted) and per `per`, down to `depth` levels, leaving out those below `floor`."""
    rows = []
    for name, (cost, children) in sorted(level.items(), key=lambda kv: -kv[1][0]):
        if cost < floor:
            continue
        count = f"{cost:12d}" if samples else f"{cost / 1e6:10.2f} M"
        rows.append(f"{count} {cost / per:8.1f}  {'  ' * indent}{name}")
        if indent + 1 < depth:
            rows += render(children, per, floor, depth, samples, indent + 1)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--event", default="Ir", choices=EVENTS)
    ap.add_argument("--cache", default="--D1=32768,8,64 --LL=524288,8,64", help="valgrind's cache options (with --event other than Ir)")
    ap.add_argument("--root", default="", help="only the trees whose outermost function's name contains this")
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--min", type=float, default=0.5, help="leave out functions below this percent of the engine's total")
    ap.add_argument("--keep", type=Path, help="keep callgrind's output here (or perf's, of the last run)")
    ap.add_argument("--runs", type=int, default=5, help="runs to sample (with --event cpu-clock)")
    ap.add_argument("--engine", type=Path, help="another build of the engine's shared library (default: the installed one)")
    args = ap.parse_args()
    if not args.scenario.is_file():
        print(f"inline-profile: no scenario file {args.scenario}", file=sys.stderr)
        return 2
    try:
        from rampup import _engine
        from rampup.bench import _CHILD
    except ImportError:
        print("inline-profile: rampup is not installed here (pip install -e .)", file=sys.stderr)
        return 1

    engine = Path(_engine.__file__)
    with tempfile.TemporaryDirectory() as tmp:
        if args.engine:
            # The child imports the library by the module's file name, from a folder of its own.
            (Path(tmp) / "engine").mkdir()
            engine = Path(shutil.copy(args.engine, Path(tmp) / "engine" / engine.name))
        child = [sys.executable, "-S", "-c", _CHILD, str(engine.parent), str(args.scenario)]
        if args.event == "cpu-clock":
            try:
                costs, stdout = perf_costs(child, engine, args.runs, args.keep or Path(tmp) / "perf.data")
            except FileNotFoundError:
                print("inline-profile: needs perf and readelf (apt-get install linux-perf binutils)", file=sys.stderr)
                return 1
            except subprocess.CalledProcessError as e:
                print(f"inline-profile: {Path(e.cmd[0]).name} failed: {(e.stderr or '').strip()[-300:]}", file=sys.stderr)
                return 1
        else:
            out = args.keep or Path(tmp) / "callgrind.out"
            if args.event == "Ir":
                sim = []
            elif args.event.startswith("B"):
                sim = ["--branch-sim=yes"]
            else:
                sim = ["--cache-sim=yes", *args.cache.split()]
            cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", *sim, f"--callgrind-out-file={out}"]
            try:
                run = subprocess.run(cmd + child, env=os.environ | {"RAMPUP_THREADS": "1"}, capture_output=True, text=True)
            except FileNotFoundError:
                print("inline-profile: needs valgrind (apt-get install valgrind)", file=sys.stderr)
                return 1
            if run.returncode != 0:
                print(f"inline-profile: the run failed: {run.stderr.strip()[-300:]}", file=sys.stderr)
                return 1
            stdout = run.stdout
            with open(out) as f:
                costs = self_costs(f, engine.name, args.event)
        packets = int(stdout.split()[0])
        try:
            chains = inline_chains(sorted(costs), engine)
        except FileNotFoundError:
            print("inline-profile: needs addr2line (apt-get install binutils)", file=sys.stderr)
            return 1
    total = sum(costs.values())
    roots = {k: v for k, v in tree(costs, chains).items() if args.root in k}
    samples = args.event == "cpu-clock"
    if samples:
        # Per mille of all samples: a run's packets are not what a sample counts.
        per, unit = max(total / 1000, 1e-9), "per mil"
        print(f"cpu-clock samples in {engine.name}: {total} over {args.runs} runs ({packets} delivered data packets a run)")
    else:
        per, unit = max(packets, 1), "per pkt"
        print(f"{args.event} in {engine.name}: {total / 1e6:.2f} M, {total / per:.1f} per delivered data packet ({packets})")
    print(f"{'all':>12} {unit:>8}  function (inlined ones below their caller)")
    print("\n".join(render(roots, per, total * args.min / 100, args.depth, samples)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
