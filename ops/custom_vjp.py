"""User-defined derivatives: the custom_vjp_call primitive and sg.custom_vjp (ops layer).

``f = sg.custom_vjp(f); f.defvjp(f_fwd, f_bwd)`` as in JAX: ``f_fwd(*args)``
returns ``(out, residuals)`` and ``f_bwd(residuals, cotangent_of_out)`` returns
one cotangent per argument. Calling ``f`` on Tensors traces ``f_fwd`` and
``f_bwd`` into Functions typed by the actual arguments and binds one
``custom_vjp_call`` node whose outputs are the forward's results and
residuals; it lowers to the forward's body, and its vjp rule inlines the
backward Function, so the residuals are computed once and second-order
derivatives differentiate through the backward's ordinary ops.
"""

from __future__ import annotations

from ..graph import (
    Attrs,
    FunctionAttr,
    GraphError,
    OpDef,
    Tensor,
    TensorType,
    flatten,
    function,
    located,
    unflatten,
    user_location,
)
from . import ad_util as ad
from .constants import constant
from .registry import bind_node


class CustomVJPAttrs(Attrs):
    fwd: FunctionAttr  # (args..., captures...) -> (outs..., residuals...)
    bwd: FunctionAttr  # (residuals..., out cotangents...) -> arg cotangents
    num_outputs: int
    num_args: int


def _custom_vjp_call_infer(attrs: CustomVJPAttrs, *in_types) -> tuple[TensorType, ...]:
    want = tuple(p.type for p in attrs.fwd.params + attrs.fwd.capture_params)
    if tuple(in_types) != want:
        raise GraphError(f"custom_vjp_call wants inputs {want}, got {tuple(in_types)}")
    return attrs.fwd.out_types


def _custom_vjp_call_lower(ctx, attrs: CustomVJPAttrs, *values):
    return ctx.lower_function(attrs.fwd, values)


def _custom_vjp_call_vjp(attrs: CustomVJPAttrs, xs, ys, cts):
    outs, residuals = ys[: attrs.num_outputs], ys[attrs.num_outputs :]
    out_cts = [c if c is not None else ad.zeros_like(y) for y, c in zip(outs, cts[: attrs.num_outputs])]
    arg_cts = attrs.bwd(*residuals, *out_cts)
    return list(arg_cts) + [None] * (len(xs) - attrs.num_args)


custom_vjp_call_op = OpDef(
    "custom_vjp_call",
    _custom_vjp_call_infer,
    _custom_vjp_call_lower,
    attrs=CustomVJPAttrs,
    vjp=_custom_vjp_call_vjp,
    reasons={"batch": "not written yet"},
    doc="A function with a user-given vjp: lowers to its forward Function's body.",
)


class custom_vjp:  # noqa: N801  (spelled like jax.custom_vjp)
    """Give a function its own reverse-mode derivative.

    @sg.custom_vjp
    def softplus(x):
        return snp.log1p(snp.exp(x))
    softplus.defvjp(lambda x: (softplus.fun(x), x), lambda x, g: (g * snp.sigmoid(x),))
    """

    def __init__(self, fun):
        self.fun = fun
        self.fwd = self.bwd = None
        self.__name__ = getattr(fun, "__name__", "custom_vjp")
        self.__doc__ = getattr(fun, "__doc__", None)

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        return self

    def __call__(self, *args):
        if self.fwd is None:
            raise GraphError(located(f"custom_vjp function {self.__name__} has no vjp: call .defvjp(fwd, bwd)",
                                     user_location()))  # fmt: skip
        args = [a if isinstance(a, Tensor) else constant(a) for a in args]
        shape = {}

        def fwd_flat(*xs):
            out, residuals = self.fwd(*xs)
            outs, shape["out"] = flatten(out)
            res, shape["res"] = flatten(residuals)
            shape["n_out"] = len(outs)
            return list(outs) + list(res)

        fwd = function(fwd_flat, [a.type for a in args], name=f"{self.__name__}_fwd")
        n_out = shape["n_out"]
        res_types = fwd.out_types[n_out:]
        out_types = fwd.out_types[:n_out]

        def bwd_flat(*rs_and_cts):
            residuals = unflatten(shape["res"], list(rs_and_cts[: len(res_types)]))
            cts = unflatten(shape["out"], list(rs_and_cts[len(res_types) :]))
            grads = self.bwd(residuals, cts)
            if not isinstance(grads, tuple | list) or len(grads) != len(args):
                raise GraphError(f"{self.__name__}'s bwd must return a tuple of {len(args)} cotangents")
            return [g if g is not None else ad.zeros_like(a) for g, a in zip(grads, args)]

        bwd = function(bwd_flat, list(res_types) + list(out_types), name=f"{self.__name__}_bwd")
        attrs = CustomVJPAttrs(fwd=fwd, bwd=bwd, num_outputs=n_out, num_args=len(args))
        node = bind_node(custom_vjp_call_op, list(args) + list(fwd.captures), attrs, name=self.__name__)
        return unflatten(shape["out"], list(node.outputs[:n_out]))
