"""Plots from the DataFrames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import rampup
from rampup.plots import plot_cwnd, plot_seq, render_plots, settings_line, write_plots

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


def test_the_settings_line_keeps_whole_settings_and_counts_the_rest() -> None:
    assert settings_line([]) == ""
    assert settings_line([("flow[0].tcp.cc", "vegas"), ("seed", "3")]) == "set flow[0].tcp.cc=vegas, seed=3"
    many = [(f"flow[{i}].tcp.initial_window", "10") for i in range(8)]
    line = settings_line(many, max_chars=80)
    assert line == "set flow[0].tcp.initial_window=10, flow[1].tcp.initial_window=10 (+6 more)"
    assert len(line) <= 80
    long_value = [("topology.access_delay", "[" + ", ".join(['"1ms"'] * 40) + "]"), ("seed", "2")]
    line = settings_line(long_value, max_chars=60)
    assert len(line) == 60 and line.startswith("set topology.access_delay=[") and line.endswith("… (+1 more)")


def test_a_figure_shows_its_settings_under_the_title() -> None:
    ts = pd.DataFrame({"t_ns": [0, 10**9], "flow": [0, 0], "cwnd_bytes": [2000, 4000], "snd_nxt": [1, 9001]})
    for plot, quantity in ((plot_cwnd, "congestion window"), (plot_seq, "sequence (snd_nxt)")):
        fig = plot(ts, "demo", "set flow[0].tcp.cc=vegas")
        assert fig.get_suptitle() == f"demo {quantity}"
        assert fig.axes[0].get_title() == "set flow[0].tcp.cc=vegas"
        assert plot(ts, "demo").axes[0].get_title() == ""


def test_run_plot_titles_name_what_set_changed(demo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from rampup import cli, plots

    titles = []

    def recording(ts: pd.DataFrame, title: str = "", subtitle: str = "") -> dict[str, bytes]:
        titles.append((title, subtitle))
        return render_plots(ts, title, subtitle)

    monkeypatch.setattr(plots, "render_plots", recording)
    sets = ["--set", "flow[0].tcp.cc=vegas", "--set", "topology.bottleneck_queue.packets=20"]
    done = CliRunner().invoke(cli.main, ["run", str(demo_path), "--plot", "--out", str(tmp_path / "out"), *sets])
    assert done.exit_code == 0, done.output
    assert titles == [("demo", "set flow[0].tcp.cc=vegas, topology.bottleneck_queue.packets=20")]
    assert (tmp_path / "out" / "cwnd.png").read_bytes().startswith(PNG)
