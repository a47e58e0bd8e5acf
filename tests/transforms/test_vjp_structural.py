"""vjp rules of the structural primitives (shape, slicing, indexing, linalg, reduce, cumulative,
sort) against jax.vjp, the test-only oracle, in float64 with random cotangents.

Each test builds every case of its family into ONE graph (one compile): a case is an sg function
and a jax function of the same arguments, with optional symbolic dims for the sg placeholders.
Floating arguments are differentiated, integer ones (indices) are held fixed.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import stablegraph as sg
from stablegraph.ops.primitives import cumulative as C
from stablegraph.ops.primitives import dot_general as L
from stablegraph.ops.primitives import indexing as I
from stablegraph.ops.primitives import reduce as R
from stablegraph.ops.primitives import shape as S
from stablegraph.ops.primitives import slicing as SL
from stablegraph.ops.primitives import sort as SO

pytestmark = pytest.mark.usefixtures("jax_x64")  # jax as a 64-bit oracle for this module only

RNG = np.random.default_rng(0)


def randn(*shape, dtype=np.float64):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def ints(*values):
    return np.asarray(values[0] if len(values) == 1 else values, np.int32)


def case(sg_fn, jax_fn, *args, symbolic=None):
    """symbolic maps an argument index to the sg placeholder's (possibly symbolic) shape. jax_fn may
    instead be ``Reference(fn, vjp)``: numpy functions of the arguments (and the cotangent)."""
    return sg_fn, jax_fn, args, symbolic or {}


class Reference:
    def __init__(self, fn, vjp):
        self.fn, self.vjp = fn, vjp


def _with(full, wrt, ws):
    full = list(full)
    for i, w in zip(wrt, ws):
        full[i] = w
    return full


def _jax_expected(cases: dict, args: dict, cts: dict):
    """Every case's outputs and vjp from ONE jitted jax function (eager jax compiles op by op)."""

    def all_cases(args, cts):
        out = {}
        for name, (_, jax_fn, _, _) in cases.items():
            if isinstance(jax_fn, Reference):
                continue
            wrt = [i for i, a in enumerate(args[name]) if a.dtype.kind in "fc"]
            j_out, j_vjp = jax.vjp(
                lambda *ws, f=jax_fn, a=args[name], w=wrt: f(*_with(a, w, ws)), *[args[name][i] for i in wrt]
            )
            ct = tuple(cts[name]) if isinstance(j_out, tuple) else cts[name][0]
            out[name] = (list(j_out) if isinstance(j_out, tuple) else [j_out], list(j_vjp(ct)))
        return out

    out = (
        jax.jit(all_cases)(args, cts) if any(not isinstance(c[1], Reference) for c in cases.values()) else {}
    )
    for name, (_, ref, _, _) in cases.items():
        if isinstance(ref, Reference):
            out[name] = ([ref.fn(*args[name])], [ref.vjp(*args[name], cts[name][0])])
    return out


def check_vjps(cases: dict, rtol=1e-9, atol=1e-10):
    """Build every case's output and vjp into one graph, run once, compare with jax.vjp."""
    all_args = {name: [np.asarray(a) for a in c[2]] for name, c in cases.items()}
    all_cts = {}
    for name, (_, jax_fn, _, _) in cases.items():
        if isinstance(jax_fn, Reference):
            shapes = np.asarray(jax_fn.fn(*all_args[name]))
        else:
            shapes = jax.eval_shape(jax_fn, *all_args[name])
        shapes = shapes if isinstance(shapes, tuple) else (shapes,)
        all_cts[name] = [randn(*o.shape, dtype=o.dtype) for o in shapes]
    g = sg.Graph()
    feeds, fetch = {}, {}
    with g:
        for name, (sg_fn, _, _, symbolic) in cases.items():
            args = all_args[name]
            phs = [sg.placeholder(symbolic.get(i, a.shape), sg.dtype(a.dtype)) for i, a in enumerate(args)]
            feeds.update(zip(phs, args))
            wrt = [i for i, a in enumerate(args) if a.dtype.kind in "fc"]
            out, vjp_fn = sg.vjp(
                lambda *ws, f=sg_fn, p=phs, w=wrt: f(*_with(p, w, ws)), *[phs[i] for i in wrt]
            )
            outs = out if isinstance(out, tuple) else (out,)
            ct_phs = [sg.placeholder(o.shape, o.dtype) for o in outs]
            feeds.update(zip(ct_phs, all_cts[name]))
            fetch[name] = (list(outs), list(vjp_fn(tuple(ct_phs) if isinstance(out, tuple) else ct_phs[0])))
    got = sg.Session(g).run(fetch, feeds)
    expect = _jax_expected(cases, all_args, all_cts)
    for name in cases:
        for kind, g_vals, j_vals in zip(("output", "cotangent"), got[name], expect[name]):
            for k, (a, b) in enumerate(zip(g_vals, j_vals)):
                np.testing.assert_allclose(
                    a, np.asarray(b), rtol=rtol, atol=atol, err_msg=f"{name} {kind} {k}"
                )


