"""The `rampup` command line.

    rampup run FILE [--seed N] [--out DIR] [--csv] [--plot/--no-plot] [--set KEY=VALUE ...]
    rampup check FILE [--set KEY=VALUE ...]

Exit codes, the same for every subcommand:

    0    done
    2    bad input: an invalid scenario, a missing, unreadable or oversized scenario
         file, a bad ``--out`` or option (usage errors included); one line on stderr,
         ``rampup: error: <message>``
    130  interrupted (Ctrl-C), from the first instant rampup's code runs (`rampup/__init__`
         holds Ctrl-C to this while the command imports); one line
    1    a failure that is not the input's: the disk is full (one line saying so), or an
         internal fault (one line asking for a report; ``RAMPUP_DEBUG=1`` shows the traceback)

A subcommand is a function decorated with ``@main.command()``.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
import tomllib
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from . import __version__, _engine
from .api import engine_check, read_scenario_file, run_to_folder
from .folders import FULL_DISK, OutputError, check_target
from .results import Result, safe_name

T = TypeVar("T")

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
#: Runs shorter than this show no progress indicator.
PROGRESS_AFTER_S = 1.0
#: `rampup bench` times ns-2 up to this many flows: beyond, it needs minutes and gigabytes.
NS2_MAX_FLOWS = 1000
#: Flows listed in the summary before it says "... and N more".
SUMMARY_ROWS = 20


class CliError(Exception):
    """A failure to report as one line (no traceback) with an exit status."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def _one_line(message: object) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def _fail(message: object, code: int) -> NoReturn:
    click.echo(f"rampup: error: {_one_line(message)}", err=True)
    sys.exit(code)


#: Where to report an internal fault.
REPORT = "this is a bug in rampup: please report it with the command you ran and this line"


class _Group(click.Group):
    """Holds every subcommand to the exit codes: 0 ok, 2 bad input (a `CliError`, or a
    usage error, as one line), 130 interrupted, 1 an internal fault (one line asking for
    a report; the traceback with RAMPUP_DEBUG=1)."""

    #: The arguments the command was given, for the line that says how to resume it.
    argv: list[str] = []

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            _own_interrupts()
            return super().invoke(ctx)
        except CliError as e:
            _fail(e, e.code)
        except KeyboardInterrupt:  # here, before click turns it into a blank line and Abort
            _fail("interrupted", EXIT_INTERRUPTED)

    def main(self, args=None, *rest, **kwargs):  # type: ignore[no-untyped-def,override]
        self.argv = list(sys.argv[1:] if args is None else args)
        try:
            code = super().main(args, *rest, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.format_message())  # `rampup` alone: the help, as a usage error
            sys.exit(EXIT_BAD_INPUT)
        except click.UsageError as e:
            names, c = [], e.ctx
            while c is not None and c.parent is not None:  # the subcommands, not the program's name
                names.append(c.info_name or "")
                c = c.parent
            _fail(f"{e.format_message()} (see '{' '.join(['rampup', *reversed(names)])} --help')", EXIT_BAD_INPUT)
        except click.ClickException as e:
            _fail(e.format_message(), EXIT_BAD_INPUT)
        except click.Abort:  # Ctrl-C while click read the arguments
            _fail("interrupted", EXIT_INTERRUPTED)
        except OSError as e:
            if e.errno not in FULL_DISK:
                _internal_fault(e)
            _fail(full_disk(e), EXIT_FAILURE)
        except Exception as e:  # noqa: BLE001 -- anything else is a bug of rampup's
            _internal_fault(e)
        sys.exit(code if isinstance(code, int) else 0)


def _internal_fault(e: Exception) -> NoReturn:
    if os.environ.get("RAMPUP_DEBUG"):
        raise e
    _fail(f"internal fault ({type(e).__name__}: {e}); {REPORT}", EXIT_FAILURE)


