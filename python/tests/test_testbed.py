"""`rampup testbed check`: it reports every need in order and leaves no namespace behind,
even when a step fails."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from rampup import testbed

NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2")


def _ours() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(f"{testbed.PREFIX}check-")]


@NEEDS_ROOT
def test_check_reports_every_need_and_removes_its_namespace() -> None:
    found = testbed.check()
    names = [f.name for f in found]
    assert names[:2] == ["root", "iproute2"] and names[-1] == "congestion controls"
    if found[2].ok:  # namespaces allowed: every qdisc was tried
        assert [n for n in names if n.startswith("qdisc ")] == [f"qdisc {q}" for q in testbed.QDISCS]
    assert not _ours()


@NEEDS_ROOT
def test_a_failing_step_is_reported_and_the_namespace_still_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(testbed, "QDISCS", {"tbf": "rate 10mbit burst 1600 limit 10000", "no-such-qdisc": ""})
    found = {f.name: f for f in testbed.check()}
    if found["network namespaces"].ok and found["veth pairs"].ok:
        assert not found["qdisc no-such-qdisc"].ok and found["qdisc no-such-qdisc"].detail.startswith("no: ")
    assert not _ours()


def test_without_root_check_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    found = testbed.check()
    assert not found[0].ok and "run as root" in found[0].detail
    assert "network namespaces" not in [f.name for f in found]
