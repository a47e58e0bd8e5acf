"""User-defined derivatives: the custom_vjp_call primitive and sg.custom_vjp (ops layer).

``f = sg.custom_vjp(f); f.defvjp(f_fwd, f_bwd)`` as in JAX: ``f_fwd(*args)``
returns ``(out, residuals)`` and ``f_bwd(residuals, cotangent_of_out)`` returns
one cotangent per argument (None for none).

Calling ``f`` builds ``f_fwd`` inline as ordinary ops, then one
``custom_vjp_call`` node that passes the outputs through. Its vjp rule gives
the arguments ``f_bwd(residuals, ct)`` (a Function, inlined) and nothing to
the ops that computed the outputs, so first derivatives are the user's.
The residuals stay ordinary tensors of the arguments, so differentiating
the backward again follows them: second order needs no special case.
Tensors that ``f_bwd`` closes over are passed as residuals too. While
``f_fwd`` and ``f_bwd`` are traced, a call of ``f`` itself (JAX's documented
``def f_fwd(x): return f(x), x``) is the plain function, so tracing ends;
its ops are ordinary ones, differentiated as such at second order.

Under vectorize the node stays, with its backward Function vectorized: the
cotangents of the outputs come batched like the outputs, and an argument
shared by all lanes gets its cotangent summed over them.
"""

from __future__ import annotations

from ..graph import (
    Attrs,
    Function,
    FunctionAttr,
    GraphError,
    OpDef,
    SourceLocation,
    Tensor,
    TensorType,
    current_graph,
    flatten,
    function,
    located,
    unflatten,
    user_location,
)
from ..graph.function import inline
from ..graph.tree import describe, leaf_paths
from .primitives import ad_util as ad
from .primitives.batching import batched_at
from .primitives.constants import constant
from .primitives.reduce import reduce
from .primitives.registry import bind_node


class CustomVJPAttrs(Attrs):
    bwd: FunctionAttr  # (residuals..., output cotangents...) -> argument cotangents
    num_args: int
    num_outputs: int


def passthrough_infer(name: str):
    """The infer rule of a custom-rule call (custom_vjp_call, custom_jvp_call): its inputs are the
    arguments, then the outputs it passes through (``num_args``, ``num_outputs`` attrs), then more."""

    def infer(attrs, *in_types) -> tuple[TensorType, ...]:
        n, k = attrs.num_args, attrs.num_outputs
        if len(in_types) < n + k:
            raise GraphError(f"{name} wants {n} arguments and {k} outputs as inputs, got {len(in_types)}")
        return tuple(in_types[n : n + k])

    return infer


def passthrough_vary(ctx, attrs, vary):
    """Inside sg.spmd, a custom-rule call's outputs vary as the values it passes through."""
    return list(vary[attrs.num_args : attrs.num_args + attrs.num_outputs])


def passthrough_lower(ctx, attrs, *values):
    """A custom-rule call lowers to nothing: its outputs are the values it passes through."""
    return list(values[attrs.num_args : attrs.num_args + attrs.num_outputs])


def _custom_vjp_call_vjp(ctx, attrs: CustomVJPAttrs, xs, ys, cts):
    n, k = attrs.num_args, attrs.num_outputs
    residuals = xs[n + k :]
    out_cts = [c if c is not None else ad.zeros_like(y) for y, c in zip(ys, cts)]
    arg_cts = attrs.bwd(*residuals, *out_cts)
    return list(arg_cts) + [None] * (len(xs) - n)


def _custom_vjp_call_batch(ctx, attrs: CustomVJPAttrs, xs, bdims):
    n, k = attrs.num_args, attrs.num_outputs
    # bwd takes (residuals..., output cotangents...): a cotangent is batched like its output
    order = list(range(n + k, len(xs))) + list(range(n, n + k))
    bwd = _batched_bwd(ctx, attrs.bwd, [xs[i] for i in order], [bdims[i] for i in order], bdims[:n])
    node = bind_node(ctx.op, list(xs), attrs.model_copy(update={"bwd": bwd}), name="custom_vjp_call")
    return list(node.outputs), list(bdims[n : n + k])


