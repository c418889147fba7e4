"""What runs: the schemes, the readings of the TCP around them, the dumbbell, one run's
scenario, and every run of every experiment (`specs`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from ...api import inspect
from .. import profiles
from ..framework import Point
from ..readings import fq_codel_ecn

MSS = 1000  # payload bytes per segment
ACCESS_DELAY_MS = 1.0
JITTER = "10ms"

# ----------------------------------------------------------------------- schemes

SLS, SLS_TICK, HC, LSS, SS_S, SS_A, SS_L, VEGAS = (
    "SLS", "SLS (10 ms tick)", "HC", "LSS", "SS (S)", "SS (A)", "SS (L)", "Vegas")
VEGAS_RFC = "Vegas (rampup default)"
HPP, SEARCH, CUBIC_HS, BBR = "HyStart++", "SEARCH", "CUBIC+HyStart", "BBR"

NS2_VEGAS = {"cc": {"kind": "vegas", **profiles.NS2_35.vegas}}

#: Scheme -> rampup [flow.tcp] keys. "BDP" is replaced by the set-up's BDP in packets.
SCHEMES: dict[str, dict[str, Any]] = {
    SLS: {"startup": {"kind": "ssthreshless"}},
    SLS_TICK: {"startup": {"kind": "ssthreshless", "rtt_tick": "10ms"}},
    HC: {"cc": "hoe"},
    LSS: {"startup": {"kind": "limited-slow-start", "max_ssthresh": 100}},
    SS_S: {"cc": "newreno", "initial_ssthresh": 32},
    SS_A: {"cc": "newreno", "initial_ssthresh": "BDP"},
    SS_L: {"cc": "newreno", "initial_ssthresh": 5000},
    VEGAS: dict(NS2_VEGAS),
    VEGAS_RFC: {"cc": "vegas"},
    # Then and now: the IETF's startup today (RFC 9406) over NewReno, SEARCH
    # (draft-chung-ccwg-search-09, docs/search.md) over NewReno, and Linux's default, CUBIC
    # with HyStart, reducing from cwnd as Linux does (docs/modern.md).
    HPP: {"cc": "newreno", "startup": "hystart++"},
    SEARCH: {"cc": "newreno", "startup": "search"},
    CUBIC_HS: {"cc": "cubic", "startup": "hystart", "loss_window": "cwnd"},
    # BBRv1 as Linux's tcp_bbr.c (docs/bbr.md): STARTUP doubles the delivery rate per round
    # with no ssthresh, and it paces at its own rate. With SACK, as Linux runs it: with
    # NewReno's one retransmission per round, the hundreds of losses of STARTUP's overshoot
    # outlast the max filter's 10 rounds, which then holds that trickle's rate.
    BBR: {"cc": "bbr", "recovery": "sack"},
}
#: The schemes of the throughput sweeps (Fig. 6-8, Tables IV-VI) and of Table VII.
SWEEP_SCHEMES = [SLS, SLS_TICK, HC, LSS, SS_S, SS_A, SS_L, VEGAS]
#: Today's schemes, on Table I and the throughput sweeps in reading main only (the other
#: readings are about the paper's TCP).
MODERN = [HPP, SEARCH, CUBIC_HS, BBR]
#: Then and now: (the paper's mechanism, today's scheme) pairs compared claim by claim.
#: SLS in both of its RTT readings: exact (primary) and ns-2's 10 ms tick, as the paper ran it.
THEN_NOW_PAIRS = tuple((sls, today) for sls in (SLS, SLS_TICK) for today in (CUBIC_HS, HPP, SEARCH, BBR))
#: Slow-start schemes whose window ns-2 caps at the ssthresh in reading "ns2".
CAPPED = {SS_S, SS_A, SS_L}


@dataclass(frozen=True)
class Reading:
    """How the TCP around every scheme is configured."""

    name: str
    delayed_ack: bool
    cap: bool  # window cap = initial ssthresh for SS (S/A/L)
    loss: str  # "rfc" (rampup default) | "ns2"
    label: str
    #: The bottleneck's buffer managed by FQ-CoDel marking ECN, and ECN at both ends
    #: (`readings.fq_codel_ecn`): today's bottleneck.
    todays_queue: bool = False


READINGS: dict[str, Reading] = {
    "main": Reading("main", False, False, "rfc", "ACK every segment, no cap, RFC loss response (primary)"),
    "cap": Reading("cap", False, True, "rfc", "ACK every segment, window cap = ssthresh"),
    "delack": Reading("delack", True, False, "rfc", "delayed ACK, no cap"),
    "delack+cap": Reading("delack+cap", True, True, "rfc", "delayed ACK, window cap = ssthresh"),
    "ns2": Reading("ns2", True, True, "ns2", "delayed ACK, window cap = ssthresh, ns-2 timers, loss response and Limited Slow Start"),
    "fq-codel+ecn": Reading("fq-codel+ecn", False, False, "rfc",
                            "as main, behind today's bottleneck: the buffer managed by FQ-CoDel with ECN marks",
                            todays_queue=True),
}
MAIN, NS2, TODAY = "main", "ns2", "fq-codel+ecn"


@dataclass(frozen=True)
class Net:
    """The dumbbell of one run."""

    rate_mbps: float = 40.0
    delay_ms: float = 48.0  # bottleneck one-way
    buffer: int | None = None  # packets; None: BDP/2
    duration_s: float = 10.0
    udp: bool = False  # 10 Mb/s CBR from 1 s to 5 s on a second pair

    @property
    def path(self) -> pd.Series:
        """The engine's path of a flow across this dumbbell (`rampup.inspect`)."""
        return _path(self.rate_mbps, self.delay_ms)

    @property
    def base_rtt_ms(self) -> float:
        """Propagation plus serialising one segment there and its ACK back, on every link."""
        return float(self.path["base_rtt_ns"]) / 1e6

    @property
    def bdp(self) -> int:
        """Packets of MSS payload in one propagation RTT at the bottleneck rate (500 for the default)."""
        return round(float(self.path["bdp_bytes"]) / MSS)

    @property
    def queue(self) -> int:
        return self.buffer if self.buffer is not None else self.bdp // 2

    @property
    def capacity_bytes(self) -> float:
        return self.rate_mbps * 1e6 / 8 * self.duration_s


