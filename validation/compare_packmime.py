#!/usr/bin/env python3
"""Cross-check rampup's PackMime-HTTP web workload against ns-2.35's PackMimeHTTP.

    python3 validation/compare_packmime.py [--seeds 5] [--duration 300]

For rates that fill about 25 %, 50 % and 75 % of a 5 Mb/s bottleneck (10 ms one way, DropTail
of 50 packets, HTTP/1.0, Full-TCP Reno with ns-2's defaults), each seed is run in ns-2
(python/rampup/ns2/packmime.tcl, `ns` on PATH) and in rampup (scenarios/web.toml at the same
rate, through the Python API). Prints a markdown table of the means over seeds: connections
started, mean and median request and response sizes of the exchanges whose request reached the
server (ns-2: as its server sends the response; rampup: the sizes drawn for them), bottleneck
utilization (wire bytes departing the server->client bottleneck), and mean duration from the
SYN to the last byte of the response; with rampup / ns-2, each simulator's range over the seeds,
and whether the ratio lies within 5 % (workload) or 15 % (duration). Means of the heavy-tailed
sizes (the responses' tail has an index near 1.2: a finite mean, an infinite variance) move by
more than 5 % from seed to seed in either simulator; where the ratio is outside the tolerance
but rampup's mean lies within ns-2's own range over the seeds, the verdict says "spread".
Exit status 1 if a workload figure is off by more than 5 % and outside ns-2's range.
Method and explanations: docs/validation.md ("Web workload").
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from rampup import ns2  # noqa: E402 -- from this checkout
from rampup.experiments.preemptive.ns2 import packmime_job  # noqa: E402

SCENARIO = ROOT / "scenarios" / "web.toml"
BOTTLENECK_BPS = 5e6
DELAY_MS = 10
QUEUE_PACKETS = 50
UTILIZATIONS = (0.25, 0.5, 0.75)
WORKLOAD_TOLERANCE = 0.05
DURATION_TOLERANCE = 0.15
FIGURES = ("connections", "request mean", "request median", "response mean", "response median", "utilization", "duration mean (ms)")


def rampup_rate(utilization: float) -> float:
    import rampup

    text = SCENARIO.read_text().replace("utilization = 0.5", f"utilization = {utilization}")
    return float(rampup.inspect(text)["web_rate"][0])


def run_ns2(rate: float, seeds: range, duration: int) -> list[dict[str, float]]:
    """PackMime in ns-2, one run per seed in parallel, as the report of `rampup reproduce
    preemptive` runs it (`rampup.ns2`)."""
    out = []
    for t in ns2.run([packmime_job(rate, DELAY_MS, QUEUE_PACKETS, duration, s) for s in seeds], None)[0]:
        sent, done, summary = t["sent"], t["responses"], t["summary"].iloc[0]
        out.append(figures(int(summary["connections"]), list(sent["request_bytes"]), list(sent["response_bytes"]),
                           int(summary["bytes_down"]), list(done["duration_ms"]), duration))
    return out


def run_rampup(rate: float, seed: int, duration: int) -> dict[str, float]:
    import rampup

    text = SCENARIO.read_text().replace("utilization = 0.5", f"rate = {rate:.6f}").replace('duration = "300s"', f'duration = "{duration}s"')
    out = rampup.run(text, seed=seed)
    c = out.connections
    done = c[c["duration_ns"].notna()]
    asked = c[c["bytes_up"] == c["request_bytes"]]
    links = out.links.set_index("link")
    return figures(len(c), list(asked["request_bytes"]), list(asked["response_bytes"]), int(links.loc["right->left", "tx_bytes"]),
                   list(done["duration_ns"] / 1e6), duration)


def figures(started: int, req: list[float], rsp: list[float], wire_bytes: int, dur_ms: list[float], duration: int) -> dict[str, float]:
    return {
        "connections": started,
        "request mean": statistics.fmean(req),
        "request median": statistics.median(req),
        "response mean": statistics.fmean(rsp),
        "response median": statistics.median(rsp),
        "utilization": wire_bytes * 8 / (duration * BOTTLENECK_BPS),
        "duration mean (ms)": statistics.fmean(dur_ms),
    }


def num(v: float) -> str:
    return f"{v:.3f}" if abs(v) < 10 else f"{v:,.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", type=int, default=300, help="simulated seconds per run")
    args = ap.parse_args()
    if shutil.which("ns") is None:
        print("ns-2 (`ns`) is not on PATH: apt-get install ns2", file=sys.stderr)
        return 2
    failed = False
    print(f"Means over seeds 1..{args.seeds}, {args.duration} s each; ratio = rampup / ns-2.\n")
    print("| utilization | rate (conn/s) | figure | ns-2 | ns-2 seeds | rampup | rampup seeds | ratio | within |")
    print("|---|---|---|---|---|---|---|---|---|")
    for u in UTILIZATIONS:
        rate = rampup_rate(u)
        theirs = run_ns2(rate, range(1, args.seeds + 1), args.duration)
        ours = [run_rampup(rate, s, args.duration) for s in range(1, args.seeds + 1)]
        for f in FIGURES:
            xs, ys = [r[f] for r in theirs], [r[f] for r in ours]
            a, b = statistics.fmean(xs), statistics.fmean(ys)
            tol = DURATION_TOLERANCE if f.startswith("duration") else WORKLOAD_TOLERANCE
            verdict = "yes" if abs(b / a - 1) <= tol else "spread" if min(xs) <= b <= max(xs) else "no"
            failed |= verdict == "no" and tol == WORKLOAD_TOLERANCE
            print(f"| {u:.0%} | {rate:.2f} | {f} | {num(a)} | {num(min(xs))}–{num(max(xs))} | {num(b)} | {num(min(ys))}–{num(max(ys))} "
                  f"| {b / a:.3f} | {verdict} ({tol:.0%}) |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
