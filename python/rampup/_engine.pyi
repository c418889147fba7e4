"""Type stubs of the Rust extension (contract: docs/engine-api.md)."""

from typing import Any

__version__: str

class ScenarioError(ValueError):
    """The scenario is invalid; ``str(e)`` is one line: ``key.path: what is wrong (allowed: ...)``."""

class Progress:
    """Pass to `run` and read ``fraction`` (0.0 to 1.0 of simulated time) from another thread."""

    def __init__(self) -> None: ...
    @property
    def fraction(self) -> float: ...

def run(scenario_toml: str, seed: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Simulates; returns {"tables": {name: {column: ndarray | list[str]}}, "pcaps": {link: bytes},
    "events": int, "packet_hops": int, "seed": int, "sim_end_ns": int}. The GIL is released while simulating."""

def check(scenario_toml: str) -> list[str]: ...

def addresses(scenario_toml: str) -> list[tuple[str, str]]:
    """Each node's name and its IPv4 address in a capture, in node order."""

def defaults() -> list[tuple[str, str, str]]:
    """Every scenario key that may be left out and its default: (table, key, value)."""

def paths(scenario_toml: str) -> dict[str, Any]:
    """The `paths` table (one row per flow: route, bottleneck, propagation and base RTT, BDP), without running."""

def delivered_packets(scenario_toml: str, mss: int) -> int: ...
