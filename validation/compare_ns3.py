#!/usr/bin/env python3
"""Run one dumbbell through ns-3's queue discs and rampup's; print markdown tables.

    python3 validation/compare_ns3.py [--duration S] [--no-sack] [--ecn] [--initial-ssthresh N]
                                      [--ns3-flightsize] [--seeds N] [--loss-events]

The dumbbell: N NewReno bulk flows (N = 1 and 8, flow i starting at 10·i ms), with SACK
and RFC 6675 recovery (`--no-sack`: NewReno's own, RFC 6582), 1 Gb/s access links of 1 ms,
a 20 Mb/s bottleneck of 18 ms (40 ms RTT), its data direction's queue one of RED, CoDel,
FQ-CoDel, PIE. ns-3 (3.37, `apt-get install libns3-dev g++`) runs
validation/ns3/dumbbell.cc, built here with g++; rampup runs the same scenario through the
example binary (`cargo build --release -p rampup-sim --example run`, in CARGO_TARGET_DIR
if set). Compared: goodput, the bottleneck queue's drops and marks, and its queueing delay
(the bytes waiting at the port besides the packet on the wire, every millisecond from 5 s
on, at the link's rate), median and 90th percentile. A difference above the issue's bounds
(goodput and drops 5 %, median delay 10 %) is flagged with `!`; docs/validation.md traces
each to its cause. A second table gives each side's own counters: the queue's drops from
5 s on (the steady state), the senders' retransmitted segments and timeouts, the
bottleneck's carried rate, ns-3's median delay without the packet its device queue holds,
and ns-3's drops by reason. Nothing is tuned. `--ns3-flightsize` makes ns-3 set ssthresh on
entering recovery from FlightSize, as rampup does (RFC 6675 §5 step 4.2), not from its pipe.
`--seeds N` runs each row with seeds 1 to N on both sides (ns-3's `RngRun`, rampup's `seed`)
and gives each figure's median over them: one run is one trajectory, and FQ-CoDel's seeded
hash may put two flows in one queue under a seed. `--loss-events` adds a third table from
each drop's time and flow (ns-3's drop trace, rampup's packets trace): a flow's drops from
5 s on grouped into loss events (those within 60 ms, about an RTT with the queue, of the
event's first drop), the drops per event, the share of events with three drops or more, the
share of events that begin within 40 ms of another flow's (flows in step), and the standard
deviation of the bottleneck's queue in packets.
Without ns-3 or g++ the script stops with a one-line error.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS3_SOURCE = ROOT / "validation" / "ns3" / "dumbbell.cc"
NS3_HEADER = Path("/usr/include/ns3/core-module.h")
NS3_LIBS = ["core", "network", "internet", "point-to-point", "applications", "traffic-control", "stats", "bridge"]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
RAMPUP_RUN = TARGET / "release" / "examples" / "run"
KINDS = ["red", "codel", "fq-codel", "pie"]
FLOWS = [1, 8]
FROM_S = 5.0
SAMPLE = "1ms"
RATE_BPS = 20e6
WIRE_BYTES = 1040
# Every discipline's limit as ns-3 is given it: rampup's defaults (docs/queues.md).
LIMIT = {"red": 1000, "codel": 1000, "fq-codel": 10240, "pie": 1000}
# ns-3's RED and PIE take the typical packet for their idle and "short queue" rules.
# ns-3's RedQueueDisc marks every unforced signal, up to 2·max_th (docs/queues.md, mark_p).
EXTRA = {"red": ", mean_pktsize = 1040, mark_p = 1.0", "pie": ", mean_pktsize = 1040"}


def need_ns3() -> None:
    """Stop with one line when ns-3 or g++ is missing."""
    if shutil.which("g++") is None or not NS3_HEADER.exists():
        sys.exit("compare_ns3: ns-3 3.37 and g++ are needed (apt-get install -y libns3-dev g++)")


def build_ns3(out: Path) -> Path:
    exe = out / "ns3-dumbbell"
    cmd = ["g++", "-O2", "-std=c++17", "-o", str(exe), str(NS3_SOURCE)] + [f"-lns3-{lib}" for lib in NS3_LIBS]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compare_ns3: building {NS3_SOURCE.name} against ns-3 failed: {done.stderr.strip().splitlines()[-1]}")
    return exe


def build_rampup() -> None:
    # The release profile without LTO, PGO or debug info: the same results, built faster.
    env = {**os.environ, "RAMPUP_PGO": "off", "CARGO_PROFILE_RELEASE_LTO": "false", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
           "CARGO_PROFILE_RELEASE_DEBUG": "0"}
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "rampup-sim", "--example", "run"], cwd=ROOT, check=True, env=env)


@dataclass(frozen=True)
class Setup:
    """What both sides run: the command line's choices and a seed."""

    duration: float
    sack: bool
    ecn: bool
    ssthresh: int
    flightsize: bool
    seed: int = 1
    loss_events: bool = False