# -- shape ---------------------------------------------------------------------
def test_shape_vjps():
    cases = {
        "bcast_new_dim": case(
            lambda a: S.broadcast_in_dim(a, (2, 3), (1,)),
            lambda a: lax.broadcast_in_dim(a, (2, 3), (1,)),
            randn(3),
        ),
        "bcast_expand": case(
            lambda a: S.broadcast_in_dim(a, (3, 4), (0, 1)),
            lambda a: lax.broadcast_in_dim(a, (3, 4), (0, 1)),
            randn(3, 1),
        ),
        "bcast_both": case(
            lambda a: S.broadcast_in_dim(a, (2, 3, 4), (0, 2)),
            lambda a: lax.broadcast_in_dim(a, (2, 3, 4), (0, 2)),
            randn(1, 1),
        ),
        "bcast_scalar": case(
            lambda a: S.broadcast_in_dim(a, (2, 3), ()),
            lambda a: lax.broadcast_in_dim(a, (2, 3), ()),
            randn(),
        ),
        "bcast_symbolic": case(
            lambda a: S.broadcast_in_dim(a, ("b", 2, 4), (0, 2)),
            lambda a: lax.broadcast_in_dim(a, (4, 2, 4), (0, 2)),
            randn(4, 1),
            symbolic={0: ("b", 1)},
        ),
        "bcast_complex": case(
            lambda a: S.broadcast_in_dim(a, (2, 3), (1,)),
            lambda a: lax.broadcast_in_dim(a, (2, 3), (1,)),
            randn(3, dtype=np.complex128),
        ),
        "reshape": case(lambda a: S.reshape(a, (6, 4)), lambda a: a.reshape(6, 4), randn(2, 3, 4)),
        "reshape_scalar": case(lambda a: S.reshape(a, (1, 1)), lambda a: a.reshape(1, 1), randn()),
        "reshape_symbolic": case(
            lambda a: S.reshape(a, ("3*b",)), lambda a: a.reshape(-1), randn(4, 3), symbolic={0: ("b", 3)}
        ),
        "transpose": case(
            lambda a: S.transpose(a, (2, 0, 1)), lambda a: lax.transpose(a, (2, 0, 1)), randn(2, 3, 4)
        ),
        "transpose_swap": case(
            lambda a: S.transpose(a, (1, 0, 2)), lambda a: lax.transpose(a, (1, 0, 2)), randn(2, 3, 4)
        ),
        "transpose_symbolic": case(
            lambda a: S.transpose(a, (1, 2, 0)),
            lambda a: lax.transpose(a, (1, 2, 0)),
            randn(4, 2, 5),
            symbolic={0: ("b", 2, 5)},
        ),
    }
    check_vjps(cases)


# -- slicing -------------------------------------------------------------------
def _pad_jax(low, high, interior):
    return lambda a, v: lax.pad(a, v, list(zip(low, high, interior)))


def _pad_sg(low, high, interior):
    return lambda a, v: SL.pad(a, v, low, high, interior)


PAD_CASES = [  # (shape, symbolic shape or None, low, high, interior)
    ((3, 4), None, (1, -1), (2, -2), (1, 2)),
    ((3, 4), None, (-2, 0), (0, -3), (0, 1)),
    ((4,), None, (-3,), (-2,), (2,)),
    ((2, 3), None, (0, 0), (0, 0), (0, 0)),
    ((4, 3), ("b", 3), (1, 0), (0, 0), (1, 0)),
    ((4, 3), ("b", 3), (3, 1), (-2, 0), (1, 1)),
    ((4, 3), ("b", 3), (-1, 0), (2, 0), (1, 0)),
    ((4, 3), ("b", 3), (2, 0), (-2, 0), (0, 0)),
    ((4, 3), ("b", 3), (-4, 0), (6, 0), (2, 0)),
]


