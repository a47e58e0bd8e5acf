"""Function -> Function rewrites: autodiff (vjp, jvp, grad, gradients) and simplify (transforms layer)."""

from .autodiff import grad, gradients, jvp, value_and_grad, vjp
from .backward import backward
from .simplify import simplify

__all__ = ["backward", "grad", "gradients", "jvp", "simplify", "value_and_grad", "vjp"]
