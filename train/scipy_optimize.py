"""sg.scipy.optimize: minimize (BFGS) built from graph ops (train layer: it needs gradients).

``minimize(fun, x0, args)`` traces ``fun`` (a Python function of a 1-D
Tensor building graph ops, like jax.scipy.optimize.minimize) and its
gradient (``sg.gradients``) into nested while loops: the BFGS iteration, and
inside it a line search for a step meeting the strong Wolfe conditions
(bracketing, then zoom with cubic / quadratic interpolation and bisection as
the fallback, Nocedal & Wright's algorithms 3.5 and 3.6, as scipy's BFGS
does). The answer is an ``OptimizeResults`` record of Tensors; ``status``
uses scipy's codes (0 converged, 1 too many iterations, 2 line search failed
or the value stopped being finite).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..graph import Tensor, dtypes, library
from ..ops import numpy_like as snp
from ..ops.control_api import while_loop
from ..ops.numpy_like.core import asarray, error
from ..transforms import gradients

_C1, _C2 = 1e-4, 0.9  # the strong Wolfe constants of scipy's BFGS
_BRACKET_STEPS, _ZOOM_STEPS = 10, 10
_AMAX = 1e100
# line-search phases
_SEARCHING, _FOUND, _ZOOMING, _FAILED = 0, 1, 2, 3


class OptimizeResults(NamedTuple):
    """What ``minimize`` found: Tensors, as jax.scipy.optimize.OptimizeResults."""

    x: Tensor  # the solution
    success: Tensor  # bool: the gradient's norm reached gtol
    status: Tensor  # 0 converged, 1 maxiter reached, 2 line search failed / non-finite value
    fun: Tensor  # fun(x)
    jac: Tensor  # its gradient at x
    hess_inv: Tensor  # the BFGS estimate of the inverse Hessian
    nfev: Tensor  # evaluations of fun (each with its gradient)
    njev: Tensor
    nit: Tensor  # BFGS iterations


def _value_and_grad(fun, args):
    def fg(x):
        y = asarray(fun(x, *args))
        if y.shape != ():
            raise error(f"minimize wants fun to return a scalar, got {y.type}")
        return y.astype(x.dtype), gradients(y, [x])[0]

    return fg


def _sel(pred, a, b):
    return snp.where(pred, a, b)


def _cubic_min(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb), (c, fc), and whether it exists."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    rb, rc = fb - fa - fpa * db, fc - fa - fpa * dc
    safe = _sel(denom == 0.0, 1.0, denom)
    big_a = (dc * dc * rb - db * db * rc) / safe
    big_b = (-dc * dc * dc * rb + db * db * db * rc) / safe
    radical = big_b * big_b - 3.0 * big_a * fpa
    safe_a = _sel(big_a == 0.0, 1.0, big_a)
    xmin = a + (-big_b + snp.sqrt(snp.maximum(radical, 0.0))) / (3.0 * safe_a)
    ok = (denom != 0.0) & (radical >= 0.0) & (big_a != 0.0) & snp.isfinite(xmin)
    return xmin, ok


def _quad_min(a, fa, fpa, b, fb):
    """The minimizer of the parabola through (a, fa) with slope fpa and (b, fb), and whether it exists."""
    db = b - a
    curv = (fb - fa - fpa * db) / _sel(db == 0.0, 1.0, db * db)
    xmin = a - fpa / (2.0 * _sel(curv == 0.0, 1.0, curv))
    return xmin, (db != 0.0) & (curv != 0.0) & snp.isfinite(xmin)


def _trial_step(j, z):
    """zoom's next trial step inside [a_lo, a_hi]: cubic, else quadratic, else the midpoint."""
    span = z["a_hi"] - z["a_lo"]
    lo, hi = snp.minimum(z["a_lo"], z["a_hi"]), snp.maximum(z["a_lo"], z["a_hi"])
    cubic, cubic_ok = _cubic_min(z["a_lo"], z["phi_lo"], z["dphi_lo"], z["a_hi"], z["phi_hi"], z["a_rec"],
                                 z["phi_rec"])  # fmt: skip
    cubic_ok = cubic_ok & (j > 0) & (cubic > lo + 0.2 * snp.abs(span)) & (cubic < hi - 0.2 * snp.abs(span))
    quad, quad_ok = _quad_min(z["a_lo"], z["phi_lo"], z["dphi_lo"], z["a_hi"], z["phi_hi"])
    quad_ok = quad_ok & (quad > lo + 0.1 * snp.abs(span)) & (quad < hi - 0.1 * snp.abs(span))
    return _sel(cubic_ok, cubic, _sel(quad_ok, quad, z["a_lo"] + 0.5 * span))


