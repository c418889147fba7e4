"""What runs: the schemes, one run's scenario, the sweeps of Figures 6-10 and the variants."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import profiles
from ..readings import fq_codel_ecn

#: The paper's labels -> rampup TCP settings. The paper's "Reno" is Reno recovery; its
#: RBP is RBP/rate over Vegas with scale 1 (§3.4); RBP/cwnd runs over Reno (§3.3).
SCHEMES: dict[str, dict[str, Any]] = {
    "reno-ssr": {"cc": "newreno", "recovery": "reno", "restart": "ssr"},
    "reno-nssr": {"cc": "newreno", "recovery": "reno", "restart": "nssr"},
    "vegas-nssr": {"cc": "vegas", "recovery": "reno", "restart": "nssr"},
    "RBP/rate": {"cc": "vegas", "recovery": "reno", "restart": {"kind": "rbp-rate", "scale": 1.0}},
    "RBP/cwnd": {"cc": "newreno", "recovery": "reno", "restart": {"kind": "rbp-cwnd", "scale": 1.0}},
    # Then and now: today's Linux on the same path, with the paper's segment size. Its default
    # restart (tcp_slow_start_after_idle = 1); with the fq qdisc, pacing after an idle that
    # keeps cwnd (tcp_slow_start_after_idle = 0), RBP's closest descendant; and RBP on it.
    "linux-ssr": {"profile": "linux"},
    "linux-pacing": {"profile": "linux", "restart": "nssr", "pacing": "linux"},
    "linux-rbp": {"profile": "linux", "restart": {"kind": "rbp-rate", "scale": 1.0}},
    # And the standards track's answer: each response on a new connection to the client,
    # which resumes from what the previous one saved (draft-ietf-tsvwg-careful-resume,
    # docs/careful-resume.md).
    "linux-cr": {"profile": "linux", "restart": "careful-resume"},
}
NSSR, SSR, VEGAS, RBP, RBP_CWND = "reno-nssr", "reno-ssr", "vegas-nssr", "RBP/rate", "RBP/cwnd"
LINUX_SSR, LINUX_PACING, LINUX_RBP, LINUX_CR = "linux-ssr", "linux-pacing", "linux-rbp", "linux-cr"
#: Today's schemes, run in the main variant only (the variants are about the paper's TCP).
MODERN = (LINUX_SSR, LINUX_PACING, LINUX_RBP, LINUX_CR)
#: The schemes whose responses each go on a connection of their own (`scenario`).
NEW_CONNECTIONS = (LINUX_CR,)
#: Then and now: (the paper's mechanism, today's scheme) pairs compared claim by claim.
THEN_NOW_PAIRS = ((RBP, LINUX_SSR), (LINUX_RBP, LINUX_SSR), (LINUX_RBP, LINUX_PACING), (RBP, LINUX_CR), (LINUX_RBP, LINUX_CR))

#: Profiles of the loss response and Vegas details: "ns2" models ns-2's agents (the
#: paper's simulator; docs/validation.md), "rfc" keeps rampup's defaults (RFC 5681 / Linux).
#: Every scheme runs on ns 2.0b17's timers and windows (`profiles.NS2_0B17`) in both.
PROFILES = {"ns2": profiles.NS2_35, "rfc": profiles.RFC}


@dataclass(frozen=True)
class Setup:
    """One experiment configuration (everything but the scheme and the seed)."""

    burst: int = 24_000  # bytes per response
    queue: int = 10_000  # bytes, SR<->CR drop-tail limit (both directions)
    #: The limit counted in packets of the paper's 1,000-byte segments instead (10 and 24), as
    #: ns-2's drop-tail queue counts: a reading of "a 10 KB queue".
    queue_in_packets: bool = False
    delay_ms: float = 100.0  # bottleneck one-way delay
    mss: int = 1000
    profile: str = "ns2"
    #: The CR-SR queue managed by FQ-CoDel with ECN marks at the same limit, ECN at both
    #: ends (`readings.fq_codel_ecn`): today's bottleneck.
    todays_queue: bool = False
    clients: int = 10
    rounds: int = 10
    gap_s: float = 120.0  # between round centres
    first_s: float = 5.0  # centre of round 1
    jitter_s: float = 1.5  # starts uniform in centre ± jitter
    tail_s: float = 120.0  # simulated after the last round's window

    @property
    def segments(self) -> int:
        """Segments of one response."""
        return -(-self.burst // self.mss)


def start_times(seed: int, setup: Setup = Setup()) -> np.ndarray:
    """Start time (s) of each round's response to each client, shape (rounds, clients).

    Drawn from ``numpy.random.default_rng(seed)`` only: the same for every scheme, burst size,
    queue and delay, so comparisons between them use common random numbers."""
    rng = np.random.default_rng(seed)
    offsets = rng.uniform(-setup.jitter_s, setup.jitter_s, size=(setup.rounds, setup.clients))
    centres = setup.first_s + setup.gap_s * np.arange(setup.rounds)
    # Whole microseconds, as written into the scenario.
    return np.round((centres[:, None] + offsets) * 1e6) / 1e6


def _time(seconds: float) -> str:
    return f"{round(seconds * 1e6)}us"


def tcp_of(scheme: str, setup: Setup) -> dict[str, Any]:
    """The [tcp] table of ``scheme``: its settings on ns 2.0b17's TCP, with the profile's
    loss response (and Vegas details); today's schemes on their own profile."""
    s = SCHEMES[scheme]
    if scheme in MODERN:
        return {**s, "mss": setup.mss}
    return {**s, **profiles.NS2_0B17.base, "mss": setup.mss, **profiles.tcp(PROFILES[setup.profile], s["cc"], base=False, policy=s["restart"])}


