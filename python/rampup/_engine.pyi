"""Type stubs of the Rust extension (contract: docs/engine-api.md)."""

from typing import Any

__version__: str
#: Rows per chunk of a traced table handed to a run's ``sink``.
TRACE_CHUNK_ROWS: int

class ScenarioError(ValueError):
    """The scenario is invalid; ``str(e)`` is one line: ``key.path: what is wrong (allowed: ...)``."""

class PartError(ScenarioError):
    """A Python part's decision the engine refuses; one line."""

class PartException(RuntimeError):
    """A Python part raised; one line, the exception as ``__cause__``."""

class AckContext:
    @property
    def now_ns(self) -> int: ...
    @property
    def mss_bytes(self) -> int: ...
    @property
    def acked_bytes(self) -> int: ...
    @property
    def rtt_sample_ns(self) -> int | None: ...
    @property
    def srtt_ns(self) -> int | None: ...
    @property
    def rttvar_ns(self) -> int: ...
    @property
    def min_rtt_ns(self) -> int | None: ...
    @property
    def rto_ns(self) -> int: ...
    @property
    def cwnd_bytes(self) -> int: ...
    @property
    def ssthresh_bytes(self) -> int: ...
    @property
    def app_limited(self) -> bool: ...
    @property
    def snd_una(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...
    @property
    def round_start(self) -> bool: ...

class CongestionContext:
    @property
    def now_ns(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def mss_bytes(self) -> int: ...
    @property
    def loss_window_bytes(self) -> int: ...
    @property
    def flight_bytes(self) -> int: ...
    @property
    def lost_sent_at_ns(self) -> int | None: ...
    @property
    def cwnd_bytes(self) -> int: ...
    @property
    def ssthresh_bytes(self) -> int: ...

class SentContext:
    @property
    def now_ns(self) -> int: ...
    @property
    def flight_bytes(self) -> int: ...
    @property
    def cwnd_bytes(self) -> int: ...
    @property
    def ssthresh_bytes(self) -> int: ...

class IdleContext:
    @property
    def now_ns(self) -> int: ...
    @property
    def mss_bytes(self) -> int: ...
    @property
    def initial_window_bytes(self) -> int: ...
    @property
    def usable_window_bytes(self) -> int: ...
    @property
    def idle_ns(self) -> int: ...
    @property
    def cwnd_bytes(self) -> int: ...
    @property
    def ssthresh_bytes(self) -> int: ...
    @property
    def srtt_ns(self) -> int | None: ...
    @property
    def rto_ns(self) -> int: ...

class Progress:
    """Pass to `run` and read ``fraction`` (0.0 to 1.0 of simulated time) from another thread."""

    def __init__(self) -> None: ...
    @property
    def fraction(self) -> float: ...

def run(scenario_toml: str, seed: int | None = None, progress: Progress | None = None, sink: Any = None,
        memory_budget: int | None = None) -> dict[str, Any]:
    """Simulates; returns {"tables": {name: {column: ndarray | list[str]}}, "pcaps": {link: bytes},
    "events": int, "packet_hops": int, "seed": int, "sim_end_ns": int}. The GIL is released while simulating.
    With ``memory_budget`` (bytes) a ScenarioError stops the run once the engine's heap passes it."""

def estimate(scenario_toml: str) -> list[tuple[str, float]]:
    """What a run will take, from the scenario alone: (name, value) pairs (`rampup.api.estimate`)."""

def heap_bytes() -> tuple[int, int]:
    """The engine's heap in this process: bytes allocated now, and the peak since `reset_heap_peak`."""

def reset_heap_peak() -> None: ...

def parse_size(text: str) -> int:
    """A size as scenarios write it ("2GiB") in bytes; ValueError (one line) if it is not one."""

def check(scenario_toml: str) -> list[str]: ...

def addresses(scenario_toml: str) -> list[tuple[str, str]]:
    """Each node's name and its IPv4 address in a capture, in node order."""

def parts() -> list[tuple[str, str, str, str]]:
    """The TCP's registered parts: (family, scenario key, name, one line on what it is)."""

def defaults() -> list[tuple[str, str, str]]:
    """Every scenario key that may be left out and its default: (table, key, value)."""

def paths(scenario_toml: str) -> dict[str, Any]:
    """The `paths` table (one row per flow: route, bottleneck, propagation and base RTT, BDP), without running."""

def delivered_packets(scenario_toml: str, mss: int) -> int: ...
