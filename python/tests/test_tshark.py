"""tshark reads a pcap of the sender's access link and finds the segments and
retransmissions that the flow summary counts."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import rampup

SCENARIO = """
name = "pcap-check"
duration = "10s"
[topology]
kind = "dumbbell"
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
bottleneck_queue = { packets = 20 }
[[flow]]
from = "s0"
to = "r0"
app = { kind = "bulk", bytes = 3000000 }
tcp = { recovery = "%s" }
[trace]
pcap = ["s0-left"]
"""

# CI installs tshark (scripts/test.sh), so there the test must run, not skip.
needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None and not os.environ.get("CI"), reason="tshark is not installed"
)


def count(pcap: Path, display_filter: str) -> int:
    out = subprocess.run(
        ["tshark", "-n", "-r", str(pcap), "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
        check=True, capture_output=True, text=True,
    ).stdout
    return len(out.split())


@needs_tshark
@pytest.mark.parametrize("recovery", ["newreno", "sack"])
def test_tshark_counts_the_summary_segments_and_retransmissions(tmp_path: Path, recovery: str) -> None:
    result = rampup.run(SCENARIO % recovery, out=tmp_path / "r")
    flow = result.flows.iloc[0]
    assert flow["retransmits"] > 0, "the scenario must lose packets to test anything"
    pcap = tmp_path / "r" / "s0_to_left.pcap"
    assert count(pcap, "tcp.len > 0") == flow["segments_sent"]
    # A retransmission is a segment below the highest sequence number already sent;
    # tshark calls one sent within its RTT estimate of the original "out of order".
    resent = "tcp.analysis.retransmission || tcp.analysis.out_of_order"
    assert count(pcap, f"tcp.len > 0 && ({resent})") == flow["retransmits"]
