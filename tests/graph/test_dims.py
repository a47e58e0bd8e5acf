"""Symbolic dims: canonical expressions, arithmetic, division, evaluation, sizes as values."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


# -- expressions -------------------------------------------------------------------
def test_expressions_have_one_canonical_spelling():
    spelled = {
        "batch-1": "batch - 1",
        "(batch+1)//2": "(batch + 1) // 2",
        "(batch - 1) // 2": "(batch + 1) // 2 - 1",  # multiples of 2 come out of the floor
        "(2*batch + 3) // 2": "batch + 1",
        "b + a": "a + b",
        "a*b*2 + a - 3": "2*a*b + a - 3",
        "((n // 2) + 1) // 3": "(n + 2) // 6",
        "(2*a + 3) % 2": 1,
        "a % 4 * 3": "3*(a % 4)",
        "-(a // 2)": "-(a // 2)",
        "n - n + 4": 4,
    }
    for text, want in spelled.items():
        got = dims.as_dim(text)
        assert got == want, (text, got)
        assert dims.as_dim(str(got)) == got  # the spelling reads back as itself
    assert dims.add("a", "b") == dims.add("b", "a") == "a + b"
    assert dims.sub(dims.add("batch", 3), 3) == "batch"
    assert dims.floordiv(dims.add("batch", 1), 2) == "(batch + 1) // 2"
    assert dims.mod("batch", 2) == "batch % 2"


def test_exact_division_and_differences():
    assert dims.div("6*n - 6", "n - 1") == 6
    assert dims.div("a*a - b*b", "a - b") == "a + b"
    assert dims.div("3*batch", 3) == "batch"
    assert dims.div("batch - 1", 2) is None
    assert dims.difference("batch + 3", "batch - 1") == 4
    assert dims.difference("a", "b") is None
    assert dims.range_length(0, "batch", 2) == "(batch + 1) // 2"
    assert dims.range_length("batch - 3", "batch", 1) == 3
    assert dims.linear("2*n + 1") == ("n", 2, 1) and dims.linear("a*b") is None


_LEAVES = st.sampled_from(["a", "b", "0", "1", "2", "3", "7"])


@st.composite
def _expressions(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(_LEAVES)
    op = draw(st.sampled_from(["+", "-", "*", "//", "%"]))
    left = draw(_expressions(depth=depth - 1))
    right = str(draw(st.integers(1, 5))) if op in ("//", "%") else draw(_expressions(depth=depth - 1))
    return f"({left} {op} {right})"


@given(text=_expressions(), a=st.integers(-9, 30), b=st.integers(-9, 30))
def test_normalizing_keeps_the_value(text, a, b):
    # Python's own integer arithmetic is the oracle for the canonical form.
    d = dims.as_dim(text)
    assert dims.evaluate(d, {"a": a, "b": b}) == eval(text, {}, {"a": a, "b": b})


def test_symbolic_sizes_are_strs_that_do_arithmetic():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32)
    n = x.shape[0]
    assert isinstance(n, str) and n == "batch" and hash(n) == hash("batch") and x.shape == ("batch", 4)
    assert n - 1 == "batch - 1" and 1 + n == "batch + 1" and 2 * n == "2*batch"
    assert (n + 1) // 2 == "(batch + 1) // 2" and n % 3 == "batch % 3" and -n == "-batch"
    assert n * x.shape[1] == "4*batch" == x.size
    assert n + 2 > n and not n < n - 1
    with pytest.raises(sg.GraphError, match="cannot tell whether batch > 4"):
        _ = n > 4
    assert sg.TensorType((n - 1, "2 * k"), sg.float32).shape == ("batch - 1", "2*k")
