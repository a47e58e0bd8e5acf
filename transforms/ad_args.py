"""Arguments of the autodiff transforms: nests of tensors, argnums, Function in -> Function out (transforms).

grad, value_and_grad, vjp, jvp and the jacobians take and return nests of
tuples, lists and dicts (None passes through) as JAX's do. Their leaves are
Tensors, or numbers and numpy arrays (made constants); anything else is a
GraphError at the user's line that names the leaf's path in the nest, such
as ``args[0]['w']``.
"""

from __future__ import annotations

from ..graph import Function, GraphError, flatten, function, located, unflatten, user_location
from ..ops.nests import VALUES, tensor_leaves
from ..ops.numpy_like import asarray


def error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


__all__ = ["as_values", "check_argnums", "error", "tensor_leaves", "with_args", "wrap"]


def as_values(nest):
    """The nest with its number and array leaves made Tensors and other leaves left as they are
    (the arguments a transform passes through to fn without differentiating)."""
    leaves, tree = flatten(nest)
    return unflatten(tree, [asarray(v) if isinstance(v, VALUES) else v for v in leaves])


def check_argnums(fn, argnums, num_args: int) -> tuple[int, ...]:
    """argnums as a tuple of non-negative positions, or a GraphError at the user's line."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    name = getattr(fn, "name", None) or getattr(fn, "__name__", "fn")
    for i in nums:
        if not isinstance(i, int) or isinstance(i, bool):
            raise error(f"argnums wants ints, got {i!r}")
        if not -num_args <= i < num_args:
            need = (i if i >= 0 else -i - 1) + 1
            raise error(
                f"{name} differentiated with argnums={argnums!r} needs at least {need} positional "
                f"arguments, got {num_args}"
            )
    return tuple(i % num_args for i in nums)


def with_args(fn, args, nums):
    """``fn`` as a function of the arguments at positions ``nums`` only, the others fixed to ``args``."""

    def partial(*xs):
        full = list(args)
        for i, x in zip(nums, xs):
            full[i] = x
        return fn(*full)

    return partial


def wrap(fn, argnums, prefix: str, impl):
    """A transform of ``fn``: ``impl(fn, args)`` builds it where called.

    A Function gives a Function (printable, drawable, transformable again);
    a Python callable gives a callable that builds inline where called, whose
    keyword arguments pass through to ``fn`` undifferentiated (as in jax).
    """
    if isinstance(fn, Function):
        check_argnums(fn, argnums, len(fn.params))
        return function(
            lambda *args: impl(fn, args),
            fn.in_types,
            name=f"{prefix}_{fn.name}",
            arg_names=[p.node.name for p in fn.params],
        )

    def transformed(*args, **kwargs):
        return impl(_with_keywords(fn, kwargs) if kwargs else fn, args)

    transformed.__name__ = f"{prefix}_{getattr(fn, '__name__', 'fn')}"
    return transformed


def _with_keywords(fn, kwargs: dict):
    """``fn`` with its keyword arguments fixed (the transform differentiates positional ones only)."""

    def call(*args):
        return fn(*args, **kwargs)

    call.__name__ = getattr(fn, "__name__", "fn")
    return call
