"""The Faddeeva function w(z) = e^(-z^2) erfc(-iz), scipy.special.wofz (ops layer, user-facing through
sg.scipy.special).

In the upper half plane: Weideman's rational approximation (1994) in (L + iz) / (L - iz) for
|z| < 8, with 48 coefficients computed here once from a discrete Fourier transform (about 1e-14
relative, a tenth of jax's 32-term error), and Laplace's continued fraction
(i / sqrt(pi)) / (z - (1/2) / (z - 1 / (z - (3/2) / ...))) evaluated backwards beyond. The lower
half plane follows from w(z) = 2 e^(-z^2) - w(-z); on the real axis w(x) = e^(-x^2) +
(2i / sqrt(pi)) F(x) with F Dawson's integral, exactly (the continued fraction would lose the
small real part). Complex64 is computed in complex128 and rounded once. The derivative is the
closed form w' = -2 z w + 2i / sqrt(pi).
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import library
from .. import numpy_like as snp
from ..control_api import fori_loop
from ..numpy_like.core import result_dtype
from ..primitives.complex_parts import complex_op
from ..primitives.registry import bind
from .partials import with_partials
from .special_integrals import dawsn

_N = 48
_FAR = 8.0
_DEPTH = 40
_RSQRT_PI = 1 / math.sqrt(math.pi)


def _weideman_coefficients(n: int) -> tuple[float, list[float]]:
    """Weideman's L = (n / sqrt 2)^(1/2) and the coefficients a_n .. a_1 of his expansion (highest
    power first): the Fourier coefficients of e^(-t^2) (L^2 + t^2) on t = L tan(theta / 2)."""
    m = 2 * n
    scale = math.sqrt(n / math.sqrt(2))
    theta = np.arange(-m + 1, m) * math.pi / m
    t = scale * np.tan(theta / 2)
    samples = np.concatenate([[0.0], np.exp(-t * t) * (scale * scale + t * t)])
    a = np.real(np.fft.fft(np.fft.fftshift(samples))) / (2 * m)
    return scale, [float(v) for v in a[1 : n + 1][::-1]]


_L, _A = _weideman_coefficients(_N)


def _near(z):
    """w(z) for Im z >= 0, |z| < 8: Weideman's 2 p(Z) / (L - iz)^2 + (1 / sqrt pi) / (L - iz)."""
    iz = 1j * z
    denominator = _L - iz
    big_z = (_L + iz) / denominator
    p = snp.zeros_like(z)
    for coefficient in _A:
        p = p * big_z + coefficient
    return 2 * p / (denominator * denominator) + _RSQRT_PI / denominator


def _far(z):
    """w(z) for Im z >= 0, |z| >= 8: Laplace's continued fraction, from depth 40 down."""

    def body(i, t):
        k = (_DEPTH - i).astype("float64")
        return (k / 2) / (z - t)

    t = fori_loop(0, _DEPTH, body, snp.zeros_like(z))
    return (1j * _RSQRT_PI) / (z - t)


def _upper(z):
    """w(z) for Im z >= 0 (finite z)."""
    far = snp.abs(z) >= _FAR
    near_value = _near(snp.where(far, 0j, z))
    far_value = _far(snp.where(far, z, 10j))
    return snp.where(far, far_value, near_value)


def _wofz128(z):
    x, y = snp.real(z), snp.imag(z)
    lower = y < 0
    flipped = snp.where(lower, -z, z)
    finite = snp.isfinite(x) & snp.isfinite(y)
    w = _upper(snp.where(finite, flipped, 0j))
    reflected = 2 * snp.exp(-z * z) - w
    w = snp.where(lower, reflected, w)
    # Re w > 0 in the closed upper half plane (a Poisson integral of e^(-t^2)): an underflowed real part
    # is +0 (at z = -1.8e308 + i the fraction's complex division rounds it to -0)
    w = snp.where(lower, w, bind(complex_op, snp.abs(snp.real(w)), snp.imag(w)))
    # the real axis: e^(-x^2) + (2i / sqrt pi) F(x)
    xr = snp.where(finite, x, 0.0)
    axis = snp.exp(-xr * xr) + (2j * _RSQRT_PI) * dawsn(xr)
    w = snp.where(y == 0, axis, w)
    # infinities (scipy's): 0 for x = +-inf at finite y and for y = +inf; at y = -inf, e^(y^2 - x^2)
    # wins: inf at x = 0, nan elsewhere
    vanishing = (snp.isinf(x) & snp.isfinite(y)) | (y == math.inf)
    zero = snp.zeros_like(x)
    w = snp.where(vanishing, bind(complex_op, zero, snp.copysign(zero, x)), w)  # Im w ~ 1 / (sqrt(pi) x)
    w = snp.where(y == -math.inf, snp.where(x == 0, complex(math.inf, 0.0), complex(math.nan, math.nan)), w)
    return snp.where(snp.isnan(x) | snp.isnan(y), complex(math.nan, math.nan), w)


def _wofz_value(z):
    wide = z.astype("complex128")
    return _wofz128(wide).astype(z.dtype)


def _wofz_slope(z):
    """-2 z w(z) + 2i / sqrt(pi), in complex128 (the two terms cancel where w' is small)."""
    wide = z.astype("complex128")
    return ((-2 * wide * _wofz_in_slope(wide) + 2j * _RSQRT_PI).astype(z.dtype),)


_wofz = with_partials("wofz", _wofz_value, _wofz_slope)
# wofz inside its own slope: a second custom_vjp object, so the second derivative follows the
# closed form too (inside _wofz's backward, _wofz itself is its plain value)
_wofz_in_slope = with_partials("wofz", _wofz_value, _wofz_slope)


@library()
def wofz(z):
    """The Faddeeva function w(z) = e^(-z^2) erfc(-iz) of a real or complex z (complex result:
    complex64 from float32 or complex64, else complex128); derivative -2 z w(z) + 2i / sqrt(pi)."""
    z = snp.asarray(z)
    dt = result_dtype(z)
    if dt.is_complex:
        target = dt.name
    else:
        target = "complex128" if dt.bits == 64 else "complex64"
    return _wofz(z.astype(target))


__all__ = ["wofz"]