@functools.cache
def _path(rate_mbps: float, delay_ms: float) -> pd.Series:
    # The buffer is given, so that the scenario does not ask for the BDP this computes.
    return inspect(scenario([({"mss": MSS}, 0.0)], Net(rate_mbps, delay_ms, buffer=1), seed=1)).iloc[0]


def tcp_for(scheme: str, net: Net, reading: Reading, gamma: float | None = None) -> dict[str, Any]:
    """The [flow.tcp] table of `scheme` on `net` under `reading`."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme: {scheme!r} is not one of {', '.join(SCHEMES)}")
    tcp: dict[str, Any] = {"mss": MSS, "initial_window": 2, "handshake": False, "min_rto": "1s"}
    for k, v in SCHEMES[scheme].items():
        tcp[k] = net.bdp if v == "BDP" else v
    if reading.delayed_ack:
        # single_flow.tcl's DelAck sinks keep ns-2.35's SYN_immediate_ack_ (true).
        tcp.update(profiles.NS2_35.delayed_ack, **profiles.NS2_35.sink)
    if reading.cap and scheme in CAPPED:
        tcp["max_window"] = tcp["initial_ssthresh"]
    if reading.loss == "ns2":
        # single_flow.tcl's clock and RTO bounds (tcpTick_ 0.01, rtxcur_init_ 3, maxrto_ 60;
        # minrto_ is the 1 s above), timed as TcpAgent times them.
        tcp.update(profiles.NS2_35.timers, clock_granularity="10ms", initial_rto="3s", max_rto="60s")
        tcp.update(profiles.NS2_35.loss)
        if "startup" in tcp:
            tcp["startup"] = profiles.startup(profiles.NS2_35, tcp["startup"])
    if gamma is not None and tcp.get("startup", {}).get("kind") == "ssthreshless":
        tcp["startup"] = {**tcp["startup"], "gamma": float(gamma)}
    return tcp


def _ms(x: float) -> str:
    return f"{round(x * 1000)}us"


def scenario(flows: Sequence[tuple[dict[str, Any], float]], net: Net, seed: int, trace: str = "") -> dict[str, Any]:
    """Scenario dict: `flows` = (tcp table, start s) per flow, flow i from s_i to r_i.

    ``trace``: "" (flows table only), "ts" (+ time series), "tsq" (+ queues)."""
    pairs = len(flows) + (1 if net.udp else 0)
    doc: dict[str, Any] = {
        "name": f"ssthreshless {net.rate_mbps:g}Mbps {net.delay_ms:g}ms B={net.queue}",
        "duration": _ms(net.duration_s * 1000),
        "seed": seed,
        "header_bytes": 40,
        "ack_bytes": 40,
        "topology": {
            "kind": "dumbbell", "pairs": pairs, "access_rate": "1Gbps", "access_delay": _ms(ACCESS_DELAY_MS),
            "access_queue": {"packets": 10000},
            "bottleneck_rate": f"{round(net.rate_mbps * 1e6)}bps", "bottleneck_delay": _ms(net.delay_ms),
            "bottleneck_queue": {"packets": net.queue},
        },
        "flow": [{"from": f"s{i}", "to": f"r{i}", "start": _ms(start * 1000), "start_jitter": JITTER,
                  "app": {"kind": "bulk"}, "tcp": tcp} for i, (tcp, start) in enumerate(flows)],
        "trace": {"timeseries": "ts" in trace, "queues": "q" in trace},
    }
    if net.udp:
        doc["udp"] = [{"from": f"s{len(flows)}", "to": f"r{len(flows)}", "rate": "10Mbps", "packet_bytes": 1000,
                       "start": "1s", "stop": "5s"}]
    return doc


def _keep(trace: str) -> tuple[str, ...]:
    return ("flows",) + (("timeseries",) if "ts" in trace else ()) + (("queues",) if "q" in trace else ())


# ----------------------------------------------------------------------- the runs of each experiment

BUFFERS = [50, 100, 150, 200, 250, 300, 350, 400, 450, 500]
DELAYS = [10, 20, 30, 40, 48, 60, 70, 80, 90, 100]
RATES = [10, 20, 40, 60, 80, 100, 120, 150]
GAMMAS = [1, 2, 3, 5, 10, 20, 30]
QUICK_BUFFERS, QUICK_DELAYS, QUICK_RATES, QUICK_GAMMAS = [50, 250, 500], [10, 48, 100], [10, 40, 150], [1, 3, 10]
FAIR_DURATION, FAIR_LATE = 60.0, 20.0
QUICK_FAIR_DURATION, QUICK_FAIR_LATE = 30.0, 10.0


@dataclass(frozen=True)
class Sweep:
    name: str  # "buffer" | "delay" | "rate"
    xs: tuple[float, ...]
    make: Callable[[float], Net]
    xlabel: str
    table: str  # the paper's table of this sweep
    table_x: float  # its x


def sweeps(quick: bool) -> list[Sweep]:
    return [
        Sweep("buffer", tuple(QUICK_BUFFERS if quick else BUFFERS), lambda x: Net(buffer=int(x)),
              "bottleneck buffer (packets; BDP = 500)", "IV", 50),
        Sweep("delay", tuple(QUICK_DELAYS if quick else DELAYS), lambda x: Net(delay_ms=float(x)),
              "bottleneck one-way delay (ms); buffer BDP/2", "V", 100),
        Sweep("rate", tuple(QUICK_RATES if quick else RATES), lambda x: Net(rate_mbps=float(x)),
              "bottleneck bandwidth (Mb/s); buffer BDP/2", "VI", 150),
    ]


def _single(exp: str, scheme: str, net: Net, reading: str, seed: int, x: float, trace: str = "",
            gamma: float | None = None) -> Point:
    doc = scenario([(tcp_for(scheme, net, READINGS[reading], gamma), 0.0)], net, seed, trace)
    if READINGS[reading].todays_queue:
        fq_codel_ecn(doc["topology"]["bottleneck_queue"], doc["flow"][0]["tcp"])
    return Point({"exp": exp, "reading": reading, "scheme": scheme, "x": float(x), "seed": seed}, doc, _keep(trace), net)


def fairness_flows(sls: str, late_s: float) -> list[tuple[str, float]]:
    """Fig. 10: flows 1-2 slow start (ssthresh 32), 3-5 SSthreshless; flow 5 starts late."""
    return [(SS_S, 0.0), (SS_S, 0.0), (sls, 0.0), (sls, 0.0), (sls, late_s)]


def points(seeds: int, quick: bool) -> list[Point]:
    """Every run of every experiment: Table I / Fig. 2 in every reading, then the rest in
    readings main and ns2, and the paper's key experiments (Table III, the buffer sweep)
    behind today's bottleneck; queues only for the seed-1 runs Fig. 3 and 5 plot."""
    out: list[Point] = []
    for seed in range(1, seeds + 1):
        tsq = "tsq" if seed == 1 else "ts"
        out += [_single("I", s, Net(), r, seed, 250, "ts") for r in READINGS for s in (SS_L, SS_A, SS_S)]
        out += [_single("I", s, Net(), MAIN, seed, 250, "ts") for s in MODERN]
        out += [_single("fig3", SS_A, Net(buffer=100), r, seed, 100, tsq) for r in (MAIN, NS2)]
        out += [_single("II", s, Net(), r, seed, g, "ts", gamma=g) for r in (MAIN, NS2) for s in (SLS, SLS_TICK)
                for g in (QUICK_GAMMAS if quick else GAMMAS)]
        out += [_single("III", s, Net(buffer=200), r, seed, 200, tsq) for r in (MAIN, NS2)
                for s in (SLS, SLS_TICK, SS_A, VEGAS, VEGAS_RFC)]
        out += [_single(sw.name, s, sw.make(x), r, seed, x) for sw in sweeps(quick) for r in (MAIN, NS2) for x in sw.xs
                for s in SWEEP_SCHEMES + (MODERN if r == MAIN else [])]
        out += [_single("III", s, Net(buffer=200), TODAY, seed, 200, "ts") for s in (SLS, SLS_TICK, SS_A, VEGAS, VEGAS_RFC)]
        out += [_single(sw.name, s, sw.make(x), TODAY, seed, x) for sw in sweeps(quick) if sw.name == "buffer" for x in sw.xs
                for s in SWEEP_SCHEMES + MODERN]
        out += [_single("VII", s, Net(udp=True), r, seed, 10, "ts") for r in (MAIN, NS2) for s in SWEEP_SCHEMES]
        out += _fairness(seed, quick)
    return out


def _fairness(seed: int, quick: bool) -> list[Point]:
    """Fig. 10's runs: five flows, both readings, SSthreshless Start with either RTT reading."""
    dur, late = (QUICK_FAIR_DURATION, QUICK_FAIR_LATE) if quick else (FAIR_DURATION, FAIR_LATE)
    net = Net(duration_s=dur)
    out = []
    for r in (MAIN, NS2):
        # No window cap here: capped at 32, the slow-start flows could never reach BDP/5 = 100
        # segments, where the paper's Fig. 10 shows every flow converging.
        uncapped = replace(READINGS[r], cap=False)
        for sls in (SLS, SLS_TICK):
            doc = scenario([(tcp_for(s, net, uncapped), start) for s, start in fairness_flows(sls, late)], net, seed, "ts")
            tags = {"exp": "fig10", "reading": r, "scheme": sls, "x": late, "seed": seed}
            out.append(Point(tags, doc, ("flows", "timeseries"), net))
    return out
