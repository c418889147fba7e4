"""What runs: the stacks, one run's striped request and the figures of paper 004 §5.

The paper gives the LAN (1 ms per link, 30 buffers per switch output port, 100baseT, OC-3 and
OC-12 links), the striped request over n = 1…8 servers, at least ten runs per point and the
baseline (4.4BSD's "Big Windows" TCP). The rest are our readings, stated in the report
(`SETUP`): the hosts' own interface queues, the receive window, the transfer sizes, the
jitter and the spread of the starts, and vrate's period and combination rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..readings import Reading, todays_bottleneck
from .striped import Striped

OC3, OC12, FAST = 155_000_000, 622_000_000, 100_000_000

BTCP, VRATE, VRATE_MIN, PACING, SHARING, VRATE_GAIN, VRATE_100US, VRATE_1MS = (
    "btcp", "vrate", "vrate-min-rtt", "linux-pacing", "rfc9040-sharing", "vrate-gain-1.25", "vrate-100us", "vrate-1ms")
#: btcp: 4.4BSD-Lite's TCP (docs/bsd44.md) with a large receive window ("Big Windows").
BTCP_TCP: dict[str, Any] = {"profile": "bsd44", "rcv_window": "256KB"}
#: Linux's pacing (200 % of cwnd / srtt in slow start, 120 % after) needs a precise srtt,
#: which BSD's 500 ms ticks do not give: these runs time the RTT by RFC 6298 on a 1 ms clock
#: and keep btcp's other keys (its 1 s least RTO among them).
PACING_TCP: dict[str, Any] = {**BTCP_TCP, "pacing": "linux", "rto_rule": "rfc6298", "clock_granularity": "1ms"}
#: vrate's wheel: 10 us lets it shape every rate of these links (a 1,000-byte payload takes
#: 12.9 us at 622 Mb/s); the period sweep shows 100 us and the default 1 ms.
PERIOD = "10us"
#: Each stack: its [flow.tcp] keys, its [vrate] table (None: no vrate) and whether the
#: connections of a host share one window (RFC 9040 ensemble sharing, `share`).
STACKS: dict[str, tuple[dict[str, Any], dict[str, Any] | None, bool]] = {
    BTCP: (BTCP_TCP, None, False),
    VRATE: (BTCP_TCP, {"period": PERIOD, "combine": "sum"}, False),
    VRATE_MIN: (BTCP_TCP, {"period": PERIOD, "combine": "sum-min-rtt"}, False),
    PACING: (PACING_TCP, None, False),
    SHARING: (BTCP_TCP, None, True),
    VRATE_GAIN: (BTCP_TCP, {"period": PERIOD, "combine": "sum", "gain": 1.25}, False),
    VRATE_100US: (BTCP_TCP, {"period": "100us", "combine": "sum"}, False),
    VRATE_1MS: (BTCP_TCP, {"period": "1ms", "combine": "sum"}, False),
}
#: The stacks of Fig. 4 and 5 (with the modern relatives), and of Fig. 1 and 6.
MAIN = (BTCP, VRATE, VRATE_MIN, PACING, SHARING)
PAIR = (BTCP, VRATE)
#: What the rules table adds at two and four servers: a gain, and the wheel's longer periods.
VARIANTS = (VRATE_GAIN, VRATE_100US, VRATE_1MS)

#: Bytes per server: the paper does not give them; two sizes show whether the size changes
#: the conclusion.
SIZES_MB = (2, 8)
#: Each host's own interface queue (packets): the paper models the switch's buffers only, so
#: a host holds what it sends rather than dropping it.
HOST_QUEUE = 1000
JITTER, START_JITTER = "20us", "1ms"


@dataclass(frozen=True)
class Case:
    """One figure's set-up: who reads or writes over which links, with n servers."""

    fig: str
    client_bps: int
    server_bps: int
    write: bool
    clients: int = 1

    def striped(self, stack: str, servers: int, size_mb: int) -> Striped:
        tcp, vrate, share = STACKS[stack]
        return Striped(servers=servers, bytes_per_server=size_mb * 1_000_000, client_rate_bps=self.client_bps,
                       server_rate_bps=self.server_bps, write=self.write, clients=self.clients, host_queue_packets=HOST_QUEUE,
                       jitter=JITTER, start_jitter=START_JITTER, tcp=tcp, vrate=vrate, share=share)


FIG1 = Case("1", OC3, FAST, write=False)
FIG4 = Case("4", OC12, FAST, write=False)
FIG5 = Case("5", OC12, FAST, write=True)


def fig6(clients: int) -> Case:
    return Case("6", FAST, FAST, write=True, clients=clients)


def scenario(case: Case, stack: str, servers: int, size_mb: int, seed: int, trace: bool = False) -> dict[str, Any]:
    """One run: the case's striped request(s) over `servers` servers; with `trace`, the
    senders' state over time (Fig. 1's sequence numbers)."""
    doc = case.striped(stack, servers, size_mb).scenario()
    doc["name"] = f"vrate fig{case.fig} {stack} n={servers} clients={case.clients} {size_mb}MB"
    doc["seed"] = seed
    if trace:
        doc["trace"] = {"timeseries": True, "queues": False}
    return doc


def _hosts_drop(doc: dict[str, Any]) -> None:
    doc["topology"]["host_queue"] = {"packets": 100}


def _rfc_rto(doc: dict[str, Any]) -> None:
    for flow in doc["flow"]:
        flow["tcp"] = {**flow["tcp"], "rto_rule": "rfc6298", "clock_granularity": "1ms"}


#: The assumptions the verdicts are judged again under (`readings`), on Fig. 4 and 5's btcp and vrate.
_PAIR = {"fig": ("4", "5"), "scheme": PAIR}
READINGS = (
    Reading("hosts-drop", "a host queue of 100 packets",
            f"the paper models the switch's buffers only; rampup gives each host a queue of {HOST_QUEUE} packets, so a "
            "host holds what it sends rather than dropping it.", _hosts_drop, _PAIR, "abcd"),
    Reading("rfc-rto", "RTT timed by RFC 6298 on a 1 ms clock",
            "the paper's x-kernel TCP is \"Big Windows\" TCP with no timer details; rampup's btcp is 4.4BSD-Lite's, "
            "whose 500 ms ticks and 1 s least RTO make every stall long.", _rfc_rto, _PAIR, "abcd"),
    todays_bottleneck(_PAIR, "abcd"),
)
