"""Indexing primitives (ops/primitives/gather.py, scatter.py): gather and scatter against numpy references that
follow the StableHLO spec index by index; several dtypes, batching dims, clamping, symbolic
index batch dims, every scatter kind with duplicate indices, and infer errors."""

from __future__ import annotations

import inspect
import itertools

import ml_dtypes
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives import indexing as I


# -- numpy references (straight from the StableHLO spec) -----------------------
def _index_vector(idx, batch_index, ivd):
    if ivd == idx.ndim:
        return [idx[tuple(batch_index)]]
    pos = list(batch_index[:ivd]) + [slice(None)] + list(batch_index[ivd:])
    return list(idx[tuple(pos)])


def _batch_pos(d_start, ivd):
    return d_start - (0 if d_start < ivd else 1)


def gather_ref(x, idx, offset_dims, collapsed_slice_dims, start_index_map, index_vector_dim, slice_sizes,
               operand_batching_dims=(), start_indices_batching_dims=()):  # fmt: skip
    ivd = index_vector_dim
    batch_shape = idx.shape if ivd == idx.ndim else idx.shape[:ivd] + idx.shape[ivd + 1 :]
    window = [d for d in range(x.ndim) if d not in collapsed_slice_dims + tuple(operand_batching_dims)]
    rank = len(batch_shape) + len(window)
    shape, bi, wi = [], iter(batch_shape), iter(window)
    for d in range(rank):
        shape.append(slice_sizes[next(wi)] if d in offset_dims else next(bi))
    out = np.zeros(shape, x.dtype)
    for res in itertools.product(*map(range, shape)):
        batch_index = [res[d] for d in range(rank) if d not in offset_dims]
        start = _index_vector(idx, batch_index, ivd)
        pos = [0] * x.ndim
        for d_start, d_op in enumerate(start_index_map):
            pos[d_op] = int(np.clip(start[d_start], 0, x.shape[d_op] - slice_sizes[d_op]))
        for d_op, d_start in zip(operand_batching_dims, start_indices_batching_dims):
            pos[d_op] = batch_index[_batch_pos(d_start, ivd)]
        for d_op, o in zip(window, [res[d] for d in offset_dims]):
            pos[d_op] += o
        out[res] = x[tuple(pos)]
    return out


_COMBINE = {"set": lambda a, b: b, "add": lambda a, b: a + b, "mul": lambda a, b: a * b,
            "min": min, "max": max}  # fmt: skip


def scatter_ref(x, idx, upd, update_window_dims, inserted_window_dims, scattered_dims_to_operand_dims,
                index_vector_dim, input_batching_dims=(), scatter_indices_batching_dims=(), kind="set"):  # fmt: skip
    ivd, out = index_vector_dim, x.copy()
    window = [d for d in range(x.ndim) if d not in inserted_window_dims + tuple(input_batching_dims)]
    for u in itertools.product(*map(range, upd.shape)):
        scatter_index = [u[d] for d in range(upd.ndim) if d not in update_window_dims]
        start = _index_vector(idx, scatter_index, ivd)
        pos = [0] * x.ndim
        for d_start, d_op in enumerate(scattered_dims_to_operand_dims):
            pos[d_op] = int(start[d_start])
        for d_op, d_start in zip(input_batching_dims, scatter_indices_batching_dims):
            pos[d_op] = scatter_index[_batch_pos(d_start, ivd)]
        for d_op, w in zip(window, [u[d] for d in update_window_dims]):
            pos[d_op] += w
        if all(0 <= p < n for p, n in zip(pos, x.shape)):  # only size-1 windows go out of bounds here
            out[tuple(pos)] = _COMBINE[kind](out[tuple(pos)], upd[u])
    return out


# -- case tables ---------------------------------------------------------------
DTYPES = [np.float32, np.int32, np.float64, np.int8, ml_dtypes.bfloat16, np.bool_, np.complex64]


def _data(rng, shape, dt):
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    vals = rng.integers(-3, 3, shape)  # small ints: exact in every dtype, products of repeats too
    return (vals + 1j * rng.integers(-3, 3, shape)).astype(dt) if dt == np.complex64 else vals.astype(dt)


