"""`rampup bench`: the benchmark dumbbell, timed as whole processes, beside ns-2.

N long-lived NewReno bulk flows, each sender and receiver on its own 1 Gb/s, 1 ms access
link; bottleneck 100 Mb/s, 10 ms one-way, drop-tail 1,000 packets; 1000-byte segments plus
40 bytes of header; ACK every segment; 60 simulated seconds; no tracing. Flow i starts at
i/N seconds (ns-2's script draws the starts uniformly over the same second).

Each measurement is a fresh process, so the figure includes set-up, and its peak
resident memory is that process's own (VmHWM). The rampup process is a bare Python
that loads only the compiled engine; ns-2 runs ``rampup/ns2/bench.tcl``. Runs of the
two alternate, and the medians are reported.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _engine

__all__ = ["Measurement", "bench_scenario", "machine", "measure_ns2", "measure_rampup", "run_web_bench", "web_scenario"]

#: Shipped in the package (with the helpers it sources), so a plain `pip install` has it.
NS2_SCRIPT = Path(__file__).resolve().parent / "ns2" / "bench.tcl"
NS2_WEB_SCRIPT = Path(__file__).resolve().parent / "ns2" / "packmime.tcl"


def bench_scenario(flows: int, duration_s: float = 60.0) -> str:
    lines = [
        f'name = "bench-{flows}"',
        f'duration = "{duration_s}s"',
        "[topology]",
        'kind = "dumbbell"',
        f"pairs = {flows}",
        'access_rate = "1Gbps"',
        'access_delay = "1ms"',
        'bottleneck_rate = "100Mbps"',
        'bottleneck_delay = "10ms"',
        "bottleneck_queue = { packets = 1000 }",
        "[tcp]",
        "handshake = false",
        "[trace]",
        "timeseries = false",
        "queues = false",
    ]
    for i in range(flows):
        lines += ["[[flow]]", f'from = "s{i}"', f'to = "r{i}"', f'start = "{i / flows:.9f}s"', 'app = { kind = "bulk" }']
    return "\n".join(lines) + "\n"


@dataclass
class Measurement:
    packets: int
    wall_s: float
    peak_rss_mb: float
    # User plus system time: above wall_s when a run is split over two threads.
    cpu_s: float

    @property
    def packets_per_s(self) -> float:
        return self.packets / self.wall_s


# The child: a bare Python (-S: no site packages) that imports the engine's shared library
# from its folder as a top-level module (not the package, whose imports of pandas and pyarrow
# would be timed too; nor through importlib.util, whose import alone took ~4.5 ms), runs,
# and prints the delivered data packets and its own peak resident memory (VmHWM, kB). It
# reports the peak itself because a sampler from outside can miss a run of a few
# milliseconds altogether, and would take CPU from the two threads of a split run.
_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import _engine
packets = _engine.delivered_packets(open(sys.argv[2]).read(), 1000)
hwm = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(packets, hwm)
"""


def _peak_rss_mb(pid: int) -> float | None:
    """VmHWM of a running process: the peak of its own address space since exec."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def _timed(cmd: list[str], sample_peak: bool) -> tuple[str, float, float, float]:
    """Run `cmd`; its stdout, wall seconds, peak resident MB and CPU seconds.

    The wall time ends when a blocking wait returns, so it is exact to the scheduler's
    wake-up, not to a polling interval. With `sample_peak` the peak is VmHWM, read at once
    and then every few milliseconds by a thread while the process runs (0 if it was never
    read); the rusage that wait4 reports would include the pages of this (large) parent,
    which the kernel folds into the child's maximum at exec.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
        peak = [0.0]
        done = threading.Event()

        def sample(pid: int) -> None:
            while True:
                peak[0] = max(peak[0], _peak_rss_mb(pid) or 0.0)
                if done.wait(0.005):
                    return

        start = time.perf_counter()
        pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=actions)
        sampler = threading.Thread(target=sample, args=(pid,), daemon=True)
        if sample_peak:
            sampler.start()
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
        done.set()
        if sample_peak:
            sampler.join()
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise RuntimeError(f"{Path(cmd[0]).name} failed ({code}): {err.read().decode().strip()[-300:]}")
        return out.read().decode(), wall, peak[0], usage.ru_utime + usage.ru_stime


def measure_rampup(scenario_path: Path, child: str = _CHILD) -> Measurement:
    """`packets` is what the child counts: data packets delivered, or connections completed."""
    cmd = [sys.executable, "-S", "-c", child, str(Path(_engine.__file__).parent), str(scenario_path)]
    out, wall, _, cpu = _timed(cmd, sample_peak=False)
    packets, hwm_kb = out.split()
    return Measurement(int(packets), wall, int(hwm_kb) / 1024.0, cpu)


def measure_ns2(flows: int, duration_s: float) -> Measurement:
    out, wall, rss, cpu = _timed(["ns", str(NS2_SCRIPT), f"n={flows}", f"duration={duration_s:g}"], sample_peak=True)
    m = re.search(r"delivered_pkts=(\d+)", out)
    if not m:
        raise RuntimeError(f"ns-2 printed no delivered_pkts: {out.strip()[-200:]}")
    return Measurement(int(m.group(1)), wall, rss, cpu)


