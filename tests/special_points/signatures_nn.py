"""The signature table of sg.nn's sweep: every function jax.nn also has (activations, softmax and
log_softmax, logsumexp, logmeanexp, standardize, glu, one_hot, dot_product_attention), with its
argument kinds (points.py, parameters.py). The reference is jax.nn in float64 (closed forms; scipy
has no nn namespace), except where scipy.special has the same function.

DIFFERENCES lists the mismatches stablegraph keeps on purpose, each with its reason; keys are
``name``, ``name[variant]``, ``name:part`` or ``name[variant]:part`` (part: value, d1, d2).
"""

from __future__ import annotations

import scipy.special

from . import closed_forms
from . import closed_forms_nn as cf
from .harness import Sig

_UNARY = (
    "celu elu gelu hard_sigmoid hard_silu hard_swish hard_tanh identity leaky_relu log1mexp log_sigmoid "
    "mish relu relu6 selu sigmoid silu soft_sign softplus sparse_plus sparse_sigmoid squareplus swish tanh"
).split()

_SCIPY = {"sigmoid": scipy.special.expit, "log_sigmoid": scipy.special.log_expit}

ROWS = ("rows",)
# derivatives that cancel to exactly 0 (the gradient of a softmax's sum) leave rounding noise
# of the size of their terms: right within a few eps of the reference
NOISE = 8


def _attention(xp, a):
    q = a.reshape(1, 17, 1, 4)
    return xp.dot_product_attention(q, q[:, ::-1], q)


# closed forms where jax's float64 derivatives (or values) are themselves off
_FORMS = {
    "log_sigmoid": cf.derivatives(cf.log_sigmoid),
    "softplus": cf.derivatives(cf.softplus),
    "soft_sign": cf.derivatives(cf.soft_sign),
    "squareplus": {"ref": cf.squareplus(0), **cf.derivatives(cf.squareplus)},
    "gelu": cf.derivatives(cf.gelu),
    "sparse_plus": cf.derivatives(cf.sparse_plus),
    "mish": cf.derivatives(cf.mish),
    "celu": {
        "d1ref": lambda x: cf.celu_alpha(1)(x, 1.0)[:1],
        "d2ref": lambda x: cf.celu_alpha(2)(x, 1.0)[:1],
    },
    "log1mexp": {"ref": cf.log1mexp(0), **cf.derivatives(cf.log1mexp)},
    "sigmoid": cf.derivatives(closed_forms.logistic),
    "silu": cf.derivatives(cf.silu),
    "swish": cf.derivatives(cf.silu),
    "elu": cf.derivatives(cf.elu),
    "selu": cf.derivatives(cf.elu, *cf.SELU),
}


# mish'' = s g (2 + x (1 - g - 2 t g)) cancels near x = 1.5 (the bracket is ~0.03): 148 ulps there
_DULPS = {"mish": 256}


def _unary(name: str) -> Sig:
    forms = dict(_FORMS.get(name, {}))
    if name in _DULPS:
        forms["dulps"] = _DULPS[name]
    return Sig(("x",), ref=forms.pop("ref", _SCIPY.get(name, "jax")), **forms)


