"""sg.vectorize (alias sg.vmap): a function of one example becomes a function of a batch (transforms).

The rewrite walks a Function's nodes once (graph.rewrite.Rewriter) with an
old -> (new tensor, batch axis) map. A node none of whose inputs is batched
is copied as it is; otherwise its op's ``batch`` rule builds the batched
version, given the operands and their batch axes (None: the same for every
lane) and the rule context (``ctx.size``, ``ctx.vectorize`` for a body it holds). A
primitive without a rule, or an op with the ``stateful`` trait (an assign),
is a GraphError at the user's line. ``chunk_size`` runs the batch as a
loop over chunks (ops/primitives/control's scan), so a big batch fits in memory.
"""

from __future__ import annotations

from ..graph import (
    Function,
    GraphError,
    Tensor,
    TensorType,
    current_graph,
    function,
    located,
    unflatten,
    user_location,
)  # fmt: skip
from ..graph.dims import symbols
from ..graph.rewrite import Rewriter
from ..graph.rule_context import RuleContext, Services
from ..ops.primitives.batching import batched_at
from .vectorize_args import axes_for, check_axes, check_sizes, chunked, leaves_of


class BatchPass(Services):
    """What vectorize offers batch rules (besides ``ctx.size``, the batch size): a body batched."""

    name = "vectorize"

    def vectorize(self, ctx, fn: Function, in_bdims, captures=(), out_bdims=None):
        """``fn`` batched: its params have batch axes ``in_bdims`` (None: unbatched), its capture
        params stand for ``captures`` ((tensor, bdim) pairs of the graph being built). Returns the
        new Function (whose captures are those tensors) and its results' batch axes; ``out_bdims``
        forces them (each an axis, or None to keep whatever the body gives)."""
        size = ctx.size
        types = [_with_batch(p.type, b, size) for p, b in zip(fn.params, in_bdims)]
        got: list = []

        def body(*params):
            graph = current_graph()
            env = {p: (new, b) for p, new, b in zip(fn.params, params, in_bdims)}
            env.update({p: (graph.capture(t), b) for p, (t, b) in zip(fn.capture_params, captures)})
            outs = batch_nodes(fn, env, size)
            want = out_bdims or [None] * len(outs)
            outs = [(o, b) if w is None else (batched_at(o, b, size, w), w) for (o, b), w in zip(outs, want)]
            got.append([b for _, b in outs])
            return [o for o, _ in outs]

        names = [p.node.name for p in fn.params]
        return function(body, types, name=fn.name, arg_names=names), got[0]


BATCH = BatchPass()


def _with_batch(ty: TensorType, bdim, size) -> TensorType:
    if bdim is None:
        return ty
    shape = list(ty.shape)
    shape.insert(bdim, size)
    return TensorType(tuple(shape), ty.dtype)


def batch_nodes(fn: Function, env: dict, size) -> list:
    """Batch fn's nodes into the graph being built; ``env`` binds its params (and capture params) to
    (tensor, bdim) pairs. Returns one (tensor, bdim) pair per result."""

    def visit(rewriter, node):
        values = [rewriter.env[t] for t in node.inputs]
        xs, bdims = [v for v, _ in values], [b for _, b in values]
        if all(b is None for b in bdims) and "stateful" not in node.op.traits:
            return [(t, None) for t in rewriter.copy(node, xs)]
        rule = node.op.batch
        if rule is None or "stateful" in node.op.traits:
            why = node.op.reasons.get("batch", "not written yet")
            raise GraphError(located(f"cannot vectorize {node.op.name}: it has no batch rule ({why})",
                                     node.location, node.name))  # fmt: skip
        with rewriter.emitting(node):
            outs, out_bdims = rule(RuleContext(BATCH, node.op, node, size=size), node.attrs, xs, bdims)
        for t, o, b in zip(node.outputs, outs, out_bdims):
            _check(node, t, o, b, size)
        return list(zip(outs, out_bdims))

    rewriter = Rewriter(env)
    rewriter.run(fn.graph.nodes, visit)
    return [rewriter.env[r] for r in fn.results]


def _check(node, old: Tensor, new: Tensor, bdim, size) -> None:
    want = _with_batch(old.type, bdim, size)
    if new.type != want:
        raise GraphError(
            located(f"internal error: the batch rule of {node.op.name} gave {new.type} for {old.type} "
                    f"batched at axis {bdim} (want {want})", node.location, node.name)
        )  # fmt: skip


