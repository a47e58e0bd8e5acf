"""Dynamic slicing primitives: dynamic_slice, dynamic_update_slice (ops layer).

They take their start indices as scalar integer tensors, which StableHLO
clamps so the window stays inside the operand; window sizes are dims (ints or
expressions in the symbols of the shapes). Split from ops/slicing.py, which
re-exports both. Under vectorize, starts that differ per lane become a gather
or a scatter (ops/indexing.py) with the batch as a batching dim.
"""

from __future__ import annotations

from ...graph import LINEAR, Attrs, GraphError, OpDef, ShapeAttr, Tensor, TensorType, dims, dtypes, located
from ...graph.dims import check_shape, shape_str
from . import ad_util as ad
from . import batching, constants, hlo, prims
from .constants import constant
from .registry import bind


# -- dynamic_slice -------------------------------------------------------------
def _check_starts(op: str, x: TensorType, starts) -> None:
    if len(starts) != x.ndim:
        raise GraphError(f"{op} wants one start index per dim of {x}, got {len(starts)}")
    for s in starts:
        if s.shape != () or not s.dtype.is_integer or s.dtype is not starts[0].dtype:
            raise GraphError(
                f"{op} wants scalar start indices of one integer dtype, got {', '.join(map(str, starts))}"
            )


def _check_window(op: str, x, window, what: str) -> None:
    # A window the dims cannot compare with the operand (batch - 1 in batch, 3 in batch) is
    # checked when the Session binds the symbols (see _fits).
    for w, d in zip(window, x):
        gap = dims.difference(d, w)
        if gap is not None and gap < 0:
            raise GraphError(f"{op} wants {what} <= operand size, got {shape_str(window)} for {shape_str(x)}")


class DynamicSliceAttrs(Attrs):
    slice_shape: ShapeAttr  # the slice sizes (dims)


def _dynamic_slice_infer(attrs: DynamicSliceAttrs, x: TensorType, *starts: TensorType) -> TensorType:
    _check_starts("dynamic_slice", x, starts)
    if len(attrs.slice_shape) != x.ndim:
        raise GraphError(
            f"dynamic_slice wants one slice size per dim of {x}, got {shape_str(attrs.slice_shape)}"
        )
    _check_window("dynamic_slice", x.shape, attrs.slice_shape, "slice size")
    return TensorType(attrs.slice_shape, x.dtype)


def _fits(ctx, op: str, window, operand) -> None:
    # A static window in a symbolic dim can only be checked once the Session binds the symbol.
    if any(w > d for w, d in zip(window, operand)):
        message = f"{op} wants a window within the operand, got {window} for {operand} at run time"
        raise GraphError(located(message, ctx.node.location, ctx.node.name))


def _dynamic_slice_lower(ctx, attrs: DynamicSliceAttrs, x, *starts):
    sizes = ctx.out_types[0].shape
    _fits(ctx, "dynamic_slice", sizes, ctx.in_types[0].shape)
    return hlo.sh.dynamic_slice(x, list(starts), hlo.dense_i64(sizes))


def _dynamic_slice_vjp(ctx, attrs: DynamicSliceAttrs, xs, ys, cts):
    # Both ops clamp the same starts with the same window, so the window goes back where it was cut.
    x, *starts = xs
    return [dynamic_update_slice(ad.zeros_like(x), cts[0], starts)] + [None] * len(starts)


def _dynamic_slice_batch(ctx, attrs: DynamicSliceAttrs, xs, bdims):
    (x, *starts), (b, *start_bdims) = xs, bdims
    if all(s is None for s in start_bdims):  # one window for all lanes: it spans the batch axis
        starts.insert(b, 0)
        return [dynamic_slice(x, starts, batching.inserted(attrs.slice_shape, b, ctx.size))], [b]
    # Starts that differ per lane: a gather of one window per lane, the batch a batching dim.
    at = 0 if b is None else b
    others = [d for d in range(len(starts) + 1) if d != at]  # the window's dims around the batch axis
    batched = b is not None
    out = prims.gather(
        x, _index_vectors(starts, start_bdims, ctx.size), offset_dims=others, collapsed_slice_dims=(),
        start_index_map=others if batched else range(x.ndim), index_vector_dim=1,
        slice_sizes=batching.inserted(attrs.slice_shape, b, 1) if batched else attrs.slice_shape,
        operand_batching_dims=(b,) if batched else (), start_indices_batching_dims=(0,) if batched else (),
    )  # fmt: skip
    return [out], [at]


def _index_vectors(starts, bdims, size) -> Tensor:
    """The start indices as one (size, n) tensor: row i is lane i's index vector."""
    cols = [prims.broadcast_in_dim(s, (size, 1), () if b is None else (0,)) for s, b in zip(starts, bdims)]
    return prims.concatenate(cols, 1)


