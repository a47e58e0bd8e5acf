"""Distributions drawn from threefry keys (sg.random, ops layer).

Each sampler follows the construction of the jax.random function of the same
name, argument order included, so that for one key the numbers agree with
jax where the arithmetic is the same (uniform, normal, bernoulli, randint,
categorical, permutation, choice); see tests/ops/test_random.py for which are
checked bit for bit. Shapes may hold symbols where no count is needed.
Each sampler is a library call (graph/calls.py): one line in a listing.
"""

from __future__ import annotations

import math
import numbers

import ml_dtypes
import numpy as np

from ...graph import Tensor, dtypes, library
from ...graph.dims import check_shape
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error, normalize_axis
from ..primitives import compare, elementwise
from ..primitives import sort as sort_ops
from ..random_keys import bits, elementwise_op, full, split

_SQRT2 = math.sqrt(2.0)


def _float_dtype(dtype, who: str) -> dtypes.DType:
    dt = dtypes.dtype(dtype)
    if dt.kind != "f":
        raise error(f"{who} wants a real floating dtype, got {dt.name}")
    return dt


def _finfo(dt: dtypes.DType):
    return ml_dtypes.finfo(dt.np)


def _shape_of(shape, who: str) -> tuple:
    try:
        return check_shape(shape)
    except Exception as e:  # noqa: BLE001  (a bad dim: say which call)
        raise error(f"{who} wants a shape of ints and symbols, got {shape!r}") from e


# -- uniform -------------------------------------------------------------------
def _unit(key, shape, dt: dtypes.DType) -> Tensor:
    """Floats in [0, 1): random mantissa bits under the exponent of 1.0, minus 1."""
    fi = _finfo(dt)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    udt = dtypes.dtype(f"uint{nbits}")
    b = compare.convert(bits(key, shape, dtypes.dtype(f"uint{rng_bits}")), udt)
    b = elementwise_op(elementwise.shift_right_logical, b, full(rng_bits - nmant, udt, shape))
    one_bits = np.array(1.0, dt.np).view(udt.np)
    b = elementwise_op(elementwise.or_, b, full(one_bits, udt, shape))
    floats = compare.bitcast_convert(b, dt)
    return elementwise_op(elementwise.sub, floats, full(1.0, dt, shape))


@library()
def uniform(key, shape=(), dtype=dtypes.float32, minval=0.0, maxval=1.0) -> Tensor:
    """Uniform floats in [minval, maxval) of ``shape`` (symbols allowed), as jax.random.uniform.

    ``minval``/``maxval`` are scalars or Tensors broadcastable to ``shape``.
    """
    dt = _float_dtype(dtype, "uniform")
    shape = _shape_of(shape, "uniform")
    u = _unit(key, shape, dt)
    if isinstance(minval, Tensor) or isinstance(maxval, Tensor):
        lo, hi = asarray(minval, dt), asarray(maxval, dt)
        return snp.maximum(lo, u * (hi - lo) + lo)
    # Constant bounds: the span in numpy (one rounding in dt, as XLA's), the bound broadcast once.
    lo, hi = np.asarray(minval, dt.np), np.asarray(maxval, dt.np)
    if lo.shape == hi.shape == () and lo == 0 and hi == 1 and not np.signbit(lo):
        return u  # u * 1 + 0 and max(0, .) give u itself for u in [0, 1): not built
    lo_t = snp.broadcast_to(asarray(lo), snp.broadcast_shapes(lo.shape, shape))
    return snp.maximum(lo_t, u * (hi - lo) + lo_t)


# -- normal --------------------------------------------------------------------
def erf_inv(x: Tensor) -> Tensor:
    """The inverse error function on (-1, 1) (+-inf at +-1): the erf_inv primitive (chlo.erf_inv),
    so that XLA expands it exactly as it does for jax."""
    return elementwise.apply(elementwise.erf_inv, x)


