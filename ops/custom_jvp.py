"""User-defined forward derivatives: the custom_jvp_call primitive and sg.custom_jvp (ops layer).

``f = sg.custom_jvp(f)`` and then ``@f.defjvp`` on ``f_jvp(primals, tangents)
-> (primal_out, tangent_out)``, as in JAX (``defjvps`` gives one function per
argument instead).

Calling ``f`` builds ``f`` inline on the arguments seen through
stop_gradient, so no derivative follows its own ops, then one
``custom_jvp_call`` node that passes the outputs through. Its jvp rule gives
the outputs ``f_jvp``'s tangents (a Function of the arguments and their
tangents, inlined). Reverse mode transposes that Function: the user's jvp is
linear in the tangents (JAX requires this too), so the reverse pass over it,
from zero tangents to the seeded tangent outputs, gives the cotangents of the
arguments. A jvp that is not linear in its tangents gives wrong gradients,
not an error. The tangent graphs are built from the arguments themselves, so
higher orders follow them.

The jvp Function is traced when ``f`` is called, and a jvp that calls ``f``
(to give primal_out, or in its tangent) calls it while being traced; those
inner calls are custom_jvp calls again, traced in turn, up to
``MAX_NESTING`` levels, below which ``f`` is built plainly. So derivatives up
to that order use the user's rule everywhere, and the tracing terminates.
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
    current_graph,
    flatten,
    function,
    located,
    unflatten,
    user_location,
)
from ..graph.tree import describe
from .custom_vjp import passthrough_infer, passthrough_lower, passthrough_vary
from .primitives import ad_util as ad
from .primitives.batching import batched_at
from .primitives.constants import constant
from .primitives.elementwise import stop_gradient
from .primitives.registry import bind_node

MAX_NESTING = 4  # levels of a jvp that calls its own function, traced as custom_jvp calls


class CustomJVPAttrs(Attrs):
    jvp: FunctionAttr  # (arguments..., their tangents..., what it closes over...) -> output tangents
    num_args: int
    num_outputs: int


def _tangents_in(attrs: CustomJVPAttrs, xs, tangents) -> list[Tensor]:
    """The user's jvp applied to the arguments and these tangents (zeros for None)."""
    n, k = attrs.num_args, attrs.num_outputs
    ts = [t if t is not None else ad.zeros_like(x) for x, t in zip(xs[:n], tangents)]
    return list(attrs.jvp(*xs[:n], *ts, *xs[n + k :]))


def _custom_jvp_call_jvp(ctx, attrs: CustomJVPAttrs, xs, ys, tangents):
    # the tangents of the outputs, passed in as inputs, are not read: the user's jvp replaces them
    return _tangents_in(attrs, xs, tangents[: attrs.num_args])


def _custom_jvp_call_vjp(ctx, attrs: CustomJVPAttrs, xs, ys, cts):
    n = attrs.num_args
    live = [i for i in range(n) if ad.is_differentiable(xs[i])]
    dummies = [ad.zeros_like(x) for x in xs[:n]]  # any value works: the jvp is linear in them
    graph = current_graph()
    start = len(graph.nodes)
    touts = _tangents_in(attrs, xs, dummies)
    seeds: dict = {}
    for t, c in zip(touts, cts):
        if c is not None:
            seeds[t] = c if t not in seeds else ad.add(seeds[t], c)
    got = ctx.backward(graph.nodes[start:], seeds, [dummies[i] for i in live])
    out: list = [None] * len(xs)
    for i, ct in zip(live, got):
        out[i] = ct
    return out


def _custom_jvp_call_batch(ctx, attrs: CustomJVPAttrs, xs, bdims):
    # A tangent is typed like its argument, so it is batched like it; every output (and so its
    # tangent) goes to axis 0, where the vectorized jvp puts the output tangents.
    n, k = attrs.num_args, attrs.num_outputs
    outs = [batched_at(y, b, ctx.size, 0) for y, b in zip(xs[n : n + k], bdims[n : n + k])]
    in_bdims = list(bdims[:n]) * 2 + list(bdims[n + k :])
    jvp, _ = ctx.vectorize(attrs.jvp, in_bdims, out_bdims=[0] * k)
    inputs = list(xs[:n]) + outs + list(xs[n + k :])
    node = bind_node(ctx.op, inputs, attrs.model_copy(update={"jvp": jvp}), name="custom_jvp_call")
    return list(node.outputs), [0] * k


custom_jvp_call_op = OpDef(
    "custom_jvp_call",
    passthrough_infer("custom_jvp_call"),
    passthrough_lower,
    attrs=CustomJVPAttrs,
    jvp=_custom_jvp_call_jvp,
    vjp=_custom_jvp_call_vjp,
    batch=_custom_jvp_call_batch,
    vary=passthrough_vary,
    doc="Passes a custom_jvp function's outputs through; its jvp is the user's, its vjp that jvp transposed.",
)


