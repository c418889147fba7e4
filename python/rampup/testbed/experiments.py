"""The testbed's experiments (docs/testbed.md), each a scenario file that ships in the package
(python/rampup/scenarios/testbed/): the simulator runs the file as it is, and the real path is
built from its numbers (each client's one-way delay; the bottleneck's rate, token bucket and
queue) with the same writes.
An experiment's cases change the flows' `tcp` keys, and the kernel's settings to match.

Each case runs on four stacks: the kernel's TCP, rampup's over UDP, and the simulator with the
kernel's segments and with rampup-udp's (`runs`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path as FsPath
from typing import Any

from . import runs as tr
from .path import PathSpec, TestbedError

__all__ = ["EXPERIMENTS", "SCENARIOS", "Experiment", "bulk", "exchange", "experiment", "restart", "two_flows"]

#: The experiments' scenario files, in the package: an install runs them as a checkout does.
SCENARIOS = FsPath(__file__).resolve().parents[1] / "scenarios" / "testbed"
#: What `rampup testbed run` offers.
EXPERIMENTS = ("bulk", "restart", "exchange", "two-flows")

_UNITS_US = {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}
_UNITS_BPS = {"bps": 1, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


def _quantity(value: Any, units: dict[str, float], key: str) -> int:
    m = re.fullmatch(r"([0-9.]+)\s*([A-Za-z]+)", str(value))
    if not m or m.group(2) not in units:
        raise TestbedError(f"{key}: {value!r} is not a quantity in {', '.join(units)}")
    return round(float(m.group(1)) * units[m.group(2)])


@dataclass(frozen=True)
class Experiment:
    """A scenario file as the testbed reads it: the path, and each client's writes or the one
    client's exchange."""

    name: str
    scenario: dict[str, Any]
    spec: PathSpec
    plans: list[tr.Writes]
    exchange: tr.Exchange | None = None


def _exchange(app: dict[str, Any], where: str) -> tr.Exchange:
    """A `request-response` app as an Exchange: sizes in whole bytes, `close = "client"`."""
    if app.get("close") != "client" or app.get("connections", 1) != 1:
        raise TestbedError(f"{where}: a request-response app here has close = \"client\" and one connection")
    request, response, pairs = app.get("request"), app.get("response"), app.get("pairs", 1)
    if not (isinstance(request, int) and isinstance(response, int) and isinstance(pairs, int) and min(request, response, pairs) > 0):
        raise TestbedError(f"{where}: request, response (bytes) and pairs are whole numbers here")
    return tr.Exchange(request, response, pairs, _quantity(app.get("think", "0s"), _UNITS_US, f"{where}.think") / 1e6)


def experiment(name: str, delay: str = "auto") -> Experiment:
    """Reads `SCENARIOS`/<name>.toml. Its topology: clients ``client``, ``client2``, … each
    linked to ``router`` (the one-way delay), and ``router`` ── ``server`` with a ``burst`` (the
    bottleneck); one flow from each client to ``server`` with a ``writes`` app, or one flow
    with a ``request-response`` app (the server answers). ``delay``: how the real path makes
    the one-way delay (`PathSpec.delay`)."""
    file = SCENARIOS / f"{name}.toml"
    try:
        sc = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise TestbedError(f"{file}: {e}") from e
    links = sc["topology"]["link"]
    neck = [link for link in links if "burst" in link]
    if len(neck) != 1 or {neck[0]["a"], neck[0]["b"]} != {"router", "server"}:
        raise TestbedError(f"{file}: the bottleneck is one router ── server link with a burst")
    queue = neck[0]["queue"]
    delays = {link["a"]: _quantity(link["delay"], _UNITS_US, f"{file}: {link['a']}.delay") for link in links if link is not neck[0]}
    flows = sc["flow"]
    clients = [f["from"] for f in flows]
    if clients != ["client"] + [f"client{k}" for k in range(2, len(flows) + 1)] or set(delays) != set(clients):
        raise TestbedError(f"{file}: one flow from each of client, client2, … , each linked to the router")
    spec = PathSpec(rate_bps=_quantity(neck[0]["rate"], _UNITS_BPS, f"{file}: bottleneck rate"), queue_bytes=queue.get("bytes"),
                    queue_packets=queue.get("packets"), burst_bytes=neck[0]["burst"], delays_us=tuple(delays[c] for c in clients), delay=delay)
    if flows[0]["app"]["kind"] == "request-response":
        if len(flows) != 1:
            raise TestbedError(f"{file}: a request-response experiment has one flow")
        return Experiment(name, sc, spec, [], _exchange(flows[0]["app"], f"{file}: app"))
    plans = [[(w["bytes"], _quantity(w["at"], _UNITS_US, f"{file}: writes") / 1e6) for w in f["app"]["schedule"]] for f in flows]
    return Experiment(name, sc, spec, plans)


