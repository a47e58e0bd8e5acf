"""Collective primitives inside per-device regions: psum, all_gather, ppermute, ... (ops layer).

Inside ``sg.spmd`` a body runs once per device on that device's shard; these
ops combine values across the devices along named mesh axes. Each node
records the axes it runs over and the whole mesh (``(name, size)`` pairs in
device order), so it lowers, infers and transposes without looking outside
itself; ``sg.spmd`` sets the mesh while it traces a body, and a collective
built outside one is a GraphError.

Gradients follow the per-device (pmap) convention: a cotangent is per device,
psum transposes to psum, all_gather to psum_scatter and back, ppermute to the
inverse permutation, all_to_all to the swapped all_to_all. The spmd region
itself accounts for values replicated across devices at its boundary.
Under vectorize the vmapped axis is an ordinary local axis, so every rule
moves it to the front and shifts its own axis attribute by one. Their
``vary`` rules say along which axes a result may differ between devices
(ops/replication.py): sg.spmd checks its out_specs with them.
"""

from __future__ import annotations

import contextlib
import contextvars
import math

import numpy as np

from ...graph import (
    Attrs,
    GraphError,
    OpDef,
    Tensor,
    TensorType,
    dtypes,
    flatten,
    located,
    unflatten,
    user_location,
)
from . import ad_util, hlo, prims
from .batching import moveaxis
from .constants import constant
from .registry import bind

_mesh_axes: contextvars.ContextVar[tuple | None] = contextvars.ContextVar("spmd_mesh", default=None)


@contextlib.contextmanager
def tracing_region(mesh_axes):
    """While a per-device body is traced, collectives run over ``mesh_axes`` ((name, size) pairs)."""
    token = _mesh_axes.set(tuple(mesh_axes))
    try:
        yield
    finally:
        _mesh_axes.reset(token)


class CollectiveAttrs(Attrs):
    axes: tuple[str, ...]  # the mesh axes combined, major first
    mesh: tuple[tuple[str, int], ...]  # every mesh axis with its size, in device order


class ReduceAttrs(CollectiveAttrs):
    kind: str  # "sum" | "max" | "min"


class GatherAttrs(CollectiveAttrs):
    axis: int  # where the gathered pieces are joined (tiled) or stacked
    tiled: bool = False


class ScatterAttrs(CollectiveAttrs):
    axis: int  # the dim split among the devices
    tiled: bool = False


class PermuteAttrs(CollectiveAttrs):
    perm: tuple[tuple[int, int], ...]  # (source, target) positions along the axes


class AllToAllAttrs(CollectiveAttrs):
    split_axis: int
    concat_axis: int


def group_size(attrs: CollectiveAttrs) -> int:
    sizes = dict(attrs.mesh)
    return math.prod(sizes[a] for a in attrs.axes)


def device_groups(mesh, axes) -> np.ndarray:
    """Device positions (row-major over the mesh) that combine: one row per group, ordered along ``axes``."""
    names = [n for n, _ in mesh]
    ids = np.arange(math.prod(s for _, s in mesh)).reshape([s for _, s in mesh] or [1])
    along = [names.index(a) for a in axes]
    rest = [i for i in range(len(names)) if i not in along]
    return ids.transpose(rest + along).reshape(-1, math.prod(ids.shape[i] for i in along))


def _region_attrs(axis_name) -> tuple[tuple[str, ...], tuple]:
    mesh = _mesh_axes.get()
    axes = (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)
    if mesh is None:
        raise GraphError(
            located(
                f"collective over {axes} outside sg.spmd: mesh axes exist only in a per-device region",
                user_location(),
            )  # fmt: skip
        )
    names = [n for n, _ in mesh]
    unknown = [a for a in axes if a not in names]
    if unknown or len(set(axes)) != len(axes):
        raise GraphError(
            located(f"collective over {axes}: the mesh's axes are {tuple(names)}", user_location())
        )
    return axes, mesh


def _moved(x: Tensor, bdim: int) -> Tensor:
    return moveaxis(x, bdim, 0)


def _lower_groups(attrs: CollectiveAttrs):
    return hlo.replica_groups(device_groups(attrs.mesh, attrs.axes))