def vectorize(fn, in_axes=0, out_axes=0, axis_size=None, chunk_size=None):
    """``fn`` mapped over an axis of its inputs, as one batched computation (jax.vmap's semantics).

    ``in_axes``: an int (negative counts from the end), None (not mapped), or a
    nest matching the positional arguments; keyword arguments are mapped at
    axis 0 (as jax.vmap maps them); ``out_axes`` likewise for the results.
    ``axis_size`` gives the batch size when no input is mapped (or, for a
    Function, instead of a new symbol). ``chunk_size`` runs the batch in chunks
    of that size inside one loop, so a huge batch fits in memory. A Function
    gives a Function (printable, drawable, differentiable); a Python callable
    gives a callable that builds the batched computation where it is called.

        per_example = sg.vectorize(sg.grad(loss), in_axes=(None, 0, 0))
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise GraphError(
            located(f"vectorize wants a positive int chunk_size, got {chunk_size!r}", user_location())
        )
    in_axes, out_axes = check_axes(in_axes, "in_axes"), check_axes(out_axes, "out_axes", top=False)
    if isinstance(fn, Function):
        return _vectorize_function(fn, in_axes, out_axes, axis_size, chunk_size)

    def vectorized(*args, **kwargs):
        leaves, tree, bdims, paths = leaves_of(args, kwargs, in_axes)
        size = check_sizes(leaves, bdims, axis_size, paths)
        types = [_without(x.type, b) for x, b in zip(leaves, bdims)]
        traced = function(
            _flat(fn, tree), types, name=getattr(fn, "__name__", "fn").replace("<lambda>", "lambda")
        )
        batched = _batched_function(traced, bdims, out_axes, size, chunk_size)
        return batched(*leaves)

    vectorized.__name__ = f"vectorize_{getattr(fn, '__name__', 'fn')}"
    return vectorized


vmap = vectorize


def _flat(fn, tree):
    def flat(*leaves):
        args, kwargs = unflatten(tree, list(leaves))
        return fn(*args, **kwargs)

    return flat


def _without(ty: TensorType, bdim) -> TensorType:
    if bdim is None:
        return ty
    return TensorType(ty.shape[:bdim] + ty.shape[bdim + 1 :], ty.dtype)


def _vectorize_function(fn: Function, in_axes, out_axes, axis_size, chunk_size) -> Function:
    bdims = axes_for(in_axes, [p.type.ndim + 1 for p in fn.params], "in_axes")
    size = axis_size if axis_size is not None else _fresh_size(fn)
    return _batched_function(fn, bdims, out_axes, size, chunk_size)


def _fresh_size(fn: Function) -> str:
    taken = {s for t in fn.in_types + fn.out_types for d in t.shape for s in symbols(d)}
    return next(name for name in ("vmap", *(f"vmap{i}" for i in range(2, 100))) if name not in taken)


def _batched_function(fn: Function, bdims, out_axes, size, chunk_size) -> Function:
    """fn with its params batched at ``bdims`` and its results at ``out_axes``: a new Function."""
    out_bdims = axes_for(out_axes, [t.ndim + 1 for t in fn.out_types], "out_axes", fn.out_tree)
    types = [_with_batch(p.type, b, size) for p, b in zip(fn.params, bdims)]

    def body(*params):
        if chunk_size is not None:
            return chunked(fn, list(params), bdims, out_bdims, size, chunk_size, _run)
        return _run(fn, list(params), bdims, out_bdims, size)

    out = function(body, types, name=f"vectorize_{fn.name}", arg_names=[p.node.name for p in fn.params])
    out.out_tree = fn.out_tree
    return out


def _run(fn: Function, params, bdims, out_bdims, size) -> list:
    graph = current_graph()
    env = {p: (new, b) for p, new, b in zip(fn.params, params, bdims)}
    env.update({p: (graph.capture(t), None) for p, t in zip(fn.capture_params, fn.captures)})
    results = []
    for (t, b), want in zip(batch_nodes(fn, env, size), out_bdims):
        if want is None and b is not None:
            raise GraphError(located(f"vectorize: a result with out_axes=None varies along the batch ({t.type})",
                                     user_location()))  # fmt: skip
        results.append(t if want is None else batched_at(t, b, size, want))
    return results


__all__ = ["BatchPass", "batch_nodes", "vectorize", "vmap"]
