"""What the factorization primitives share: type checks, matrix helpers for rules, the batch rule (ops layer).

Rules build their graphs from primitives bound by name (ops/prims.py and
``lookup``), as every family does: batched matrix products are dot_general
over the leading dims, triangles and diagonals are selects against iota.
"""

from __future__ import annotations

import numpy as np

from ....graph import GraphError, Tensor, TensorType, dtypes
from .. import batching, constants, prims
from ..registry import bind, bind_node, lookup

FLOATS = ("float32", "float64", "complex64", "complex128")


def check_matrix(op: str, x: TensorType, square: bool = False) -> None:
    """GraphError unless ``x`` is a (batch of) matrix of a LAPACK dtype (and square, if asked)."""
    if x.dtype.name not in FLOATS:
        raise GraphError(f"{op} wants a {', '.join(FLOATS)} matrix, got {x}")
    if x.ndim < 2:
        raise GraphError(f"{op} wants an array of rank >= 2 (a batch of matrices), got {x}")
    if square and x.shape[-1] != x.shape[-2]:
        raise GraphError(f"{op} wants square matrices (shape[-2] == shape[-1]), got {x}")


# -- matrix helpers for vjp rules ----------------------------------------------------------------
def mT(x: Tensor) -> Tensor:  # noqa: N802
    """Swap the last two dims."""
    n = x.ndim
    return prims.transpose(x, (*range(n - 2), n - 1, n - 2))


def conj(x: Tensor) -> Tensor:
    return bind(lookup("conj"), x) if x.dtype.is_complex else x


def adjoint(x: Tensor) -> Tensor:
    """The conjugate transpose of a batch of matrices."""
    return conj(mT(x))


def matmul(x: Tensor, y: Tensor) -> Tensor:
    """x @ y for batches of matrices with equal leading dims."""
    nb = x.ndim - 2
    batch = tuple(range(nb))
    return bind(
        lookup("dot_general"), x, y,
        lhs_contracting=(nb + 1,), rhs_contracting=(nb,), lhs_batch=batch, rhs_batch=batch,
    )  # fmt: skip


def splat(value, like: Tensor, dtype=None) -> Tensor:
    dt = dtypes.dtype(dtype) if dtype is not None else like.dtype
    return prims.broadcast_in_dim(constants.constant(np.asarray(value, dt.np)), like.shape, ())


def _diff(shape) -> Tensor:
    """col - row over the last two dims of ``shape`` (int32)."""
    n = len(shape)
    return prims.sub(constants.iota(dtypes.int32, shape, n - 1), constants.iota(dtypes.int32, shape, n - 2))


def band(x: Tensor, direction: str, k: int = 0) -> Tensor:
    """x where (col - row) <direction> k, zero elsewhere: tril is ("LE", k), triu ("GE", k), diag ("EQ", 0)."""
    diff = _diff(x.shape)
    mask = prims.compare(diff, splat(k, diff), direction)
    return prims.select(mask, x, splat(0, x))


def tril(x: Tensor, k: int = 0) -> Tensor:
    return band(x, "LE", k)


def triu(x: Tensor, k: int = 0) -> Tensor:
    return band(x, "GE", k)


def diag_embed(v: Tensor) -> Tensor:
    """Square matrices with ``v`` (..., n) on the diagonal."""
    n = v.ndim
    full = prims.broadcast_in_dim(v, (*v.shape, v.shape[-1]), tuple(range(n)))
    return band(full, "EQ")


def eye(shape, dt: dtypes.DType) -> Tensor:
    """Identity matrices of ``shape`` (..., m, n)."""
    diff = _diff(tuple(shape))
    ones = prims.broadcast_in_dim(constants.constant(np.asarray(1, dt.np)), tuple(shape), ())
    return prims.select(prims.compare(diff, splat(0, diff), "EQ"), ones, splat(0, ones))


def scale_columns(x: Tensor, s: Tensor) -> Tensor:
    """x * s[..., None, :]: column j times s[..., j]."""
    n = x.ndim
    return prims.mul(x, prims.broadcast_in_dim(s, x.shape, (*range(n - 2), n - 1)))


def scale_rows(x: Tensor, s: Tensor) -> Tensor:
    """x * s[..., :, None]: row i times s[..., i]."""
    n = x.ndim
    return prims.mul(x, prims.broadcast_in_dim(s, x.shape, tuple(range(n - 1))))


def to_dtype(x: Tensor, dt: dtypes.DType) -> Tensor:
    """A real tensor as dtype dt (complex dt: imaginary part zero)."""
    if dt.is_complex and not x.dtype.is_complex:
        return bind(
            lookup("complex"), prims.convert(x, dtypes.real_part(dt)), splat(0, x, dtypes.real_part(dt))
        )
    return prims.convert(x, dt)


# -- batch rule ----------------------------------------------------------------------------------
def leading_batch(ctx, attrs, xs, bdims):
    """Batch rule of ops that take leading batch dims: move every operand's batch axis to the front
    (broadcasting unbatched operands), apply the op once; every output is batched at 0."""
    moved = [batching.batched_at(x, b, ctx.size, 0) for x, b in zip(xs, bdims)]
    node = bind_node(ctx.op, moved, attrs)
    return list(node.outputs), [0] * len(node.outputs)


# -- complex cotangents ----------------------------------------------------------------------------
def transposed_convention(rule):
    """A vjp rule written with adjoints (ct_A = L^-H ... for the cotangent of a real loss) made to
    follow stablegraph's (and jax's) convention for complex values, where a vjp is the plain
    transpose of the linear map: conjugate the cotangents on the way in and the results on the way out.
    Real dtypes pass through unchanged."""

    def vjp(ctx, attrs, xs, ys, cts):
        if not any(x.dtype.is_complex for x in xs):
            return rule(ctx, attrs, xs, ys, cts)
        outs = rule(ctx, attrs, xs, ys, [None if ct is None else conj(ct) for ct in cts])
        return [None if ct is None else conj(ct) for ct in outs]

    vjp.__name__ = rule.__name__
    return vjp
