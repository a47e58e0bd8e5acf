"""More samplers as transforms of uniform, normal and gamma draws (sg.random, ops layer).

Each follows the construction of the jax.random function of the same name,
argument order and defaults included (float32 / int32 where jax's default
dtype is float / int), so that for one key the numbers agree with jax bit
for bit where the arithmetic is the same: exponential, laplace, logistic,
cauchy, weibull_min, rademacher, maxwell, double_sided_maxwell, geometric,
pareto, rayleigh, lognormal, triangular, wald. Those built on gamma (t,
chisquare, f, generalized_normal, ball) follow jax's construction but
inherit gamma's own rejection sampler, so they agree with jax in
distribution only (tests/ops/test_random_more.py checks which is which).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ...graph import Tensor, dtypes, library
from ...graph.dims import check_shape
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error
from ..numpy_like.ufuncs import xla_log1p
from ..random_keys import split
from .distributions import bernoulli, gamma, loggamma, normal, uniform


def _float(dtype, who: str) -> dtypes.DType:
    dt = dtypes.dtype(dtype)
    if dt.kind != "f":
        raise error(f"{who} wants a real floating dtype, got {dt.name}")
    return dt


def _int(dtype, who: str) -> dtypes.DType:
    dt = dtypes.dtype(dtype)
    if dt.kind not in "iu":
        raise error(f"{who} wants an integer dtype, got {dt.name}")
    return dt


def _shape(shape, who: str, *param_shapes) -> tuple:
    """``shape``, or the broadcast shape of the parameters when it is None."""
    if shape is None:
        return snp.broadcast_shapes(*param_shapes)
    try:
        return check_shape(shape)
    except Exception as e:  # noqa: BLE001  (a bad dim: say which call)
        raise error(f"{who} wants a shape of ints and symbols, got {shape!r}") from e


def _param(value, dt: dtypes.DType) -> Tensor:
    return asarray(value, dt)


def _reciprocal(value, dt: dtypes.DType):
    """1 / value: for a Python number computed in Python and rounded once to ``dt`` (as jax's weak
    scalars are), else in ``dt``."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return np.asarray(1.0 / value, dt.np)
    return _c(1.0, dt) / _param(value, dt)


def _finfo(dt: dtypes.DType):
    return ml_dtypes.finfo(dt.np)


def _c(value, dt: dtypes.DType) -> np.ndarray:
    return np.asarray(value, dt.np)


# -- inverse-CDF transforms of one uniform draw ----------------------------------------------------
@library()
def exponential(key, shape=(), dtype=dtypes.float32) -> Tensor:
    """Standard exponential floats: ``-log1p(-u)`` for u uniform in [0, 1)."""
    dt = _float(dtype, "exponential")
    return -xla_log1p(-uniform(key, _shape(shape, "exponential"), dt))


@library()
def laplace(key, shape=(), dtype=dtypes.float32) -> Tensor:
    """Standard Laplace floats: ``sign(u) * log1p(-|u|)`` for u uniform in (-1, 1)."""
    dt = _float(dtype, "laplace")
    u = uniform(key, _shape(shape, "laplace"), dt, -1.0 + float(_finfo(dt).epsneg), 1.0)
    return snp.sign(u) * xla_log1p(-snp.abs(u))


@library()
def logistic(key, shape=(), dtype=dtypes.float32) -> Tensor:
    """Standard logistic floats: ``log(u) - log1p(-u)`` for u uniform in (0, 1)."""
    dt = _float(dtype, "logistic")
    u = uniform(key, _shape(shape, "logistic"), dt, float(_finfo(dt).tiny), 1.0)
    return snp.log(u) - xla_log1p(-u)


@library()
def cauchy(key, shape=(), dtype=dtypes.float32) -> Tensor:
    """Standard Cauchy floats: ``tan(pi (u - 1/2))`` for u uniform in (0, 1)."""
    dt = _float(dtype, "cauchy")
    u = uniform(key, _shape(shape, "cauchy"), dt, float(_finfo(dt).eps), 1.0)
    return snp.tan(_c(np.pi, dt) * (u - _c(0.5, dt)))


