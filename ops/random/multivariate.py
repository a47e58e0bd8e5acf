"""Samplers of vectors and matrices built on factorizations: multivariate_normal, orthogonal (sg.random, ops layer).

Both follow jax.random's construction: ``mean + factor @ z`` for z
standard normal with the factor from cholesky (default), eigh or svd of
``cov``; and the Q of a QR factorization of a normal matrix with its
columns' signs fixed by R's diagonal (Mezzadri's recipe), so the result is
Haar-distributed on the orthogonal group.
"""

from __future__ import annotations

from ...graph import Tensor, dtypes, library
from ...graph.dims import check_shape
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error, result_dtype
from .distributions import normal


def _factor(cov: Tensor, method: str) -> Tensor:
    """A matrix F with F F^T = cov."""
    if method == "cholesky":
        return snp.linalg.cholesky(cov)
    if method == "eigh":
        w, v = snp.linalg.eigh(cov)
        return v * snp.sqrt(w)[..., None, :]
    u, s, _ = snp.linalg.svd(cov)
    return u * snp.sqrt(s)[..., None, :]


@library()
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky") -> Tensor:
    """Normal vectors with ``mean`` (..., n) and covariance ``cov`` (..., n, n), as jax.random.multivariate_normal.

    The result has ``shape + (n,)`` (``shape`` defaults to the broadcast batch
    shape of mean and cov); ``method`` picks the factor of cov: "cholesky",
    "eigh" or "svd".
    """
    if method not in ("cholesky", "eigh", "svd"):
        raise error(f"multivariate_normal wants method 'cholesky', 'eigh' or 'svd', got {method!r}")
    dt = result_dtype(mean, cov)
    if not dt.is_inexact:
        dt = dtypes.float32
    mean, cov = asarray(mean, dt), asarray(cov, dt)
    out_dt = dt if dtype is None else dtypes.dtype(dtype)
    if out_dt.kind != "f":
        raise error(f"multivariate_normal wants a floating dtype, got {out_dt.name}")
    if mean.ndim < 1 or cov.ndim < 2:
        raise error(
            f"multivariate_normal wants mean of rank >= 1 and cov of rank >= 2, got {mean.type} and {cov.type}"
        )
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise error(
            f"multivariate_normal wants cov of shape (..., {n}, {n}) for mean {mean.type}, got {cov.type}"
        )
    batch = snp.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    shape = batch if shape is None else check_shape(shape)
    if snp.broadcast_shapes(tuple(shape), batch) != tuple(shape):
        raise error(
            f"multivariate_normal: shape {shape} does not hold the batch shape {batch} of mean and cov"
        )
    z = normal(key, (*shape, n), out_dt)
    factor = _factor(cov, method)
    return mean + snp.einsum("...ij,...j->...i", factor, z)


@library()
def orthogonal(key, n: int, shape=(), dtype=dtypes.float32, m: int | None = None) -> Tensor:
    """Haar-random orthogonal (n, m) matrices (semi-orthogonal if m != n) of ``shape + (n, m)``."""
    m = n if m is None else m
    if not (isinstance(n, int) and isinstance(m, int) and n > 0 and m > 0):
        raise error(f"orthogonal wants positive int sizes, got n={n!r}, m={m!r}")
    dt = dtypes.dtype(dtype)
    if dt.kind != "f":
        raise error(f"orthogonal wants a real floating dtype, got {dt.name}")
    shape = tuple(check_shape(shape))
    z = normal(key, (*shape, max(n, m), min(n, m)), dt)
    q, r = snp.linalg.qr(z)
    signs = snp.sign(snp.linalg.diagonal(r))
    x = q * snp.expand_dims(signs, -2)
    return snp.swapaxes(x, -1, -2) if n < m else x


__all__ = ["multivariate_normal", "orthogonal"]