def _keys(keys: str) -> dict[str, Any]:
    """Inline `tcp` keys (as rampup-udp takes them) as a dict for the simulator's scenario."""
    tcp: dict[str, Any] = tomllib.loads(f"tcp = {{ {keys} }}")["tcp"]
    return tcp


def _stacks(case: str, exp: Experiment, keys: str, **kernel: Any) -> list[tuple[str, str, Any]]:
    """The four runs of one case: the kernel (with the settings ``kernel``), rampup over UDP,
    and the simulator with the kernel's segments and with rampup-udp's."""
    sim, udp = _keys(keys), f"{keys}, mss = {tr.UDP_MSS}"
    ex = exp.exchange
    # The work and its runs differ in type (an exchange, or each client's writes).
    work: Any
    kernel_run: Callable[..., list[tr.Outcome]]
    udp_run: Callable[..., list[tr.Outcome]]
    if ex is not None:
        work, kernel_run, udp_run, simulate = ex, tr.kernel_exchange, tr.rampup_udp_exchange, partial(tr.simulated_exchange, exp.scenario, ex)
    else:
        work, kernel_run, udp_run, simulate = exp.plans, tr.kernel, tr.rampup_udp, partial(tr.simulated, exp.scenario)
    stacks = [partial(kernel_run, exp.spec, work, **kernel), partial(udp_run, exp.spec, work, udp),
              partial(simulate, sim, tr.KERNEL_HEADER_BYTES), partial(simulate, {**sim, "mss": tr.UDP_MSS}, tr.UDP_HEADER_BYTES)]
    return [(case, stack, go) for stack, go in zip(("kernel", "rampup-udp", "simulator", "simulator (udp)"), stacks, strict=True)]


def _table(runs: list[tuple[str, str, Any]], reps: int, progress: Any, pcap_dir: FsPath | None) -> list[dict[str, Any]]:
    """Each (case, stack, run) ``reps`` times (the simulator once: it is deterministic): one row
    per connection; the real runs captured into ``pcap_dir``, one file each, when given."""
    rows = []
    for case, stack, go in runs:
        simulated = stack.startswith("simulator")
        for rep in range(1 if simulated else reps):
            slug = re.sub(r"[^a-z0-9]+", "-", f"{case} {stack} {rep + 1}".lower()).strip("-")
            outcomes = go() if simulated else go(pcap=pcap_dir / f"{slug}.pcap" if pcap_dir else None)
            for k, o in enumerate(outcomes, 1):
                rows.append({"case": case, "stack": stack, "rep": rep + 1, "flow": k, "ms": o.ms, "goodput_mbps": o.goodput_mbps,
                             **{f"transfer{i + 1}_ms": x for i, x in enumerate(o.transfers_ms)},
                             "retransmits": o.retransmits, "timeouts": o.timeouts, "drops": o.drops})
                flow = f" flow {k}" if len(outcomes) > 1 else ""
                progress(f"{case} {stack} {rep + 1}{flow}: {o.ms:.0f} ms, transfers {', '.join(f'{x:.0f}' for x in o.transfers_ms)} ms, "
                         f"{o.retransmits} retransmits, {o.timeouts} timeouts, {o.drops} drops")
    return rows


#: The kernel's congestion control -> the flow keys that model it (the linux profile; Linux's
#: Reno has no HyStart; tcp_bbr.c is BBRv1, docs/bbr.md).
CC_KEYS = {
    "cubic": 'profile = "linux"',
    "reno": 'profile = "linux", cc = "newreno", startup = "slow-start"',
    "bbr": 'profile = "linux", cc = "bbr"',
}

#: What `bulk` and `two-flows` run unless asked for others.
DEFAULT_CCS = ("cubic", "reno")


