"""sg.lax.linalg.qdwh: the polar decomposition x = u h by QR-based dynamically weighted Halley
iteration (Nakatsukasa, Bai and Gygi 2010), as jax.lax.linalg.qdwh (ops layer, a library call).

x is scaled so that its singular values lie in (0, 1]; each step maps every singular value s
through the rational function s (a + b s^2) / (1 + c s^2), whose weights (a, b, c) are chosen
from l, a lower bound of the smallest singular value, so that s moves to 1 as fast as it can.
The weights depend on l only, which starts at eps and follows its own recurrence, so they are
computed here in Python and each step is built with constants. Early steps (c > 100) are badly
conditioned for the normal equations and use a QR of [sqrt(c) u; I]; later ones a Cholesky factor
of I + c u^H u. When l has converged but u has not moved less than cbrt(5 eps) in a step, plain
Halley steps (a, b, c) = (3, 1, 3) follow in a while loop, up to ``max_iterations`` steps in all.
A Newton-Schulz step polishes u at the end; h = u^H x, symmetrized.
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import GraphError, dtypes, library, located, user_location
from . import numpy_like as snp
from .control_api import while_loop
from .primitives import factorizations as fz

_QR_CUTOFF = 100.0  # c above this: the QR step (the Cholesky one loses accuracy there)


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _adjoint(x):
    return snp.conj(snp.swapaxes(x, -1, -2))


def _weights(eps: float, max_iterations: int) -> list[tuple[float, float, float]]:
    """The (a, b, c) of each dynamically weighted step, until l is within 5 eps of 1."""
    steps, bound, tol = [], eps, 5.0 * eps
    while bound + tol < 1 and len(steps) < max_iterations:
        l2 = bound * bound
        d = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        root = (1 + d) ** 0.5
        a = root + (8 - 4 * d + 8 * (2 - l2) / (l2 * root)) ** 0.5 / 2
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        bound = bound * (a + b * l2) / (1 + c * l2)
        steps.append((a, b, c))
    return steps


def _qr_step(u, a: float, b: float, c: float):
    """u -> (b/c) u + (a - b/c)/sqrt(c) Q1 Q2^H with [Q1; Q2] the orthonormal factor of [sqrt(c) u; I]."""
    m, n = u.shape[-2:]
    stacked = snp.concatenate([math.sqrt(c) * u, snp.eye(n, dtype=u.dtype)], axis=-2)
    q, _ = fz.qr(stacked)
    return (b / c) * u + ((a - b / c) / math.sqrt(c)) * snp.matmul(q[..., :m, :], _adjoint(q[..., m:, :]))


def _cholesky_step(u, a: float, b: float, c: float):
    """u -> (b/c) u + (a - b/c) u (I + c u^H u)^-1, the inverse applied by the Cholesky factor."""
    n = u.shape[-1]
    low = fz.cholesky(snp.eye(n, dtype=u.dtype) + c * snp.matmul(_adjoint(u), u))
    y = fz.triangular_solve(low, _adjoint(u), left_side=True, lower=True)
    z = fz.triangular_solve(low, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True)
    return (b / c) * u + (a - b / c) * _adjoint(z)


@library()
def qdwh(x, *, is_hermitian: bool = False, max_iterations: int | None = None, eps: float | None = None,
         dynamic_shape=None):  # fmt: skip
    """``(u, h, num_iters, is_converged)``: the polar decomposition ``x = u @ h`` of a full-rank
    (m, n) matrix, m >= n (u with orthonormal columns, h Hermitian positive definite), the number
    of steps taken (int32) and whether u converged within ``max_iterations`` (default 10) steps.
    ``eps`` (default: the dtype's) sets the tolerance; ``is_hermitian`` is accepted and unused (as
    jax); ``dynamic_shape`` (padded inputs) is not offered."""
    del is_hermitian  # jax's is unused too
    if dynamic_shape is not None:
        raise _error("sg.lax.linalg.qdwh does not take padded inputs: pass dynamic_shape=None")
    x = snp.asarray(x)
    if x.ndim != 2 or x.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise _error(f"sg.lax.linalg.qdwh wants a float32/64 or complex matrix (m, n), got {x.type}")
    m, n = x.shape
    if m < n:
        raise _error(f"sg.lax.linalg.qdwh wants m >= n (a tall or square matrix), got {x.type}")
    steps_max = 10 if max_iterations is None else int(max_iterations)
    real = dtypes.real_part(x.dtype)
    eps = float(np.finfo(real.np).eps) if eps is None else float(eps)
    tol = (5.0 * eps) ** (1 / 3)

    one, inf = snp.linalg.norm(x, ord=1), snp.linalg.norm(x, ord=np.inf)
    scale = snp.where(one == 0, 1.0, snp.sqrt(one) * snp.sqrt(inf))  # >= the 2-norm
    u = x / snp.asarray(scale, x.dtype)

    weights = _weights(eps, steps_max)
    moving = snp.asarray(True)
    for a, b, c in weights:
        if c > _QR_CUTOFF:
            u = _qr_step(u, a, b, c)
        else:
            before, u = u, _cholesky_step(u, a, b, c)
            moving = snp.linalg.norm(u - before) > tol

    def more(state):
        k, _, still = state
        return snp.logical_and(still, k < steps_max)

    def halley(state):
        k, u, _ = state
        new = _cholesky_step(u, 3.0, 1.0, 3.0)
        return k + 1, new, snp.linalg.norm(new - u) > tol

    k, u, moving = while_loop(more, halley, (snp.asarray(len(weights), dtypes.int32), u, moving))
    u = 1.5 * u - 0.5 * snp.matmul(u, snp.matmul(_adjoint(u), u))
    h = snp.matmul(_adjoint(u), x)
    h = (h + _adjoint(h)) / 2
    return u, h, k, snp.logical_not(moving)


__all__ = ["qdwh"]
