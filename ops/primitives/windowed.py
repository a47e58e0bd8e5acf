"""Windowed reductions (ops layer): the reduce_window primitive (sum, max or min over sliding
windows) and select_and_scatter_add, the scatter that carries a windowed max or min's cotangent
back to the element each window selected; ``window_reduce`` is the helper pooling layers call.

A window is described per dim as in StableHLO: ``window_dimensions`` (its extent),
``window_strides``, explicit ``padding`` pairs (lo, hi), ``base_dilation`` (holes inserted between
the operand's elements) and ``window_dilation`` (holes between the window's taps). Padding and
holes hold the reduction's init value.
"""

from __future__ import annotations

import itertools
from typing import Literal

import numpy as np

from ...graph import Attrs, GraphError, OpDef, TensorType, dims, located, user_location
from . import ad_util as ad
from . import batching, constants, hlo, prims
from .batching import inserted
from .reduce import identity
from .registry import bind, lookup

WINDOW_KINDS = ("sum", "max", "min")
_ops = hlo.builders(hlo.sh)  # looked up when first lowered
_COMBINE = {"sum": _ops.add, "max": _ops.maximum, "min": _ops.minimum}


class WindowAttrs(Attrs):
    window_dimensions: tuple[int, ...]
    window_strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]


class ReduceWindowAttrs(WindowAttrs):
    kind: Literal["sum", "max", "min"]
    base_dilation: tuple[int, ...]
    window_dilation: tuple[int, ...]
    init: float | None = None  # None: the kind's identity (0, -inf, +inf or the integer extremes)


def _dilate(d, k: int):
    """The size of ``d`` elements with ``k - 1`` holes between neighbours."""
    if k == 1:
        return d
    return 0 if d == 0 else dims.add(dims.mul(dims.sub(d, 1), k), 1)


def _window_shape(name: str, x: TensorType, attrs, base=None, wdil=None) -> tuple:
    """The output shape of windows over ``x``, checking the window attributes against it."""
    n = x.ndim
    base, wdil = base or (1,) * n, wdil or (1,) * n
    fields = {"window_dimensions": attrs.window_dimensions, "window_strides": attrs.window_strides,
              "padding": attrs.padding, "base_dilation": base, "window_dilation": wdil}  # fmt: skip
    for field, values in fields.items():
        if len(values) != n:
            raise GraphError(f"{name} wants one entry of {field} per dim of {x}, got {tuple(values)}")
    for field in ("window_dimensions", "window_strides", "base_dilation", "window_dilation"):
        if any(v < 1 for v in fields[field]):
            raise GraphError(f"{name} wants {field} >= 1, got {tuple(fields[field])} for {x}")
    out = []
    for i, (d, w, s, (lo, hi), b, r) in enumerate(zip(x.shape, *fields.values())):
        padded = dims.add(dims.add(lo, hi), _dilate(d, b))
        room = dims.sub(padded, _dilate(w, r))
        if isinstance(room, int) and room < 0:
            raise GraphError(
                f"{name} wants each (padded, dilated) dim to hold a window, got a window of {_dilate(w, r)} "
                f"in dim {i} of size {padded} (padding {(lo, hi)}, base dilation {b}) for {x}"
            )
        out.append(dims.add(dims.floordiv(room, s), 1))
    return tuple(out)


def _padding_attr(padding) -> hlo.ir.Attribute:
    return hlo.ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2))


def _init_value(attrs: ReduceWindowAttrs, dt):
    return identity(attrs.kind, dt) if attrs.init is None else np.asarray(attrs.init, dt.np)


# -- reduce_window ---------------------------------------------------------------
def _reduce_window_infer(attrs: ReduceWindowAttrs, x: TensorType) -> TensorType:
    name = f"reduce_window_{attrs.kind}"
    if attrs.kind == "sum" and x.dtype.kind == "b":
        raise GraphError(f"{name} wants a numeric dtype, got {x}")
    if attrs.kind != "sum" and x.dtype.is_complex:
        raise GraphError(f"{name} is not defined for complex operands, got {x}")
    return TensorType(_window_shape(name, x, attrs, attrs.base_dilation, attrs.window_dilation), x.dtype)


