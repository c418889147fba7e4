"""One connection on a real path (`testbed.Path`), by each of the three stacks the testbed
compares (docs/testbed.md): the kernel's TCP, rampup's TCP over UDP (`rampup-udp`), and the
simulator on the same path translated to its numbers.

A connection: the client connects to the server and makes its writes, each at its time after
the connect (or when the one before is acknowledged, if later), then closes. A transfer's
time runs from its write to the ACK of its last byte: for the kernel until its send queue is
empty (SIOCOUTQ), for rampup-over-UDP and the simulator from the endpoint's own count. The
connection's time runs from the connect to the end: the server's FIN for the kernel, the FIN's
ACK for rampup, the last transfer's end in the simulator. Drops are the bottleneck queue's (the
router's link towards the server); retransmissions the client's.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import partial
from typing import Any

from .testbed import Path, PathSpec, TestbedError, program

__all__ = ["BULK", "ETHERNET_BYTES", "RESTART", "Outcome", "bulk", "kernel", "rampup_udp", "restart", "simulated"]

#: An Ethernet header: a veth's qdisc counts it in every frame, as tbf and bfifo do.
ETHERNET_BYTES = 14
#: IPv4 and TCP with the timestamps option, as Linux sends every segment.
KERNEL_HEADER_BYTES = 20 + 32
#: IPv4, UDP and rampup's wire header (`rampup_tcp::wire`), SACK blocks left out.
UDP_HEADER_BYTES = 20 + 8 + 32
#: rampup's segments over UDP: 1,416 bytes of payload leave room for the headers and three
#: SACK blocks in a 1500-byte MTU.
UDP_MSS = 1416
PORT = 9000

#: Writes: (bytes, seconds after the connect).
Writes = list[tuple[int, float]]


@dataclass(frozen=True)
class Outcome:
    stack: str
    ms: float
    transfers_ms: tuple[float, ...]
    retransmits: int
    drops: int
    nbytes: int

    @property
    def goodput_mbps(self) -> float:
        return self.nbytes * 8 / self.ms / 1e3


def _plan(writes: Writes) -> str:
    return ",".join(f"{b}@{t:g}" for b, t in writes)


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
# SO_MAX_PACING_RATE (47) at any rate but ~0 turns the kernel's own pacing on (sk_pacing_status
# SK_PACING_NEEDED): without fq, TCP then paces at its pacing rate itself.
KERNEL_CLIENT = f"""
import fcntl, socket, struct, sys, termios, time
s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[1].encode())
if sys.argv[2] == '1':
    s.setsockopt(socket.SOL_SOCKET, 47, struct.pack('I', 0xfffffffe))
plan = [(int(b), float(t)) for b, t in (w.split('@') for w in sys.argv[3].split(','))]
t0 = time.monotonic(); s.connect(('{Path.ADDRESS["server"]}', {PORT})); out = []
for b, at in plan:
    time.sleep(max(0.0, t0 + at - time.monotonic()))
    tw = time.monotonic(); s.sendall(bytes(b))
    while struct.unpack('i', fcntl.ioctl(s, termios.TIOCOUTQ, b'\\0' * 4))[0]:
        time.sleep(0.0002)
    out.append((time.monotonic() - tw) * 1e3)
s.shutdown(socket.SHUT_WR)
while s.recv(1 << 16):
    pass
print((time.monotonic() - t0) * 1e3, ','.join(f'{{x:.3f}}' for x in out))
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


def kernel(spec: PathSpec, writes: Writes, cc: str = "cubic", slow_start_after_idle: bool = True, initcwnd: int = 10,
           pacing: bool = False) -> Outcome:
    """The kernel's TCP on a fresh path, no metrics cached: ``cc`` by TCP_CONGESTION, the
    initial window by the route's ``initcwnd``, Linux's own pacing with ``pacing``."""
    nbytes = sum(b for b, _ in writes)
    with Path(spec) as p:
        for key, value in (("tcp_slow_start_after_idle", int(slow_start_after_idle)), ("tcp_no_metrics_save", 1)):
            p.run("client", "sysctl", "-q", "-w", f"net.ipv4.{key}={value}")
        p.run("client", "ip", "route", "replace", "10.77.0.0/24", "dev", "c0", "initcwnd", str(initcwnd))
        server = _server(p, sys.executable, "-u", "-c", KERNEL_SERVER)
        before = _retransmits(p)
        done = p.run("client", sys.executable, "-c", KERNEL_CLIENT, cc, str(int(pacing)), _plan(writes), timeout=600)
        if done.returncode != 0:
            raise TestbedError(f"the kernel client failed: {done.stderr.strip()}")
        received = int(server.communicate(timeout=60)[0].split()[-1])
        if received != nbytes:
            raise TestbedError(f"the server read {received} bytes of {nbytes}")
        ms, transfers = done.stdout.split()
        return Outcome("kernel", float(ms), tuple(float(x) for x in transfers.split(",")), _retransmits(p) - before, _drops(p), nbytes)


def rampup_udp(spec: PathSpec, writes: Writes, tcp: str) -> Outcome:
    """rampup's TCP over UDP with the flow keys ``tcp`` at both ends."""
    nbytes = sum(b for b, _ in writes)
    udp = program("rampup-udp")
    with Path(spec) as p:
        server = _server(p, udp, "serve", f"{Path.ADDRESS['server']}:{PORT}", tcp)
        done = p.run("client", udp, "send", f"{Path.ADDRESS['client']}:{PORT}", f"{Path.ADDRESS['server']}:{PORT}", _plan(writes), tcp,
                     timeout=700)
        server.kill()
        if done.returncode != 0:
            raise TestbedError(f"rampup-udp failed: {done.stderr.strip()}")
        r = dict(kv.split("=", 1) for kv in done.stdout.split())
        if r["done"] != "true" or int(r["bytes_acked"]) != nbytes:
            raise TestbedError(f"rampup-udp did not finish: {done.stdout.strip()}")
        transfers = tuple(float(x) for x in r["transfers_ms"].split(","))
        return Outcome("rampup-udp", float(r["ms"]), transfers, int(r["retransmits"]), _drops(p), nbytes)


