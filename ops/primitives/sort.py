"""Ordering primitives: sort, argmax, argmin (ops layer).

All three order elements the way numpy does: NaN sorts after every number
(and counts as the maximum in argmax, the minimum in argmin), -0.0 equals
0.0, and complex numbers order by real part, then imaginary part. StableHLO's
FLOAT comparisons leave NaN unordered, so the comparator and reduction bodies
below say where NaN goes explicitly.
"""

from __future__ import annotations

import numpy as np

from ...graph import Attrs, DTypeAttr, GraphError, OpDef, TensorType, dtypes, located
from . import batching, constants, hlo, indexing
from .registry import bind, bind_node

sh = hlo.sh


# -- scalar order helpers (used inside regions) ----------------------------------
def _part_dtype(dt: dtypes.DType) -> dtypes.DType:
    return dtypes.float32 if dt.bits == 64 else dtypes.float64


def _is_nan(v, dt: dtypes.DType):
    return hlo.compare(v, v, "NE", dt)


def _less(a, b, dt: dtypes.DType, nan_last: bool = True):
    """a strictly before b in numpy's order; NaN goes after numbers (or before them)."""
    if dt.is_complex:
        part = _part_dtype(dt)
        ra, rb = sh.real(a), sh.real(b)
        later = _less(sh.imag(a), sh.imag(b), part, nan_last)
        return sh.or_(_less(ra, rb, part, nan_last), sh.and_(_same(ra, rb, part), later))
    lt = hlo.compare(a, b, "LT", dt)
    if dt.kind != "f":
        return lt
    nan_a, nan_b = _is_nan(a, dt), _is_nan(b, dt)
    low, high = (nan_b, nan_a) if nan_last else (nan_a, nan_b)
    return sh.or_(lt, sh.and_(low, sh.not_(high)))


def _same(a, b, dt: dtypes.DType):
    """a and b tie in numpy's order (NaN ties with NaN)."""
    if dt.is_complex:
        part = _part_dtype(dt)
        return sh.and_(_same(sh.real(a), sh.real(b), part), _same(sh.imag(a), sh.imag(b), part))
    eq = hlo.compare(a, b, "EQ", dt)
    if dt.kind != "f":
        return eq
    return sh.or_(eq, sh.and_(_is_nan(a, dt), _is_nan(b, dt)))


# -- sort ----------------------------------------------------------------------
class SortAttrs(Attrs):
    dimension: int
    is_stable: bool = True
    descending: bool = False
    num_keys: int = 1


def _sort_infer(attrs: SortAttrs, *xs: TensorType):
    if not xs:
        raise GraphError("sort wants at least one operand, got none")
    shapes = ", ".join(str(x) for x in xs)
    if any(x.shape != xs[0].shape for x in xs):
        raise GraphError(f"sort wants operands of one shape, got {shapes}")
    if not 0 <= attrs.dimension < xs[0].ndim:
        raise GraphError(
            f"sort wants 0 <= dimension < {xs[0].ndim}, got dimension {attrs.dimension} for {shapes}"
        )
    if not 1 <= attrs.num_keys <= len(xs):
        raise GraphError(f"sort wants 1 <= num_keys <= {len(xs)}, got {attrs.num_keys}")
    return xs


def _sort_comparator(attrs: SortAttrs, key_types):
    def compare(*args):
        # args are (lhs0, rhs0, lhs1, rhs1, ...); keys decide lexicographically.
        out = None
        for i in reversed(range(attrs.num_keys)):
            a, b, dt = args[2 * i], args[2 * i + 1], key_types[i]
            if attrs.descending:
                a, b = b, a
            lt = _less(a, b, dt)
            out = lt if out is None else sh.or_(lt, sh.and_(_same(a, b, dt), out))
        return out

    return compare


def _sort_lower(ctx, attrs: SortAttrs, *xs):
    types = [hlo.tensor_type(t) for t in ctx.out_types]
    op = sh.SortOp(types, list(xs), dimension=attrs.dimension, is_stable=attrs.is_stable)
    dts = [t.dtype for t in ctx.in_types]
    arg_types = [hlo.scalar_type(dt) for dt in dts for _ in range(2)]
    hlo.build_region(op.comparator, arg_types, _sort_comparator(attrs, dts))
    return list(op.results)