def _same_along_axes(ctx, attrs: CollectiveAttrs, vary):
    """vary rule: every device of the axes gets the same result (psum, pmax, pmin, all_gather)."""
    return [vary[0] - set(attrs.axes)]


def _differs_along_axes(ctx, attrs: CollectiveAttrs, vary):
    """vary rule: each device of the axes may get a different result (ppermute, psum_scatter, all_to_all)."""
    return [vary[0] | set(attrs.axes)]


# -- all_reduce (psum, pmax, pmin) ----------------------------------------------
def _all_reduce_infer(attrs: ReduceAttrs, x: TensorType) -> TensorType:
    if attrs.kind not in ("sum", "max", "min"):
        raise GraphError(f"all_reduce kind is sum, max or min, got {attrs.kind!r}")
    if x.dtype.kind == "b" and attrs.kind == "sum":
        raise GraphError(f"psum wants a numeric operand, got {x}")
    return x


_ops = hlo.builders(hlo.sh)  # looked up when first lowered
_COMBINE = {"sum": _ops.add, "max": _ops.maximum, "min": _ops.minimum}


def _all_reduce_lower(ctx, attrs: ReduceAttrs, x):
    ty = hlo.tensor_type(ctx.out_types[0])
    op = hlo.sh.AllReduceOp(
        [ty], [x], _lower_groups(attrs), channel_handle=hlo.channel_handle(), use_global_device_ids=True
    )
    hlo.reduce_region(op.regions[0], ctx.out_types[0].dtype, _COMBINE[attrs.kind])
    return list(op.results)


def _all_reduce_vjp(ctx, attrs: ReduceAttrs, xs, ys, cts):
    (x,), (y,), (ct,) = xs, ys, cts
    total = bind(all_reduce_op, ct, **{**attrs.model_dump(), "kind": "sum"})
    if attrs.kind == "sum":
        return [total]
    return [ad_util.where_zero(prims.compare(x, y, "NE"), total)]  # every device holding the extremum


def _all_reduce_batch(ctx, attrs, xs, bdims):
    return [bind(all_reduce_op, xs[0], **attrs.model_dump())], list(bdims)


all_reduce_op = OpDef(
    "all_reduce",
    _all_reduce_infer,
    _all_reduce_lower,
    attrs=ReduceAttrs,
    vjp=_all_reduce_vjp,
    batch=_all_reduce_batch,
    vary=_same_along_axes,
    reasons={"fold": "its value depends on the other devices"},
    doc="Sum, max or min of a value across the devices of mesh axes; stablehlo.all_reduce.",
)


# -- all_gather / psum_scatter --------------------------------------------------
def _gather_infer(attrs: GatherAttrs, x: TensorType) -> TensorType:
    n = group_size(attrs)
    if attrs.tiled:
        if not 0 <= attrs.axis < max(x.ndim, 1):
            raise GraphError(f"all_gather axis {attrs.axis} out of range for {x}")
        return TensorType(tuple(d * n if i == attrs.axis else d for i, d in enumerate(x.shape)), x.dtype)
    if not 0 <= attrs.axis <= x.ndim:
        raise GraphError(f"all_gather axis {attrs.axis} out of range for {x}")
    return TensorType((*x.shape[: attrs.axis], n, *x.shape[attrs.axis :]), x.dtype)


def _gather_lower(ctx, attrs: GatherAttrs, x):
    in_ty = ctx.in_types[0]
    if not attrs.tiled:  # stack = gather along a new axis of size 1
        shape = (*in_ty.shape[: attrs.axis], 1, *in_ty.shape[attrs.axis :])
        x = hlo.sh.reshape(hlo.tensor_type(TensorType(shape, in_ty.dtype)), x)
    op = hlo.sh.AllGatherOp(
        [hlo.tensor_type(ctx.out_types[0])], [x], attrs.axis, _lower_groups(attrs),
        channel_handle=hlo.channel_handle(), use_global_device_ids=True,
    )  # fmt: skip
    return list(op.results)


def _gather_vjp(ctx, attrs: GatherAttrs, xs, ys, cts):
    fields = attrs.model_dump()
    return [bind(psum_scatter_op, cts[0], **fields)]