def test_slicing_vjps():
    cases = {
        "slice": case(
            lambda a: SL.slice(a, (1, 2), (6, 8), (2, 3)),
            lambda a: lax.slice(a, (1, 2), (6, 8), (2, 3)),
            randn(7, 8),
        ),
        "slice_tail": case(lambda a: SL.slice(a, (3,), (7,)), lambda a: lax.slice(a, (3,), (7,)), randn(9)),
        "slice_empty": case(lambda a: SL.slice(a, (2,), (2,)), lambda a: lax.slice(a, (2,), (2,)), randn(5)),
        "slice_symbolic": case(
            lambda a: SL.slice(a, (0, 1), ("b", 5), (1, 2)),
            lambda a: lax.slice(a, (0, 1), (4, 5), (1, 2)),
            randn(4, 6),
            symbolic={0: ("b", 6)},
        ),
        "rev": case(lambda a: SL.rev(a, (0,)), lambda a: lax.rev(a, (0,)), randn(4, 3)),
        "rev2": case(lambda a: SL.rev(a, (0, 2)), lambda a: lax.rev(a, (0, 2)), randn(2, 3, 4)),
        "rev_symbolic": case(
            lambda a: SL.rev(a, (0, 1)), lambda a: lax.rev(a, (0, 1)), randn(4, 2), symbolic={0: ("b", 2)}
        ),
        "concat": case(
            lambda a, b, c: SL.concatenate([a, b, c], 1),
            lambda a, b, c: lax.concatenate([a, b, c], 1),
            randn(2, 3),
            randn(2, 1),
            randn(2, 4),
        ),
        "concat_symbolic_dim": case(
            lambda a, b: SL.concatenate([a, b, a], 0),
            lambda a, b: lax.concatenate([a, b, a], 0),
            randn(4, 2),
            randn(4, 2),
            symbolic={0: ("b", 2), 1: ("b", 2)},
        ),
        "concat_symbolic_other": case(
            lambda a, b: SL.concatenate([a, b], 1),
            lambda a, b: lax.concatenate([a, b], 1),
            randn(4, 2),
            randn(4, 1),
            symbolic={0: ("b", 2), 1: ("b", 1)},
        ),
        "dynamic_slice": case(
            lambda a, i, j: SL.dynamic_slice(a, (i, j), (3, 2)),
            lambda a, i, j: lax.dynamic_slice(a, (i, j), (3, 2)),
            randn(5, 6),
            ints(1),
            ints(2),
        ),
        "dynamic_slice_clamped": case(
            lambda a, i, j: SL.dynamic_slice(a, (i, j), (3, 2)),
            lambda a, i, j: lax.dynamic_slice(a, (i, j), (3, 2)),
            randn(5, 6),
            ints(4),
            ints(9),  # (jax wraps negative starts, StableHLO clamps them)
        ),
        "dynamic_slice_symbolic": case(
            lambda a, i, j: SL.dynamic_slice(a, (i, j), ("b", 2)),
            lambda a, i, j: lax.dynamic_slice(a, (i, j), (4, 2)),
            randn(4, 6),
            ints(0),
            ints(3),
            symbolic={0: ("b", 6)},
        ),
        "dynamic_update_slice": case(
            lambda a, u, i, j: SL.dynamic_update_slice(a, u, (i, j)),
            lambda a, u, i, j: lax.dynamic_update_slice(a, u, (i, j)),
            randn(5, 6),
            randn(2, 3),
            ints(3),
            ints(4),
        ),
        "dynamic_update_slice_symbolic": case(
            lambda a, u, i, j: SL.dynamic_update_slice(a, u, (i, j)),
            lambda a, u, i, j: lax.dynamic_update_slice(a, u, (i, j)),
            randn(4, 6),
            randn(4, 2),
            ints(0),
            ints(1),
            symbolic={0: ("b", 6), 1: ("b", 2)},
        ),
    }
    for k, (shape, sym, low, high, interior) in enumerate(PAD_CASES):
        cases[f"pad{k}"] = case(
            _pad_sg(low, high, interior),
            _pad_jax(low, high, interior),
            randn(*shape),
            randn(),
            symbolic={0: sym} if sym else None,
        )
    check_vjps(cases)


# -- gather / scatter ----------------------------------------------------------
def _gather(offset, collapsed, start_map, slice_sizes, jax_slice_sizes=None, obd=(), sibd=(), ivd=None):
    def sg_fn(a, idx):
        return I.gather(
            a, idx, offset_dims=offset, collapsed_slice_dims=collapsed, start_index_map=start_map,
            index_vector_dim=idx.ndim - 1 if ivd is None else ivd, slice_sizes=slice_sizes,
            operand_batching_dims=obd, start_indices_batching_dims=sibd,
        )  # fmt: skip

    def jax_fn(a, idx):
        if ivd is not None:  # an implied trailing index vector dim
            idx = idx[..., None]
        dnums = lax.GatherDimensionNumbers(offset, collapsed, start_map, obd, sibd)
        return lax.gather(a, idx, dnums, jax_slice_sizes or slice_sizes, mode="clip")

    return sg_fn, jax_fn


