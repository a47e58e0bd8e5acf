"""sg.spmd: per-device regions over a device mesh, as jax's shard_map (ops layer, user-facing).

``sg.spmd(fn, mesh, in_specs, out_specs)(*args)`` runs ``fn`` once per device
on that device's shard of each argument (its ``in_specs`` say which dims are
split over which mesh axes) and assembles the per-device results by
``out_specs``. Inside, collectives (sg.psum, sg.all_gather, ...) combine
values across devices. The region is one ``spmd`` node holding the body as a
Function; it lowers to ``sdy.manual_computation`` over every mesh axis.

Gradients: a cotangent is per device. An output replicated over some axes
(its spec does not name them) is one value however many devices hold it, so
each copy's cotangent is divided by their number; an input replicated over
some axes was used by every device, so its per-device cotangents are summed
(psum) over them. With psum transposing to psum inside, ``grad`` through a
region equals the gradient of the same computation on one device.
Under vectorize the body is vectorized and the batch axis is a local,
unsplit dim of every spec.
"""

from __future__ import annotations

import math

from ..graph import (
    Attrs,
    FunctionAttr,
    GraphError,
    OpDef,
    Tensor,
    TensorType,
    current_graph,
    function,
    located,
    user_location,
)
from ..graph.function import inline
from ..sharding import PartitionSpec, sdy_sharding
from . import ad_util, hlo
from .collectives import all_reduce_op, tracing_region
from .control.common import out_types
from .registry import bind_node

Spec = tuple[tuple[str, ...], ...]  # per dim, the mesh axes it is split over (major first)


class SpmdAttrs(Attrs):
    body: FunctionAttr  # (operands..., its captures...) -> results, on one device's shards
    mesh: tuple[tuple[str, int], ...]  # every mesh axis with its size, in device order
    in_specs: tuple[Spec, ...]  # one per operand and capture
    out_specs: tuple[Spec, ...]


def _pieces(mesh, spec: Spec) -> list[int]:
    sizes = dict(mesh)
    return [math.prod(sizes[a] for a in axes) for axes in spec]


