"""rampup.run and Result."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest

import rampup

# Columns the contract and DESIGN.md fix; the engine may add more.
FLOWS_COLUMNS = {"flow", "from", "to", "bytes_acked"}
TIMESERIES_COLUMNS = {"flow", "cwnd", "ssthresh", "srtt", "flight", "snd_nxt", "snd_una"}
PCAP_MAGICS = {b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"}


@pytest.fixture(scope="module")
def demo(demo_path: Path) -> rampup.Result:
    return rampup.run(demo_path)


def _has(columns: pd.Index, wanted: set[str]) -> set[str]:
    """The wanted columns missing from ``columns`` (a unit suffix like `_bytes` is allowed)."""
    return {w for w in wanted if not any(c == w or c.startswith(w + "_") for c in columns)}


def test_demo_returns_dataframes(demo: rampup.Result) -> None:
    for name in ("flows", "timeseries", "queues", "links"):
        assert isinstance(getattr(demo, name), pd.DataFrame), name
    assert len(demo.flows) == 1  # one [[flow]] in demo.toml
    assert not _has(demo.flows.columns, FLOWS_COLUMNS), list(demo.flows.columns)
    assert list(demo.flows["from"]) == ["s0"] and list(demo.flows["to"]) == ["r0"]
    assert demo.flows["bytes_acked"].iloc[0] > 0
    assert len(demo.timeseries) > 0  # trace.timeseries = true
    assert not _has(demo.timeseries.columns, TIMESERIES_COLUMNS), list(demo.timeseries.columns)
    assert demo.out is None


def test_all_engine_tables_are_there(demo: rampup.Result, demo_text: str) -> None:
    from rampup import _engine

    raw = _engine.run(demo_text)
    assert list(demo.tables)[:4] == ["flows", "timeseries", "queues", "links"]
    assert set(demo.tables) == set(raw["tables"])
    for name, columns in raw["tables"].items():
        assert list(getattr(demo, name).columns) == list(columns)
    with pytest.raises(AttributeError):
        demo.no_such_table  # noqa: B018


def test_demo_pcap(demo: rampup.Result) -> None:
    # [trace] pcap = ["left-right"]: the engine names captures per direction
    # ("left_to_right", "right_to_left"); accept the link name itself too.
    assert demo.pcaps
    for name, data in demo.pcaps.items():
        assert name in {"left-right", "left_to_right", "right_to_left"}, name
        assert data[:4] in PCAP_MAGICS, name
        assert len(data) > 24  # a header and packets


def test_manifest(demo: rampup.Result, demo_text: str) -> None:
    m = demo.manifest
    assert m["rampup_version"] == rampup.__version__
    assert m["scenario"] == demo_text
    assert m["seed"] == demo.seed == 1
    assert m["name"] == "demo"
    assert len(m["content_hash"]) == 64
    assert m["events"] > 0 and m["sim_end_ns"] >= 10 * 10**9 * 0.99
    assert m["wall_time_s"] >= 0


def test_scenario_forms_agree(demo_path: Path, demo_text: str, demo: rampup.Result) -> None:
    as_str_path = rampup.run(str(demo_path))
    as_text = rampup.run(demo_text)
    as_dict = rampup.run(tomllib.loads(demo_text))
    assert as_str_path.content_hash == as_text.content_hash == demo.content_hash
    assert as_dict.content_hash == demo.content_hash  # same scenario, different text
    assert as_dict.manifest["scenario_sha256"] != demo.manifest["scenario_sha256"]


def test_seed_override(demo_text: str) -> None:
    assert rampup.run(demo_text, seed=42).seed == 42
    for bad in (-1, 2**64, 1.5, "3"):
        with pytest.raises(ValueError, match=r"^seed: .* is not allowed; give a whole number from 0 to 2\^64 - 1$"):
            rampup.run(demo_text, seed=bad)  # type: ignore[arg-type]


def test_a_likely_mistake_is_a_warning_not_an_error(demo_text: str) -> None:
    late = demo_text.replace('start = "0s"', 'start = "99s"', 1)
    assert rampup.check(late) == ["flow[0].start: 99s is not before the end of the run (10s): the flow sends nothing"]
    assert rampup.check(demo_text) == []
    with pytest.warns(rampup.ScenarioWarning, match=r"^flow\[0\]\.start: 99s"):
        rampup.run(late)


def test_a_path_with_an_equals_sign_is_still_a_path(demo_text: str, tmp_path: Path) -> None:
    folder = tmp_path / "queue=50"
    folder.mkdir()
    (folder / "demo.toml").write_text(demo_text)
    assert rampup.run(str(folder / "demo.toml")).content_hash == rampup.run(demo_text).content_hash


def test_a_notebook_shows_the_run_and_its_flows(demo: rampup.Result) -> None:
    page = demo._repr_html_()
    assert "<b>demo</b>: seed" in page and "<table" in page and "goodput_bps" in page
    assert "<code>connections</code>" in page


def test_errors(demo_text: str, tmp_path: Path) -> None:
    with pytest.raises(rampup.ScenarioError):
        rampup.run("bogus = 1\n" + demo_text)
    with pytest.raises(ValueError):  # ScenarioError is a ValueError
        rampup.check({"name": "x", "bogus": 1})
    with pytest.raises(FileNotFoundError):
        rampup.run(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="fmt"):
        rampup.run(demo_text, fmt="xlsx")
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "thesis.tex").write_text("...")
    with pytest.raises(rampup.OutputError):
        rampup.run(demo_text, out=tmp_path / "precious")
    assert (tmp_path / "precious" / "thesis.tex").exists()


def test_inspect_gives_each_flows_path_from_the_engine(demo_text: str) -> None:
    paths = rampup.inspect(demo_text)
    assert list(paths["flow"]) == [0] and paths.at[0, "path"] == "s0->left left->right right->r0"
    # Closed form for demo.toml: 10 Mb/s x 44 ms = 55,000 bytes.
    assert paths.at[0, "propagation_rtt_ns"] == 44_000_000
    assert paths.at[0, "bdp_bytes"] == 55_000.0
    assert paths.at[0, "base_rtt_ns"] > paths.at[0, "propagation_rtt_ns"]
    with pytest.raises(rampup.ScenarioError, match="duration"):
        rampup.inspect("duration = 1\n")


def test_bad_python_values_are_one_line_errors_naming_the_key(demo_text: str) -> None:
    np = pytest.importorskip("numpy")
    doc = tomllib.loads(demo_text)
    doc["flow"][0]["tcp"]["initial_window"] = np.array([2, 4])
    with pytest.raises(TypeError, match=r"^flow\[0\]\.tcp\.initial_window: a numpy array of shape \(2,\)"):
        rampup.check(doc)
    doc = tomllib.loads(demo_text)
    doc["name"] = "demo\udcff"  # as os.fsdecode makes of a byte that is not UTF-8
    with pytest.raises(rampup.ScenarioError, match=r"^name: the string 'demo\\udcff' holds a lone surrogate"):
        rampup.run(doc)
    deep: dict = {}
    node = deep
    for _ in range(1000):
        node = node.setdefault("t", {})
    with pytest.raises(rampup.ScenarioError, match=r"^topology\.t\.t\.t\.….* deep\): nested deeper than"):
        rampup.check({**tomllib.loads(demo_text), "topology": deep})


def test_a_lone_surrogate_in_toml_text_names_its_line_and_key(demo_text: str) -> None:
    text = demo_text.replace("mss = 1000", 'mss = 1000  # "\udcff"')
    line = text[: text.index("\udcff")].count("\n") + 1
    with pytest.raises(rampup.ScenarioError, match=rf"^line {line} column \d+ \(flow\.tcp\.mss\): a lone surrogate"):
        rampup.check(text)


def test_an_unknown_key_or_name_says_what_was_meant(demo_text: str) -> None:
    with pytest.raises(rampup.ScenarioError, match=r"unknown field `initial_windw` \(did you mean `initial_window`\?\), "
                                                   r"expected one of `profile`"):
        rampup.check(demo_text.replace("initial_window = 2", "initial_windw = 2"))
    with pytest.raises(rampup.ScenarioError, match=r"unknown cc \"vegass\" \(did you mean `vegas`\?\)"):
        rampup.check(demo_text.replace('cc = "newreno"', 'cc = "vegass"'))
    with pytest.raises(rampup.ScenarioError) as e:  # nothing close: the engine's words alone
        rampup.check(demo_text.replace("initial_window = 2", "zzzzzz = 2"))
    assert "did you mean" not in str(e.value)