@library()
def weibull_min(key, scale, concentration, shape=(), dtype=dtypes.float32) -> Tensor:
    """Weibull floats: ``scale * (-log1p(-u)) ** (1 / concentration)``."""
    dt = _float(dtype, "weibull_min")
    u = uniform(key, _shape(shape, "weibull_min"), dt)
    return snp.power(-xla_log1p(-u), _reciprocal(concentration, dt)) * _param(scale, dt)


@library()
def pareto(key, b, shape=None, dtype=dtypes.float32) -> Tensor:
    """Pareto floats with shape ``b``: ``exp(e / b)`` for e standard exponential."""
    dt = _float(dtype, "pareto")
    b = _param(b, dt)
    e = exponential(key, _shape(shape, "pareto", b.shape), dt)
    return snp.exp(e / b)


@library()
def rayleigh(key, scale, shape=None, dtype=dtypes.float32) -> Tensor:
    """Rayleigh floats: ``scale * sqrt(-2 log(u))`` for u uniform in (0, 1)."""
    dt = _float(dtype, "rayleigh")
    scale = _param(scale, dt)
    shape = _shape(shape, "rayleigh", scale.shape)
    u = uniform(key, shape, dt, 0.0, 1.0)
    return snp.sqrt(_c(-2.0, dt) * snp.log(u)) * snp.broadcast_to(scale, shape)


@library()
def lognormal(key, sigma=1.0, shape=None, dtype=dtypes.float32) -> Tensor:
    """Log-normal floats: ``exp(sigma * z)`` for z standard normal."""
    dt = _float(dtype, "lognormal")
    sigma = _param(sigma, dt)
    return snp.exp(normal(key, _shape(shape, "lognormal", sigma.shape), dt) * sigma)


@library()
def triangular(key, left, mode, right, shape=None, dtype=dtypes.float32) -> Tensor:
    """Triangular floats on [left, right] peaking at ``mode`` (inverse CDF of one uniform)."""
    dt = _float(dtype, "triangular")
    left, mode, right = (_param(v, dt) for v in (left, mode, right))
    shape = _shape(shape, "triangular", left.shape, mode.shape, right.shape)
    u = uniform(key, shape, dt)
    cut = (mode - left) / (right - left)
    low = left + snp.sqrt(u * (right - left) * (mode - left))
    high = right - snp.sqrt((_c(1.0, dt) - u) * (right - left) * (right - mode))
    return snp.where(u < cut, low, high)


