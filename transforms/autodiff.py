"""Autodiff API: vjp, jvp, grad, value_and_grad, gradients (transforms).

All of them run ``backward.backward`` over nodes of the graph being built:

- ``vjp(fn, *primals)`` builds fn on the primals in the current graph and
  returns its outputs with a function that emits the cotangent graph.
  Tensors fn closes over are constants for the derivative, as in JAX.
- ``jvp`` is the transpose of the vjp (the double-vjp trick): the vjp is
  linear in its cotangent, so differentiating it with respect to that
  cotangent, seeded with the tangents, gives J @ tangents. One mechanism.
- ``grad``/``value_and_grad`` of a Function return a Function; of a Python
  callable, a Python callable that builds inline where it is called.
- ``gradients(ys, xs)`` is TF1's: every path from xs to ys in the graph.
"""

from __future__ import annotations

from ..graph import (
    Function,
    GraphError,
    Tensor,
    current_graph,
    flatten,
    function,
    located,
    register_overloads,
    unflatten,
    user_location,
)
from ..ops import ad_util
from ..ops.numpy_like import asarray
from .backward import backward, check_differentiable


def _as_tensors(values) -> list[Tensor]:
    return [v if isinstance(v, Tensor) else asarray(v) for v in values]


def _local(graph, t: Tensor) -> Tensor:
    return t if t.graph is graph else graph.capture(t)


def _zeros_for(t: Tensor, ct: Tensor | None) -> Tensor:
    return ct if ct is not None else ad_util.zeros_like(t)


def vjp(fn, *primals, has_aux: bool = False):
    """``(outputs, vjp_fn)`` (plus ``aux`` with has_aux), JAX's calling convention.

    ``vjp_fn(cotangents)`` takes cotangents shaped like the outputs and returns
    a tuple with one cotangent per primal.
    """
    graph = current_graph()
    primals = _as_tensors(primals)
    check_differentiable(primals)
    # fn sees fresh aliases of the primals: the derivative follows only the
    # paths through its arguments, so a tensor fn also closes over (or an outer
    # tensor that a body being built reads through a capture) stays a constant.
    primals = [ad_util.alias(p) for p in primals]
    start = len(graph.nodes)
    result = fn(*primals)
    out, aux = (result[0], result[1]) if has_aux else (result, None)
    out_leaves, out_tree = flatten(out)
    out_leaves = _as_tensors(out_leaves)
    nodes = graph.nodes[start:]

    def vjp_fn(cotangents):
        ct_leaves, ct_tree = flatten(cotangents)
        if ct_tree != out_tree:
            raise GraphError(located("vjp_fn wants cotangents structured like the outputs", user_location()))
        seeds = {}
        for o, c in zip(out_leaves, _as_tensors(ct_leaves)):
            c = asarray(c, o.dtype)
            if c.type != o.type:
                raise GraphError(
                    located(f"vjp_fn wants a cotangent of type {o.type}, got {c.type}", user_location())
                )
            seeds[o] = c if o not in seeds else ad_util.add(seeds[o], c)
        cts = backward(nodes, seeds, primals)
        return tuple(_zeros_for(p, c) for p, c in zip(primals, cts))

    out = unflatten(out_tree, out_leaves)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jvp(fn, primals, tangents):
    """``(outputs, tangent_outputs)``: the directional derivative along ``tangents``."""
    primals, tangents = _as_tensors(primals), _as_tensors(tangents)
    if len(primals) != len(tangents):
        raise GraphError(located("jvp wants one tangent per primal", user_location()))
    for p, t in zip(primals, tangents):
        if p.type != t.type:
            raise GraphError(located(f"jvp wants tangents typed like the primals, got {t.type} for {p.type}",
                                     user_location()))  # fmt: skip
    graph = current_graph()
    out, vjp_fn = vjp(fn, *primals)
    out_leaves, out_tree = flatten(out)
    # Any value works for the dummy cotangent: the vjp is linear in it.
    dummies = [ad_util.zeros_like(o) for o in out_leaves]
    start = len(graph.nodes)
    cts = vjp_fn(unflatten(out_tree, dummies))
    nodes = graph.nodes[start:]
    seeds = {}
    for c, t in zip(cts, tangents):
        seeds[c] = t if c not in seeds else ad_util.add(seeds[c], t)
    tangent_out = backward(nodes, seeds, dummies)
    return out, unflatten(out_tree, [_zeros_for(o, t) for o, t in zip(out_leaves, tangent_out)])


