"""validation/compare_newcwv.py: rampup's standard TCP under a rate-limited source agrees with
ns-2.35's (cwnd growth while application-limited, restart after idle), and docs/validation.md
shows the table it prints."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (apt-get install ns2)")
def test_standard_tcp_under_a_rate_limited_source_agrees_with_ns2() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "validation" / "compare_newcwv.py")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    shown = doc.split("<!-- compare_newcwv -->\n", 1)[1].split("<!-- end of compare_newcwv -->", 1)[0]
    assert shown == proc.stdout, "rerun validation/compare_newcwv.py and paste its table into docs/validation.md"
