"""Closed-form references for sg.nn's sweep, in long double, where jax's own float64 values or
derivatives are off: they cancel (1 - sigmoid, x + sqrt(x^2 + b) below 0), overflow (x^3 in the
tanh gelu at 1e154, (x + 1)^2 at the largest float) or round through a chain rule.

Each returns the leaves of a part: a value, d1 one array per argument, d2 the Hessian's upper
triangle row by row (the order runners.py builds).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

L = np.longdouble


def _ld(x):
    return np.asarray(x, L)


def _f64(*xs) -> list:
    return [np.asarray(x, np.float64) for x in xs]


def _sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x))))


def _softplus(x):
    return np.logaddexp(L(0), x)


def log_sigmoid(order: int):
    """d/dx log sigmoid(x) = sigmoid(-x); d2 = -sigmoid(x) sigmoid(-x)."""

    def ref(x):
        x = _ld(x)
        with np.errstate(all="ignore"):
            return _f64(_sigmoid(-x) if order == 1 else -_sigmoid(x) * _sigmoid(-x))

    return ref


def softplus(order: int):
    def ref(x):
        x = _ld(x)
        with np.errstate(all="ignore"):
            return _f64(_sigmoid(x) if order == 1 else _sigmoid(x) * _sigmoid(-x))

    return ref


def soft_sign(order: int):
    """x / (1 + |x|): d1 = 1 / (1 + |x|)^2, d2 = -2 sign(x) / (1 + |x|)^3."""

    def ref(x):
        x = _ld(x)
        q = 1 + np.abs(x)
        with np.errstate(all="ignore"):
            return _f64(1 / (q * q) if order == 1 else -2 * np.sign(x) / (q * q * q))

    return ref


def _root(x, b):
    return np.sqrt(x * x + b)


def squareplus(order: int, with_b: bool = False):
    """(x + h) / 2 with h = sqrt(x^2 + b), rationalized below 0: b / (2 (h - x)); d1 = (1 + x / h) / 2
    (= b / (2 h (h - x)) below 0), d2 = b / (2 h^3). With ``with_b`` also the partials in b:
    1 / (4 h); d2 rows (x, x), (x, b) = -x / (4 h^3), (b, b) = -1 / (8 h^3)."""

    def ref(x, b=4.0):
        x, b = _ld(x), _ld(b)
        h = _root(x, b)
        with np.errstate(all="ignore"):
            if order == 0:
                return _f64(np.where((x < 0) & (b != 0), b / (2 * (h - x)), (x + h) / 2))
            dx = np.where(x < 0, b / (2 * h * (h - x)), (1 + x / h) / 2)
            if order == 1:
                return _f64(dx, 1 / (4 * h)) if with_b else _f64(dx)
            h3 = h * h * h
            if with_b:
                return _f64(b / (2 * h3), -x / (4 * h3), -1 / (8 * h3))
            return _f64(b / (2 * h3))

    return ref


_C, _K = np.sqrt(L(2) / np.pi), L("0.044715")


def gelu(order: int):
    """The tanh gelu 0.5 x (1 + t), t = tanh(u), u = c (x + k x^3): d1 = 0.5 (1 + t) + 0.5 x s u',
    d2 = s u' + 0.5 x s (u'' - 2 t u'^2), with s = 1 - t^2, u' = c (1 + 3 k x^2), u'' = 6 c k x."""

    def ref(x):
        x = _ld(x)
        with np.errstate(all="ignore"):
            u = _C * (x + _K * x * x * x)
            t = np.tanh(u)
            s = (1 - t) * (1 + t)
            du, ddu = _C * (1 + 3 * _K * x * x), 6 * _C * _K * x
            if order == 1:
                return _f64(np.where(s == 0, (1 + t) / 2, 0.5 * (1 + t) + 0.5 * x * s * du))
            return _f64(np.where(s == 0, 0.0, s * du + 0.5 * x * s * (ddu - 2 * t * du * du)))

    return ref


def gelu_exact(order: int):
    """x Phi(x): d1 = Phi(x) + x phi(x), d2 = phi(x) (2 - x^2)."""

    def ref(x):
        xl = _ld(x)
        with np.errstate(all="ignore"):
            phi = np.exp(-xl * xl / 2) / np.sqrt(2 * np.pi)
            if order == 1:
                return _f64(_ld(ndtr(np.asarray(x, np.float64))) + xl * phi)
            return _f64(phi * (2 - xl * xl))

    return ref


