"""What a testbed run needs and this machine allows (`rampup testbed check`): root, iproute2,
namespaces, veth, each qdisc (tried in a namespace of its own, removed again), crates/net's
programs, the experiments' files, a capture tool, leftovers, congestion controls."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path as FsPath

from . import experiments as te
from .owner import Owner, leftovers
from .owner import run_short as _run
from .path import PREFIX, TestbedError, program
from .programs import PROGRAMS

__all__ = ["QDISCS", "Finding", "check", "unmet"]

#: The queueing disciplines a path is built from: the rate (tbf), the drop-tail queue in
#: bytes or packets (bfifo, pfifo), the one-way delay (netem) and per-flow pacing (fq).
QDISCS = {
    "tbf": "rate 10mbit burst 1600 limit 10000",
    "bfifo": "limit 10000",
    "pfifo": "limit 10",
    "netem": "delay 10ms",
    "fq": "",
}


CONGESTION_CONTROLS = FsPath("/proc/sys/net/ipv4/tcp_available_congestion_control")


@dataclass(frozen=True)
class Finding:
    """One thing the testbed needs: whether the machine has it, and what was found."""

    name: str
    ok: bool
    detail: str


def check() -> list[Finding]:
    """What the machine allows and what a run needs, in the order a path needs it: root,
    iproute2, namespaces, veth, each qdisc, crates/net's programs, the experiments' files, a
    capture tool (for --pcap), leftovers, congestion controls. Creates one
    namespace named ``rampup-check-<pid>`` with a veth pair in it, tries each queueing
    discipline on it, and removes it whatever happens."""
    found = [Finding("root", os.geteuid() == 0, "yes" if os.geteuid() == 0 else "no: run as root (namespaces and tc need it)")]
    tools = [t for t in ("ip", "tc") if shutil.which(t) is None]
    found.append(Finding("iproute2", not tools, "ip and tc found" if not tools else f"missing {', '.join(tools)}: apt-get install iproute2"))
    if tools or not found[0].ok:
        return found + _congestion_controls()
    ns = f"{PREFIX}check-{os.getpid()}"
    owner = Owner()
    ok, err = owner.add_namespace(ns)
    found.append(Finding("network namespaces", ok, "yes" if ok else f"no: {err}"))
    try:
        if ok:
            veth, why = _run("ip", "-n", ns, "link", "add", "name", "rc0", "type", "veth", "peer", "name", "rc1")
            found.append(Finding("veth pairs", veth, "yes" if veth else f"no: {why}"))
            if veth:
                _run("ip", "-n", ns, "link", "set", "rc0", "up")
                for qdisc, args in QDISCS.items():
                    has, why = _run("ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", "rc0", "root", qdisc, *args.split())
                    found.append(Finding(f"qdisc {qdisc}", has, "yes" if has else f"no: {why}"))
    finally:
        owner.remove()
    found += _programs() + _experiments()
    capture = shutil.which("tcpdump") or shutil.which("dumpcap")
    found.append(Finding("capture", capture is not None, capture or "no: apt-get install tcpdump (only --pcap needs it)"))
    stale = leftovers()
    found.append(Finding("leftovers", not stale, "none" if not stale else f"{', '.join(stale)} (a killed run's; the next run removes them)"))
    return found + _congestion_controls()


def _programs() -> list[Finding]:
    """crates/net's programs, each found (or built now: `programs`)."""
    found = []
    for name in PROGRAMS:
        try:
            found.append(Finding(name, True, program(name)))
        except TestbedError as e:
            found.append(Finding(name, False, f"no: {e}"))
    return found


def _experiments() -> list[Finding]:
    """Every experiment's scenario file, read as a run reads it."""
    bad = []
    for name in te.EXPERIMENTS:
        try:
            te.experiment(name)
        except TestbedError as e:
            bad.append(str(e))
    return [Finding("experiments", not bad, f"{te.SCENARIOS}: {', '.join(te.EXPERIMENTS)}" if not bad else f"no: {bad[0]}")]


def unmet(found: list[Finding], delay: str = "auto", pcap: bool = False) -> list[Finding]:
    """The findings of `check` that fail and that a run with ``delay`` (and ``pcap``) needs.
    A run goes without fq (the kernel paces without it), a capture tool unless it captures,
    netem unless it is asked for, and leftovers (it removes them)."""
    spare = {"qdisc fq", "leftovers"} | ({"qdisc netem"} if delay != "netem" else set()) | (set() if pcap else {"capture"})
    return [f for f in found if not f.ok and f.name not in spare]


def congestion_controls() -> list[str]:
    """The congestion controls the kernel has loaded or can load (OSError if it does not say)."""
    return CONGESTION_CONTROLS.read_text().split()


def _congestion_controls() -> list[Finding]:
    try:
        have = congestion_controls()
    except OSError as e:
        return [Finding("congestion controls", False, f"unknown: {e}")]
    missing = [c for c in ("reno", "cubic") if c not in have]
    detail = " ".join(have) + (f" (missing {', '.join(missing)})" if missing else "")
    return [Finding("congestion controls", not missing, detail)]
