"""Multivariate distributions: multivariate_normal and dirichlet (ops layer).

multivariate_normal.logpdf takes ``cov`` as scipy does (a scalar, the
diagonal as a vector, or a full (n, n) matrix, also batched) and works
through its Cholesky factor: one triangular solve for the Mahalanobis
term, the factor's diagonal for log det. dirichlet.logpdf takes the
components along the first axis of ``x`` (as scipy and jax), the last one
optional (it is 1 minus the others' sum).
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ...numpy_like.core import error
from ...primitives import factorizations
from ..special import gammaln, xlogy
from ._common import Distribution, const, floats


def _mahalanobis_and_logdet(y, cov):
    """(y^T cov^-1 y over the last axis of y, log det cov) for a (batch of) full covariance."""
    n = y.shape[-1]
    chol = snp.linalg.cholesky(cov)
    diag = snp.sum(chol * snp.eye(n, dtype=chol.dtype), axis=-1)
    log_det = const(2.0, y) * snp.sum(snp.log(diag), axis=-1)
    if cov.ndim == 2:  # one factor for every x: solve all of them at once
        lead = y.shape[:-1]
        cols = snp.reshape(y, (-1, n)).T
        z = factorizations.triangular_solve(chol, cols, left_side=True, lower=True)
        return snp.reshape(snp.sum(z * z, axis=0), lead), log_det
    batch = snp.broadcast_shapes(y.shape[:-1], cov.shape[:-2])
    chol = snp.broadcast_to(chol, (*batch, n, n))
    cols = snp.broadcast_to(y, (*batch, n))[..., None]
    z = factorizations.triangular_solve(chol, cols, left_side=True, lower=True)
    return snp.sum(z[..., 0] * z[..., 0], axis=-1), log_det


def _mvn_logpdf(x, mean=None, cov=1.0, allow_singular: bool = False):
    if allow_singular:
        raise error(
            "multivariate_normal.logpdf: allow_singular=True is not supported (it needs a pseudo-inverse)"
        )
    x, mean, cov = floats(x, 0.0 if mean is None else mean, cov)
    if mean.ndim == 0 and x.ndim == 0:  # one dimension: a normal with variance cov
        y = x - mean
        return const(-0.5, y) * (y * y / cov + snp.log(cov) + const(np.log(2 * np.pi), y))
    n = mean.shape[-1] if mean.ndim else x.shape[-1]
    y = x - mean
    if y.shape[-1] != n:
        raise error(
            f"multivariate_normal.logpdf: x and mean disagree on the dimension: {x.type} and {mean.type}"
        )
    log_2pi = const(n * np.log(2 * np.pi), y)
    if cov.ndim <= 1:  # isotropic or diagonal
        if cov.ndim == 1 and cov.shape[0] != n:
            raise error(f"multivariate_normal.logpdf wants a diagonal cov of length {n}, got {cov.type}")
        maha = snp.sum(y * y / cov, axis=-1)
        log_det = snp.sum(snp.broadcast_to(snp.log(cov), (n,)), axis=-1)
        return const(-0.5, y) * (maha + log_det + log_2pi)
    if tuple(cov.shape[-2:]) != (n, n):
        raise error(f"multivariate_normal.logpdf wants cov of shape (..., {n}, {n}), got {cov.type}")
    maha, log_det = _mahalanobis_and_logdet(y, cov)
    return const(-0.5, y) * (maha + log_det + log_2pi)


def _mvn_pdf(x, mean=None, cov=1.0, allow_singular: bool = False):
    return snp.exp(_mvn_logpdf(x, mean, cov, allow_singular))


multivariate_normal = Distribution(
    "multivariate_normal",
    "The multivariate normal distribution with mean and covariance cov (scalar, diagonal or full).",
    elementwise=False,
    logpdf=_mvn_logpdf,
    pdf=_mvn_pdf,
)


def _dirichlet_logpdf(x, alpha):
    x, alpha = floats(x, alpha)
    if alpha.ndim != 1:
        raise error(f"dirichlet.logpdf wants a 1-d alpha, got {alpha.type}")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise error(
            f"dirichlet.logpdf wants x with {k} or {k - 1} entries along its first axis, got {x.type}"
        )
    one = const(1.0, x)
    if x.shape[0] == k - 1:
        x = snp.concatenate([x, one - snp.sum(x, axis=0, keepdims=True)], axis=0)
    a = snp.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
    log_norm = snp.sum(gammaln(alpha)) - gammaln(snp.sum(alpha))
    out = snp.sum(xlogy(a - one, x), axis=0) - log_norm
    on_simplex = snp.all((x >= const(0.0, x)) & (x <= one), axis=0) & (
        snp.abs(snp.sum(x, axis=0) - one) < const(1e3 * np.finfo(x.dtype.np).eps, x)
    )
    return snp.where(on_simplex, out, const(-np.inf, x))


def _dirichlet_pdf(x, alpha):
    return snp.exp(_dirichlet_logpdf(x, alpha))


dirichlet = Distribution(
    "dirichlet",
    "The Dirichlet distribution on the simplex (components along the first axis of x).",
    elementwise=False,
    logpdf=_dirichlet_logpdf,
    pdf=_dirichlet_pdf,
)

__all__ = ["dirichlet", "multivariate_normal"]