def _reduce_window_lower(ctx, attrs: ReduceWindowAttrs, x):
    dt = ctx.in_types[0].dtype
    op = hlo.sh.ReduceWindowOp(
        [hlo.tensor_type(ctx.out_types[0])], [x], [hlo.constant(_init_value(attrs, dt), dt)],
        hlo.dense_i64(attrs.window_dimensions), window_strides=hlo.dense_i64(attrs.window_strides),
        base_dilations=hlo.dense_i64(attrs.base_dilation),
        window_dilations=hlo.dense_i64(attrs.window_dilation), padding=_padding_attr(attrs.padding),
    )  # fmt: skip
    hlo.reduce_region(op.body, dt, _COMBINE[attrs.kind])
    return op.result


def _reduce_window_vjp(ctx, attrs: ReduceWindowAttrs, xs, ys, cts):
    x, ct = xs[0], cts[0]
    if attrs.kind == "sum":
        return [_window_sum_transpose(attrs, x, ct)]
    if attrs.init is not None:
        # Where the init value beat every element of the window, no element gets the cotangent.
        free = bind(reduce_window_op, x, attrs=attrs.model_copy(update={"init": None}))
        beaten = prims.compare(free, ad.full_like(free, attrs.init), "LT" if attrs.kind == "max" else "GT")
        ct = ad.where_zero(beaten, ct)
    if any(r != 1 for r in attrs.window_dilation):
        return [_scatter_to_selected(attrs, x, ct)]
    operand, base = x, attrs.base_dilation
    if any(b != 1 for b in base):  # select_and_scatter knows no dilation: spell the holes out
        fill = constants.constant(identity(attrs.kind, x.dtype))
        operand = prims.pad(x, fill, (0,) * x.ndim, (0,) * x.ndim, [b - 1 for b in base])
    window = dict(window_dimensions=attrs.window_dimensions, window_strides=attrs.window_strides,
                  padding=attrs.padding)  # fmt: skip
    out = bind(select_and_scatter_add_op, ct, operand, kind=attrs.kind, **window)
    if any(b != 1 for b in base):
        out = bind(lookup("slice"), out, start_indices=(0,) * x.ndim, limit_shape=out.shape, strides=base)
    return [out]


def _window_sum_transpose(attrs: ReduceWindowAttrs, x, ct):
    """Every element of x gets the sum of the cotangents of the windows that hold it: the
    cotangent spread out by the strides, padded so each window lands on its elements, and
    summed over the same window moved by the base dilation (as JAX does it)."""
    lo, hi = [], []
    for d, w, s, (p_lo, _), b, r, m in zip(
        x.shape, attrs.window_dimensions, attrs.window_strides, attrs.padding, attrs.base_dilation,
        attrs.window_dilation, ct.shape,
    ):  # fmt: skip
        before = dims.sub(dims.sub(_dilate(w, r), p_lo), 1)
        lo.append(before)
        hi.append(
            dims.sub(dims.sub(dims.add(_dilate(d, b), _dilate(w, r)), 1), dims.add(_dilate(m, s), before))
        )
    spread = prims.pad(ct, constants.constant(0, ct.dtype), lo, hi, [s - 1 for s in attrs.window_strides])
    return window_reduce(
        spread, "sum", attrs.window_dimensions, attrs.base_dilation, "VALID", None, attrs.window_dilation
    )


