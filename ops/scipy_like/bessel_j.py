"""Bessel functions of the first kind J_0(z) .. J_v(z) of a real z, jax.scipy.special.bessel_jn
(ops layer, user-facing through sg.scipy.special).

Computed in float64 (float32 is rounded once at the end) on |z|, with J_n(-z) = (-1)^n J_n(z):

- |z| < 1e-3: the power series (z/2)^n / n! sum_k (-z^2/4)^k / (k! (n+1)_k), four terms;
- up to max(25, v): Miller's backward recurrence f_(k-1) = (2k / z) f_k - f_(k+1) from order
  max(25, v) + 40 (even), rescaled whenever it grows past 1e200 and normalized by
  f_0 + 2 (f_2 + f_4 + ...) = 1;
- beyond: J_0 and J_1 from Hankel's asymptotic expansion (24 terms; at |z| >= 25 the smallest term
  is below 1e-16) and the forward recurrence, stable while the order stays below |z|.

At z = 0 the value is exactly 1, 0, 0, ... (jax's recurrence divides by z there: nan); at +-inf
0, the limit (scipy: nan). The derivative in z is the closed form J_0' = -J_1,
J_n' = (J_(n-1) - J_(n+1)) / 2, from the same function one order higher (so it differentiates
again).
"""

from __future__ import annotations

import math

from ...graph import GraphError, library, located, user_location
from .. import numpy_like as snp
from ..custom_vjp import custom_vjp
from ..numpy_like.core import result_dtype

_SERIES_BELOW = 1e-3
_MILLER_BELOW = 25.0
_HANKEL_TERMS = 24
_RESCALE = 1e200


def _series(z, count: int) -> list:
    """J_0 .. J_(count-1) for |z| < 1e-3 (z >= 0)."""
    q = -z * z / 4
    out, lead = [], snp.ones_like(z)
    for n in range(count):
        if n:
            lead = lead * (z / 2) / n
        term, total = snp.ones_like(z), snp.ones_like(z)
        for k in range(1, 4):
            term = term * q / (k * (n + k))
            total = total + term
        out.append(lead * total)
    return out


def _miller(z, count: int, start: int) -> list:
    """J_0 .. J_(count-1) for 1e-3 <= z by the backward recurrence from order ``start``."""
    values: list = [None] * count
    following, current = snp.zeros_like(z), snp.full_like(z, 1e-30)
    norm = snp.zeros_like(z)
    for k in range(start, 0, -1):
        if k < count:
            values[k] = current
        if k % 2 == 0:
            norm = norm + 2 * current
        previous = (2 * k / z) * current - following
        big = snp.abs(previous) > _RESCALE
        scale = snp.where(big, snp.full_like(z, 1 / _RESCALE), 1.0)  # two scalars would make float32: 0
        previous, current, norm = previous * scale, current * scale, norm * scale
        values = [v if v is None else v * scale for v in values]
        following, current = current, previous
    values[0] = current
    norm = norm + current
    return [v / norm for v in values]


