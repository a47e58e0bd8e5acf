"""numpy indexing of Tensors (ops/numpy_like/indexing.py) against numpy on the same data:
x[...] with basic and advanced indices (constant and Tensor), x.at[...] updates, take,
take_along_axis, symbolic dims, and the errors (boolean Tensor masks above all)."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablegraph as sg
from stablegraph import numpy as snp

SHAPE = (4, 5, 6)
_ = slice(None)
INDEX_DATA = dict(
    i=np.int32(-2),  # a scalar Tensor index
    a=np.array([[0, -1], [2, 3]], np.int32),  # negatives wrap like numpy
    b=np.array([1, -3], np.int16),
    u=np.array([4, 0, 4], np.uint8),
)

# Each case builds an index from a namespace holding INDEX_DATA either as numpy arrays or as Tensors.
INDEXES = {
    "int": lambda T: 1,
    "negative int": lambda T: (-1, -5),
    "all ints": lambda T: (3, 4, 5),
    "slice": lambda T: (slice(1, 3),),
    "slice with step": lambda T: (_, slice(None, None, 2), slice(1, None, 3)),
    "negative step": lambda T: (slice(None, None, -1), slice(4, 0, -2)),
    "negative step to start": lambda T: (_, _, slice(-2, None, -3)),
    "empty slice": lambda T: (slice(3, 1),),
    "out-of-range slice": lambda T: (slice(-10, 10), slice(7, None)),
    "newaxis": lambda T: (None, 1, None, _, None),
    "ellipsis": lambda T: (..., 2),
    "ellipsis and newaxis": lambda T: (1, ..., None),
    "empty tuple": lambda T: (),
    "0-d array": lambda T: (np.array(1), np.int64(-1)),
    "list": lambda T: [3, 0, 3],
    "nested list": lambda T: ([[0, 1], [-1, 2]],),
    "empty list": lambda T: ([],),
    "array in the middle": lambda T: (_, np.array([4, 0])),
    "two arrays broadcast": lambda T: (np.array([[0], [3]]), _, np.array([1, 5, -1])),
    "arrays adjacent": lambda T: (_, np.array([0, 1]), np.array([2, 3])),
    "arrays split by a slice go first": lambda T: (np.array([0, 1]), _, np.array([2, 3])),
    "int and array split": lambda T: (0, _, np.array([2, 3])),
    "int next to array": lambda T: (_, 0, np.array([2, 3])),
    "arrays split by newaxis": lambda T: (_, np.array([0, 1]), None, np.array([0, 1])),
    "array with strided slices": lambda T: (slice(None, None, -2), np.array([[1], [2]]), slice(1, 5, 2)),
    "bool mask": lambda T: np.array([True, False, True, True]),
    "bool mask 2d": lambda T: (_, np.arange(30).reshape(5, 6) % 4 == 0),
    "bool mask with array": lambda T: (np.array([True, False, False, True]), _, np.array([5, 0])),
    "scalar Tensor": lambda T: T.i,
    "scalar Tensor in the middle": lambda T: (_, T.i, 1),
    "scalar Tensor with slices": lambda T: (slice(None, None, -1), T.i, slice(1, 4)),
    "Tensor array": lambda T: T.a,
    "Tensor arrays broadcast": lambda T: (T.a, _, T.b),
    "Tensor int16 and uint8": lambda T: (_, T.b[:, None], T.u),
    "Tensor with constant array": lambda T: (np.array([[1], [2]]), T.u),
    "list of scalar Tensors": lambda T: ([T.i, T.i],),
}


def _tensors(phs):
    return SimpleNamespace(**dict(zip(INDEX_DATA, phs)))


def test_getitem_matches_numpy(run, rng):
    """Every index of the table on one graph, fetched from one run."""
    x = rng.standard_normal(SHAPE).astype(np.float32)
    got = run(lambda x, *ts: {k: x[f(_tensors(ts))] for k, f in INDEXES.items()}, x, *INDEX_DATA.values())
    ref = SimpleNamespace(**INDEX_DATA)
    for name, f in INDEXES.items():
        want = x[f(ref)]
        assert got[name].shape == want.shape, name
        np.testing.assert_array_equal(got[name], want, err_msg=name)


def test_basic_indexing_is_rev_slice_reshape():
    """Ints, slices, None and Ellipsis cost no gather."""
    g = sg.Graph()
    with g:
        x = sg.placeholder(SHAPE, sg.float32)
        x[1:, ::-2, 3, None]
        x[..., 0]
        x[:]
    assert {n.op.name for n in g.nodes} == {"placeholder", "rev", "slice", "reshape"}
    assert sum(n.op.name == "slice" for n in g.nodes) == 2  # x[:] adds nothing


def _basic_item(n):
    ints = st.integers(-n, n - 1)
    bounds = st.none() | st.integers(-n - 2, n + 2)
    steps = st.sampled_from([None, 1, 2, 3, -1, -2, -4])
    return ints | st.builds(slice, bounds, bounds, steps)


@st.composite
def basic_indexes(draw):
    """Ints and slices for leading dims, maybe '...' and more for trailing dims, Nones anywhere."""
    n_front = draw(st.integers(0, len(SHAPE)))
    n_back = draw(st.integers(0, len(SHAPE) - n_front))
    front = [draw(_basic_item(n)) for n in SHAPE[:n_front]]
    back = [draw(_basic_item(n)) for n in SHAPE[len(SHAPE) - n_back :]]
    items = front + ([...] if n_back or draw(st.booleans()) else []) + back
    for _i in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(items)


@settings(max_examples=10)
@given(st.lists(basic_indexes(), min_size=4, max_size=4))
def test_random_basic_indexes_match_numpy(run, indexes):
    x = np.arange(np.prod(SHAPE), dtype=np.int32).reshape(SHAPE)
    got = run(lambda t: [t[i] for i in indexes], x)
    for i, g in zip(indexes, got):
        np.testing.assert_array_equal(g, x[i], err_msg=str(i))
        assert g.shape == x[i].shape


# (index, updates, kinds): numpy's ufunc.at is the reference, repeats included.
UPDATES = [
    ((0,), 1.5, ("set", "min")),
    ((slice(None, None, -1), 1), np.arange(6, dtype=np.float32), ("set", "add")),
    ((_, slice(1, None, 2)), -2.0, ("set", "max")),
    ((_, slice(None, None, -2), slice(1, 5)), np.ones((4, 3, 4), np.float32), ("multiply",)),
    (([0, 0, 2, 0],), np.arange(4, dtype=np.float32)[:, None, None], ("add", "multiply", "min", "max")),
    ((_, [1, 1, 3], 0), 2.0, ("add",)),
    ((0, _, [1, 2]), np.ones((2, 5), np.float32), ("set",)),
    ((None, ..., -1), 5.0, ("add",)),
    ((slice(1, 3), [[0], [1]], slice(None, None, -3)), 7.0, ("set",)),
    ((np.array([True, False, True, False]),), 3.0, ("max",)),
    ((), 1.0, ("add",)),
]
_UFUNC = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}


def _np_update(x, index, v, kind):
    y = x.copy()
    if kind == "set":
        y[index] = v
    else:
        _UFUNC[kind].at(y, index, v)
    return y


def test_at_updates_match_numpy(run, rng):
    x = rng.standard_normal(SHAPE).astype(np.float32)

    def build(t):
        return [[getattr(t.at[i], k)(v) for k in kinds] + [t.at[i].get()] for i, v, kinds in UPDATES]

    for (i, v, kinds), got in zip(UPDATES, run(build, x)):
        for k, g in zip(kinds, got):
            np.testing.assert_allclose(g, _np_update(x, i, v, k), rtol=1e-6, err_msg=f"{k} {i}")
        np.testing.assert_array_equal(got[-1], x[i])


def test_at_with_tensor_indices_wraps_negatives_and_drops_out_of_bounds(run, rng):
    x = rng.standard_normal((6, 3)).astype(np.float32)
    idx = np.array([1, -1, 1, 9, -9], np.int32)  # 9 and -9 are out of bounds: dropped, as in JAX
    v = rng.standard_normal((5, 3)).astype(np.float32)
    got = run(lambda x, i, v: (x.at[i].add(v), x.at[i, 2].max(v[:, 0]), x[:, 0].at[i].set(0.0)), x, idx, v)
    keep = (idx >= -6) & (idx < 6)
    want_add, want_max, want_set = x.copy(), x.copy(), x[:, 0].copy()
    np.add.at(want_add, idx[keep], v[keep])
    np.maximum.at(want_max, (idx[keep], 2), v[keep, 0])
    want_set[idx[keep]] = 0.0
    np.testing.assert_allclose(got[0], want_add, rtol=1e-6)
    np.testing.assert_array_equal(got[1], want_max)
    np.testing.assert_array_equal(got[2], want_set)


def test_int_updates_and_scalar_operand(run):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = run(lambda x, s: (x.at[:, [0, 0]].add(10), x.at[1].set(2.9), s.at[()].add(3), s.at[None].set(7)),
              x, np.int32(5))  # fmt: skip
    want = x.copy()
    np.add.at(want, (_, [0, 0]), 10)
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[1], np.where(np.arange(3)[:, None] == 1, 2, x))
    assert got[2] == 8 and got[3] == 7


def test_take_and_take_along_axis_match_numpy(run, rng):
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    ind = np.array([[0, -1], [3, 2]])
    order = np.argsort(x, axis=1).astype(np.int32)
    far = np.array([0, 7, -9, -2], np.int32)

    def build(t, o, f):
        return dict(
            flat=snp.take(t, ind), axis1=snp.take(t, ind, axis=1), tensor=snp.take(t, f, axis=2, mode="clip"),
            clip=snp.take(t, far, axis=2, mode="clip"), wrap=snp.take(t, f, axis=-1, mode="wrap"),
            fill=snp.take(t, far, axis=2, mode="fill"), fill_tensor=snp.take(t, f, axis=2, fill_value=-1.0),
            along=snp.take_along_axis(t, o, axis=1), along_const=snp.take_along_axis(t, order[:, :2], 1),
            along_bcast=snp.take_along_axis(t, f[None, None, :1] + 2, axis=2),
            along_flat=snp.take_along_axis(t, np.array([59, 0, -1]), axis=None),
        )  # fmt: skip

    got = run(build, x, order, far)
    want_fill = np.take(x, np.clip(far, -5, 4), axis=2)
    want_fill[..., 1:3] = np.nan
    want = dict(
        flat=np.take(x, ind), axis1=np.take(x, ind, axis=1), tensor=np.take(x, far, axis=2, mode="clip"),
        clip=np.take(x, far, axis=2, mode="clip"), wrap=np.take(x, far, axis=2, mode="wrap"), fill=want_fill,
        fill_tensor=np.where(np.isnan(want_fill), -1.0, want_fill).astype(np.float32),
        along=np.take_along_axis(x, order, axis=1), along_const=np.take_along_axis(x, order[:, :2], 1),
        along_bcast=np.take_along_axis(x, np.broadcast_to(far[:1] + 2, (3, 4, 1)), axis=2),
        along_flat=np.take_along_axis(x.ravel(), np.array([59, 0, -1]), axis=None),
    )  # fmt: skip
    for k, w in want.items():
        np.testing.assert_array_equal(got[k], w, err_msg=k)


def test_symbolic_batch_dim(run, rng):
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    idx = np.array([[2, -1, 0]], np.int32)

    def build(t, i):
        assert t[:, 1].shape == ("batch", 5) and t[i].shape == (1, "n", 4, 5)
        return dict(
            col=t[:, 1], rev=t[::-1, 2:, ::2], row=t[0], last=t[-1, 1], arrays=t[:, [0, 2]], rows=t[[0, -1]],
            tensor=t[i], new=t[..., None, 0], set=t.at[:, 1].set(0.0), add=t.at[-1].add(1.0),
            rev_set=t.at[::-1, 0, 1].set(t[:, 0, 0] * 2), max=t.at[i].max(0.0),
            along=snp.take_along_axis(t, np.zeros((1, 4, 2), np.int32), axis=2), take=snp.take(t, i, axis=0),
        )  # fmt: skip

    got = run(build, x, idx, symbolic={0: ("batch", 4, 5), 1: (1, "n")})
    want = dict(col=x[:, 1], rev=x[::-1, 2:, ::2], row=x[0], last=x[-1, 1], arrays=x[:, [0, 2]], rows=x[[0, -1]],
                tensor=x[idx], new=x[..., None, 0], along=x[..., :1].repeat(2, axis=2), take=np.take(x, idx, 0))  # fmt: skip
    want["set"], want["add"], want["rev_set"] = x.copy(), x.copy(), x.copy()
    want["set"][:, 1] = 0
    want["add"][-1] += 1
    want["rev_set"][::-1, 0, 1] = x[:, 0, 0] * 2
    want["max"] = x.copy()
    np.maximum.at(want["max"], idx, 0.0)
    for k, w in want.items():
        np.testing.assert_array_equal(got[k], w, err_msg=k)


def _line_of(marker: str) -> int:
    lines = inspect.getsource(inspect.getmodule(_line_of)).splitlines()
    return next(i for i, line in enumerate(lines, 1) if marker in line and "_line_of" not in line)


def test_boolean_tensor_mask_is_refused_with_a_way_out():
    with sg.Graph():
        x = sg.placeholder((3, 4), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            x[x > 0]  # bool-mask
        with pytest.raises(sg.GraphError) as e_at:
            x.at[x > 0].set(0.0)
    msg = str(e.value)
    assert f"test_indexing.py:{_line_of('# bool-mask')}:" in msg
    assert "boolean Tensor mask pred[3,4]" in msg and "snp.where(mask, x, 0)" in msg and "x * mask" in msg
    assert "shape would depend on the mask's values" in str(e_at.value)


ERRORS = [
    ((3, 4), lambda x: x[3], "index 3 is out of bounds for axis 0 with size 3"),
    ((3, 4), lambda x: x[:, [0, -5]], "index -5 is out of bounds for axis 1 with size 4"),
    ((3, 4), lambda x: x[0, 0, 0], "too many indices for f32[3,4]: it has 2 dims but 3 were indexed"),
    ((3, 4), lambda x: x[..., 0, ...], "a single ellipsis"),
    ((3, 4), lambda x: x[0.5], "an index must be an int, slice"),
    ((3, 4), lambda x: x[x], "an index Tensor must have an integer dtype, got f32[3,4]"),
    ((3, 4), lambda x: x[np.ones(4, bool)], "boolean index of shape (4,) does not match dims 0.. of f32[3,4]"),
    ((3, 4), lambda x: x[[0, 1], [0, 1, 2]], "cannot broadcast shapes"),
    ((3, 4), lambda x: x.at[0].set(np.ones(3)), "cannot broadcast updates f32[3] to the indexed shape (4,)"),
    ((3, 4), lambda x: snp.take(x, np.array([12])), "index 12 is out of bounds for axis 0 with size 12"),
    ((3, 4), lambda x: snp.take(x, x.astype(sg.int32)[0], mode="raise"), "mode='raise' cannot check"),
    ((3, 4), lambda x: snp.take_along_axis(x, np.zeros(3, np.int32), 0), "take_along_axis wants indices of rank 2"),
]  # fmt: skip


@pytest.mark.parametrize("shape, build, message", ERRORS)
def test_index_errors_name_the_problem_and_line(shape, build, message):
    with sg.Graph():
        x = sg.placeholder(shape, sg.float32)
        with pytest.raises(sg.GraphError) as e:
            build(x)
    assert message in str(e.value)
    assert "test_indexing.py:" in str(e.value)
