"""Closed-form derivatives in long double, the references where jax's float64 derivatives are
themselves off: they overflow (x*x at the largest float64) or cancel (hypot's and arctan2's
Hessians at a tie) where the exact value is finite. Long double is 80-bit on x86-64, so the
squares of float64 values neither overflow nor round; elsewhere it is float64 and these are only
as good as the formulas.

Each returns the leaves of a part: d1 one array per argument, d2 the Hessian's upper triangle
row by row (entries (i, j), j >= i, in the order runners.py builds them).
"""

from __future__ import annotations

import decimal
import math

import numpy as np

L = np.longdouble
TINY = float(np.finfo(np.float64).tiny)


def _ld(*xs):
    return [np.asarray(x, L) for x in xs]


def _f64(*xs) -> list:
    return [np.asarray(x, np.float64) for x in xs]


def quiet(fn):
    """``fn`` with numpy's floating-point warnings off (references meet inf and nan on purpose)."""

    def wrapped(*args):
        with np.errstate(all="ignore"):
            return fn(*args)

    return wrapped


def atan(order: int):
    def ref(x):
        (x,) = _ld(x)
        q = 1 + x * x
        with np.errstate(all="ignore"):
            return _f64(1 / q if order == 1 else -2 * x / (q * q))

    return ref


def logistic(order: int):
    """s(x) s(-x) and s(x) s(-x) (s(-x) - s(x)), s = 1 / (1 + e^-x): jax's s (1 - s) loses the
    tail (0 from x = 37 on) and the digits of 1 - s above 0."""

    def ref(x):
        (x,) = _ld(x)
        with np.errstate(all="ignore"):
            up, down = 1 / (1 + np.exp(-x)), 1 / (1 + np.exp(x))
            d1 = up * down
            return _f64(d1 if order == 1 else d1 * (down - up))

    return ref


def asinh(order: int):
    def ref(x):
        (x,) = _ld(x)
        q = x * x + 1
        with np.errstate(all="ignore"):
            return _f64(1 / np.sqrt(q) if order == 1 else -x / (q * np.sqrt(q)))

    return ref


def acosh(order: int):
    def ref(x):
        (x,) = _ld(x)
        q = x * x - 1
        with np.errstate(all="ignore"):
            return _f64(1 / np.sqrt(q) if order == 1 else -x / (q * np.sqrt(q)))

    return ref


def arctan2(order: int):
    """Of arctan2(a, b), the angle of the point (b, a)."""

    def ref(a, b):
        a, b = _ld(a, b)
        with np.errstate(all="ignore"):
            r2 = a * a + b * b
            if order == 1:
                return _f64(b / r2, -a / r2)
            cross, diff = 2 * a * b / (r2 * r2), (a * a - b * b) / (r2 * r2)
            return _f64(-cross, diff, cross)

    return ref


def angle(order: int):
    """Of a real x's angle, arctan2(0, x): its derivatives are arctan2's in the second argument."""

    def ref(x):
        both = arctan2(order)(np.zeros_like(x), x)
        return [both[1]] if order == 1 else [both[2]]

    return ref


def hypot(order: int):
    """Of hypot(a, b), with the norm's 0 gradient at the origin."""

    def ref(a, b):
        a, b = _ld(a, b)
        with np.errstate(all="ignore"):
            h = np.hypot(a, b)
            if order == 1:
                return _f64(*(np.where(h == 0, 0, t / h) for t in (a, b)))
            ua, ub = a / h, b / h
            cross = -ua * ub / h
            return _f64(ub * ub / h, cross, ua * ua / h)

    return ref


def divide(order: int):
    def ref(a, b):
        a, b = _ld(a, b)
        with np.errstate(all="ignore"):
            if order == 1:
                return _f64(1 / b, -a / (b * b))
            mixed = -1 / (b * b)
            return _f64(np.zeros_like(a + b), mixed, 2 * a / (b * b * b))

    return ref


def erf(order: int, sign: float = 1.0):
    """Of erf (sign -1: of erfc): 2/sqrt(pi) e^-x^2, then its derivative -2x times that."""

    def ref(x):
        (x,) = _ld(x)
        with np.errstate(all="ignore"):
            slope = sign * 2 / np.sqrt(L(np.pi)) * np.exp(-x * x)
            return _f64(slope if order == 1 else -2 * x * slope)

    return ref


def erfc(order: int):
    return erf(order, -1.0)


def expm1(order: int):
    """Of expm1: e^x at every order (jax's y + 1 cancels for x < 0: 1e-12 off at -10, 0 at -100)."""

    def ref(x):
        (x,) = _ld(x)
        with np.errstate(all="ignore"):
            return _f64(np.exp(x))

    return ref


def derivatives(form) -> dict:
    """The d1ref and d2ref arguments of a Sig from one of the forms above."""
    return {"d1ref": form(1), "d2ref": form(2)}


def geomspace4(start, stop):
    """geomspace(start, stop, 4, axis=-1)'s reference: start^(1 - t) stop^t at t = 0, 1/3, 2/3, 1 in
    decimal (40 digits) where both ends are finite, nonzero and of one sign; jax's float64 elsewhere
    (ends at 0, of opposite signs or infinite: the conventions DIFFERENCES describes). numpy and jax
    take 10 ** a linspace of log10s, which rounds 1e-16 of a log of 205 into 100-400 ulps
    ((tiny, 2)'s second term 9.9671949510975675e-206, jax's ...096656e-206)."""
    import jax
    import jax.numpy as jnp

    with jax.enable_x64(True):
        out = np.array(jnp.geomspace(jnp.asarray(start), jnp.asarray(stop), 4, axis=-1), np.float64)
    start, stop = np.broadcast_arrays(np.asarray(start, np.float64), np.asarray(stop, np.float64))
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        for idx in np.ndindex(start.shape):
            a, b = float(start[idx]), float(stop[idx])
            if not (
                math.isfinite(a) and math.isfinite(b) and min(abs(a), abs(b)) >= TINY and (a > 0) == (b > 0)
            ):
                continue  # XLA flushes a subnormal end to 0: both libraries' NaN progression
            sign = 1.0 if a > 0 else -1.0
            la, lb = decimal.Decimal(abs(a)).ln(), decimal.Decimal(abs(b)).ln()
            for k in range(4):
                t = decimal.Decimal(k) / 3
                out[idx + (k,)] = sign * float(((1 - t) * la + t * lb).exp())
    return out
