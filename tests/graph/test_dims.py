"""Symbolic dims: canonical products, division, evaluation."""

import pytest

import stablegraph as sg
from stablegraph.graph import dims


def test_products_are_canonical():
    assert dims.mul("batch", 3) == "3*batch"
    assert dims.mul(3, "batch") == "3*batch"
    assert dims.prod(["time", "batch", 2]) == "2*batch*time"
    assert dims.mul("batch", 0) == 0
    assert dims.prod([2, 3]) == 6


def test_division_and_evaluation():
    assert dims.div("6*batch", 3) == "2*batch"
    assert dims.div("3*batch", "batch") == 3
    assert dims.div("batch", 2) is None
    assert dims.div(12, 5) is None
    assert dims.evaluate("3*batch*time", {"batch": 2, "time": 5}) == 30
    with pytest.raises(KeyError):
        dims.evaluate("batch", {})


def test_user_dims_are_checked():
    assert dims.check_shape((2, "batch")) == (2, "batch")
    fresh = dims.check_shape((None, 3))[0]
    assert isinstance(fresh, str) and fresh != dims.check_shape((None,))[0]
    assert dims.check_shape(5) == (5,)
    for bad in (-1, 1.5, "a b", True):
        with pytest.raises(sg.GraphError):
            dims.check_shape((bad,))


def test_tensor_type_basics():
    t = sg.TensorType(("batch", 3), sg.float32)
    assert str(t) == "f32[batch,3]"
    assert t == sg.TensorType(("batch", 3), "float32") and hash(t) == hash(
        sg.TensorType(("batch", 3), sg.float32)
    )
    assert t.evaluate({"batch": 4}) == sg.TensorType((4, 3), sg.float32)
    assert not t.is_concrete and t.symbols == {"batch"}
    with pytest.raises(AttributeError):
        t.shape = (1,)