def _scatter(kind, window, inserted, to_operand, ibd=(), sibd=(), unique=False, jax_unique=None):
    def sg_fn(a, idx, u):
        return I.scatter(
            a, idx, u, update_window_dims=window, inserted_window_dims=inserted,
            scattered_dims_to_operand_dims=to_operand, index_vector_dim=idx.ndim - 1,
            input_batching_dims=ibd, scatter_indices_batching_dims=sibd, unique_indices=unique, kind=kind,
        )  # fmt: skip

    def jax_fn(a, idx, u):
        dnums = lax.ScatterDimensionNumbers(window, inserted, to_operand, ibd, sibd)
        fn = {"set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul,
              "min": lax.scatter_min, "max": lax.scatter_max}[kind]  # fmt: skip
        # jax differentiates scatter mul only with unique_indices: say so where the indices are unique
        return fn(a, idx, u, dnums, unique_indices=unique if jax_unique is None else jax_unique, mode="drop")

    return sg_fn, jax_fn


def _rows_mul_reference(a, idx, u):
    """scatter mul of rows with duplicate indices, as a product jax differentiates exactly at zeros."""
    hit = idx[:, 0][:, None] == jnp.arange(a.shape[0])[None, :]  # (updates, rows)
    factors = jnp.where(hit[:, :, None], u[:, None, :], 1.0)
    return a * jnp.prod(factors, axis=0)


def test_gather_vjps():
    rows = _gather((1,), (0,), (0,), (1, 3))
    cases = {
        "rows": case(*rows, randn(5, 3), ints([1], [4], [1], [7], [-2])),
        "windows": case(*_gather((1, 2), (), (0, 1), (2, 2)), randn(6, 5), ints([0, 1], [5, 4], [3, 3])),
        "batching": case(
            *_gather((2,), (1,), (1,), (1, 1, 2), obd=(0,), sibd=(0,)),
            randn(3, 5, 2),
            RNG.integers(-1, 6, (3, 4, 1)).astype(np.int32),
        ),
        "implied_vector": case(*_gather((), (0,), (0,), (1,), ivd=1), randn(5), ints(0, 4, 9)),
        "middle_vector_dim": case(
            lambda a, idx: I.gather(
                a,
                idx,
                offset_dims=(1,),
                collapsed_slice_dims=(0,),
                start_index_map=(0,),
                index_vector_dim=0,
                slice_sizes=(1, 2),
            ),  # fmt: skip
            lambda a, idx: lax.gather(
                a, idx.T, lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 2), mode="clip"
            ),
            randn(4, 2),
            ints([[3, 0, 3]]),
        ),
        "symbolic_operand": case(*rows, randn(4, 3), ints([1], [9]), symbolic={0: ("b", 3)}),
        "symbolic_indices": case(*rows, randn(5, 3), ints([1], [2], [1], [8]), symbolic={1: ("n", 1)}),
        "symbolic_slice": case(
            *_gather((1,), (0,), (0,), (1, "c"), jax_slice_sizes=(1, 3)),
            randn(4, 3),
            ints([2], [0], [2]),
            symbolic={0: (4, "c")},
        ),
        "complex": case(*rows, randn(5, 3, dtype=np.complex128), ints([1], [4], [1])),
    }
    check_vjps(cases)


def test_scatter_vjps():
    dup_rows = ints([1], [3], [1], [9])
    tie = RNG.integers(0, 3, (6, 3)).astype(np.float64)  # small integers: ties between operand and updates
    tie_upd = RNG.integers(0, 3, (4, 3)).astype(np.float64)
    zeros_upd = randn(4, 3)
    zeros_upd[0, 1] = zeros_upd[2, 1] = zeros_upd[1, 2] = zeros_upd[2, 0] = 0.0
    cases = {}
    for kind in ("set", "add", "mul", "min", "max"):
        rows = _scatter(kind, (1,), (0,), (0,))
        if kind in ("set", "add"):
            cases[f"{kind}_rows"] = case(*rows, randn(6, 3), dup_rows, randn(4, 3))
        if kind in ("min", "max"):  # duplicates and ties between the operand and the updates
            cases[f"{kind}_rows"] = case(*rows, tie, dup_rows, tie_upd)
        cases[f"{kind}_windows"] = case(
            *_scatter(kind, (1, 2), (), (0, 1), jax_unique=kind == "mul"),
            randn(5, 6),
            ints([0, 1], [4, 5], [3, 3]),
            randn(3, 2, 2),
        )
        if kind in ("add", "mul", "max"):
            cases[f"{kind}_batching"] = case(
                *_scatter(kind, (), (1,), (1,), ibd=(0,), sibd=(0,), jax_unique=kind == "mul"),
                randn(3, 5),
                ints([[1], [3]], [[0], [7]], [[2], [4]]),
                randn(3, 2),
            )
        if kind in ("set", "max"):
            cases[f"{kind}_symbolic"] = case(
                *_scatter(kind, (1,), (0,), (0,), unique=True),
                randn(6, 3),
                ints([4], [1]),
                randn(2, 3),
                symbolic={0: ("b", 3), 1: ("n", 1), 2: ("n", 3)},
            )
    mul_rows = _scatter("mul", (1,), (0,), (0,))[0]
    cases["mul_duplicates_zeros"] = case(
        mul_rows,
        lambda a, i, u: _rows_mul_reference(a, i, u),
        randn(6, 3),
        ints([1], [3], [1], [1]),
        zeros_upd,
    )
    cases["mul_unique_zeros"] = case(
        *_scatter("mul", (1,), (0,), (0,), unique=True), randn(6, 3), ints([4], [0], [2], [5]), zeros_upd
    )
    check_vjps(cases)