def full_disk(e: OSError, what: str | None = None) -> str:
    """The line for a full disk: where, and what to do."""
    where = what or (f"writing {e.filename}" if e.filename else "writing a file")
    return f"{where}: no space left on the device (or the disk quota is used up); free some space and run the command again"


def _own_interrupts() -> None:
    """Python's Ctrl-C handler back in place of the one `rampup/__init__` installs for the
    imports: from here the commands turn KeyboardInterrupt into their line and exit code,
    and the engine hears Ctrl-C through Python's handler."""
    from . import _interrupted_while_starting

    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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


# --- helpers -----------------------------------------------------------------


def _read_scenario(path: Path) -> str:
    try:
        return read_scenario_file(path)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except PermissionError:
        raise CliError(f"{path}: permission denied") from None
    except OSError as e:
        raise CliError(f"{path}: {e.strerror or e}") from None
    except ValueError as e:  # not a regular file, too large, or not UTF-8: the message names the path
        raise CliError(e) from None


def _check_scenario(path: Path, text: str) -> list[str]:
    """The scenario's warnings (valid, but likely a mistake); a CliError if it is invalid."""
    try:
        return engine_check(text)
    except _engine.ScenarioError as e:
        raise CliError(f"{path}: {e}") from None


def _estimate_line(text: str) -> str:
    """One line of what a run of the valid scenario ``text`` will take (`api.estimate`)."""
    from .api import estimate

    e = estimate(text)
    rows = f", {e['trace_rows']:,.0f} trace rows ({_engine_bytes(e['tables_bytes'])} as tables)" if e["trace_rows"] else ""
    return (f"estimate: {e['packets']:,.0f} packets, {e['packet_hops']:,.0f} packet hops (events: at most that), "
            f"{e['connections']:,.0f} connections ({e['open_connections']:,.0f} open at once){rows}; "
            f"peak memory {_engine_bytes(e['memory_bytes'])}; each within a factor of {e['accuracy']:g}")


def _engine_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" or n >= 100 else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _warn(path: Path, warnings: list[str]) -> None:
    for w in warnings:
        click.echo(f"rampup: warning: {path}: {w}", err=True)


#: `--set KEY=VALUE`, for the commands that read one scenario file.
set_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Set a scenario key, as a sweep names it (e.g. flow[0].tcp.cc=vegas, topology.bottleneck_rate=20Mbps); "
    "the value is read as TOML, or as a string if it is not TOML. Repeatable.",
)


def _set_pairs(sets: tuple[str, ...]) -> list[tuple[str, str]]:
    """Each `--set KEY=VALUE` as (KEY, VALUE), the value as typed."""
    pairs = []
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise CliError(f"--set: {item!r} is not KEY=VALUE (e.g. flow[0].tcp.cc=vegas)")
        pairs.append((key.strip(), value))
    return pairs


def _with_sets(text: str, sets: tuple[str, ...]) -> str:
    """The scenario `text` (valid) with each `--set KEY=VALUE` applied."""
    from .sweep import with_values  # the sweep's key paths and checks

    point = {key: _toml_value(value) for key, value in _set_pairs(sets)}
    try:
        return with_values(tomllib.loads(text), point, verb="set")
    except ValueError as e:
        raise CliError(str(e)) from None