def _batched_bwd(ctx, bwd, params, param_bdims, arg_bdims):
    """``bwd`` vectorized, giving each argument's cotangent at the argument's batch axis, summed over
    the lanes for an argument they share."""
    vec, got = ctx.vectorize(bwd, param_bdims)

    def batched(*values):
        cts = inline(vec, current_graph(), values)
        return [
            (ct if c is None else reduce(ct, "sum", (c,))) if b is None else batched_at(ct, c, ctx.size, b)
            for ct, c, b in zip(cts, got, arg_bdims)
        ]

    return function(batched, [p.type for p in params], name=bwd.name)


custom_vjp_call_op = OpDef(
    "custom_vjp_call",
    passthrough_infer("custom_vjp_call"),
    passthrough_lower,
    attrs=CustomVJPAttrs,
    vjp=_custom_vjp_call_vjp,
    batch=_custom_vjp_call_batch,
    vary=passthrough_vary,
    doc="Passes a custom_vjp function's outputs through; its vjp is the user's backward Function.",
)


class custom_vjp:  # noqa: N801  (spelled like jax.custom_vjp)
    """Give a function its own reverse-mode derivative.

    @sg.custom_vjp
    def softplus(x):
        return snp.log1p(snp.exp(x))

    def softplus_fwd(x):
        return softplus(x), snp.sigmoid(x)  # inside fwd (and bwd) softplus is the plain function

    softplus.defvjp(softplus_fwd, lambda s, g: (g * s,))

    Arguments may be nests (tuples, lists, dicts); ``bwd`` returns one
    cotangent per argument, structured like it (None for zero). With
    ``nondiff_argnums`` those arguments get no cotangent and come first to
    ``bwd``: ``bwd(*nondiff_args, residuals, g)``, as in JAX.
    """

    def __init__(self, fun, nondiff_argnums=()):
        self.fun = fun
        self.fwd = self.bwd = None
        self.nondiff_argnums = tuple(int(i) for i in nondiff_argnums)
        self._tracing = 0  # >0 while this function's own fwd or bwd is traced
        self.__name__ = getattr(fun, "__name__", "custom_vjp")
        self.__doc__ = getattr(fun, "__doc__", None)

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        return self

    def __call__(self, *args):
        if self.fwd is None:
            raise GraphError(
                located(
                    f"custom_vjp function {self.__name__} has no vjp: call .defvjp(fwd, bwd)", user_location()
                )
            )
        if self._tracing:  # JAX's pattern: fwd computes the output by calling the function itself
            return self.fun(*args)
        call = _Call(self, args)
        self._tracing += 1
        try:
            got = self.fwd(*call.args(call.leaves))
            if not isinstance(got, tuple | list) or len(got) != 2:
                raise self._rule_error(self.fwd, "fwd", "must return a pair (output, residuals)")
            outs, out_tree = flatten(got[0])
            res, res_tree = flatten(got[1])
            outs = [o if isinstance(o, Tensor) else constant(o) for o in outs]
            res = [r if isinstance(r, Tensor) else constant(r) for r in res]
            bwd = function(
                self._bwd_flat(call, res_tree, out_tree, len(res)),
                [r.type for r in res] + [o.type for o in outs],
                name=f"{self.__name__}_bwd",
            )
        finally:
            self._tracing -= 1
        if bwd.captures:  # what bwd reads besides its residuals travels as residuals, so transforms see it
            graph = current_graph()
            params = bwd.params[: len(res)] + bwd.capture_params + bwd.params[len(res) :]
            res += [c if c.graph is graph else graph.capture(c) for c in bwd.captures]
            bwd = Function(bwd.graph, params, bwd.results, bwd.out_tree, bwd.name)
        attrs = CustomVJPAttrs(bwd=bwd, num_args=len(call.leaves), num_outputs=len(outs))
        node = bind_node(custom_vjp_call_op, call.leaves + outs + res, attrs, name=self.__name__)
        return unflatten(out_tree, list(node.outputs))

    def _rule_error(self, rule, label: str, what: str) -> GraphError:
        """An error about the user's fwd or bwd, at its definition (where the fix goes), naming the call."""
        code = getattr(rule, "__code__", None)
        where = SourceLocation(code.co_filename, code.co_firstlineno) if code else user_location()
        name = getattr(rule, "__name__", label)
        return GraphError(located(f"custom_vjp function {self.__name__}: its {label} {name} {what}", where))

    def _bwd_error(self, what: str) -> GraphError:
        return self._rule_error(self.bwd, "bwd", what)

    def _bwd_flat(self, call, res_tree, out_tree, n_res):
        def bwd(*res_and_cts):
            residuals = unflatten(res_tree, list(res_and_cts[:n_res]))
            cts = unflatten(out_tree, list(res_and_cts[n_res:]))
            grads = self.bwd(*call.static, residuals, cts)
            n = len(call.trees)
            if not isinstance(grads, tuple | list) or len(grads) != n:
                got = f"{len(grads)} values" if isinstance(grads, tuple | list) else type(grads).__name__
                raise self._bwd_error(f"must return a tuple of {n} cotangents, one per argument, got {got}")
            return [g for i, ct in enumerate(grads) for g in self._arg_cts(call, i, ct)]

        return bwd

    def _arg_cts(self, call, i: int, ct) -> list[Tensor]:
        """Argument i's cotangent as its leaves (zeros for None), checked against the argument."""
        args = call.arg_leaves(i)
        if ct is None:
            return [ad.zeros_like(a) for a in args]
        cts, tree = flatten(ct)
        if tree != call.trees[i]:
            raise self._bwd_error(
                f"returned a cotangent structured as {describe(tree)} for argument {i}, which is "
                f"{describe(call.trees[i])}"
            )
        out = []
        for path, g, a in zip(leaf_paths(call.trees[i]), cts, args):
            g = g if g is None or isinstance(g, Tensor) else constant(g, a.dtype)
            if g is not None and g.type != a.type:
                raise self._bwd_error(
                    f"returned a cotangent {g.type} for argument {i}{path}, which is {a.type}"
                )
            out.append(ad.zeros_like(a) if g is None else g)
        return out