@library()
def wald(key, mean, shape=None, dtype=dtypes.float32) -> Tensor:
    """Wald (inverse Gaussian, scale 1) floats by Michael, Schucany and Haas' transform."""
    dt = _float(dtype, "wald")
    mean = _param(mean, dt)
    shape = _shape(shape, "wald", mean.shape)
    k1, k2 = split(key)
    v = normal(k1, shape, dt)
    z = uniform(k2, shape, dt)
    y = v * v
    y_sq = y * y
    mean_sq = mean * mean
    sqrt_term = snp.sqrt(_c(4.0, dt) * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / _c(2.0, dt) - mean / _c(2.0, dt) * sqrt_term
    return snp.where(z <= mean / (mean + x), x, mean_sq / x)


# -- from bernoulli and normal draws ---------------------------------------------------------------
@library()
def rademacher(key, shape=(), dtype=dtypes.int32) -> Tensor:
    """-1 or +1 with equal probability (``2 b - 1`` for a fair bernoulli b)."""
    dt = dtypes.dtype(dtype)
    b = bernoulli(key, 0.5, _shape(shape, "rademacher")).astype(dt)
    return (b * _c(2, dt) - _c(1, dt)).astype(dt)


@library()
def maxwell(key, shape=(), dtype=dtypes.float32) -> Tensor:
    """Maxwell floats: the length of a standard normal 3-vector."""
    dt = _float(dtype, "maxwell")
    z = normal(key, (*_shape(shape, "maxwell"), 3), dt)
    return snp.sqrt(snp.sum(z * z, axis=-1))


@library()
def double_sided_maxwell(key, loc, scale, shape=(), dtype=dtypes.float32) -> Tensor:
    """Maxwell lengths with a random sign, scaled by ``scale`` and moved by ``loc``."""
    dt = _float(dtype, "double_sided_maxwell")
    loc, scale = _param(loc, dt), _param(scale, dt)
    params = snp.broadcast_shapes(loc.shape, scale.shape)
    # as jax: an empty shape means the parameters' shape, which is then appended once more
    shape = (*(tuple(_shape(shape, "double_sided_maxwell")) or params), *params)
    k1, k2 = split(key)
    lengths = maxwell(k1, shape, dt)
    signs = rademacher(k2, shape, dt)
    return lengths * signs * scale + loc


@library()
def geometric(key, p, shape=None, dtype=dtypes.int32) -> Tensor:
    """Trials up to the first success: ``floor(log(u) / log1p(-p)) + 1``, integers."""
    dt = _int(dtype, "geometric")
    p = asarray(p)
    if p.dtype.kind != "f":
        p = p.astype(dtypes.float32)
    shape = _shape(shape, "geometric", p.shape)
    u = uniform(key, shape, p.dtype)
    u = snp.where(u == 0.0, _c(1.0, p.dtype), u)  # jax's guard against log(0)
    log_q = snp.broadcast_to(xla_log1p(-p), shape)
    return (snp.floor(snp.log(u) / log_q) + _c(1.0, p.dtype)).astype(dt)


# -- built on gamma (agree with jax in distribution) -----------------------------------------------
@library()
def t(key, df, shape=None, dtype=dtypes.float32) -> Tensor:
    """Student's t floats: ``z * sqrt((df / 2) / g)`` for z normal and g Gamma(df / 2)."""
    dt = _float(dtype, "t")
    df = _param(df, dt)
    shape = _shape(shape, "t", df.shape)
    k_n, k_g = split(key)
    z = normal(k_n, shape, dt)
    half_df = df / _c(2.0, dt)
    return z * snp.sqrt(half_df / gamma(k_g, half_df, shape, dt))


@library()
def chisquare(key, df, shape=None, dtype=dtypes.float32) -> Tensor:
    """Chi-squared floats: ``2 g`` for g Gamma(df / 2) (drawn in log space)."""
    dt = _float(dtype, "chisquare")
    df = _param(df, dt)
    shape = _shape(shape, "chisquare", df.shape)
    return snp.exp(loggamma(key, df / _c(2.0, dt), shape, dt)) * _c(2.0, dt)


@library()
def f(key, dfnum, dfden, shape=None, dtype=dtypes.float32) -> Tensor:
    """F floats: the ratio of two chi-squared draws, each over its degrees of freedom."""
    dt = _float(dtype, "f")
    dfnum, dfden = _param(dfnum, dt), _param(dfden, dt)
    shape = _shape(shape, "f", dfnum.shape, dfden.shape)
    k_den, k_num = split(key)
    return (chisquare(k_num, dfnum, shape, dt) / dfnum) / (chisquare(k_den, dfden, shape, dt) / dfden)


@library()
def generalized_normal(key, p, shape=(), dtype=dtypes.float32) -> Tensor:
    """Generalized normal floats, density ~ exp(-|x|**p): ``r * g ** (1 / p)``, g Gamma(1 / p), r = +-1."""
    dt = _float(dtype, "generalized_normal")
    shape = _shape(shape, "generalized_normal")
    k1, k2 = split(key)
    inv_p = _reciprocal(p, dt)
    g = gamma(k1, inv_p, shape, dt)
    return rademacher(k2, shape, dt) * snp.power(g, inv_p)


@library()
def ball(key, d: int, p=2, shape=(), dtype=dtypes.float32) -> Tensor:
    """Points uniform in the unit ``p``-norm ball of dimension ``d``: ``shape + (d,)``."""
    dt = _float(dtype, "ball")
    if not isinstance(d, int) or d < 1:
        raise error(f"ball wants a positive int dimension d, got {d!r}")
    shape = tuple(_shape(shape, "ball"))
    k1, k2 = split(key)
    g = generalized_normal(k1, p, (*shape, d), dt)
    e = exponential(k2, shape, dt)
    power = p if isinstance(p, int) else _param(p, dt)
    radius = snp.power(snp.sum(snp.power(snp.abs(g), power), axis=-1) + e, _reciprocal(p, dt))
    return g / snp.expand_dims(radius, -1)


__all__ = [
    "ball", "cauchy", "chisquare", "double_sided_maxwell", "exponential", "f", "generalized_normal", "geometric",
    "laplace", "logistic", "lognormal", "maxwell", "pareto", "rademacher", "rayleigh", "t", "triangular", "wald",
    "weibull_min",
]  # fmt: skip