def _sort_vjp(ctx, attrs: SortAttrs, xs, ys, cts):
    # Sorting the keys again with an iota alongside gives the permutation (JAX sorts the iota in the
    # forward pass instead); each cotangent goes back to where its element came from.
    if not attrs.is_stable and len(xs) > attrs.num_keys:
        node = ys[0].node
        raise GraphError(
            located(
                "sort vjp wants is_stable=True when there are non-key operands: an unstable sort may order "
                "tied keys differently each time, so the permutation of the other operands is unknowable",
                node.location,
                node.name,
            )
        )
    keys = list(xs[: attrs.num_keys])
    order = constants.iota("int32", keys[0].shape, attrs.dimension)
    source = bind(sort_op, *keys, order, attrs=attrs)[-1]
    return [
        None if ct is None else indexing.add_along_axis(x, source, ct, attrs.dimension, unique_indices=True)
        for x, ct in zip(xs, cts)
    ]


def _sort_batch(ctx, attrs: SortAttrs, xs, bdims):
    # The operands share one shape, so all take the first batched one's batch axis.
    at = next(b for b in bdims if b is not None)
    moved = [batching.batched_at(x, b, ctx.size, at) for x, b in zip(xs, bdims)]
    (dimension,) = batching.shift_axes((attrs.dimension,), at)
    node = bind_node(sort_op, moved, attrs.model_copy(update={"dimension": dimension}))
    return list(node.outputs), [at] * len(node.outputs)


sort_op = OpDef(
    "sort",
    _sort_infer,
    _sort_lower,
    attrs=SortAttrs,
    vjp=_sort_vjp,
    batch=_sort_batch,
    doc="Sort operands along a dimension by the first num_keys of them (NaN last); stablehlo.sort.",
)


def sort(operands, dimension: int = -1, is_stable: bool = True, descending: bool = False, num_keys: int = 1):
    """Sort one Tensor, or several of one shape by the first ``num_keys`` of them.

    Elements move along ``dimension`` so that the keys ascend (or descend)
    in numpy's order: NaN after every number, complex by (real, imag). The
    other operands are permuted the same way, so sorting ``(x, iota)`` gives
    argsort. ``descending`` is the exact reverse order, NaN first; a stable
    sort keeps ties in their original order either way.

    Args:
        operands: a Tensor or a sequence of Tensors of one shape.
        dimension: the dim to sort along (negative counts from the end).
        is_stable: keep equal keys in their original order.
        descending: largest first.
        num_keys: how many leading operands are keys, compared lexicographically.

    Returns the sorted Tensor (a tuple of them for a sequence). Lowers to
    ``stablehlo.sort`` with a comparator region.

    Example: ``values, idx = sort((x, iota(int32, x.shape, 1)), dimension=1)``
    """
    single = not isinstance(operands, list | tuple)
    xs = (operands,) if single else tuple(operands)
    ndim = xs[0].ndim if xs else 0
    dimension = dimension + ndim if dimension < 0 else dimension
    out = bind(
        sort_op, *xs, dimension=dimension, is_stable=is_stable, descending=descending, num_keys=num_keys
    )
    return out if single or isinstance(out, tuple) else (out,)


# -- argmax / argmin -----------------------------------------------------------
class ArgAttrs(Attrs):
    axis: int
    index_dtype: DTypeAttr = dtypes.int32


def _arg_infer(name: str):
    def infer(attrs: ArgAttrs, x: TensorType) -> TensorType:
        if not 0 <= attrs.axis < x.ndim:
            raise GraphError(f"{name} wants 0 <= axis < {x.ndim}, got axis {attrs.axis} for {x}")
        if x.shape[attrs.axis] == 0:
            raise GraphError(f"{name} of an empty axis {attrs.axis} of {x} has no answer")
        if attrs.index_dtype.kind not in "iu":
            raise GraphError(f"{name} wants an integer index_dtype, got {attrs.index_dtype.name}")
        return TensorType(tuple(d for i, d in enumerate(x.shape) if i != attrs.axis), attrs.index_dtype)

    return infer