def _toml_value(text: str) -> object:
    """A value given on the command line: TOML (3, 0.5, true, "x"), or else the bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text  # a bare word, like vegas or 20Mbps


def _scenario_name(path: Path, text: str) -> str:
    try:
        name = tomllib.loads(text).get("name")
    except tomllib.TOMLDecodeError:  # the engine accepted it, so this is unexpected
        name = None
    return name if isinstance(name, str) and name.strip() else path.stem


def _with_progress(
    work: Callable[[], T],
    console: Console,
    label: str,
    fraction: Callable[[], float] | None = None,
) -> T:
    """Runs ``work`` on this thread while another shows progress -- a bar if ``fraction``
    reports the fraction done, else a spinner -- with the elapsed time, once the work has
    taken longer than `PROGRESS_AFTER_S`. The work stays on this thread because the engine
    hears Ctrl-C only there: it stops, the results folder being written is removed, and
    `KeyboardInterrupt` reaches `main`."""
    if not console.is_terminal:  # a pipe or a log: nothing to redraw, and no blank lines in it
        return work()
    done = threading.Event()

    def show() -> None:
        if done.wait(PROGRESS_AFTER_S):
            return
        columns: list[ProgressColumn] = [SpinnerColumn(), TextColumn("{task.description}", markup=False)]
        if fraction is not None:
            columns += [BarColumn(), TaskProgressColumn(), TimeRemainingColumn()]
        columns.append(TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(label, total=1.0 if fraction is not None else None)
            while not done.wait(0.1):
                if fraction is not None:
                    share = fraction()
                    bar.update(task, completed=share, description=label if share < 1.0 else "writing results")

    shower = threading.Thread(target=show, name="rampup-progress", daemon=True)
    shower.start()
    try:
        return work()
    finally:
        done.set()
        shower.join()


#: Flow columns in the summary, with their headings, when the engine has them;
#: the flows table in the results folder has them all.
SUMMARY_COLUMNS = {
    "flow": "flow",
    "from": "from",
    "to": "to",
    "cc": "cc",
    "bytes_acked": "bytes\nacked",
    "goodput_bps": "goodput\nMb/s",
    "retransmits": "retrans-\nmits",
    "fast_retransmits": "fast\nretx",
    "timeouts": "time-\nouts",
    "drops": "drops",
}


def _cell(value: object, column: str) -> Text:
    if column.endswith("_bps"):
        return Text(f"{float(value) / 1e6:.3f}")  # type: ignore[arg-type]
    if isinstance(value, bool):
        text = str(value).lower()
    elif isinstance(value, int) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu"):
        text = f"{int(value):,}"  # type: ignore[call-overload]
    elif isinstance(value, float) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "f"):
        text = f"{float(value):.4g}"  # type: ignore[arg-type]
    else:
        text = str(value)
    return Text(text)


def _headline(result: Result) -> Text:
    # Only numbers of the result (the same on every machine) and the wall time, named as
    # such; the engine's event count depends on how the run was split over threads.
    m = result.manifest
    delivered = int(result.tables["packet_totals"]["delivered"].iloc[0]) if "packet_totals" in result.tables else None
    packets = f", {delivered:,} packets delivered" if delivered is not None else ""
    return Text(
        f"{m['name'] or 'scenario'}: seed {m['seed']}, {m['sim_end_s']:g} s simulated{packets} "
        f"(wall time {m['wall_time_s']:.2f} s)"
    )


def _summary(result: Result) -> Table:
    flows = result.flows
    columns = [c for c in SUMMARY_COLUMNS if c in flows.columns] or list(flows.columns)
    rows = [
        [_cell(v, c) for v, c in zip(row, columns, strict=True)]
        for row in flows[columns].head(SUMMARY_ROWS).itertuples(index=False)
    ]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, collapse_padding=True)
    for i, col in enumerate(columns):
        heading = SUMMARY_COLUMNS.get(col, str(col))
        width = max([len(line) for line in heading.splitlines()] + [len(row[i]) for row in rows])
        numeric = flows[col].dtype.kind in "iuf"
        table.add_column(heading, justify="right" if numeric else "left", no_wrap=True, min_width=width)
    for row in rows:
        table.add_row(*row)
    if len(flows) > SUMMARY_ROWS:
        table.caption = f"... and {len(flows) - SUMMARY_ROWS} more flows (see the flows table)"
    elif flows.empty:
        table.caption = "no flows"
    return table


def _connections_line(result: Result) -> Text | None:
    """One line on the connections, when some flow opened more than one."""
    conns = result.tables.get("connections")
    if conns is None or len(conns) <= len(result.flows):
        return None
    closed = int(conns["close_ns"].notna().sum())
    # From the opening to the last byte the client got: a request/response's completion time.
    done = (conns["last_byte_down_ns"] - conns["open_ns"]).dropna() / 1e6
    times = f"; open to last byte down: median {done.median():.4g} ms, 99th percentile {done.quantile(0.99):.4g} ms" if len(done) else ""
    return Text(f"{len(conns):,} connections, {closed:,} closed by the end{times} (see the connections table)")


# --- commands ----------------------------------------------------------------


@main.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), help="Seed (overrides the scenario's `seed`).")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Results folder (default: results/<scenario name>/); an earlier results folder there is replaced "
    "only if rampup wrote it and it is unchanged.",
)
@click.option("--overwrite", is_flag=True, help="Replace the --out folder even if rampup did not write it.")
@click.option("--csv", "csv_", is_flag=True, help="Write tables as CSV instead of Parquet.")
@click.option("--plot/--no-plot", default=False, show_default=True, help="Also write cwnd.png and seq.png.")
@click.option("--memory-budget", "memory_budget", metavar="SIZE", default=None,
              help="Stop the run (exit 2, one line) once the engine's memory passes SIZE, e.g. 2GiB or 500MB "
              "(`rampup check` estimates it).")
@set_option
def run(file: Path, seed: int | None, out: Path | None, overwrite: bool, csv_: bool, plot: bool, memory_budget: str | None,
        sets: tuple[str, ...]) -> None:
    """Run the scenario FILE and write its results folder."""
    from .api import memory_budget_bytes

    try:
        budget = memory_budget_bytes(memory_budget, key="--memory-budget")
    except ValueError as e:
        raise CliError(str(e)) from None
    text = _read_scenario(file)
    warnings = _check_scenario(file, text)
    if sets:
        text = _with_sets(text, sets)
        warnings = _check_scenario(file, text)
    _warn(file, warnings)
    name = _scenario_name(file, text)
    out = out if out is not None else Path("results") / safe_name(name)
    try:
        check_target(out, overwrite)
    except OutputError as e:
        raise CliError(f"--out {e}") from None

    def plots(result: Result) -> dict[str, bytes]:
        from .plots import render_plots, settings_line  # matplotlib is slow to import; only when asked

        # The name says which scenario; the subtitle what --set changed in it.
        return render_plots(result.timeseries, name, settings_line(_set_pairs(sets)))

    def work() -> Result:
        fmt = "csv" if csv_ else "parquet"
        return run_to_folder(text, out, seed=seed, fmt=fmt, overwrite=overwrite, progress=progress,
                             extra_files=plots if plot else None, memory_budget=budget)

    progress = _engine.Progress()
    err = Console(stderr=True)
    try:
        result = _with_progress(work, err, f"running {name}", lambda: progress.fraction)
    except _engine.ScenarioError as e:
        raise CliError(f"{file}: {e}") from None
    except OutputError as e:
        raise CliError(f"--out {e}") from None
    except OSError as e:
        raise CliError(f"writing {out}: {e.strerror or e}", EXIT_FAILURE) from None
    # An engine panic (RuntimeError) goes on to `main`: an internal fault, to be reported.

    console = stdout_console()
    console.print(_headline(result))
    console.print(_summary(result))
    if (line := _connections_line(result)) is not None:
        console.print(line)
    console.print(Text(f"results: {out}{os.sep}"))


def _registered_parts() -> dict[str, tuple[str, dict[str, str]]]:
    """The TCP's parts chosen by name, family by family, from the engine's registry."""
    families: dict[str, tuple[str, dict[str, str]]] = {}
    for family, key, name, doc in _engine.parts():
        families.setdefault(family, (key, {}))[1][name] = doc
    return families


#: What `rampup list` prints: each family of parts, the scenario key that picks one, and
#: each part with a line on what it is: the TCP's from the engine's registry, the rest here.
#: A test checks the names against the engine's.
PARTS: dict[str, tuple[str, dict[str, str]]] = {
    **_registered_parts(),
    "profile": ("tcp.profile", {
        "linux": "Linux 6.x defaults under the keys given: CUBIC with HyStart, SACK, RACK-TLP, PRR, IW 10 (docs/modern.md)",
        "ns2": "ns-2.35's loss response and Vegas details",
        "bsd44": "4.4BSD-Lite's TCP: IW 1, Reno, its 500 ms and 200 ms timers (RTT in ticks, fixed-point RTO; docs/bsd44.md)",
    }),
    "RTO rule": ("tcp.rto_rule", {
        "rfc6298": "RTO = max(min_rto, SRTT + 4 RTTVAR)",
        "linux": "Linux's estimator: RTO = SRTT + rttvar, rttvar at least min_rto",
        "bsd44": "4.4BSD-Lite's: one segment timed in ticks of clock_granularity, fixed-point srtt/rttvar, RTO on ticks",
    }),
    "RTO timing": ("tcp.rto_timing", {
        "rfc6298": "RTT samples (the handshake's first) set the RTO",
        "ns2-full": "ns-2's FullTcp: no RTT sample sets the RTO, which stays at initial_rto (backed off on timeouts)",
    }),
    "application": ("flow[i].app.kind", {
        "bulk": "the client sends bytes (or unlimited data) on one connection",
        "writes": "the client writes on one connection at set times (a schedule)",
        "request-response": "connections arriving as a Poisson process, each with request/response exchanges",
        "web": "PackMime-HTTP web traffic as ns-2.35 draws it (paper 002; docs/web-workload.md)",
        "rate-limited": "the client writes at a rate that changes by phases: idle, application-limited (paper 003; docs/new-cwv.md)",
    }),
    "topology": ("topology.kind", {
        "dumbbell": "senders s0.., receivers r0.., routers left and right, one bottleneck",
        "lan": "hosts on one switch",
        "custom": "nodes and links as listed",
    }),
}


@main.command(name="list")
def list_parts() -> None:
    """List every congestion control, startup, recovery, restart policy, RTO rule,
    application and topology, with the key that picks it (docs/scenarios.md)."""
    for family, (key, parts) in PARTS.items():
        click.echo(f"{family} ({key}):")
        width = max(len(name) for name in parts)
        for name, what in parts.items():
            click.echo(f"  {name:<{width}}  {what}")


@main.group()
def testbed() -> None:
    """The real path: network namespaces, tc (docs/testbed.md): check, run."""


@testbed.command(name="check")
def testbed_check() -> None:
    """Say what this machine allows and what a run needs: root, namespaces, veth, each qdisc,
    rampup-delayline and rampup-udp, the experiments' files, a capture tool, congestion controls.

    Tries each in a namespace of its own (rampup-check-PID), removed again."""
    from . import testbed as tb  # noqa: PLC0415

    for f in tb.check():
        click.echo(f"{f.name:<20} {f.detail}")


@testbed.command(name="run")
@click.argument("experiment", type=click.Choice(["bulk", "restart", "exchange", "two-flows"]))
@click.option("--reps", type=click.IntRange(1, 100), default=3, show_default=True, help="Runs of each real stack.")
@click.option("--bytes", "nbytes", type=click.IntRange(1, 10**10), default=None,
              help="bulk: the bytes the client sends (default: the scenario file's, 20 MB).")
@click.option("--pcap", "pcap_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Capture each real run at the client's link into this folder (tcpdump or dumpcap).")
@click.option("--delay", type=click.Choice(["auto", "netem", "delay-line"]), default="auto", show_default=True,
              help="The one-way delay by netem, by rampup's delay line, or netem where the kernel has it.")
def testbed_run(experiment: str, reps: int, nbytes: int | None, pcap_dir: Path | None, delay: str) -> None:
    """Run EXPERIMENT (scenarios/testbed/EXPERIMENT.toml) on a real path with each stack, and
    print its table (docs/testbed.md).

    bulk: one transfer over 40 Mb/s, 100 ms RTT, a 250-packet queue, with CUBIC and Reno.
    restart: 24 KB, about 5 s idle, 24 KB again, over 800 kb/s, 100 ms RTT, a 10 KB queue; IW 4
    and 2, SSR and NSSR. exchange: two requests answered by 24 KB after 5 s of thought, on
    restart's path; IW 4, SSR and NSSR. two-flows: 10 MB from each of two clients, 20 and 100
    ms RTT, over 20 Mb/s and a 100-packet queue, with CUBIC and Reno. Each by the kernel's TCP,
    rampup's over UDP, and the simulator."""
    import pandas as pd  # noqa: PLC0415

    from . import testbed as tb  # noqa: PLC0415
    from . import testbed_agreement as ta  # noqa: PLC0415
    from . import testbed_experiments as te  # noqa: PLC0415
    from .experiments.present import docs_table  # noqa: PLC0415

    for gone in tb.remove_leftovers():
        click.echo(f"removed {gone}, left by an earlier run", err=True)
    # Everything the run needs, before the first stack runs: a program missing after the
    # kernel's runs would lose them.
    for f in tb.unmet(tb.check(), delay, pcap_dir is not None)[:1]:
        _fail(f"testbed run needs {f.name}: {f.detail} (rampup testbed check lists every need)", 2)

    def progress(line: str) -> None:
        click.echo(line, err=True)

    try:
        if experiment == "bulk":
            rows = te.bulk(nbytes, reps, progress, pcap_dir, delay)
        else:
            rows = {"restart": te.restart, "exchange": te.exchange, "two-flows": te.two_flows}[experiment](reps, progress, pcap_dir, delay)
    except tb.TestbedError as e:
        _fail(e, 2)
    df = pd.DataFrame(rows)
    loss_cols = ["retransmits", "timeouts", "drops"]
    cols = ["ms", *sorted(c for c in df if c.startswith("transfer")), "goodput_mbps", *loss_cols]
    table = ta.means(df)
    means, counts = table[cols], table["runs"]
    flows = df["flow"].nunique() > 1
    head = ["case", "stack", *(["flow"] if flows else []), "runs", "connection ms", *(c.replace("_ms", " ms") for c in cols[1:-4]),
            "goodput Mb/s", *loss_cols]
    click.echo(docs_table(head, [[case, stack, *([str(flow)] if flows else []), str(counts[(case, stack, flow)]), *(f"{v:.0f}" for v in r[:-4]),
                                  f"{r[-4]:.3f}", *(f"{v:.1f}" for v in r[-3:])]
                                 for (case, stack, flow), r in zip(means.index, means.to_numpy().tolist(), strict=True)]))
    click.echo(f"\n{ta.HEADER}")
    for line in ta.agreement_lines(table):
        click.echo(f"- {line}")


