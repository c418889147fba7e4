"""The real path (docs/testbed.md): network namespaces joined by veth pairs, the bottleneck
shaped by `tc`, the delay by rampup's delay line. `check` says what this machine allows,
trying it in a namespace of its own that it removes again; `Path` builds client, router and
server namespaces with the bottleneck on the router and removes them on exit, on error and on
Ctrl-C. `rampup testbed run` is not built yet.

Everything the testbed creates is named with `PREFIX`, and it touches nothing else.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path as FsPath

__all__ = ["PREFIX", "QDISCS", "Finding", "Path", "PathSpec", "TestbedError", "check", "leftovers", "program", "remove_leftovers"]

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
CONGESTION_CONTROLS = FsPath("/proc/sys/net/ipv4/tcp_available_congestion_control")


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
    try:
        found.append(Finding("delay line", True, program("rampup-delayline")))
    except TestbedError as e:
        found.append(Finding("delay line", False, f"no: {e}"))
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


class TestbedError(RuntimeError):
    """The machine cannot build the path (no root, no namespaces, a qdisc missing): one line."""


@dataclass(frozen=True)
class PathSpec:
    """The bottleneck, the same both ways: ``delay_us`` one way, then a token bucket at
    ``rate_bps`` that lets ``burst_bytes`` through at line rate, in front of a drop-tail queue
    of ``queue_bytes`` (bfifo) or ``queue_packets`` (pfifo)."""

    rate_bps: int
    queue_bytes: int | None = None
    queue_packets: int | None = None
    #: None: what the rate sends in 1 ms, at least one 1514-byte frame. With a bucket of one
    #: frame, each late wakeup of tbf's timer loses its tokens, and a 40 Mb/s bottleneck
    #: delivered about 10 % less; a larger one lets its bytes through at line rate, 60 ms ahead
    #: of time at 800 kb/s with four frames (docs/testbed.md).
    burst_bytes: int | None = None
    delay_us: int = 0

    @property
    def burst(self) -> int:
        return self.burst_bytes if self.burst_bytes is not None else max(1514, -(-self.rate_bps // 8_000))

    def qdiscs(self) -> list[list[str]]:
        """The tc commands for one direction (after ``tc qdisc add dev DEV``)."""
        if (self.queue_bytes is None) == (self.queue_packets is None):
            raise TestbedError("path: give the queue in bytes or in packets, one of the two")
        child = ["bfifo", "limit", str(self.queue_bytes)] if self.queue_bytes is not None else ["pfifo", "limit", str(self.queue_packets)]
        # tbf's own queue (limit) is left at one burst: the child holds the drop-tail queue.
        return [["root", "handle", "1:", "tbf", "rate", f"{self.rate_bps}bit", "burst", str(self.burst), "limit", str(self.burst)],
                ["parent", "1:1", "handle", "10:", *child]]


def program(name: str) -> str:
    """One of crates/net's programs (``rampup-delayline``, ``rampup-udp``): on PATH, or built
    in this checkout (``cargo build --release -p rampup-net``)."""
    found = shutil.which(name)
    if found:
        return found
    built = FsPath(__file__).resolve().parents[2] / "target" / "release" / name
    if built.exists():
        return str(built)
    raise TestbedError(f"{name} is not built: cargo build --release -p rampup-net")


class Path:
    """client ── router ── server, three namespaces named ``rampup-<tag>-<host>``. The client
    (10.77.0.1) and the server (10.77.0.2) share one subnet; the router carries no address, and
    its delay line (``rampup-delayline``) moves each frame between its two links after the
    one-way delay (this machine's kernel has no netem). What the delay line sends leaves
    through the link's qdiscs: the bottleneck, the same both ways.

    A context manager: the namespaces go when the block ends, however it ends (an exception,
    Ctrl-C as KeyboardInterrupt); a process killed outright leaves them for
    `remove_leftovers`. ``delay_stats`` holds what the delay line reported when it stopped
    (per direction: frames, and the lateness of their release in µs)."""

    HOSTS = ("client", "router", "server")
    ADDRESS = {"client": "10.77.0.1", "server": "10.77.0.2"}

    def __init__(self, spec: PathSpec, tag: str | None = None) -> None:
        self.spec = spec
        self.tag = tag or str(os.getpid())
        self.ns = {h: f"{PREFIX}{self.tag}-{h}" for h in self.HOSTS}
        self._made: list[str] = []
        self._delay_line: subprocess.Popen[str] | None = None
        self.delay_stats: list[dict[str, str]] = []

    def __enter__(self) -> Path:
        try:
            self._build()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def run(self, host: str, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Runs ``argv`` in ``host``'s namespace and waits for it."""
        return subprocess.run(["ip", "netns", "exec", self.ns[host], *argv], capture_output=True, text=True, timeout=timeout)

    def popen(self, host: str, *argv: str) -> subprocess.Popen[str]:
        """Starts ``argv`` in ``host``'s namespace."""
        return subprocess.Popen(["ip", "netns", "exec", self.ns[host], *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def remove(self) -> None:
        """Stops the delay line (keeping its report) and removes the namespaces this path made."""
        if self._delay_line is not None:
            self._delay_line.send_signal(signal.SIGINT)
            try:
                out, _ = self._delay_line.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                self._delay_line.kill()
                out, _ = self._delay_line.communicate()
            self.delay_stats = [dict(kv.split("=", 1) for kv in line.split()) for line in out.splitlines() if line.startswith("direction=")]
            self._delay_line = None
        for ns in reversed(self._made):
            _run("ip", "netns", "del", ns)
        self._made.clear()

    def _must(self, *argv: str) -> None:
        ok, why = _run(*argv)
        if not ok:
            raise TestbedError(f"{' '.join(argv)}: {why}")

    def _build(self) -> None:
        if os.geteuid() != 0:
            raise TestbedError("the testbed needs root (network namespaces and tc)")
        if shutil.which("ip") is None or shutil.which("tc") is None:
            raise TestbedError("the testbed needs iproute2 (ip, tc): apt-get install iproute2")
        qdiscs = self.spec.qdiscs()
        delay_line = program("rampup-delayline")
        for h in self.HOSTS:
            self._must("ip", "netns", "add", self.ns[h])
            self._made.append(self.ns[h])
            self._must("ip", "-n", self.ns[h], "link", "set", "lo", "up")
            # No IPv6 chatter (router solicitations, DAD) on the path's links.
            self._must("ip", "netns", "exec", self.ns[h], "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1")
        c, r, s = (self.ns[h] for h in self.HOSTS)
        # client c0 ── r0 router r1 ── s0 server
        self._must("ip", "-n", c, "link", "add", "name", "c0", "type", "veth", "peer", "name", "r0", "netns", r)
        self._must("ip", "-n", s, "link", "add", "name", "s0", "type", "veth", "peer", "name", "r1", "netns", r)
        self._must("ip", "-n", c, "addr", "add", f"{self.ADDRESS['client']}/24", "dev", "c0")
        self._must("ip", "-n", s, "addr", "add", f"{self.ADDRESS['server']}/24", "dev", "s0")
        for ns, dev in ((c, "c0"), (r, "r0"), (r, "r1"), (s, "s0")):
            self._must("ip", "-n", ns, "link", "set", dev, "up")
        for dev in ("r0", "r1"):
            for q in qdiscs:
                self._must("ip", "netns", "exec", r, "tc", "qdisc", "add", "dev", dev, *q)
        self._delay_line = subprocess.Popen(["ip", "netns", "exec", r, delay_line, "r0", "r1", str(self.spec.delay_us)],
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self._delay_line.stdout is not None
        if self._delay_line.stdout.readline().strip() != "ready":
            raise TestbedError(f"the delay line did not start: {self._delay_line.communicate()[1].strip()}")


def remove_leftovers() -> list[str]:
    """Removes the namespaces of ours whose process is gone (a run killed before it could
    remove them); returns their names."""
    gone = []
    for ns in leftovers():
        tag = ns[len(PREFIX):].split("-", 1)[0]
        if tag.isdigit() and _alive(int(tag)):
            continue
        _run("ip", "netns", "del", ns)
        gone.append(ns)
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
