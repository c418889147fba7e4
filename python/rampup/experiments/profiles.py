"""TCP profiles the reproductions share: the [flow.tcp] keys that make rampup's TCP behave as
a given simulator or stack did, for the parts a paper leaves to its tools.

A profile is a set of key groups; an experiment takes the groups its reading needs
(`tcp`). Each group says which documented behaviour it models (docs/validation.md gives
the cross-checks). Adding a stack is adding a `Profile` to `PROFILES`. Today's stacks are
the engine's own profiles (``profile = "linux"`` in a flow's tcp table, docs/modern.md),
which the then-and-now rows use as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["NS2_0B17", "NS2_35", "NS2_FULLTCP", "PROFILES", "RFC", "Profile", "restart", "startup", "tcp"]


@dataclass(frozen=True)
class Profile:
    name: str
    #: Keys for every congestion control: timers, windows, what the receiver ACKs.
    base: dict[str, Any] = field(default_factory=dict)
    #: How the RTT is timed and the RTO follows it, on whatever clocks ``base`` or the
    #: reading gives.
    timers: dict[str, Any] = field(default_factory=dict)
    #: How the sender responds to loss (window after a timeout, a timeout in recovery).
    loss: dict[str, Any] = field(default_factory=dict)
    #: How Vegas reads its RTT and leaves slow start: settings of ``cc = { kind = "vegas" }``.
    vegas: dict[str, Any] = field(default_factory=dict)
    #: The receiver's delayed ACKs as this stack does them, where a reading asks for them.
    delayed_ack: dict[str, Any] = field(default_factory=dict)
    #: The one-way delayed-ACK sink's own rules, for readings whose ns-2 side runs it.
    sink: dict[str, Any] = field(default_factory=dict)
    #: Keys for every restart-after-idle policy: what counts as idle.
    idle: dict[str, Any] = field(default_factory=dict)
    #: Each restart policy (by the name a scheme gives) as this stack has it: another
    #: policy's name, or settings added to the scheme's.
    restart: dict[str, Any] = field(default_factory=dict)
    #: Each startup (by its kind) as this stack has it: settings added to the scheme's.
    startup: dict[str, dict[str, Any]] = field(default_factory=dict)


#: ns-2.35's agents (Agent/TCP/Newreno, Agent/TCP/Vegas, TCPSink/DelAck): NS2-NOTES.md,
#: docs/ns2-reading.md. The RTT is timed and the RTO set as TcpAgent does (tcp/tcp.cc
#: output, newack, rtt_update, rtt_timeout: `rto_rule = "ns2"`). Idle is the expiry of the
#: retransmission timer the last ACK armed (tcp/tcp.cc TcpAgent::newack, newtimer); slow-start
#: restart goes to one segment
#: (TcpAgent::timeout); the DelAck sink ACKs seqno 0 at once (tcp/tcp-sink.cc, SYN_immediate_ack_);
#: RBP counts, rates and spaces as tcp/tcp-rbp.cc's send_much does; Limited Slow Start applies
#: where TcpAgent::opencwnd applies it (`rule = "ns2"`). Vegas's per-ACK growth
#: (`growth = "per-ack"`, tcp/tcp-vegas.cc) is left out until its window cuts are modelled too
#: (docs/ns2-reading.md).
NS2_35 = Profile(
    "ns-2.35",
    timers={"rto_rule": "ns2"},
    loss={"loss_window": "cwnd", "rto_in_recovery": "halve"},
    vegas={"rtt": "mean", "slow_start_exit": "eighth"},
    delayed_ack={"delayed_ack": True, "ack_every": 2, "delack_timeout": "100ms"},
    sink={"ack_first_segment": True},
    idle={"idle_threshold": "rtx-timer"},
    restart={"ssr": "ssr-ns2", "rbp-rate": {"form": "ns2"}, "rbp-cwnd": {"form": "ns2"}},
    startup={"limited-slow-start": {"rule": "ns2"}},
)

#: ns 2.0b17 (paper 000 §4.1) with the authors' rbp_demo.tcl: initial window 1, a 100 ms
#: clock, minimum RTO 1 s, delayed ACKs, a window cap of 32 = the initial ssthresh, no
#: limited transmit, no handshake; loss response and Vegas as ns-2.35's.
NS2_0B17 = Profile(
    "ns-2.0b17",
    base={"initial_window": 1, "initial_ssthresh": 32, "max_window": 32, "delayed_ack": True, "delack_timeout": "100ms",
          "min_rto": "1s", "initial_rto": "3s", "max_rto": "60s", "clock_granularity": "100ms", "handshake": False,
          "limited_transmit": False},
    loss=NS2_35.loss,
    vegas=NS2_35.vegas,
)

#: ns-2.35's Agent/TCP/FullTcp (Reno) with its defaults, as PackMimeHTTP and paper 002 ran it
#: (tcl/lib/ns-default.tcl, tcp/tcp-full.cc): 536-byte segments (576 on the wire with the
#: scenario's 40-byte headers), initial window 2, window_ 20, Reno recovery without limited
#: transmit, an ACK per full segment, Nagle on (nodelay_ false), a 10 ms clock, minimum RTO
#: 200 ms, initial RTO 3 s, no TIME-WAIT, and FullTcp's RTO timing: no RTT sample sets the RTO,
#: which stays at 3 s. Not modelled: the delayed ACK of a segment shorter than the MSS until
#: the next 100 ms tick (docs/web-workload.md).
NS2_FULLTCP = Profile(
    "ns-2.35 Full-TCP",
    base={"mss": 536, "initial_window": 2, "max_window": 20, "recovery": "reno", "limited_transmit": False,
          "delayed_ack": False, "nagle": True, "clock_granularity": "10ms", "min_rto": "200ms", "initial_rto": "3s",
          "max_rto": "60s", "time_wait": "0s", "rto_timing": "ns2-full"},
    loss=NS2_35.loss,
)

#: rampup's defaults: RFC 5681 / 6582 loss response, rampup's Vegas (docs/tcp.md).
RFC = Profile("rfc")

PROFILES: dict[str, Profile] = {"ns2": NS2_35, "ns2.0b17": NS2_0B17, "ns2-fulltcp": NS2_FULLTCP, "rfc": RFC}


def restart(profile: Profile, policy: str | dict[str, Any]) -> str | dict[str, Any]:
    """The restart policy ``policy`` (a name, or a table with its ``kind``) as ``profile``'s
    stack has it."""
    kind = policy if isinstance(policy, str) else policy["kind"]
    mapped = profile.restart.get(kind)
    if mapped is None:
        return policy
    if isinstance(mapped, str):
        return mapped if isinstance(policy, str) else {**policy, "kind": mapped}
    return {**({"kind": policy} if isinstance(policy, str) else policy), **mapped}


def startup(profile: Profile, table: str | dict[str, Any]) -> str | dict[str, Any]:
    """The startup ``table`` (a name, or a table with its ``kind``) as ``profile``'s stack
    has it: the stack's settings for that kind added to the table's."""
    kind = table if isinstance(table, str) else table["kind"]
    mapped = profile.startup.get(kind)
    if mapped is None:
        return table
    return {**({"kind": table} if isinstance(table, str) else table), **mapped}


def tcp(profile: Profile, cc: str, *, base: bool = True, loss: bool = True, delayed_ack: bool = False,
        policy: str | dict[str, Any] | None = None) -> dict[str, Any]:
    """The keys of ``profile`` for congestion control ``cc``: its base keys, its timers, its
    loss response, its Vegas details when ``cc`` is Vegas, its delayed ACKs if asked, and with
    a restart ``policy`` its idle detection and that policy as the stack has it."""
    keys: dict[str, Any] = dict(profile.base) if base else {}
    keys.update(profile.timers)
    if delayed_ack:
        keys.update(profile.delayed_ack)
    if loss:
        keys.update(profile.loss)
    if cc == "vegas" and profile.vegas:
        keys["cc"] = {"kind": "vegas", **profile.vegas}
    if policy is not None:
        keys.update(profile.idle)
        keys["restart"] = restart(profile, policy)
    return keys
