"""What runs: the schemes, one run's scenario and the sweeps of paper 002 §7."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .. import profiles
from ..readings import Reading, todays_bottleneck

RENO, PREEMPTIVE = "reno", "reno+preemptive"
#: Today's repair of a lost tail (RFC 8985), with and without Preemptive on top.
RACK, RACK_PREEMPTIVE = "sack+rack-tlp", "sack+rack-tlp+preemptive"
SCHEMES = (RENO, PREEMPTIVE, RACK, RACK_PREEMPTIVE)


@dataclass(frozen=True)
class Setup:
    """One configuration (everything but the scheme and the seed). The paper gives the
    bottleneck, the delays, the loads and the mechanism's parameters; the rest are our
    readings, stated in the report, and the queue is swept to show what it changes."""

    delay_ms: float = 10.0  # bottleneck one-way delay ("link delay", §7.1)
    utilization: float = 0.5  # PackMime rate from the mean response bytes (`web_rate`)
    queue: int = 50  # packets, DropTail at both ends of the bottleneck: ns-2's default limit_
    factor: float = 3.0  # the multiplication factor k (§5)
    cutout_kib: int = 80  # the cut-out limit (§5: 80 kBytes)
    duration_s: int = 300  # simulated
    tail_s: int = 30  # connections opened in the last tail_s are not measured

    @property
    def measured_until_ns(self) -> int:
        return (self.duration_s - self.tail_s) * 1_000_000_000


def tcp_of(scheme: str, setup: Setup) -> dict[str, Any]:
    """ns-2.35's Full-TCP Reno (the paper's baseline); with Preemptive Retransmission at
    both ends, so that the server, which sends the response, uses its handshake RTT. The
    modern schemes keep every Full-TCP setting but the loss recovery, SACK with RACK-TLP, and
    the RTT timing: RFC 6298's, as RACK-TLP presumes (its probe waits 2·SRTT), not FullTcp's,
    which takes no RTT sample."""
    keys = profiles.tcp(profiles.NS2_FULLTCP, "newreno")
    if scheme in (RACK, RACK_PREEMPTIVE):
        keys |= {"recovery": "sack", "rack_tlp": True, "rto_timing": "rfc6298"}
    if scheme in (PREEMPTIVE, RACK_PREEMPTIVE):
        keys["preemptive"] = {"factor": setup.factor, "cutout": f"{setup.cutout_kib}KiB"}
    return keys


def scenario(scheme: str, setup: Setup, seed: int) -> dict[str, Any]:
    """The scenario (as a dict) of one run: PackMime-HTTP/1.0 from a client cloud to a server
    cloud across a 5 Mb/s dumbbell, `scheme` on `setup`, `seed`'s connections."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme: {scheme!r} is not one of {', '.join(SCHEMES)}")
    # Preemptive's parameters name only the runs that use them, so that a scheme without it
    # is one run (one cache entry) across the factor and cut-out sweeps.
    part = f" k={setup.factor:g} cutout={setup.cutout_kib}KiB" if scheme in (PREEMPTIVE, RACK_PREEMPTIVE) else ""
    return {
        "name": f"preemptive {scheme} d={setup.delay_ms:g}ms u={setup.utilization:g} q={setup.queue}{part}",
        "duration": f"{setup.duration_s}s",
        "seed": seed,
        "header_bytes": 40,
        "ack_bytes": 40,
        "tcp": tcp_of(scheme, setup),
        "topology": {"kind": "dumbbell", "pairs": 1, "access_rate": "100Mbps", "access_delay": "0ms", "bottleneck_rate": "5Mbps",
                     "bottleneck_delay": f"{setup.delay_ms:g}ms", "bottleneck_queue": {"packets": setup.queue}},
        "flow": [{"from": "s0", "to": "r0", "app": {"kind": "web", "utilization": setup.utilization}}],
        "trace": {"timeseries": False, "queues": False},
    }


@dataclass(frozen=True)
class Sweep:
    """A sweep of §7: x values and how each becomes a `Setup`."""

    name: str
    xs: tuple[float, ...]
    make: Callable[[Setup, float], Setup]
    xlabel: str
    #: Schemes run at each x (a scheme without Preemptive is the same run at every x of the
    #: factor and cut-out sweeps, and runs once).
    schemes: tuple[str, ...] = SCHEMES


def sweeps(quick: bool) -> list[Sweep]:
    return [
        Sweep("load", (25, 50, 75), lambda s, x: replace(s, utilization=x / 100), "bottleneck utilization (%)"),
        Sweep("delay", (10, 60), lambda s, x: replace(s, delay_ms=x, utilization=0.25), "one-way delay (ms), 25% utilization"),
        Sweep("factor", (2, 3, 4), lambda s, x: replace(s, factor=x), "multiplication factor k"),
        Sweep("cutout", (40, 80, 160), lambda s, x: replace(s, cutout_kib=int(x)), "cut-out limit (KiB)"),
        Sweep("queue", (25, 50, 100), lambda s, x: replace(s, queue=int(x)), "bottleneck queue (packets)"),
    ]


def base(quick: bool) -> Setup:
    return Setup(duration_s=60, tail_s=10) if quick else Setup()


#: Response sizes whose mean durations the report compares (bytes; 536-byte segments).
SIZE_EDGES = (0, 536, 1608, 5360, 21440, 81920, float("inf"))
SIZE_LABELS = ("1 segment", "2-3", "4-10", "11-40", "41-152", "> 80 KiB")


def _rfc_rto(doc: dict[str, Any]) -> None:
    doc["tcp"]["rto_timing"] = "rfc6298"


def _delayed_acks(doc: dict[str, Any]) -> None:
    doc["tcp"].update(profiles.NS2_35.delayed_ack)


#: The assumptions the verdicts are judged again under (`readings`), on the load and delay
#: sweeps' Reno and Preemptive.
_PAIR = {"sweep": ("load", "delay"), "scheme": (RENO, PREEMPTIVE)}
READINGS = (
    Reading("rfc-rto", "RTT samples set the RTO (RFC 6298)",
            "ns-2's Full-TCP takes no RTT sample, so every timeout waits the 3 s initial RTO (docs/web-workload.md); "
            "a TCP of the paper's time or today's times its RTT.", _rfc_rto, _PAIR, "abcef"),
    Reading("delack", "delayed ACKs (every 2nd segment, 100 ms)",
            "the paper does not say how PackMime's receivers ACK; ns-2's Full-TCP ACKs every segment by default, "
            "TCPSink/DelAck every second one.", _delayed_acks, _PAIR, "abcef"),
    todays_bottleneck(_PAIR, "abcef"),
)