@main.command()
@click.argument("file", type=click.Path(path_type=Path))
@set_option
def check(file: Path, sets: tuple[str, ...]) -> None:
    """Validate the scenario FILE, with any --set applied, without running it, and estimate what a run takes."""
    text = _read_scenario(file)
    warnings = _check_scenario(file, text)
    if sets:
        text = _with_sets(text, sets)
        warnings = _check_scenario(file, text)
    _warn(file, warnings)
    click.echo(f"{file}: ok" + (f" with {', '.join(sets)}" if sets else ""))
    click.echo(_estimate_line(text))


@main.command()
@click.argument("file", type=click.Path(path_type=Path))
def inspect(file: Path) -> None:
    """Show each flow's path in the scenario FILE without running it: route, bottleneck, RTTs and BDP;
    and estimate what a run takes."""
    from .api import inspect as inspect_paths

    text = _read_scenario(file)
    _warn(file, _check_scenario(file, text))
    paths = inspect_paths(text)
    table = Table(box=None)
    for column in ("flow", "from → to", "hops", "bottleneck", "propagation RTT", "base RTT", "BDP", "BDP/MSS"):
        table.add_column(column, justify="left" if column == "from → to" else "right")
    for p in paths.to_dict("records"):
        table.add_row(str(p["flow"]), f"{p['from']} → {p['to']}", str(p["hops"]), f"{p['bottleneck_bps'] / 1e6:g} Mb/s",
                      f"{p['propagation_rtt_ns'] / 1e6:.3f} ms", f"{p['base_rtt_ns'] / 1e6:.3f} ms",
                      f"{p['bdp_bytes']:,.0f} B", f"{p['bdp_bytes'] / p['mss_bytes']:,.1f}")
    stdout_console().print(table)
    for p in paths.to_dict("records"):
        if p["web_rate"] == p["web_rate"]:  # not NaN: a web flow
            stdout_console().print(f"flow {p['flow']}: web, {p['web_rate']:.2f} new connections per second")
    click.echo(_estimate_line(text))


