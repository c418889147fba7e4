"""Paper 004 (vrate, cooperating connections beneath TCP): §5's LAN experiments.

Built so far: the striped transfer the experiments measure (`striped`), on the LAN topology
(one switch, or two joined by an inter-switch link) with 4.4BSD-Lite's TCP as the baseline
(`profile = "bsd44"`, docs/bsd44.md). The vrate layer and `rampup reproduce vrate` are not
built yet.
"""

from __future__ import annotations

from .striped import Striped, requests

__all__ = ["Striped", "requests"]