# (operand shape, indices, attrs)
GATHERS = [
    ((5, 4), np.array([[3], [0], [3]]),
     dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1, slice_sizes=(1, 4))),
    ((6, 7), np.array([[1, 2], [5, 6], [-2, 3]]),  # clamped: the window must fit
     dict(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1), index_vector_dim=1, slice_sizes=(2, 3))),
    ((6, 7), np.array([[1, 4, 0], [2, 0, 6]]),  # index vectors along dim 0
     dict(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1, 0), index_vector_dim=0, slice_sizes=(2, 1))),
    ((4, 5, 6), np.array([4, 0, 2]),  # implied trailing index vector dim; offsets around the batch dim
     dict(offset_dims=(0, 2), collapsed_slice_dims=(1,), start_index_map=(1,), index_vector_dim=1, slice_sizes=(4, 1, 6))),
    ((3, 5, 4), np.array([[0, 4], [2, 2], [1, 3]]),  # batching dims: row b reads its own positions
     dict(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,), index_vector_dim=2, slice_sizes=(1, 1, 4),
          operand_batching_dims=(0,), start_indices_batching_dims=(0,))),
    ((2, 3), np.zeros((0, 1), np.int32),
     dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1, slice_sizes=(1, 3))),
]  # fmt: skip

# (operand shape, indices, updates shape, whether "set" is deterministic, attrs)
SCATTERS = [
    ((6,), np.array([[1], [4], [1], [1], [9]]), (5,), False,  # repeats; 9 is out of bounds: dropped
     dict(update_window_dims=(), inserted_window_dims=(0,), scattered_dims_to_operand_dims=(0,), index_vector_dim=1)),
    ((5, 3), np.array([[2], [0], [2], [4]]), (4, 3), False,
     dict(update_window_dims=(1,), inserted_window_dims=(0,), scattered_dims_to_operand_dims=(0,), index_vector_dim=1)),
    ((6, 7), np.array([[0, 1], [3, 4], [0, 2]]), (3, 2, 3), False,  # overlapping 2x3 windows
     dict(update_window_dims=(1, 2), inserted_window_dims=(), scattered_dims_to_operand_dims=(0, 1), index_vector_dim=1)),
    ((3, 5), np.array([[0, 4, 0], [2, 2, 1], [3, 1, 3]]), (3, 3), False,  # batching: row b, its own positions
     dict(update_window_dims=(), inserted_window_dims=(1,), scattered_dims_to_operand_dims=(1,), index_vector_dim=2,
          input_batching_dims=(0,), scatter_indices_batching_dims=(0,))),
    ((4, 5), np.array([[1, 3, 0]]), (4, 3), True,  # index vectors along dim 0, window in dim 0
     dict(update_window_dims=(0,), inserted_window_dims=(1,), scattered_dims_to_operand_dims=(1,), index_vector_dim=0)),
]  # fmt: skip

KINDS = ("set", "add", "mul", "min", "max")


def _kind(turn: int, dt, set_ok: bool) -> str:
    kind = KINDS[turn % len(KINDS)]
    if kind == "set" and not set_ok:
        return "add"  # "set" at a repeated position keeps any one of the updates
    return "mul" if dt == np.complex64 and kind in ("min", "max") else kind


def _pairs(n_cases: int):
    """(case, dtype) pairs: every case in float32, each other dtype on two cases. Each XLA
    gather or scatter costs ~40 ms to compile on these cores, so the table stays small."""
    pairs = [(c, np.float32) for c in range(n_cases)]
    for j, dt in enumerate(DTYPES[1:]):
        pairs += [(j % n_cases, dt), ((j + 2) % n_cases, dt)]
    return pairs


def test_gather_and_scatter_match_the_spec(run, rng):
    inputs, gathers, scatters = [], [], []
    for c, dt in _pairs(len(GATHERS)):
        shape, idx, attrs = GATHERS[c]
        gathers.append((len(inputs), attrs))
        inputs += [_data(rng, shape, dt), idx.astype(np.int32)]
    every_kind = [(0, np.float32, k) for k in KINDS if k != "set"]  # case 0 repeats indices
    for turn, (c, dt) in enumerate(_pairs(len(SCATTERS))):
        shape, idx, ushape, set_ok, attrs = SCATTERS[c]
        for k in [k for c0, dt0, k in every_kind if (c0, dt0) == (c, dt)] or [_kind(turn, dt, set_ok)]:
            scatters.append((len(inputs), attrs, k))
            inputs += [_data(rng, shape, dt), idx.astype(np.int32), _data(rng, ushape, dt)]

    def build(*ts):
        g = [I.gather(ts[i], ts[i + 1], **a) for i, a in gathers]
        s = [I.scatter(ts[i], ts[i + 1], ts[i + 2], kind=k, **a) for i, a, k in scatters]
        return g, s

    got_g, got_s = run(build, *inputs)
    for (i, attrs), got in zip(gathers, got_g):
        want = gather_ref(inputs[i], inputs[i + 1], **attrs)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want, err_msg=str(attrs))
    for (i, attrs, kind), got in zip(scatters, got_s):
        want = scatter_ref(*inputs[i : i + 3], kind=kind, **attrs)
        np.testing.assert_array_equal(got, want, err_msg=f"{kind} {inputs[i].dtype} {attrs}")
    assert {k for _, _, k in scatters} == set(KINDS)


