"""The connections of one run on a real path (`testbed.Path`), by each of the three stacks the
testbed compares (docs/testbed.md): the kernel's TCP, rampup's TCP over UDP (`rampup-udp`),
and the simulator on the same path translated to its numbers.

A run is one of two kinds of work. Writes (`Writes`, one list per client): each client
connects to the server and makes its writes, each at its time after the connect (or when the
one before is acknowledged, if later), then closes; the clients run at once. A transfer's time
runs from its write to the ACK of its last byte: for the kernel until its send queue is empty
(SIOCOUTQ), for rampup-over-UDP and the simulator from the endpoint's own count. An exchange
(`Exchange`, one client): the client sends a request, the server answers it after a think
time, and so on, then the client closes; an exchange's time runs from the request's write to
the last byte of its response, less the think time. A connection's time runs from the connect
to the end: the server's FIN for the kernel, the FIN's ACK for rampup (writes) or the last
response byte, the last transfer's end or last response byte in the simulator. Drops are the
bottleneck's (both directions), for the run; retransmissions the sending end's own (each
client's, or the server's for an exchange).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from ..api import run
from .path import Path, PathSpec, TestbedError, program

__all__ = ["ETHERNET_BYTES", "KERNEL_HEADER_BYTES", "UDP_HEADER_BYTES", "UDP_MSS", "Exchange", "Outcome", "Writes", "kernel",
           "kernel_exchange", "rampup_udp", "rampup_udp_exchange", "scenario_for", "simulated", "simulated_exchange"]

#: An Ethernet header: a veth's qdisc counts it in every frame, as tbf and bfifo do.
ETHERNET_BYTES = 14
#: IPv4 and TCP with the timestamps option, as Linux sends every segment.
KERNEL_HEADER_BYTES = 20 + 32
#: IPv4, UDP and rampup's wire header (`rampup_tcp::wire`), SACK blocks left out.
UDP_HEADER_BYTES = 20 + 8 + 32
#: rampup's segments over UDP: 1,416 bytes of payload leave room for the headers and three
#: SACK blocks in a 1500-byte MTU.
UDP_MSS = 1416
#: The server listens for client k on PORT + k − 1.
PORT = 9000

#: Writes: (bytes, seconds after the connect).
Writes = list[tuple[int, float]]


@dataclass(frozen=True)
class Exchange:
    """The simulator's `request-response` application with `close = "client"`: ``pairs``
    requests of ``request`` bytes, each answered by ``response`` bytes ``think_s`` after it is
    whole, each next request when the whole response is in."""

    request: int
    response: int
    pairs: int
    think_s: float

    @property
    def text(self) -> str:
        """As rampup-udp's EXCHANGE."""
        return f"{self.request}:{self.response}x{self.pairs}@{self.think_s:g}"


@dataclass(frozen=True)
class Outcome:
    """One connection of a run."""

    stack: str
    ms: float
    transfers_ms: tuple[float, ...]
    retransmits: int
    #: Retransmission timeouts of the sending end (the kernel's TCPTimeouts).
    timeouts: int
    #: The bottleneck's drops in the whole run (every connection's).
    drops: int
    nbytes: int

    @property
    def goodput_mbps(self) -> float:
        """The bytes over the time the transfers took (idle between writes left out, and the
        handshake and close, which each stack times differently)."""
        return self.nbytes * 8 / sum(self.transfers_ms) / 1e3


def _plan(writes: Writes) -> str:
    return ",".join(f"{b}@{t:g}" for b, t in writes)


def _endpoint(p: Path, k: int) -> str:
    """The server's address and port for client k (from 1)."""
    return f"{p.address('server')}:{PORT + k - 1}"


