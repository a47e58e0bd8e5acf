"""sg.checkpoint (alias sg.remat): recompute a function's values in its gradient (ops layer).

``sg.checkpoint(f, policy=...)(*args)`` computes ``f`` as usual; its
gradient does not keep ``f``'s intermediate values from the forward pass
but recomputes them from ``f``'s inputs, except the ones the policy saves
(ops/checkpoint_policies.py: dots_saveable, save_only_these_names with
sg.checkpoint_name, ...). This trades compute for memory, as
jax.checkpoint does; as the body of a scan it bounds what the loop stacks
for its gradient to the step's inputs and saved values.

The call is one ``checkpoint`` node holding ``f`` as a Function whose
results are ``f``'s, then the values the policy saves (decided when the
node is built, so the graph holds no Python callable). Rules:

- vjp: a Function (simplified, so the recomputations no cotangent needs are
  gone) that recomputes the body from the inputs with the saved values
  bound in place, and runs the reverse pass over the body's own nodes with
  those values (transforms/backward.py ``values``). The inputs, the saved
  values it reads and the cotangents go through one optimization_barrier
  first (``prevent_cse``), so XLA neither merges the recomputation with
  the forward pass nor runs it before the cotangents exist.
- jvp: the body inlined and its forward pass (forward mode keeps nothing).
- batch: the body vectorized, in a checkpoint node again.
- vary (inside sg.spmd): the body's.
"""

from __future__ import annotations

from ..graph import (
    Attrs,
    Function,
    FunctionAttr,
    GraphError,
    OpDef,
    Tensor,
    TensorType,
    current_graph,
    function,
    located,
    unflatten,
    user_location,
)
from ..graph.function import inline
from .nests import tensor_leaves
from .primitives import ad_util
from .primitives.control.common import out_types
from .primitives.registry import bind_node
from .primitives.remat import optimization_barrier


class CheckpointAttrs(Attrs):
    body: FunctionAttr  # (arguments..., its captures...) -> (its results..., the values its policy saves...)
    num_outputs: int  # the function's own results; the rest are kept for the gradient
    prevent_cse: bool = True  # recompute behind an optimization_barrier


def _checkpoint_infer(attrs: CheckpointAttrs, *in_types: TensorType) -> tuple[TensorType, ...]:
    outs = out_types(attrs.body, in_types, f"checkpoint body {attrs.body.name}")
    if not 0 <= attrs.num_outputs <= len(outs):
        raise GraphError(
            f"checkpoint body {attrs.body.name} has {len(outs)} results, not {attrs.num_outputs}"
        )
    return outs


def _checkpoint_lower(ctx, attrs: CheckpointAttrs, *values):
    return ctx.lower_function(attrs.body, list(values))


def _checkpoint_vjp(ctx, attrs: CheckpointAttrs, xs, ys, cts):
    body, k = attrs.body, attrs.num_outputs
    wrt = [i for i, x in enumerate(xs) if ad_util.is_differentiable(x)]
    live = [j for j, (y, c) in enumerate(zip(ys, cts)) if c is not None and ad_util.is_differentiable(y)]
    if not wrt or not live:
        return [None] * len(xs)
    n_in, n_saved = len(xs), len(ys) - k
    operands = [*xs, *ys[k:], *(cts[j] for j in live)]
    params = list(body.params + body.capture_params)

    def recompute_and_backward(*args):
        inputs, saved, out_cts = args[:n_in], args[n_in : n_in + n_saved], args[n_in + n_saved :]
        env = dict(zip(body.results[k:], saved))  # kept from the forward pass: not recomputed
        n = len(body.params)
        inline(
            body, current_graph(), list(inputs[:n]), captures=list(inputs[n:]), env=env, effects="recomputed"
        )
        seeds: dict = {}
        for j, ct in zip(live, out_cts):
            r = body.results[j]
            seeds[r] = ct if r not in seeds else ad_util.add(seeds[r], ct)
        got = ctx.backward(body.graph.nodes, seeds, [params[i] for i in wrt], values=env)
        return [g if g is not None else ad_util.zeros_like(inputs[i]) for i, g in zip(wrt, got)]

    fn = ctx.simplify(function(recompute_and_backward, [t.type for t in operands], name=f"{body.name}_vjp"))
    read = {t for node in fn.graph.nodes for t in node.inputs} | set(fn.results)
    used = [i for i, p in enumerate(fn.params) if p in read]
    args = list(operands)
    if attrs.prevent_cse and used:
        for i, v in zip(used, optimization_barrier([operands[i] for i in used])):
            args[i] = v
    got = inline(fn, current_graph(), args)
    out: list = [None] * len(xs)
    for i, g in zip(wrt, got):
        out[i] = g
    return out


