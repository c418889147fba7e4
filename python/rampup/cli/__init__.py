"""The `rampup` command line.

    rampup run FILE [--seed N] [--out DIR] [--csv] [--plot/--no-plot] [--set KEY=VALUE ...]
    rampup check FILE [--set KEY=VALUE ...]

Exit codes, the same for every subcommand:

    0    done
    2    bad input: an invalid scenario, a missing, unreadable or oversized scenario
         file, a bad ``--out`` or option (usage errors included); one line on stderr,
         ``rampup: error: <message>``
    130  interrupted (Ctrl-C), from the first instant rampup's code runs (`rampup.interrupts`
         holds Ctrl-C to this while the command imports); one line
    1    a failure that is not the input's: the disk is full (one line saying so), an
         exception raised by a Python part's code (one line naming the part, the hook and the
         exception), or an internal fault (one line asking for a report); ``RAMPUP_DEBUG=1``
         shows the traceback of either

`app` has the command group and the exit codes; each other module holds a family of
subcommands, added to the group here.
"""

from __future__ import annotations

from .app import main
from .bench import bench
from .check import check, inspect
from .parts import PARTS, defaults_command, list_parts
from .run import run
from .runs import reproduce, sweep_command
from .testbed import testbed

__all__ = ["PARTS", "main"]

for command in (run, check, inspect, list_parts, defaults_command, sweep_command, reproduce, bench, testbed):
    main.add_command(command)