KERNEL_SERVER = """
import socket, sys
host, port = sys.argv[1].rsplit(':', 1)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((host, int(port))); s.listen(1)
print('ready', flush=True)
c, _ = s.accept(); n = 0
while True:
    d = c.recv(1 << 20)
    if not d:
        break
    n += len(d)
c.close(); print(n)
"""
# SO_MAX_PACING_RATE (47) at any rate but ~0 turns the kernel's own pacing on (sk_pacing_status
# SK_PACING_NEEDED): without fq, TCP then paces at its pacing rate itself.
KERNEL_CLIENT = """
import fcntl, socket, struct, sys, termios, time
s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[1].encode())
if sys.argv[2] == '1':
    s.setsockopt(socket.SOL_SOCKET, 47, struct.pack('I', 0xfffffffe))
plan = [(int(b), float(t)) for b, t in (w.split('@') for w in sys.argv[3].split(','))]
host, port = sys.argv[4].rsplit(':', 1)
t0 = time.monotonic(); s.connect((host, int(port))); out = []
for b, at in plan:
    time.sleep(max(0.0, t0 + at - time.monotonic()))
    tw = time.monotonic(); s.sendall(bytes(b))
    while struct.unpack('i', fcntl.ioctl(s, termios.TIOCOUTQ, b'\\0' * 4))[0]:
        time.sleep(0.0002)
    out.append((time.monotonic() - tw) * 1e3)
s.shutdown(socket.SHUT_WR)
while s.recv(1 << 16):
    pass
print((time.monotonic() - t0) * 1e3, ','.join(f'{x:.3f}' for x in out))
"""


# The answering end: TCP_CONGESTION on the listener (the accepted socket inherits it), pacing
# on the accepted socket as KERNEL_CLIENT sets it.
KERNEL_ANSWER = """
import socket, struct, sys, time
cc, paced, req, resp, pairs, think = sys.argv[1], sys.argv[2] == '1', *map(int, sys.argv[3:6]), float(sys.argv[6])
host, port = sys.argv[7].rsplit(':', 1)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode()); s.bind((host, int(port))); s.listen(1)
print('ready', flush=True)
c, _ = s.accept()
if paced:
    c.setsockopt(socket.SOL_SOCKET, 47, struct.pack('I', 0xfffffffe))
for _ in range(pairs):
    n = 0
    while n < req:
        d = c.recv(req - n)
        if not d:
            sys.exit('the client closed before its requests were whole')
        n += len(d)
    time.sleep(think)
    c.sendall(bytes(resp))
while c.recv(1 << 16):
    pass
c.close(); print(pairs * resp)
"""
KERNEL_ASK = """
import socket, sys, time
req, resp, pairs = map(int, sys.argv[1:4])
host, port = sys.argv[4].rsplit(':', 1)
s = socket.socket(); t0 = time.monotonic(); s.connect((host, int(port))); out = []
for _ in range(pairs):
    tw = time.monotonic(); s.sendall(bytes(req)); n = 0
    while n < resp:
        d = s.recv(1 << 20)
        if not d:
            sys.exit('the server closed before its responses were whole')
        n += len(d)
    out.append((time.monotonic() - tw) * 1e3)
s.shutdown(socket.SHUT_WR)
while s.recv(1 << 16):
    pass
print((time.monotonic() - t0) * 1e3, ','.join(f'{x:.3f}' for x in out))
"""


def _counts(p: Path, host: str) -> tuple[int, int]:
    """Retransmitted segments and retransmission timeouts so far in ``host``'s namespace
    (RetransSegs of /proc/net/snmp, TCPTimeouts of /proc/net/netstat: both per namespace)."""
    def counter(file: str, prefix: str, key: str) -> int:
        lines = [line.split() for line in p.run(host, "cat", file).stdout.splitlines() if line.startswith(prefix)]
        return int(lines[1][lines[0].index(key)])
    return counter("/proc/net/snmp", "Tcp:", "RetransSegs"), counter("/proc/net/netstat", "TcpExt:", "TCPTimeouts")


def _since(p: Path, host: str, before: tuple[int, int]) -> tuple[int, int]:
    """``host``'s retransmissions and timeouts since ``before`` (`_counts`)."""
    now = _counts(p, host)
    return now[0] - before[0], now[1] - before[1]


def _drops(p: Path) -> int:
    """Packets the bottleneck dropped, both ways: on the router's port towards the server and
    on its port towards each client, each its qdiscs' largest count (tbf's counts its child's)."""
    total = 0
    for dev in ["r1", *(f"b{k}" for k in range(1, len(p.clients) + 1))]:
        out = p.run("router", "tc", "-s", "qdisc", "show", "dev", dev).stdout
        total += max((int(w.split(",")[0]) for w in out.split("dropped ")[1:]), default=0)
    return total


