"""log(mu) - psi(n) for a whole n >= 1, keeping its digits where the two terms cancel (ops layer).

It is the slope in k of poisson's log-pmf, k log mu - mu - log k!, with
n = k + 1, and it crosses 0 at mu = exp(psi(n)), a little above n - 1/2.
There log(mu) and psi(n) agree in their leading digits, and each one's
rounding (half an ulp of a number near log n) is what remains: at
(k, mu) = (100, 100) the difference -0.004991666749996032 came out 850 ulps
off even with psi correctly rounded. Here it is taken around x = n - 1/2
instead:

    log(mu) - psi(n) = log1p((mu - x) / x) - (psi(n) - log x)

where mu - x is exact next to the root and psi(n) - log(n - 1/2) is small
(1 / (24 x^2) and less): from a table of correctly rounded values (exact
harmonic sums, 50-digit decimal logs) up to n = 128, beyond it from its
asymptotic series sum_k c_k x^(-2k) with c_k = (1 - 2^(1-2k)) B_2k / (2k),
five terms (the sixth is 2e-22 of the first at x = 128.5). Away from the
root (|mu - x| > x / 2) and at an n that is not whole the plain difference
is kept.
"""

from __future__ import annotations

import decimal
import functools
from fractions import Fraction

import numpy as np

from ... import numpy_like as snp
from ...primitives.gamma_lowering import BERNOULLI_2K, exact_psi_of_whole_numbers
from ..special import digamma
from ._common import const

TABLE_TO = 128  # psi(n) - log(n - 1/2) from the table for n = 1 .. TABLE_TO
# psi(x + 1/2) - log x = sum_k c_k x^(-2k), k = 1 .. 5: 1/24, -7/960, 31/8064, -127/30720, 511/67584
SERIES = tuple(
    float((1 - Fraction(2) ** (1 - 2 * k)) * b / (2 * k)) for k, b in enumerate(BERNOULLI_2K[:5], start=1)
)


@functools.cache
def psi_less_log_table() -> np.ndarray:
    """psi(n) - log(n - 1/2) for n = 1 .. TABLE_TO, each correctly rounded to float64 (made once,
    when a graph first needs it: 128 decimal logs)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        psi = exact_psi_of_whole_numbers(TABLE_TO)
        logs = ((decimal.Decimal(n) - decimal.Decimal("0.5")).ln() for n in range(1, TABLE_TO + 1))
        return np.array([float(p - log) for p, log in zip(psi, logs)])


def log_less_digamma(mu, n):
    """log(mu) - psi(n) for mu > 0 and n >= 1 of one float type and shape (see the module)."""
    half = const(0.5, n)
    x = n - half
    whole = n == snp.floor(n)
    in_table = n <= const(float(TABLE_TO), n)
    index = snp.clip(n, const(1.0, n), const(float(TABLE_TO), n)).astype(np.int32) - 1
    tabled = snp.take(psi_less_log_table().astype(n.dtype.np), index)
    w = const(1.0, n) / (x * x)
    series = const(SERIES[-1], n)
    for c in SERIES[-2::-1]:
        series = series * w + const(c, n)
    psi_less_log = snp.where(in_table, tabled, series * w)
    near = whole & (snp.abs(mu - x) <= half * x)
    x_near = snp.where(near, x, const(1.0, x))
    mu_near = snp.where(near, mu, const(1.0, mu))
    kept = snp.log1p((mu_near - x_near) / x_near) - psi_less_log
    return snp.where(near, kept, snp.log(mu) - digamma(n))


__all__ = ["log_less_digamma", "psi_less_log_table"]