def _gather_batch(ctx, attrs: GatherAttrs, xs, bdims):
    fields = {**attrs.model_dump(), "axis": attrs.axis + 1}
    return [bind(all_gather_op, _moved(xs[0], bdims[0]), **fields)], [0]


all_gather_op = OpDef(
    "all_gather",
    _gather_infer,
    _gather_lower,
    attrs=GatherAttrs,
    vjp=_gather_vjp,
    batch=_gather_batch,
    traits=frozenset({"linear"}),
    vary=_same_along_axes,
    reasons={"fold": "its value depends on the other devices"},
    doc="Every device's piece, joined (tiled) or stacked along an axis; stablehlo.all_gather.",
)


def _scatter_infer(attrs: ScatterAttrs, x: TensorType) -> TensorType:
    n = group_size(attrs)
    if not 0 <= attrs.axis < x.ndim:
        raise GraphError(f"psum_scatter axis {attrs.axis} out of range for {x}")
    d = x.shape[attrs.axis]
    if isinstance(d, int) and (d % n if attrs.tiled else d != n):
        want = f"a multiple of {n}" if attrs.tiled else f"{n}"
        raise GraphError(f"psum_scatter over {attrs.axes} wants dim {attrs.axis} of {x} to be {want}")
    shape = list(x.shape)
    if attrs.tiled:
        shape[attrs.axis] = d // n
    else:
        del shape[attrs.axis]
    return TensorType(tuple(shape), x.dtype)


def _scatter_lower(ctx, attrs: ScatterAttrs, x):
    in_ty, out_ty = ctx.in_types[0], ctx.out_types[0]
    piece = list(in_ty.shape)
    piece[attrs.axis] //= group_size(attrs)
    op = hlo.sh.ReduceScatterOp(
        hlo.tensor_type(TensorType(tuple(piece), in_ty.dtype)), x, attrs.axis, _lower_groups(attrs),
        channel_handle=hlo.channel_handle(), use_global_device_ids=True,
    )  # fmt: skip
    hlo.reduce_region(op.regions[0], in_ty.dtype, hlo.sh.add)
    out = op.result
    if not attrs.tiled:
        out = hlo.sh.reshape(hlo.tensor_type(out_ty), out)
    return [out]


def _scatter_vjp(ctx, attrs: ScatterAttrs, xs, ys, cts):
    return [bind(all_gather_op, cts[0], **attrs.model_dump())]


def _scatter_batch(ctx, attrs: ScatterAttrs, xs, bdims):
    fields = {**attrs.model_dump(), "axis": attrs.axis + 1}
    return [bind(psum_scatter_op, _moved(xs[0], bdims[0]), **fields)], [0]


psum_scatter_op = OpDef(
    "psum_scatter",
    _scatter_infer,
    _scatter_lower,
    attrs=ScatterAttrs,
    vjp=_scatter_vjp,
    batch=_scatter_batch,
    traits=frozenset({"linear"}),
    vary=_differs_along_axes,
    reasons={"fold": "its value depends on the other devices"},
    doc="The sum across devices, each keeping its own slice of one axis; stablehlo.reduce_scatter.",
)


# -- ppermute ---------------------------------------------------------------------
def _permute_infer(attrs: PermuteAttrs, x: TensorType) -> TensorType:
    n = group_size(attrs)
    sources = [s for s, _ in attrs.perm]
    targets = [t for _, t in attrs.perm]
    if len(set(sources)) != len(sources) or len(set(targets)) != len(targets):
        raise GraphError(f"ppermute wants each source and each target at most once, got {attrs.perm}")
    if any(not 0 <= i < n for i in sources + targets):
        raise GraphError(f"ppermute over {attrs.axes} ({n} devices) got positions out of range: {attrs.perm}")
    return x


def _permute_lower(ctx, attrs: PermuteAttrs, x):
    pairs = [(int(g[s]), int(g[t])) for g in device_groups(attrs.mesh, attrs.axes) for s, t in attrs.perm]
    pairs_attr = hlo.ir.DenseElementsAttr.get(
        np.ascontiguousarray(pairs, np.int64).reshape(-1, 2), type=hlo.ir.IntegerType.get_signless(64)
    )
    op = hlo.sh.CollectivePermuteOp(x, pairs_attr, channel_handle=hlo.channel_handle())
    return list(op.results)