def machine() -> str:
    """The machine a bench ran on, in a few words: its CPU's model, the CPUs this process may
    use, and the kernel. The ratio to ns-2 moves with the CPU (on one thread at N = 10: 8.1x
    on an AMD EPYC, about 9x on the machines before it; docs/performance-steps.md)."""
    model = platform.processor() or platform.machine() or "an unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cpus} CPU{'s' if cpus != 1 else ''}, {platform.system()} {platform.release()}"


def ns2_missing() -> str | None:
    """Why ns-2 cannot be timed here, in a few words, or None when it can."""
    if shutil.which("ns") is None:
        return "`ns` is not on the PATH (apt-get install ns2)"
    if not NS2_SCRIPT.exists():
        return f"its script {NS2_SCRIPT} is missing from this install"
    return None


def run_bench(flows: list[int], repeat: int, duration_s: float, with_ns2: bool, report: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    """Measure each N `repeat` times (alternating rampup and ns-2); `report(row)` per N."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="rampup-bench-") as tmp:
        for n in flows:
            path = Path(tmp) / f"bench-{n}.toml"
            path.write_text(bench_scenario(n, duration_s))
            ours: list[Measurement] = []
            theirs: list[Measurement] = []
            for _ in range(repeat):
                ours.append(measure_rampup(path))
                if with_ns2:
                    theirs.append(measure_ns2(n, duration_s))
            row = _summarise(n, ours, theirs)
            report(row)
            rows.append(row)
    return rows


def _summarise(n: int, ours: list[Measurement], theirs: list[Measurement]) -> dict[str, Any]:
    def med(ms: list[Measurement], f: Callable[[Measurement], float]) -> float:
        return statistics.median(f(m) for m in ms) if ms else float("nan")

    row = {
        "flows": n,
        "packets": int(med(ours, lambda m: m.packets)),
        "rampup_pkts_per_s": med(ours, lambda m: m.packets_per_s),
        "rampup_wall_s": med(ours, lambda m: m.wall_s),
        "rampup_peak_mb": med(ours, lambda m: m.peak_rss_mb),
        "rampup_cpu_s": med(ours, lambda m: m.cpu_s),
        "runs": len(ours),
    }
    if theirs:
        row |= {
            "ns2_packets": int(med(theirs, lambda m: m.packets)),
            "ns2_pkts_per_s": med(theirs, lambda m: m.packets_per_s),
            "ns2_wall_s": med(theirs, lambda m: m.wall_s),
            "ns2_peak_mb": med(theirs, lambda m: m.peak_rss_mb),
        }
        row["speedup"] = row["rampup_pkts_per_s"] / row["ns2_pkts_per_s"]
        row["same_work"] = abs(row["packets"] - row["ns2_packets"]) <= 0.05 * row["ns2_packets"]
    return row


# --web: paper 002's base case (PackMime-HTTP/1.0 at 50% of 5 Mb/s, 10 ms, Full-TCP Reno), the
# count being the connections whose response arrived whole.
_WEB_CHILD = _CHILD.replace("_engine.delivered_packets(open(sys.argv[2]).read(), 1000)",
                            "_engine.completed_connections(open(sys.argv[2]).read())")


def web_scenario(duration_s: float) -> tuple[str, float]:
    """The --web scenario as TOML text, and its PackMime rate (connections per second)."""
    from . import _toml
    from .experiments.preemptive.runs import RENO, Setup, scenario

    text = _toml.dumps(scenario(RENO, Setup(duration_s=round(duration_s), tail_s=0), 1))
    rate = _engine.paths(text)["web_rate"][0]
    return text, rate


def measure_ns2_web(rate: float, duration_s: float, work: Path) -> Measurement:
    out_file = work / "ns2-web.dat"
    _, wall, rss, cpu = _timed(["ns", str(NS2_WEB_SCRIPT), f"{rate:.6f}", "10", "50", f"{round(duration_s)}", "1", "1.0", str(out_file)],
                               sample_peak=True)
    completed = sum(1 for line in out_file.read_text().splitlines() if line.strip())
    return Measurement(completed, wall, rss, cpu)


def run_web_bench(repeat: int, duration_s: float, with_ns2: bool) -> dict[str, Any]:
    """The --web case `repeat` times, rampup and ns-2 alternately: the medians, as a row
    whose ``packets`` are completed connections."""
    text, rate = web_scenario(duration_s)
    with tempfile.TemporaryDirectory(prefix="rampup-bench-web-") as tmp:
        path = Path(tmp) / "web.toml"
        path.write_text(text)
        ours: list[Measurement] = []
        theirs: list[Measurement] = []
        for _ in range(repeat):
            ours.append(measure_rampup(path, _WEB_CHILD))
            if with_ns2:
                theirs.append(measure_ns2_web(rate, duration_s, Path(tmp)))
    row = _summarise(0, ours, theirs)
    row["rate"] = rate
    if theirs:
        # The same connections arrive in both (the rate and model are ns-2's); how many
        # complete depends on each TCP, within a few per cent.
        row["same_work"] = abs(row["packets"] - row["ns2_packets"]) <= 0.05 * row["ns2_packets"]
    return row
