"""A real path: `Path` builds client, router and server namespaces joined by veth pairs, the
bottleneck shaped by `tc` on the router and the delay by netem or rampup's delay line, and
removes them on exit, on error and on Ctrl-C.

Everything it creates is named with `PREFIX` and written down by its owner (`owner`): what
a killed run left is removed by the next, and nothing else is touched.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path as FsPath

from .owner import Owner
from .owner import run_short as _run
from .programs import ProgramError
from .programs import program as _program

__all__ = ["DELAYS", "PREFIX", "Path", "PathSpec", "TestbedError", "program"]

#: Every namespace the testbed makes is named with this prefix.
PREFIX = "rampup-"
#: What a path's one-way delay can be made by (`PathSpec.delay`).
DELAYS = ("auto", "netem", "delay-line")
#: netem's queue, in packets: far above any window of the experiments (its default is 1,000).
NETEM_LIMIT = 100_000
#: How long a capture waits after its tool says it is listening, and how long it goes on
#: after its block, for the tool to read the last frames (two of dumpcap's 250 ms blocks).
#: Measured on an idle machine: 50 ms and 0.1 s were enough (see `Path.capture`).
CAPTURE_SETTLE_S = 0.2
CAPTURE_DRAIN_S = 0.5


class TestbedError(RuntimeError):
    """The machine cannot build the path (no root, no namespaces, a qdisc missing): one line."""


@dataclass(frozen=True)
class PathSpec:
    """The bottleneck, the same both ways: a token bucket at ``rate_bps`` that lets
    ``burst_bytes`` through at line rate, in front of a drop-tail queue of ``queue_bytes``
    (bfifo) or ``queue_packets`` (pfifo); and one client per entry of ``delays_us``, each that
    far (one way) from the router."""

    rate_bps: int
    queue_bytes: int | None = None
    queue_packets: int | None = None
    #: None: what the rate sends in 1 ms, at least one 1514-byte frame. With a bucket of one
    #: frame, each late wakeup of tbf's timer loses its tokens, and a 40 Mb/s bottleneck
    #: delivered about 10 % less; a larger one lets its bytes through at line rate, 60 ms ahead
    #: of time at 800 kb/s with four frames (docs/testbed.md).
    burst_bytes: int | None = None
    delays_us: tuple[int, ...] = (0,)
    #: How the one-way delay is made: "netem" (the kernel's), "delay-line" (rampup-delayline),
    #: or "auto": netem where the kernel has it, else the delay line.
    delay: str = "auto"

    @property
    def burst(self) -> int:
        return self.burst_bytes if self.burst_bytes is not None else max(1514, -(-self.rate_bps // 8_000))

    def __post_init__(self) -> None:
        if self.delay not in DELAYS:
            raise TestbedError(f"path: delay {self.delay!r} is not one of {', '.join(DELAYS)}")

    def qdiscs(self) -> list[list[str]]:
        """The tc commands for one direction (after ``tc qdisc add dev DEV``)."""
        if (self.queue_bytes is None) == (self.queue_packets is None):
            raise TestbedError("path: give the queue in bytes or in packets, one of the two")
        child = ["bfifo", "limit", str(self.queue_bytes)] if self.queue_bytes is not None else ["pfifo", "limit", str(self.queue_packets)]
        # tbf's own queue (limit) is left at one burst: the child holds the drop-tail queue.
        return [["root", "handle", "1:", "tbf", "rate", f"{self.rate_bps}bit", "burst", str(self.burst), "limit", str(self.burst)],
                ["parent", "1:1", "handle", "10:", *child]]


def program(name: str) -> str:
    """One of crates/net's programs (``rampup-delayline``, ``rampup-udp``): the package's own,
    or this checkout's, built now if need be (`programs`)."""
    try:
        return _program(name)
    except ProgramError as e:
        raise TestbedError(str(e)) from e