def _permute_vjp(ctx, attrs: PermuteAttrs, xs, ys, cts):
    fields = {**attrs.model_dump(), "perm": tuple((t, s) for s, t in attrs.perm)}
    return [bind(ppermute_op, cts[0], **fields)]


def _permute_batch(ctx, attrs, xs, bdims):
    return [bind(ppermute_op, xs[0], **attrs.model_dump())], list(bdims)


ppermute_op = OpDef(
    "ppermute",
    _permute_infer,
    _permute_lower,
    attrs=PermuteAttrs,
    vjp=_permute_vjp,
    batch=_permute_batch,
    traits=frozenset({"linear"}),
    vary=_differs_along_axes,
    reasons={"fold": "its value depends on the other devices"},
    doc="Sends each device's value to another along mesh axes (zeros where none arrives); "
    "stablehlo.collective_permute.",
)


# -- all_to_all -------------------------------------------------------------------
def _all_to_all_infer(attrs: AllToAllAttrs, x: TensorType) -> TensorType:
    n = group_size(attrs)
    if not (0 <= attrs.split_axis < x.ndim and 0 <= attrs.concat_axis < x.ndim):
        raise GraphError(f"all_to_all axes {attrs.split_axis}, {attrs.concat_axis} out of range for {x}")
    d = x.shape[attrs.split_axis]
    if isinstance(d, int) and d % n:
        raise GraphError(f"all_to_all over {attrs.axes} wants dim {attrs.split_axis} of {x} divisible by {n}")
    shape = list(x.shape)
    shape[attrs.split_axis] = shape[attrs.split_axis] // n
    shape[attrs.concat_axis] = shape[attrs.concat_axis] * n
    return TensorType(tuple(shape), x.dtype)


def _all_to_all_lower(ctx, attrs: AllToAllAttrs, x):
    op = hlo.sh.AllToAllOp(
        [x], attrs.split_axis, attrs.concat_axis, group_size(attrs), _lower_groups(attrs),
        channel_handle=hlo.channel_handle(), results=[hlo.tensor_type(ctx.out_types[0])],
    )  # fmt: skip
    return list(op.results)


def _all_to_all_vjp(ctx, attrs: AllToAllAttrs, xs, ys, cts):
    fields = {**attrs.model_dump(), "split_axis": attrs.concat_axis, "concat_axis": attrs.split_axis}
    return [bind(all_to_all_op, cts[0], **fields)]


def _all_to_all_batch(ctx, attrs: AllToAllAttrs, xs, bdims):
    fields = {**attrs.model_dump(), "split_axis": attrs.split_axis + 1, "concat_axis": attrs.concat_axis + 1}
    return [bind(all_to_all_op, _moved(xs[0], bdims[0]), **fields)], [0]


all_to_all_op = OpDef(
    "all_to_all",
    _all_to_all_infer,
    _all_to_all_lower,
    attrs=AllToAllAttrs,
    vjp=_all_to_all_vjp,
    batch=_all_to_all_batch,
    traits=frozenset({"linear"}),
    vary=_differs_along_axes,
    reasons={"fold": "its value depends on the other devices"},
    doc="Splits one axis among the devices and joins what arrives along another; stablehlo.all_to_all.",
)


# -- axis_index -------------------------------------------------------------------
def _axis_index_infer(attrs: CollectiveAttrs) -> TensorType:
    return TensorType((), dtypes.int32)


def _axis_index_lower(ctx, attrs: CollectiveAttrs):
    u32 = hlo.tensor_type(TensorType((), dtypes.uint32))
    pid = hlo.sh.PartitionIdOp(results=[u32]).result
    sizes = dict(attrs.mesh)
    names = [n for n, _ in attrs.mesh]
    index = None
    for a in attrs.axes:  # position along each axis: (pid // stride) % size, combined major first
        stride = math.prod(sizes[b] for b in names[names.index(a) + 1 :])
        along = hlo.sh.remainder(
            hlo.sh.divide(pid, hlo.constant(np.uint32(stride), dtypes.uint32)),
            hlo.constant(np.uint32(sizes[a]), dtypes.uint32),
        )
        index = along if index is None else hlo.sh.add(
            hlo.sh.multiply(index, hlo.constant(np.uint32(sizes[a]), dtypes.uint32)), along
        )  # fmt: skip
    return [hlo.sh.convert(hlo.tensor_type(ctx.out_types[0]), index)]


