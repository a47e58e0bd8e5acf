"""Counting samplers with rejection loops: poisson and binomial (sg.random, ops layer).

They follow jax.random's algorithms step for step, loops included (a
while_loop over the whole array that stops when every element is done,
drawing fresh uniforms from a split key each round), so that for one key
the numbers agree with jax: poisson uses Knuth's product of uniforms for
lam < 10 and Hormann's transformed rejection (PTRS) above; binomial uses
inversion by geometric jumps for n * min(p, 1 - p) <= 10 and Hormann's
BTRS above. Both branches run over the whole array and a select picks.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes, library
from ...graph.dims import check_shape
from .. import numpy_like as snp
from ..control_api import scan, while_loop
from ..numpy_like.core import asarray, error
from ..numpy_like.ufuncs import xla_log1p
from ..primitives import registry
from ..random_keys import split
from .distributions import uniform


def _lgamma(x: Tensor) -> Tensor:
    return registry.bind(registry.lookup("lgamma"), x)


def _c(value, like: Tensor) -> np.ndarray:
    return np.asarray(value, like.dtype.np)


def _static_shape(shape, who: str, *param_shapes) -> tuple:
    shape = snp.broadcast_shapes(*param_shapes) if shape is None else check_shape(shape)
    if not all(isinstance(d, int) for d in shape):
        raise error(f"{who} wants a static shape, got {shape}")
    return tuple(shape)


# -- poisson -------------------------------------------------------------------------------------
def _poisson_knuth(key, lam: Tensor, shape, dt) -> Tensor:
    """Count uniforms until their product drops below exp(-lam), in log space."""

    def body(carry):
        k, rng, log_prod = carry
        rng, sub = split(rng)
        k = snp.where(log_prod > -lam, k + _c(1, k), k)
        return k, rng, log_prod + snp.log(uniform(sub, shape, dtypes.float32))

    init = (snp.zeros(shape, dt), key, snp.zeros(shape, dtypes.float32))
    k = while_loop(lambda c: snp.any(c[2] > -lam), body, init)[0]
    return k - _c(1, k)


def _poisson_ptrs(key, lam: Tensor, shape, dt) -> Tensor:
    """Hormann's transformed rejection with squeeze, one candidate per element per round."""
    log_lam = snp.log(lam)
    b = 0.931 + 2.53 * snp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2.0)

    def body(carry):
        k_out, accepted, rng = carry
        keys = split(rng, 3)
        rng, k0, k1 = keys[0], keys[1], keys[2]
        u = uniform(k0, shape, lam.dtype) - 0.5
        v = uniform(k1, shape, lam.dtype)
        u_shifted = 0.5 - snp.abs(u)
        k = snp.floor((2.0 * a / u_shifted + b) * u + lam + 0.43)
        s = snp.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - _lgamma(k + 1.0)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0.0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return snp.where(accept, k, k_out), accepted | accept, rng

    init = (snp.full(shape, -1.0, lam.dtype), snp.zeros(shape, dtypes.bool_), key)
    k = while_loop(lambda c: snp.any(~c[1]), body, init)[0]
    return k.astype(dt)


@library()
def poisson(key, lam, shape=None, dtype=dtypes.int32) -> Tensor:
    """Poisson counts with rate ``lam`` (>= 0) of ``shape`` (default lam's shape), as jax.random.poisson."""
    dt = dtypes.dtype(dtype)
    if dt.kind not in "iu":
        raise error(f"poisson wants an integer dtype, got {dt.name}")
    lam = asarray(lam)
    shape = _static_shape(shape, "poisson", lam.shape)
    lam = snp.broadcast_to(lam.astype(dtypes.float32), shape)
    use_knuth = snp.isnan(lam) | (lam < 10.0)
    lam_knuth = snp.where(use_knuth, lam, 0.0)
    lam_ptrs = snp.where(use_knuth, 1e5, lam)  # a rate at which PTRS accepts fast
    out = snp.where(
        use_knuth, _poisson_knuth(key, lam_knuth, shape, dt), _poisson_ptrs(key, lam_ptrs, shape, dt)
    )
    return snp.where(lam == 0.0, snp.zeros(shape, dt), out)


# -- binomial ------------------------------------------------------------------------------------
_STIRLING_TAIL = (
    0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
    0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287,
)  # fmt: skip  # log(k!) - Stirling's formula, k = 0..9


def _stirling_tail(k: Tensor) -> Tensor:
    """log(k!) minus Stirling's approximation: tabulated to k = 9, its series above."""
    small = k <= 9.0
    kc = snp.clip(k, 0.0, 9.0)
    kp1sq = (kc + 1.0) * (kc + 1.0)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (kc + 1.0)
    # the entry by selects, not a gather: XLA fuses the whole sampler computing k into a gather
    # from a table, a kernel that took LLVM 3 s to compile
    whole = snp.floor(kc)
    entries = [np.asarray(v, k.dtype.np) for v in _STIRLING_TAIL]
    table = snp.select([whole == float(j) for j in range(len(entries) - 1)], entries[:-1], entries[-1])
    return snp.where(small, table, series)


def _binomial_inversion(key, count, prob, shape) -> Tensor:
    """Sum geometric jumps until they pass ``count``: their number minus one is the draw."""
    log1m_prob = xla_log1p(-prob)

    def body(carry):
        num_geom, geom_sum, rng = carry
        sub, rng = split(rng)
        num_geom = snp.where(geom_sum <= count, num_geom + 1.0, num_geom)
        geom = snp.ceil(snp.log(uniform(sub, shape, prob.dtype)) / log1m_prob)
        return num_geom, geom_sum + geom, rng

    zeros = snp.zeros(shape, prob.dtype)
    k = while_loop(lambda c: snp.any(c[1] <= count), body, (zeros, zeros, key))[0]
    return k - 1.0


