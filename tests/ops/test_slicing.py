"""Slicing primitives (ops/primitives/slicing.py) against numpy: slice, rev, pad, concatenate,
dynamic_slice, dynamic_update_slice; several dtypes, symbolic dims, error messages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import stablegraph as sg
from stablegraph.graph.dims import evaluate
from stablegraph.ops.primitives import slicing as S

DTYPES = [np.float32, np.int32, np.bool_, np.float64]


def _data(rng, shape, dt):
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    return (rng.standard_normal(shape) * 10).astype(dt)


def _pad_ref(x, value, low, high, interior):
    """stablehlo.pad in numpy: interior padding first, then edges (negative ones crop)."""
    for ax, (lo, hi, inner) in enumerate(zip(low, high, interior)):
        n = x.shape[ax]
        size = n + max(n - 1, 0) * inner
        out = np.full(x.shape[:ax] + (size,) + x.shape[ax + 1 :], value, x.dtype)
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(None, None, inner + 1)
        out[tuple(idx)] = x
        widths = [(0, 0)] * x.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        out = np.pad(out, widths, constant_values=value)
        idx[ax] = slice(max(-lo, 0), out.shape[ax] - max(-hi, 0))
        x = out[tuple(idx)]
    return x


def _clamped(starts, sizes, shape):
    return [int(min(max(s, 0), d - w)) for s, w, d in zip(starts, sizes, shape)]


def _dus_ref(x, update, starts):
    out = x.copy()
    s = _clamped(starts, update.shape, x.shape)
    out[tuple(slice(a, a + w) for a, w in zip(s, update.shape))] = update
    return out


# Each case: (name, operand shape, builder on (x, scalar-of-x's-dtype), numpy reference on (x, value)).
STATIC_CASES = [
    ("slice", (5, 6), lambda x, v: S.slice(x, (1, 0), (4, 6), (2, 3)), lambda x, v: x[1:4:2, 0:6:3]),
    ("slice_empty", (5, 6), lambda x, v: S.slice(x, (2, 3), (2, 6)), lambda x, v: x[2:2, 3:6]),
    ("rev", (3, 4, 2), lambda x, v: S.rev(x, (0, 2)), lambda x, v: x[::-1, :, ::-1]),
    ("rev_none", (3,), lambda x, v: S.rev(x, ()), lambda x, v: x),
    ("pad", (3, 4), lambda x, v: S.pad(x, v, (1, 2), (0, 3), (0, 0)), lambda x, v: _pad_ref(x, v, (1, 2), (0, 3), (0, 0))),
    ("pad_neg", (5, 4), lambda x, v: S.pad(x, v, (-2, 1), (1, -3), (0, 0)), lambda x, v: _pad_ref(x, v, (-2, 1), (1, -3), (0, 0))),
    ("pad_interior", (3, 4), lambda x, v: S.pad(x, v, (0, -1), (2, 0), (1, 2)), lambda x, v: _pad_ref(x, v, (0, -1), (2, 0), (1, 2))),
    ("pad_0d", (), lambda x, v: S.pad(x, v, (), ()), lambda x, v: x),
    ("concat0", (2, 3), lambda x, v: S.concatenate([x, S.rev(x, (0,)), x], 0), lambda x, v: np.concatenate([x, x[::-1], x], 0)),
    ("concat1", (2, 3), lambda x, v: S.concatenate([x, S.slice(x, (0, 1), (2, 3))], 1), lambda x, v: np.concatenate([x, x[:, 1:]], 1)),
    ("concat_one", (2, 3), lambda x, v: S.concatenate([x], 1), lambda x, v: x),
]  # fmt: skip


def test_static_cases_all_dtypes(run, rng):
    inputs, refs, types = [], [], {}
    for dt in DTYPES:
        for name, shape, _, ref in STATIC_CASES:
            x, v = _data(rng, shape, dt), _data(rng, (), dt)
            inputs += [x, v]
            refs.append((f"{name}/{np.dtype(dt).name}", ref(x, v)))

    def build(*phs):
        out = {}
        for i, (key, _) in enumerate(refs):
            builder = STATIC_CASES[i % len(STATIC_CASES)][2]
            out[key] = builder(phs[2 * i], phs[2 * i + 1])
            types[key] = out[key].type
        return out

    got = run(build, *inputs)
    for key, want in refs:
        assert got[key].dtype == want.dtype, key
        assert got[key].shape == want.shape == types[key].shape, key
        np.testing.assert_array_equal(got[key], want, err_msg=key)


def test_dynamic_slice_and_update_clamp(run, rng):
    """Starts are fed at run time; out-of-range ones clamp like StableHLO's."""
    starts = [(1, 2), (-3, 0), (9, 9), (0, 4), (2, -1)]
    cases = []  # (x, update, starts)
    for dt in (np.float32, np.int32, np.bool_, np.float64):
        for s in starts:
            cases.append((_data(rng, (5, 6), dt), _data(rng, (2, 3), dt), s))
    index_dtypes = [np.int32, np.int64, np.uint32]
    inputs = []
    for i, (x, u, s) in enumerate(cases):
        idt = index_dtypes[i % 3] if min(s) >= 0 else np.int32
        inputs += [x, u, np.asarray(s[0], idt), np.asarray(s[1], idt)]

    def build(*phs):
        out = []
        for i in range(len(cases)):
            x, u, s0, s1 = phs[4 * i : 4 * i + 4]
            out.append((S.dynamic_slice(x, (s0, s1), (2, 3)), S.dynamic_update_slice(x, u, (s0, s1))))
        return out

    got = run(build, *inputs)
    for (x, u, s), (sliced, updated) in zip(cases, got):
        a, b = _clamped(s, (2, 3), x.shape)
        np.testing.assert_array_equal(sliced, x[a : a + 2, b : b + 3], err_msg=str(s))
        np.testing.assert_array_equal(updated, _dus_ref(x, u, s), err_msg=str(s))