def _axis_index_vary(ctx, attrs: CollectiveAttrs, vary):
    return [frozenset(attrs.axes)]


axis_index_op = OpDef(
    "axis_index",
    _axis_index_infer,
    _axis_index_lower,
    attrs=CollectiveAttrs,
    vary=_axis_index_vary,
    traits=frozenset({"zero_derivative"}),
    reasons={
        "vjp": "it has no operands",
        "batch": "it has no operands, so vectorize copies it",
        "fold": "its value depends on the device",
    },
    doc="This device's int32 position along mesh axes; stablehlo.partition_id.",
)


# -- pvary ------------------------------------------------------------------------
def _pvary_infer(attrs: CollectiveAttrs, x: TensorType) -> TensorType:
    return x


def _pvary_lower(ctx, attrs: CollectiveAttrs, x):
    return [x]


def _pvary_vjp(ctx, attrs: CollectiveAttrs, xs, ys, cts):
    return [cts[0]]  # per-device cotangents: the region sums those of replicated inputs at its boundary


def _pvary_batch(ctx, attrs: CollectiveAttrs, xs, bdims):
    return [bind(pvary_op, xs[0], **attrs.model_dump())], list(bdims)


pvary_op = OpDef(
    "pvary",
    _pvary_infer,
    _pvary_lower,
    attrs=CollectiveAttrs,
    vjp=_pvary_vjp,
    batch=_pvary_batch,
    traits=frozenset({"linear"}),
    vary=_differs_along_axes,
    reasons={"fold": "it marks how a value is held across devices, which a constant does not say"},
    doc="Its operand unchanged, from then on allowed to differ between the devices of mesh axes "
    "(jax.lax.pcast to='varying'); lowers to nothing.",
)


# -- public builders ----------------------------------------------------------------
def _tensor(x) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray | np.generic | bool | int | float | complex):
        return constant(x)
    raise GraphError(
        located(f"collectives want Tensors, numbers or arrays (or nests of them), got {type(x).__name__}",
                user_location())
    )  # fmt: skip


def _each(x, fn, number=None):
    """``fn`` on every leaf of the nest ``x`` (jax's collectives take pytrees). With ``number``, a
    Python number leaf gives ``number(leaf)``, a Python number, as jax gives for constants."""
    leaves, tree = flatten(x)
    out = []
    for v in leaves:
        plain = isinstance(v, int | float) and not isinstance(v, bool)
        out.append(number(v) if number is not None and plain else fn(_tensor(v)))
    return unflatten(tree, out)


def _size(axes, mesh) -> int:
    return math.prod(dict(mesh)[a] for a in axes)


def psum(x, axis_name):
    """The sum of ``x`` over the devices of ``axis_name`` (a mesh axis or a tuple of them), on each.

    ``x`` may be a nest; a Python number is the same on every device, so ``psum(1, "x")`` is the
    number of devices along "x" (a Python int), as in jax.
    """
    axes, mesh = _region_attrs(axis_name)
    return _each(x, lambda v: bind(all_reduce_op, v, axes=axes, mesh=mesh, kind="sum"),
                 lambda c: c * _size(axes, mesh))  # fmt: skip


def pmax(x, axis_name):
    """The elementwise maximum of ``x`` (a Tensor or a nest) over the devices of ``axis_name``."""
    axes, mesh = _region_attrs(axis_name)
    return _each(x, lambda v: bind(all_reduce_op, v, axes=axes, mesh=mesh, kind="max"), lambda c: c)


def pmin(x, axis_name):
    """The elementwise minimum of ``x`` (a Tensor or a nest) over the devices of ``axis_name``."""
    axes, mesh = _region_attrs(axis_name)
    return _each(x, lambda v: bind(all_reduce_op, v, axes=axes, mesh=mesh, kind="min"), lambda c: c)


