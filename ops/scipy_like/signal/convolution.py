"""sg.scipy.signal's convolutions: convolve, correlate, their 2-d forms and fftconvolve (ops layer).

The direct forms are one stablehlo.convolution each (the smaller input,
flipped, is the kernel; convolution commutes, so which input is smaller only
picks the kernel), the fft form multiplies (r)fftn spectra. Modes follow
scipy.signal: 'full', 'same' (centred on in1's size) and 'valid' (where one
input covers the other in every dimension). convolve2d and correlate2d take
every scipy boundary ('fill' with any fillvalue, 'wrap', 'symm'; jax only
takes fill with 0).
"""

from __future__ import annotations

from ....graph import library
from ... import numpy_like as snp
from ...lax_convolution import conv_general_dilated
from ...numpy_like.core import error, normalize_axes
from ..inexact import as_inexact

_MODES = ("full", "same", "valid")
_BOUNDARIES = {"fill": "constant", "wrap": "wrap", "symm": "symmetric"}


def _inexact_pair(in1, in2, fn: str):
    """in1 and in2 as one inexact dtype, of one rank, neither empty."""
    x, y = as_inexact(in1, in2)
    if x.ndim != y.ndim:
        raise error(f"{fn} wants in1 and in2 of one rank, got {x.type} and {y.type}")
    return x, y


def _check_mode(mode: str, fn: str):
    if mode not in _MODES:
        raise error(f"{fn} wants mode in {_MODES}, got {mode!r}")


def _static(shape, fn: str) -> tuple[int, ...]:
    if not all(isinstance(s, int) for s in shape):
        raise error(f"{fn} wants static shapes, got {shape}")
    return tuple(shape)