def _line_search(fg, x, p, f0, g0, old_f0):
    """A step ``alpha`` along ``p`` meeting the strong Wolfe conditions; (alpha, f, g, nfev, ok)."""
    dt = x.dtype
    dphi0 = snp.sum(g0 * p)
    zero = snp.zeros((), dt)
    guess = 1.01 * 2.0 * (f0 - old_f0) / _sel(dphi0 == 0.0, 1.0, dphi0)
    a1 = _sel((dphi0 != 0.0) & snp.isfinite(guess) & (guess > 0.0), snp.minimum(guess, 1.0), 1.0)
    armijo_slope = _C1 * dphi0
    amax = np.asarray(min(_AMAX, float(np.finfo(dt.np).max)), dt.np)

    def evaluate(a):
        f, g = fg(x + a * p)
        return f, g, snp.sum(g * p)

    state = dict(
        i=asarray(0), phase=asarray(_SEARCHING), nfev=asarray(0),
        a0=zero, phi_a0=f0, dphi_a0=dphi0, a1=a1.astype(dt),
        a_lo=zero, a_hi=zero, phi_lo=f0, phi_hi=f0, dphi_lo=dphi0,
        a_star=zero, f_star=f0, g_star=g0,
    )  # fmt: skip

    def bracket(s):
        f1, g1, dphi1 = evaluate(s["a1"])
        too_high = (f1 > f0 + s["a1"] * armijo_slope) | ((f1 >= s["phi_a0"]) & (s["i"] > 0))
        flat = ~too_high & (snp.abs(dphi1) <= -_C2 * dphi0)
        rising = ~too_high & ~flat & (dphi1 >= 0.0)
        moving = ~too_high & ~flat & ~rising
        out = dict(s, i=s["i"] + 1, nfev=s["nfev"] + 1)
        # zoom between the last two steps, the one with the lower value first
        out["a_lo"] = _sel(too_high, s["a0"], s["a1"])
        out["a_hi"] = _sel(too_high, s["a1"], s["a0"])
        out["phi_lo"] = _sel(too_high, s["phi_a0"], f1)
        out["phi_hi"] = _sel(too_high, f1, s["phi_a0"])
        out["dphi_lo"] = _sel(too_high, s["dphi_a0"], dphi1)
        out["a_star"], out["f_star"], out["g_star"] = s["a1"], f1, g1
        out["a0"], out["phi_a0"], out["dphi_a0"] = s["a1"], f1, dphi1
        out["a1"] = snp.minimum(2.0 * s["a1"], amax)
        exhausted = (out["i"] >= _BRACKET_STEPS) | ~snp.isfinite(f1)
        phase = _sel(flat, _FOUND, _sel(too_high | rising, _ZOOMING, _sel(exhausted, _FAILED, _SEARCHING)))
        out["phase"] = _sel(moving & exhausted, _FAILED, phase)
        return out

    s = while_loop(lambda s: s["phase"] == _SEARCHING, bracket, state)

    zoom = dict(
        j=asarray(0), phase=s["phase"], nfev=s["nfev"], a_lo=s["a_lo"], a_hi=s["a_hi"], phi_lo=s["phi_lo"],
        phi_hi=s["phi_hi"], dphi_lo=s["dphi_lo"], a_rec=zero, phi_rec=f0, a_star=s["a_star"],
        f_star=s["f_star"], g_star=s["g_star"],
    )  # fmt: skip

    def zoom_step(z):
        a_j = _trial_step(z["j"], z)
        f_j, g_j, dphi_j = evaluate(a_j)
        shrink_hi = (f_j > f0 + a_j * armijo_slope) | (f_j >= z["phi_lo"])
        done = ~shrink_hi & (snp.abs(dphi_j) <= -_C2 * dphi0)
        flip = ~shrink_hi & (dphi_j * (z["a_hi"] - z["a_lo"]) >= 0.0)
        out = dict(z, j=z["j"] + 1, nfev=z["nfev"] + 1, a_star=a_j, f_star=f_j, g_star=g_j)
        # the point dropped from the bracket is remembered for the next cubic
        out["a_rec"] = _sel(shrink_hi | flip, z["a_hi"], z["a_lo"])
        out["phi_rec"] = _sel(shrink_hi | flip, z["phi_hi"], z["phi_lo"])
        out["a_hi"] = _sel(shrink_hi, a_j, _sel(flip, z["a_lo"], z["a_hi"]))
        out["phi_hi"] = _sel(shrink_hi, f_j, _sel(flip, z["phi_lo"], z["phi_hi"]))
        out["a_lo"] = _sel(shrink_hi, z["a_lo"], a_j)
        out["phi_lo"] = _sel(shrink_hi, z["phi_lo"], f_j)
        out["dphi_lo"] = _sel(shrink_hi, z["dphi_lo"], dphi_j)
        stuck = (out["j"] >= _ZOOM_STEPS) | ~snp.isfinite(f_j)
        out["phase"] = _sel(done, _FOUND, _sel(stuck, _FAILED, _ZOOMING))
        return out

    z = while_loop(lambda z: z["phase"] == _ZOOMING, zoom_step, zoom)
    return z["a_star"], z["f_star"], z["g_star"], z["nfev"], z["phase"] == _FOUND


