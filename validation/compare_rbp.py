#!/usr/bin/env python3
"""Paper 000 (RBP) in ns-2 with the authors' agents and in rampup: print a markdown table.

    python3 validation/compare_rbp.py [--bursts 8 24 40] [--seeds 10] [--scale 1] [--jobs 2]

For each burst size (KB; 10 KB queue, 100 ms bottleneck, the Fig. 6/7 set-up) and each scheme,
runs `--seeds` seeds of python/rampup/ns2/rbp.tcl (needs `ns` on PATH; the runs of
`rampup.experiments.rbp.ns2`, the report's ns-2 column, cached in `--cache`) and of the same
scenario in rampup (`rampup.experiments.rbp`, the generator of `rampup reproduce rbp`). Both get
the same start times: seed s's schedule from `rbp.start_times(s)` is the file rbp.tcl reads.
ns-2 agents: reno-ssr / reno-nssr = Agent/TCP/Reno with slow_start_restart_ 1 / 0,
vegas-nssr = Agent/TCP/Vegas, RBP/rate = Agent/TCP/Vegas/RBP (rbp_rate_algorithm_ 1),
RBP/cwnd = Agent/TCP/Reno/RBP, all with rbp_scale_ = `--scale` (default 1, the paper's; ns-2's
own default is 0.75). The 10 KB byte limit becomes 9 packets in ns-2: what it holds of
1040-byte packets in rampup.

Columns: the mean over all restarts (rounds 2-10) of all seeds of the elapsed time and of the
drops per transfer, and retransmissions per transfer; "diff" is rampup relative to ns-2, and the
drop difference also as a mean over seeds of the per-seed differences with its 90% CI (the
seeds pair up: same start times). Rows whose elapsed time or drops differ by more than 15 % are
marked; docs/validation.md explains them. Transfers that never complete (ns-2 Vegas can stop
sending for good, see NS2-NOTES.md) are left out of the means and counted under "incomplete".
Round 1 (startup) is compared in a second table.
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from rampup import _engine, _toml, ns2  # noqa: E402
from rampup.experiments import mean_ci90, rbp  # noqa: E402
from rampup.experiments.rbp.ns2 import AGENT, TCL_SCHEME, job, transfers  # noqa: E402

TOLERANCE = 0.15


def run_rampup(scheme: str, setup: rbp.Setup, seed: int, scale: float) -> pd.DataFrame:
    doc = rbp.scenario(scheme, setup, seed)
    restart = doc["tcp"].get("restart")
    if isinstance(restart, dict) and "scale" in restart:
        restart["scale"] = scale
    raw = _engine.run(_toml.dumps(doc), seed)
    t = pd.DataFrame(raw["tables"]["transfers"])
    return t[["flow", "index", "elapsed_s", "drops", "retransmits"]]


def summary(df: pd.DataFrame, startup: bool = False) -> dict[str, float]:
    r = df[df["index"] == 0] if startup else df[df["index"] >= 1]
    return {"elapsed": r["elapsed_s"].mean(), "drops": r["drops"].mean(), "retx": r["retransmits"].mean(),
            "incomplete": int(r["elapsed_s"].isna().sum())}


def diff(a: float, b: float) -> float:
    """b relative to a; 0 when both are 0."""
    if a == 0:
        return 0.0 if b == 0 else float("inf")
    return b / a - 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bursts", type=int, nargs="+", default=[8, 24, 40], help="burst sizes, KB")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--scale", type=float, default=1.0, help="rbp_scale in both simulators")
    ap.add_argument("--queue", type=int, default=10_000, help="bytes")
    ap.add_argument("--delay", type=float, default=100.0, help="bottleneck one-way delay, ms")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cache", type=Path, default=ROOT / "results" / "cache", help="the run cache (ns-2's runs are cached there)")
    args = ap.parse_args()
    if ns2.missing():
        print(f"compare_rbp: {ns2.missing()}", file=sys.stderr)
        return 2

    cases = [(b, scheme, seed) for b in args.bursts for scheme in TCL_SCHEME for seed in range(1, args.seeds + 1)]
    setups = {b: rbp.Setup(burst=b * 1000, queue=args.queue, delay_ms=args.delay) for b in args.bursts}
    theirs = [transfers(t) for t in ns2.run([job(s, setups[b], seed, args.scale) for b, s, seed in cases], args.cache, args.jobs)[0]]
    with ThreadPoolExecutor(args.jobs) as pool:
        ours = list(pool.map(lambda c: run_rampup(c[1], setups[c[0]], c[2], args.scale), cases))

    print(f"Paper 000 set-up, {args.queue} B queue ({args.queue // 1040} packets of 1040 B), "
          f"{args.delay:g} ms one way, rbp_scale {args.scale:g}, {args.seeds} seeds (same start times in both); "
          "restarts (rounds 2-10), per transfer.\n")
    print("| burst | scheme | ns-2 agent | elapsed ns-2 (s) | elapsed rampup (s) | diff | drops ns-2 | drops rampup "
          "| diff | drops rampup − ns-2, 90% CI | retx ns-2 | retx rampup | flag |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    flagged = 0
    for b in args.bursts:
        for scheme in TCL_SCHEME:
            idx = [i for i, c in enumerate(cases) if c[0] == b and c[1] == scheme]
            n = summary(pd.concat([theirs[i] for i in idx]))
            o = summary(pd.concat([ours[i] for i in idx]))
            de, dd = diff(n["elapsed"], o["elapsed"]), diff(n["drops"], o["drops"])
            # Paired by seed (same start times): is the drop difference more than noise?
            paired = [summary(ours[i])["drops"] - summary(theirs[i])["drops"] for i in idx]
            dm, dci = mean_ci90(paired)
            over = []
            if abs(de) > TOLERANCE:
                over.append("elapsed")
            if abs(dd) > TOLERANCE:
                over.append("drops" + (" (CI includes 0)" if abs(dm) <= dci else ""))
            flagged += bool(over)
            flag = [f"> {TOLERANCE:.0%}: " + ", ".join(over)] if over else []
            if n["incomplete"] or o["incomplete"]:
                flag.append(f"incomplete {n['incomplete']}/{o['incomplete']}")
            print(f"| {b} KB | {scheme} | {AGENT[scheme]} | {n['elapsed']:.3f} | {o['elapsed']:.3f} | {de:+.1%} "
                  f"| {n['drops']:.2f} | {o['drops']:.2f} | {dd:+.0%} | {dm:+.2f} ± {dci:.2f} "
                  f"| {n['retx']:.2f} | {o['retx']:.2f} "
                  f"| {'; '.join(flag)} |")
    print(f"\n{flagged} rows differ by more than {TOLERANCE:.0%} in elapsed time or drops (see docs/validation.md).")

    print("\nRound 1 (startup: no restart policy acts yet), per transfer.\n")
    print("| burst | scheme | elapsed ns-2 (s) | elapsed rampup (s) | diff | drops ns-2 | drops rampup |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for b in args.bursts:
        for scheme in TCL_SCHEME:
            idx = [i for i, c in enumerate(cases) if c[0] == b and c[1] == scheme]
            n = summary(pd.concat([theirs[i] for i in idx]), startup=True)
            o = summary(pd.concat([ours[i] for i in idx]), startup=True)
            print(f"| {b} KB | {scheme} | {n['elapsed']:.3f} | {o['elapsed']:.3f} | "
                  f"{diff(n['elapsed'], o['elapsed']):+.1%} | {n['drops']:.2f} | {o['drops']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
