"""The `rampup` command group and what holds every subcommand to the exit codes (the
package's docstring lists them): `CliError`, one line per failure, Ctrl-C as 130."""

from __future__ import annotations

import os
import shlex
import sys
import traceback
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

import click
from rich.console import Console

from .. import __version__, interrupts
from .._engine import PartException
from ..folders import FULL_DISK

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A failure to report as one line (no traceback) with an exit status."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def _one_line(message: object) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def fail(message: object, code: int) -> NoReturn:
    click.echo(f"rampup: error: {_one_line(message)}", err=True)
    sys.exit(code)


#: Where to report an internal fault.
REPORT = "this is a bug in rampup: please report it with the command you ran and this line"


class _Group(click.Group):
    """Holds every subcommand to the exit codes: 0 ok, 2 bad input (a `CliError`, or a
    usage error, as one line), 130 interrupted, 1 an internal fault (one line asking for
    a report; the traceback with RAMPUP_DEBUG=1) or an exception raised by a Python part's
    code (`rampup.parts`: one line naming the part and the hook; the traceback with
    RAMPUP_DEBUG=1)."""

    #: The arguments the command was given, for the line that says how to resume it.
    argv: list[str] = []

    def invoke(self, ctx: click.Context) -> Any:
        try:
            interrupts.release()
            return super().invoke(ctx)
        except CliError as e:
            fail(e, e.code)
        except PartException as e:  # a Python part's own code raised: its one line, and its traceback on request
            if os.environ.get("RAMPUP_DEBUG"):
                traceback.print_exception(e.__cause__ or e)
            fail(e, EXIT_FAILURE)
        except KeyboardInterrupt:  # here, before click turns it into a blank line and Abort
            fail("interrupted", EXIT_INTERRUPTED)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> NoReturn:
        """click's `main`, never in its standalone mode: every way out is one of the exit codes."""
        self.argv = list(sys.argv[1:] if args is None else args)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.format_message())  # `rampup` alone: the help, as a usage error
            sys.exit(EXIT_BAD_INPUT)
        except click.UsageError as e:
            names, c = [], e.ctx
            while c is not None and c.parent is not None:  # the subcommands, not the program's name
                names.append(c.info_name or "")
                c = c.parent
            fail(f"{e.format_message()} (see '{' '.join(['rampup', *reversed(names)])} --help')", EXIT_BAD_INPUT)
        except click.ClickException as e:
            fail(e.format_message(), EXIT_BAD_INPUT)
        except click.Abort:  # Ctrl-C while click read the arguments
            fail("interrupted", EXIT_INTERRUPTED)
        except OSError as e:
            if e.errno not in FULL_DISK:
                _internal_fault(e)
            fail(full_disk(e), EXIT_FAILURE)
        except Exception as e:  # anything else is a bug of rampup's
            _internal_fault(e)
        sys.exit(code if isinstance(code, int) else 0)


def _internal_fault(e: Exception) -> NoReturn:
    if os.environ.get("RAMPUP_DEBUG"):
        raise e
    fail(f"internal fault ({type(e).__name__}: {e}); {REPORT}", EXIT_FAILURE)


def full_disk(e: OSError, what: str | None = None) -> str:
    """The line for a full disk: where, and what to do."""
    where = what or (f"writing {e.filename}" if e.filename else "writing a file")
    return f"{where}: no space left on the device (or the disk quota is used up); free some space and run the command again"


def invoked_as() -> str:
    """The command line that was run, for a line saying how to run it again."""
    return shlex.join(["rampup", *main.argv])


def stdout_console() -> Console:
    """stdout for tables and lines: on a pipe or in a file as wide as what is printed, which
    rich would otherwise cut or wrap at 80 columns."""
    return Console() if sys.stdout.isatty() else Console(width=100_000)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rampup")
def main() -> None:
    """rampup: a fast deterministic packet-level TCP simulator."""
    # The engine reads RAMPUP_THREADS itself and takes a value it cannot read as 2.
    threads = os.environ.get("RAMPUP_THREADS")
    if threads is not None and not (threads.isascii() and threads.isdigit() and int(threads) >= 1):
        raise CliError(f"RAMPUP_THREADS: {threads!r} is not allowed; give a whole number of threads, 1 or more")
    warnings.showwarning = _warning_line


def _warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """A warning (a cache that cannot be written, a reduction not cached) as one line on
    stderr, like the command line's errors, not Python's two with a source line."""
    click.echo(f"rampup: warning: {message}", err=True)
