#!/usr/bin/env python3
"""Where SEARCH (draft-chung-ccwg-search-09) leaves slow start, against the buffer: one bulk
flow per path and buffer, with SEARCH and with plain slow start; print a markdown table.

    python3 validation/search_buffers.py

Paths: 100 Mb/s with 50 and 100 ms base RTT, 20 Mb/s with 50 ms (1 Gb/s, 1 ms access links;
drop-tail buffers of 0.5 to 8 BDPs of 1,040-byte packets); 1000-byte segments, IW 10, SACK,
6 s. For each: when slow start ends and the cwnd then (the flows table's
`slow_start_exit_*`), and the bottleneck's first drop. Explanations: docs/search.md.
"""

from __future__ import annotations

import math

import rampup

SCENARIO = """duration = "6s"
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "1Gbps"
access_delay = "1ms"
bottleneck_rate = "{mbps}Mbps"
bottleneck_delay = "{delay_ms}ms"
bottleneck_queue = {{ packets = {packets} }}
[[flow]]
from = "s0"
to = "r0"
app = {{ kind = "bulk" }}
tcp = {{ mss = 1000, initial_window = 10, recovery = "sack", startup = "{startup}" }}
[trace]
queues = true
"""

PATHS = [(100, 50), (100, 100), (20, 50)]
BUFFERS_BDP = [0.5, 1, 2, 4, 8]
WIRE_BYTES = 1040


def exit_and_drop(mbps: int, rtt_ms: int, packets: int, startup: str) -> tuple[float, float, float]:
    """Slow start's end (ms), cwnd then (segments) and the first drop (ms; NaN: none)."""
    text = SCENARIO.format(mbps=mbps, delay_ms=rtt_ms / 2 - 2, packets=packets, startup=startup)
    out = rampup.run(text)
    flows, queues = out.flows, out.queues
    drops = queues[queues.drops > 0]
    first_drop = drops.t_ns.iloc[0] / 1e6 if len(drops) else math.nan
    return flows.slow_start_exit_ns.iloc[0] / 1e6, flows.slow_start_exit_cwnd_bytes.iloc[0] / 1000, first_drop


def main() -> None:
    print("| path | buffer | SEARCH ends | cwnd (BDPs) | first drop | slow start ends | cwnd (BDPs) |")
    print("|---|---|---|---|---|---|---|")
    for mbps, rtt_ms in PATHS:
        bdp = mbps * 1e6 / 8 * rtt_ms / 1e3 / WIRE_BYTES
        for mult in BUFFERS_BDP:
            packets = int(bdp * mult)
            s_end, s_cwnd, drop = exit_and_drop(mbps, rtt_ms, packets, "search")
            p_end, p_cwnd, _ = exit_and_drop(mbps, rtt_ms, packets, "slow-start")
            shown = "none" if math.isnan(drop) else f"{drop:.1f} ms"
            print(
                f"| {mbps} Mb/s, {rtt_ms} ms | {mult:g} BDP ({packets} packets) | {s_end:.1f} ms | {s_cwnd:.0f} ({s_cwnd / bdp:.1f})"
                f" | {shown} | {p_end:.1f} ms | {p_cwnd:.0f} ({p_cwnd / bdp:.1f}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