def simulated(spec: PathSpec, writes: Writes, tcp: dict[str, Any], header_bytes: int) -> Outcome:
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
        "flow": [{"from": "client", "to": "server", "tcp": tcp,
                  "app": {"kind": "writes", "schedule": [{"at": f"{round(t * 1e6)}us", "bytes": b} for b, t in writes]}}],
        "trace": {"timeseries": False, "queues": False},
    }
    r = run(scenario)
    t = r.transfers
    elapsed = tuple(float(x) * 1e3 for x in t["elapsed_s"])
    end_ms = max(s / 1e6 + e for s, e in zip(t["start_ns"], elapsed, strict=True))
    flow = r.flows.iloc[0]
    return Outcome("simulator", end_ms, elapsed, int(flow["retransmits"]), int(flow["drops"]), sum(b for b, _ in writes))


def _keys(keys: str) -> dict[str, Any]:
    """Inline `tcp` keys (as rampup-udp takes them) as a dict for the simulator's scenario."""
    import tomllib  # noqa: PLC0415

    return tomllib.loads(f"tcp = {{ {keys} }}")["tcp"]


def _table(runs: list[tuple[str, str, Any]], reps: int, progress: Any) -> list[dict[str, Any]]:
    """Each (case, stack, run) ``reps`` times (the simulator once: it is deterministic)."""
    rows = []
    for case, stack, go in runs:
        for rep in range(1 if stack.startswith("simulator") else reps):
            o = go()
            rows.append({"case": case, "stack": stack, "rep": rep + 1, "ms": o.ms, "goodput_mbps": o.goodput_mbps,
                         **{f"transfer{i + 1}_ms": x for i, x in enumerate(o.transfers_ms)},
                         "retransmits": o.retransmits, "drops": o.drops})
            progress(f"{case} {stack} {rep + 1}: {o.ms:.0f} ms, transfers {', '.join(f'{x:.0f}' for x in o.transfers_ms)} ms, "
                     f"{o.retransmits} retransmits, {o.drops} drops")
    return rows


def _stacks(case: str, spec: PathSpec, writes: Writes, keys: str, kernel_run: Any) -> list[tuple[str, str, Any]]:
    """The four runs of one case: the kernel, rampup over UDP, and the simulator with the
    kernel's segments and with rampup-udp's."""
    sim = _keys(keys)
    return [(case, "kernel", kernel_run),
            (case, "rampup-udp", partial(rampup_udp, spec, writes, f"{keys}, mss = {UDP_MSS}")),
            (case, "simulator", partial(simulated, spec, writes, sim, KERNEL_HEADER_BYTES)),
            (case, "simulator (udp)", partial(simulated, spec, writes, {**sim, "mss": UDP_MSS}, UDP_HEADER_BYTES))]


#: The bulk experiment (issue 21): one flow, 40 Mb/s, 100 ms RTT, a 250-packet queue.
BULK = PathSpec(rate_bps=40_000_000, queue_packets=250, delay_us=50_000)
#: The kernel's congestion control -> the flow keys that model it (the linux profile; Linux's
#: Reno has no HyStart).
BULK_STACKS = {
    "cubic": 'profile = "linux"',
    "reno": 'profile = "linux", cc = "newreno", startup = "slow-start"',
}


def bulk(nbytes: int, reps: int, progress: Any = print) -> list[dict[str, Any]]:
    """Every stack of the bulk experiment ``reps`` times: one row per run. The write comes
    0.5 s after the connect, the handshake done in every stack."""
    writes = [(nbytes, 0.5)]
    runs = [run for cc, keys in BULK_STACKS.items() for run in _stacks(cc, BULK, writes, keys, partial(kernel, BULK, writes, cc=cc))]
    return _table(runs, reps, progress)


#: Restart after idle (issue 21, paper 000's set-up): 800 kb/s, 100 ms RTT, a 10 KB queue; a
#: 24 KB response 0.5 s after the connect (the handshake done, in every stack), and a second
#: after about 5 s idle.
RESTART = PathSpec(rate_bps=800_000, queue_bytes=10_000, delay_us=50_000)
RESTART_WRITES: Writes = [(24_000, 0.5), (24_000, 6.5)]


def restart(reps: int, progress: Any = print) -> list[dict[str, Any]]:
    """Initial window 4 and 2, slow-start restart (Linux's) and none, and for none the kernel's
    pacing too: every stack ``reps`` times."""
    runs = []
    for iw in (4, 2):
        for ssr in (True, False):
            for paced in (False, True) if not ssr else (False,):
                case = f"IW {iw}, {'SSR' if ssr else 'NSSR'}{' + pacing' if paced else ''}"
                keys = f'profile = "linux", initial_window = {iw}, restart = "{"ssr-linux" if ssr else "nssr"}"' + \
                    (', pacing = "linux"' if paced else "")
                go = partial(kernel, RESTART, RESTART_WRITES, cc="cubic", slow_start_after_idle=ssr, initcwnd=iw, pacing=paced)
                runs += _stacks(case, RESTART, RESTART_WRITES, keys, go)
    return _table(runs, reps, progress)
