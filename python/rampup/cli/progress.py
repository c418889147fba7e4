"""A long run's progress on the terminal, while the run stays on the main thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

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

T = TypeVar("T")

#: Runs shorter than this show no progress indicator.
PROGRESS_AFTER_S = 1.0


def with_progress(
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