def _tune(p: Path, host: str, dev: str, slow_start_after_idle: bool, initcwnd: int) -> tuple[int, int]:
    """The kernel's settings for the sending ``host`` (its link ``dev``): slow-start restart
    on or off, no cached metrics, the route's initial window; its counts so far (`_counts`)."""
    for key, value in (("tcp_slow_start_after_idle", int(slow_start_after_idle)), ("tcp_no_metrics_save", 1)):
        p.run(host, "sysctl", "-q", "-w", f"net.ipv4.{key}={value}")
    p.run(host, "ip", "route", "replace", "10.77.0.0/24", "dev", dev, "initcwnd", str(initcwnd))
    return _counts(p, host)


def _server(p: Path, *argv: str) -> Any:
    server = p.popen("server", *argv)
    assert server.stdout is not None
    if server.stdout.readline().strip() != "ready":
        raise TestbedError(f"the server did not start: {server.communicate(timeout=10)[1].strip()}")
    return server


def _finish(what: str, proc: Any, timeout: float) -> str:
    """The output of a client process, or a one-line error."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except Exception:
        proc.kill()
        raise
    if proc.returncode != 0:
        raise TestbedError(f"{what} failed: {err.strip()}")
    return str(out)


def kernel(spec: PathSpec, plans: list[Writes], cc: str = "cubic", slow_start_after_idle: bool = True, initcwnd: int = 10,
           pacing: bool = False, pcap: FsPath | None = None) -> list[Outcome]:
    """The kernel's TCP on a fresh path, one connection per client (``plans``: each client's
    writes), no metrics cached: ``cc`` by TCP_CONGESTION, the initial window by the route's
    ``initcwnd``, Linux's own pacing with ``pacing``; the first client's link captured to
    ``pcap``."""
    with Path(spec) as p:
        if len(plans) != len(p.clients):
            raise TestbedError(f"{len(plans)} write plans for {len(p.clients)} clients")
        servers = [_server(p, sys.executable, "-u", "-c", KERNEL_SERVER, _endpoint(p, k)) for k in range(1, len(plans) + 1)]
        before = [_tune(p, host, "c0", slow_start_after_idle, initcwnd) for host in p.clients]
        with p.capture("client", "c0", pcap):
            clients = [p.popen(host, sys.executable, "-c", KERNEL_CLIENT, cc, str(int(pacing)), _plan(plan), _endpoint(p, k))
                       for k, (host, plan) in enumerate(zip(p.clients, plans, strict=True), 1)]
            outs = [_finish("the kernel client", c, 600) for c in clients]
        drops = _drops(p)
        done = []
        for host, plan, server, out, b in zip(p.clients, plans, servers, outs, before, strict=True):
            nbytes = sum(n for n, _ in plan)
            received = int(server.communicate(timeout=60)[0].split()[-1])
            if received != nbytes:
                raise TestbedError(f"the server read {received} bytes of {nbytes} from {host}")
            ms, transfers = out.split()
            done.append(Outcome("kernel", float(ms), tuple(float(x) for x in transfers.split(",")), *_since(p, host, b), drops, nbytes))
        return done


def _one_client(p: Path) -> None:
    if len(p.clients) != 1:
        raise TestbedError(f"an exchange runs between one client and the server, not {len(p.clients)} clients")


def _exchanges(ex: Exchange, stack: str, ms: float, exchanges_ms: list[float], losses: tuple[int, int], drops: int) -> list[Outcome]:
    """The one connection of an exchange run; each exchange's time less the think time."""
    if len(exchanges_ms) != ex.pairs:
        raise TestbedError(f"{stack}: {len(exchanges_ms)} exchanges timed of {ex.pairs}")
    return [Outcome(stack, ms, tuple(x - ex.think_s * 1e3 for x in exchanges_ms), *losses, drops, ex.pairs * ex.response)]


def kernel_exchange(spec: PathSpec, ex: Exchange, cc: str = "cubic", slow_start_after_idle: bool = True, initcwnd: int = 10,
                    pacing: bool = False, pcap: FsPath | None = None) -> list[Outcome]:
    """The kernel's TCP on a fresh path, ``ex`` between the first client and the server, with
    the server (which sends the responses) set as `kernel` sets a client."""
    with Path(spec) as p:
        _one_client(p)
        sizes = (str(ex.request), str(ex.response), str(ex.pairs))
        server = _server(p, sys.executable, "-u", "-c", KERNEL_ANSWER, cc, str(int(pacing)), *sizes, f"{ex.think_s:g}", _endpoint(p, 1))
        before = _tune(p, "server", "s0", slow_start_after_idle, initcwnd)
        with p.capture("client", "c0", pcap):
            out = _finish("the kernel client", p.popen("client", sys.executable, "-c", KERNEL_ASK, *sizes, _endpoint(p, 1)), 600)
        answered = _finish("the kernel server", server, 60)
        if int(answered.split()[-1]) != ex.pairs * ex.response:
            raise TestbedError(f"the server sent {answered.strip()} bytes of {ex.pairs * ex.response}")
        ms, exchanges = out.split()
        return _exchanges(ex, "kernel", float(ms), [float(x) for x in exchanges.split(",")], _since(p, "server", before), _drops(p))


