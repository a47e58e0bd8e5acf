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
unsplit dim of every spec. Arguments and results are nests, their specs
prefixes of them; an output whose spec leaves out a mesh axis it varies
along is an error at the user's line (ops/spmd_specs.py).
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
    dims,
    function,
    located,
    poly,
    unflatten,
    user_location,
)
from ..graph.function import inline
from ..graph.tree import leaf_paths
from ..sharding import PartitionSpec, sdy_sharding
from .nests import tensor_leaves
from .primitives import ad_util, hlo
from .primitives.collectives import all_reduce_op, tracing_region
from .primitives.control.common import out_types
from .primitives.registry import bind_node
from .spmd_specs import Spec, check_replicated, error, normalize, result_path, specs_for


class SpmdAttrs(Attrs):
    body: FunctionAttr  # (operands..., its captures...) -> results, on one device's shards
    mesh: tuple[tuple[str, int], ...]  # every mesh axis with its size, in device order
    in_specs: tuple[Spec, ...]  # one per operand and capture
    out_specs: tuple[Spec, ...]


def _pieces(mesh, spec: Spec) -> list[int]:
    sizes = dict(mesh)
    return [math.prod(sizes[a] for a in axes) for axes in spec]


def local_type(mesh, spec: Spec, ty: TensorType, what: str, where=None) -> TensorType:
    """One device's shard type of a global ``ty`` split by ``spec`` (errors located at ``where``)."""
    shape = []
    for i, (d, n) in enumerate(zip(ty.shape, _pieces(mesh, spec))):
        if isinstance(d, int) and d % n:
            raise GraphError(
                located(f"{what}: dim {i} of {ty} does not split evenly over {spec[i]} ({n} devices)", where)
            )
        shape.append(d // n if n > 1 else d)
    return TensorType(tuple(shape), ty.dtype)


def global_type(mesh, spec: Spec, ty: TensorType) -> TensorType:
    return TensorType(tuple(_whole(d, n) for d, n in zip(ty.shape, _pieces(mesh, spec))), ty.dtype)


def _whole(d, n: int):
    """The size of ``n`` shards of size ``d``: ``X`` itself when ``d`` is ``X // n``, a symbolic dim's
    shard (which the region assumes splits evenly), so that results keep their inputs' dims."""
    if n == 1:
        return d
    terms = dims.poly_of(d)
    if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
        atom = terms[0][0][0]
        if isinstance(atom, poly.Div) and atom.kind == "//" and atom.k == n:
            return dims.from_poly(atom.operand)
    return d * n


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
            hlo.tensor_type(
                ctx.concrete(local_type(attrs.mesh, s, t, f"spmd operand {i}", ctx.node.location))
            )
            for i, (s, t) in enumerate(zip(attrs.in_specs, ctx.in_types))
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


def spmd(fn=None, mesh=None, in_specs=None, out_specs=None, *, check_vma: bool = True, check_rep=None):
    """``fn`` run once per device of ``mesh`` on its shards (jax's shard_map).

    ``in_specs``: PartitionSpecs for the arguments, as a prefix of their nest
    (one spec for every leaf, one per argument, a dict of specs for a dict
    argument; None: replicated); a dim a spec names is split over those mesh
    axes, the rest is replicated. ``out_specs`` likewise for the results; a
    result whose spec leaves out a mesh axis must be the same on every device
    along it (e.g. after a psum): the body is checked for that (a GraphError
    naming the result and the axes it varies along) unless
    ``check_vma=False`` (jax's older ``check_rep`` also works), in which case
    one device's copy is returned. Called without ``fn``, it is a decorator.

        total = sg.spmd(lambda a: sg.psum(a.sum(), "data"), mesh, in_specs=P("data"), out_specs=P())(x)
    """
    if fn is None:
        return lambda f: spmd(f, mesh, in_specs, out_specs, check_vma=check_vma, check_rep=check_rep)
    if not callable(fn):
        raise error(f"spmd wants a function to run per device, got {type(fn).__name__}")
    if not hasattr(mesh, "axis_names") or not hasattr(mesh, "shape"):
        raise error(f"spmd wants a Mesh (sg.make_mesh(...)) as its mesh, got {type(mesh).__name__}")
    axes = mesh_axes(mesh)
    check = check_vma if check_rep is None else bool(check_rep)
    name = getattr(fn, "__name__", "fn").replace("<lambda>", "lambda")

    def region(*args):
        leaves, tree = tensor_leaves(tuple(args), "args", "spmd")
        paths = leaf_paths(tree)
        specs = [normalize(s, a.ndim, axes, f"spmd in_specs for args{p}") for s, a, p in
                 zip(specs_for(in_specs, tree, "in_specs"), leaves, paths)]  # fmt: skip
        local = [local_type(axes, s, a.type, f"spmd args{p}", user_location()) for s, a, p in
                 zip(specs, leaves, paths)]  # fmt: skip

        def traced(*params):
            return fn(*unflatten(tree, list(params)))

        with tracing_region(axes):
            body = function(traced, local, name=name)
        out_paths = leaf_paths(body.out_tree)
        o_specs = [normalize(s, t.ndim, axes, f"spmd out_specs for {result_path(p)}") for s, t, p in
                   zip(specs_for(out_specs, body.out_tree, "out_specs"), body.out_types, out_paths)]  # fmt: skip
        if check:
            check_replicated(body, specs, o_specs, axes, out_paths, name)
        results = spmd_call(body, axes, specs, o_specs, leaves, name="spmd")
        return unflatten(body.out_tree, results)

    region.__name__ = f"spmd_{name}"
    return region


__all__ = ["spmd", "spmd_call", "mesh_axes", "local_type"]
