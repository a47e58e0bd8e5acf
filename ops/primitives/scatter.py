"""The scatter primitive: update windows combined into an operand at index vectors (ops layer).

The inverse layout of gather (ops/gather.py): its vjp rules read the windows
back with gather. The checks of the dimension numbers the two share are in
ops/index_dims.py.
"""

from __future__ import annotations

from typing import Literal

from ...graph import Attrs, GraphError, OpDef, TensorType
from ...graph.dims import prod, shape_str
from . import ad_util as ad
from . import constants, hlo, index_dims, prims
from .batching import axis_at_rank, batched_at, rank_among, shift_axes
from .index_dims import check_batching, check_dims, check_index_map, exceeds, fits, index_batch, start_limits
from .registry import bind

SCATTER_KINDS = ("set", "add", "mul", "min", "max")
_ops = hlo.builders(hlo.sh)  # looked up when first lowered
_COMBINE = {
    "set": lambda old, new: new,
    "add": _ops.add,
    "mul": _ops.multiply,
    "min": _ops.minimum,
    "max": _ops.maximum,
}


class ScatterAttrs(Attrs):
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    input_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()
    scattered_dims_to_operand_dims: tuple[int, ...]
    index_vector_dim: int
    indices_are_sorted: bool = False
    unique_indices: bool = False
    kind: Literal["set", "add", "mul", "min", "max"] = "set"


def _scatter_infer(attrs: ScatterAttrs, x: TensorType, idx: TensorType, upd: TensorType) -> TensorType:
    a = attrs
    batch, n = index_batch("scatter", idx, a.index_vector_dim)
    if upd.dtype is not x.dtype:
        raise GraphError(f"scatter wants updates of the operand's dtype, got {upd} for {x}")
    if a.kind in ("min", "max") and x.dtype.is_complex:
        raise GraphError(f"scatter {a.kind} is not defined for complex operands, got {x}")
    check_dims("scatter", "update_window_dims", a.update_window_dims, upd.ndim)
    check_dims("scatter", "inserted_window_dims", a.inserted_window_dims, x.ndim)
    check_dims("scatter", "input_batching_dims", a.input_batching_dims, x.ndim)
    dropped = a.inserted_window_dims + a.input_batching_dims
    if set(a.inserted_window_dims) & set(a.input_batching_dims):
        raise GraphError(
            f"scatter wants inserted_window_dims {a.inserted_window_dims} disjoint from "
            f"input_batching_dims {a.input_batching_dims}"
        )
    window = [d for i, d in enumerate(x.shape) if i not in dropped]
    if len(window) != len(a.update_window_dims) or upd.ndim != len(window) + len(batch):
        raise GraphError(
            f"scatter wants updates with {len(window)} window dims and {len(batch)} scatter dims for "
            f"operand {x} and indices {idx}, got {upd} with update_window_dims {a.update_window_dims}"
        )
    scatter_shape = tuple(d for i, d in enumerate(upd.shape) if i not in a.update_window_dims)
    if scatter_shape != tuple(batch):
        raise GraphError(
            f"scatter wants the update scatter dims to match the index batch dims {shape_str(batch)}, "
            f"got {shape_str(scatter_shape)} from {upd}"
        )
    for i, w in zip(a.update_window_dims, window):
        u = upd.shape[i]
        if exceeds(u, w):
            raise GraphError(f"scatter wants update windows within the operand, got {upd} for {x}")
    check_batching(
        "scatter", x, a.input_batching_dims, idx, a.scatter_indices_batching_dims, a.index_vector_dim
    )
    check_index_map(
        "scatter", "scattered_dims_to_operand_dims", a.scattered_dims_to_operand_dims, n, x,
        a.input_batching_dims,
    )  # fmt: skip
    return x


