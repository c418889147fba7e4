"""docs/results.md lists every table and column the engine writes, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from rampup import _engine
from rampup.results import ENGINE_TABLES

DOC = Path(__file__).resolve().parents[2] / "docs" / "results.md"

# Every kind of table row: flows that finish and do not, requests, a rate-limited source, a
# UDP source, traces.
SCENARIO = """
duration = "2s"
[topology]
kind = "dumbbell"
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
[[flow]]
from = "s0"
to = "r0"
app = { kind = "writes", schedule = [{ at = "0s", bytes = 20000 }, { at = "1s", bytes = 20000 }] }
[[flow]]
from = "s0"
to = "r0"
app = { kind = "rate-limited", rate = "1Mbps", phases = [{ at = "1s", rate = "0bps", name = "idle" }], padding = true }
[[udp]]
from = "s0"
to = "r0"
rate = "1Mbps"
[trace]
throughput = "100ms"
rtt = true
packets = true
"""


def documented() -> dict[str, set[str]]:
    """{table: columns} from the doc's `## name: …` headings and the first cell of each row."""
    tables: dict[str, set[str]] = {}
    current = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"## (\w+):", line)
        if heading:
            current = tables.setdefault(heading.group(1), set())
        elif line.startswith("## "):
            current = None
        elif current is not None and line.startswith("| `"):
            current.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return tables


def test_every_column_the_engine_writes_is_documented() -> None:
    written = {name: set(columns) for name, columns in _engine.run(SCENARIO)["tables"].items()}
    doc = documented()
    assert set(doc) == set(written), "tables in docs/results.md vs the engine's"
    assert set(ENGINE_TABLES) == set(written), "rampup.results.ENGINE_TABLES vs the engine's tables"
    for name, columns in written.items():
        assert doc[name] == columns, f"{name}: undocumented {sorted(columns - doc[name])}, gone {sorted(doc[name] - columns)}"
