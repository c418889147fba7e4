"""Plots from the DataFrames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import rampup
from rampup.plots import render_plots, write_plots

PNG = b"\x89PNG\r\n\x1a\n"


def test_plots_of_the_demo(demo_path: Path, tmp_path: Path) -> None:
    ts = rampup.run(demo_path).timeseries
    images = render_plots(ts, "demo")
    assert set(images) == {"cwnd.png", "seq.png"}
    assert all(data.startswith(PNG) for data in images.values())
    assert render_plots(ts, "demo") == images  # no date or version stamped in the files
    paths = write_plots(ts, tmp_path)
    assert sorted(p.name for p in paths) == ["cwnd.png", "seq.png"]


def test_plots_without_a_timeseries() -> None:
    for ts in (pd.DataFrame(), pd.DataFrame({"t_ns": [], "flow": [], "cwnd_bytes": [], "snd_nxt": []})):
        assert all(data.startswith(PNG) for data in render_plots(ts).values())


def test_importing_the_plots_leaves_the_backend_alone() -> None:
    # A notebook's inline backend must survive `import rampup.plots` (and the reproductions,
    # which draw the same way): checked in a fresh interpreter that chose a backend first.
    import subprocess
    import sys

    code = ("import matplotlib; matplotlib.use('svg'); import rampup.plots, rampup.experiments.rbp; "
            "import rampup.experiments.ssthreshless; print(matplotlib.get_backend())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "svg", done.stderr