def _hankel(nu: int, z):
    """J_nu(z) for z >= 25 from sqrt(2 / (pi z)) (P cos chi - Q sin chi), chi = z - (nu/2 + 1/4) pi."""
    mu = 4 * nu * nu
    p, q = snp.ones_like(z), snp.zeros_like(z)
    coefficient = 1.0
    inv = 1 / z
    power = snp.ones_like(z)
    for k in range(1, _HANKEL_TERMS + 1):
        coefficient *= (mu - (2 * k - 1) ** 2) / (k * 8)
        power = power * inv
        term = coefficient * power
        sign = (-1) ** (k // 2)
        if k % 2:
            q = q + sign * term
        else:
            p = p + sign * term
    c, s = snp.cos(z), snp.sin(z)
    # cos(z - pi/4) = (c + s) / sqrt 2, sin(z - pi/4) = (s - c) / sqrt 2; for nu = 1 shifted by -pi/2
    if nu == 0:
        cos_chi, sin_chi = (c + s) * math.sqrt(0.5), (s - c) * math.sqrt(0.5)
    else:
        cos_chi, sin_chi = (s - c) * math.sqrt(0.5), -(c + s) * math.sqrt(0.5)
    return (
        math.sqrt(2 / math.pi) / snp.sqrt(z) * (p * cos_chi - q * sin_chi)
    )  # 2 / (pi z) would flush at 1e308


def _forward(z, count: int) -> list:
    """J_0 .. J_(count-1) for z >= max(25, count): Hankel's J_0, J_1 and the forward recurrence."""
    values = [_hankel(0, z), _hankel(1, z)]
    for n in range(1, count - 1):
        values.append((2 * n / z) * values[n] - values[n - 1])
    return values[:count]


def _bessel_values(z, count: int):
    """J_0 .. J_(count-1) at z (float64), stacked on a new first axis."""
    a = snp.abs(z)
    finite = snp.isfinite(a)
    miller_below = max(_MILLER_BELOW, float(count))
    small = a < _SERIES_BELOW
    middle = ~small & (a < miller_below)
    far = ~small & ~middle & finite
    start = 2 * ((int(miller_below) + 41) // 2)
    near_values = _series(snp.where(small, a, 0.0), count)
    middle_values = _miller(snp.where(middle, a, 1.0), count, start)
    far_values = _forward(snp.where(far, a, 2 * miller_below), count)
    out = []
    for n in range(count):
        v = snp.where(small, near_values[n], snp.where(middle, middle_values[n], far_values[n]))
        if n % 2:
            v = snp.where(z < 0, -v, v)
        v = snp.where(a == math.inf, 0.0, v)  # the limit (scipy: nan)
        out.append(snp.where(snp.isnan(z), math.nan, v))
    return snp.stack(out, axis=0)


_BY_COUNT: dict[tuple[int, int], custom_vjp] = {}
_CLOSED_FORM_ORDERS = 2  # derivatives from the recurrence identity; higher ones by the chain rule


def _bessel_all(count: int, depth: int = _CLOSED_FORM_ORDERS):
    """The function z -> J_0 .. J_(count-1) with its closed-form derivative, whose own call (one
    order higher, ``depth`` - 1) differentiates again the same way; at depth 0 the plain values.
    (A custom_vjp traces its backward when called, so the chain must end.)"""
    if depth == 0:
        return lambda z: _bessel_values(z, count)
    key = (count, depth)
    if key not in _BY_COUNT:

        def value(z):
            return _bessel_values(z, count)

        def fwd(z):
            return value(z), z

        def bwd(z, g):
            higher = _bessel_all(count + 1, depth - 1)(z)
            slopes = [-higher[1]] + [(higher[n - 1] - higher[n + 1]) / 2 for n in range(1, count)]
            return (snp.sum(g * snp.stack(slopes, axis=0), axis=0),)

        f = custom_vjp(value)
        f.__name__ = "bessel_jn"
        f.defvjp(fwd, bwd)
        _BY_COUNT[key] = f
    return _BY_COUNT[key]


@library()
def bessel_jn(z, *, v: int, n_iter: int = 50):
    """J_0(z) .. J_v(z), the Bessel functions of the first kind of orders 0 to v at a real z: an
    array of shape (v + 1, *z.shape) of z's float dtype. ``n_iter`` is accepted for jax's signature
    (its recurrence's depth); here the depth follows from v and z (see the module docstring)."""
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise GraphError(located(f"bessel_jn: v must be an int >= 0, got {v!r}", user_location()))
    del n_iter
    z = snp.asarray(z)
    dt = result_dtype(z)
    if dt.is_complex:
        raise GraphError(located(f"bessel_jn: complex z is not supported (got {dt.name})", user_location()))
    if not dt.is_inexact:
        z = z.astype("float64" if dt.bits == 64 else "float32")
    wide = z.astype("float64")
    return _bessel_all(v + 1)(wide).astype(z.dtype)


__all__ = ["bessel_jn"]