@library()
def normal(key, shape=(), dtype=dtypes.float32) -> Tensor:
    """Standard normal floats of ``shape`` (symbols allowed), as jax.random.normal:
    ``sqrt(2) * erf_inv(u)`` for u uniform in (-1, 1)."""
    dt = _float_dtype(dtype, "normal")
    lo = np.nextafter(np.array(-1.0, dt.np), np.array(0.0, dt.np))
    u = uniform(key, shape, dt, lo, 1.0)
    return erf_inv(u) * np.asarray(_SQRT2, dt.np)


def _next_toward(x: Tensor, up: bool) -> Tensor:
    """numpy.nextafter(x, +inf if up else -inf) for finite or infinite floats."""
    udt = dtypes.dtype(f"uint{x.dtype.np.itemsize * 8}")
    b = compare.bitcast_convert(x, udt)
    one = full(1, udt, x.shape)
    away = elementwise_op(elementwise.add, b, one)  # one step away from zero
    toward = elementwise_op(elementwise.sub, b, one)  # one step toward zero
    positive = x > 0.0
    stepped = compare.bitcast_convert(snp.where(positive == up, away, toward), x.dtype)
    tiny = np.asarray(_finfo(x.dtype).smallest_subnormal, x.dtype.np)
    stepped = snp.where(x == 0.0, tiny if up else -tiny, stepped)
    # A clamp bound, not differentiated (as in jax): the bit steps have no gradient.
    return elementwise.stop_gradient(snp.where(snp.isinf(x) & ((x > 0.0) == up), x, stepped))


@library()
def truncated_normal(key, lower, upper, shape=None, dtype=dtypes.float32) -> Tensor:
    """Normal floats conditioned on lower < x < upper, as jax.random.truncated_normal.

    ``shape`` defaults to the broadcast shape of the bounds.
    """
    dt = _float_dtype(dtype, "truncated_normal")
    lo, hi = asarray(lower, dt), asarray(upper, dt)
    if shape is None:
        shape = snp.broadcast_shapes(lo.shape, hi.shape)
    shape = _shape_of(shape, "truncated_normal")
    sqrt2 = np.asarray(_SQRT2, dt.np)
    a = elementwise.apply(elementwise.erf, lo / sqrt2)
    b = elementwise.apply(elementwise.erf, hi / sqrt2)
    out = erf_inv(uniform(key, shape, dt, a, b)) * sqrt2
    # Rounding may land on a bound (or beyond): clamp to the open interval.
    return snp.clip(out, _next_toward(lo, True), _next_toward(hi, False))


# -- discrete ------------------------------------------------------------------
@library()
def bernoulli(key, p=0.5, shape=None) -> Tensor:
    """Bools that are True with probability ``p`` (float, broadcast to ``shape``)."""
    p = asarray(p)
    if p.dtype.kind != "f":
        raise error(f"bernoulli wants a floating p, got {p.type}")
    shape = p.shape if shape is None else _shape_of(shape, "bernoulli")
    return uniform(key, shape, p.dtype) < p


def _gumbel(key, shape, dt: dtypes.DType) -> Tensor:
    u = uniform(key, shape, dt, _finfo(dt).tiny, 1.0)
    return -snp.log(-snp.log(u))


@library()
def gumbel(key, shape=(), dtype=dtypes.float32) -> Tensor:
    """Standard Gumbel floats of ``shape``, as jax.random.gumbel (mode "low")."""
    return _gumbel(key, _shape_of(shape, "gumbel"), _float_dtype(dtype, "gumbel"))


@library()
def categorical(key, logits, axis: int = -1, shape=None) -> Tensor:
    """Indices drawn with probabilities softmax(logits) along ``axis`` (Gumbel-max), int32.

    The result has ``shape`` (default: logits.shape without ``axis``), which
    must end with that batch shape; leading dims draw more samples.
    """
    logits = asarray(logits)
    if logits.dtype.kind != "f":
        raise error(f"categorical wants floating logits, got {logits.type}")
    axis = normalize_axis(axis, logits.ndim)
    batch = logits.shape[:axis] + logits.shape[axis + 1 :]
    shape = batch if shape is None else _shape_of(shape, "categorical")
    if len(shape) < len(batch) or tuple(shape[len(shape) - len(batch) :]) != tuple(batch):
        raise error(f"categorical wants a shape ending with the batch shape {batch}, got {shape}")
    prefix = tuple(shape[: len(shape) - len(batch)])
    full = (*prefix, *logits.shape)
    noise = _gumbel(key, full, logits.dtype)
    return snp.argmax(noise + logits, axis=len(prefix) + axis)