def _argnums(fn, argnums, num_args: int) -> tuple[int, ...]:
    """argnums as a tuple of non-negative positions, or a GraphError at the user's line."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    name = getattr(fn, "name", None) or getattr(fn, "__name__", "fn")
    for i in nums:
        if not isinstance(i, int) or isinstance(i, bool):
            raise GraphError(located(f"argnums wants ints, got {i!r}", user_location()))
        if not -num_args <= i < num_args:
            raise GraphError(
                located(
                    f"grad of {name} with argnums={argnums!r} needs at least {(i if i >= 0 else -i - 1) + 1} "
                    f"positional arguments, got {num_args}",
                    user_location(),
                )
            )
    return tuple(i % num_args for i in nums)


def _grad_impl(fn, args, argnums, has_aux: bool, with_value: bool):
    single = isinstance(argnums, int)
    nums = _argnums(fn, argnums, len(args))
    args = _as_tensors(args)
    wrt = [args[i] for i in nums]

    def partial(*xs):
        full = list(args)
        for i, x in zip(nums, xs):
            full[i] = x
        return fn(*full)

    result = vjp(partial, *wrt, has_aux=has_aux)
    out, vjp_fn = result[0], result[1]
    if not isinstance(out, Tensor) or out.shape != () or not out.dtype.is_floating:
        spelled = out.type if isinstance(out, Tensor) else type(out).__name__
        raise GraphError(
            located(f"grad wants a function returning a real scalar, got {spelled}", user_location())
        )
    grads = vjp_fn(ad_util.full_like(out, 1))
    grads = grads[0] if single else grads
    value = (out, result[2]) if has_aux else out
    if with_value:
        return value, grads
    return (grads, result[2]) if has_aux else grads


def _transform(fn, argnums, has_aux, with_value, prefix):
    if isinstance(fn, Function):
        _argnums(fn, argnums, len(fn.params))
        return function(
            lambda *args: _grad_impl(fn, args, argnums, has_aux, with_value),
            fn.in_types,
            name=f"{prefix}_{fn.name}",
            arg_names=[p.node.name for p in fn.params],
        )

    def transformed(*args):
        return _grad_impl(fn, args, argnums, has_aux, with_value)

    transformed.__name__ = f"{prefix}_{getattr(fn, '__name__', 'fn')}"
    return transformed


def grad(fn, argnums=0, has_aux: bool = False):
    """The gradient of a scalar function with respect to argument(s) ``argnums``.

    A Function gives a Function (printable, drawable, differentiable again);
    a Python callable gives a callable that builds the gradient where called.
    """
    return _transform(fn, argnums, has_aux, False, "grad")


def value_and_grad(fn, argnums=0, has_aux: bool = False):
    """Like grad, returning ``(value, grads)``."""
    return _transform(fn, argnums, has_aux, True, "value_and_grad")


def gradients(ys, xs, grad_ys=None):
    """TF1's gradients: d(sum of ys)/d xs over every path in the graph, one per x.

    ``grad_ys`` gives the cotangents of ys (ones by default). An x no y
    depends on gets zeros.
    """
    graph = current_graph()
    # inside a body being built, outer tensors are read through their captures
    ys = [_local(graph, y) for y in ([ys] if isinstance(ys, Tensor) else ys)]
    xs_list = [_local(graph, x) for x in ([xs] if isinstance(xs, Tensor) else xs)]
    check_differentiable(xs_list)
    if grad_ys is None:
        grad_ys = [ad_util.full_like(y, 1) for y in ys]
    grad_ys = [grad_ys] if isinstance(grad_ys, Tensor) else list(grad_ys)
    seeds: dict = {}
    for y, g in zip(ys, grad_ys):
        g = asarray(g, y.dtype)
        seeds[y] = g if y not in seeds else ad_util.add(seeds[y], g)
    cts = backward(graph.ancestors(ys), seeds, xs_list)
    return [_zeros_for(x, c) for x, c in zip(xs_list, cts)]


# Optimizers (sg.optim, in the ops layer below) reach gradients through the overload table.
register_overloads({"gradients": gradients})