def test_dynamic_with_python_int_starts(run, rng):
    x = _data(rng, (4, 5), np.float32)
    i = np.asarray(3, np.int64)
    got = run(
        lambda x, i: [S.dynamic_slice(x, (i, 1), (2, 2)), S.dynamic_update_slice(x, S.slice(x, (0, 0), (1, 5)), (i, 0))],
        x, i,
    )  # fmt: skip
    np.testing.assert_array_equal(got[0], x[2:4, 1:3])
    np.testing.assert_array_equal(got[1], _dus_ref(x, x[:1], (3, 0)))


def test_symbolic_batch_dim(run, rng):
    x, u = _data(rng, (4, 3), np.float32), _data(rng, (4, 1), np.float32)
    j = np.asarray(1, np.int32)
    types = {}

    def build(x, u, j):
        zero = S.slice(x, (0, 0), ("batch", 1))  # whole symbolic dim: allowed
        v = sg.constant(np.float32(-1))
        i0 = sg.constant(np.int32(0))
        out = dict(
            slice=S.slice(x, (0, 1), ("batch", 3)),
            rev=S.rev(x, (0, 1)),
            pad=S.pad(x, v, (0, 1), (0, 2), (0, 0)),
            pad_dilate=S.pad(x, v, (1, 0), (0, 0), (1, 0)),  # (2*batch, 3): low + high == interior
            concat_batch=S.concatenate([x, x, S.rev(x, (0,))], 0),
            concat_cols=S.concatenate([x, zero, u], 1),
            dslice=S.dynamic_slice(x, (i0, j), ("batch", 2)),
            dslice_rows=S.dynamic_slice(x, (j, i0), (2, 3)),  # static window in a symbolic dim
            dupdate=S.dynamic_update_slice(x, u, (i0, j)),
        )
        types.update({k: t.type for k, t in out.items()})
        return out

    got = run(build, x, u, j, symbolic={0: ("batch", 3), 1: ("batch", 1)})
    want = dict(
        slice=x[:, 1:],
        rev=x[::-1, ::-1],
        pad=_pad_ref(x, -1, (0, 1), (0, 2), (0, 0)),
        pad_dilate=_pad_ref(x, -1, (1, 0), (0, 0), (1, 0)),
        concat_batch=np.concatenate([x, x, x[::-1]], 0),
        concat_cols=np.concatenate([x, x[:, :1], u], 1),
        dslice=x[:, 1:3],
        dslice_rows=x[1:3],
        dupdate=_dus_ref(x, u, (0, 1)),
    )
    assert types["concat_batch"].shape == ("3*batch", 3)
    assert types["pad_dilate"].shape == ("2*batch", 3)
    assert types["dslice"].shape == ("batch", 2)
    for k, w in want.items():
        assert tuple(evaluate(d, {"batch": 4}) for d in types[k].shape) == w.shape, k
        np.testing.assert_array_equal(got[k], w, err_msg=k)