# -- dot_general ---------------------------------------------------------------
DOT_CASES = [  # (lhs shape, rhs shape, contracting, batch)
    ((3, 4), (4, 5), ((1,), (0,)), ((), ())),
    ((4, 3), (5, 4), ((0,), (1,)), ((), ())),
    ((2, 3, 4), (2, 4, 5), ((2,), (1,)), ((0,), (0,))),
    ((3, 2, 4), (4, 5, 2), ((2,), (0,)), ((1,), (2,))),
    ((3, 4, 5), (5, 2, 4), ((1, 2), (2, 0)), ((), ())),
    ((2, 3, 4, 5), (5, 3, 6, 2), ((3,), (0,)), ((0, 1), (3, 1))),
    ((2, 3, 4, 5), (4, 3, 2), ((2,), (0,)), ((1, 0), (1, 2))),
    ((3,), (4,), ((), ()), ((), ())),
    ((4,), (4,), ((0,), (0,)), ((), ())),
    ((2, 3), (3, 2), ((0, 1), (1, 0)), ((), ())),
]


def test_dot_general_vjps():
    cases = {}
    for k, (xs, ys, contracting, batch) in enumerate(DOT_CASES):
        cases[f"dot{k}"] = case(
            lambda a, b, c=contracting, bt=batch: L.dot_general(a, b, c, bt),
            lambda a, b, c=contracting, bt=batch: lax.dot_general(a, b, (c, bt)),
            randn(*xs),
            randn(*ys),
        )
    cases["complex"] = case(
        lambda a, b: L.dot_general(a, b, ((2,), (1,)), ((0,), (0,))),
        lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
        randn(2, 3, 4, dtype=np.complex128),
        randn(2, 4, 3, dtype=np.complex128),
    )
    cases["symbolic_free"] = case(
        lambda a, b: L.dot_general(a, b, ((1,), (0,))),
        lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
        randn(5, 3),
        randn(3, 4),
        symbolic={0: ("b", 3)},
    )
    cases["symbolic_batch_contract"] = case(
        lambda a, b: L.dot_general(a, b, ((0, 2), (2, 0)), ((1,), (1,))),
        lambda a, b: lax.dot_general(a, b, (((0, 2), (2, 0)), ((1,), (1,)))),
        randn(5, 2, 3),
        randn(3, 2, 5),
        symbolic={0: ("b", "n", 3), 1: (3, "n", "b")},
    )
    check_vjps(cases)


# -- reduce --------------------------------------------------------------------
def test_reduce_vjps():
    zeros = randn(4, 5)
    zeros[1, 2] = 0.0
    zeros[2, 0] = zeros[2, 3] = 0.0
    ties = RNG.integers(0, 3, (4, 5, 3)).astype(np.float64)
    jax_fns = {"sum": jnp.sum, "prod": jnp.prod, "max": jnp.max, "min": jnp.min}
    table = [  # (kind, axes, input, symbolic shape or None)
        ("sum", (0, 2), randn(3, 4, 2), None),
        ("sum", (0, 1, 2), randn(3, 4, 2), None),
        ("prod", (1, 2), randn(3, 4, 2), None),
        ("max", (0,), randn(3, 4, 2), None),
        ("min", (0, 1, 2), randn(3, 4, 2), None),
        ("max", (1,), ties, None),
        ("max", (0, 2), ties, None),
        ("min", (0, 2), ties, None),
        ("prod", (1,), zeros, None),
        ("prod", (0, 1), zeros, None),
        ("sum", (1,), randn(3, 4), ("b", 4)),
        ("prod", (0, 1), randn(3, 4, 2), ("b", 4, 2)),
        ("max", (0, 1), randn(3, 4, 2), ("b", 4, 2)),
        ("min", (1,), randn(3, 4), ("b", 4)),
        ("prod", (1,), randn(3, 4, dtype=np.complex128), None),
        ("sum", (0,), randn(3, 4, dtype=np.complex128), None),
    ]
    cases = {
        f"{k}{n}": case(
            lambda a, kind=kind, ax=axes: R.reduce(a, kind, ax),
            lambda a, f=jax_fns[kind], ax=axes: f(a, axis=ax),
            x,
            symbolic={0: sym} if sym else None,
        )
        for n, (kind, axes, x, sym) in enumerate(table)
        for k in [kind]
    }
    check_vjps(cases)


