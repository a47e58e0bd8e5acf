"""Spherical harmonics Y_n^m(theta, phi), jax.scipy.special.sph_harm_y (ops layer, user-facing through
sg.scipy.special).

Y_n^m(theta, phi) = N_n^m P_n^m(cos theta) e^(i m phi), orthonormal on the sphere, with the
Condon-Shortley phase (scipy's): theta is the polar angle, phi the azimuth. The normalized
associated Legendre function comes from the stable three-term recurrence in the degree,

  Pbar_m^m = (-1)^m sqrt((2m+1)!! / (4 pi (2m)!!)) |sin theta|^m,
  Pbar_l^m = a_l (cos theta Pbar_(l-1)^m - b_l Pbar_(l-2)^m),
  a_l = sqrt((4 l^2 - 1) / (l^2 - m^2)), b_l = sqrt(((l - 1)^2 - m^2) / (4 (l - 1)^2 - 1)),

unrolled to the static n_max (jax's argument: the largest degree, read from n when it is a
concrete array), elementwise in each point's own m; Y_n^(-m) = (-1)^m conj(Y_n^m). Degrees above
n_max are clipped to it (jax's), |m| > n gives 0. The derivatives in theta and phi are the chain
rule through the recurrence (a polynomial in cos and sin theta).
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import GraphError, Tensor, library, located, user_location
from .. import numpy_like as snp
from ..numpy_like.core import result_dtype


def _static_max(n, n_max):
    if n_max is not None:
        return int(n_max)
    if isinstance(n, Tensor):
        raise GraphError(
            located(
                "sph_harm_y: n is a graph tensor, so its largest degree is not known while the graph is "
                "built: pass n_max= (the largest n; larger degrees are clipped to it)",
                user_location(),
            )
        )
    return int(np.max(np.asarray(n)))


def _legendre(n, am, x, s, n_max: int):
    """Pbar_n^am(x) for each point (n clipped to n_max, 0 where am > n), x = cos, s = sin theta."""
    pmm = snp.full_like(x, 1 / math.sqrt(4 * math.pi))
    for k in range(1, n_max + 1):
        factor = -math.sqrt((2 * k + 1) / (2 * k)) * s
        pmm = snp.where(am >= k, pmm * factor, pmm)
    previous, current = snp.zeros_like(x), snp.zeros_like(x)
    chosen = snp.zeros_like(x)
    for degree in range(n_max + 1):
        # degree == am: start; degree > am: recur; degree < am: nothing yet
        ld = float(degree)
        m2 = am * am
        above = am < degree
        m2_safe = snp.where(above, m2, 0.0)
        # 0 where the degree is not above m (a nan there, multiplied by the zero cotangent where
        # discards, would still make the gradient nan)
        a = snp.sqrt(snp.where(above, (4 * ld * ld - 1) / snp.where(above, ld * ld - m2_safe, 1.0), 0.0))
        b = snp.sqrt(snp.maximum((ld - 1) ** 2 - m2_safe, 0.0) / max(4 * (ld - 1) ** 2 - 1, 1.0))
        recurred = a * (x * current - b * previous)
        new = snp.where(am == degree, pmm, snp.where(above, recurred, 0.0))
        previous, current = snp.where(above | (am == degree), current, 0.0), new
        chosen = snp.where(n == degree, current, chosen)
    return chosen


@library()
def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic Y_n^m(theta, phi) of degree n >= 0 and order |m| <= n (integer
    arrays), polar angle theta and azimuth phi (scipy.special.sph_harm_y's convention); complex
    result, broadcast over the four arguments. ``n_max`` (static) is the largest n, required when n
    is a graph tensor; ``diff_n`` is not supported (jax's neither)."""
    if diff_n is not None:
        raise GraphError(located("sph_harm_y: diff_n is not supported (as jax)", user_location()))
    top = _static_max(n, n_max)
    theta = snp.asarray(theta)
    if theta.ndim == 0:
        theta = snp.reshape(theta, (1,))  # jax's: a scalar theta becomes a 1-element array
    dt = result_dtype(theta, phi)
    if not dt.is_inexact:
        dt = result_dtype(theta.astype("float32"), phi)
    # computed in float64 and rounded once (float32's recurrence and trig lose 14 ulps at theta = 1)
    real = "float64"
    theta, phi = snp.asarray(theta, real), snp.asarray(phi, real)
    n, m = snp.asarray(n), snp.asarray(m)
    n, m, theta, phi = snp.broadcast_arrays(n, m, theta, phi)
    nf = snp.minimum(n.astype(real), float(top))
    mf = m.astype(real)
    am = snp.abs(mf)
    # sin theta = sqrt(1 - cos^2 theta) >= 0: Y is a function of cos theta (scipy's and jax's Y at
    # theta < 0 or > pi, where the signed sine flips Y for odd m)
    legendre = _legendre(nf, am, snp.cos(theta), snp.abs(snp.sin(theta)), top)
    legendre = snp.where(am > nf, 0.0, legendre)
    angle = am * phi
    harmonic = snp.cos(angle) * legendre + 1j * (snp.sin(angle) * legendre)
    parity = snp.where(snp.remainder(am, 2) == 1, -1.0, 1.0)
    harmonic = snp.where(mf < 0, parity * snp.conjugate(harmonic), harmonic)
    return harmonic if dt.bits == 64 else harmonic.astype("complex64")


__all__ = ["sph_harm_y"]
