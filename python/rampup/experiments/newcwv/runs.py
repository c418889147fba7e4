"""What runs: the schemes, one run's scenario and the sweeps of paper 003 §4."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from .. import profiles
from ..readings import Reading, todays_bottleneck

STANDARD, CWV, NEWCWV, NEWCWV_RW, NEWCWV_STD, NEWCWV_RFC, PADDING, CAREFUL_RESUME = (
    "standard", "tcp-cwv", "new-cwv", "new-cwv-rw", "new-cwv-std", "new-cwv-rfc7661", "padding", "careful-resume")
#: Each scheme's restart keys and whether its application pads. new-CWV is the paper's form
#: with its three loss responses ((D − R)/2, the restart window, the standard one); RFC
#: 7661's form beside them.
SCHEMES: dict[str, tuple[dict[str, Any], bool]] = {
    STANDARD: ({"restart": "ssr"}, False),
    CWV: ({"restart": "cwv"}, False),
    NEWCWV: ({"restart": {"kind": "new-cwv", "form": "paper", "loss_response": "half-used"}}, False),
    NEWCWV_RW: ({"restart": {"kind": "new-cwv", "form": "paper", "loss_response": "restart-window"}}, False),
    NEWCWV_STD: ({"restart": {"kind": "new-cwv", "form": "paper", "loss_response": "standard"}}, False),
    NEWCWV_RFC: ({"restart": {"kind": "new-cwv", "form": "rfc7661", "loss_response": "half-used"}}, False),
    PADDING: ({"restart": "ssr"}, True),
    # The standards track's answer: the restart on a new connection between the same hosts,
    # resuming from what the connection before the idle saved (draft-ietf-tsvwg-careful-resume,
    # docs/careful-resume.md). Idle sweeps only: a sender at 12 kb/s keeps its connection.
    CAREFUL_RESUME: ({"restart": "careful-resume"}, False),
}
#: The schemes that restart on a connection of their own (`scenario`).
NEW_CONNECTIONS = (CAREFUL_RESUME,)
#: The schemes of the sweeps where the flows keep sending through the pause.
KEEP_CONNECTION = tuple(s for s in SCHEMES if s not in NEW_CONNECTIONS)
#: The schemes of Fig. 2 and 3, and of the RTT sweep.
FIG23 = (STANDARD, CWV, NEWCWV)
RTT_SCHEMES = (STANDARD, NEWCWV, NEWCWV_RW, NEWCWV_STD)

#: The application's rate (kb/s), its rate while application-limited (Fig. 6/7), and the
#: bottleneck's capacity from the pause on (Mb/s).
APP_KBPS, LIMITED_KBPS, LOW_MBPS = 512, 12, 2
#: When the flows pause (and the capacity drops), and for how long (§4).
PAUSE_S, PAUSE_LEN_S = 28, 5
#: After the restart, the received rate is measured over MEASURE_S and the drops over the
#: first DROP_RTTS round trips.
MEASURE_S, DROP_RTTS = 10, 10


def behind_s(times_s: Iterable[float], data_bytes: Iterable[float], start_s: float, one_way_s: float) -> float:
    """Seconds after `start_s` during which the data received since then, in the 100 ms
    bins that start at `times_s` (the throughput table's), fell behind what an application
    of APP_KBPS wrote one one-way delay earlier by more than two 1000-byte writes: how long a
    restart took to reach the application's rate (0: it never fell behind), over the 4 s
    after `start_s`. crates/sim/tests/rate_limited.rs measures it the same way."""
    got, last = 0.0, start_s
    for t, data in zip(times_s, data_bytes, strict=True):
        if t + 0.1 <= start_s + 1e-9 or t >= start_s + 4:
            continue
        got += data
        if got < APP_KBPS * 1000 / 8 * (t + 0.1 - start_s - one_way_s) - 2000:
            last = t + 0.1
    return round(last - start_s, 1)


@dataclass(frozen=True)
class Setup:
    """One configuration. The paper gives the topology, the rates, the times, SACK, no
    Nagle or delayed ACKs and the minimum RTO; the rest are our readings, stated in the
    report."""

    kind: str = "idle"  # "idle" (Fig. 4/5) or "limited" (Fig. 6/7)
    flows: int = 16
    rtt_ms: float = 200.0  # the bottleneck's 100 ms one way, twice
    drop: bool = True  # the capacity falls to LOW_MBPS at the pause (False: Fig. 2/3's clean path)
    queue: int = 0  # bottleneck queue in packets; 0: one BDP of the 100 Mb/s path (§4)

    @property
    def restart_s(self) -> float:
        return PAUSE_S + PAUSE_LEN_S

    @property
    def duration_s(self) -> float:
        # The flows restart within 1 s of restart_s; each is measured for MEASURE_S.
        return self.restart_s + 1 + MEASURE_S

    @property
    def queue_packets(self) -> int:
        """One BDP of the 100 Mb/s path in 1040-byte packets (§4: "a queue size set to the
        bandwidth-delay product"), unless `queue` gives it."""
        return self.queue or round(100e6 * self.rtt_ms / 1000 / 8 / 1040)

    @property
    def fair_share_kbps(self) -> float:
        """The TCP fair share after the pause: the capacity split evenly, at most the
        application's rate."""
        return min(APP_KBPS, (LOW_MBPS * 1000 if self.drop else 100_000) / self.flows)


def tcp_of(scheme: str) -> dict[str, Any]:
    """§4: SACK, Nagle and delayed ACKs off, minimum RTO 1 s; the scheme's restart policy."""
    return {"recovery": "sack", "delayed_ack": False, "nagle": False, "min_rto": "1s", **SCHEMES[scheme][0]}


def scenario(scheme: str, setup: Setup, seed: int) -> dict[str, Any]:
    """One run: `setup.flows` rate-limited flows over the §4 dumbbell, each starting within
    1 s, pausing (or slowing to LIMITED_KBPS) at PAUSE_S for PAUSE_LEN_S and restarting
    within 1 s; with `drop`, the bottleneck falls to LOW_MBPS at the pause and stays there."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme: {scheme!r} is not one of {', '.join(SCHEMES)}")
    low = "0bps" if setup.kind == "idle" else f"{LIMITED_KBPS}kbps"
    app: dict[str, Any] = {"kind": "rate-limited", "rate": f"{APP_KBPS}kbps", "chunk": 1000, "padding": SCHEMES[scheme][1],
           "phases": [{"at": f"{PAUSE_S}s", "rate": low, "name": setup.kind},
                      {"at": f"{setup.restart_s:g}s", "within": "1s", "rate": f"{APP_KBPS}kbps", "name": "restart"}]}
    doc: dict[str, Any] = {
        "name": f"newcwv {scheme} {setup.kind} n={setup.flows} rtt={setup.rtt_ms:g}ms{'' if setup.drop else ' clean'}",
        "duration": f"{setup.duration_s:g}s",
        "seed": seed,
        "header_bytes": 40,
        "tcp": tcp_of(scheme),
        "topology": {"kind": "dumbbell", "pairs": setup.flows, "access_rate": "100Mbps", "access_delay": "0ms",
                     "bottleneck_rate": "100Mbps", "bottleneck_delay": f"{setup.rtt_ms / 2:g}ms",
                     "bottleneck_queue": {"packets": setup.queue_packets}},
        "flow": [{"from": f"s{i}", "to": f"r{i}", "start": "0s", "start_jitter": "1s", "app": app} for i in range(setup.flows)],
        "trace": {"timeseries": False, "queues": True, "queues_interval": f"{setup.rtt_ms / 2000:g}s", "throughput": "100ms"},
    }
    if scheme in NEW_CONNECTIONS:
        if setup.kind != "idle":
            raise ValueError(f"scheme: {scheme!r} restarts on a new connection, after an idle only")
        # Each pair's flow stops at the pause (its connection stays, idle, and saves what it
        # observed as the idle phase begins); a second flow between the same hosts opens
        # within 1 s of the restart and resumes from that; its phase "restart" is measured.
        first = {**app, "phases": app["phases"][:1]}
        again = {**app, "phases": [{"at": f"{setup.restart_s:g}s", "rate": f"{APP_KBPS}kbps", "name": "restart"}]}
        doc["flow"] = ([{"from": f"s{i}", "to": f"r{i}", "start": "0s", "start_jitter": "1s", "app": first} for i in range(setup.flows)]
                       + [{"from": f"s{i}", "to": f"r{i}", "start": f"{setup.restart_s:g}s", "start_jitter": "1s", "app": again}
                          for i in range(setup.flows)])
    if setup.drop:
        doc["change"] = [{"at": f"{PAUSE_S}s", "link": "left-right", "rate": f"{LOW_MBPS}Mbps"}]
    return doc


@dataclass(frozen=True)
class Sweep:
    """A sweep of §4: its x values, how each becomes a `Setup`, and the schemes it runs."""

    name: str
    xs: tuple[float, ...]
    make: Callable[[float], Setup]
    xlabel: str
    schemes: tuple[str, ...] = tuple(SCHEMES)


def sweeps(quick: bool) -> list[Sweep]:
    flows = (1, 16) if quick else (1, 2, 4, 8, 16, 32, 64)
    rtts = (200, 800) if quick else (100, 200, 400, 800)
    return [
        Sweep("clean-idle", (1,), lambda x: Setup(kind="idle", flows=1, drop=False), "one flow, clean path", FIG23),
        Sweep("clean-limited", (1,), lambda x: Setup(kind="limited", flows=1, drop=False), "one flow, clean path", FIG23),
        Sweep("idle", flows, lambda x: Setup(kind="idle", flows=int(x)), "number of flows"),
        Sweep("limited", flows, lambda x: Setup(kind="limited", flows=int(x)), "number of flows", KEEP_CONNECTION),
        Sweep("rtt", rtts, lambda x: replace(Setup(kind="idle"), rtt_ms=x), "path RTT (ms), 16 flows, idle", RTT_SCHEMES),
        # A set-up detail the paper leaves out: one BDP at 2 Mb/s (50 packets) and at 8 Mb/s.
        Sweep("queue", (50, 200), lambda x: Setup(kind="idle", queue=int(x)), "bottleneck queue (packets), 16 flows, idle", KEEP_CONNECTION),
    ]


def _ns2_loss(doc: dict[str, Any]) -> None:
    doc["tcp"].update(profiles.NS2_35.loss)


def _ns2_clock(doc: dict[str, Any]) -> None:
    doc["tcp"]["clock_granularity"] = "10ms"


#: The assumptions the verdicts are judged again under (`readings`): the paper ran ns-2 and
#: names neither its agents' loss response nor its clock.
READINGS = (
    Reading("ns2-loss", "ns-2.35's loss response",
            "ns-2's agents set ssthresh from cwnd, not the flight size, and halve again on a timeout in recovery "
            "(NS2-NOTES.md); rampup follows RFC 5681.", _ns2_loss,
            {"sweep": ("idle", "limited", "rtt"), "scheme": (STANDARD, NEWCWV, NEWCWV_RW, NEWCWV_STD, PADDING)}, "bcdemnops"),
    Reading("ns2-clock", "ns-2's 10 ms TCP clock",
            "ns-2 times RTTs and the RTO in 10 ms ticks; rampup's clock is exact, and the RTO is what resets the "
            "variants at 800 ms (claim e).", _ns2_clock,
            {"sweep": ("clean-idle", "clean-limited", "rtt")}, "aes"),
    todays_bottleneck({"sweep": ("idle", "limited", "rtt"), "scheme": (STANDARD, NEWCWV, NEWCWV_RW, NEWCWV_STD, PADDING)}, "bcdemnops"),
)