# Each case: (build from x and a padding value v, numpy reference on an array and a fill value).
# The references give the vjp oracle too: run on an array of element numbers, they say where
# each output element came from, and the cotangent goes back there.
EXPRESSION_CASES = {
    "strided": (lambda x, v: S.slice(x, (1, 0), (x.shape[0] - 1, 3), (2, 1)), lambda a, f: a[1:-1:2]),
    "from_end": (lambda x, v: S.slice(x, (x.shape[0] - 3, 1), (x.shape[0], 3)), lambda a, f: a[-3:, 1:]),
    "pad_by_n": (lambda x, v: S.pad(x, v, (0, 0), (x.shape[0], 1)), lambda a, f: _pad_ref(a, f, (0, 0), (len(a), 1), (0, 0))),
    "crop_to_2": (lambda x, v: S.pad(x, v, (2 - x.shape[0], 0), (0, 0)), lambda a, f: a[-2:]),
    "dilate": (lambda x, v: S.pad(x, v, (1, 0), (-1, 0), (2, 0)), lambda a, f: _pad_ref(a, f, (1, 0), (-1, 0), (2, 0))),
    "concat": (lambda x, v: S.concatenate([x, S.slice(x, (1, 0), x.shape), x], 0), lambda a, f: np.concatenate([a, a[1:], a])),
    "dslice": (lambda x, v: S.dynamic_slice(x, (sg.constant(3), sg.constant(0)), (x.shape[0] - 1, 2)), lambda a, f: a[1:, :2]),
}  # fmt: skip


def test_dims_in_attributes_compute_shapes_values_and_vjps(rng):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 3), sg.float32, name="x")
        v = sg.constant(np.float32(-1))
        outs = {k: build(x, v) for k, (build, _) in EXPRESSION_CASES.items()}
        cts = {k: sg.placeholder(y.shape, sg.float32, name=f"ct_{k}") for k, y in outs.items()}
        grads = {k: sg.gradients((outs[k] * cts[k]).sum(), [x])[0] for k in outs}
    assert outs["strided"].shape == ("(n + 1) // 2 - 1", 3) and outs["crop_to_2"].shape == (2, 3)
    assert outs["pad_by_n"].shape == ("2*n", 4) and outs["concat"].shape == ("3*n - 1", 3)
    assert outs["dilate"].shape == ("3*n - 2", 3)
    with sg.Session(g) as sess:
        for n in (5, 8):
            xv = rng.standard_normal((n, 3)).astype(np.float32)
            want = {k: ref(xv, np.float32(-1)) for k, (_, ref) in EXPRESSION_CASES.items()}
            feeds = {
                x: xv,
                **{cts[k]: rng.standard_normal(w.shape).astype(np.float32) for k, w in want.items()},
            }
            got, got_grads = sess.run([outs, grads], feeds)
            for k, (_, ref) in EXPRESSION_CASES.items():
                np.testing.assert_array_equal(got[k], want[k], err_msg=f"{k} at n = {n}")
                np.testing.assert_allclose(
                    got_grads[k], _transposed(ref, xv.shape, feeds[cts[k]]), 1e-6, 1e-6, err_msg=k
                )


def _transposed(ref, shape, ct):
    """The cotangent of x for an op that moves elements: each output element's ct goes where it came from."""
    where = ref(np.arange(int(np.prod(shape))).reshape(shape), -1)
    out = np.zeros(int(np.prod(shape)), ct.dtype)
    np.add.at(out, where[where >= 0], ct[where >= 0])
    return out.reshape(shape)


@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_pad_matches_reference(run, shape, data):
    rank = len(shape)
    interior = data.draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank))
    low, high = [], []
    for n, inner in zip(shape, interior):
        size = n + max(n - 1, 0) * inner
        lo = data.draw(st.integers(-size, 3))
        low.append(lo)
        high.append(data.draw(st.integers(-(size + lo) if size + lo > 0 else 0, 3)))
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    got = run(lambda x: S.pad(x, sg.constant(np.float32(-7)), low, high, interior), x)
    np.testing.assert_array_equal(got, _pad_ref(x, np.float32(-7), low, high, interior))


