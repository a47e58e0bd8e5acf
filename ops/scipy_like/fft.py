"""sg.scipy.fft: the discrete cosine transforms dct, idct, dctn and idctn (ops layer).

scipy.fft's four types and three norms (jax takes type 2 only), each written
as one FFT of twice the length: type II reads Re(e^{-i pi k / 2N} FFT_2N(x)),
type III the same sum run backwards, type IV adds the half-sample twist
e^{-i pi n / 2N} and type I transforms the even extension. The phase trick
needs real input, so complex input is transformed as its real and imaginary
parts (the transform is linear). idct of type t is dct of its inverse type
with the norm swapped, as scipy defines it.
"""

from __future__ import annotations

import numpy as np

from ...graph import library
from .. import numpy_like as snp
from ..numpy_like.core import error, normalize_axes, normalize_axis
from .inexact import as_inexact

_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}
_SWAPPED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _check(type_: int, norm, fn: str) -> str:
    if type_ not in (1, 2, 3, 4):
        raise error(f"{fn} wants type 1, 2, 3 or 4, got {type_!r}")
    norm = "backward" if norm is None else norm
    if norm not in _SWAPPED:
        raise error(f"{fn} wants norm None, 'backward', 'ortho' or 'forward', got {norm!r}")
    return norm


def _along(values: np.ndarray, ndim: int, dt):
    """A constant vector laid along the last of ``ndim`` axes."""
    return snp.asarray(values.reshape((1,) * (ndim - 1) + (-1,)), dt)


def _resized(x, n: int | None, fn: str):
    """x (transform axis last) cut or padded with zeros to ``n``."""
    size = x.shape[-1]
    if not isinstance(size, int):
        raise error(f"{fn} wants a static length along the transformed axis, got {x.type}")
    if n is None or n == size:
        return x
    if n < 1:
        raise error(f"{fn} wants n >= 1, got {n}")
    if n < size:
        return x[..., :n]
    return snp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - size)])


def _real_dct(x, type_: int, norm: str):
    """The DCT of real ``x`` along its last axis (scipy's definitions, before the norm)."""
    n = x.shape[-1]
    dt = x.dtype
    k = np.arange(n)
    if type_ == 1:
        if n < 2:
            raise error(f"dct type 1 wants a length of at least 2, got {n}")
        if norm == "ortho":
            edge = np.ones(n)
            edge[[0, -1]] = np.sqrt(2.0)
            x = x * _along(edge, x.ndim, dt)
        ext = snp.concatenate([x, snp.flip(x[..., 1 : n - 1], -1)], axis=-1)
        y = snp.real(snp.fft.rfft(ext))
        scale = {"backward": np.ones(n), "forward": np.full(n, 1.0 / (2 * (n - 1)))}.get(norm)
        if scale is None:
            scale = np.full(n, np.sqrt(1.0 / (2 * (n - 1))))
            scale[[0, -1]] /= np.sqrt(2.0)
        return y * _along(scale, x.ndim, dt)
    if type_ == 3:
        weight = np.full(n, 2.0)
        weight[0] = 1.0
        if norm == "ortho":
            weight = np.full(n, 2.0 / np.sqrt(2.0 * n))
            weight[0] = 1.0 / np.sqrt(n)
        elif norm == "forward":
            weight = weight / (2 * n)
        twist = weight * np.exp(-1j * np.pi * k / (2 * n))
        spectrum = snp.fft.fft(x * _along(twist, x.ndim, snp.fft.fft(x[..., :1]).dtype), n=2 * n)
        return snp.real(spectrum[..., :n])
    pre = np.exp(-1j * np.pi * k / (2 * n)) if type_ == 4 else np.ones(n)
    post = np.exp(-1j * np.pi * ((2 * k + 1) if type_ == 4 else k) / ((4 if type_ == 4 else 2) * n))
    cdt = snp.fft.fft(x[..., :1]).dtype
    xs = x * _along(pre, x.ndim, cdt) if type_ == 4 else x
    y = 2.0 * snp.real(snp.fft.fft(xs, n=2 * n)[..., :n] * _along(post, x.ndim, cdt))
    if norm == "forward":
        return y / (2.0 * n)
    if norm == "ortho":
        scale = np.full(n, np.sqrt(1.0 / (2 * n)))
        if type_ == 2:
            scale[0] = np.sqrt(1.0 / (4 * n))
        return y * _along(scale, x.ndim, dt)
    return y


def _dct_last(x, type_: int, norm: str):
    if x.dtype.is_complex:
        re, im = _real_dct(snp.real(x), type_, norm), _real_dct(snp.imag(x), type_, norm)
        return snp.asarray(re, x.dtype) + snp.asarray(im, x.dtype) * 1j
    return _real_dct(x, type_, norm)


def _dct_along(x, type_: int, n, axis: int, norm: str, fn: str):
    ax = normalize_axis(axis, x.ndim)
    moved = _resized(snp.moveaxis(x, ax, -1), n, fn)
    if moved.shape[-1] == 0:
        raise error(f"{fn} of an empty axis is not defined, got {x.type}")
    return snp.moveaxis(_dct_last(moved, type_, norm), -1, ax)


def _operand(x):
    (x,) = as_inexact(x)
    if x.ndim == 0:
        raise error(f"the dct wants an array of at least 1 dimension, got {x.type}")
    return x


@library()
def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):  # noqa: A002
    """The discrete cosine transform of ``type`` 1-4 along ``axis`` (scipy.fft.dct).

    Type 2 (the default): y[k] = 2 sum_n x[n] cos(pi k (2n + 1) / 2N).
    ``n`` cuts or zero-pads the input first; ``norm``: None/'backward'
    (unscaled), 'ortho' (orthonormal) or 'forward' (scaled by 1/(2N)).
    """
    norm = _check(type, norm, "dct")
    return _dct_along(_operand(x), type, n, axis, norm, "dct")


@library()
def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):  # noqa: A002
    """The inverse of dct (scipy.fft.idct): idct(dct(x, t, norm=m), t, norm=m) == x."""
    norm = _check(type, norm, "idct")
    return _dct_along(_operand(x), _INVERSE_TYPE[type], n, axis, _SWAPPED[norm], "idct")


def _axes_and_sizes(x, s, axes, fn: str):
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    axes = normalize_axes(axes, x.ndim)
    if s is not None and len(s) != len(axes):
        raise error(f"{fn} wants s and axes of one length, got s={tuple(s)} and axes={tuple(axes)}")
    return axes, (None,) * len(axes) if s is None else tuple(s)


@library()
def dctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):  # noqa: A002
    """The multidimensional dct (scipy.fft.dctn): dct along each of ``axes`` (default all, or
    the last len(s)), each cut or padded to its size in ``s``."""
    norm = _check(type, norm, "dctn")
    x = _operand(x)
    axes, sizes = _axes_and_sizes(x, s, axes, "dctn")
    for ax, n in zip(axes, sizes):
        x = _dct_along(x, type, n, ax, norm, "dctn")
    return x


@library()
def idctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):  # noqa: A002
    """The inverse of dctn (scipy.fft.idctn)."""
    norm = _check(type, norm, "idctn")
    x = _operand(x)
    axes, sizes = _axes_and_sizes(x, s, axes, "idctn")
    for ax, n in zip(axes, sizes):
        x = _dct_along(x, _INVERSE_TYPE[type], n, ax, _SWAPPED[norm], "idctn")
    return x


__all__ = ["dct", "dctn", "idct", "idctn"]