def _binomial_btrs(key, count, prob, shape) -> Tensor:
    """Hormann's BTRS: transformed rejection with a Stirling-tail bound."""
    stddev = snp.sqrt(count * prob * (1.0 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1.0 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = snp.floor((count + 1.0) * prob)

    def body(carry):
        k_out, accepted, rng = carry
        keys = split(rng, 3)
        rng, k0, k1 = keys[0], keys[1], keys[2]
        u = uniform(k0, shape, prob.dtype) - 0.5
        v = uniform(k1, shape, prob.dtype)
        us = 0.5 - snp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = snp.floor((2.0 * a / us + b) * u + c)
        reject = (k < 0.0) | (k > count)
        log_v = snp.log(v * alpha / (a / (us * us) + b))
        bound = (
            (m + 0.5) * snp.log((m + 1.0) / (r * (count - m + 1.0)))
            + (count + 1.0) * snp.log((count - m + 1.0) / (count - k + 1.0))
            + (k + 0.5) * snp.log(r * (count - k + 1.0) / (k + 1.0))
            + _stirling_tail(m)
            + _stirling_tail(count - m)
            - _stirling_tail(k)
            - _stirling_tail(count - k)
        )
        accept = accept1 | (~reject & (log_v <= bound))
        return snp.where(accept, k, k_out), accepted | accept, rng

    init = (snp.full(shape, -1.0, prob.dtype), snp.zeros(shape, dtypes.bool_), key)
    return while_loop(lambda c: snp.any(~c[1]), body, init)[0]


@library()
def binomial(key, n, p, shape=None, dtype=dtypes.float32) -> Tensor:
    """Binomial counts of ``n`` trials with success probability ``p``, as floats (jax.random.binomial).

    Invalid ``p`` (nan, < 0) or ``n`` (nan, < 0) give nan; ``n = inf`` gives inf.
    """
    dt = dtypes.dtype(dtype)
    if dt.kind != "f":
        raise error(f"binomial wants a floating dtype, got {dt.name}")
    prob = asarray(p)
    if prob.dtype.kind != "f":
        prob = prob.astype(dtypes.float32)
    count = asarray(n).astype(prob.dtype)
    shape = _static_shape(shape, "binomial", count.shape, prob.shape)
    count, prob = snp.broadcast_to(count, shape), snp.broadcast_to(prob, shape)
    p_low = prob < 0.5
    q = snp.where(p_low, prob, 1.0 - prob)
    bad_count = snp.isnan(count) | (count < 0.0)
    inf_count = snp.isinf(count)
    nan_q = snp.isnan(q)
    bad_q = nan_q | (q < 0.0)
    q = snp.where(bad_q, _c(0.01, q), q)
    use_inversion = bad_count | (count * q <= 10.0)
    count = snp.floor(count)
    draws = snp.where(
        use_inversion,
        _binomial_inversion(key, snp.where(use_inversion, count, 0.0), q, shape),
        _binomial_btrs(key, snp.where(use_inversion, 1e4, count), snp.where(use_inversion, 0.5, q), shape),
    ).astype(dt)
    bad = bad_q | bad_count
    draws = snp.where(bad, np.asarray(np.nan, dt.np), draws)
    draws = snp.where(inf_count & ~bad, np.asarray(np.inf, dt.np), draws)
    return snp.where(p_low | bad_count | nan_q | inf_count, draws, count.astype(dt) - draws)


@library()
def multinomial(key, n, p, *, shape=None, dtype=dtypes.float32, unroll: int | bool = 1) -> Tensor:
    """Counts of ``n`` trials over the categories on ``p``'s last axis (jax.random.multinomial).

    ``shape`` is the whole result shape (categories last; default ``p.shape``),
    ``n`` broadcasts to ``shape[:-1]``. Each category takes a binomial draw
    from what the earlier ones left, with its share of the remaining
    probability, one key per category: jax's construction, so the counts are
    jax's bit for bit.
    """
    dt = dtypes.dtype(dtype)
    if dt.kind != "f":
        raise error(f"multinomial wants a floating dtype, got {dt.name}")
    prob = asarray(p)
    if prob.dtype.kind != "f":
        prob = prob.astype(dtypes.float32)
    if prob.ndim < 1:
        raise error(f"multinomial wants probabilities with categories on the last axis, got {prob.type}")
    shape = tuple(prob.shape) if shape is None else tuple(check_shape(shape))
    if not isinstance(shape[-1], int):
        raise error(f"multinomial wants a static number of categories (the last dim), got shape {shape}")
    count = snp.broadcast_to(asarray(n).astype(prob.dtype), shape[:-1])
    prob = snp.moveaxis(snp.broadcast_to(prob, shape), -1, 0)
    remaining = snp.flip(snp.cumsum(snp.flip(prob, 0), axis=0), 0)
    ratios = prob / snp.where(remaining == 0, 1.0, remaining)

    def draw(left, ratio_and_key):
        ratio, k = ratio_and_key
        got = binomial(k, left, snp.clip(ratio, 0.0, 1.0), dtype=left.dtype)
        return left - got, got

    _, counts = scan(draw, count, (ratios, split(key, shape[-1])), unroll=unroll)
    return snp.moveaxis(counts, 0, -1).astype(dt)


__all__ = ["binomial", "multinomial", "poisson"]
