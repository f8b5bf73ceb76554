"""Observation layouts, buffers and the scaler; action coercion; config validators."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from gymnasium import spaces

from cardarena.envs import ENVS, pettingzoo_id
from cardarena.envs.core import (
    IllegalActionError,
    InvalidConfigError,
    ObservationLayout,
    ObservationScaler,
    Piece,
    coerce_action,
)
from cardarena.envs.core.validation import check_choice, check_int, check_known_keys


@pytest.mark.parametrize("value", [3, np.int8(3), np.uint64(3), np.array(3), np.array([3])])
def test_coerce_action_accepts_integers_and_one_element_integer_arrays(value):
    assert coerce_action(value, 5, "p") == 3


@pytest.mark.parametrize(
    "value", [3.0, np.float32(3), "3", None, True, np.bool_(True), np.array([1, 2]), [3]]
)
def test_coerce_action_refuses_everything_else(value):
    with pytest.raises(IllegalActionError, match=r"must be an integer in 0\.\.4"):
        coerce_action(value, 5, "p")


@pytest.mark.parametrize("value", [5, -1, np.int64(9)])
def test_coerce_action_refuses_out_of_range(value):
    with pytest.raises(
        IllegalActionError, match=r"out of range: the action space is Discrete\(5\)"
    ):
        coerce_action(value, 5, "p")


def _layout() -> ObservationLayout:
    return ObservationLayout(
        [
            Piece("a", 2, 3, "first"),
            Piece("grid", (2, 3), 10, "second"),
            Piece("delta", 1, 4, "third", low=-4),
        ]
    )


def test_layout_offsets_bounds_shapes_views_and_table():
    layout = _layout()
    assert layout.size == 9 and layout["grid"] == slice(2, 8) and layout["delta"] == slice(8, 9)
    assert layout.low.tolist() == [0] * 8 + [-4]
    assert layout.high.tolist() == [3, 3] + [10] * 6 + [4]
    box = layout.space()
    assert box.low.tolist() == layout.low.tolist() and box.dtype == np.float32
    view = layout.view(np.arange(9.0))
    assert view["grid"].shape == (2, 3) and view["grid"][1].tolist() == [5, 6, 7]
    assert layout.table_rows() == [
        "| 0-1 | a | 2 | 0..3 | first |",
        "| 2-7 | grid | 2x3 | 0..10 | second |",
        "| 8 | delta | 1 | -4..4 | third |",
    ]
    with pytest.raises(ValueError, match="duplicate"):
        ObservationLayout([Piece("a", 1, 1, ""), Piece("a", 1, 1, "")])
    with pytest.raises(ValueError, match="low 2 > high 1"):
        Piece("x", 1, 1, "", low=2)
    with pytest.raises(ValueError, match="shape must be positive"):
        Piece("x", (2, 0), 1, "")


def test_spans_are_named_flat_windows_over_consecutive_pieces():
    pieces = [Piece("a", 2, 1, ""), Piece("b", (2, 2), 1, ""), Piece("c", 1, 1, "")]
    buffer = ObservationLayout(pieces, spans={"ab": ("a", "b")}).buffer()
    buffer.clear()["ab"][:] = range(6)
    assert buffer.snapshot().tolist() == [0, 1, 2, 3, 4, 5, 0]
    assert buffer.views["b"].tolist() == [[2, 3], [4, 5]]
    single = ObservationLayout(pieces, spans={"just_c": ("c", "c")})
    assert single.spans["just_c"] == slice(6, 7)
    with pytest.raises(ValueError, match="comes before"):
        ObservationLayout(pieces, spans={"back": ("c", "a")})
    with pytest.raises(ValueError, match="must name pieces"):
        ObservationLayout(pieces, spans={"x": ("a", "nope")})


def test_buffer_views_are_pre_shaped_writable_windows_of_one_array():
    buffer = _layout().buffer()
    views = buffer.clear()
    views["grid"][1, 2] = 7
    views["delta"][0] = -1
    snapshot = buffer.snapshot()
    assert snapshot.tolist() == [0, 0, 0, 0, 0, 0, 0, 7, -1]
    buffer.clear()
    assert snapshot[7] == 7 and not buffer.array.any()  # snapshots are copies
    for twin in (copy.deepcopy(buffer), pickle.loads(pickle.dumps(buffer))):
        twin.views["a"][0] = 2
        assert twin.snapshot()[0] == 2  # a copy's views still write into the copy's array
        assert buffer.array[0] == 0


def test_scaler_maps_the_box_onto_unit_range_with_offsets():
    box = spaces.Box(
        np.array([-4.0, 0.0, 2.0], dtype=np.float32),
        np.array([4.0, 10.0, 2.0], dtype=np.float32),
        dtype=np.float32,
    )
    scaler = ObservationScaler(box)
    observation = np.array([-4.0, 5.0, 2.0], dtype=np.float32)
    assert scaler(observation).tolist() == [0.0, 0.5, 0.0]
    assert scaler(np.array([4.0, 10.0, 2.0], dtype=np.float32)).tolist() == [1.0, 1.0, 0.0]
    assert scaler(observation).dtype == np.float32
    assert scaler.space == spaces.Box(0.0, 1.0, (3,), dtype=np.float32)
    assert scaler == ObservationScaler(box)
    with pytest.raises(TypeError, match="Box"):
        ObservationScaler(spaces.Discrete(3))  # type: ignore[arg-type]


def test_validators_name_key_value_and_what_is_allowed():
    with pytest.raises(InvalidConfigError, match="unknown reset option 'x'; allowed: 'a', 'b'"):
        check_known_keys({"x": 1}, ("a", "b"), "reset option")
    with pytest.raises(InvalidConfigError, match=r"n must be in 1\.\.3, got 4"):
        check_int(4, "n", 1, 3)
    for not_an_integer in (True, 2.5, "3", np.array([1, 2]), None):
        with pytest.raises(InvalidConfigError, match="n must be an integer"):
            check_int(not_an_integer, "n", 0)
    with pytest.raises(InvalidConfigError, match="mode must be one of 'a', 'b', got 'c'"):
        check_choice("c", "mode", ("a", "b"))


@pytest.mark.parametrize("name", sorted(ENVS))
def test_registry_ids(name):
    assert pettingzoo_id(name) == f"cardarena/{name[:-3]}-v0"