class Path:
    """Clients ── router ── server, namespaces named ``rampup-<tag>-<host>``: ``client``,
    ``client2``, … (one per entry of the spec's ``delays_us``), ``router`` and ``server``. Every
    host shares one subnet (``address``); the router carries no address. Each client's link
    ends on the router in a delay line that moves each frame on to a bridge after that
    client's one-way delay, and back: two netem qdiscs, one each way, where the kernel has
    netem (``delay_by``), else ``rampup-delayline``. The bridge joins the clients to the
    server. The bottleneck is on the bridge's port towards the server and, the other way, on
    its port towards each client (with several clients, each has its own shaper back: the
    reverse carries their ACKs).

    A context manager: the namespaces and every process started in them go when the block
    ends, however it ends (an exception, Ctrl-C as KeyboardInterrupt). Its processes die
    with the thread that made the path (`owner.Owner`); a process killed outright
    leaves its namespaces, and their record, for `remove_leftovers`. ``delay_stats`` holds
    what rampup's delay lines reported when they stopped (per direction: frames, and the
    lateness of their release in µs)."""

    def __init__(self, spec: PathSpec, tag: str | None = None) -> None:
        if not spec.delays_us:
            raise TestbedError("path: give at least one client (delays_us)")
        self.spec = spec
        self.tag = tag or str(os.getpid())
        self.clients = ["client"] + [f"client{i + 1}" for i in range(1, len(spec.delays_us))]
        self.hosts = [*self.clients, "router", "server"]
        self.ns = {h: f"{PREFIX}{self.tag}-{h}" for h in self.hosts}
        self._owner = Owner()
        self._delay_lines: list[subprocess.Popen[str]] = []
        self.delay_stats: list[dict[str, str]] = []
        #: "netem" or "delay-line", once built.
        self.delay_by = ""

    @staticmethod
    def address(host: str) -> str:
        """``client`` 10.77.0.1, ``server`` 10.77.0.2, ``client<k>`` 10.77.0.<k + 1>."""
        if host == "server":
            return "10.77.0.2"
        k = int(host.removeprefix("client") or 1)
        return f"10.77.0.{1 if k == 1 else k + 1}"

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
        return self._owner.run(["ip", "netns", "exec", self.ns[host], *argv], capture_output=True, text=True, timeout=timeout)

    def popen(self, host: str, *argv: str) -> subprocess.Popen[str]:
        """Starts ``argv`` in ``host``'s namespace; it ends with the path, if not before."""
        return self._owner.popen(["ip", "netns", "exec", self.ns[host], *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    @contextmanager
    def capture(self, host: str, dev: str, file: FsPath | None) -> Iterator[None]:
        """Writes what crosses ``dev`` in ``host``'s namespace to the pcap ``file`` while the
        block runs (headers only: 128 bytes a frame); nothing when ``file`` is None. A
        TestbedError if the file holds fewer frames than the interface counted meanwhile."""
        if file is None:
            yield
            return
        tool = shutil.which("tcpdump") or shutil.which("dumpcap")
        if tool is None:
            raise TestbedError("--pcap needs tcpdump or dumpcap: apt-get install tcpdump")
        file.parent.mkdir(parents=True, exist_ok=True)
        argv = [tool, "-i", dev, "-s", "128", "-w", str(file)] + (["-U", "--immediate-mode"] if tool.endswith("tcpdump") else ["-q", "-P"])
        cap = self._owner.popen(["ip", "netns", "exec", self.ns[host], *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert cap.stderr is not None
        # Both say so on stderr once the interface is open ("listening on", "Capturing on").
        line = cap.stderr.readline()
        if "listening on" not in line and "Capturing on" not in line:
            cap.kill()
            raise TestbedError(f"{tool} did not start on {dev}: {line.strip() or cap.communicate()[1].strip()}")
        # dumpcap says so before it captures: a datagram sent 5 ms later was not kept, 50 ms
        # later it was.
        time.sleep(CAPTURE_SETTLE_S)
        before = self._frames(host, dev)
        try:
            yield
            # dumpcap has no immediate mode: the kernel hands it frames a block at a time, a
            # block when full or 250 ms old, and what it has not read when stopped is lost
            # (stopped at once after a transfer, it kept 4 of 302 frames; 0.1 s later, all).
            time.sleep(CAPTURE_DRAIN_S)
            crossed = self._frames(host, dev) - before
        finally:
            cap.send_signal(signal.SIGINT)
            try:
                report = cap.communicate(timeout=10)[1]
            except subprocess.TimeoutExpired:
                cap.kill()
                report = cap.communicate()[1]
        # dumpcap: "Packets captured: N"; tcpdump: "N packets captured".
        found = re.search(r"Packets captured: (\d+)|(\d+) packets? captured", report)
        kept = None if found is None else int(found.group(1) or found.group(2))
        if kept is None or kept < crossed:
            raise TestbedError(f"the capture of {dev} in {host} kept {'an unknown number' if kept is None else kept} of the {crossed} "
                               f"frames that crossed it ({tool} fell behind: a busy machine?); {file} is incomplete")

    def _frames(self, host: str, dev: str) -> int:
        """Frames ``dev`` has sent and received so far, by the kernel's count."""
        stats = f"/sys/class/net/{dev}/statistics"
        return sum(int(n) for n in self.run(host, "cat", f"{stats}/tx_packets", f"{stats}/rx_packets").stdout.split())

    def remove(self) -> None:
        """Stops the delay lines (keeping their reports), kills what else still runs of what
        this path started or in its namespaces, and removes the namespaces it made."""
        for line in self._delay_lines:
            line.send_signal(signal.SIGINT)
            try:
                out, _ = line.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                line.kill()
                out, _ = line.communicate()
            self.delay_stats += [dict(kv.split("=", 1) for kv in row.split()) for row in out.splitlines() if row.startswith("direction=")]
        self._delay_lines.clear()
        self._owner.remove()

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
        for h in self.hosts:
            made, why = self._owner.add_namespace(self.ns[h])
            if not made:
                raise TestbedError(f"ip netns add {self.ns[h]}: {why}")
            self._must("ip", "-n", self.ns[h], "link", "set", "lo", "up")
            # No IPv6 chatter (router solicitations, DAD) on the path's links.
            self._must("ip", "netns", "exec", self.ns[h], "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1")
        r, s = self.ns["router"], self.ns["server"]
        # client k: c0 ── d<k> [delay line] e<k> ── b<k> ┐
        #                                   router br0 ┤── r1 ── s0 server
        self._must("ip", "-n", r, "link", "add", "name", "br0", "type", "bridge")
        self._must("ip", "-n", s, "link", "add", "name", "s0", "type", "veth", "peer", "name", "r1", "netns", r)
        self._must("ip", "-n", s, "addr", "add", f"{self.address('server')}/24", "dev", "s0")
        up = [(r, "br0"), (r, "r1"), (s, "s0")]
        self._must("ip", "-n", r, "link", "set", "r1", "master", "br0")
        for k, host in enumerate(self.clients, 1):
            c = self.ns[host]
            self._must("ip", "-n", c, "link", "add", "name", "c0", "type", "veth", "peer", "name", f"d{k}", "netns", r)
            self._must("ip", "-n", r, "link", "add", "name", f"e{k}", "type", "veth", "peer", "name", f"b{k}")
            self._must("ip", "-n", r, "link", "set", f"b{k}", "master", "br0")
            self._must("ip", "-n", c, "addr", "add", f"{self.address(host)}/24", "dev", "c0")
            up += [(c, "c0"), (r, f"d{k}"), (r, f"e{k}"), (r, f"b{k}")]
        for ns, dev in up:
            self._must("ip", "-n", ns, "link", "set", dev, "up")
        # Shaped where the router forwards, both ways: towards the server on r1, towards each
        # client on its bridge port. On the server's own link the kernel's TCP would meet its
        # own qdisc, whose backpressure (TCP Small Queues) holds segments back rather than let
        # the queue drop them, as no router on a path does.
        for ns, dev in ((r, "r1"), *((r, f"b{k}") for k in range(1, len(self.clients) + 1))):
            for q in qdiscs:
                self._must("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, *q)
        self.delay_by = "netem" if self._netem(r) else "delay-line"
        for k, delay_us in enumerate(self.spec.delays_us, 1):
            if self.delay_by == "netem":
                # d<k> and e<k> bridged, each holding what it sends for the delay: towards the
                # client on d<k>, towards the server on e<k>; both where the router forwards.
                self._must("ip", "-n", r, "link", "add", "name", f"j{k}", "type", "bridge")
                for dev in (f"d{k}", f"e{k}"):
                    self._must("ip", "-n", r, "link", "set", dev, "master", f"j{k}")
                    self._must("ip", "netns", "exec", r, "tc", "qdisc", "add", "dev", dev, "root", "netem", "delay", f"{delay_us}us",
                               "limit", str(NETEM_LIMIT))
                self._must("ip", "-n", r, "link", "set", f"j{k}", "up")
                continue
            line = self._owner.popen(["ip", "netns", "exec", r, delay_line, f"d{k}", f"e{k}", str(delay_us)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self._delay_lines.append(line)
            assert line.stdout is not None
            if line.stdout.readline().strip() != "ready":
                raise TestbedError(f"the delay line did not start: {line.communicate()[1].strip()}")


    def _netem(self, router_ns: str) -> bool:
        """Whether the delay is made by netem: as the spec asks, or for "auto" whether the
        kernel has it (tried on the router's d1)."""
        if self.spec.delay == "delay-line":
            return False
        ok, why = _run("ip", "netns", "exec", router_ns, "tc", "qdisc", "add", "dev", "d1", "root", "netem", "delay", "1ms")
        if ok:
            _run("ip", "netns", "exec", router_ns, "tc", "qdisc", "del", "dev", "d1", "root")
        elif self.spec.delay == "netem":
            raise TestbedError(f"delay netem: this kernel has no netem ({why}); use the delay line (--delay delay-line)")
        return ok
