"""Scenarios given as dicts are written as TOML (tomli-w, with numpy scalars and errors
handled by rampup._toml)."""

from __future__ import annotations

import math
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rampup._toml import dumps


def test_demo_round_trips(demo_text: str) -> None:
    doc = tomllib.loads(demo_text)
    assert tomllib.loads(dumps(doc)) == doc


def test_a_scenario_reads_as_one_written_by_hand(demo_text: str) -> None:
    # Tables as [headers] and the flows as [[flow]], the way docs/scenarios.md writes them.
    text = dumps(tomllib.loads(demo_text))
    for header in ("[topology]", "[[flow]]", "[flow.tcp]", "[trace]"):
        assert f"\n{header}\n" in text, header


def test_rejects_what_toml_cannot_hold() -> None:
    with pytest.raises(TypeError, match=r"^flow\[0\]\.tcp\.mss: TOML has no null"):
        dumps({"flow": [{"tcp": {"mss": None}}]})
    with pytest.raises(TypeError):
        dumps({"a": object()})
    with pytest.raises(TypeError):
        dumps(["not", "a", "dict"])  # type: ignore[arg-type]


keys = st.text(min_size=1, max_size=8)
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)


@given(st.dictionaries(keys, values, max_size=6))
def test_round_trip(doc: dict) -> None:
    assert tomllib.loads(dumps(doc)) == doc


def test_numpy_scalars_are_written_as_plain_numbers() -> None:
    np = pytest.importorskip("numpy")
    doc = {"f": np.float64(0.5), "g": np.float32(0.25), "i": np.int64(-3), "u": np.uint16(7), "b": np.bool_(True),
           "a": [np.float64(1.5), np.int32(2)]}
    assert tomllib.loads(dumps(doc)) == {"f": 0.5, "g": 0.25, "i": -3, "u": 7, "b": True, "a": [1.5, 2]}


def test_special_floats() -> None:
    out = tomllib.loads(dumps({"a": math.inf, "b": -math.inf, "c": 1e-300, "d": 2.0}))
    assert out["a"] == math.inf and out["b"] == -math.inf and out["c"] == 1e-300 and out["d"] == 2.0
    assert math.isnan(tomllib.loads(dumps({"n": math.nan}))["n"])


def test_a_numpy_array_where_a_value_belongs_names_the_key() -> None:
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match=r"^flow\[0\]\.tcp\.mss: a numpy array of shape \(2,\) is not one value; "
                                        r"give a number, or a list \(array\.tolist\(\)\)"):
        dumps({"flow": [{"tcp": {"mss": np.array([1000, 1500])}}]})
    with pytest.raises(TypeError, match=r"^seed: a numpy array of shape \(1,\)"):  # not taken for its element
        dumps({"seed": np.array([3])})
    assert dumps({"seed": np.array(3)}) == "seed = 3\n"  # a 0-d array is one value


def test_a_lone_surrogate_names_the_key() -> None:
    from rampup import ScenarioError

    with pytest.raises(ScenarioError, match=r"^flow\[0\]\.to: the string 'r\\udcff' holds a lone surrogate"):
        dumps({"flow": [{"to": "r\udcff"}]})
    # The key itself, escaped in the message so that it prints anywhere.
    with pytest.raises(ScenarioError, match=r"^topology\.a\\udcff: the key 'a\\udcff' holds a lone surrogate") as e:
        dumps({"topology": {"a\udcff": 1}})
    str(e.value).encode("utf-8")


def test_tables_nested_too_deep_are_one_line_not_a_recursion_error() -> None:
    from rampup import ScenarioError
    from rampup._toml import MAX_DEPTH

    deep: dict = {}
    node = deep
    for _ in range(1500):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ScenarioError, match=rf"^x\.a\.a\.a\.….a\.a \({MAX_DEPTH + 1} deep\): nested deeper than {MAX_DEPTH} tables"):
        dumps({"x": deep})
    lists: list = []
    node_list = lists
    for _ in range(1500):
        node_list.append([])
        node_list = node_list[0]
    with pytest.raises(ScenarioError, match="nested deeper than"):
        dumps({"x": lists})
    loop: dict = {}
    loop["self"] = loop
    with pytest.raises(ScenarioError, match="nested deeper than"):
        dumps(loop)
