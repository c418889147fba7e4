#!/usr/bin/env python3
"""Cross-check paper 003's baseline, standard TCP under a rate-limited source, against ns-2.35.

    python3 validation/compare_newcwv.py

One flow of scenarios/rate-limited.toml: a 512 kb/s application over 100 Mb/s with 100 ms
one way, idle from 10 s to 15 s, at 12 kb/s from 20 s to 25 s. ns-2 runs it with
Agent/TCP/Sack1 and a CBR application (python/rampup/ns2/ratelimited.tcl, `ns` on PATH);
rampup with restart = "ssr" and the settings ns-2 has here: no handshake, an initial window
of one segment (ns-2's restart window after an idle is one segment, whatever its initial
window), SACK, no delayed ACKs, a minimum RTO of 1 s.

It compares what RFC 5681 says of such a sender:
- cwnd grows on every ACK while the application limits the sender;
- after an idle longer than the RTO it restarts from the restart window and slow-starts.

Prints a markdown table. Exit status 1 if a cwnd differs by more than 2 segments or a time by
more than 0.1 s. Method: docs/validation.md ("Rate-limited source").
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from rampup import _engine  # noqa: E402 -- from this checkout
from rampup import ns2 as ns2_runs  # noqa: E402
from rampup.experiments.newcwv.runs import behind_s  # noqa: E402

SCENARIO = ROOT / "scenarios" / "rate-limited.toml"
DURATION_S = 30
ONE_WAY_S = 0.1
#: ns-2's sink counts packets with their 40 header bytes.
NS2_PACKET, PAYLOAD = 1040, 1000


def ns2() -> dict[str, float]:
    s = ns2_runs.run([ns2_runs.Ns2Job("ratelimited.tcl", (str(DURATION_S),))], None)[0][0]["sample"]
    rows = list(zip(s["t"].astype(float), s["bytes"].astype(float), s["cwnd"].astype(float), strict=True))
    # Row k is the state at k × 100 ms; the data of the bin [t, t + 0.1) is the growth to the next row.
    times = [r[0] for r in rows[:-1]]
    data = [(b[1] - a[1]) / NS2_PACKET * PAYLOAD for a, b in zip(rows, rows[1:], strict=False)]
    cwnd = {round(r[0], 1): r[2] for r in rows}
    return figures(times, data, lambda t: cwnd[round(t, 1)])


def rampup() -> dict[str, float]:
    text = SCENARIO.read_text().replace('restart = "new-cwv"', 'restart = "ssr"\nhandshake = false\ninitial_window = 1')
    tables = _engine.run(text)["tables"]
    tp, ts = tables["throughput"], tables["timeseries"]
    times = [t / 1e9 for t in tp["t_ns"]]
    state = sorted(zip(ts["t_ns"], ts["cwnd_bytes"], strict=True))

    def cwnd_at(t: float) -> float:
        before = [c for at, c in state if at <= t * 1e9]
        return before[-1] / PAYLOAD

    return figures(times, [float(d) for d in tp["data_bytes"]], cwnd_at)


def figures(times: list[float], data: list[float], cwnd_at) -> dict[str, float]:  # type: ignore[no-untyped-def]
    return {
        "cwnd before the idle (9.9 s), segments": cwnd_at(9.9),
        "seconds behind the application after the idle (from 15 s)": behind_s(times, data, 15.0, ONE_WAY_S),
        "cwnd after 5 s at 12 kb/s (24.9 s), segments": cwnd_at(24.9),
        "seconds behind the application after 12 kb/s (from 25 s)": behind_s(times, data, 25.0, ONE_WAY_S),
    }


def main() -> int:
    if shutil.which("ns") is None:
        print("compare_newcwv: `ns` is not on the PATH (apt-get install ns2)", file=sys.stderr)
        return 2
    theirs, ours = ns2(), rampup()
    print("| figure | ns-2.35 | rampup | agrees |")
    print("|---|---|---|---|")
    ok = True
    for name, v in theirs.items():
        tolerance = 2 if "cwnd" in name else 0.1
        agrees = abs(ours[name] - v) <= tolerance + 1e-9
        ok &= agrees
        print(f"| {name} | {v:g} | {ours[name]:g} | {'yes' if agrees else 'no'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