# -- errors --------------------------------------------------------------------
f32, i32 = sg.float32, sg.int32
ERROR_CASES = [
    (lambda x, s: S.slice(x, (0, 0), (2, 4), (1, 0)), [(2, 4), ()], ["slice wants strides >= 1"]),
    (lambda x, s: S.slice(x, (0, 0), (3, 4)), [(2, 4), ()], ["slice wants 0 <= start <= limit <= size", "f32[2,4]"]),
    (lambda x, s: S.slice(x, (0, 0), ("b + 1", 4)), [("b", 4), ()], ["slice wants 0 <= start <= limit <= size in dim 0 of f32[b,4]", "limit b + 1"]),
    (lambda x, s: S.rev(x, (0, 0)), [(2, 4), ()], ["rev wants distinct dims", "f32[2,4]"]),
    (lambda x, s: S.rev(x, (2,)), [(2, 4), ()], ["rev wants distinct dims"]),
    (lambda x, s: S.pad(x, s, (0,), (0,), (0,)), [(2, 4), ()], ["pad wants one low, high and interior per dim", "f32[2,4]"]),
    (lambda x, s: S.pad(x, S.rev(x, (0,)), (0, 0), (0, 0)), [(2, 4), ()], ["pad wants a scalar padding value", "f32[2,4]"]),
    (lambda x, s: S.pad(x, sg.constant(1), (0, 0), (0, 0)), [(2, 4), ()], ["pad wants a scalar padding value of dtype float32", "i32[]"]),
    (lambda x, s: S.pad(x, s, (0, 0), (0, 0), (0, -1)), [(2, 4), ()], ["pad wants interior >= 0"]),
    (lambda x, s: S.pad(x, s, (-3, 0), (0, 0)), [(2, 4), ()], ["pad of f32[2,4] leaves dim 0 with negative size -1"]),
    (lambda x, s: S.pad(x, s, ("-b - 1", 0), (0, 0)), [("b", 4), ()], ["pad of f32[b,4] leaves dim 0 with negative size -1"]),
    (lambda x, s: S.concatenate([x, S.rev(x, (0,))], 2), [(2, 4), ()], ["concatenate wants 0 <= dimension < rank", "f32[2,4]"]),
    (lambda x, s: S.concatenate([x, S.slice(x, (0, 0), (2, 3))], 0), [(2, 4), ()], ["concatenate wants operands of one dtype and rank, equal outside dim 0", "f32[2,3]"]),
    (lambda x, s: S.concatenate([x, sg.constant(np.ones((2, 4), np.int32))], 0), [(2, 4), ()], ["concatenate wants operands of one dtype", "i32[2,4]"]),
    (lambda x, s: S.concatenate([x, S.slice(x, (1, 0), ("b", 4))], 1), [("b", 4), ()], ["concatenate wants operands of one dtype and rank, equal outside dim 1", "f32[b - 1,4]"]),
    (lambda x, s: S.concatenate([], 0), [(2, 4), ()], ["concatenate wants at least one operand"]),
    (lambda x, s: S.dynamic_slice(x, (s, s), (1, 1)), [(2, 4), ()], ["dynamic_slice wants scalar start indices of one integer dtype", "f32[]"]),
    (lambda x, s: S.dynamic_slice(x, (0,), (1, 1)), [(2, 4), ()], ["dynamic_slice wants one start index per dim of f32[2,4], got 1"]),
    (lambda x, s: S.dynamic_slice(x, (0, 0), (3, 1)), [(2, 4), ()], ["dynamic_slice wants slice size <= operand size", "(3, 1)", "(2, 4)"]),
    (lambda x, s: S.dynamic_slice(x, (0, 0), ("b + 1", 1)), [("b", 4), ()], ["dynamic_slice wants slice size <= operand size", "(b + 1, 1)", "(b, 4)"]),
    (lambda x, s: S.dynamic_slice(x, (0, 0), (1,)), [(2, 4), ()], ["dynamic_slice wants one slice size per dim"]),
    (lambda x, s: S.dynamic_slice(x, (sg.constant(0), sg.constant(np.int64(0))), (1, 1)), [(2, 4), ()], ["dynamic_slice wants scalar start indices of one integer dtype", "i64[]"]),
    (lambda x, s: S.dynamic_update_slice(x, s, (0, 0)), [(2, 4), ()], ["dynamic_update_slice wants an update of the operand's dtype and rank", "f32[]"]),
    (lambda x, s: S.dynamic_update_slice(x, S.pad(x, s, (1, 0), (0, 0)), (0, 0)), [(2, 4), ()], ["dynamic_update_slice wants update size <= operand size"]),
]  # fmt: skip


@pytest.mark.parametrize("fn, shapes, parts", ERROR_CASES)
def test_errors_name_op_shapes_and_line(fn, shapes, parts):
    g = sg.Graph()
    with g:
        phs = [sg.placeholder(s, f32) for s in shapes]
        with pytest.raises(sg.GraphError) as e:
            fn(*phs)
    msg = str(e.value)
    assert f"test_slicing.py:{fn.__code__.co_firstlineno}" in msg, msg
    for part in parts:
        assert part in msg, msg


def test_static_window_too_big_for_symbolic_dim_is_caught_when_bound():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("b", 4), f32)
        y = S.dynamic_slice(x, (0, 0), (3, 4))
    with (
        sg.Session(g) as sess,
        pytest.raises(
            sg.GraphError, match=r"test_slicing.py:\d+ \(node dynamic_slice\): dynamic_slice wants a window"
        ),
    ):
        sess.run(y, {x: np.zeros((2, 4), np.float32)})


def test_interior_pad_of_a_symbol_bound_to_zero_is_caught_when_bound():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("b", 2), f32)
        y = S.pad(x, sg.constant(np.float32(0)), (1, 0), (0, 0), (1, 0))
    assert y.shape == ("2*b", 2)
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(
            sess.run(y, {x: np.ones((2, 2), np.float32)}), [[0, 0], [1, 1], [0, 0], [1, 1]]
        )
        with pytest.raises(sg.GraphError, match="node pad.*pad of f32.0,2. gives shape .1, 2., not .0, 2."):
            sess.run(y, {x: np.ones((0, 2), np.float32)})