def scenario(scheme: str, setup: Setup, seed: int) -> dict[str, Any]:
    """The scenario (as a dict) of one run: `scheme` on `setup` with `seed`'s schedule."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme: {scheme!r} is not one of {', '.join(SCHEMES)}")
    if setup.profile not in PROFILES:
        raise ValueError(f"profile: {setup.profile!r} is not one of {', '.join(PROFILES)}")
    clients = [f"c{i}" for i in range(setup.clients)]
    links = [{"a": c, "b": "CR", "rate": "10Mbps", "delay": "1ms", "queue": {"packets": 1000}} for c in clients]
    limit = {"packets": setup.queue // 1000} if setup.queue_in_packets else {"bytes": setup.queue}
    tcp = tcp_of(scheme, setup)
    if setup.todays_queue:
        fq_codel_ecn(limit, tcp)
    links.append({"a": "CR", "b": "SR", "rate": "800kbps", "delay": _time(setup.delay_ms / 1e3), "queue": limit})
    links.append({"a": "SR", "b": "server", "rate": "10Mbps", "delay": "1ms", "queue": {"packets": 1000}})
    starts = start_times(seed, setup)
    if scheme in NEW_CONNECTIONS:
        # Flow r × clients + i is round r's response to client i, on its own connection
        # opened at the write's time: a later connection between the same two hosts resumes
        # from what the earlier saved.
        flows = [{"from": "server", "to": c, "start": _time(starts[r, i]), "app": {"kind": "bulk", "bytes": setup.burst}}
                 for r in range(setup.rounds) for i, c in enumerate(clients)]
    else:
        flows = [{"from": "server", "to": c, "start": "0s",
                  "app": {"kind": "writes", "schedule": [{"at": _time(starts[r, i]), "bytes": setup.burst} for r in range(setup.rounds)]}}
                 for i, c in enumerate(clients)]
    end = setup.first_s + setup.gap_s * (setup.rounds - 1) + setup.jitter_s + setup.tail_s
    return {
        "name": f"rbp {scheme} B={setup.burst} Q={setup.queue}{'p' if setup.queue_in_packets else ''} d={setup.delay_ms:g}ms "
                f"mss={setup.mss} {setup.profile}{' fq-codel+ecn' if setup.todays_queue else ''}",
        "duration": _time(end),
        "seed": seed,
        "tcp": tcp,
        "topology": {"kind": "custom", "nodes": [*clients, "CR", "SR", "server"], "link": links},
        "flow": flows,
        "trace": {"timeseries": False, "queues": False},
    }


BURSTS_KB = list(range(2, 41, 2))
DELAYS_MS = [25, 50, 100, 200, 300, 400, 600, 800]
QUICK_BURSTS_KB = [4, 10, 24, 40]
QUICK_DELAYS_MS = [50, 200, 800]


@dataclass(frozen=True)
class Sweep:
    """A paper figure's sweep: x values and how each becomes a `Setup`."""

    name: str  # "burst" (Fig. 6, 7), "delay24" (Fig. 8, 9), "delay10" (Fig. 10)
    xs: tuple[float, ...]
    make: Callable[[Setup, float], Setup]
    xlabel: str


def sweeps(quick: bool) -> list[Sweep]:
    bursts = QUICK_BURSTS_KB if quick else BURSTS_KB
    delays = QUICK_DELAYS_MS if quick else DELAYS_MS
    return [
        Sweep("burst", tuple(bursts), lambda s, x: replace(s, burst=int(x * 1000), queue=10_000, delay_ms=100.0), "burst size (KB)"),
        Sweep("delay24", tuple(delays), lambda s, x: replace(s, burst=24_000, queue=24_000, delay_ms=float(x)),
              "bottleneck one-way delay (ms)"),
        Sweep("delay10", tuple(delays), lambda s, x: replace(s, burst=24_000, queue=10_000, delay_ms=float(x)),
              "bottleneck one-way delay (ms)"),
    ]


#: Variants of the whole experiment: the main one and two robustness checks.
VARIANTS: dict[str, tuple[Setup, str]] = {
    "main": (Setup(), "mss 1000, ns-2-like loss response (the paper's simulator)"),
    "mss512": (Setup(mss=512), "mss 512 (the paper does not give its segment size)"),
    "rfc": (Setup(profile="rfc"), "rampup's RFC defaults for the loss response and Vegas instead of ns-2's"),
    "packets": (Setup(queue_in_packets=True), "the queue counted in packets (10 and 24), as ns-2's drop-tail counts"),
    "fq-codel+ecn": (Setup(todays_queue=True), "today's bottleneck: the CR-SR queue managed by FQ-CoDel with ECN marks (RFC 8290, RFC 3168)"),
}