# -- cumulative ----------------------------------------------------------------
def _scan(kind, x, axis, reverse):
    acc = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind].accumulate
    return np.flip(acc(np.flip(x, axis), axis), axis) if reverse else acc(x, axis)


def _scan_vjp(kind, x, ct, axis, reverse):
    """numpy references: reverse cumsum; cumprod from its definition; for max/min our convention,
    each output's cotangent goes where its value was first reached in scan order."""
    y = _scan(kind, x, axis, reverse)
    x, y, ct = (np.moveaxis(t, axis, -1) for t in (x, y, ct))
    out, n = np.zeros_like(x), x.shape[-1]
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    for index in np.ndindex(x.shape[:-1]):
        xs, ys, cs = x[index], y[index], ct[index]
        for step, i in enumerate(order):
            done = order[: step + 1]  # the elements output i combines
            if kind == "sum":
                out[index][done] += cs[i]
            elif kind == "prod":
                for j in done:
                    out[index][j] += cs[i] * np.prod([xs[k] for k in done if k != j])
            else:
                first = next(j for j in done if ys[j] == ys[i])
                out[index][first] += cs[i]
    return np.moveaxis(out, -1, axis)


def _cumulative_case(kind, axis, reverse, x, symbolic=None, oracle="numpy"):
    sg_fn = lambda a: C.cumulative(a, kind, axis, reverse)  # noqa: E731
    jax_fn = {"sum": lax.cumsum, "prod": lax.cumprod, "max": lax.cummax, "min": lax.cummin}[kind]
    ref = Reference(
        lambda a: _scan(kind, a, axis, reverse), lambda a, ct: _scan_vjp(kind, a, ct, axis, reverse)
    )
    return case(
        sg_fn,
        (lambda a: jax_fn(a, axis, reverse)) if oracle == "jax" else ref,
        x,
        symbolic={0: symbolic} if symbolic else None,
    )


def test_cumulative_vjps():
    # jax's cumulative gradients are slow to compile (associative scans): numpy references for
    # most cases, jax for a few to pin the conventions (they agree without ties).
    zeros = randn(3, 6)
    zeros[0, 2] = zeros[1, 1] = zeros[1, 4] = zeros[2, 5] = zeros[2, 0] = 0.0
    ties = np.array([[1.0, 3.0, 3.0, 2.0, 3.0, 5.0, 5.0], [2.0, 2.0, 1.0, 4.0, 0.0, 4.0, 6.0]])
    table = [  # (kind, axis, reverse, input, symbolic shape, oracle)
        ("sum", 0, False, randn(5, 4), None, "numpy"),
        ("sum", 1, True, randn(5, 4), None, "jax"),
        ("prod", 1, False, randn(5, 4), None, "numpy"),
        ("prod", 0, True, randn(5, 4), None, "numpy"),
        ("prod", 1, False, zeros, None, "jax"),
        ("prod", 1, True, zeros, None, "numpy"),
        ("prod", 0, False, zeros, None, "numpy"),
        ("prod", 1, False, randn(2, 7, dtype=np.complex128), None, "numpy"),
        ("max", 0, False, randn(5, 4), None, "jax"),
        ("max", 1, True, randn(5, 4), None, "numpy"),
        ("min", 1, False, randn(5, 4), None, "numpy"),
        ("min", 0, True, randn(5, 4), None, "numpy"),
        ("max", 1, False, ties, None, "numpy"),
        ("max", 1, True, ties, None, "numpy"),
        ("min", 1, False, ties, None, "numpy"),
        ("min", 1, True, ties, None, "numpy"),
        ("sum", 0, True, randn(5, 3), ("b", 3), "numpy"),
        ("max", 0, False, randn(5, 3), ("b", 3), "numpy"),
        ("min", 0, True, randn(5, 3), ("b", 3), "numpy"),
    ]
    check_vjps({f"{t[0]}{n}": _cumulative_case(*t) for n, t in enumerate(table)})