def scenario(kind: str, flows: int, s: Setup) -> str:
    e = ", ecn = true" if s.ecn else ""
    ss = f", initial_ssthresh = {s.ssthresh}" if s.ssthresh else ""
    text = (
        f'seed = {s.seed}\nduration = "{s.duration}s"\n[topology]\nkind = "dumbbell"\npairs = {flows}\naccess_rate = "1Gbps"\naccess_delay = "1ms"\n'
        f'bottleneck_rate = "20Mbps"\nbottleneck_delay = "18ms"\n'
        f'bottleneck_queue = {{ kind = "{kind}", packets = {LIMIT[kind]}{EXTRA.get(kind, "")}{e} }}\n'
    )
    tcp = f'{{ cc = "newreno", recovery = "{"sack" if s.sack else "newreno"}"{e}{ss} }}'
    for i in range(flows):
        text += f'[[flow]]\nfrom = "s{i}"\nto = "r{i}"\nstart = "{10 * i}ms"\napp = {{ kind = "bulk" }}\ntcp = {tcp}\n'
    return text + f'[trace]\nqueues = true\nqueues_interval = "{SAMPLE}"\n' + ("packets = true\n" if s.loss_events else "")


EVENT_S = 0.06
IN_STEP_S = 0.04


def loss_events(drops: list[tuple[float, int]], delays_ms: list[float]) -> dict:
    """The `--loss-events` figures from each drop's (time s, flow) and the delay samples."""
    by_flow: dict[int, list[float]] = {}
    for t, flow in drops:
        if t >= FROM_S:
            by_flow.setdefault(flow, []).append(t)
    events: list[tuple[float, int, int]] = []  # (start, flow, drops)
    for flow, ts in by_flow.items():
        for t in sorted(ts):
            if events and events[-1][1] == flow and t - events[-1][0] <= EVENT_S:
                events[-1] = (events[-1][0], flow, events[-1][2] + 1)
            else:
                events.append((t, flow, 1))
    starts = sorted((t, f) for t, f, _ in events)
    in_step = sum(1 for t, f in starts if any(g != f and abs(u - t) < IN_STEP_S for u, g in starts))
    packets = [d * 1e-3 * RATE_BPS / 8 / WIRE_BYTES for d in delays_ms]
    n = max(1, len(events))
    return {
        "events": len(events),
        "per_event": sum(k for _, _, k in events) / n,
        "big_events": sum(1 for _, _, k in events if k >= 3) / n,
        "in_step": in_step / n,
        "queue_sd": statistics.pstdev(packets) if packets else 0.0,
    }


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def run_rampup(kind: str, flows: int, s: Setup, tmp: Path) -> dict:
    case = tmp / f"rampup-{kind}-{flows}-{s.seed}"
    case.mkdir()
    (case / "s.toml").write_text(scenario(kind, flows, s))
    subprocess.run([str(RAMPUP_RUN), str(case / "s.toml"), "--csv", str(case)], check=True, capture_output=True)

    def rows(name: str) -> list[dict]:
        with open(case / f"{name}.csv", newline="") as f:
            return list(csv.DictReader(f))

    fl = rows("flows")
    bn = next(r for r in rows("links") if r["link"] == "left->right")
    drops = [(int(r["t_ns"]) / 1e9, int(r["flow"])) for r in rows("packets") if r["link"] == "left->right" and r["event"] == "drop"] \
        if s.loss_events else []
    delays, drops_before = [], 0
    for r in rows("queues"):
        if r["queue"] != "left->right":
            continue
        if int(r["t_ns"]) < FROM_S * 1e9:
            drops_before = int(r["drops"])
        else:
            # The bytes waiting: the row counts the packet on the wire too.
            waiting = max(0, int(r["bytes"]) - (WIRE_BYTES if int(r["packets"]) > 0 else 0))
            delays.append(waiting * 8 / RATE_BPS * 1e3)
    return {
        **(loss_events(drops, delays) if s.loss_events else {}),
        "goodput": sum(int(r["bytes_received"]) for r in fl) * 8 / s.duration,
        "drops": int(bn["drops"]),
        "late_drops": int(bn["drops"]) - drops_before,
        "marks": int(bn["marks"]),
        "retransmits": sum(int(r["retransmits"]) for r in fl),
        "timeouts": sum(int(r["timeouts"]) for r in fl),
        "carried": int(bn["tx_bytes"]) * 8 / s.duration,
        "median": percentile(delays, 0.5),
        "p90": percentile(delays, 0.9),
    }