def _checkpoint_jvp(ctx, attrs: CheckpointAttrs, xs, ys, tangents):
    graph, n = current_graph(), len(attrs.body.params)
    start = len(graph.nodes)
    outs = inline(attrs.body, graph, list(xs[:n]), captures=list(xs[n:]))
    tans = {x: t for x, t in zip(xs, tangents) if t is not None}
    return ctx.forward(graph.nodes[start:], tans, outs)


def _checkpoint_batch(ctx, attrs: CheckpointAttrs, xs, bdims):
    n = len(attrs.body.params)
    fn, out_bdims = ctx.vectorize(attrs.body, list(bdims[:n]), list(zip(xs[n:], bdims[n:])))
    outs = checkpoint_call(fn, list(xs[:n]), attrs.num_outputs, attrs.prevent_cse, name="checkpoint")
    return outs, list(out_bdims)


def _checkpoint_vary(ctx, attrs: CheckpointAttrs, vary):
    return ctx.body(attrs.body, vary)


checkpoint_op = OpDef(
    "checkpoint",
    _checkpoint_infer,
    _checkpoint_lower,
    attrs=CheckpointAttrs,
    vjp=_checkpoint_vjp,
    jvp=_checkpoint_jvp,
    batch=_checkpoint_batch,
    vary=_checkpoint_vary,
    reasons={"fold": "it holds a body"},
    doc="A function whose gradient recomputes its values (but those its policy saved); its body inline.",
)


def checkpoint_call(
    body: Function, args, num_outputs: int, prevent_cse: bool = True, name=None
) -> list[Tensor]:
    """Bind checkpoint_op: ``body`` on ``args`` (its captures appended); all its results."""
    attrs = CheckpointAttrs(body=body, num_outputs=num_outputs, prevent_cse=prevent_cse)
    return list(bind_node(checkpoint_op, [*args, *body.captures], attrs, name=name).outputs)


# -- the public builder ------------------------------------------------------------------------------
def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def saved_values(body: Function, policy) -> list[Tensor]:
    """The outputs of ``body``'s ops that ``policy(op, *in_types, **attrs)`` saves (None: none).

    Only values that depend on the inputs are asked about: the inputs are kept
    anyway, and what depends on none of them (a splat) is free to recompute.
    """
    if policy is None:
        return []
    live, saved = set(body.params + body.capture_params), []
    for node in body.graph.nodes:
        if not any(t in live for t in node.inputs):
            continue
        live.update(node.outputs)
        if policy(node.op, *(t.type for t in node.inputs), **dict(node.attrs)):
            saved += [o for o in node.outputs if ad_util.is_differentiable(o)]
    return saved


def checkpoint(fun=None, *, prevent_cse: bool = True, policy=None, static_argnums=()):
    """``fun`` whose gradient recomputes its intermediate values instead of keeping them (jax.checkpoint).

    ``policy`` (sg.checkpoint_policies: ``dots_saveable``, ``nothing_saveable``
    (the default), ``everything_saveable``, ``save_only_these_names("h")`` with
    sg.checkpoint_name, ...) says which values are kept after all.
    ``prevent_cse=False`` lets XLA merge the recomputation with the forward pass
    (fine inside a loop body, where it cannot). Arguments at ``static_argnums``
    are passed to ``fun`` as they are (Python values); the others may be nests
    of Tensors, numbers and arrays, keyword arguments too. ``sg.remat`` is
    the same function; without ``fun`` it is a decorator.

        h, hs = sg.scan(sg.checkpoint(cell, policy=sg.checkpoint_policies.dots_saveable), h0, xs)
    """
    if fun is None:
        return lambda f: checkpoint(f, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)
    if not callable(fun):
        raise _error(f"checkpoint wants a function, got {type(fun).__name__}")
    if policy is not None and not callable(policy):
        raise _error(
            f"checkpoint wants a policy such as sg.checkpoint_policies.dots_saveable, got {policy!r:.60}"
        )
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    name = getattr(fun, "__name__", "fn").replace("<lambda>", "lambda")

    def remat(*args, **kwargs):
        fixed = {i % len(args): args[i] for i in static if -len(args) <= i < len(args)}
        dynamic = tuple(a for i, a in enumerate(args) if i not in fixed)
        leaves, tree = tensor_leaves((dynamic, kwargs), "args", "checkpoint")

        def flat(*params):
            dyn, kw = unflatten(tree, list(params))
            it = iter(dyn)
            out = fun(*(fixed[i] if i in fixed else next(it) for i in range(len(args))), **kw)
            return out

        body = function(flat, [x.type for x in leaves], name=name)
        saved = saved_values(body, policy)
        full = body.with_results(saved) if saved else body
        outs = checkpoint_call(full, leaves, len(body.results), prevent_cse, name=name)
        return unflatten(body.out_tree, outs[: len(body.results)])

    remat.__name__ = f"checkpoint_{name}"
    remat.__wrapped__ = fun
    return remat


remat = checkpoint

__all__ = ["checkpoint", "checkpoint_call", "checkpoint_op", "remat", "saved_values"]
