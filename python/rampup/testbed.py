"""The real path (docs/testbed.md): network namespaces joined by veth pairs, the bottleneck
shaped by `tc`. So far `check`: what this machine allows, found by trying it in a namespace
of its own that it removes again. The driver and `rampup testbed run` are not built yet.

Everything the testbed creates is named with `PREFIX`, and it touches nothing else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PREFIX", "QDISCS", "Finding", "check", "leftovers"]

#: Every namespace the testbed makes is named with this prefix.
PREFIX = "rampup-"
#: The queueing disciplines a path is built from: the rate (tbf), the drop-tail queue in
#: bytes or packets (bfifo, pfifo), the one-way delay (netem) and per-flow pacing (fq).
QDISCS = {
    "tbf": "rate 10mbit burst 1600 limit 10000",
    "bfifo": "limit 10000",
    "pfifo": "limit 10",
    "netem": "delay 10ms",
    "fq": "",
}
CONGESTION_CONTROLS = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


@dataclass(frozen=True)
class Finding:
    """One thing the testbed needs: whether the machine has it, and what was found."""

    name: str
    ok: bool
    detail: str


def _run(*argv: str) -> tuple[bool, str]:
    """Runs a command; (whether it succeeded, its first line of error or output)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    text = (done.stderr or done.stdout).strip().splitlines()
    return done.returncode == 0, text[0] if text else ""


def leftovers() -> list[str]:
    """Namespaces of ours that an earlier run left (killed before it could remove them)."""
    try:
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)]


def check() -> list[Finding]:
    """What the machine allows, in the order a path needs it. Creates one namespace named
    ``rampup-check-<pid>`` with a veth pair in it, tries each queueing discipline on it, and
    removes it whatever happens."""
    found = [Finding("root", os.geteuid() == 0, "yes" if os.geteuid() == 0 else "no: run as root (namespaces and tc need it)")]
    tools = [t for t in ("ip", "tc") if shutil.which(t) is None]
    found.append(Finding("iproute2", not tools, "ip and tc found" if not tools else f"missing {', '.join(tools)}: apt-get install iproute2"))
    if tools or not found[0].ok:
        return found + _congestion_controls()
    ns = f"{PREFIX}check-{os.getpid()}"
    ok, err = _run("ip", "netns", "add", ns)
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
        if ok:
            _run("ip", "netns", "del", ns)
    stale = leftovers()
    found.append(Finding("leftovers", not stale, "none" if not stale else f"{', '.join(stale)} (an interrupted run's; ip netns del them)"))
    return found + _congestion_controls()


def _congestion_controls() -> list[Finding]:
    try:
        have = CONGESTION_CONTROLS.read_text().split()
    except OSError as e:
        return [Finding("congestion controls", False, f"unknown: {e}")]
    missing = [c for c in ("reno", "cubic") if c not in have]
    detail = " ".join(have) + (f" (missing {', '.join(missing)})" if missing else "")
    return [Finding("congestion controls", not missing, detail)]