def run_ns3(exe: Path, kind: str, flows: int, s: Setup, tmp: Path) -> dict:
    delays_file = tmp / f"ns3-{kind}-{flows}-{s.seed}.txt"
    args = [str(exe), f"--disc={kind}", f"--flows={flows}", f"--duration={s.duration}", f"--sack={int(s.sack)}", f"--ecn={int(s.ecn)}",
            f"--ssthresh={s.ssthresh}", f"--from={FROM_S}", f"--delays={delays_file}", f"--flightsize={int(s.flightsize)}",
            f"--RngRun={s.seed}"]
    drops_file = tmp / f"ns3-{kind}-{flows}-{s.seed}.drops"
    if s.loss_events:
        args.append(f"--drops={drops_file}")
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    kv = dict(item.split("=") for item in out.split())
    lines = delays_file.read_text().splitlines()
    delays = [float(line.split()[0]) for line in lines]
    drops = [(float(t), int(f)) for t, f, _, _ in (line.split() for line in drops_file.read_text().splitlines())] if s.loss_events else []
    return {
        **(loss_events(drops, delays) if s.loss_events else {}),
        "goodput": float(kv["goodput_bps"]),
        "drops": int(kv["drops"]),
        "late_drops": int(kv["late_drops"]),
        "marks": int(kv["marks"]),
        "retransmits": int(kv["retransmits"]),
        "timeouts": int(kv["timeouts"]),
        "carried": float(kv["carried_bps"]),
        "median": percentile(delays, 0.5),
        "p90": percentile(delays, 0.9),
        "disc_median": percentile([float(line.split()[1]) for line in lines], 0.5),
        **{k.replace("_", " "): int(v) for k, v in kv.items() if k.startswith("drop:")},
    }


def median_of(runs: list[dict]) -> dict:
    """Each figure's median over the seeds' runs (a drop reason missing from a run counts 0)."""
    keys = dict.fromkeys(k for r in runs for k in r)
    return {k: statistics.median(r.get(k, 0) for r in runs) for k in keys}


def count(x: float) -> str:
    return f"{x:g}"


