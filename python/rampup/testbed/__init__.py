"""The testbed (docs/testbed.md): the same experiments on a real path, by the kernel's TCP and
by rampup's over UDP, beside the simulator.

- `path`: a `Path` of network namespaces joined by veth pairs, shaped by `tc`;
- `needs`: what a run needs and this machine allows (`check`, `rampup testbed check`);
- `owner`: what a path owns (the record in /run/rampup of its namespaces, the processes it
  started) and the removal of what a killed run left;
- `programs`: where crates/net's programs are (in the package, or built by cargo in a checkout);
- `runs`: one run of each stack (the kernel's TCP, rampup-udp, the simulator);
- `experiments`: the experiments, each a file in ``python/rampup/scenarios/testbed/``;
- `agreement`: under a table, a line per case and pair of stacks that should agree.
"""

from __future__ import annotations

from .needs import QDISCS, Finding, check, congestion_controls, unmet
from .owner import leftovers, remove_leftovers
from .path import DELAYS, PREFIX, Path, PathSpec, TestbedError, program

__all__ = ["DELAYS", "PREFIX", "QDISCS", "Finding", "Path", "PathSpec", "TestbedError", "check", "congestion_controls", "leftovers", "program",
           "remove_leftovers", "unmet"]