def _bench_web(repeat: int, duration: float, ns2: bool) -> None:
    from .bench import machine, ns2_missing, run_web_bench

    missing = ns2_missing() if ns2 else None
    console = stdout_console()
    if missing:
        console.print(f"ns-2 skipped: {missing}; timing rampup only")
    try:
        row = run_web_bench(repeat, duration, ns2 and missing is None)
    except RuntimeError as e:
        raise CliError(str(e), EXIT_FAILURE) from None
    table = Table(box=box.SIMPLE_HEAD)
    cols = ["", "connections completed", "wall s", "connections / wall s", "peak MB"]
    for c in cols:
        table.add_column(c, justify="right")
    table.add_row("rampup", str(row["packets"]), f"{row['rampup_wall_s']:.2f}", f"{row['rampup_pkts_per_s']:,.0f}",
                  f"{row['rampup_peak_mb']:.0f}")
    if "ns2_packets" in row:
        table.add_row("ns-2", str(row["ns2_packets"]), f"{row['ns2_wall_s']:.2f}", f"{row['ns2_pkts_per_s']:,.0f}",
                      f"{row['ns2_peak_mb']:.0f}")
        table.add_row("ratio", "" if row["same_work"] else "differs by > 5%", "", f"{row['speedup']:.1f}x",
                      f"{row['rampup_peak_mb'] / row['ns2_peak_mb']:.2f}")
    console.print(table)
    console.print(f"medians of {repeat} run(s); paper 002's base case, {row['rate']:.2f} new connections/s, {duration:g} "
                  "simulated seconds; whole processes, set-up included; one thread (web runs are not split)")
    console.print(f"machine: {machine()}", soft_wrap=True)