def _scatter_to_selected(attrs: ReduceWindowAttrs, x, ct):
    """The max/min cotangent for any window (dilated ones too, which select_and_scatter cannot
    hold): window by window over the taps, each window's cotangent goes to the first tap that
    holds its extremum, then every tap's share is put back where it was read from."""
    fill = constants.constant(identity(attrs.kind, x.dtype))
    low, high = [lo for lo, _ in attrs.padding], [hi for _, hi in attrs.padding]
    interior = [b - 1 for b in attrs.base_dilation]
    padded = prims.pad(x, fill, low, high, interior)
    taps = _taps(padded, attrs.window_dimensions, attrs.window_strides, attrs.window_dilation, ct.shape)
    chosen = _first_extremum(attrs.kind, [view for _, view in taps])
    zero = constants.constant(0, ct.dtype)
    total = None
    for (start, _), pick in zip(taps, chosen):
        high_k = [dims.sub(p, dims.add(s0, _dilate(m, st))) for p, s0, m, st in
                  zip(padded.shape, start, ct.shape, attrs.window_strides)]  # fmt: skip
        mine = prims.select(pick, ct, ad.zeros_like(ct))
        share = prims.pad(mine, zero, start, high_k, [st - 1 for st in attrs.window_strides])
        total = share if total is None else ad.add(total, share)
    back = prims.pad(total, zero, [-n for n in low], [-n for n in high])
    if any(n for n in interior):
        back = bind(lookup("slice"), back, start_indices=(0,) * x.ndim, limit_shape=back.shape,
                    strides=attrs.base_dilation)  # fmt: skip
    return back


def _taps(padded, window, strides, wdil, out_shape) -> list:
    """For each tap of the window (in row-major order), its start in ``padded`` and the strided
    view of the element every window reads there (shape ``out_shape``)."""
    views = []
    for k in itertools.product(*(range(w) for w in window)):
        start = tuple(i * r for i, r in zip(k, wdil))
        limit = tuple(dims.add(s0, _dilate(m, st)) for s0, m, st in zip(start, out_shape, strides))
        view = bind(lookup("slice"), padded, start_indices=start, limit_shape=limit, strides=tuple(strides))
        views.append((start, view))
    return views


def _first_extremum(kind: str, views) -> list:
    """One bool mask per view: true where that view holds the window's first extremum."""
    direction = "GT" if kind == "max" else "LT"
    best, best_at = views[0], ad.full_like(views[0], 0, "int32")
    for k, view in enumerate(views[1:], 1):
        better = prims.compare(view, best, direction)
        best, best_at = (
            prims.select(better, view, best),
            prims.select(better, ad.full_like(best_at, k), best_at),
        )
    return [prims.compare(best_at, ad.full_like(best_at, k), "EQ") for k in range(len(views))]


