"""The estimate of a run (`rampup.estimate`, `rampup check`, `rampup inspect`) against
measured runs, its warning, and the memory budget that stops a run (`--memory-budget`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rampup
from rampup.bench import bench_scenario

ROOT = Path(__file__).resolve().parents[2]

#: Measured in a fresh interpreter: the engine's peak heap (its own count), the growth of
#: the process's peak resident memory, packets sent and packet hops, beside the estimate.
#: The traces go to a sink that drops them, as a run into a results folder writes them out.
_MEASURE = """
import json, resource, sys
from rampup import _engine
text = sys.stdin.read()
class Drop:
    def rows(self, table, columns): pass
    def pcap(self, link, data): pass
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
_engine.reset_heap_peak()
heap = _engine.heap_bytes()[0]
out = _engine.run(text, None, None, Drop())
print(json.dumps({
    "heap_bytes": _engine.heap_bytes()[1] - heap,
    "rss_bytes": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) * 1024,
    "packets": int(out["tables"]["packet_totals"]["created"][0]),
    "packet_hops": out["packet_hops"],
}))
"""

#: Below this, the resident memory a run adds is lost among the interpreter's own pages.
RSS_FLOOR_BYTES = 32 << 20


def _web(flows: int, duration: str) -> str:
    text = (ROOT / "scenarios" / "web.toml").read_text()
    flow = text[text.index("[[flow]]"):]
    return text.replace('duration = "300s"', f'duration = "{duration}"') + flow * (flows - 1)


#: Scenarios of each kind: bulk flows, many of them, web traffic within the link's rate and
#: far above it (connections pile up), request/response churn, and traced runs.
SCENARIOS = {
    "bulk-100": lambda: bench_scenario(100, 10.0).replace("timeseries = false", "timeseries = true"),
    "bulk-4000": lambda: bench_scenario(4000, 2.0),
    "web": lambda: _web(1, "60s"),
    "web-overloaded": lambda: _web(50, "3s"),
    "churn": lambda: (ROOT / "scenarios" / "churn.toml").read_text().replace('duration = "130s"', 'duration = "30s"'),
    "demo": lambda: (ROOT / "scenarios" / "demo.toml").read_text(),
}


def _measured(text: str) -> dict[str, int]:
    proc = subprocess.run([sys.executable, "-c", _MEASURE], input=text, capture_output=True, text=True, check=True,
                          env={"RAMPUP_THREADS": "1", **_env()}, timeout=300)
    return json.loads(proc.stdout)


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "RAMPUP_THREADS"}


def _factor(estimated: float, measured: float) -> float:
    return max(estimated / measured, measured / estimated)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_estimate_meets_measured_runs_within_its_accuracy(name: str) -> None:
    text = SCENARIOS[name]()
    e = rampup.estimate(text)
    m = _measured(text)
    factors = {
        "memory (heap)": _factor(e["memory_bytes"], m["heap_bytes"]),
        "packets": _factor(e["packets"], m["packets"]),
        "packet hops": _factor(e["packet_hops"], m["packet_hops"]),
    }
    if m["rss_bytes"] >= RSS_FLOOR_BYTES:
        factors["memory (resident)"] = _factor(e["memory_bytes"], m["rss_bytes"])
    assert all(f <= e["accuracy"] for f in factors.values()), (name, factors, e, m)


def _piling_up(connections: int = 1_000_000) -> str:
    # Connections arrive every 4 us over a 1 Mb/s link: almost all stay open.
    return f"""
duration = "5s"
[topology]
kind = "dumbbell"
pairs = 1
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "1Mbps"
bottleneck_delay = "10ms"
[trace]
timeseries = false
queues = false
[[flow]]
from = "s0"
to = "r0"
app = {{ kind = "request-response", request = "1KB", response = "100KB", connections = {connections}, mean_gap = "4us" }}
"""


@pytest.mark.parametrize("command", ["check", "inspect"])
def test_check_and_inspect_show_the_estimate_and_warn_of_a_large_run(run_cli, command: str, tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text(_piling_up())
    proc = run_cli(command, big)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("estimate: "), proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rampup: warning: {big}: estimate: the run may take "), proc.stderr
    assert "above 4.00 GiB" in lines[0] and "--memory-budget" in lines[0]


def test_a_small_run_has_no_warning(run_cli, demo_path: Path) -> None:
    proc = run_cli("check", demo_path)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_memory_budget_stops_a_run_in_one_line(run_cli, tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text(_piling_up(50_000))
    proc = run_cli("run", big, "--memory-budget", "20MiB", "--out", tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "panic" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rampup: error: {big}: memory budget: the engine held "), proc.stderr
    assert "more than the budget of 20.0 MiB" in lines[0]
    assert not (tmp_path / "out").exists()


def test_a_bad_memory_budget_is_one_line(run_cli, demo_path: Path, tmp_path: Path) -> None:
    proc = run_cli("run", demo_path, "--memory-budget", "lots", "--out", tmp_path / "out")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith('rampup: error: --memory-budget: "lots" is not a size in bytes'), proc.stderr


def test_the_api_takes_a_memory_budget() -> None:
    with pytest.raises(rampup.ScenarioError, match="memory budget: the engine held .* more than the budget of 20.0 MiB"):
        rampup.run(_piling_up(50_000), memory_budget="20MiB")
    with pytest.raises(ValueError, match="memory_budget: 0 is not allowed"):
        rampup.run(_piling_up(), memory_budget=0)


def test_a_budget_not_reached_changes_no_result(demo_path: Path) -> None:
    free = rampup.run(demo_path, seed=3)
    held = rampup.run(demo_path, seed=3, memory_budget="8GiB")
    assert free.tables.keys() == held.tables.keys()
    for name, table in free.tables.items():
        assert table.equals(held.tables[name]), name
