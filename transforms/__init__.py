"""Function -> Function rewrites: autodiff, vectorize and simplify (transforms layer)."""

from .autodiff import grad, gradients, jvp, value_and_grad, vjp
from .backward import backward
from .forward import forward
from .jacobians import hessian, jacfwd, jacobian, jacrev
from .simplify import simplify
from .vectorize import vectorize, vmap

__all__ = [
    "backward", "forward", "grad", "gradients", "hessian", "jacfwd", "jacobian", "jacrev", "jvp", "simplify",
    "value_and_grad", "vectorize", "vjp", "vmap",
]  # fmt: skip