def _out_shape(mode: str, s1, s2, fn: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The output shape of ``mode`` and where it starts in the full convolution (scipy's centring)."""
    full = tuple(a + b - 1 for a, b in zip(s1, s2))
    if mode == "full":
        out = full
    elif mode == "same":
        out = tuple(s1)
    else:
        if not (all(a >= b for a, b in zip(s1, s2)) or all(a <= b for a, b in zip(s1, s2))):
            raise error(f"{fn} mode 'valid' wants one input at least as large as the other in every "
                        f"dimension, got shapes {s1} and {s2}")  # fmt: skip
        out = tuple(abs(a - b) + 1 for a, b in zip(s1, s2))
    return out, tuple((f - o) // 2 for f, o in zip(full, out))


def _correlation(big, kernel, pads, precision):
    """Correlate ``big`` with the (already flipped) ``kernel`` with (lo, hi) ``pads``: one convolution."""
    lhs, rhs = snp.expand_dims(big, (0, 1)), snp.expand_dims(kernel, (0, 1))
    out = conv_general_dilated(lhs, rhs, (1,) * big.ndim, pads, precision=precision)
    return out[0, 0]


def _direct(x, y, mode: str, precision, fn: str):
    """scipy.signal.convolve(x, y, mode) as one convolution: the smaller input is the kernel."""
    _check_mode(mode, fn)
    s1, s2 = _static(x.shape, fn), _static(y.shape, fn)
    if 0 in s1 or 0 in s2:
        raise error(f"{fn} of an empty array is not defined, got shapes {s1} and {s2}")
    out, start = _out_shape(mode, s1, s2, fn)
    if not all(a >= b for a, b in zip(s1, s2)):
        if not all(a <= b for a, b in zip(s1, s2)):
            return _sliced(_direct(x, y, "full", precision, fn), start, out)
        x, y, s1, s2 = y, x, s2, s1
    # a full output index i reads big[i - k + 1 ...]: pad lo = k - 1 - start, hi so the size is out
    pads = [(k - 1 - st, o + k - 1 - (k - 1 - st) - n) for n, k, o, st in zip(s1, s2, out, start)]
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        return _sliced(_direct(x, y, "full", precision, fn), start, out)
    return _correlation(x, snp.flip(y), pads, precision)


def _sliced(full, start, out):
    return full[tuple(slice(s, s + o) for s, o in zip(start, out))]


@library()
def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d convolution of in1 and in2 (scipy.signal.convolve): sum_k in1[k] in2[n - k].

    ``mode``: 'full', 'same' (in1's size, centred) or 'valid'; ``method``:
    'auto' and 'direct' lower to one stablehlo.convolution, 'fft' to
    fftconvolve. Integer input is computed in float32, as jax.
    """
    x, y = _inexact_pair(in1, in2, "convolve")
    if method == "fft":
        return fftconvolve(x, y, mode)
    if method not in ("auto", "direct"):
        raise error(f"convolve wants method 'auto', 'direct' or 'fft', got {method!r}")
    return _direct(x, y, mode, precision, "convolve")


@library()
def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d cross-correlation (scipy.signal.correlate): sum_k in1[n + k] conj(in2[k]).

    The convolution of in1 with in2 flipped and conjugated; modes and methods
    as convolve.
    """
    x, y = _inexact_pair(in1, in2, "correlate")
    return convolve(x, snp.flip(snp.conj(y)), mode, method, precision)


def _two_d(in1, in2, boundary: str, fn: str):
    x, y = _inexact_pair(in1, in2, fn)
    if x.ndim != 2:
        raise error(f"{fn} wants 2-d inputs, got {x.type} and {y.type}")
    if boundary not in _BOUNDARIES:
        raise error(f"{fn} wants boundary in {tuple(_BOUNDARIES)}, got {boundary!r}")
    return x, y


def _bounded(x, y, mode: str, boundary: str, fillvalue, precision, fn: str):
    """convolve2d: in1 extended past its edges by ``boundary`` (scipy's), then a valid convolution."""
    _check_mode(mode, fn)
    plain = boundary == "fill" and not _is_tensor(fillvalue) and fillvalue == 0
    if mode == "valid" or plain:
        return _direct(x, y, mode, precision, fn)
    s1, s2 = _static(x.shape, fn), _static(y.shape, fn)
    if 0 in s1 or 0 in s2:
        raise error(f"{fn} of an empty array is not defined, got shapes {s1} and {s2}")
    out, start = _out_shape(mode, s1, s2, fn)
    widths = [(k - 1, k - 1) for k in s2]
    if boundary == "fill":
        ext = snp.pad(x, widths, constant_values=snp.asarray(fillvalue, x.dtype))
    else:
        ext = _wrapped_pad(x, widths, _BOUNDARIES[boundary])
    kernel = snp.flip(y)
    full = _correlation(ext, kernel, [(0, 0), (0, 0)], precision)
    return _sliced(full, start, out)


def _wrapped_pad(x, widths, mode: str):
    """numpy's pad, repeated while a width is more than the axis (scipy's boundaries wrap on)."""
    for ax, (w, _) in enumerate(widths):
        n = x.shape[ax]
        left = w
        while left > 0:
            step = min(left, n)
            pw = [(0, 0)] * x.ndim
            pw[ax] = (step, step)
            x = snp.pad(x, pw, mode)
            left -= step
            n = x.shape[ax]
    return x


def _is_tensor(v) -> bool:
    return not isinstance(v, (int, float, complex))


@library()
def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """The 2-d convolution (scipy.signal.convolve2d), in1 extended by ``boundary``: 'fill'
    (with ``fillvalue``), 'wrap' (periodic) or 'symm' (mirrored, edge repeated)."""
    x, y = _two_d(in1, in2, boundary, "convolve2d")
    return _bounded(x, y, mode, boundary, fillvalue, precision, "convolve2d")


@library()
def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """The 2-d cross-correlation (scipy.signal.correlate2d): convolve2d with in2 flipped and
    conjugated. As scipy: 'same' starts at in2's shape // 2 of the full correlation, and
    'valid' with in1 the smaller input gives the conjugate of that."""
    x, y = _two_d(in1, in2, boundary, "correlate2d")
    swapped = mode == "valid" and x.shape != y.shape and all(a <= b for a, b in zip(x.shape, y.shape))
    kernel = snp.flip(snp.conj(y))
    if mode == "same":  # scipy centres 'same' at in2's size // 2 from the full start, not as convolve2d
        full = _bounded(x, kernel, "full", boundary, fillvalue, precision, "correlate2d")
        return _sliced(full, [k // 2 for k in y.shape], x.shape)
    out = _bounded(x, kernel, mode, boundary, fillvalue, precision, "correlate2d")
    return snp.conj(out) if swapped and out.dtype.is_complex else out


def _fast_length(n: int) -> int:
    """The least 2^a 3^b 5^c 7^d >= n: a length the FFT handles without a large prime factor."""
    best = 1 << max(n - 1, 0).bit_length()
    p7 = 1
    while p7 < best:
        p5 = p7
        while p5 < best:
            p3 = p5
            while p3 < best:
                size = p3 << max(0, (n - 1) // p3).bit_length()  # p3 times the least power of 2 reaching n
                best = min(best, size) if size >= n else best
                p3 *= 3
            p5 *= 5
        p7 *= 7
    return best


@library()
def fftconvolve(in1, in2, mode: str = "full", axes=None):
    """The N-d convolution through the FFT (scipy.signal.fftconvolve): rfftn (fftn for complex)
    of both inputs at a fast size at least the full one, multiplied, inverted and cut to ``mode``.

    ``axes``: the axes convolved (default all); along the others the shapes
    must agree or one be 1 (broadcast).
    """
    x, y = _inexact_pair(in1, in2, "fftconvolve")
    _check_mode(mode, "fftconvolve")
    axes = tuple(range(x.ndim)) if axes is None else normalize_axes(axes, x.ndim)
    a1 = list(_static([x.shape[ax] for ax in axes], "fftconvolve along its axes"))
    a2 = list(_static([y.shape[ax] for ax in axes], "fftconvolve along its axes"))
    s1, s2 = tuple(x.shape), tuple(y.shape)
    for ax in set(range(x.ndim)) - set(axes):  # the other axes broadcast (they may be symbolic)
        d1, d2 = s1[ax], s2[ax]
        if isinstance(d1, int) and isinstance(d2, int) and d1 != d2 and 1 not in (d1, d2):
            raise error(f"fftconvolve wants equal sizes (or 1) off the convolved axes {axes}, "
                        f"got shapes {s1} and {s2}")  # fmt: skip
    if 0 in a1 or 0 in a2:
        return snp.zeros(
            tuple(0 if ax in axes else (s1[ax] if s2[ax] == 1 else s2[ax]) for ax in range(x.ndim)), x.dtype
        )
    if mode == "valid" and not all(a >= b for a, b in zip(a1, a2)):
        if not all(a <= b for a, b in zip(a1, a2)):
            _out_shape(mode, a1, a2, "fftconvolve")  # raises the error
        x, y, s1, s2, a1, a2 = y, x, s2, s1, a2, a1
    out, start = _out_shape(mode, a1, a2, "fftconvolve")
    full = [a + b - 1 for a, b in zip(a1, a2)]
    if all(a == 1 or b == 1 for a, b in zip(a1, a2)):
        prod = x * y
    else:  # any size >= full holds the linear convolution; a 7-smooth one transforms fast
        fast = [_fast_length(n) for n in full]
        if x.dtype.is_complex:
            prod = snp.fft.ifftn(snp.fft.fftn(x, fast, axes) * snp.fft.fftn(y, fast, axes), fast, axes)
        else:
            prod = snp.fft.irfftn(snp.fft.rfftn(x, fast, axes) * snp.fft.rfftn(y, fast, axes), fast, axes)
    index = [slice(None)] * prod.ndim
    for ax, st, o in zip(axes, start, out):
        index[ax] = slice(st, st + o)
    return prod[tuple(index)]


__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve"]