dynamic_slice_op = OpDef(
    "dynamic_slice",
    _dynamic_slice_infer,
    _dynamic_slice_lower,
    attrs=DynamicSliceAttrs,
    vjp=_dynamic_slice_vjp,
    batch=_dynamic_slice_batch,
    traits=LINEAR,
    doc="A static-size window at run-time starts (clamped into range); stablehlo.dynamic_slice.",
)


def _start_tensors(starts) -> list:
    """Start indices as scalar Tensors; Python ints take the dtype of the Tensor ones (else int32)."""
    starts = list(starts)
    dt = next((s.dtype for s in starts if isinstance(s, Tensor)), dtypes.int32)
    return [s if isinstance(s, Tensor) else constant(int(s), dt) for s in starts]


def dynamic_slice(x, start_indices, slice_sizes):
    """The window of shape ``slice_sizes`` of ``x`` starting at ``start_indices`` (scalar
    integer tensors or ints). Starts are clamped to ``[0, size - slice_size]``, as StableHLO does.

    Lowers to ``stablehlo.dynamic_slice``. ``dynamic_slice(x, (i, 0), (2, 3))``
    """
    return bind(
        dynamic_slice_op, x, *_start_tensors(start_indices), slice_shape=check_shape(tuple(slice_sizes))
    )


# -- dynamic_update_slice ------------------------------------------------------
def _dynamic_update_slice_infer(attrs, x: TensorType, update: TensorType, *starts: TensorType) -> TensorType:
    _check_starts("dynamic_update_slice", x, starts)
    if update.dtype is not x.dtype or update.ndim != x.ndim:
        raise GraphError(
            f"dynamic_update_slice wants an update of the operand's dtype and rank, got {update} for {x}"
        )
    _check_window("dynamic_update_slice", x.shape, update.shape, "update size")
    return x


def _dynamic_update_slice_lower(ctx, attrs, x, update, *starts):
    _fits(ctx, "dynamic_update_slice", ctx.in_types[1].shape, ctx.in_types[0].shape)
    return hlo.sh.dynamic_update_slice(x, update, list(starts))


def _dynamic_update_slice_vjp(ctx, attrs, xs, ys, cts):
    x, update, *starts = xs
    ct_x = dynamic_update_slice(cts[0], ad.zeros_like(update), starts)
    return [ct_x, dynamic_slice(cts[0], starts, update.shape)] + [None] * len(starts)


def _dynamic_update_slice_batch(ctx, attrs, xs, bdims):
    (x, update, *starts), (bx, bu, *start_bdims) = xs, bdims
    at = next((b for b in (bx, bu) if b is not None), 0)
    x, update = (batching.batched_at(t, b, ctx.size, at) for t, b in ((x, bx), (update, bu)))
    if all(s is None for s in start_bdims):
        starts.insert(at, 0)
        return [dynamic_update_slice(x, update, starts)], [at]
    # A scatter skips a window that does not fit where dynamic_update_slice clamps: clamp first.
    window = [d for d in range(x.ndim) if d != at]
    highest = [dims.sub(x.shape[d], update.shape[d]) for d in window]
    starts = [
        prims.clamp(constant(0, s.dtype), s, constants.dim_value(h, s.dtype)) for s, h in zip(starts, highest)
    ]
    out = prims.scatter(
        x, _index_vectors(starts, start_bdims, ctx.size), update, update_window_dims=window,
        inserted_window_dims=(), scattered_dims_to_operand_dims=window, index_vector_dim=1,
        input_batching_dims=(at,), scatter_indices_batching_dims=(0,), unique_indices=True,
    )  # fmt: skip
    return [out], [at]


dynamic_update_slice_op = OpDef(
    "dynamic_update_slice",
    _dynamic_update_slice_infer,
    _dynamic_update_slice_lower,
    vjp=_dynamic_update_slice_vjp,
    batch=_dynamic_update_slice_batch,
    traits=LINEAR,
    doc="The operand with a window overwritten by update at run-time starts (clamped); "
    "stablehlo.dynamic_update_slice.",
)


def dynamic_update_slice(x, update, start_indices):
    """``x`` with the window at ``start_indices`` replaced by ``update`` (same dtype and rank).
    Starts are clamped to ``[0, size - update_size]``, as StableHLO does.

    Lowers to ``stablehlo.dynamic_update_slice``. ``dynamic_update_slice(x, row, (i, 0))``
    """
    return bind(dynamic_update_slice_op, x, update, *_start_tensors(start_indices))