def test_cumulative_prod_vjp_needs_a_static_axis():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("b", 3), sg.float64)
        _, f = sg.vjp(lambda a: C.cumulative(a, "prod", 0), x)
        line = inspect.currentframe().f_lineno - 1
        with pytest.raises(sg.GraphError) as e:
            f(x)
    assert "cumulative_prod vjp wants a static axis length" in str(e.value)
    assert f"test_vjp_structural.py:{line}" in str(e.value)


# -- sort ----------------------------------------------------------------------
def test_sort_vjps():
    ties = RNG.integers(0, 3, (3, 6)).astype(np.float64)
    cases = {
        "one": case(lambda a: SO.sort(a, 1), lambda a: lax.sort(a, dimension=1), randn(3, 5)),
        "axis0": case(lambda a: SO.sort(a, 0), lambda a: lax.sort(a, dimension=0), randn(4, 3)),
        "descending": case(
            lambda a: SO.sort(a, 1, descending=True), lambda a: -lax.sort(-a, dimension=1), randn(3, 5)
        ),
        "key_value": case(
            lambda k, v: SO.sort((k, v), 1),
            lambda k, v: lax.sort((k, v), dimension=1, num_keys=1),
            ties,
            randn(3, 6),
        ),
        "two_keys": case(
            lambda k, k2, v: SO.sort((k, k2, v), 1, num_keys=2),
            lambda k, k2, v: lax.sort((k, k2, v), dimension=1, num_keys=2),
            ties,
            RNG.integers(0, 2, (3, 6)).astype(np.float64),
            randn(3, 6),
        ),
        "descending_value": case(
            lambda k, v: SO.sort((k, v), 1, descending=True),
            lambda k, v: (lambda s: (-s[0], s[1]))(lax.sort((-k, v), dimension=1, num_keys=1)),
            ties,
            randn(3, 6),
        ),
        "with_iota": case(
            lambda a: SO.sort((a, sg.ops.iota(sg.int32, a.shape, 0)), 0)[0],
            lambda a: lax.sort((a, lax.broadcasted_iota(np.int32, a.shape, 0)), dimension=0, num_keys=1)[0],
            randn(5, 2),
        ),
        "symbolic": case(
            lambda k, v: SO.sort((k, v), 1),
            lambda k, v: lax.sort((k, v), dimension=1, num_keys=1),
            ties,
            randn(3, 6),
            symbolic={0: ("b", 6), 1: ("b", 6)},
        ),
    }
    check_vjps(cases)


def test_unstable_sort_with_values_has_no_vjp():
    g = sg.Graph()
    with g:
        k = sg.placeholder((3,), sg.float64)
        _, f = sg.vjp(lambda a, b: SO.sort((a, b), is_stable=False), k, k)
        line = inspect.currentframe().f_lineno - 1
        with pytest.raises(sg.GraphError) as e:
            f((k, k))
    assert "sort vjp wants is_stable=True" in str(e.value)
    assert f"test_vjp_structural.py:{line}" in str(e.value)


# -- second order --------------------------------------------------------------
def _vdot(a, b):
    """sum(a * b) with dot_general only."""
    dims = tuple(range(a.ndim))
    return L.dot_general(a, b, (dims, dims))


def _rows_sg(a, idx):
    return I.gather(a, idx, offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
                    index_vector_dim=1, slice_sizes=(1, a.shape[1]))  # fmt: skip


def _rows_jax(a, idx):
    dnums = lax.GatherDimensionNumbers((1,), (0,), (0,))
    return lax.gather(a, idx, dnums, (1, a.shape[1]), mode="clip")


