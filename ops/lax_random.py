"""jax.lax's random-number names: RandomAlgorithm, rng_bit_generator, rng_uniform and
random_gamma_grad (ops layer; the generators are the primitives of ops/primitives/rng_bits.py).

random_gamma_grad is the implicit derivative of a Gamma(a, 1) sample ``x`` with respect to its
shape ``a``: holding the CDF P(a, x) fixed, dx/da = -(dP/da) / (dP/dx), with dP/da the
igamma_grad_a primitive and dP/dx the Gamma density. It is 0 at x = 0 and where the density
underflows, NaN where a <= 0, x < 0 or either is NaN, as jax's.
"""

from __future__ import annotations

import enum

import ml_dtypes
import numpy as np

from ..graph import GraphError, Tensor, dtypes, library, located, user_location
from . import numpy_like as snp
from .control_api import while_loop
from .primitives import constants
from .primitives import transcendental as tr
from .primitives.registry import bind
from .primitives.rng_bits import rng_bit_generator as _rng_bit_generator
from .primitives.rng_bits import rng_uniform as _rng_uniform

__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_uniform", "random_gamma_grad"]


class RandomAlgorithm(enum.IntEnum):
    """The generator rng_bit_generator runs, as jax.lax.RandomAlgorithm: the platform's default,
    Threefry-2x32 or Philox-4x32 (XLA's CPU default is Philox)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


_ALGORITHM_NAMES = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT", RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                    RandomAlgorithm.RNG_PHILOX: "PHILOX"}  # fmt: skip


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _tensor(x, dtype=None) -> Tensor:
    return x if isinstance(x, Tensor) else constants.constant(np.asarray(x, dtype))


def rng_bit_generator(
    key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *, out_sharding=None
):
    """``(new_key, bits)``: uniformly random ``bits`` of ``shape`` and an unsigned ``dtype``
    (uint8/16/32/64) from ``key`` (uint32[4], or uint64[2]) by ``algorithm``, and the key for the
    next draw; as jax.lax.rng_bit_generator, with the same values for the same key and algorithm.
    Under vectorize each key draws its own bits. Lowers to ``stablehlo.rng_bit_generator``."""
    try:
        name = _ALGORITHM_NAMES[RandomAlgorithm(algorithm)]
    except ValueError:
        raise _error(f"rng_bit_generator wants a RandomAlgorithm, got {algorithm!r}") from None
    dt = dtypes.dtype(dtype)
    if dt.name not in ("uint8", "uint16", "uint32", "uint64"):
        raise _error(f"rng_bit_generator: unsupported dtype {dt.name} (it makes uint8, 16, 32 or 64 bits)")
    return _rng_bit_generator(_tensor(key, np.uint32), tuple(shape), dt, name)


def rng_uniform(a, b, shape):
    """Values uniform in [a, b) of ``shape`` from XLA's stateful generator (``a``, ``b`` scalars
    of one dtype), as jax.lax.rng_uniform: not reproducible from run to run; use sg.random for
    keyed draws. Lowers to ``stablehlo.rng``."""
    a = _tensor(a, b.dtype.np if isinstance(b, Tensor) else None)
    b = _tensor(b, a.dtype.np)
    return _rng_uniform(a, b, tuple(shape))


@library()
def random_gamma_grad(a, x):
    """d x / d a for a sample ``x`` of Gamma(``a``, 1) held at its CDF (the implicit
    reparameterization gradient of gamma samplers), as jax.lax.random_gamma_grad.

    It is -(dP/da) / f with P(a, x) the regularized lower incomplete gamma and f the density
    x^(a-1) e^-x / Gamma(a). Where x <= max(a, 1), P = f (x / a) S with S = sum_n x^n / (a+1)...(a+n),
    so the ratio is (x / a) ((log x - digamma(a + 1)) S + dS/da), summed directly (f may
    underflow there although the ratio does not: a = 10^4, x = 1); elsewhere dP/da is the
    igamma_grad_a primitive. Computed in float64, returned in the operands' dtype; 0 at x = 0 (and
    where the density underflows past the mode), NaN for a <= 0, x < 0, x = inf or NaN.
    """
    like = a if isinstance(a, Tensor) else x if isinstance(x, Tensor) else None
    dtype = None if like is None else like.dtype.np  # a Python number takes the Tensor operand's dtype
    a, x = _tensor(a, dtype), _tensor(x, dtype)
    if a.dtype.kind != "f" or x.dtype is not a.dtype:
        raise _error(f"random_gamma_grad wants a and x of one floating dtype, got {a.type} and {x.type}")
    given = a.dtype
    a, x = snp.broadcast_arrays(a, x)
    # subnormal x count as zeros (XLA flushes them on the CPU, inconsistently once in float64)
    at_zero = snp.abs(x) < float(ml_dtypes.finfo(given.np).tiny)
    bad = ((x < 0) & ~at_zero) | (a <= 0) | snp.isnan(a) | snp.isnan(x) | snp.isinf(x)
    a, x = snp.astype(a, snp.float64), snp.astype(snp.where(at_zero, 0, x), snp.float64)
    series = (x <= snp.maximum(a, 1.0)) & ~bad
    ratio = _series_ratio(snp.where(series, a, 1.0), snp.where(series, x, 0.0))
    density = snp.exp((a - 1) * snp.log(x) - x - bind(tr.lgamma, a))
    upper = -bind(tr.igamma_grad_a, a, x) / density
    out = snp.where(series, -ratio, snp.where(density == 0, 0.0, upper))
    out = snp.where(at_zero, 0.0, out)
    return snp.astype(snp.where(bad, np.nan, out), given)


_SERIES_STEPS = 4000  # terms shrink by x / (a + n) <= a / (a + n): a = 10^6 at x = a needs ~ 3000


def _series_ratio(a: Tensor, x: Tensor) -> Tensor:
    """(dP/da) / f by the lower series: (x / a) ((log x - digamma(a + 1)) S + dS/da)."""
    eps = np.finfo(np.float64).eps

    def going(state):  # an unbounded loop: a bounded one (a scan) would always run every step
        n, term, dterm, total, dtotal = state
        big = (snp.abs(term) > eps * snp.abs(total)) | (snp.abs(dterm) > eps * snp.abs(dtotal))
        return snp.any(big) & (n < _SERIES_STEPS)

    def step(state):
        n, term, dterm, total, dtotal = state
        n = n + 1.0
        shrink = x / (a + n)
        term, dterm = term * shrink, dterm * shrink - term * shrink / (a + n)
        return n, term, dterm, total + term, dtotal + dterm

    ones, zeros = snp.ones_like(x), snp.zeros_like(x)
    init = (snp.float64(0.0), ones, zeros, ones, zeros)
    _, _, _, total, dtotal = while_loop(going, step, init)
    log_x = snp.log(snp.where(x > 0, x, 1.0))
    # digamma(a) + 1/a is digamma(a + 1): summed apart they cancel for tiny a (1/a = 1e38)
    return x / a * ((log_x - bind(tr.digamma, a + 1)) * total + dtotal)
