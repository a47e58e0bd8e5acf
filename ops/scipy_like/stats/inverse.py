"""Quantiles (ppf, isf) by numerical inversion of a distribution's own CDF (ops layer).

scipy computes t/gamma/beta/chi2 quantiles with the inverse incomplete gamma
and beta functions and poisson/binom ones with a search over k; StableHLO
has none of these, and sg.scipy.special lacks the inverses. So the
quantile is found here from the distribution's cdf (or sf) and pdf alone,
which the graph already has, in a loop of a fixed number of steps (so it
lowers to one scan and vectorizes like any elementwise function):

- **continuous** (`continuous_quantile`): bisection for the standardized
  ``z`` with ``cdf(z) = q`` (``sf(z) = q`` for isf), matched in the smaller
  tail (``sf(z) = 1 - q`` for q > 1/2, exact there, so a quantile near
  q = 1 keeps the digits a cdf near 1 rounds away), run on a variable ``s``
  that the support's map ``z = T(s)`` spreads evenly over the floating-point
  numbers: ``exp`` onto (0, inf) (gamma, chi2), the logistic function onto
  (0, 1) (beta), ``sign(s) expm1(|s|)`` onto the real line (t). ``s``
  ranges over about [log(tiny), log(max)] (each map's ends kept finite and
  normal), 1417 wide in float64 (175 in float32), so ``ceil(log2(range / eps))`` halvings (63 in float64, 31 in
  float32) pin ``z`` to about one part in eps *relative* to itself, in the
  far tails as in the bulk (an absolute bisection on (0, 1) mapped by
  u / (1 - u) would need ~40 halvings more to reach gamma.ppf(1e-6, 0.5)
  ~ 1e-12). One Newton step ``z -= (cdf(z) - q) / pdf(z)`` (the same for
  the sf, with its sign), clamped to the final bracket, then polishes what
  the rounding of ``s`` left.
  ``q = 0`` and ``q = 1`` give the support's ends (gamma: 0, inf; beta: 0,
  1; t: -inf, inf), ``q`` outside [0, 1] or nan gives nan, as scipy.

  Gradients: the loop runs on stopped values (no derivative is taken
  through it); the Newton step is written as ``z + (d - stop_gradient(d))``
  with ``d = (q - cdf(z, θ)) / stop_gradient(pdf(z, θ))``, which adds 0 to
  the value and gives the implicit-function derivatives dz/dq = 1/pdf and
  dz/dθ = -(dcdf/dθ) / pdf through the cdf's own vjp. loc and scale enter
  as ``loc + scale z`` and differentiate as such.
- **discrete** (`discrete_quantile`): the smallest integer ``k`` with
  ``cdf(k) >= q``, by bisection on the integers in [-1, high], holding
  cdf(lo) < q <= cdf(hi). ``high`` is n for binom; for poisson it is
  ``mu + 40 sqrt(mu) + 40``, past which the Poisson tail is below 1e-120 for
  every mu (the least margin is near mu ~ 0.3 to 1, about 1e-123; for large
  mu it is a 40-sigma tail, about exp(-800)), so cdf(high) rounds to 1 and
  holds any ``q < 1``. ``nmant + 3`` halvings
  (55 in float64, 26 in float32) close any such bracket to adjacent
  representable numbers. q = 0 gives -1 (scipy's ``a - 1``), q = 1 the
  upper end given (inf for poisson, n for binom); the result is a float, a
  step function of q and the parameters, so no gradient flows to them (loc
  is added after, with derivative 1).
"""

from __future__ import annotations

import math

import numpy as np

from ... import numpy_like as snp
from ...control_api import fori_loop
from ...primitives.elementwise import stop_gradient
from ._common import const, floats, nan_where


# -- the maps z = T(s) of the continuous supports -------------------------------------------------
def _positive(s):
    return snp.exp(s)


def _unit(s):
    # the logistic function, each side in the form that keeps its digits
    e = snp.exp(-snp.abs(s))
    one = const(1.0, s)
    return snp.where(s < const(0.0, s), e / (one + e), one / (one + e))


def _real(s):
    return snp.where(s < const(0.0, s), -snp.expm1(-s), snp.expm1(s))


# support -> (map, the support's ends in z, s's range as a function of (log tiny, log max))
_SUPPORTS = {
    "positive": (_positive, (0.0, np.inf), lambda lo, hi: (lo, hi - 1.0)),
    "unit": (_unit, (0.0, 1.0), lambda lo, hi: (lo, -lo)),
    "real": (_real, (-np.inf, np.inf), lambda lo, hi: (1.0 - hi, hi - 1.0)),
}


def _bracket(support: str, dtype):
    """s's search range and the number of halvings that resolve it to eps."""
    fi = np.finfo(dtype.np)
    s_lo, s_hi = _SUPPORTS[support][2](math.log(float(fi.tiny)), math.log(float(fi.max)))
    return s_lo, s_hi, math.ceil(math.log2((s_hi - s_lo) / float(fi.eps)))


