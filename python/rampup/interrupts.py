"""Ctrl-C while the `rampup` command starts: pandas and the engine take a second or more to
import, and Ctrl-C then is the command's one line and exit code 130, not a traceback from an
import. `hold` puts that handler in place before the package imports them; the command
group `release`s it once its commands catch KeyboardInterrupt themselves (the engine and
the sweeps hear Ctrl-C through Python's own handler).

This module imports only the standard library, so that the package imports it first."""

import os
import signal
import sys
import threading

__all__ = ["hold", "release"]


def _interrupted_while_starting(signum: int, frame: object) -> None:
    os.write(2, b"rampup: error: interrupted\n")
    os._exit(130)


def _is_the_command() -> bool:
    """This process is the `rampup` command (its script, or `python -m rampup`), not a
    program that imports rampup: only the command may exit on Ctrl-C."""
    argv = getattr(sys, "orig_argv", [])
    as_module = any(a == "-m" and b == "rampup" for a, b in zip(argv, argv[1:], strict=False))
    return as_module or os.path.basename(sys.argv[0] if sys.argv else "") == "rampup"


def hold() -> None:
    """In the `rampup` command, with Python's handler still in place: Ctrl-C exits at once."""
    if _is_the_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted_while_starting)


def release() -> None:
    """Python's Ctrl-C handler back in place of `hold`'s (on the main thread, where handlers are set)."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
