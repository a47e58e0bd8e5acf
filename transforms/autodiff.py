"""Autodiff API: vjp, jvp, grad, value_and_grad, gradients (transforms).

- ``vjp(fn, *primals)`` builds fn on the primals in the current graph and
  returns its outputs with a function that emits the cotangent graph through
  the reverse pass (transforms/backward.py). Tensors fn closes over are
  constants for the derivative, as in JAX.
- ``jvp(fn, primals, tangents)`` builds fn and walks its nodes forward with
  the tangents (transforms/forward.py): each op's jvp rule, or its vjp
  transposed where it has none.
- ``grad``/``value_and_grad`` of a Function return a Function; of a Python
  callable, a Python callable that builds inline where it is called.
- ``gradients(ys, xs)`` is TF1's: every path from xs to ys in the graph.

Arguments and results are nests of tuples, lists and dicts (transforms/ad_args.py);
gradients and tangents come back structured like what they belong to.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..graph import Tensor, current_graph, unflatten
from ..graph.tree import describe, leaf_paths
from ..ops.numpy_like import asarray
from ..ops.primitives import ad_util
from .ad_args import as_values, check_argnums, error, tensor_leaves, with_args, wrap
from .backward import backward, check_differentiable
from .forward import forward


def _local(graph, t: Tensor) -> Tensor:
    return t if t.graph is graph else graph.capture(t)


def _zeros_for(t: Tensor, ct: Tensor | None) -> Tensor:
    return ct if ct is not None else ad_util.zeros_like(t)


def _trace(fn, primals, where: str, has_aux: bool):
    """Build fn on fresh aliases of the primals' leaves; (aliases, primal tree, output leaves,
    output tree, aux, fn's nodes)."""
    leaves, tree = tensor_leaves(tuple(primals), where)
    check_differentiable(leaves)
    # fn sees fresh aliases of the primals: the derivative follows only the paths through
    # its arguments, so a tensor fn also closes over (or an outer tensor that a body being
    # built reads through a capture) stays a constant.
    aliases = [ad_util.alias(p) for p in leaves]
    graph = current_graph()
    start = len(graph.nodes)
    result = fn(*unflatten(tree, aliases))
    if has_aux and not (isinstance(result, tuple | list) and len(result) == 2):
        raise error(f"has_aux=True wants fn to return a pair (output, aux), got {type(result).__name__}")
    out, aux = (result[0], result[1]) if has_aux else (result, None)
    out_leaves, out_tree = tensor_leaves(out, "output")
    return aliases, tree, out_leaves, out_tree, aux, graph.nodes[start:]


def vjp(fn, *primals, has_aux: bool = False):
    """``(outputs, vjp_fn)`` (plus ``aux`` with has_aux), JAX's calling convention.

    Primals and outputs may be nests. ``vjp_fn(cotangents)`` takes cotangents
    structured like the outputs and returns a tuple with one cotangent nest
    per primal.
    """
    aliases, tree, out_leaves, out_tree, aux, nodes = _trace(fn, primals, "primals", has_aux)

    def vjp_fn(cotangents):
        ct_leaves, ct_tree = tensor_leaves(cotangents, "cotangents")
        if ct_tree != out_tree:
            raise error(
                f"vjp_fn wants cotangents structured like the outputs, {describe(out_tree)}, "
                f"got {describe(ct_tree)}"
            )
        seeds: dict = {}
        for o, c in zip(out_leaves, ct_leaves):
            c = asarray(c, o.dtype)
            if c.type != o.type:
                raise error(f"vjp_fn wants a cotangent of type {o.type}, got {c.type}")
            seeds[o] = c if o not in seeds else ad_util.add(seeds[o], c)
        cts = backward(nodes, seeds, aliases)
        return unflatten(tree, [_zeros_for(p, c) for p, c in zip(aliases, cts)])

    out = unflatten(out_tree, out_leaves)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jvp(fn, primals, tangents, has_aux: bool = False):
    """``(outputs, tangent_outputs)`` (plus ``aux``): the directional derivative along ``tangents``.

    ``primals`` and ``tangents`` are tuples (or lists) of nests with equal
    structure and types; the tangent outputs are structured like the outputs.
    """
    if not isinstance(primals, tuple | list) or not isinstance(tangents, tuple | list):
        raise error("jvp wants primals and tangents as tuples (or lists), one entry per argument of fn")
    t_leaves, t_tree = tensor_leaves(tuple(tangents), "tangents")
    aliases, tree, out_leaves, out_tree, aux, nodes = _trace(fn, primals, "primals", has_aux)
    if t_tree != tree:
        raise error(
            f"jvp wants tangents structured like the primals, {describe(tree)}, got {describe(t_tree)}"
        )
    for p, t, path in zip(aliases, t_leaves, leaf_paths(tree)):
        if p.type != t.type:
            raise error(
                f"jvp wants tangents typed like the primals, got {t.type} for {p.type} at tangents{path}"
            )
    again: dict = {}
    tangent_out = forward(nodes, dict(zip(aliases, t_leaves)), out_leaves, again)
    outs = unflatten(out_tree, [again.get(o, o) for o in out_leaves])  # values a rule computed again
    touts = unflatten(out_tree, [_zeros_for(o, t) for o, t in zip(out_leaves, tangent_out)])
    return (outs, touts, aux) if has_aux else (outs, touts)


