"""rampup: a fast deterministic packet-level TCP simulator.

>>> import rampup
>>> res = rampup.run("scenarios/demo.toml", seed=1, out="results/demo")
>>> res.flows            # pandas DataFrames: flows, timeseries, queues, links
>>> res.manifest["content_hash"]
>>> rampup.load("results/demo").flows   # a results folder read back
"""

import os as _os
import signal as _signal
import sys as _sys


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C before the command's own handling is in place (pandas and the engine take a
    second or more to import): its one line and exit code, not a traceback from an import."""
    _os.write(2, b"rampup: error: interrupted\n")
    _os._exit(130)


def _is_the_command() -> bool:
    """This process is the `rampup` command (its script, or `python -m rampup`), not a
    program that imports rampup: only the command may exit on Ctrl-C."""
    argv = getattr(_sys, "orig_argv", [])
    as_module = any(a == "-m" and b == "rampup" for a, b in zip(argv, argv[1:], strict=False))
    return as_module or _os.path.basename(_sys.argv[0] if _sys.argv else "") == "rampup"


# Installed before the imports below; `rampup.cli` puts Python's own handler back once its
# commands catch KeyboardInterrupt themselves (the engine and the sweeps rely on it).
if _is_the_command() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

from ._engine import ScenarioError, __version__  # noqa: E402
from .api import ScenarioWarning, check, estimate, inspect, run  # noqa: E402
from .folders import OutputError  # noqa: E402
from .results import Result, load  # noqa: E402
from .summary import summarize  # noqa: E402
from .sweep import sweep  # noqa: E402

__all__ = ["OutputError", "Result", "ScenarioError", "ScenarioWarning", "__version__", "check", "estimate", "inspect", "load", "run", "summarize",
           "sweep"]