class custom_jvp:  # noqa: N801  (spelled like jax.custom_jvp)
    """Give a function its own forward-mode derivative (reverse mode follows by transposition).

    @sg.custom_jvp
    def log1pexp(x):
        return snp.log1p(snp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * snp.sigmoid(x)
    """

    def __init__(self, fun):
        self.fun = fun
        self.jvp = None
        self._tracing = 0  # how many of this function's jvps are being traced (nested)
        self.__name__ = getattr(fun, "__name__", "custom_jvp")
        self.__doc__ = getattr(fun, "__doc__", None)

    def defjvp(self, jvp):
        """``jvp(primals, tangents) -> (primal_out, tangent_out)``; returns jvp (usable as a decorator)."""
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps):
        """One ``jvp_i(tangent_i, primal_out, *primals) -> tangent_out`` per argument (None: zero),
        summed; the output must be a single Tensor."""

        def jvp(primals, tangents):
            out = self.fun(*primals)
            terms = [f(t, out, *primals) for f, t in zip(jvps, tangents) if f is not None]
            total = terms[0] if terms else ad.zeros_like(out)
            for term in terms[1:]:
                total = ad.add(total, term)
            return out, total

        self.jvp = jvp

    def __call__(self, *args):
        if self.jvp is None:
            raise GraphError(
                located(
                    f"custom_jvp function {self.__name__} has no jvp: use @{self.__name__}.defjvp",
                    user_location(),
                )
            )
        if self._tracing >= MAX_NESTING:
            return self.fun(*args)
        leaves, tree = flatten(args)
        leaves = [a if isinstance(a, Tensor) else constant(a) for a in leaves]
        out = self.fun(*unflatten(tree, [stop_gradient(a) for a in leaves]))
        outs, out_tree = flatten(out)
        outs = [o if isinstance(o, Tensor) else constant(o) for o in outs]
        jvp, extras = self._traced_jvp(tree, out_tree, leaves, outs)
        attrs = CustomJVPAttrs(jvp=jvp, num_args=len(leaves), num_outputs=len(outs))
        node = bind_node(custom_jvp_call_op, leaves + outs + extras, attrs, name=self.__name__)
        return unflatten(out_tree, list(node.outputs))

    def _traced_jvp(self, tree, out_tree, leaves, outs) -> tuple[Function, list[Tensor]]:
        """The user's jvp as a Function of (arguments, tangents, what it closes over), and the
        tensors it closes over (passed as inputs of the node, so transforms see them)."""
        self._tracing += 1
        try:
            jvp = function(
                self._jvp_flat(tree, out_tree, outs),
                [a.type for a in leaves] * 2,
                name=f"{self.__name__}_jvp",
            )
        finally:
            self._tracing -= 1
        if not jvp.captures:
            return jvp, []
        graph = current_graph()
        extras = [c if c.graph is graph else graph.capture(c) for c in jvp.captures]
        return Function(
            jvp.graph, jvp.params + jvp.capture_params, jvp.results, jvp.out_tree, jvp.name
        ), extras

    def _jvp_error(self, what: str) -> GraphError:
        """An error about the user's jvp, at its definition (where the fix goes) and naming the call."""
        code = getattr(self.jvp, "__code__", None)
        where = SourceLocation(code.co_filename, code.co_firstlineno) if code else user_location()
        name = getattr(self.jvp, "__name__", "jvp")
        return GraphError(located(f"custom_jvp function {self.__name__}: its jvp {name} {what}", where))

    def _jvp_flat(self, tree, out_tree, outs):
        def jvp(*values):
            half = len(values) // 2
            primals, tangents = unflatten(tree, list(values[:half])), unflatten(tree, list(values[half:]))
            result = self.jvp(tuple(primals), tuple(tangents))
            if not isinstance(result, tuple | list) or len(result) != 2:
                raise self._jvp_error("must return a pair (primal_out, tangent_out)")
            touts, t_tree = flatten(result[1])
            if t_tree != out_tree:
                raise self._jvp_error(
                    f"returned tangents structured as {describe(t_tree)}, the outputs are {describe(out_tree)}"
                )
            return [self._tangent(t, o, i) for i, (t, o) in enumerate(zip(touts, outs))]

        return jvp

    def _tangent(self, t, out: Tensor, i: int) -> Tensor:
        t = t if isinstance(t, Tensor) else constant(t, out.dtype)
        if t.type != out.type:
            raise self._jvp_error(f"returned a tangent {t.type} for output {i}, which is {out.type}")
        return t