def _constant(value, fn: custom_vjp, path: str) -> Tensor:
    try:
        return constant(value)
    except (GraphError, TypeError, ValueError):
        raise GraphError(
            located(
                f"custom_vjp function {fn.__name__}: args{path} is a {type(value).__name__}, not a Tensor, "
                "number or numpy array (use nondiff_argnums for other arguments)",
                user_location(),
            )
        ) from None


class _Call:
    """One call's arguments: the differentiable ones as leaves (with each argument's nest), the
    ``nondiff_argnums`` ones as given."""

    def __init__(self, fn: custom_vjp, args):
        self.n = len(args)
        self.nondiff = [i for i in fn.nondiff_argnums if 0 <= i < len(args)]
        self.static = [args[i] for i in self.nondiff]
        diff = tuple(a for i, a in enumerate(args) if i not in self.nondiff)
        leaves, tree = flatten(diff)
        self.leaves = [a if isinstance(a, Tensor) else _constant(a, fn, path) for a, path in
                       zip(leaves, leaf_paths(tree))]  # fmt: skip
        self.tree = tree
        self.trees = list(tree[1])
        self.counts = [len(leaf_paths(t)) for t in self.trees]

    def args(self, leaves) -> list:
        """All arguments in order, the differentiable ones rebuilt from ``leaves``."""
        diff = iter(unflatten(self.tree, list(leaves)))
        static = iter(self.static)
        return [next(static) if i in self.nondiff else next(diff) for i in range(self.n)]

    def arg_leaves(self, i: int) -> list[Tensor]:
        start = sum(self.counts[:i])
        return self.leaves[start : start + self.counts[i]]
