"""Plots of a run's timeseries. Figures are made without pyplot, so importing this module
leaves matplotlib's backend alone (a notebook keeps its inline plots) and needs no display."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

__all__ = ["plot_cwnd", "plot_seq", "render_plots", "settings_line", "write_plots"]

# The timeseries records a row whenever a value changes, so values hold until the
# next row: draw steps, not lines.
_STEP: dict[str, Any] = {"drawstyle": "steps-post", "linewidth": 1.0}


#: A subtitle of settings longer than this is cut: about what fits over a 9-inch figure in
#: matplotlib's small font.
SUBTITLE_CHARS = 100


def settings_line(settings: Sequence[tuple[str, str]], max_chars: int = SUBTITLE_CHARS) -> str:
    """The settings a run changed (`rampup run --set KEY=VALUE`), as a figure's subtitle:
    ``set flow[0].tcp.cc=vegas, topology.bottleneck_rate=20Mbps``. A line longer than
    ``max_chars`` keeps the settings that fit whole, in the order given, and says how many
    more there were (``(+2 more)``); a first setting too long on its own is cut with "…".
    No settings: an empty line."""
    items = [f"{key}={value}" for key, value in settings]
    line = "set " + ", ".join(items)
    if len(line) <= max_chars:
        return line if items else ""
    for kept in range(len(items) - 1, 0, -1):
        line = f"set {', '.join(items[:kept])} (+{len(items) - kept} more)"
        if len(line) <= max_chars:
            return line
    more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
    return "set " + items[0][: max(max_chars - len("set …") - len(more), 1)] + "…" + more


def _time_s(ts: pd.DataFrame) -> pd.Series:
    """Time in seconds, from whichever time column the engine wrote."""
    for col, scale in (
        ("t_ns", 1e-9),
        ("time_ns", 1e-9),
        ("t_us", 1e-6),
        ("t_s", 1.0),
        ("time_s", 1.0),
        ("time", 1.0),
        ("t", 1.0),
    ):
        if col in ts.columns:
            return ts[col].astype("float64") * scale
    raise KeyError(f"timeseries has no time column (columns: {', '.join(ts.columns)})")


def _column(ts: pd.DataFrame, *names: str) -> str:
    for name in names:
        if name in ts.columns:
            return name
    raise KeyError(f"timeseries has none of {', '.join(names)} (columns: {', '.join(ts.columns)})")


def _per_flow(ts: pd.DataFrame, value: str, ylabel: str, title: str, subtitle: str, scale: float = 1.0) -> Figure:
    fig = Figure(figsize=(9, 4.5), layout="constrained")
    ax = fig.subplots()
    if ts.empty:
        ax.text(
            0.5, 0.5, "no timeseries (is [trace] timeseries = true?)", ha="center", va="center", transform=ax.transAxes
        )
    else:
        t = _time_s(ts)
        flows = ts["flow"] if "flow" in ts.columns else pd.Series(0, index=ts.index)
        for flow in sorted(flows.unique()):
            rows = flows == flow
            ax.plot(t[rows], ts.loc[rows, value].astype("float64") * scale, label=f"flow {flow}", **_STEP)
        if flows.nunique() <= 12:
            ax.legend(loc="best", fontsize="small")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    # The run's name and the figure's quantity above; what the run changed, smaller, below.
    fig.suptitle(title)
    ax.set_title(subtitle, fontsize="small")
    ax.grid(True, alpha=0.3)
    return fig


def plot_cwnd(ts: pd.DataFrame, title: str = "", subtitle: str = "") -> Figure:
    """Congestion window over time, one line per flow; ``subtitle`` under the title (as
    `settings_line` makes it)."""
    col = _column(ts, "cwnd_bytes", "cwnd", "cwnd_segments") if not ts.empty else ""
    unit = "segments" if col.endswith("segments") else "bytes"
    return _per_flow(ts, col, f"cwnd ({unit})", f"{title} congestion window".strip(), subtitle)


def plot_seq(ts: pd.DataFrame, title: str = "", subtitle: str = "") -> Figure:
    """snd_nxt over time (a sequence plot), one line per flow, in MB sent."""
    col = _column(ts, "snd_nxt", "snd_nxt_bytes") if not ts.empty else ""
    return _per_flow(ts, col, "snd_nxt (MB)", f"{title} sequence (snd_nxt)".strip(), subtitle, scale=1e-6)


def render_plots(ts: pd.DataFrame, title: str = "", subtitle: str = "") -> dict[str, bytes]:
    """PNG bytes of ``cwnd.png`` and ``seq.png``, to go into a results folder."""
    images = {}
    for name, plot in (("cwnd.png", plot_cwnd), ("seq.png", plot_seq)):
        fig = plot(ts, title, subtitle)
        buf = io.BytesIO()
        # No date in the PNG metadata: identical runs give identical images.
        fig.savefig(buf, format="png", dpi=120, metadata={"Software": None})
        images[name] = buf.getvalue()
    return images


def write_plots(ts: pd.DataFrame, folder: str | Path, title: str = "", subtitle: str = "") -> list[Path]:
    """Writes cwnd.png and seq.png into ``folder``; returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in render_plots(ts, title, subtitle).items():
        (folder / name).write_bytes(data)
        paths.append(folder / name)
    return paths
