"""Function -> Function rewrites: autodiff, vectorize, shard and simplify (transforms layer)."""

from .autodiff import grad, gradients, jvp, value_and_grad, vjp
from .backward import backward
from .forward import forward
from .jacobians import hessian, jacfwd, jacobian, jacrev
from .shard import shard
from .simplify import simplify
from .vectorize import vectorize, vmap

__all__ = [
    "backward", "forward", "grad", "gradients", "hessian", "jacfwd", "jacobian", "jacrev", "jvp", "shard", "simplify",
    "value_and_grad", "vectorize", "vjp", "vmap",
]  # fmt: skip