NN: dict[str, Sig] = {
    **{n: _unary(n) for n in _UNARY},
    "gelu[exact]": Sig(
        ("x",), call=lambda xp, x: xp.gelu(x, approximate=False), ref="jax", **cf.derivatives(cf.gelu_exact)
    ),
    "celu[alpha]": Sig(("x", "shape"), ref="jax", **cf.derivatives(cf.celu_alpha)),
    "elu[alpha]": Sig(("x", "shape"), ref="jax"),
    "leaky_relu[slope]": Sig(("x", "x"), ref="jax"),
    "squareplus[b]": Sig(("x", "shape"), ref=cf.squareplus(0), **cf.derivatives(cf.squareplus, True)),
    "one_hot": Sig(("i",), call=lambda xp, i: xp.one_hot(i, 5), ref="jax"),
    "one_hot[axis=0]": Sig(("i",), call=lambda xp, i: xp.one_hot(i, 3, axis=0), ref="jax"),
    "softmax[axis=-1]": Sig(ROWS, call=lambda xp, a: xp.softmax(a, axis=-1), ref="jax", atol=NOISE),
    "softmax[all]": Sig(ROWS, call=lambda xp, a: xp.softmax(a, axis=None), ref="jax", atol=NOISE),
    "softmax[where]": Sig(ROWS, call=lambda xp, a: xp.softmax(a, where=a != 2), ref="jax", atol=NOISE),
    "log_softmax[axis=-1]": Sig(ROWS, call=lambda xp, a: xp.log_softmax(a, axis=-1), ref="jax", atol=NOISE),
    "log_softmax[all]": Sig(ROWS, call=lambda xp, a: xp.log_softmax(a, axis=None), ref="jax", atol=NOISE),
    "log_softmax[where]": Sig(
        ROWS, call=lambda xp, a: xp.log_softmax(a, where=a != 2), ref="jax", atol=NOISE
    ),
    "logsumexp[axis=-1]": Sig(ROWS, call=lambda xp, a: xp.logsumexp(a, axis=-1), ref="jax", atol=NOISE),
    "logmeanexp[axis=-1]": Sig(ROWS, call=lambda xp, a: xp.logmeanexp(a, axis=-1), ref="jax", atol=NOISE),
    "logmeanexp[all]": Sig(ROWS, call=lambda xp, a: xp.logmeanexp(a), ref="jax", atol=NOISE),
    "logmeanexp[where]": Sig(
        ROWS, call=lambda xp, a: xp.logmeanexp(a, axis=-1, where=a != 2), ref="jax", atol=NOISE
    ),
    "standardize[axis=-1]": Sig(ROWS, call=lambda xp, a: xp.standardize(a, axis=-1), ref="jax", atol=NOISE),
    "standardize[axis=0]": Sig(ROWS, call=lambda xp, a: xp.standardize(a, axis=0), ref="jax", atol=NOISE),
    "glu[axis=-1]": Sig(ROWS, call=lambda xp, a: xp.glu(a, axis=-1), ref="jax"),
    "dot_product_attention": Sig(ROWS, call=_attention, ref="jax"),
}

_CUDNN_ONLY = (
    "jax runs it through cuDNN on Blackwell GPUs only (no CPU lowering), so there is no jax value to "
    "sweep against; tests/ops/nn/test_scaled_matmul.py checks it against jax's quantizer and numpy"
)
SKIPPED: dict[str, str] = {
    "scaled_matmul": _CUDNN_ONLY,
    "scaled_dot_general": _CUDNN_ONLY,
    "get_scaled_dot_general_config": "returns a config object, not an array: nothing to sweep",
}

_B_EDGE = (
    "b <= 0 or b = inf, the ends of squareplus's domain: at b = 0 it is relu (a kink at 0) and below "
    "0 sqrt(x^2 + b) is not real near 0, so the second derivatives are 0/0 and inf - inf in every "
    "formula; ours and jax's land on different ones (the closed form's limits: neither)"
)

DIFFERENCES: dict[str, str] = {
    "one_hot@float64:value:dtype": (
        "sg has no x64 switch: one_hot's default dtype is float32, as jax's without jax_enable_x64 "
        "(with it jax answers float64)"
    ),
    "squareplus[b]:value:inf": (
        "squareplus(-max, b) = b / (4 max) ~ 1e-305: jax's x*x overflows to inf; ours is 0 (XLA rewrites "
        "(a / b) / c into a / (b c), and b c overflows), a few hundred subnormal ulps from the value"
    ),
    "squareplus[b]:d1:nan": _B_EDGE,
    "squareplus[b]:d2:nan": _B_EDGE,
    "squareplus[b]:d2:inf": _B_EDGE,
}
