"""Function -> Function rewrites: autodiff (vjp, jvp, grad, gradients) (transforms layer)."""

from .autodiff import grad, gradients, jvp, value_and_grad, vjp
from .backward import backward

__all__ = ["backward", "grad", "gradients", "jvp", "value_and_grad", "vjp"]