def test_gather_and_scatter_with_symbolic_dims(run, rng):
    """Index batch dims and a whole-taken operand dim may be symbols."""
    x = rng.standard_normal((3, 5)).astype(np.float32)
    idx = np.array([[4], [0], [4], [2]], np.int32)
    upd = rng.standard_normal((3, 4)).astype(np.float32)

    def build(x, idx, upd):
        rows = I.gather(x, idx, offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,),
                        index_vector_dim=1, slice_sizes=("batch", 1))  # fmt: skip
        added = I.scatter(x, idx, upd, update_window_dims=(0,), inserted_window_dims=(1,),
                          scattered_dims_to_operand_dims=(1,), index_vector_dim=1, kind="add")  # fmt: skip
        assert rows.shape == ("batch", "n") and added.shape == ("batch", 5)
        return rows, added

    rows, added = run(build, x, idx, upd, symbolic={0: ("batch", 5), 1: ("n", 1), 2: ("batch", "n")})
    np.testing.assert_array_equal(rows, x[:, idx[:, 0]])
    want = x.copy()
    np.add.at(want, (slice(None), idx[:, 0]), upd)
    np.testing.assert_allclose(added, want, rtol=1e-6)


def _line_of(marker: str) -> int:
    """The line of this file holding ``marker`` (for the file:line in error messages)."""
    lines = inspect.getsource(inspect.getmodule(_line_of)).splitlines()
    return next(i for i, line in enumerate(lines, 1) if marker in line and "_line_of" not in line)


BAD = [
    ("gather", dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1,
                    slice_sizes=(1, 9)), "gather wants slice sizes within f32[5,4]"),
    ("gather", dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0, 1), index_vector_dim=1,
                    slice_sizes=(1, 4)), "gather wants start_index_map of length 1"),
    ("gather", dict(offset_dims=(0,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1,
                    slice_sizes=(2, 4)), "gather wants slice size <= 1 in collapsed"),
    ("gather", dict(offset_dims=(0, 1), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1,
                    slice_sizes=(1, 4)), "gather wants one offset dim per operand dim"),
    ("scatter", dict(update_window_dims=(1,), inserted_window_dims=(0,), scattered_dims_to_operand_dims=(0,),
                     index_vector_dim=1), "scatter wants the update scatter dims to match"),
    ("scatter", dict(update_window_dims=(0, 1), inserted_window_dims=(0,), scattered_dims_to_operand_dims=(0,),
                     index_vector_dim=1), "scatter wants updates with 1 window dims"),
]  # fmt: skip


@pytest.mark.parametrize("op, attrs, message", BAD)
def test_infer_errors_name_the_op_shapes_and_line(op, attrs, message):
    with sg.Graph():
        x = sg.placeholder((5, 4), sg.float32)
        idx = sg.placeholder((3, 1), sg.int32)
        upd = sg.placeholder((2, 4), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            I.gather(x, idx, **attrs) if op == "gather" else I.scatter(x, idx, upd, **attrs)  # bad-call
    assert message in str(e.value)
    assert f"test_indexing.py:{_line_of('# bad-call')}" in str(e.value)


def test_infer_errors_for_dtypes():
    with sg.Graph():
        x = sg.placeholder((5,), sg.float32)
        with pytest.raises(sg.GraphError, match=r"gather wants integer indices, got f32\[2,1\]"):
            I.gather(x, sg.placeholder((2, 1), sg.float32), offset_dims=(), collapsed_slice_dims=(0,),
                     start_index_map=(0,), index_vector_dim=1, slice_sizes=(1,))  # fmt: skip
        idx = sg.placeholder((2, 1), sg.int32)
        attrs = dict(update_window_dims=(), inserted_window_dims=(0,), scattered_dims_to_operand_dims=(0,),
                     index_vector_dim=1)  # fmt: skip
        with pytest.raises(sg.GraphError, match="scatter wants updates of the operand's dtype"):
            I.scatter(x, idx, sg.placeholder((2,), sg.int32), **attrs)
        c = sg.placeholder((5,), sg.complex64)
        with pytest.raises(sg.GraphError, match="scatter max is not defined for complex"):
            I.scatter(c, idx, sg.placeholder((2,), sg.complex64), kind="max", **attrs)
        with pytest.raises(sg.GraphError, match="scatter: bad attributes: kind"):
            I.scatter(x, idx, sg.placeholder((2,), sg.float32), kind="div", **attrs)