def rampup_udp(spec: PathSpec, plans: list[Writes], tcp: str, pcap: FsPath | None = None) -> list[Outcome]:
    """rampup's TCP over UDP with the flow keys ``tcp`` at both ends, one connection per client;
    the first client's link captured to ``pcap``."""
    udp = program("rampup-udp")
    with Path(spec) as p:
        if len(plans) != len(p.clients):
            raise TestbedError(f"{len(plans)} write plans for {len(p.clients)} clients")
        servers = [_server(p, udp, "serve", _endpoint(p, k), tcp) for k in range(1, len(plans) + 1)]
        with p.capture("client", "c0", pcap):
            clients = [p.popen(host, udp, "send", f"{p.address(host)}:{PORT}", _endpoint(p, k), _plan(plan), tcp)
                       for k, (host, plan) in enumerate(zip(p.clients, plans, strict=True), 1)]
            outs = [_finish("rampup-udp", c, 700) for c in clients]
        for server in servers:
            server.kill()
            server.communicate()
        drops = _drops(p)
        done = []
        for plan, out in zip(plans, outs, strict=True):
            nbytes = sum(n for n, _ in plan)
            r = _report("rampup-udp", out)
            if int(r["bytes_acked"]) != nbytes:
                raise TestbedError(f"rampup-udp did not finish: {out.strip()}")
            transfers = tuple(float(x) for x in r["transfers_ms"].split(","))
            done.append(Outcome("rampup-udp", float(r["ms"]), transfers, int(r["retransmits"]), int(r["timeouts"]), drops, nbytes))
        return done


def _report(what: str, out: str) -> dict[str, str]:
    """rampup-udp's line of results, which must say it finished."""
    r = dict(kv.split("=", 1) for kv in out.split())
    if r.get("done") != "true":
        raise TestbedError(f"{what} did not finish: {out.strip()}")
    return r


def rampup_udp_exchange(spec: PathSpec, ex: Exchange, tcp: str, pcap: FsPath | None = None) -> list[Outcome]:
    """rampup's TCP over UDP with the flow keys ``tcp`` at both ends, ``ex`` between the first
    client (`rampup-udp ask`) and the server (`rampup-udp answer`)."""
    udp = program("rampup-udp")
    with Path(spec) as p:
        _one_client(p)
        server = _server(p, udp, "answer", _endpoint(p, 1), ex.text, tcp)
        with p.capture("client", "c0", pcap):
            asked = _report("rampup-udp ask", _finish("rampup-udp", p.popen("client", udp, "ask", f"{p.address('client')}:{PORT}",
                                                                            _endpoint(p, 1), ex.text, tcp), 700))
        answered = _report("rampup-udp answer", _finish("rampup-udp answer", server, 60))
        if int(answered["bytes_acked"]) != ex.pairs * ex.response:
            raise TestbedError(f"rampup-udp answer sent {answered['bytes_acked']} bytes of {ex.pairs * ex.response}")
        exchanges = [float(x) for x in asked["transfers_ms"].split(",")]
        losses = int(answered["retransmits"]), int(answered["timeouts"])
        return _exchanges(ex, "rampup-udp", float(asked["ms"]), exchanges, losses, _drops(p))


def _app(work: Writes | Exchange) -> dict[str, Any]:
    if isinstance(work, Exchange):
        return {"kind": "request-response", "request": work.request, "response": work.response, "pairs": work.pairs,
                "think": f"{round(work.think_s * 1e6)}us", "close": "client"}
    return {"kind": "writes", "schedule": [{"at": f"{round(t * 1e6)}us", "bytes": b} for b, t in work]}


