"""Function -> Function rewrites: autodiff (vjp, jvp, grad, gradients) and simplify (transforms layer)."""

from . import control_ad  # noqa: F401  (attaches the cond vjp rule to ops.control.cond_op)
from .autodiff import grad, gradients, jvp, value_and_grad, vjp
from .backward import backward
from .simplify import simplify

__all__ = ["backward", "grad", "gradients", "jvp", "simplify", "value_and_grad", "vjp"]
