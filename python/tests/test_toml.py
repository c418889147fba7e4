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
    with pytest.raises(TypeError, match=r"^flow\.tcp\.mss: TOML has no null"):
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