def local_type(mesh, spec: Spec, ty: TensorType, what: str) -> TensorType:
    """One device's shard type of a global ``ty`` split by ``spec``."""
    shape = []
    for i, (d, n) in enumerate(zip(ty.shape, _pieces(mesh, spec))):
        if isinstance(d, int) and d % n:
            raise GraphError(f"{what}: dim {i} of {ty} does not split evenly over {spec[i]} ({n} devices)")
        shape.append(d // n if n > 1 else d)
    return TensorType(tuple(shape), ty.dtype)


def global_type(mesh, spec: Spec, ty: TensorType) -> TensorType:
    return TensorType(tuple(d * n if n > 1 else d for d, n in zip(ty.shape, _pieces(mesh, spec))), ty.dtype)


def _spmd_infer(attrs: SpmdAttrs, *xs: TensorType) -> tuple[TensorType, ...]:
    if len(xs) != len(attrs.in_specs):
        raise GraphError(f"spmd wants {len(attrs.in_specs)} operands and captures, got {len(xs)}")
    local = [local_type(attrs.mesh, s, t, f"spmd operand {i}") for i, (s, t) in
             enumerate(zip(attrs.in_specs, xs))]  # fmt: skip
    outs = out_types(attrs.body, local, f"spmd body {attrs.body.name}")
    if len(outs) != len(attrs.out_specs):
        raise GraphError(f"spmd body returns {len(outs)} values but has {len(attrs.out_specs)} out_specs")
    return tuple(global_type(attrs.mesh, s, t) for s, t in zip(attrs.out_specs, outs))


class _Body:
    """The region's body as manual_computation builds it: the local types and a lowering callback."""

    def __init__(self, ctx, attrs: SpmdAttrs):
        self.ctx, self.attrs = ctx, attrs
        self.local_types = [
            hlo.tensor_type(ctx.concrete(local_type(attrs.mesh, s, t, "spmd")))
            for s, t in zip(attrs.in_specs, ctx.in_types)
        ]

    def __call__(self, *values):
        return self.ctx.lower_function(self.attrs.body, list(values))


def _spmd_lower(ctx, attrs: SpmdAttrs, *xs):
    if math.prod(s for _, s in attrs.mesh) == 1:  # one device: the body is the whole computation
        return ctx.lower_function(attrs.body, list(xs))
    here = None if ctx.mesh is None else mesh_axes(ctx.mesh)
    if here != attrs.mesh:
        want = ", ".join(f"{n}={s}" for n, s in attrs.mesh)
        has = "no mesh" if here is None else "mesh " + ", ".join(f"{n}={s}" for n, s in here)
        raise GraphError(
            located(
                f"this sg.spmd region runs over the mesh ({want}) but the Session has {has}: "
                "make the Session with that mesh, sg.Session(graph, mesh=mesh)",
                ctx.node.location,
                ctx.node.name,
            )  # fmt: skip
        )
    shardings = lambda specs: [  # noqa: E731
        hlo.ir.Attribute.parse(sdy_sharding(PartitionSpec(*(a or None for a in s)), len(s))) for s in specs
    ]
    return hlo.manual_computation(
        [hlo.tensor_type(t) for t in ctx.out_types], xs, shardings(attrs.in_specs),
        shardings(attrs.out_specs), [n for n, _ in attrs.mesh], _Body(ctx, attrs),
    )  # fmt: skip


def _replicated_axes(mesh, spec: Spec) -> tuple[str, ...]:
    used = {a for axes in spec for a in axes}
    return tuple(n for n, s in mesh if n not in used and s > 1)


def _spmd_vjp(ctx, attrs: SpmdAttrs, xs, ys, cts):
    diff = [i for i, x in enumerate(xs) if ad_util.is_differentiable(x)]
    live = [j for j, (y, c) in enumerate(zip(ys, cts)) if c is not None and ad_util.is_differentiable(y)]
    if not diff or not live:
        return [None] * len(xs)
    n_in = len(xs)
    sizes = dict(attrs.mesh)

    def bwd(*args):
        rest, out_cts = args[:n_in], args[n_in:]
        graph = current_graph()
        start = len(graph.nodes)
        n = len(attrs.body.params)
        outs = inline(attrs.body, graph, list(rest[:n]), captures=list(rest[n:]))
        seeds: dict = {}
        for j, ct in zip(live, out_cts):
            copies = math.prod(sizes[a] for a in _replicated_axes(attrs.mesh, attrs.out_specs[j]))
            ct = ad_util.scale(ct, 1.0 / copies) if copies > 1 else ct
            seeds[outs[j]] = ct if outs[j] not in seeds else ad_util.add(seeds[outs[j]], ct)
        got = ctx.backward(graph.nodes[start:], seeds, [rest[i] for i in diff])
        result = []
        for i, g in zip(diff, got):
            g = ad_util.zeros_like(rest[i]) if g is None else g
            axes = _replicated_axes(attrs.mesh, attrs.in_specs[i])
            if axes:  # every device used the whole value: their contributions add up
                g = bind_node(all_reduce_op, [g], all_reduce_op.attrs(axes=axes, mesh=attrs.mesh, kind="sum"))
                g = g.outputs[0]
            result.append(g)
        return result

    operands = list(xs) + [cts[j] for j in live]
    specs = tuple(attrs.in_specs) + tuple(attrs.out_specs[j] for j in live)
    local = [local_type(attrs.mesh, s, t.type, "spmd vjp") for s, t in zip(specs, operands)]
    fn = ctx.simplify(function(bwd, local, name=f"{attrs.body.name}_vjp"))
    out = spmd_call(fn, attrs.mesh, specs, tuple(attrs.in_specs[i] for i in diff), operands, name="spmd_vjp")
    got = dict(zip(diff, out))
    return [got.get(i) for i in range(len(xs))]


def _spmd_batch(ctx, attrs: SpmdAttrs, xs, bdims):
    n = len(attrs.body.params)
    fn, out_bdims = ctx.vectorize(attrs.body, list(bdims[:n]), list(zip(xs[n:], bdims[n:])))
    unsplit = lambda spec, b: spec if b is None else (*spec[:b], (), *spec[b:])  # noqa: E731
    in_specs = tuple(unsplit(s, b) for s, b in zip(attrs.in_specs[:n], bdims[:n]))
    out_specs = tuple(unsplit(s, b) for s, b in zip(attrs.out_specs, out_bdims))
    outs = spmd_call(fn, attrs.mesh, in_specs, out_specs, list(xs[:n]), name="spmd")
    return outs, list(out_bdims)


spmd_op = OpDef(
    "spmd",
    _spmd_infer,
    _spmd_lower,
    attrs=SpmdAttrs,
    vjp=_spmd_vjp,
    batch=_spmd_batch,
    reasons={"fold": "it runs on many devices"},
    doc="A per-device region over a device mesh; sdy.manual_computation.",
)


def spmd_call(fn, mesh, in_specs, out_specs, operands, name: str | None = None) -> list[Tensor]:
    """Bind spmd_op: ``fn`` per device on ``operands`` (its captures appended, replicated)."""
    caps = list(fn.captures)
    specs = tuple(in_specs) + tuple(tuple(() for _ in c.type.shape) for c in caps)
    attrs = SpmdAttrs(body=fn, mesh=tuple(mesh), in_specs=specs, out_specs=tuple(out_specs))
    return list(bind_node(spmd_op, [*operands, *caps], attrs, name=name).outputs)


# -- the public builder ---------------------------------------------------------------
def mesh_axes(mesh) -> tuple[tuple[str, int], ...]:
    """``(name, size)`` for each axis of a Mesh, in device order."""
    names = tuple(mesh.axis_names)
    shape = mesh.shape
    sizes = [shape[n] for n in names] if isinstance(shape, dict) else list(shape)
    return tuple((str(n), int(s)) for n, s in zip(names, sizes))


def _spec(spec, rank: int, mesh, what: str) -> Spec:
    entries = tuple(spec) if spec is not None else ()
    if len(entries) > rank:
        raise GraphError(
            located(f"{what}: spec {spec} has {len(entries)} entries for rank {rank}", user_location())
        )
    names = [n for n, _ in mesh]
    out = []
    for e in (*entries, *(None,) * (rank - len(entries))):
        axes = () if e is None else (e,) if isinstance(e, str) else tuple(e)
        unknown = [a for a in axes if a not in names]
        if unknown:
            raise GraphError(located(f"{what}: spec {spec} names {unknown}, not axes of the mesh {tuple(names)}",
                                     user_location()))  # fmt: skip
        out.append(axes)
    used = [a for axes in out for a in axes]
    if len(set(used)) != len(used):
        raise GraphError(located(f"{what}: spec {spec} uses a mesh axis twice", user_location()))
    return tuple(out)


def _is_spec(x) -> bool:
    return x is None or type(x).__name__ == "PartitionSpec"


def _per_value(specs, n: int, what: str) -> list:
    if _is_spec(specs):
        return [specs] * n
    specs = list(specs)
    if len(specs) != n:
        raise GraphError(located(f"spmd: {len(specs)} {what} for {n} values", user_location()))
    return specs


def spmd(fn, mesh, in_specs, out_specs):
    """``fn`` run once per device of ``mesh`` on its shards (jax's shard_map).

    ``in_specs``: a PartitionSpec for every argument, or one per argument; a dim
    named by a spec is split over those mesh axes, the rest is replicated.
    ``out_specs`` likewise for the results: a result replicated over an axis
    must be equal on those devices (e.g. after a psum).

        total = sg.spmd(lambda a: sg.psum(a.sum(), "data"), mesh, in_specs=P("data"), out_specs=P())(x)
    """
    axes = mesh_axes(mesh)

    def region(*args):
        for i, a in enumerate(args):
            if not isinstance(a, Tensor):
                raise GraphError(located(f"spmd wants Tensor arguments, got {type(a).__name__} at {i}",
                                         user_location()))  # fmt: skip
        specs = [_spec(s, a.ndim, axes, f"spmd in_specs[{i}]") for i, (s, a) in
                 enumerate(zip(_per_value(in_specs, len(args), "in_specs"), args))]  # fmt: skip
        local = [
            local_type(axes, s, a.type, f"spmd argument {i}") for i, (s, a) in enumerate(zip(specs, args))
        ]
        single = []

        def traced(*params):
            out = fn(*params)
            single.append(isinstance(out, Tensor))
            return (out,) if isinstance(out, Tensor) else tuple(out)

        with tracing_region(axes):
            body = function(traced, local, name=getattr(fn, "__name__", "fn").replace("<lambda>", "lambda"))
        outs = body.out_types
        o_specs = [_spec(s, t.ndim, axes, f"spmd out_specs[{j}]") for j, (s, t) in
                   enumerate(zip(_per_value(out_specs, len(outs), "out_specs"), outs))]  # fmt: skip
        results = spmd_call(body, axes, specs, o_specs, list(args), name="spmd")
        return results[0] if single[0] else tuple(results)

    return region


__all__ = ["spmd", "spmd_call", "mesh_axes", "local_type"]