def test_second_order_matches_jax():
    """grad of <grad f(x), v> against jax for scalar functions built from these primitives."""
    x, w, v = randn(3, 4), randn(4, 4), randn(3, 4)
    tied = RNG.integers(0, 3, (3, 4)).astype(np.float64)
    zeros = randn(3, 4)
    zeros[0, 1] = zeros[1, 1] = zeros[1, 3] = 0.0
    idx = ints([2], [0], [2], [5])
    sidx = ints([1], [2], [1])
    zero = np.float64(0.0)
    cases = {  # name: (sg f, jax f, input); both scalar functions of one (3, 4) matrix
        "dot": (
            lambda a: _vdot(L.dot_general(a, sg.ops.constant(w), ((1,), (0,))), a),
            lambda a: jnp.vdot(a @ w, a),
            x,
        ),
        "max_ties": (
            lambda a: _vdot(R.reduce(a, "max", (0,)), R.reduce(a, "min", (0,))),
            lambda a: jnp.vdot(jnp.max(a, 0), jnp.min(a, 0)),
            tied,
        ),
        "gather": (
            lambda a: _vdot(_rows_sg(a, sg.ops.constant(idx)), _rows_sg(a, sg.ops.constant(idx))),
            lambda a: jnp.vdot(_rows_jax(a, idx), _rows_jax(a, idx)),
            x,
        ),
        "prod_zeros": (lambda a: R.reduce(a, "prod", (0, 1)), lambda a: jnp.prod(a), zeros),
        "cumprod_zeros": (
            lambda a: _vdot(C.cumulative(a, "prod", 1), sg.ops.constant(v)),
            lambda a: jnp.vdot(lax.cumprod(a, 1), v),
            zeros,
        ),
        "pad": (
            lambda a: _vdot(*(SL.pad(a, sg.ops.constant(zero), (1, -1), (0, 2), (1, 0)),) * 2),
            lambda a: jnp.vdot(*(lax.pad(a, zero, [(1, 0, 1), (-1, 2, 0)]),) * 2),
            x,
        ),
        "scatter_mul": (
            lambda a: _vdot(
                _scatter("mul", (1,), (0,), (0,))[0](a, sg.ops.constant(sidx), SL.slice(a, (0, 0), (3, 4))), a
            ),
            lambda a: jnp.vdot(_rows_mul_reference(a, sidx, a[:3]), a),
            x,
        ),
        "scatter_max": (
            lambda a: _vdot(
                *(_scatter("max", (1,), (0,), (0,))[0](a, sg.ops.constant(sidx), SL.rev(a, (0,))),) * 2
            ),
            lambda a: jnp.vdot(*(_scatter("max", (1,), (0,), (0,))[1](a, sidx, a[::-1]),) * 2),
            x,
        ),
        "sort": (
            lambda a: _vdot(*(SO.sort(a, 1),) * 2),
            lambda a: jnp.vdot(*(lax.sort(a, dimension=1),) * 2),
            x,
        ),
    }
    g = sg.Graph()
    fetch, feeds = {}, {}
    with g:
        vp = sg.ops.constant(v)
        for name, (f, _, xv) in cases.items():
            xp = sg.placeholder(xv.shape, sg.float64)
            feeds[xp] = xv
            fetch[name] = sg.grad(lambda a, f=f: _vdot(sg.grad(f)(a), vp))(xp)
    got = sg.Session(g).run(fetch, feeds)

    def hessian_v(xs):
        return {n: jax.grad(lambda a, jf=c[1]: jnp.vdot(jax.grad(jf)(a), v))(xs[n]) for n, c in cases.items()}

    expect = jax.jit(hessian_v)({n: c[2] for n, c in cases.items()})
    for name in cases:
        np.testing.assert_allclose(got[name], expect[name], rtol=1e-9, atol=1e-10, err_msg=name)


def test_jvp_by_double_vjp_matches_jax():
    """sg.jvp transposes these rules' cotangent graphs: a chain through most of them against jax.jvp."""
    x, t, w = randn(4, 3), randn(4, 3), randn(3, 5)
    idx = ints([3], [0], [3], [7])
    zero = np.float64(0.0)

    def sg_fn(a):
        a = SL.pad(a, sg.ops.constant(zero), (1, 0), (-1, 2), (1, 0))  # (7, 5)
        a = _rows_sg(SL.slice(a, (0, 1), (7, 4)), sg.ops.constant(idx))  # (4, 3)
        a = L.dot_general(a, sg.ops.constant(w), ((1,), (0,)))  # (4, 5)
        a = SO.sort(C.cumulative(a, "sum", 1), 0)
        return R.reduce(a, "max", (1,)), R.reduce(S.transpose(a, (1, 0)), "prod", (0,))

    def jax_fn(a):
        a = lax.pad(a, zero, [(1, -1, 1), (0, 2, 0)])
        a = _rows_jax(a[:, 1:4], idx) @ w
        a = lax.sort(lax.cumsum(a, 1), dimension=0)
        return jnp.max(a, 1), jnp.prod(a.T, 0)

    g = sg.Graph()
    with g:
        xp, tp = sg.placeholder(x.shape, sg.float64), sg.placeholder(t.shape, sg.float64)
        out, tangents = sg.jvp(sg_fn, (xp,), (tp,))
    got_out, got_t = sg.Session(g).run((out, tangents), {xp: x, tp: t})
    want_out, want_t = jax.jit(lambda a, b: jax.jvp(jax_fn, (a,), (b,)))(x, t)
    for a, b in zip(got_out + got_t, tuple(want_out) + tuple(want_t)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)