def pmean(x, axis_name):
    """The mean of ``x`` (a Tensor or a nest, e.g. ``(loss, grads)``) over the devices of ``axis_name``."""
    axes, mesh = _region_attrs(axis_name)
    n = _size(axes, mesh)

    def mean(v):
        total = bind(all_reduce_op, v, axes=axes, mesh=mesh, kind="sum")
        if total.dtype.kind in "fc":
            return ad_util.scale(total, 1.0 / n)
        return prims.div(total, ad_util.full_like(total, n))

    return _each(x, mean, lambda c: c * n / n)


def all_gather(x, axis_name, *, axis: int = 0, tiled: bool = False):
    """Every device's ``x`` along ``axis_name``: stacked at ``axis`` (or joined there if ``tiled``).
    ``x`` may be a nest."""
    axes, mesh = _region_attrs(axis_name)

    def gather(v):
        at = axis + (v.ndim + (not tiled)) if axis < 0 else axis
        return bind(all_gather_op, v, axes=axes, mesh=mesh, axis=at, tiled=tiled)

    return _each(x, gather)


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, tiled: bool = False):
    """psum over ``axis_name``, each device keeping its slice of ``scatter_dimension``; ``x`` may be a nest."""
    axes, mesh = _region_attrs(axis_name)

    def scatter(v):
        at = scatter_dimension % v.ndim if v.ndim else scatter_dimension
        return bind(psum_scatter_op, v, axes=axes, mesh=mesh, axis=at, tiled=tiled)

    return _each(x, scatter)


def ppermute(x, axis_name, perm):
    """Send ``x`` (a Tensor or a nest) from device position ``s`` to ``t`` along ``axis_name`` for each
    (s, t) in ``perm``."""
    axes, mesh = _region_attrs(axis_name)
    pairs = tuple((int(s), int(t)) for s, t in perm)
    return _each(x, lambda v: bind(ppermute_op, v, axes=axes, mesh=mesh, perm=pairs))


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, tiled: bool = False):
    """Split ``split_axis`` among the devices of ``axis_name`` and join the pieces at ``concat_axis``.

    Untiled (jax's default), ``split_axis`` must have one entry per device and is
    removed, and the pieces are stacked along a new ``concat_axis``. ``x`` may be a nest.
    """
    axes, mesh = _region_attrs(axis_name)
    return _each(x, lambda v: _all_to_all(v, axes, mesh, split_axis, concat_axis, tiled))


def _all_to_all(x: Tensor, axes, mesh, split_axis: int, concat_axis: int, tiled: bool) -> Tensor:
    n = _size(axes, mesh)
    if tiled:
        return bind(all_to_all_op, x, axes=axes, mesh=mesh, split_axis=split_axis % x.ndim,
                    concat_axis=concat_axis % x.ndim)  # fmt: skip
    if x.shape[split_axis] != n:
        raise GraphError(
            located(f"all_to_all over {axes} wants dim {split_axis} of {x.type} to be {n}", user_location())
        )
    split = split_axis % x.ndim
    out_rank = x.ndim  # one axis removed, one inserted
    concat = concat_axis % out_rank
    # the untiled form is the tiled one with the split axis kept at size 1 where the pieces stack
    moved = moveaxis(x, split, concat)  # the per-device entries sit where they will be stacked
    return bind(all_to_all_op, moved, axes=axes, mesh=mesh, split_axis=concat, concat_axis=concat)


def pvary(x, axis_name):
    """``x`` (a Tensor or a nest) unchanged, marked as possibly different between the devices of
    ``axis_name``: an out_spec must then name those axes (sg.spmd's replication check)."""
    axes, mesh = _region_attrs(axis_name)
    return _each(x, lambda v: bind(pvary_op, v, axes=axes, mesh=mesh))


def axis_index(axis_name) -> Tensor:
    """This device's position along ``axis_name`` (row-major over a tuple of axes), an int32 scalar."""
    axes, mesh = _region_attrs(axis_name)
    return bind(axis_index_op, axes=axes, mesh=mesh)


__all__ = [
    "psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter", "ppermute", "all_to_all", "axis_index",
    "pvary", "tracing_region", "device_groups",
]  # fmt: skip