def _arg_init(dt: dtypes.DType, largest: bool) -> np.ndarray:
    """The value that loses to every element (ties go to the smaller, real, index 0)."""
    if dt.kind == "b":
        return np.asarray(not largest)
    if dt.kind in "iu":
        info = np.iinfo(dt.np)
        return np.asarray(info.min if largest else info.max, dt.np)
    inf = -np.inf if largest else np.inf
    return np.asarray(complex(inf, inf) if dt.is_complex else inf, dt.np)


def _arg_lower(largest: bool):
    def lower(ctx, attrs: ArgAttrs, x):
        ty, idx_dt = ctx.in_types[0], attrs.index_dtype
        idx = sh.iota(hlo.tensor_type(ty.with_dtype(idx_dt)), attrs.axis)
        inits = [
            hlo.constant(_arg_init(ty.dtype, largest), ty.dtype),
            hlo.constant(np.zeros((), idx_dt.np), idx_dt),
        ]
        out_types = [
            hlo.tensor_type(ctx.out_types[0].with_dtype(ty.dtype)),
            hlo.tensor_type(ctx.out_types[0]),
        ]
        op = sh.ReduceOp(out_types, [x, idx], inits, hlo.dense_i64([attrs.axis]))

        def body(va, ia, vb, ib):
            # NaN beats numbers in both directions, as in numpy's argmax and argmin.
            better = _less(vb, va, ty.dtype) if largest else _less(va, vb, ty.dtype, nan_last=False)
            first = hlo.compare(ia, ib, "LT", idx_dt)
            pick = sh.or_(better, sh.and_(_same(va, vb, ty.dtype), first))
            return [sh.select(pick, va, vb), sh.select(pick, ia, ib)]

        st, it = hlo.scalar_type(ty.dtype), hlo.scalar_type(idx_dt)
        hlo.build_region(op.body, [st, it, st, it], body)
        return op.results[1]

    return lower


def _arg_batch(ctx, attrs: ArgAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    (axis,) = batching.shift_axes((attrs.axis,), b)
    return [bind(ctx.op, x, attrs=attrs.model_copy(update={"axis": axis}))], [b - (axis < b)]


argmax_op = OpDef(
    "argmax",
    _arg_infer("argmax"),
    _arg_lower(largest=True),
    attrs=ArgAttrs,
    batch=_arg_batch,
    reasons={"vjp": "integer output: no gradient"},
    doc="Index of the first maximum along an axis (NaN counts as the maximum); stablehlo.reduce.",
)

argmin_op = OpDef(
    "argmin",
    _arg_infer("argmin"),
    _arg_lower(largest=False),
    attrs=ArgAttrs,
    batch=_arg_batch,
    reasons={"vjp": "integer output: no gradient"},
    doc="Index of the first minimum along an axis (NaN counts as the minimum); stablehlo.reduce.",
)


def argmax(x, axis: int, index_dtype=dtypes.int32):
    """Index of the first largest element of ``x`` along ``axis``.

    The axis is removed from the shape. NaN counts as larger than every
    number (numpy's argmax returns the first NaN); complex values compare by
    (real, imag). Lowers to a variadic ``stablehlo.reduce`` over (values,
    iota) pairs. Example: ``argmax(scores, axis=1)`` for class predictions.
    """
    return bind(argmax_op, x, axis=axis + x.ndim if axis < 0 else axis, index_dtype=dtypes.dtype(index_dtype))


def argmin(x, axis: int, index_dtype=dtypes.int32):
    """Index of the first smallest element of ``x`` along ``axis``; NaN counts as smallest.

    Lowers to a variadic ``stablehlo.reduce`` over (values, iota) pairs.
    Example: ``argmin(distances, axis=-1)``.
    """
    return bind(argmin_op, x, axis=axis + x.ndim if axis < 0 else axis, index_dtype=dtypes.dtype(index_dtype))