def scenario_for(spec: PathSpec, work: list[Writes] | Exchange, tcp: dict[str, Any]) -> dict[str, Any]:
    """The path as the simulator's scenario (scenarios/testbed/ holds these): each client ──
    router at its one-way delay and a veth's rate, router ── server the bottleneck (tbf's rate
    and burst as a token bucket, the queue's limit); one flow per client with its writes (or
    the one client's exchange) and the keys ``tcp``; frames of the kernel's segments (1,448 bytes plus 66 of IPv4, TCP with
    timestamps and Ethernet, as tbf and bfifo count them)."""
    queue = {"bytes": spec.queue_bytes} if spec.queue_bytes is not None else {"packets": spec.queue_packets}
    clients = ["client"] + [f"client{k}" for k in range(2, len(spec.delays_us) + 1)]
    works: Sequence[Writes | Exchange] = [work] if isinstance(work, Exchange) else work
    return {
        "duration": "600s",
        "header_bytes": KERNEL_HEADER_BYTES + ETHERNET_BYTES,
        "ack_bytes": KERNEL_HEADER_BYTES + ETHERNET_BYTES,
        "topology": {"kind": "custom", "nodes": [*clients, "router", "server"], "link": [
            *({"a": c, "b": "router", "rate": "10Gbps", "delay": f"{d}us", "queue": {"packets": 10_000}}
              for c, d in zip(clients, spec.delays_us, strict=True)),
            {"a": "router", "b": "server", "rate": f"{spec.rate_bps}bps", "delay": "0s", "queue": queue, "burst": spec.burst},
        ]},
        "flow": [{"from": c, "to": "server", "tcp": tcp, "app": _app(w)} for c, w in zip(clients, works, strict=True)],
        "trace": {"timeseries": False, "queues": False},
    }


def _simulate(scenario: dict[str, Any], tcp: dict[str, Any], header_bytes: int) -> Any:
    """The simulator's result for ``scenario`` with every flow's keys ``tcp``, and every frame
    ``header_bytes`` plus the Ethernet header beyond its payload."""
    return run({**scenario, "header_bytes": header_bytes + ETHERNET_BYTES, "ack_bytes": header_bytes + ETHERNET_BYTES,
                "flow": [{**f, "tcp": tcp} for f in scenario["flow"]]})


def simulated_exchange(scenario: dict[str, Any], ex: Exchange, tcp: dict[str, Any], header_bytes: int) -> list[Outcome]:
    """The simulator on a scenario of one `request-response` flow (`close = "client"`) that
    makes ``ex``, as `simulated`. Its connections table times the exchanges together (the last response byte
    less the connection's establishment, when the first request is written); exchange k's own
    time is that of a run of k pairs less that of k − 1, for the run of k pairs is the same
    as the longer one until its last response is in."""
    [flow] = scenario["flow"]
    ends_ns, last = [0.0], None
    for k in range(1, ex.pairs + 1):
        last = _simulate({**scenario, "flow": [{**flow, "app": {**flow["app"], "pairs": k}}]}, tcp, header_bytes)
        [conn] = last.connections.to_dict("records")
        ends_ns.append(conn["last_byte_down_ns"] - conn["established_ns"])
    assert last is not None
    exchanges = [(b - a) / 1e6 for a, b in zip(ends_ns, ends_ns[1:], strict=False)]
    [f] = last.flows.to_dict("records")
    return [Outcome("simulator", conn["last_byte_down_ns"] / 1e6, tuple(x - ex.think_s * 1e3 for x in exchanges), int(f["retransmits"]), int(f["timeouts"]),
                    int(f["drops"]), ex.pairs * ex.response)]


def simulated(scenario: dict[str, Any], tcp: dict[str, Any], header_bytes: int) -> list[Outcome]:
    """The simulator on ``scenario`` (a path as `scenario_for` writes it) with every flow's keys
    ``tcp``, and every frame ``header_bytes`` plus the Ethernet header beyond its payload."""
    r = _simulate(scenario, tcp, header_bytes)
    t = r.transfers
    drops = int(r.flows["drops"].sum())
    done = []
    for i, flow in r.flows.iterrows():
        mine = t[t["flow"] == i]
        elapsed = tuple(float(x) * 1e3 for x in mine["elapsed_s"])
        end_ms = max(s / 1e6 + e for s, e in zip(mine["start_ns"], elapsed, strict=True))
        done.append(Outcome("simulator", end_ms, elapsed, int(flow["retransmits"]), int(flow["timeouts"]), drops, int(mine["bytes"].sum())))
    return done
