"""Jacobians and Hessians: jacfwd, jacrev, jacobian, hessian (transforms).

Both modes vectorize a linear map over a standard basis, as JAX does:

- ``jacfwd``: jvp pushes every basis vector of the inputs through fn at
  once (sg.vectorize of sg.jvp); one column of the Jacobian per lane.
- ``jacrev``: the vjp pulls every basis vector of the outputs back (the
  forward is built once, unbatched, and only the backward is batched); one
  row per lane.

For an output leaf of shape ``out`` and an input leaf of shape ``in`` the
block is ``out + in``. Results nest as JAX gives them: the outputs' structure
outside, the differentiated arguments' inside (a tuple of them for a tuple
``argnums``). ``hessian`` is ``jacfwd(jacrev(fn))``. The basis is built from
iota and a compare, so no N x N constant is ever stored. Shapes must be
known while building (a symbolic dim is a GraphError).
"""

from __future__ import annotations

import math

from ..graph import Tensor, flatten, unflatten
from ..graph.dims import is_symbolic
from ..ops.numpy_like import eye, reshape, transpose
from .ad_args import as_values, check_argnums, error, tensor_leaves, with_args, wrap
from .autodiff import jvp, vjp
from .backward import check_differentiable
from .vectorize import vectorize


def jacfwd(fn, argnums=0, has_aux: bool = False):
    """The Jacobian of ``fn`` by forward mode: cheap when the inputs are smaller than the outputs.

    ``argnums`` (an int or a tuple) picks the arguments (nests allowed);
    ``has_aux`` means fn returns ``(output, aux)`` and the result is
    ``(jacobian, aux)``. A Function gives a Function.

        J = sg.jacfwd(f)(x)  # J.shape == f(x).shape + x.shape
    """
    return wrap(fn, argnums, "jacfwd", lambda f, args: _jacobian(f, args, argnums, has_aux, _columns))


def jacrev(fn, argnums=0, has_aux: bool = False):
    """The Jacobian of ``fn`` by reverse mode: cheap when the outputs are smaller than the inputs.

    Same arguments and result as jacfwd. ``J = sg.jacrev(loss, argnums=0)(w, x, y)``
    """
    return wrap(fn, argnums, "jacrev", lambda f, args: _jacobian(f, args, argnums, has_aux, _rows))


jacobian = jacrev


def hessian(fn, argnums=0, has_aux: bool = False):
    """The Hessian of a scalar ``fn``: ``jacfwd(jacrev(fn))``, forward over reverse.

    ``H = sg.hessian(f)(x)  # H.shape == x.shape + x.shape``
    """
    return jacfwd(jacrev(fn, argnums, has_aux), argnums, has_aux)


def _jacobian(fn, args, argnums, has_aux: bool, blocks):
    """The Jacobian nest (and aux) of fn at ``args``; ``blocks`` gives the (out leaf, in leaf) blocks."""
    nums = check_argnums(fn, argnums, len(args))
    args = [as_values(a) for a in args]
    wrt, trees = [], []
    for i in nums:
        leaves, tree = tensor_leaves(args[i], f"args[{i}]")
        check_differentiable(leaves, "take the Jacobian")
        _check_static(leaves, f"args[{i}]")
        args[i] = unflatten(tree, leaves)
        wrt += leaves
        trees.append((tree, len(leaves)))
    grid, out_tree, aux = blocks(with_args(fn, args, nums), [args[i] for i in nums], wrt, has_aux)
    nested = [_in_nest(row, trees, isinstance(argnums, int)) for row in grid]
    jac = unflatten(out_tree, nested)
    return (jac, aux) if has_aux else jac


def _in_nest(row, trees, single: bool):
    """One output leaf's blocks (one per input leaf) as the differentiated arguments' nest."""
    it = iter(row)
    per_arg = [unflatten(tree, [next(it) for _ in range(n)]) for tree, n in trees]
    return per_arg[0] if single else tuple(per_arg)


def _check_static(leaves, where: str) -> None:
    for x in leaves:
        if any(is_symbolic(d) for d in x.shape):
            raise error(f"a Jacobian needs shapes known while building; {where} has a leaf of type {x.type}")


def _basis(leaves) -> list[Tensor]:
    """The standard basis of the leaves' joint space: per leaf ``(N, *shape)``, N the total size."""
    sizes = [math.prod(x.shape) for x in leaves]
    total, out, offset = sum(sizes), [], 0
    for x, n in zip(leaves, sizes):
        out.append(reshape(eye(total, n, k=-offset, dtype=x.dtype), (total, *x.shape)))
        offset += n
    return out


def _cut(lanes: Tensor, leaves) -> list[Tensor]:
    """Lanes ``(N, *rest)`` over the basis of ``leaves`` cut per leaf: ``(*leaf.shape, *rest)``."""
    out, offset = [], 0
    for x in leaves:
        n = math.prod(x.shape)
        out.append(reshape(lanes[offset : offset + n], (*x.shape, *lanes.shape[1:])))
        offset += n
    return out


def _columns(partial, primals, wrt, has_aux: bool):
    """jacfwd's blocks, ``grid[out leaf][in leaf]``: jvp over the inputs' basis, vectorized."""

    def pushforward(*basis):
        tangents = unflatten(flatten(tuple(primals))[1], list(basis))
        result = jvp(partial, primals, tangents, has_aux=has_aux)
        return (result[1], result[2]) if has_aux else result[1]

    result = vectorize(pushforward, out_axes=(0, None) if has_aux else 0)(*_basis(wrt))
    lanes, aux = result if has_aux else (result, None)
    out_leaves, out_tree = tensor_leaves(lanes, "output")
    grid = []
    for o in out_leaves:  # (N, *out) -> per input leaf (*in, *out) -> (*out, *in)
        blocks = _cut(o, wrt)
        grid.append([transpose(b, _in_last(b.ndim - o.ndim + 1, o.ndim - 1)) for b in blocks])
    return grid, out_tree, aux


def _rows(partial, primals, wrt, has_aux: bool):
    """jacrev's blocks, ``grid[out leaf][in leaf]``: the vjp over the outputs' basis, vectorized;
    fn's forward is built once, outside, and read by every lane."""
    result = vjp(partial, *primals, has_aux=has_aux)
    out, vjp_fn = result[0], result[1]
    out_leaves, out_tree = tensor_leaves(out, "output")

    def pullback(*basis):
        return vjp_fn(unflatten(out_tree, list(basis)))

    lanes, _ = tensor_leaves(vectorize(pullback)(*_basis(out_leaves)), "cotangents")
    per_in = [_cut(w, out_leaves) for w in lanes]  # per input leaf: (M, *in) -> per output (*out, *in)
    grid = [[blocks[j] for blocks in per_in] for j in range(len(out_leaves))]
    return grid, out_tree, result[2] if has_aux else None


def _in_last(n_in: int, n_out: int) -> list[int]:
    """The permutation taking ``(*in, *out)`` to ``(*out, *in)``."""
    return list(range(n_in, n_in + n_out)) + list(range(n_in))
