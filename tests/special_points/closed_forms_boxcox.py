"""Closed-form derivative references for the sweep of boxcox and boxcox1p, in long double: jax's
float64 slopes in lmbda are 0 at lmbda = 0 (the true one is log(x)^2 / 2) and the closed form
(t e^t - expm1(t)) / lmbda^2, t = lmbda log x, cancels for small t, where the series is used.

With L = log x (log1p x for boxcox1p): d/dx = e^((lmbda - 1) L), d/dlmbda = L^2 sum_k (k + 1) t^k / (k + 2)!,
d2/dx2 = (lmbda - 1) e^((lmbda - 2) L) (times L'' terms that cancel: (1 + x) and x enter alike),
d2/dx dlmbda = L e^((lmbda - 1) L), d2/dlmbda2 = L^3 sum_k (k + 2)(k + 1) t^k / (k + 3)! = e^t (t^2 - 2t + 2) /
lmbda^3 - 2 / lmbda^3 (its limits where x^lmbda is 0 or overflows).
"""

from __future__ import annotations

import math

import numpy as np

L = np.longdouble


def _series(t, weight):
    """sum_k weight(k) t^k for |t| < 1 (40 terms), long double."""
    total = np.zeros_like(t)
    for k in reversed(range(40)):
        total = total * t + L(weight(k))
    return total


def _forms(log_fn):
    def form(order: int):
        def ref(x, lmbda):
            x, lmbda = np.asarray(x, L), np.asarray(lmbda, L)
            with np.errstate(all="ignore"):
                log_x = log_fn(x)
                finite = np.isfinite(log_x)
                t = lmbda * np.where(finite, log_x, L(0))
                t_full = np.where(lmbda == 0, L(0), lmbda * log_x)  # +-inf where x^lmbda is 0 or inf
                t_full = np.where(t_full > 11000, np.inf, t_full)  # e^t overflows long double: slopes inf
                small = finite & (np.abs(t) < 1)
                ts = np.where(small, t, L(0))
                inert = np.where((lmbda == 1) & ~finite, L(0), log_x)
                dx = np.exp((lmbda - 1) * inert)
                if order == 1:
                    series = log_x**2 * _series(ts, lambda k: (k + 1) / math.factorial(k + 2))
                    tl = lmbda * log_x
                    closed = (tl * np.exp(tl) - np.expm1(tl)) / lmbda**2
                    dl = np.where(small, series, closed)
                    # x^lmbda -> 0 (t = -inf): -1 / lmbda, slope 1 / lmbda^2; -> inf (t = +inf): inf
                    dl = np.where(t_full == -np.inf, 1 / lmbda**2, np.where(t_full == np.inf, np.inf, dl))
                    dl = np.where((lmbda == 0) & ~finite, np.inf, dl)
                    return [np.asarray(v, np.float64) for v in (dx, dl)]
                inert2 = np.where((lmbda == 2) & ~finite, L(0), log_x)
                dxx = np.where(lmbda == 1, L(0), (lmbda - 1) * np.exp((lmbda - 2) * inert2))
                dxl = np.where((log_x == -np.inf) & (lmbda > 1), L(0), log_x * dx)  # x^(lmbda-1) log x -> 0
                series = log_x**3 * _series(ts, lambda k: (k + 2) * (k + 1) / math.factorial(k + 3))
                tl = lmbda * log_x
                closed = log_x * tl * np.exp(tl) / lmbda**2 - 2 * (tl * np.exp(tl) - np.expm1(tl)) / lmbda**3
                dll = np.where(small, series, closed)
                # t -> +inf: e^t (t^2 - 2t + 2) / lmbda^3, of lmbda's sign
                dll = np.where(
                    t_full == -np.inf, -2 / lmbda**3, np.where(t_full == np.inf, np.sign(lmbda) * np.inf, dll)
                )
                dll = np.where((lmbda == 0) & ~finite, log_x**3, dll)
                return [np.asarray(v, np.float64) for v in (dxx, dxl, dll)]

        return ref

    return form


FORMS = {"boxcox": _forms(np.log), "boxcox1p": _forms(np.log1p)}

__all__ = ["FORMS"]