def _grad_impl(fn, args, argnums, has_aux: bool, with_value: bool):
    nums = check_argnums(fn, argnums, len(args))
    args = list(args)
    for i in nums:
        leaves, tree = tensor_leaves(args[i], f"args[{i}]")
        args[i] = unflatten(tree, leaves)
    args = [a if i in nums else as_values(a) for i, a in enumerate(args)]
    result = vjp(with_args(fn, args, nums), *(args[i] for i in nums), has_aux=has_aux)
    out, vjp_fn = result[0], result[1]
    if not isinstance(out, Tensor) or out.shape != () or not out.dtype.is_floating:
        spelled = out.type if isinstance(out, Tensor) else type(out).__name__
        raise error(f"grad wants a function returning a real scalar, got {spelled}")
    grads = vjp_fn(ad_util.full_like(out, 1))
    grads = grads[0] if isinstance(argnums, int) else grads
    value = (out, result[2]) if has_aux else out
    if with_value:
        return value, grads
    return (grads, result[2]) if has_aux else grads


def grad(fn, argnums=0, has_aux: bool = False):
    """The gradient of a scalar function with respect to argument(s) ``argnums``.

    Arguments may be nests (``{"w": w, "b": b}``); the gradient has the same
    structure (a tuple of them for a tuple ``argnums``). A Function gives a
    Function (printable, drawable, differentiable again); a Python callable
    gives a callable that builds the gradient where called.

        grads = sg.grad(lambda p, x: snp.sum(p["w"] @ x + p["b"]))({"w": w, "b": b}, x)
    """
    return wrap(fn, argnums, "grad", lambda f, args: _grad_impl(f, args, argnums, has_aux, False))


def value_and_grad(fn, argnums=0, has_aux: bool = False):
    """Like grad, returning ``(value, grads)``."""
    return wrap(fn, argnums, "value_and_grad", lambda f, args: _grad_impl(f, args, argnums, has_aux, True))


def gradients(ys, xs, grad_ys=None):
    """TF1's gradients: d(sum of ys)/d xs over every path in the graph, one per x.

    ``grad_ys`` gives the cotangents of ys (ones by default). An x no y
    depends on gets zeros.
    """
    graph = current_graph()
    # inside a body being built, outer tensors are read through their captures
    ys = [_local(graph, y) for y in _tensor_list(ys, "ys")]
    xs_list = [_local(graph, x) for x in _tensor_list(xs, "xs")]
    check_differentiable(xs_list)
    seeds: dict = {}
    for y, g in zip(ys, _grad_ys(grad_ys, ys)):
        g = ad_util.full_like(y, 1) if g is None else asarray(g, y.dtype)
        if g.shape != y.shape:
            raise error(
                f"gradients wants each grad_ys entry shaped like its y, got {g.type} for {y.name} {y.type}"
            )
        seeds[y] = g if y not in seeds else ad_util.add(seeds[y], g)
    cts = backward(graph.ancestors(ys), seeds, xs_list)
    return [_zeros_for(x, c) for x, c in zip(xs_list, cts)]


def _tensor_list(value, what: str) -> list[Tensor]:
    """gradients' ``ys`` or ``xs``: a Tensor or a list (tuple) of Tensors, else a GraphError at the user's line."""
    items = [value] if isinstance(value, Tensor) else value
    if isinstance(items, Iterable) and not isinstance(items, str | bytes | dict | list | tuple):
        items = list(items)  # a generator, dict.values(), ...
    if not isinstance(items, list | tuple):
        raise error(
            f"gradients wants {what} as a Tensor or a list of Tensors, got {type(value).__name__} {value!r:.40}"
        )
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            hint = (
                ": differentiate with respect to tensors of the graph (a sg.Variable, a placeholder, any op's "
                "output); a Python number or array has no gradient"
                if what == "xs"
                else ": the ys are tensors of the graph that depend on the xs"
            )
            raise error(
                f"gradients wants {what} as Tensors, got {type(t).__name__} {t!r:.40} at {what}[{i}]{hint}"
            )
    return list(items)


def _grad_ys(grad_ys, ys) -> list:
    """One cotangent (or None: ones) per y."""
    if grad_ys is None:
        return [None] * len(ys)
    grad_ys = [grad_ys] if isinstance(grad_ys, Tensor) or not isinstance(grad_ys, list | tuple) else grad_ys
    if len(grad_ys) != len(ys):
        raise error(f"gradients wants one grad_ys entry per y: {len(ys)} ys, {len(grad_ys)} grad_ys")
    return list(grad_ys)
