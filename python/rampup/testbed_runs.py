"""One transfer on a real path (`testbed.Path`), by each of the three stacks the testbed
compares (docs/testbed.md): the kernel's TCP, rampup's TCP over UDP (`rampup-udp`), and the
simulator on the same path translated to its numbers.

A transfer: the client connects to the server, writes ``nbytes``, closes, and its time runs
from the connect to the end: for the kernel until the server's FIN arrives (the server closes
when it has read everything), for rampup-over-UDP until its FIN is acknowledged, in the
simulator until the last byte's ACK. Drops are the bottleneck queue's (the router's link
towards the server); retransmissions the client's.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import partial
from typing import Any

from .testbed import Path, PathSpec, TestbedError, program

__all__ = ["ETHERNET_BYTES", "Outcome", "kernel", "rampup_udp", "simulated"]

#: An Ethernet header: a veth's qdisc counts it in every frame, as tbf and bfifo do.
ETHERNET_BYTES = 14
#: IPv4 and TCP with the timestamps option, as Linux sends every segment.
KERNEL_HEADER_BYTES = 20 + 32
#: IPv4, UDP and rampup's wire header (`rampup_tcp::wire`), SACK blocks left out.
UDP_HEADER_BYTES = 20 + 8 + 32
PORT = 9000


@dataclass(frozen=True)
class Outcome:
    stack: str
    ms: float
    retransmits: int
    drops: int
    nbytes: int

    @property
    def goodput_mbps(self) -> float:
        return self.nbytes * 8 / self.ms / 1e3


KERNEL_SERVER = f"""
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('{Path.ADDRESS["server"]}', {PORT})); s.listen(1)
print('ready', flush=True)
c, _ = s.accept(); n = 0
while True:
    d = c.recv(1 << 20)
    if not d:
        break
    n += len(d)
c.close(); print(n)
"""
KERNEL_CLIENT = f"""
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[1].encode())
left = int(sys.argv[2]); buf = bytes(1 << 16)
t = time.perf_counter(); s.connect(('{Path.ADDRESS["server"]}', {PORT}))
while left:
    left -= s.send(buf[:min(left, len(buf))])
s.shutdown(socket.SHUT_WR)
while s.recv(1 << 16):
    pass
print((time.perf_counter() - t) * 1e3)
"""


def _retransmits(p: Path) -> int:
    """TcpRetransSegs of the client's namespace (/proc/net/snmp is per namespace)."""
    lines = [line.split() for line in p.run("client", "cat", "/proc/net/snmp").stdout.splitlines() if line.startswith("Tcp:")]
    return int(lines[1][lines[0].index("RetransSegs")])


def _drops(p: Path) -> int:
    """Packets the router's link towards the server dropped, over its qdiscs."""
    out = p.run("router", "tc", "-s", "qdisc", "show", "dev", "r1").stdout
    return max((int(w.split(",")[0]) for w in out.split("dropped ")[1:]), default=0)


def _server(p: Path, *argv: str) -> Any:
    server = p.popen("server", *argv)
    assert server.stdout is not None
    if server.stdout.readline().strip() != "ready":
        raise TestbedError(f"the server did not start: {server.communicate(timeout=10)[1].strip()}")
    return server


def kernel(spec: PathSpec, nbytes: int, cc: str = "cubic", slow_start_after_idle: bool = True) -> Outcome:
    """The kernel's TCP (``cc`` by TCP_CONGESTION) on a fresh path: no metrics cached."""
    with Path(spec) as p:
        p.run("client", "sysctl", "-q", "-w", f"net.ipv4.tcp_slow_start_after_idle={int(slow_start_after_idle)}")
        p.run("client", "sysctl", "-q", "-w", "net.ipv4.tcp_no_metrics_save=1")
        server = _server(p, sys.executable, "-u", "-c", KERNEL_SERVER)
        before = _retransmits(p)
        done = p.run("client", sys.executable, "-c", KERNEL_CLIENT, cc, str(nbytes), timeout=600)
        if done.returncode != 0:
            raise TestbedError(f"the kernel client failed: {done.stderr.strip()}")
        received = int(server.communicate(timeout=60)[0].split()[-1])
        if received != nbytes:
            raise TestbedError(f"the server read {received} bytes of {nbytes}")
        return Outcome("kernel", float(done.stdout), _retransmits(p) - before, _drops(p), nbytes)


