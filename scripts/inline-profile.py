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
        [--root NAME] [--depth N] [--min PERCENT] [--keep FILE]

`--event` other than Ir simulates the caches (`--cache`, default this machine's 32 KiB
first level and 512 KiB second level per core). `--root` prints only the trees whose
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

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")


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


def render(level: dict, per: int, floor: float, depth: int, indent: int = 0) -> list[str]:
    rows = []
    for name, (cost, children) in sorted(level.items(), key=lambda kv: -kv[1][0]):
        if cost < floor:
            continue
        rows.append(f"{cost / 1e6:10.2f} M {cost / per:8.1f}  {'  ' * indent}{name}")
        if indent + 1 < depth:
            rows += render(children, per, floor, depth, indent + 1)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--event", default="Ir", choices=EVENTS)
    ap.add_argument("--cache", default="--D1=32768,8,64 --LL=524288,8,64", help="valgrind's cache options (with --event other than Ir)")
    ap.add_argument("--root", default="", help="only the trees whose outermost function's name contains this")
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--min", type=float, default=0.5, help="leave out functions below this percent of the engine's total")
    ap.add_argument("--keep", type=Path, help="keep callgrind's output here")
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
        out = args.keep or Path(tmp) / "callgrind.out"
        cache = ["--cache-sim=yes", *args.cache.split()] if args.event != "Ir" else []
        cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", *cache, f"--callgrind-out-file={out}"]
        cmd += [sys.executable, "-S", "-c", _CHILD, str(engine.parent), str(args.scenario)]
        try:
            run = subprocess.run(cmd, env=os.environ | {"RAMPUP_THREADS": "1"}, capture_output=True, text=True)
        except FileNotFoundError:
            print("inline-profile: needs valgrind (apt-get install valgrind)", file=sys.stderr)
            return 1
        if run.returncode != 0:
            print(f"inline-profile: the run failed: {run.stderr.strip()[-300:]}", file=sys.stderr)
            return 1
        packets = int(run.stdout.split()[0])
        with open(out) as f:
            costs = self_costs(f, engine.name, args.event)
        try:
            chains = inline_chains(sorted(costs), engine)
        except FileNotFoundError:
            print("inline-profile: needs addr2line (apt-get install binutils)", file=sys.stderr)
            return 1
    total = sum(costs.values())
    roots = {k: v for k, v in tree(costs, chains).items() if args.root in k}
    print(f"{args.event} in {engine.name}: {total / 1e6:.2f} M, {total / max(packets, 1):.1f} per delivered data packet ({packets})")
    print(f"{'all':>12} {'per pkt':>8}  function (inlined ones below their caller)")
    print("\n".join(render(roots, max(packets, 1), total * args.min / 100, args.depth)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