def sparse_plus(order: int):
    def ref(x):
        x = _ld(x)
        inside = (x > -1) & (x < 1)
        if order == 1:
            return _f64(np.where(x <= -1, 0, np.where(x >= 1, 1, (x + 1) / 2)))
        return _f64(np.where(inside, 0.5, 0.0))

    return ref


def mish(order: int):
    """x t with t = tanh(softplus(x)), s = 1 - t^2, g = sigmoid(x): d1 = t + x s g,
    d2 = s g (2 + x (1 - g - 2 t g))."""

    def ref(x):
        x = _ld(x)
        with np.errstate(all="ignore"):
            t = np.tanh(_softplus(x))
            s, g = (1 - t) * (1 + t), _sigmoid(x)
            if order == 1:
                return _f64(t + np.where(s == 0, 0, x * s * g))
            return _f64(np.where(s == 0, 0, s * g * (2 + x * (1 - g - 2 * t * g))))

    return ref


def log1mexp(order: int):
    """log(1 - e^-x) (order 0), d1 = 1 / expm1(x), d2 = -e^x / expm1(x)^2, each above 0 written in
    e^-x (e^-x / (1 - e^-x) and -e^-x / (1 - e^-x)^2), which neither overflows nor divides inf by inf."""

    def ref(x):
        x = _ld(x)
        with np.errstate(all="ignore"):
            if order == 0:
                return _f64(np.where(x == np.inf, 0, np.log(-np.expm1(-x))))
            e = np.exp(-np.abs(x))
            m = np.where(x > 0, -np.expm1(-x), np.expm1(x))
            if order == 1:
                return _f64(np.where(x > 0, e / m, 1 / m))
            return _f64(np.where(x > 0, -e / (m * m), -np.exp(x) / (m * m)))

    return ref


def silu(order: int):
    """x s(x): d1 = s + x s s(-x), d2 = s s(-x) (2 + x (s(-x) - s(x)))."""

    def ref(x):
        x = _ld(x)
        with np.errstate(all="ignore"):
            up, down = _sigmoid(x), _sigmoid(-x)
            both = up * down
            if order == 1:
                return _f64(np.where(np.isinf(x), np.where(x > 0, 1, 0), up + x * both))
            return _f64(np.where(np.isinf(x), 0, both * (2 + x * (down - up))))

    return ref


def celu_alpha(order: int):
    """celu(x, a) = max(x, 0) + a expm1(z / a), z = min(x, 0), r = z / a: d1 = (x > 0 ? 1 : e^r,
    expm1(r) - r e^r), d2 = (e^r / a, -r e^r / a, r^2 e^r / a) for x <= 0 (the left derivatives at
    0), 0 above; their limits as e^r underflows (a -> 0+) are 0."""

    def ref(x, a):
        x, a = _ld(x), _ld(a)
        with np.errstate(all="ignore"):
            z = np.minimum(x, 0)
            r = np.where(z == 0, 0, z / a)
            er = np.exp(r)
            if order == 1:
                return _f64(np.where(x > 0, 1, er), np.expm1(r) - np.where(er == 0, 0, r * er))
            on = (x <= 0) & (er > 0)  # the left derivatives at 0; limits (0) where e^r underflows
            return _f64(
                np.where(on, er / a, 0), np.where(on, -r * er / a, 0), np.where(on, r * r * er / a, 0)
            )

    return ref


def elu(order: int, alpha: float = 1.0, scale: float = 1.0):
    """scale * elu(x, alpha): d1 = scale (x > 0 ? 1 : alpha e^x), d2 = scale (x > 0 ? 0 : alpha e^x)
    (jax's branch at 0; its y + 1 from expm1 cancels for x < 0, 0 at -100)."""

    def ref(x):
        x = _ld(x)
        with np.errstate(all="ignore"):
            left = scale * alpha * np.exp(x)
            return _f64(np.where(x > 0, scale if order == 1 else 0, left))

    return ref


SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)  # alpha, scale


def derivatives(form, *args) -> dict:
    """The d1ref and d2ref arguments of a Sig from one of the forms above."""
    return {"d1ref": form(1, *args), "d2ref": form(2, *args)}