def _scatter_lower(ctx, attrs: ScatterAttrs, x, idx, upd):
    x_ty, _, upd_ty = ctx.in_types
    dropped = attrs.inserted_window_dims + attrs.input_batching_dims
    window = [d for i, d in enumerate(x_ty.shape) if i not in dropped]
    fits("scatter", [upd_ty.shape[i] for i in attrs.update_window_dims], window)
    dnums = hlo.sh.ScatterDimensionNumbers.get(
        update_window_dims=list(attrs.update_window_dims),
        inserted_window_dims=list(attrs.inserted_window_dims),
        input_batching_dims=list(attrs.input_batching_dims),
        scatter_indices_batching_dims=list(attrs.scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=list(attrs.scattered_dims_to_operand_dims),
        index_vector_dim=attrs.index_vector_dim,
    )
    op = hlo.sh.ScatterOp(
        [hlo.tensor_type(ctx.out_types[0])],
        [x],
        idx,
        [upd],
        dnums,
        indices_are_sorted=attrs.indices_are_sorted,
        unique_indices=attrs.unique_indices,
    )
    hlo.reduce_region(op.update_computation, x_ty.dtype, _COMBINE[attrs.kind])
    return op.result


# Scatter's vjp: each kind gives (ct_x, ct_updates) from the gather that reads back what the
# scatter wrote. Windows that did not fit were skipped, so they get zero cotangents.
class _Inverse:
    """The scatter's windows seen from the operand: gather them back, scatter into them again."""

    def __init__(self, attrs: ScatterAttrs, x, idx, upd):
        self.attrs, self.x, self.idx, self.upd = attrs, x, idx, upd
        dropped = attrs.inserted_window_dims + attrs.input_batching_dims
        window = iter(upd.shape[d] for d in attrs.update_window_dims)
        self.sizes = tuple(1 if d in dropped else next(window) for d in range(x.ndim))

    def gather(self, t):
        a = self.attrs
        return prims.gather(
            t, self.idx, offset_dims=a.update_window_dims, collapsed_slice_dims=a.inserted_window_dims,
            operand_batching_dims=a.input_batching_dims,
            start_indices_batching_dims=a.scatter_indices_batching_dims,
            start_index_map=a.scattered_dims_to_operand_dims, index_vector_dim=a.index_vector_dim,
            slice_sizes=self.sizes, indices_are_sorted=a.indices_are_sorted,
        )  # fmt: skip

    def scatter(self, t, updates, kind: str):
        attrs = self.attrs.model_copy(update={"kind": kind})
        return bind(scatter_op, t, self.idx, updates, attrs=attrs)

    def fits(self):
        """True for the updates whose window fit (the scatter did not skip them)."""
        a, idx = self.attrs, self.idx
        limits = start_limits(self.x, idx, a.scattered_dims_to_operand_dims, self.sizes, a.index_vector_dim)
        low = prims.compare(idx, ad.zeros_like(idx), "GE")
        ok = prims.and_(low, prims.compare(idx, limits, "LE"))
        if a.index_vector_dim < idx.ndim:
            ok = prims.reduce(ok, "and", (a.index_vector_dim,))
        scatter_dims = tuple(d for d in range(self.upd.ndim) if d not in a.update_window_dims)
        return prims.broadcast_in_dim(ok, self.upd.shape, scatter_dims)

    def gather_fitting(self, t):
        return ad.select(self.fits(), self.gather(t), ad.zeros_like(self.upd))


def _scatter_add_vjp(inv: _Inverse, out, ct):
    return ct, inv.gather_fitting(ct)


def _scatter_set_vjp(inv: _Inverse, out, ct):
    # With duplicate indices one update wins, unspecified which (JAX's convention; on a GPU it
    # varies). The cotangent goes to an update whose value the output holds, the one of highest id
    # among equal values, chosen by a scatter-max, which is the same on every platform.
    upd = inv.upd
    scatter_dims = tuple(d for d in range(upd.ndim) if d not in inv.attrs.update_window_dims)
    batch = tuple(upd.shape[d] for d in scatter_dims)
    count = constants.iota("int32", (prod(batch),))
    ids = ad.add(prims.reshape(count, batch), ad.full_like(prims.reshape(count, batch), 1))
    ids = prims.broadcast_in_dim(ids, upd.shape, scatter_dims)
    held = prims.compare(inv.gather(out), upd, "EQ")
    candidates = ad.select(held, ids, ad.zeros_like(ids))
    winners = inv.gather(inv.scatter(ad.full_like(inv.x, 0, "int32"), candidates, "max"))
    won = prims.compare(winners, ids, "EQ")
    return inv.scatter(ct, ad.zeros_like(upd), "set"), ad.select(won, inv.gather(ct), ad.zeros_like(upd))


def _scatter_mul_vjp(inv: _Inverse, out, ct):
    ct_x = inv.scatter(ct, inv.upd, "mul")
    seen = inv.gather_fitting(ad.mul(ct, inv.x))
    if inv.attrs.unique_indices:
        return ct_x, seen
    # Duplicates: each update's factor is the product of the others at its position, kept exact
    # at zeros by counting zero updates (product of the nonzero ones / this one, or 0).
    upd, one, zero = inv.upd, ad.full_like(inv.upd, 1), ad.zeros_like(inv.upd)
    is_zero = prims.compare(upd, zero, "EQ")
    nonzero = ad.select(is_zero, one, upd)
    nonzero_prod = inv.gather(inv.scatter(ad.full_like(inv.x, 1), nonzero, "mul"))
    zeros = inv.gather(inv.scatter(ad.zeros_like(inv.x), ad.select(is_zero, one, zero), "add"))
    lone_zero = ad.select(prims.compare(zeros, one, "EQ"), nonzero_prod, zero)
    no_zero = ad.select(prims.compare(zeros, zero, "EQ"), ad.div(nonzero_prod, nonzero), zero)
    return ct_x, ad.mul(seen, ad.select(is_zero, lone_zero, no_zero))


def _scatter_extremum_vjp(inv: _Inverse, out, ct):
    # JAX's convention: the operand and the updates equal to the result share its cotangent equally.
    upd, x = inv.upd, inv.x
    won = prims.and_(inv.fits(), prims.compare(upd, inv.gather(out), "EQ"))
    kept = prims.compare(x, out, "EQ")
    ones = inv.scatter(ad.zeros_like(x), ad.select(won, ad.full_like(upd, 1), ad.zeros_like(upd)), "add")
    share = ad.div(ct, ad.add(ones, ad.select(kept, ad.full_like(x, 1), ad.zeros_like(x))))
    return ad.select(kept, share, ad.zeros_like(x)), ad.select(won, inv.gather(share), ad.zeros_like(upd))


_SCATTER_VJP = {
    "add": _scatter_add_vjp,
    "set": _scatter_set_vjp,
    "mul": _scatter_mul_vjp,
    "min": _scatter_extremum_vjp,
    "max": _scatter_extremum_vjp,
}


def _scatter_vjp(ctx, attrs: ScatterAttrs, xs, ys, cts):
    x, idx, upd = xs
    ct_x, ct_upd = _SCATTER_VJP[attrs.kind](_Inverse(attrs, x, idx, upd), ys[0], cts[0])
    return [ct_x, None, ct_upd]


def _as_window(a: ScatterAttrs, x, upd, bx, bu, size):
    """Operand and updates with the batch axis as one more window dim: an unbatched one broadcast,
    the updates' batch axis moved only if it is not at the operand's rank among window dims."""
    dropped = a.inserted_window_dims + a.input_batching_dims
    window = [d for d in range(x.ndim - (bx is not None)) if d not in dropped]
    if bx is None:
        bx = axis_at_rank(window, rank_among(a.update_window_dims, bu))
        return batched_at(x, None, size, bx), upd, bx, bu
    rank = rank_among(window, bx)
    if bu is None or rank_among(a.update_window_dims, bu) != rank:
        to = axis_at_rank(a.update_window_dims, rank)
        return x, batched_at(upd, bu, size, to), bx, to
    return x, upd, bx, bu


def _as_batching(a: ScatterAttrs, x, idx, upd, bdims, size):
    """Operand, indices and updates with the batch axis as a batching dim of the first two and a
    scatter dim of the updates at the indices' rank among their batch dims: unbatched ones
    broadcast, the indices' batch axis moved only if it is not at the updates' rank."""
    bx, bi, bu = bdims
    if bx is None:
        x, bx = batched_at(x, None, size, 0), 0
    idx_batch = index_dims.index_batch_dims(idx.ndim - 1, a.index_vector_dim)
    upd_scatter = [d for d in range(upd.ndim - (bu is not None)) if d not in a.update_window_dims]
    if bu is None:
        bu = axis_at_rank(upd_scatter, rank_among(idx_batch, bi))
        upd = batched_at(upd, None, size, bu)
    elif rank_among(upd_scatter, bu) != rank_among(idx_batch, bi):
        to = axis_at_rank(idx_batch, rank_among(upd_scatter, bu))
        idx, bi = batched_at(idx, bi, size, to), to
    return x, idx, upd, (bx, bi, bu)


def _scatter_batch(ctx, attrs: ScatterAttrs, xs, bdims):
    # Indices unbatched: the batch axis is one more window dim, cut whole. Indices batched: a
    # batching dim pairing operand and indices, and one more scatter dim of the updates.
    (x, idx, upd), (bx, bi, bu), a = xs, bdims, attrs
    if bi is None:
        x, upd, bx, bu = _as_window(a, x, upd, bx, bu, ctx.size)
        new = {
            "update_window_dims": tuple(sorted((*shift_axes(a.update_window_dims, bu), bu))),
            "input_batching_dims": shift_axes(a.input_batching_dims, bx),
        }
    else:
        x, idx, upd, (bx, bi, bu) = _as_batching(a, x, idx, upd, bdims, ctx.size)
        pairs = index_dims.paired_batching(a.input_batching_dims, a.scatter_indices_batching_dims, bx, bi)
        new = {
            "update_window_dims": shift_axes(a.update_window_dims, bu),
            "input_batching_dims": pairs[0],
            "scatter_indices_batching_dims": pairs[1],
            "index_vector_dim": shift_axes((a.index_vector_dim,), bi)[0],
            "indices_are_sorted": False,
        }
    new["inserted_window_dims"] = shift_axes(a.inserted_window_dims, bx)
    new["scattered_dims_to_operand_dims"] = shift_axes(a.scattered_dims_to_operand_dims, bx)
    return [bind(scatter_op, x, idx, upd, attrs=a.model_copy(update=new))], [bx]


scatter_op = OpDef(
    "scatter",
    _scatter_infer,
    _scatter_lower,
    attrs=ScatterAttrs,
    vjp=_scatter_vjp,
    batch=_scatter_batch,
    doc="The operand with update windows combined in (set, add, mul, min, max) at index vectors; "
    "stablehlo.scatter.",
)


def scatter(
    operand, scatter_indices, updates, *, update_window_dims, inserted_window_dims,
    scattered_dims_to_operand_dims, index_vector_dim, input_batching_dims=(),
    scatter_indices_batching_dims=(), indices_are_sorted=False, unique_indices=False, kind="set",
):  # fmt: skip
    """``operand`` with the windows of ``updates`` combined in at ``scatter_indices``, as
    ``stablehlo.scatter`` (the inverse layout of ``gather``).

    Each index vector (along ``index_vector_dim``) gives start positions in the operand dims
    ``scattered_dims_to_operand_dims``. ``update_window_dims`` are the dims of ``updates`` that
    form a window; the rest are its scatter dims, one per batch dim of the indices. Operand dims
    in ``inserted_window_dims`` take no window dim (size 1); ``input_batching_dims`` pair with
    ``scatter_indices_batching_dims``. ``kind`` picks how an update meets the old value:
    "set" (the update wins; with duplicate indices one of them, unspecified), "add", "mul",
    "min" or "max" (duplicates all combine). Windows that do not fit at their start index are
    skipped, as StableHLO does; the result has the operand's type.

    ``scatter(x, idx[:, None], v, update_window_dims=(), inserted_window_dims=(0,),
    scattered_dims_to_operand_dims=(0,), index_vector_dim=1, kind="add")`` is
    ``np.add.at(x, idx, v)`` for a vector ``x``.
    """
    return prims.scatter(
        operand, scatter_indices, updates, update_window_dims=update_window_dims,
        inserted_window_dims=inserted_window_dims, scattered_dims_to_operand_dims=scattered_dims_to_operand_dims,
        index_vector_dim=index_vector_dim, input_batching_dims=input_batching_dims,
        scatter_indices_batching_dims=scatter_indices_batching_dims, indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, kind=kind,
    )  # fmt: skip
