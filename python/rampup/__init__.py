"""rampup: a fast deterministic packet-level TCP simulator.

>>> import rampup
>>> res = rampup.run("scenarios/demo.toml", seed=1, out="results/demo")
>>> res.flows            # pandas DataFrames: flows, timeseries, queues, links
>>> res.manifest["content_hash"]
>>> rampup.load("results/demo").flows   # a results folder read back
"""

from ._engine import ScenarioError, __version__
from .api import ScenarioWarning, check, inspect, run
from .folders import OutputError
from .results import Result, load
from .sweep import sweep

__all__ = ["OutputError", "Result", "ScenarioError", "ScenarioWarning", "__version__", "check", "inspect", "load", "run", "sweep"]
