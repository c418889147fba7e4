#!/usr/bin/env python3
"""CUBIC against ns-2.35's Linux agent (Agent/TCP/Linux with `select_ca cubic`); print a
markdown table.

    python3 validation/compare_cubic.py

One bulk flow for 10 s across paper 001's dumbbell (40 Mb/s, 48 ms one way, 1 Gb/s and 1 ms
access links: base RTT 100 ms; 250-packet drop-tail queue; 1000-byte segments, IW 2, an ACK
per segment), in ns-2 (python/rampup/ns2/single_flow.tcl tcp=Linux, needs `ns` on PATH) and in
rampup with CUBIC over SACK recovery, without HyStart (the ns-2 module has none), reducing
from cwnd as Linux does, twice: with RFC 9438's β = 0.7 and with the 0.8 (819/1024) of the
kernel module ns-2.35 carries. Beside packets delivered, drops, retransmissions and timeouts,
the table gives each window reduction: when, and the ssthresh it set.

Exit status 1 if, with β = 0.8, rampup delivers more than 1 % more or fewer packets than ns-2,
or a reduction of the first two comes more than 10 ms apart or sets an ssthresh more than 1 %
apart. Method and explanations: docs/validation.md ("CUBIC").
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from compare_ns2 import NS2_SCRIPT, scenario

DELIVERED_TOLERANCE = 0.01
TIME_TOLERANCE_S = 0.010
SSTHRESH_TOLERANCE = 0.01
ARGS = {"buffer": 250, "ssthresh": 0}
#: What makes rampup's TCP the ns-2 agent's: CUBIC over SACK recovery (RFC 6675; the agent
#: runs Linux 2.6's recovery), the reduction from cwnd, no HyStart.
CUBIC = {"cc": "cubic", "recovery": "sack", "loss_window": "cwnd"}
BETAS = (0.7, 0.8)


def ns2() -> dict:
    """ns-2's counts and its reductions, from the sender's variable trace."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace"
        argv = ["ns", str(NS2_SCRIPT), "tcp=Linux", "ca=cubic", f"trace={trace}"] + [f"{k}={v}" for k, v in ARGS.items()]
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout.split()
        kv = dict(item.split("=", 1) for item in out if "=" in item)
        reductions = []
        for line in trace.read_text().splitlines():
            f = line.split()
            if f[5] == "ssthresh_" and float(f[0]) > 0:
                reductions.append((float(f[0]), int(float(f[6]))))
    return {"delivered": int(kv["delivered_pkts"]), "drops": int(kv["bottleneck_drops"]) + int(kv["ack_path_drops"]),
            "retransmits": int(kv["retransmits"]), "timeouts": int(kv["timeouts"]), "reductions": reductions}


def rampup_run(beta: float) -> dict:
    import rampup

    sc = scenario("Sack1", ARGS, ns2_like=False)
    sc["flow"][0]["tcp"].update({**CUBIC, "cc": {"kind": "cubic", "beta": beta}})
    sc["trace"] = {"timeseries": True, "queues": False}
    r = rampup.run(sc)
    f, ts = r.flows.iloc[0], r.timeseries
    ss = ts["ssthresh_bytes"]
    set_at = ss.notna() & (ss != ss.shift())
    reductions = [(t / 1e9, round(s / 1000)) for t, s in zip(ts["t_ns"][set_at], ss[set_at], strict=True)]
    return {"delivered": int(f["bytes_received"]) // 1000, "drops": int(f["drops"]), "retransmits": int(f["retransmits"]),
            "timeouts": int(f["timeouts"]), "reductions": reductions}


def cells(r: dict) -> list[str]:
    red = ", ".join(f"{t:.3f} s: {s}" for t, s in r["reductions"])
    return [f"{r['delivered']}", f"{r['drops']}", f"{r['retransmits']}", f"{r['timeouts']}", red]


def main() -> int:
    ref = ns2()
    runs = {beta: rampup_run(beta) for beta in BETAS}
    print("| run | delivered | drops | retransmits | timeouts | reductions (time: ssthresh, segments) |")
    print("|---|---:|---:|---:|---:|---|")
    print("| ns-2.35 Agent/TCP/Linux, cubic | " + " | ".join(cells(ref)) + " |")
    for beta, r in runs.items():
        print(f"| rampup cubic, β = {beta} | " + " | ".join(cells(r)) + " |")
    same = runs[0.8]
    failures = []
    if abs(same["delivered"] - ref["delivered"]) > DELIVERED_TOLERANCE * ref["delivered"]:
        failures.append(f"delivered {same['delivered']} against ns-2's {ref['delivered']}")
    for (t, s), (t_ref, s_ref) in zip(same["reductions"][:2], ref["reductions"][:2], strict=False):
        if abs(t - t_ref) > TIME_TOLERANCE_S or abs(s - s_ref) > SSTHRESH_TOLERANCE * s_ref:
            failures.append(f"reduction at {t:.3f} s to {s} against ns-2's at {t_ref:.3f} s to {s_ref}")
    if len(same["reductions"]) < 2 or len(ref["reductions"]) < 2:
        failures.append("fewer than two reductions")
    for f in failures:
        print(f"compare_cubic: β = 0.8: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