def _by_cc(exp: Experiment, reps: int, progress: Any, pcap_dir: FsPath | None, ccs: tuple[str, ...]) -> list[dict[str, Any]]:
    """``exp`` with each congestion control of ``ccs`` (`CC_KEYS`), every stack ``reps`` times."""
    runs = [run for cc in ccs for run in _stacks(cc, exp, CC_KEYS[cc], cc=cc)]
    return _table(runs, reps, progress, pcap_dir)


def bulk(nbytes: int | None, reps: int, progress: Any = print, pcap_dir: FsPath | None = None, delay: str = "auto",
         ccs: tuple[str, ...] = DEFAULT_CCS) -> list[dict[str, Any]]:
    """scenarios/testbed/bulk.toml with each congestion control of ``ccs`` (CUBIC and Reno),
    every stack ``reps`` times; ``nbytes`` in place of the file's write."""
    exp = experiment("bulk", delay)
    if nbytes is not None:
        [[(_, at)]] = exp.plans
        [flow] = exp.scenario["flow"]
        app = {**flow["app"], "schedule": [{**flow["app"]["schedule"][0], "bytes": nbytes}]}
        exp = replace(exp, plans=[[(nbytes, at)]], scenario={**exp.scenario, "flow": [{**flow, "app": app}]})
    return _by_cc(exp, reps, progress, pcap_dir, ccs)


def two_flows(reps: int, progress: Any = print, pcap_dir: FsPath | None = None, delay: str = "auto",
              ccs: tuple[str, ...] = DEFAULT_CCS) -> list[dict[str, Any]]:
    """scenarios/testbed/two-flows.toml with each congestion control of ``ccs`` (CUBIC and
    Reno): two clients of different RTTs share the bottleneck; every stack ``reps`` times."""
    return _by_cc(experiment("two-flows", delay), reps, progress, pcap_dir, ccs)


def _restarts(exp: Experiment, initial_windows: tuple[int, ...], ccs: tuple[str, ...]) -> list[tuple[str, str, Any]]:
    """``exp``'s runs with each initial window: for CUBIC, slow-start restart (Linux's) and none,
    and for none the kernel's pacing too; for BBR, which paces itself, its own restart
    (`bbr_cwnd_event`) without the kernel's slow-start restart."""
    runs = []
    for iw in initial_windows:
        if "cubic" in ccs:
            for ssr in (True, False):
                for paced in (False, True) if not ssr else (False,):
                    case = f"IW {iw}, {'SSR' if ssr else 'NSSR'}{' + pacing' if paced else ''}"
                    keys = f'profile = "linux", initial_window = {iw}, restart = "{"ssr-linux" if ssr else "nssr"}"' + \
                        (', pacing = "linux"' if paced else "")
                    runs += _stacks(case, exp, keys, cc="cubic", slow_start_after_idle=ssr, initcwnd=iw, pacing=paced)
        if "bbr" in ccs:
            runs += _stacks(f"IW {iw}, BBR", exp, f'{CC_KEYS["bbr"]}, initial_window = {iw}', cc="bbr", slow_start_after_idle=False, initcwnd=iw)
    return runs


#: What `restart` and `exchange` run unless asked for others.
RESTART_CCS = ("cubic",)

#: The congestion controls `restart` and `exchange` know.
RESTART_KNOWN = ("cubic", "bbr")


def restart(reps: int, progress: Any = print, pcap_dir: FsPath | None = None, delay: str = "auto",
            ccs: tuple[str, ...] = RESTART_CCS) -> list[dict[str, Any]]:
    """scenarios/testbed/restart.toml with initial window 4 and 2: CUBIC with slow-start restart
    (Linux's) and none, and for none the kernel's pacing too; BBR if ``ccs`` names it. Every
    stack ``reps`` times."""
    return _table(_restarts(experiment("restart", delay), (4, 2), ccs), reps, progress, pcap_dir)


def exchange(reps: int, progress: Any = print, pcap_dir: FsPath | None = None, delay: str = "auto",
             ccs: tuple[str, ...] = RESTART_CCS) -> list[dict[str, Any]]:
    """scenarios/testbed/exchange.toml, requests answered after an idle longer than the RTO:
    initial window 4, slow-start restart and none, and for none the kernel's pacing too, set
    at the server (the sending end); BBR if ``ccs`` names it. Every stack ``reps`` times."""
    return _table(_restarts(experiment("exchange", delay), (4,), ccs), reps, progress, pcap_dir)
