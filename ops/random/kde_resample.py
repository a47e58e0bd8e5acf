"""gaussian_kde.resample: draws from a kernel density estimate (ops layer, sg.random).

The estimate lives in sg.scipy.stats, a layer below sg.random, so its one method that draws is
made here and handed to late_bound, which the class's method calls: an index per draw by the weights, plus a normal offset with
the kernel covariance, as jax's resample (the same numbers for one key).
"""

from __future__ import annotations

import numbers

from .. import late_bound
from .. import numpy_like as snp
from ..random_keys import split
from .distributions import choice
from .multivariate import multivariate_normal


def resample(self, key, shape=()):
    """Draws from the estimate: shape (d, *shape)."""
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    ind_key, eps_key = split(key)
    ind = choice(ind_key, self.n, shape=shape, p=self.weights)
    zero = snp.zeros((self.d,), self.covariance.dtype)
    eps = multivariate_normal(eps_key, zero, self.covariance, shape=shape, dtype=self.dataset.dtype)
    return snp.take(self.dataset, ind, axis=1) + snp.moveaxis(eps, -1, 0)


late_bound.provide("gaussian_kde.resample", resample)  # sg.scipy.stats.gaussian_kde calls it