def _options(tol, options, n):
    options = dict(options or {})
    gtol = options.pop("gtol", 1e-5 if tol is None else tol)
    maxiter = options.pop("maxiter", None)
    norm = options.pop("norm", math.inf)
    if options:
        raise error(
            f"minimize(method='BFGS') got unknown options {sorted(options)}; it knows gtol, maxiter, norm"
        )
    return float(gtol), int(200 * n if maxiter is None else maxiter), norm


def _gnorm(g, norm):
    if norm == math.inf:
        return snp.max(snp.abs(g))
    if norm == -math.inf:
        return snp.min(snp.abs(g))
    return snp.sum(snp.abs(g) ** norm) ** (1.0 / norm)


@library()
def minimize(fun, x0, args=(), *, method: str = "BFGS", tol=None, options=None) -> OptimizeResults:
    """Minimize the scalar ``fun(x, *args)`` from ``x0`` (1-D floats) by BFGS, as scipy/jax's minimize.

    ``options``: ``gtol`` (stop when the gradient's ``norm`` is at most this;
    ``tol`` sets it too, default 1e-5), ``maxiter`` (default 200 * len(x0)),
    ``norm`` (default inf). Returns an ``OptimizeResults`` of Tensors.

        res = sg.scipy.optimize.minimize(lambda x: snp.sum((x - 3.0) ** 2), np.zeros(2))
    """
    if method.lower() != "bfgs":
        raise error(f"minimize supports method='BFGS' only, got {method!r}")
    x0 = asarray(x0)
    if x0.dtype.kind != "f":
        x0 = x0.astype(dtypes.float32)
    if x0.ndim != 1 or not isinstance(x0.shape[0], int):
        raise error(f"minimize wants x0 of rank 1 with a static size, got {x0.type}")
    n = x0.shape[0]
    gtol, maxiter, norm = _options(tol, options, n)
    fg = _value_and_grad(fun, tuple(args))
    f0, g0 = fg(x0)
    eye = snp.eye(n, dtype=x0.dtype)
    state = dict(
        k=asarray(0), x=x0, f=f0, g=g0, h=eye, old_f=f0 + 0.5 * snp.sqrt(snp.sum(g0 * g0)),
        status=asarray(1), done=_gnorm(g0, norm) <= gtol, nfev=asarray(1),
    )  # fmt: skip

    def step(s):
        p = -(s["h"] @ s["g"])
        alpha, f_new, g_new, nfev, ok = _line_search(fg, s["x"], p, s["f"], s["g"], s["old_f"])
        sk = alpha * p
        yk = g_new - s["g"]
        rho_inv = snp.sum(yk * sk)
        rho = _sel(rho_inv == 0.0, 1000.0, 1.0 / _sel(rho_inv == 0.0, 1.0, rho_inv))
        left = eye - rho * snp.outer(sk, yk)
        h_new = left @ s["h"] @ left.T + rho * snp.outer(sk, sk)
        converged = ok & (_gnorm(g_new, norm) <= gtol)
        broken = ~ok | ~snp.isfinite(f_new)
        keep = ~ok  # a failed line search leaves the point where it was
        out = dict(s, k=s["k"] + 1, nfev=s["nfev"] + nfev)
        out["x"], out["f"], out["g"] = (
            _sel(keep, s["x"], s["x"] + sk),
            _sel(keep, s["f"], f_new),
            _sel(keep, s["g"], g_new),
        )
        out["old_f"] = _sel(keep, s["old_f"], s["f"])
        out["h"] = _sel(keep | converged, s["h"], h_new)
        out["status"] = _sel(converged, 0, _sel(broken, 2, 1))
        out["done"] = converged | broken
        return out

    s = while_loop(lambda s: ~s["done"] & (s["k"] < maxiter), step, state)
    status = _sel(s["done"] & (s["k"] == 0), 0, s["status"])
    nfev = s["nfev"]
    return OptimizeResults(
        x=s["x"], success=status == 0, status=status, fun=s["f"], jac=s["g"], hess_inv=s["h"], nfev=nfev,
        njev=nfev, nit=s["k"],
    )  # fmt: skip


__all__ = ["OptimizeResults", "minimize"]