def defaults_markdown() -> str:
    """The defaults table of docs/scenarios.md."""
    from . import _engine

    def cell(value: str) -> str:  # in words where the default is an absence or follows another key
        return value[1:-1] if value.startswith("(") else f"`{value}`"

    rows = [f"| {table or '(top level)'} | `{key}` | {cell(value)} |" for table, key, value in _engine.defaults()]
    return "\n".join(["| table | key | default |", "| --- | --- | --- |", *rows]) + "\n"


@main.command(name="defaults")
@click.option("--markdown", is_flag=True, help="As the Markdown table of docs/scenarios.md.")
def defaults_command(markdown: bool) -> None:
    """Every scenario key that may be left out, and the value rampup then uses."""
    from . import _engine

    if markdown:
        click.echo(defaults_markdown(), nl=False)
        return
    table = Table(box=None)
    for column in ("table", "key", "default"):
        table.add_column(column)
    for where, key, value in _engine.defaults():
        table.add_row(where or "(top level)", key, value)
    stdout_console().print(table)


def _int_list(value: str) -> list[int]:
    try:
        ns = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise CliError(f"--flows: {value!r} is not a comma-separated list of whole numbers") from None
    if not ns or any(n < 1 for n in ns):
        raise CliError(f"--flows: {value!r}: each N must be at least 1")
    return ns