def rampup_udp(spec: PathSpec, nbytes: int, tcp: str) -> Outcome:
    """rampup's TCP over UDP with the flow keys ``tcp`` at both ends."""
    udp = program("rampup-udp")
    with Path(spec) as p:
        server = _server(p, udp, "serve", f"{Path.ADDRESS['server']}:{PORT}", tcp)
        done = p.run("client", udp, "send", f"{Path.ADDRESS['client']}:{PORT}", f"{Path.ADDRESS['server']}:{PORT}", str(nbytes), tcp,
                     timeout=700)
        server.kill()
        if done.returncode != 0:
            raise TestbedError(f"rampup-udp failed: {done.stderr.strip()}")
        r = dict(kv.split("=", 1) for kv in done.stdout.split())
        if r["done"] != "true" or int(r["bytes_acked"]) != nbytes:
            raise TestbedError(f"rampup-udp did not finish: {done.stdout.strip()}")
        return Outcome("rampup-udp", float(r["ms"]), int(r["retransmits"]), _drops(p), nbytes)


def simulated(spec: PathSpec, nbytes: int, tcp: dict[str, Any], header_bytes: int) -> Outcome:
    """The simulator on the path's numbers: client ── router (the one-way delay, a veth's
    rate) ── server (the bottleneck's rate and queue); every frame ``header_bytes`` plus the
    Ethernet header beyond its payload, as tbf and bfifo count it."""
    from . import run  # noqa: PLC0415

    queue = {"bytes": spec.queue_bytes} if spec.queue_bytes is not None else {"packets": spec.queue_packets}
    scenario = {
        "duration": "600s",
        "header_bytes": header_bytes + ETHERNET_BYTES,
        "ack_bytes": header_bytes + ETHERNET_BYTES,
        "topology": {"kind": "custom", "nodes": ["client", "router", "server"], "link": [
            {"a": "client", "b": "router", "rate": "10Gbps", "delay": f"{spec.delay_us}us", "queue": {"packets": 10_000}},
            {"a": "router", "b": "server", "rate": f"{spec.rate_bps}bps", "delay": "0s", "queue": queue},
        ]},
        "flow": [{"from": "client", "to": "server", "app": {"kind": "writes", "schedule": [{"at": "0s", "bytes": nbytes}]}, "tcp": tcp}],
        "trace": {"timeseries": False, "queues": False},
    }
    r = run(scenario)
    transfer, flow = r.transfers.iloc[0], r.flows.iloc[0]
    return Outcome("simulator", float(transfer["elapsed_s"]) * 1e3, int(flow["retransmits"]), int(flow["drops"]), nbytes)


#: The bulk experiment (issue 21): one flow, 40 Mb/s, 100 ms RTT, a 250-packet queue.
BULK = PathSpec(rate_bps=40_000_000, queue_packets=250, delay_us=50_000)
#: The kernel's congestion control -> the flow keys that model it (the linux profile; Linux's
#: Reno has no HyStart) and the same for rampup over UDP, whose datagrams leave 1,416 bytes of
#: payload in a 1500-byte MTU.
BULK_STACKS = {
    "cubic": 'profile = "linux"',
    "reno": 'profile = "linux", cc = "newreno", startup = "slow-start"',
}
UDP_MSS = 1416


def bulk(nbytes: int, reps: int, progress: Any = print) -> list[dict[str, Any]]:
    """Every stack of the bulk experiment ``reps`` times: one row per run."""
    rows = []
    for cc, keys in BULK_STACKS.items():
        tcp = dict(kv.split(" = ", 1) for kv in keys.split(", "))
        sim_tcp = {k: v.strip('"') for k, v in tcp.items()}
        runs = [("kernel", partial(kernel, BULK, nbytes, cc=cc)),
                ("rampup-udp", partial(rampup_udp, BULK, nbytes, f"{keys}, mss = {UDP_MSS}")),
                # The simulator is deterministic: one run of each.
                ("simulator", partial(simulated, BULK, nbytes, sim_tcp, KERNEL_HEADER_BYTES)),
                ("simulator (udp)", partial(simulated, BULK, nbytes, {**sim_tcp, "mss": UDP_MSS}, UDP_HEADER_BYTES))]
        for name, go in runs:
            for rep in range(1 if name.startswith("simulator") else reps):
                o = go()
                rows.append({"cc": cc, "stack": name, "rep": rep + 1, "ms": o.ms, "goodput_mbps": o.goodput_mbps,
                             "retransmits": o.retransmits, "drops": o.drops})
                progress(f"{cc} {name} {rep + 1}: {o.ms:.0f} ms, {o.retransmits} retransmits, {o.drops} drops")
    return rows
