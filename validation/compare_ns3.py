#!/usr/bin/env python3
"""Run one dumbbell through ns-3's queue discs and rampup's; print a markdown table.

    python3 validation/compare_ns3.py [--duration S] [--ecn]

The dumbbell: N NewReno bulk flows (N = 1 and 8, flow i starting at 10·i ms), 1 Gb/s
access links of 1 ms, a 20 Mb/s bottleneck of 18 ms (40 ms RTT), its data direction's queue
one of RED, CoDel, FQ-CoDel, PIE. ns-3 (3.37, `apt-get install libns3-dev`) runs
validation/ns3/dumbbell.cc, built here with g++; rampup runs the same scenario through the
example binary (`cargo build --profile test-fast -p rampup-sim --example run`). Compared:
goodput, the bottleneck queue's drops and marks, and its queueing delay (the bytes waiting
in the discipline at every change, at the link's rate) from 5 s on, median and 90th
percentile. A difference above the issue's bounds (goodput and drops 5 %, median delay
10 %) is flagged with `!`; docs/validation.md traces each to its cause. Nothing is tuned.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS3_SOURCE = ROOT / "validation" / "ns3" / "dumbbell.cc"
NS3_LIBS = ["core", "network", "internet", "point-to-point", "applications", "traffic-control", "stats", "bridge"]
RAMPUP_RUN = ROOT / "target" / "test-fast" / "examples" / "run"
KINDS = ["red", "codel", "fq-codel", "pie"]
FLOWS = [1, 8]
FROM_S = 5.0
RATE_BPS = 20e6
WIRE_BYTES = 1040
# Every discipline's limit as ns-3 is given it: rampup's defaults (docs/queues.md).
LIMIT = {"red": 1000, "codel": 1000, "fq-codel": 10240, "pie": 1000}
# ns-3's RED and PIE take the typical packet for their idle and "short queue" rules.
EXTRA = {"red": ", mean_pktsize = 1040", "pie": ", mean_pktsize = 1040"}


def build_ns3(out: Path) -> Path:
    exe = out / "ns3-dumbbell"
    cmd = ["g++", "-O2", "-std=c++17", "-o", str(exe), str(NS3_SOURCE)] + [f"-lns3-{lib}" for lib in NS3_LIBS]
    subprocess.run(cmd, check=True)
    return exe


def build_rampup() -> None:
    cmd = ["cargo", "build", "--profile", "test-fast", "-p", "rampup-sim", "--example", "run"]
    subprocess.run(cmd, cwd=ROOT, check=True, env={**os.environ, "RAMPUP_PGO": "off"})


def scenario(kind: str, flows: int, duration: float, ecn: bool) -> str:
    e = ", ecn = true" if ecn else ""
    text = (
        f'duration = "{duration}s"\n[topology]\nkind = "dumbbell"\npairs = {flows}\naccess_rate = "1Gbps"\naccess_delay = "1ms"\n'
        f'bottleneck_rate = "20Mbps"\nbottleneck_delay = "18ms"\n'
        f'bottleneck_queue = {{ kind = "{kind}", packets = {LIMIT[kind]}{EXTRA.get(kind, "")}{e} }}\n'
    )
    tcp = '{ cc = "newreno", recovery = "newreno"' + (", ecn = true" if ecn else "") + " }"
    for i in range(flows):
        text += f'[[flow]]\nfrom = "s{i}"\nto = "r{i}"\nstart = "{10 * i}ms"\napp = {{ kind = "bulk" }}\ntcp = {tcp}\n'
    return text + "[trace]\nqueues = true\n"


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def run_rampup(kind: str, flows: int, duration: float, ecn: bool, tmp: Path) -> dict:
    case = tmp / f"rampup-{kind}-{flows}"
    case.mkdir()
    (case / "s.toml").write_text(scenario(kind, flows, duration, ecn))
    subprocess.run([str(RAMPUP_RUN), str(case / "s.toml"), "--csv", str(case)], check=True, capture_output=True)
    rows = lambda name: list(csv.DictReader(open(case / f"{name}.csv")))  # noqa: E731
    rx = sum(int(r["bytes_received"]) for r in rows("flows"))
    bn = next(r for r in rows("links") if r["link"] == "left->right")
    delays = []
    for r in rows("queues"):
        if r["queue"] == "left->right" and int(r["t_ns"]) >= FROM_S * 1e9:
            # The bytes waiting: the row counts the packet being sent too.
            waiting = max(0, int(r["bytes"]) - (WIRE_BYTES if int(r["packets"]) > 0 else 0))
            delays.append(waiting * 8 / RATE_BPS * 1e3)
    return {"goodput": rx * 8 / duration, "drops": int(bn["drops"]), "marks": int(bn["marks"]), "delays": delays}


def run_ns3(exe: Path, kind: str, flows: int, duration: float, ecn: bool, tmp: Path) -> dict:
    delays_file = tmp / f"ns3-{kind}-{flows}.txt"
    args = [str(exe), f"--disc={kind}", f"--flows={flows}", f"--duration={duration}", f"--ecn={int(ecn)}", f"--from={FROM_S}", f"--delays={delays_file}"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    kv = dict(item.split("=") for item in out.split())
    delays = [float(x) for x in delays_file.read_text().split()]
    return {"goodput": float(kv["goodput_bps"]), "drops": int(kv["drops"]), "marks": int(kv["marks"]), "delays": delays}


def diff(a: float, b: float, bound: float) -> str:
    if b == 0:
        return "" if a == 0 else " !"
    d = (a - b) / b
    return f" ({d:+.0%}{' !' if abs(d) > bound else ''})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--ecn", action="store_true", help="ECN at the ends and in the queue")
    a = ap.parse_args()
    build_rampup()
    print(f"{a.duration:g} s, 20 Mb/s, 40 ms RTT, NewReno{' with ECN' if a.ecn else ''}; delay from {FROM_S:g} s; rampup (difference from ns-3)\n")
    print("| queue | flows | goodput Mb/s ns-3 | rampup | drops ns-3 | rampup | marks ns-3 | rampup | median delay ms ns-3 | rampup | p90 ms ns-3 | rampup |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        exe = build_ns3(tmp)
        for kind in KINDS:
            for flows in FLOWS:
                n = run_ns3(exe, kind, flows, a.duration, a.ecn, tmp)
                r = run_rampup(kind, flows, a.duration, a.ecn, tmp)
                nm, rm = percentile(n["delays"], 0.5), percentile(r["delays"], 0.5)
                n9, r9 = percentile(n["delays"], 0.9), percentile(r["delays"], 0.9)
                print(
                    f"| {kind} | {flows} | {n['goodput'] / 1e6:.2f} | {r['goodput'] / 1e6:.2f}{diff(r['goodput'], n['goodput'], 0.05)} "
                    f"| {n['drops']} | {r['drops']}{diff(r['drops'], n['drops'], 0.05)} | {n['marks']} | {r['marks']} "
                    f"| {nm:.2f} | {rm:.2f}{diff(rm, nm, 0.10)} | {n9:.2f} | {r9:.2f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