@main.command()
@click.option("--flows", default="1,10,100,1000,10000", show_default=True, help="Comma-separated flow counts N.")
@click.option("--large", is_flag=True, help="Also N = 100,000.")
@click.option("--repeat", type=click.IntRange(1, 50), default=3, show_default=True, help="Runs per N (medians).")
@click.option("--duration", type=click.FloatRange(0.001, 3600), default=60.0, show_default=True, help="Simulated seconds.")
@click.option("--ns2/--no-ns2", default=True, show_default=True, help="Also time ns-2 when `ns` is on the PATH.")
@click.option("--web", is_flag=True, help="Time short web connections instead: paper 002's base case (PackMime-HTTP at "
              "50% of 5 Mb/s, Full-TCP Reno), completed connections per wall second; --duration 300 unless given.")
def bench(flows: str, large: bool, repeat: int, duration: float, ns2: bool, web: bool) -> None:
    """Time the benchmark dumbbell: data packets delivered per wall second and peak memory."""
    from .bench import machine, ns2_missing, run_bench

    if web:
        source = click.get_current_context().get_parameter_source("duration")
        _bench_web(repeat, 300.0 if source == click.core.ParameterSource.DEFAULT else duration, ns2)
        return

    ns = _int_list(flows) + ([100_000] if large else [])
    missing = ns2_missing() if ns2 else None
    with_ns2 = ns2 and missing is None
    console = stdout_console()
    if missing:
        console.print(f"ns-2 skipped: {missing}; timing rampup only")
    if with_ns2 and max(ns) > NS2_MAX_FLOWS:
        console.print(f"ns-2 skipped above N = {NS2_MAX_FLOWS:,}: it needs minutes and gigabytes there")
    table = Table(box=box.SIMPLE_HEAD)
    cols = ["N", "packets", "rampup Mpkt/s", "CPU/wall", "MB"]
    if with_ns2:
        cols += ["ns-2 Mpkt/s", "MB", "ratio", "same work"]
    for c in cols:
        table.add_column(c, justify="right")

    def report(row: dict) -> None:
        cells = [str(row["flows"]), str(row["packets"]), f"{row['rampup_pkts_per_s'] / 1e6:.3f}",
                 f"{row['rampup_cpu_s'] / row['rampup_wall_s']:.2f}", f"{row['rampup_peak_mb']:.0f}"]
        if with_ns2:
            if "ns2_packets" in row:
                cells += [f"{row['ns2_pkts_per_s'] / 1e6:.3f}", f"{row['ns2_peak_mb']:.0f}", f"{row['speedup']:.1f}x",
                          "yes" if row["same_work"] else f"NO ({row['ns2_packets']})"]
            else:
                cells += ["-"] * 4
        table.add_row(*cells)
        console.print(f"N = {row['flows']:,}: {row['rampup_pkts_per_s'] / 1e6:.2f} M pkt/s")

    try:
        for n in ns:
            run_bench([n], repeat, duration, with_ns2 and n <= NS2_MAX_FLOWS, report)
    except RuntimeError as e:
        raise CliError(str(e), EXIT_FAILURE) from None
    console.print(table)
    console.print(f"medians of {repeat} run(s) per N; {duration:g} simulated seconds; whole processes, set-up included")
    console.print("rampup splits a run over two threads where it can (RAMPUP_THREADS=1: one); "
                  "CPU/wall is its CPU time over wall time")
    console.print(f"machine: {machine()}", soft_wrap=True)


if __name__ == "__main__":  # run as a script, cli_runs would register on another copy of `main`
    sys.exit("rampup: run it as `rampup` or `python -m rampup`")
# The commands that run many scenarios through the cache register on `main` there.
from . import cli_runs  # noqa: E402,F401