def diff(a: float, b: float, bound: float) -> str:
    if b == 0:
        return "" if a == 0 else " !"
    d = (a - b) / b
    return f" ({d:+.0%}{' !' if abs(d) > bound else ''})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--no-sack", action="store_true", help="NewReno's recovery without SACK on both sides")
    ap.add_argument("--ecn", action="store_true", help="ECN at the ends and in the queue")
    ap.add_argument("--initial-ssthresh", type=int, default=0, metavar="SEGMENTS",
                    help="both sides' initial ssthresh (default: unlimited), to take the first slow start's overshoot out")
    ap.add_argument("--ns3-flightsize", action="store_true",
                    help="ns-3's ssthresh on entering recovery from FlightSize, as rampup's, not from its pipe")
    ap.add_argument("--seeds", type=int, default=1, metavar="N",
                    help="run seeds 1 to N on each side and give each figure's median (default: 1)")
    ap.add_argument("--loss-events", action="store_true",
                    help="a third table: each side's drops from 5 s on grouped into loss events per flow (rampup with its packets trace)")
    a = ap.parse_args()
    if a.initial_ssthresh < 0:
        ap.error("--initial-ssthresh: a number of segments, 0 (unlimited) or more")
    if a.seeds < 1:
        ap.error("--seeds: a number of seeds, 1 or more")
    setup = Setup(a.duration, not a.no_sack, a.ecn, a.initial_ssthresh, a.ns3_flightsize, loss_events=a.loss_events)
    need_ns3()
    build_rampup()
    how = ("with SACK" if setup.sack else "without SACK") + (" and ECN" if a.ecn else "")
    how += f", initial ssthresh {a.initial_ssthresh} segments" if a.initial_ssthresh else ""
    how += "; ns-3's ssthresh from FlightSize" if a.ns3_flightsize else ""
    how += f"; medians over seeds 1-{a.seeds}" if a.seeds > 1 else ""
    print(f"{a.duration:g} s, 20 Mb/s, 40 ms RTT, NewReno {how}; delay every {SAMPLE} from {FROM_S:g} s; rampup (difference from ns-3)\n")
    print("| queue | flows | goodput Mb/s ns-3 | rampup | drops ns-3 | rampup | marks ns-3 | rampup | median delay ms ns-3 | rampup | p90 ms ns-3 | rampup |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    counters = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        exe = build_ns3(tmp)
        for kind in KINDS:
            for flows in FLOWS:
                seeded = [replace(setup, seed=seed) for seed in range(1, a.seeds + 1)]
                n = median_of([run_ns3(exe, kind, flows, s, tmp) for s in seeded])
                r = median_of([run_rampup(kind, flows, s, tmp) for s in seeded])
                print(
                    f"| {kind} | {flows} | {n['goodput'] / 1e6:.2f} | {r['goodput'] / 1e6:.2f}{diff(r['goodput'], n['goodput'], 0.05)} "
                    f"| {count(n['drops'])} | {count(r['drops'])}{diff(r['drops'], n['drops'], 0.05)} | {count(n['marks'])} | {count(r['marks'])} "
                    f"| {n['median']:.2f} | {r['median']:.2f}{diff(r['median'], n['median'], 0.10)} | {n['p90']:.2f} | {r['p90']:.2f} |",
                    flush=True,
                )
                counters.append((kind, flows, n, r))
    print(f"\nEach side's own counters: the queue's drops from {FROM_S:g} s on; the senders' retransmitted segments and timeouts;"
          " the bottleneck's carried rate (IP bytes); ns-3's median without its device queue's packet\n")
    print("| queue | flows | drops from 5 s ns-3 | rampup | retransmits ns-3 | rampup | timeouts ns-3 | rampup | carried Mb/s ns-3 | rampup "
          "| median ms, ns-3's queue disc alone | ns-3's drops by reason |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for kind, flows, n, r in counters:
        reasons = ", ".join(f"{k.removeprefix('drop:')} {count(v)}" for k, v in sorted(n.items()) if k.startswith("drop:")) or "none"
        print(
            f"| {kind} | {flows} | {count(n['late_drops'])} | {count(r['late_drops'])}{diff(r['late_drops'], n['late_drops'], 0.05)} "
            f"| {count(n['retransmits'])} | {count(r['retransmits'])} | {count(n['timeouts'])} | {count(r['timeouts'])} "
            f"| {n['carried'] / 1e6:.2f} | {r['carried'] / 1e6:.2f} | {n['disc_median']:.2f} | {reasons} |"
        )
    if a.loss_events:
        print(f"\nLoss events from {FROM_S:g} s on: a flow's drops within {EVENT_S * 1e3:g} ms of its event's first; in step: an event"
              f" begun within {IN_STEP_S * 1e3:g} ms of another flow's; the queue's standard deviation in packets\n")
        print("| queue | flows | events ns-3 | rampup | drops per event ns-3 | rampup | events of 3+ drops ns-3 | rampup "
              "| in step ns-3 | rampup | queue sd ns-3 | rampup |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for kind, flows, n, r in counters:
            print(f"| {kind} | {flows} | {count(n['events'])} | {count(r['events'])} | {n['per_event']:.2f} | {r['per_event']:.2f} "
                  f"| {n['big_events']:.0%} | {r['big_events']:.0%} | {n['in_step']:.0%} | {r['in_step']:.0%} "
                  f"| {n['queue_sd']:.2f} | {r['queue_sd']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