def _reduce_window_batch(ctx, attrs: ReduceWindowAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    return [bind(reduce_window_op, x, attrs=_with_unit_window(attrs, b))], [b]


def _with_unit_window(attrs, at: int):
    """``attrs`` with a window of extent 1, stride 1, no padding or dilation in a new dim ``at``."""
    update = {
        "window_dimensions": inserted(attrs.window_dimensions, at, 1),
        "window_strides": inserted(attrs.window_strides, at, 1),
        "padding": inserted(attrs.padding, at, (0, 0)),
    }
    for field in ("base_dilation", "window_dilation"):
        if hasattr(attrs, field):
            update[field] = inserted(getattr(attrs, field), at, 1)
    return attrs.model_copy(update=update)


def _reduce_window_jvp(ctx, attrs: ReduceWindowAttrs, xs, ys, tangents):
    # a windowed sum is affine: the tangent is the windowed sum of tangents, starting from 0
    if attrs.kind == "sum":
        return ctx.linear(attrs.model_copy(update={"init": None}), xs, ys, tangents)
    return ctx.transposed_vjp(attrs, xs, ys, tangents)


reduce_window_op = OpDef(
    "reduce_window",
    _reduce_window_infer,
    _reduce_window_lower,
    attrs=ReduceWindowAttrs,
    vjp=_reduce_window_vjp,
    jvp=_reduce_window_jvp,
    batch=_reduce_window_batch,
    doc="Sum, max or min over sliding (strided, padded, dilated) windows; stablehlo.reduce_window.",
)


# -- select_and_scatter_add ------------------------------------------------------
class SelectAndScatterAttrs(WindowAttrs):
    kind: Literal["max", "min"]


def _select_and_scatter_add_infer(attrs: SelectAndScatterAttrs, source: TensorType, x: TensorType):
    name = f"select_and_scatter_add ({attrs.kind})"
    if x.dtype.is_complex or x.dtype.kind == "b" or source.dtype is not x.dtype:
        raise GraphError(f"{name} wants a real source and operand of one dtype, got {source} and {x}")
    windows = _window_shape(name, x, attrs)
    if tuple(windows) != tuple(source.shape):
        raise GraphError(f"{name} wants a source of one element per window, shape {windows}, got {source}")
    return x


def _select_and_scatter_add_lower(ctx, attrs: SelectAndScatterAttrs, source, x):
    dt = ctx.in_types[1].dtype
    op = hlo.sh.SelectAndScatterOp(
        hlo.tensor_type(ctx.out_types[0]), x, source, hlo.constant(np.zeros((), dt.np), dt),
        window_dimensions=hlo.dense_i64(attrs.window_dimensions),
        window_strides=hlo.dense_i64(attrs.window_strides), padding=_padding_attr(attrs.padding),
    )  # fmt: skip
    # the window keeps its current pick while it is >= (<=) the next element: the first extremum wins
    direction = "GE" if attrs.kind == "max" else "LE"
    st = hlo.scalar_type(dt)
    hlo.build_region(op.select, [st, st], lambda a, b: hlo.compare(a, b, direction, dt))
    hlo.reduce_region(op.scatter, dt, hlo.sh.add)
    return op.result


def _select_and_scatter_add_vjp(ctx, attrs: SelectAndScatterAttrs, xs, ys, cts):
    # linear in the source: each window reads back the cotangent at the element it selected;
    # the operand only decides where, which moves nothing under small changes: no cotangent
    source, x = xs
    fill = constants.constant(identity(attrs.kind, x.dtype))
    low, high = [lo for lo, _ in attrs.padding], [hi for _, hi in attrs.padding]
    padded_x = prims.pad(x, fill, low, high)
    padded_ct = prims.pad(cts[0], constants.constant(0, x.dtype), low, high)
    ones = (1,) * x.ndim
    x_taps = _taps(padded_x, attrs.window_dimensions, attrs.window_strides, ones, source.shape)
    ct_taps = _taps(padded_ct, attrs.window_dimensions, attrs.window_strides, ones, source.shape)
    direction = "GT" if attrs.kind == "max" else "LT"
    best, picked = x_taps[0][1], ct_taps[0][1]
    for (_, view), (_, ct_view) in zip(x_taps[1:], ct_taps[1:]):
        better = prims.compare(view, best, direction)
        best, picked = prims.select(better, view, best), prims.select(better, ct_view, picked)
    return [picked, None]


def _select_and_scatter_add_batch(ctx, attrs: SelectAndScatterAttrs, xs, bdims):
    moved = [batching.batched_at(t, b, ctx.size, 0) for t, b in zip(xs, bdims)]
    return [bind(select_and_scatter_add_op, *moved, attrs=_with_unit_window(attrs, 0))], [0]


select_and_scatter_add_op = OpDef(
    "select_and_scatter_add",
    _select_and_scatter_add_infer,
    _select_and_scatter_add_lower,
    attrs=SelectAndScatterAttrs,
    vjp=_select_and_scatter_add_vjp,
    batch=_select_and_scatter_add_batch,
    doc="Add each window's source value at the first max (min) of the operand in that window (the "
    "cotangent of a windowed max or min); stablehlo.select_and_scatter.",
)


# -- builders --------------------------------------------------------------------
def padding_pairs(padding, in_shape, window_dimensions, window_strides) -> tuple:
    """Explicit (lo, hi) pairs from "VALID", "SAME", "SAME_LOWER" or pairs, as lax computes them:
    SAME gives ceil(size / stride) windows, the odd extra element of padding on the high side."""
    if not isinstance(padding, str):
        return tuple((int(lo), int(hi)) for lo, hi in padding)
    kind = padding.upper()
    if kind == "VALID":
        return ((0, 0),) * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise _error(f"padding wants 'SAME', 'SAME_LOWER', 'VALID' or (lo, hi) pairs, got {padding!r}")
    pairs = []
    for d, w, s in zip(in_shape, window_dimensions, window_strides):
        if dims.is_symbolic(d):
            raise _error(f"padding {padding!r} wants static dims, got {tuple(in_shape)}: pass (lo, hi) pairs")
        total = max(0, (-(-d // s) - 1) * s + w - d)
        small, big = total // 2, total - total // 2
        pairs.append((big, small) if kind == "SAME_LOWER" else (small, big))
    return tuple(pairs)


def _error(message: str) -> GraphError:
    """A build-time error at the user's line (for checks made before any node is built)."""
    return GraphError(located(message, user_location()))


def window_reduce(
    x, kind: str, window_dimensions, window_strides=None, padding="VALID", base_dilation=None,
    window_dilation=None, init=None,
):  # fmt: skip
    """Reduce ``x`` over sliding windows with ``kind`` ("sum", "max" or "min").

    ``window_dimensions``, ``window_strides`` (default 1), ``base_dilation`` and
    ``window_dilation`` (default 1) have one entry per dim of x; ``padding`` is "VALID",
    "SAME", "SAME_LOWER" (as jax.lax.padtype_to_pads computes them from the dilated window)
    or (lo, hi) pairs. Padding and holes hold ``init`` (default the kind's identity), and
    every output is also combined with ``init``. Lowers to ``stablehlo.reduce_window``.

    Example: a 2x2 max pool with stride 2 of an NHWC tensor is
    ``window_reduce(x, "max", (1, 2, 2, 1), (1, 2, 2, 1))``.
    """
    n = x.ndim
    window = tuple(int(w) for w in window_dimensions)
    strides = tuple(int(s) for s in window_strides) if window_strides is not None else (1,) * n
    base = tuple(int(b) for b in base_dilation) if base_dilation is not None else (1,) * n
    wdil = tuple(int(r) for r in window_dilation) if window_dilation is not None else (1,) * n
    if kind not in WINDOW_KINDS:
        raise _error(f"window_reduce wants kind in {WINDOW_KINDS}, got {kind!r}")
    if len(window) != n:
        raise _error(f"window_reduce wants one window dimension per dim of {x.type}, got {window}")
    pairs = padding_pairs(padding, x.shape, [_dilate(w, r) for w, r in zip(window, wdil)], strides)
    return bind(
        reduce_window_op, x, kind=kind, window_dimensions=window, window_strides=strides, padding=pairs,
        base_dilation=base, window_dilation=wdil, init=None if init is None else float(init),
        name=f"reduce_window_{kind}",
    )  # fmt: skip


def select_and_scatter_add(source, operand, kind: str, window_dimensions, window_strides, padding):
    """Zeros shaped like ``operand`` plus, for each window, its ``source`` value added at the
    window's first maximum (kind "max") or minimum ("min") of ``operand``: the cotangent of a
    windowed max or min. ``padding`` is (lo, hi) pairs. Lowers to ``stablehlo.select_and_scatter``."""
    return bind(
        select_and_scatter_add_op, source, operand, kind=kind,
        window_dimensions=tuple(int(w) for w in window_dimensions),
        window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
    )  # fmt: skip


__all__ = ["WINDOW_KINDS", "padding_pairs", "reduce_window_op", "select_and_scatter_add",
           "select_and_scatter_add_op", "window_reduce"]  # fmt: skip
