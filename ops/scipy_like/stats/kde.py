"""gaussian_kde: a kernel density estimate with Gaussian kernels, as scipy.stats.gaussian_kde
(and jax.scipy.stats.gaussian_kde) (ops layer).

The estimate is a mixture of one Gaussian per data point, all with the data's (weighted)
covariance times ``factor**2``, the bandwidth factor (Scott's or Silverman's rule, a number,
or a callable of the estimator). Densities go through the Cholesky factor of the inverse
covariance: the data and the points are whitened once, and each density is a (log-)sum of
exp(-|x - x_i|^2 / 2) terms. The object holds Tensors of the graph it was built in;
``d`` and ``n`` are static.
"""

from __future__ import annotations

import numbers

import numpy as np

from ....graph import Tensor
from ... import late_bound
from ... import numpy_like as snp
from ...numpy_like.core import asarray, error
from ..linalg import cho_factor, cho_solve
from ..special import logsumexp, ndtr


def _inexact(x: Tensor) -> Tensor:
    if x.dtype.kind == "c":
        raise error(f"gaussian_kde does not take complex data, got {x.type}")
    return x if x.dtype.kind == "f" else x.astype("float32")


class gaussian_kde:  # noqa: N801  (scipy's and jax's name)
    """A Gaussian kernel density estimate of ``dataset`` (shape (n,) or (d, n)), with
    ``bw_method`` "scott" (default), "silverman", a number or a callable of the estimator,
    and optional ``weights`` (n,). ``kde(points)`` is its density at ``points`` ((d, m))."""

    def __init__(self, dataset, bw_method=None, weights=None):
        data = _inexact(snp.atleast_2d(asarray(dataset)))
        if data.ndim != 2 or not all(isinstance(s, int) for s in data.shape):
            raise error(f"gaussian_kde wants a static 1-d or 2-d dataset, got {data.type}")
        d, n = data.shape
        if n < 2:
            raise error(
                f"gaussian_kde needs 2 or more data points, got a dataset of shape {tuple(data.shape)}"
            )
        if weights is None:
            w = snp.full((n,), 1.0 / n, dtype=data.dtype)
        else:
            w = snp.atleast_1d(asarray(weights))
            if w.ndim != 1 or w.shape[0] != n:
                raise error(f"gaussian_kde wants weights of shape ({n},), got {w.type}")
            dt = snp.result_type(data.dtype, w.dtype)
            dt = dt if dt.kind == "f" else data.dtype
            data, w = data.astype(dt), w.astype(dt)
            w = w / snp.sum(w)
        self.dataset, self.weights = data, w
        self.neff = 1.0 / snp.sum(w * w)
        self.set_bandwidth(bw_method)

    @property
    def d(self) -> int:
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        return self.dataset.shape[1]

    def scotts_factor(self) -> Tensor:
        """Scott's rule: neff ** (-1 / (d + 4))."""
        return snp.power(self.neff, -1.0 / (self.d + 4))

    def silverman_factor(self) -> Tensor:
        """Silverman's rule: (neff (d + 2) / 4) ** (-1 / (d + 4))."""
        return snp.power(self.neff * (self.d + 2) / 4.0, -1.0 / (self.d + 4))

    def covariance_factor(self) -> Tensor:
        """The bandwidth factor the estimate uses (what ``bw_method`` chose)."""
        return self._factor_fn()

    def set_bandwidth(self, bw_method=None) -> None:
        """Choose the bandwidth again ("scott", "silverman", a number or a callable of the
        estimator) and recompute the kernel covariance (scipy's method; jax's refuses)."""
        if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
            self._factor_fn = self.scotts_factor
        elif isinstance(bw_method, str) and bw_method == "silverman":
            self._factor_fn = self.silverman_factor
        elif (
            isinstance(bw_method, numbers.Real | np.ndarray | np.generic | Tensor) and np.ndim(bw_method) == 0
        ):
            value = bw_method
            self._factor_fn = lambda: asarray(value).astype(self.dataset.dtype)
        elif callable(bw_method):
            fn = bw_method
            self._factor_fn = lambda: asarray(fn(self)).astype(self.dataset.dtype)
        else:
            raise error(
                f"gaussian_kde's bw_method is 'scott', 'silverman', a scalar or a callable, got {bw_method!r}"
            )
        self.factor = self._factor_fn()
        cov = snp.atleast_2d(snp.cov(self.dataset, rowvar=True, bias=False, aweights=self.weights))
        self._data_covariance = cov
        self.covariance = cov * self.factor**2
        self.inv_cov = snp.linalg.inv(cov) / self.factor**2

    def _points(self, points) -> Tensor:
        x = _inexact(snp.atleast_2d(asarray(points)))
        if x.ndim != 2:
            raise error(f"gaussian_kde wants points of shape (d, m) with d = {self.d}, got {x.type}")
        if x.shape[0] != self.d:
            if x.shape[0] == 1 and x.shape[1] == self.d:
                return snp.reshape(x, (self.d, 1))
            raise error(f"points have dimension {x.shape[0]}, the dataset has dimension {self.d}")
        return x

    def _log_terms(self, points) -> tuple[Tensor, Tensor]:
        """(log of each point's kernel terms, shape (m, n), without the weights; the log weights)."""
        x = self._points(points)
        dt = snp.result_type(x.dtype, self.dataset.dtype)
        x, data, inv = x.astype(dt), self.dataset.astype(dt), self.inv_cov.astype(dt)
        white = snp.linalg.cholesky(inv)  # inv = L L^T: |L^T v|^2 is the Mahalanobis length
        log_norm = snp.sum(snp.log(snp.diagonal(white))) - 0.5 * self.d * float(np.log(2 * np.pi))
        xw, dw = snp.matmul(x.T, white), snp.matmul(data.T, white)  # (m, d), (n, d)
        sq = snp.sum(snp.square(xw[:, None, :] - dw[None, :, :]), axis=-1)
        return log_norm - 0.5 * sq, snp.log(self.weights.astype(dt))

    def evaluate(self, points) -> Tensor:
        """The density at each of ``points`` ((d, m); a (m,) vector when d == 1): shape (m,)."""
        terms, log_w = self._log_terms(points)
        return snp.sum(snp.exp(terms + log_w[None, :]), axis=1)

    __call__ = evaluate

    def pdf(self, x) -> Tensor:
        """The same as ``evaluate``."""
        return self.evaluate(x)

    def logpdf(self, x) -> Tensor:
        """The log density at each point (a log-sum-exp: no underflow far from the data)."""
        terms, log_w = self._log_terms(x)
        return logsumexp(terms + log_w[None, :], axis=1)

    def _convolve(self, chol, means: Tensor, mean_weights: Tensor, data: Tensor, weights: Tensor) -> Tensor:
        """sum_j v_j sum_i w_i N(mean_j; data_i, C) for the C whose Cholesky factor is ``chol``:
        ``means`` (d, k) with weights v (k,), ``data`` (d, n) with weights w (n,)."""
        k, n = means.shape[1], data.shape[1]
        diff = snp.reshape(data[:, None, :] - means[:, :, None], (self.d, k * n))
        alpha = cho_solve(chol, diff)
        quad = snp.reshape(0.5 * snp.sum(diff * alpha, axis=0), (k, n))
        norm = float(np.sqrt(2 * np.pi)) ** self.d * snp.prod(snp.diagonal(chol[0]))
        return snp.sum(snp.exp(-quad) * weights[None, :] * mean_weights[:, None]) / norm

    def integrate_gaussian(self, mean, cov) -> Tensor:
        """The integral of the estimate times the Gaussian N(mean, cov)."""
        mean = snp.atleast_1d(snp.squeeze(asarray(mean))).astype(self.dataset.dtype)
        cov = snp.atleast_2d(asarray(cov)).astype(self.dataset.dtype)
        if tuple(mean.shape) != (self.d,):
            raise error(f"integrate_gaussian wants a mean of dimension {self.d}, got {mean.type}")
        if tuple(cov.shape) != (self.d, self.d):
            raise error(
                f"integrate_gaussian wants a covariance of shape ({self.d}, {self.d}), got {cov.type}"
            )
        chol = cho_factor(self.covariance + cov)
        one = snp.ones((1,), self.dataset.dtype)
        return self._convolve(chol, mean[:, None], one, self.dataset, self.weights)

    def integrate_box_1d(self, low, high) -> Tensor:
        """The estimate's mass in [low, high] (1-d estimates only)."""
        if self.d != 1:
            raise error(f"integrate_box_1d only takes 1-d estimates, this one has d = {self.d}")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise error("integrate_box_1d wants scalar limits")
        sigma = snp.sqrt(self.covariance[0, 0])
        lo = (asarray(low) - self.dataset[0]) / sigma
        hi = (asarray(high) - self.dataset[0]) / sigma
        return snp.sum(self.weights * (ndtr(hi) - ndtr(lo)))

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not built: it needs the multivariate normal CDF (use integrate_box_1d in 1-d)."""
        raise error("gaussian_kde.integrate_box needs a multivariate normal CDF, which is not built; "
                    "use integrate_box_1d for 1-d estimates")  # fmt: skip

    def integrate_kde(self, other: gaussian_kde) -> Tensor:
        """The integral of the product of this estimate and ``other``."""
        if other.d != self.d:
            raise error(f"integrate_kde wants estimates of one dimension, got {self.d} and {other.d}")
        chol = cho_factor(self.covariance + other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        return self._convolve(chol, small.dataset, small.weights, large.dataset, large.weights)

    def resample(self, key, shape=()) -> Tensor:
        """Draws from the estimate: shape (d, *shape). sg.random, a layer above this one, draws
        (ops/random/kde_resample.py hands its function to late_bound)."""
        return late_bound.provided("gaussian_kde.resample", "stablegraph.ops.random")(self, key, shape)


__all__ = ["gaussian_kde"]