@library()
def randint(key, shape, minval, maxval, dtype=dtypes.int32) -> Tensor:
    """Integers uniform in [minval, maxval) of ``shape``, as jax.random.randint.

    Two words of random bits per value reduce the modulo bias; ``maxval <=
    minval`` gives ``minval``.
    """
    dt = dtypes.dtype(dtype)
    if dt.kind not in "iu":
        raise error(f"randint wants an integer dtype, got {dt.name}")
    shape = _shape_of(shape, "randint")
    if dt.np.itemsize < 4:  # sample in 32 bits, then narrow (jax)
        info = np.iinfo(dt.np)
        lo = snp.clip(asarray(minval, dtypes.int32), int(info.min), int(info.max))
        hi = snp.clip(asarray(maxval, dtypes.int32), int(info.min), int(info.max) + 1)
        return randint(key, shape, lo, hi, dtypes.int32).astype(dt)
    info = np.iinfo(dt.np)
    hi_out_of_range = False
    if isinstance(maxval, numbers.Integral) and not isinstance(maxval, Tensor):
        hi_out_of_range = int(maxval) > int(info.max)
    lo, hi = (
        asarray(int(np.clip(v, info.min, info.max)) if isinstance(v, numbers.Integral) else v).astype(dt)
        for v in (minval, maxval)
    )
    lo, hi = snp.broadcast_to(lo, shape), snp.broadcast_to(hi, shape)
    nbits = dt.np.itemsize * 8
    udt = dtypes.dtype(f"uint{nbits}")
    k1, k2 = split(key)
    higher, lower = bits(k1, shape, udt), bits(k2, shape, udt)
    span = compare.convert(elementwise_op(elementwise.sub, hi, lo), udt)
    empty = hi <= lo
    span = snp.where(empty, full(1, udt, shape), span)
    if hi_out_of_range:  # maxval = 2**nbits: one more than the dtype holds
        span = snp.where(empty, span, elementwise_op(elementwise.add, span, full(1, udt, shape)))
    mult = elementwise_op(elementwise.rem, full(2 ** (nbits // 2), udt, shape), span)
    mult = elementwise_op(elementwise.rem, elementwise_op(elementwise.mul, mult, mult), span)
    offset = elementwise_op(
        elementwise.add,
        elementwise_op(elementwise.mul, elementwise_op(elementwise.rem, higher, span), mult),
        elementwise_op(elementwise.rem, lower, span),
    )
    offset = elementwise_op(elementwise.rem, offset, span)
    return elementwise_op(elementwise.add, lo, compare.convert(offset, dt))


def _static_count(n, who: str) -> int:
    if not isinstance(n, int):
        raise error(f"{who} wants a static size, got the symbolic dim {n!r}")
    return n


def _shuffle(key, x: Tensor, axis: int) -> Tensor:
    """Sort x along ``axis`` by fresh random 32-bit keys, enough rounds to make ties rare."""
    size = int(np.prod([_static_count(d, "permutation") for d in x.shape], dtype=np.int64))
    rounds = math.ceil(3 * math.log(max(1, size)) / math.log(2**32 - 1))
    for _ in range(rounds):
        key, sub = split(key)
        _, x = sort_ops.sort((bits(sub, x.shape, dtypes.uint32), x), dimension=axis, num_keys=1)
    return x


@library()
def permutation(key, x, axis: int = 0, independent: bool = False) -> Tensor:
    """A random permutation of ``range(x)`` (an int) or of ``x`` along ``axis``.

    With ``independent`` each slice along ``axis`` is shuffled on its own.
    (This is also jax's replacement for the removed ``shuffle``.)
    """
    if isinstance(x, numbers.Integral) and not isinstance(x, Tensor):
        return _shuffle(key, snp.arange(int(x)), 0)
    x = asarray(x)
    if x.ndim == 0:
        raise error(f"permutation wants an int or an array of rank >= 1, got {x.type}")
    axis = normalize_axis(axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    n = _static_count(x.shape[axis], "permutation")
    return snp.take(x, _shuffle(key, snp.arange(n), 0), axis=axis)


@library()
def shuffle(key, x, axis: int = 0) -> Tensor:
    """``x`` shuffled along ``axis``; the same as ``permutation(key, x, axis)``."""
    return permutation(key, x, axis)


@library()
def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0) -> Tensor:
    """A random sample of ``shape`` from ``a`` (an int n means arange(n)), as jax.random.choice.

    ``p`` gives the probability of each entry along ``axis``; without
    replacement the sample uses the Gumbel top-k trick.
    """
    shape = _shape_of(shape, "choice")
    n_draws = int(np.prod([_static_count(d, "choice") for d in shape], dtype=np.int64))
    scalar = isinstance(a, numbers.Integral) and not isinstance(a, Tensor)
    arr = None if scalar else asarray(a)
    if arr is not None and arr.ndim == 0:
        raise error(f"choice wants an int or an array of rank >= 1, got {arr.type}")
    if not scalar:
        axis = normalize_axis(axis, arr.ndim)
    n = int(a) if scalar else _static_count(arr.shape[axis], "choice")
    if n <= 0:
        raise error(f"choice wants a population of size > 0, got {n}")
    if not replace and n_draws > n:
        raise error(f"choice cannot take {n_draws} samples from {n} without replacement")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n)
        else:
            ind = permutation(key, n)[:n_draws]
    else:
        p = asarray(p)
        if p.dtype.kind != "f":
            p = p.astype(dtypes.float32)
        if tuple(p.shape) != (n,):
            raise error(f"choice wants p of shape ({n},), got {p.type}")
        if replace:
            cdf = snp.cumsum(p)
            r = cdf[-1] * (1.0 - uniform(key, shape, p.dtype))
            # searchsorted(cdf, r, side="left"): how many cdf entries lie below r
            below = snp.expand_dims(cdf, tuple(range(len(shape)))) < snp.expand_dims(r, -1)
            ind = snp.sum(below.astype(dtypes.int32), axis=-1)
        else:
            g = _gumbel(key, (n,), p.dtype) + snp.log(p)
            ind = snp.argsort(g, descending=True)[:n_draws]
    ind = snp.reshape(ind, shape) if ind.shape != shape else ind
    if scalar:
        return ind
    flat = snp.reshape(ind, (n_draws,)) if shape != () else ind
    out = snp.take(arr, flat, axis=axis)
    return snp.reshape(out, (*arr.shape[:axis], *shape, *arr.shape[axis + 1 :]))


# -- gamma family --------------------------------------------------------------
_GAMMA_TRIES = 12  # rejection rounds drawn at once; each accepts with probability > 0.95


def _log_gamma(key, a: Tensor, shape) -> Tensor:
    """log of Gamma(a, 1) samples of ``shape`` (Marsaglia and Tsang's squeeze method).

    Without a loop primitive the rejection rounds are drawn side by side and the
    first accepted one wins: all of them fail with probability < 0.05**12.
    a < 1 samples Gamma(a + 1) and multiplies by u**(1/a), in log space so that
    tiny shapes do not underflow. One draw of uniforms on (-1, 1) feeds it all:
    the normals (as in ``normal``), the acceptance tests and the boost.
    """
    dt = a.dtype
    shape = tuple(shape)
    a = snp.broadcast_to(elementwise.stop_gradient(a), shape)
    boost = a < 1.0
    alpha = snp.where(boost, a + 1.0, a)
    d = alpha - np.asarray(1 / 3, dt.np)
    c = np.asarray(1 / 3, dt.np) / snp.sqrt(d)
    n = _GAMMA_TRIES
    lo = np.nextafter(np.array(-1.0, dt.np), np.array(0.0, dt.np))
    w = uniform(key, (2 * n + 1, *shape), dt, lo, 1.0)
    x = erf_inv(w[:n]) * np.asarray(_SQRT2, dt.np)
    log_u = snp.log((w[n:] + 1.0) * 0.5)  # uniform on (0, 1)
    v = 1.0 + c * x
    v = v * v * v
    safe_v = snp.where(v > 0.0, v, 1.0)
    accept = (v > 0.0) & (log_u[:n] < 0.5 * x * x + d - d * safe_v + d * snp.log(safe_v))
    log_v = snp.log(safe_v)
    out = log_v[n - 1]
    for t in reversed(range(n - 1)):
        out = snp.where(accept[t], log_v[t], out)
    out = out + snp.log(d)
    return snp.where(boost, out + log_u[n] / a, out)


def _shape_param(value, dt, shape, who: str):
    t = asarray(value)
    dt = dtypes.dtype(dt) if dt is not None else (t.dtype if t.dtype.kind == "f" else dtypes.float32)
    dt = _float_dtype(dt, who)
    return t.astype(dt), dt


@library()
def gamma(key, a, shape=None, dtype=None) -> Tensor:
    """Gamma(a, 1) floats of ``shape`` (default a's shape), as jax.random.gamma in
    distribution (not bit for bit). No gradient flows to ``a`` (jax gives implicit ones)."""
    a, dt = _shape_param(a, dtype, shape, "gamma")
    shape = a.shape if shape is None else _shape_of(shape, "gamma")
    return snp.exp(_log_gamma(key, a, shape))


@library()
def loggamma(key, a, shape=None, dtype=None) -> Tensor:
    """log of Gamma(a, 1) samples, accurate for tiny ``a`` (as jax.random.loggamma)."""
    a, dt = _shape_param(a, dtype, shape, "loggamma")
    shape = a.shape if shape is None else _shape_of(shape, "loggamma")
    return _log_gamma(key, a, shape)


@library()
def beta(key, a, b, shape=None, dtype=None) -> Tensor:
    """Beta(a, b) floats of ``shape`` (default the broadcast shape of a and b), from two gammas."""
    a, dt = _shape_param(a, dtype, shape, "beta")
    b, _ = _shape_param(b, dt, shape, "beta")
    shape = snp.broadcast_shapes(a.shape, b.shape) if shape is None else _shape_of(shape, "beta")
    both = snp.stack([snp.broadcast_to(a, shape), snp.broadcast_to(b, shape)])
    lg = _log_gamma(key, both, (2, *shape))
    la, lb = lg[0], lg[1]
    top = snp.maximum(la, lb)
    return snp.exp(la - top - snp.log(snp.exp(la - top) + snp.exp(lb - top)))


@library()
def dirichlet(key, alpha, shape=None, dtype=None) -> Tensor:
    """Dirichlet(alpha) vectors: ``shape + alpha.shape[-1:]`` (shape defaults to
    alpha's batch shape), normalized gammas."""
    alpha, dt = _shape_param(alpha, dtype, shape, "dirichlet")
    if alpha.ndim < 1:
        raise error(f"dirichlet wants alpha of rank >= 1, got {alpha.type}")
    shape = alpha.shape[:-1] if shape is None else _shape_of(shape, "dirichlet")
    lg = _log_gamma(key, alpha, (*shape, alpha.shape[-1]))
    lg = lg - snp.max(lg, axis=-1, keepdims=True)
    e = snp.exp(lg)
    return e / snp.sum(e, axis=-1, keepdims=True)


__all__ = [
    "bernoulli", "beta", "categorical", "choice", "dirichlet", "gamma", "gumbel", "loggamma", "normal", "permutation", "randint",
    "shuffle", "truncated_normal", "uniform",
]  # fmt: skip