def tails(cdf, sf):
    """The ``prob`` of `continuous_quantile` from separate ``cdf(z, *params)`` and ``sf(z, *params)``."""

    def prob(z, upper, *params):
        return snp.where(upper, sf(z, *params), cdf(z, *params))

    return prob


def continuous_quantile(prob, density, q, params, loc, scale, support: str, upper: bool = False):
    """loc + scale * z with cdf(z) = q (sf(z) = q when ``upper``: the isf), by bisection (module docstring).

    ``prob(z, upper, *params)`` is the standard distribution's sf where the boolean tensor ``upper``
    holds, else its cdf; ``density(z, *params)`` its pdf. The smaller tail is matched: cdf(z) = q
    for q <= 1/2, else sf(z) = 1 - q (exact there), so that a quantile near q = 1 keeps the digits
    a cdf near 1 would round away. ``support`` is "positive", "unit" or "real". Every shape
    parameter must be > 0 and scale > 0, else nan.
    """
    q, loc, scale, *params = floats(q, loc, scale, *params)
    zero, half, one = const(0.0, q), const(0.5, q), const(1.0, q)
    bad = ~((q >= zero) & (q <= one)) | ~(scale > const(0.0, scale))
    for p in params:
        bad = bad | ~(p > const(0.0, p))
    shape = snp.broadcast_shapes(q.shape, *(p.shape for p in params))
    to_z, (z_min, z_max), _ = _SUPPORTS[support]
    s_lo, s_hi, steps = _bracket(support, q.dtype)

    # match the smaller tail: cdf for the lower one, sf for the upper one
    low_tail = q <= half
    use_sf = ~low_tail if not upper else low_tail
    use_sf = snp.broadcast_to(use_sf, shape)
    target = snp.where(low_tail, q, one - q)

    # bisection on s, on stopped values: T(lo) lies below the quantile, T(hi) not
    target_fixed = stop_gradient(target)
    p_fixed = [stop_gradient(p) for p in params]

    def halve(i, bracket):
        lo, hi = bracket
        mid = const(0.5, lo) * (lo + hi)
        value = prob(to_z(mid), use_sf, *p_fixed)
        short = snp.where(use_sf, value > target_fixed, value < target_fixed)
        return snp.where(short, mid, lo), snp.where(short, hi, mid)

    init = (snp.broadcast_to(const(s_lo, q), shape), snp.broadcast_to(const(s_hi, q), shape))
    lo, hi = fori_loop(0, steps, halve, init)

    # one Newton step, clamped to the bracket, that also carries the implicit derivatives
    inside = (q > zero) & (q < one) & ~bad
    z0 = snp.where(inside, to_z(const(0.5, lo) * (lo + hi)), to_z(snp.zeros_like(lo)))
    f0 = stop_gradient(density(z0, *p_fixed))
    usable = (f0 > const(0.0, f0)) & snp.isfinite(f0)
    residual = prob(z0, use_sf, *params) - target
    step = residual / snp.where(usable, f0, snp.ones_like(f0))
    step = snp.where(usable & use_sf, step, snp.where(usable, -step, snp.zeros_like(step)))
    z = snp.clip(z0 + stop_gradient(step), to_z(lo), to_z(hi)) + (step - stop_gradient(step))

    first, last = (z_max, z_min) if upper else (z_min, z_max)
    z = snp.where(q == zero, const(first, z), snp.where(q == one, const(last, z), z))
    return nan_where(bad, loc + scale * z)


def discrete_quantile(cdf, q, params, high, top, loc):
    """loc + the smallest integer k with ``cdf(k, *params) >= q``, searched in [-1, high].

    ``cdf(high) >= q`` must hold for every q < 1; q = 0 gives loc - 1 and q = 1 gives loc + ``top``.
    q outside [0, 1] or nan gives nan (the caller adds the parameters' own checks).
    """
    q, high, top, loc, *params = floats(q, high, top, loc, *params)
    q, high, top, *params = (stop_gradient(x) for x in (q, high, top, *params))
    zero, one = const(0.0, q), const(1.0, q)
    shape = snp.broadcast_shapes(q.shape, high.shape, *(p.shape for p in params))

    def halve(i, bracket):
        lo, hi = bracket
        mid = snp.floor(const(0.5, lo) * (lo + hi))
        short = cdf(mid, *params) < q
        return snp.where(short, mid, lo), snp.where(short, hi, mid)

    steps = int(np.finfo(q.dtype.np).nmant) + 3
    init = (snp.broadcast_to(const(-1.0, q), shape), snp.broadcast_to(snp.ceil(high), shape))
    _, k = fori_loop(0, steps, halve, init)
    k = snp.where(q == zero, const(-1.0, k), snp.where(q == one, top, k))
    return nan_where(~((q >= zero) & (q <= one)), k + loc)


def poisson_high(mu):
    """mu + 40 sqrt(mu) + 40: where the Poisson(mu) upper tail is below 1e-120 (module docstring)."""
    return mu + const(40.0, mu) * snp.sqrt(mu) + const(40.0, mu)


__all__ = ["continuous_quantile", "discrete_quantile", "poisson_high", "tails"]
