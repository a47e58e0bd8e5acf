"""jax.lax's random-number names: RandomAlgorithm, rng_bit_generator, rng_uniform and
random_gamma_grad (ops layer; the generators are the primitives of ops/primitives/rng_bits.py).

random_gamma_grad is the implicit derivative of a Gamma(a, 1) sample ``x`` with respect to its
shape ``a``: holding the CDF P(a, x) fixed, dx/da = -(dP/da) / (dP/dx), with dP/da the
igamma_grad_a primitive and dP/dx the Gamma density. It is 0 at x = 0 and where the density
underflows, NaN where a <= 0, x < 0 or either is NaN, as jax's.
"""

from __future__ import annotations

import enum

import numpy as np

from ..graph import GraphError, Tensor, dtypes, library, located, user_location
from .primitives import constants, prims
from .primitives import elementwise as ew
from .primitives import transcendental as tr
from .primitives.compare import convert
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
    reparameterization gradient sg.random.gamma-style samplers use), as jax.lax.random_gamma_grad.

    ``-igamma_grad_a(a, x) / (x^(a-1) e^-x / Gamma(a))``, computed in float64 and returned in
    the operands' dtype; 0 at x = 0 and where the density underflows, NaN for a <= 0, x < 0 or NaN.
    """
    like = a if isinstance(a, Tensor) else x if isinstance(x, Tensor) else None
    dtype = None if like is None else like.dtype.np  # a Python number takes the Tensor operand's dtype
    a, x = _tensor(a, dtype), _tensor(x, dtype)
    if a.dtype.kind != "f" or x.dtype is not a.dtype:
        raise _error(f"random_gamma_grad wants a and x of one floating dtype, got {a.type} and {x.type}")
    shape = np.broadcast_shapes(tuple(a.shape), tuple(x.shape))
    a, x = (prims.broadcast_in_dim(v, shape, tuple(range(len(shape) - v.ndim, len(shape)))) for v in (a, x))
    given = a.dtype
    wide = (
        dtypes.float64
    )  # float32's density underflows in the tail (x = 200, a = 3) where the ratio does not
    a, x = convert(a, wide), convert(x, wide)
    zero, nan = _full(x, 0.0), _full(x, np.nan)
    log_density = prims.sub(prims.sub(prims.mul(prims.sub(a, _full(a, 1.0)), bind(ew.log, x)), x),
                            bind(tr.lgamma, a))  # fmt: skip
    density = bind(ew.exp, log_density)
    out = prims.neg(prims.div(bind(tr.igamma_grad_a, a, x), density))
    out = prims.select(_any(prims.compare(x, zero, "EQ"), prims.compare(density, zero, "EQ")), zero, out)
    bad = _any(prims.compare(x, zero, "LT"), prims.compare(a, zero, "LE"), prims.compare(a, a, "NE"),
               prims.compare(x, x, "NE"))  # fmt: skip
    return convert(prims.select(bad, nan, out), given)


def _any(*preds: Tensor) -> Tensor:
    out = preds[0]
    for p in preds[1:]:
        out = bind(ew.or_, out, p)
    return out


def _full(like: Tensor, value) -> Tensor:
    return prims.broadcast_in_dim(constants.constant(np.asarray(value, like.dtype.np)), like.shape, ())
