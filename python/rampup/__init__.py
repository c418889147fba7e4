"""rampup: a fast deterministic packet-level TCP simulator.

>>> import rampup
>>> res = rampup.run("scenarios/demo.toml", seed=1, out="results/demo")
>>> res.flows            # pandas DataFrames: flows, timeseries, queues, links
>>> res.manifest["content_hash"]
>>> rampup.load("results/demo").flows   # a results folder read back
"""

from . import interrupts

# Before the imports below, which take a second or more (`rampup.interrupts`).
interrupts.hold()

from ._engine import ScenarioError, __version__  # noqa: E402
from .api import ScenarioWarning, check, estimate, inspect, run  # noqa: E402
from .folders import OutputError  # noqa: E402
from .parts import register_part  # noqa: E402
from .results import Result, load  # noqa: E402
from .summary import summarize  # noqa: E402
from .sweep import sweep  # noqa: E402

__all__ = ["OutputError", "Result", "ScenarioError", "ScenarioWarning", "__version__", "check", "estimate", "inspect", "load", "register_part", "run",
           "summarize", "sweep"]
