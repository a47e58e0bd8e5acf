"""sg.scipy.signal's windowed-FFT functions: stft, istft, csd and welch (ops layer).

scipy.signal's semantics (where jax differs, scipy's): a named window's
nperseg defaults to 256 (at most the signal's length), freqs and times come
back with the spectrum, the frequency axis stands where the time axis was and
segments are the last axis. Segments are cut with reshapes and slices when
the hop divides the segment length (the usual half overlap) and with one
gather otherwise; istft's overlap-add is one scatter-add. The window is
static (numpy, built with the graph), so its norms are constants.
"""

from __future__ import annotations

import numpy as np

from ....graph import library
from ... import numpy_like as snp
from ...numpy_like.core import error, normalize_axis
from ..inexact import as_inexact, complex_dtype
from .detrending import detrend as _detrend
from .windows import triage


def _static_length(x, ax: int, fn: str) -> int:
    n = x.shape[ax]
    if not isinstance(n, int):
        raise error(f"{fn} wants a static length along axis {ax}, got {x.type}")
    return n


def _odd_extension(x, n: int):
    if n > x.shape[-1] - 1:
        raise error(f"boundary 'odd' extends by {n}, more than the signal's length - 1 ({x.shape[-1] - 1})")
    left = 2 * x[..., :1] - snp.flip(x[..., 1 : n + 1], -1)
    right = 2 * x[..., -1:] - snp.flip(x[..., -n - 1 : -1], -1)
    return snp.concatenate([left, x, right], axis=-1)


def _extended(x, n: int, boundary):
    """x (time last) extended by ``n`` at both ends as scipy's ``boundary`` says."""
    if boundary is None or n < 1:
        return x
    widths = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    if boundary == "zeros":
        return snp.pad(x, widths)
    if boundary == "even":
        return snp.pad(x, widths, "reflect")
    if boundary == "constant":
        return snp.pad(x, widths, "edge")
    if boundary == "odd":
        return _odd_extension(x, n)
    raise error(f"unknown boundary {boundary!r}: the options are 'even', 'odd', 'constant', 'zeros' and None")


def segments(x, nperseg: int, step: int):
    """(..., n) -> (..., nseg, nperseg): the windows starting every ``step`` samples."""
    n = x.shape[-1]
    nseg = (n - nperseg) // step + 1
    if nperseg % step == 0:  # blocks of one hop; segment s is blocks s .. s + r - 1
        r = nperseg // step
        blocks = snp.reshape(x[..., : (nseg + r - 1) * step], x.shape[:-1] + (nseg + r - 1, step))
        if r == 1:
            return blocks
        return snp.concatenate([blocks[..., q : q + nseg, :] for q in range(r)], axis=-1)
    index = (np.arange(nseg)[:, None] * step + np.arange(nperseg)[None, :]).astype(np.int32)
    return snp.take(x, snp.asarray(index), axis=-1)


def _detrender(detrend, fn: str):
    if detrend is False or detrend is None:
        return lambda d: d
    if isinstance(detrend, str):
        return lambda d: _detrend(d, axis=-1, type=detrend)
    if callable(detrend):
        return detrend
    raise error(f"{fn} wants detrend False, 'constant', 'linear' or a function, got {detrend!r}")


class _Plan:
    """The static choices of one windowed FFT: window, segment length, hop, FFT size, sides."""

    def __init__(self, fn, window, nperseg, noverlap, nfft, length, onesided):
        self.win, self.nperseg = triage(window, nperseg, length, fn)
        self.noverlap = self.nperseg // 2 if noverlap is None else int(noverlap)
        self.nfft = self.nperseg if nfft is None else int(nfft)
        if self.nfft < self.nperseg:
            raise error(f"{fn} wants nfft >= nperseg, got nfft={self.nfft} and nperseg={self.nperseg}")
        if not 0 <= self.noverlap < self.nperseg:
            raise error(
                f"{fn} wants 0 <= noverlap < nperseg, got noverlap={self.noverlap}, nperseg={self.nperseg}"
            )
        self.step = self.nperseg - self.noverlap
        self.onesided = onesided

    def freqs(self, fs, dt):
        f = np.fft.rfftfreq(self.nfft, 1.0) if self.onesided else np.fft.fftfreq(self.nfft, 1.0)
        return snp.asarray(f, dt) * snp.asarray(fs, dt)

    def spectra(self, x, detrend_fn):
        """(..., n) -> (..., nseg, nfreq): each segment detrended, windowed and transformed."""
        seg = detrend_fn(segments(x, self.nperseg, self.step))
        real = snp.real(x).dtype
        seg = seg * snp.asarray(self.win, real)
        if self.onesided:
            return snp.fft.rfft(seg, n=self.nfft)
        return snp.fft.fft(seg, n=self.nfft)

    def times(self, n: int, fs, dt, boundary):
        t = np.arange(self.nperseg / 2, n - self.nperseg / 2 + 1, self.step)
        if boundary is not None:
            t = t - self.nperseg / 2
        return snp.asarray(t, dt) / snp.asarray(fs, dt)


def _padded(x, plan: _Plan, padded: bool):
    if not padded:
        return x
    n = x.shape[-1]
    extra = (-(n - plan.nperseg) % plan.step) % plan.nperseg
    return snp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, extra)]) if extra else x


@library()
def stft(x, fs=1.0, window="hann", nperseg: int = 256, noverlap=None, nfft=None, detrend=False,
         return_onesided: bool = True, boundary="zeros", padded: bool = True, axis: int = -1,
         scaling: str = "spectrum"):  # fmt: skip
    """The short-time Fourier transform (scipy.signal.stft): ``(f, t, Zxx)``.

    Zxx's frequency axis stands where ``axis`` was and the segments are its
    last axis. ``boundary`` extends the signal by nperseg // 2 at both ends
    ('zeros', 'even', 'odd', 'constant' or None); ``padded`` pads it with
    zeros to a whole number of segments; ``scaling`` 'spectrum' divides by the
    window's sum, 'psd' by sqrt(fs * sum(window^2)). Complex input is two-sided.
    """
    (x,) = as_inexact(x)
    ax = normalize_axis(axis, x.ndim)
    onesided = return_onesided and not x.dtype.is_complex
    xt = snp.moveaxis(x, ax, -1)
    real = snp.real(xt).dtype
    cdt = complex_dtype(real)
    plan = _Plan("stft", window, nperseg, noverlap, nfft, _static_length(x, ax, "stft"), onesided)
    if x.shape[ax] == 0:
        empty = snp.zeros(x.shape, real)
        return empty, empty, snp.zeros(x.shape, cdt)
    xt = _padded(_extended(xt, plan.nperseg // 2, boundary), plan, padded)
    z = plan.spectra(xt, _detrender(detrend, "stft"))
    if scaling == "spectrum":
        scale = 1.0 / plan.win.sum()
    elif scaling == "psd":
        scale = 1.0 / snp.sqrt(snp.asarray(fs, real) * float((plan.win**2).sum()))
    else:
        raise error(f"stft wants scaling 'spectrum' or 'psd', got {scaling!r}")
    z = snp.asarray(z * snp.asarray(scale, real), cdt)
    z = snp.moveaxis(snp.swapaxes(z, -1, -2), -2, ax if axis >= 0 else axis - 1)
    return plan.freqs(fs, real), plan.times(xt.shape[-1], fs, real, boundary), z


def _cross_spectrum(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis, fn):
    """scipy's _spectral_helper in 'psd' mode: (freqs, conj(X) Y per segment, scaled, segments last);
    ``y=None`` is x itself (one transform)."""
    same = y is None
    y = x if same else y
    x, y = as_inexact(x, y)
    if x.ndim != y.ndim:
        raise error(f"{fn} wants x and y of one rank, got {x.type} and {y.type}")
    dt = x.dtype
    ax = normalize_axis(axis, x.ndim)
    xt, yt = snp.moveaxis(x, ax, -1), snp.moveaxis(y, ax, -1)
    nx, ny = _static_length(x, ax, fn), _static_length(y, ax, fn)
    real = snp.real(xt).dtype
    onesided = return_onesided and not dt.is_complex
    plan = _Plan(fn, window, nperseg, noverlap, nfft, max(nx, ny), onesided)
    if nx == 0 or ny == 0:
        outer = snp.broadcast_shapes(tuple(xt.shape[:-1]), tuple(yt.shape[:-1]))
        shape = outer[:ax] + (min(nx, ny),) + outer[ax:]
        return snp.zeros(shape, real), snp.zeros(shape, complex_dtype(real))
    if nx != ny:  # the shorter is padded with zeros, as scipy
        width = [(0, 0)] * (x.ndim - 1)
        xt = snp.pad(xt, width + [(0, max(nx, ny) - nx)]) if nx < ny else xt
        yt = snp.pad(yt, width + [(0, max(nx, ny) - ny)]) if ny < nx else yt
    trend = _detrender(detrend, fn)
    sx = plan.spectra(xt, trend)
    pxy = snp.conj(sx) * (sx if same else plan.spectra(yt, trend))
    if scaling == "density":
        scale = 1.0 / (snp.asarray(fs, real) * float((plan.win**2).sum()))
    elif scaling == "spectrum":
        scale = snp.asarray(1.0 / plan.win.sum() ** 2, real)
    else:
        raise error(f"{fn} wants scaling 'density' or 'spectrum', got {scaling!r}")
    pxy = pxy * snp.asarray(scale, real)
    if onesided:
        k = plan.nfft // 2 + 1
        last = k if plan.nfft % 2 else k - 1  # the Nyquist bin (even nfft) is not doubled
        double = np.ones(k)
        double[1:last] = 2.0
        pxy = pxy * snp.asarray(double, real)
    pxy = snp.moveaxis(snp.swapaxes(pxy, -1, -2), -2, ax if axis >= 0 else axis - 1)
    return plan.freqs(fs, real), pxy


def _median_bias(n: int) -> float:
    """The median of n chi^2_2 periodograms over their mean (scipy's _median_bias)."""
    ii = np.arange(2.0, n, 2)
    return 1.0 + float(np.sum(1.0 / (ii + 1) - 1.0 / ii))


def _averaged(pxy, average: str, fn: str):
    if pxy.shape[-1] == 1 or pxy.ndim == 0:
        return pxy[..., 0]
    if average == "mean":
        return snp.mean(pxy, axis=-1)
    if average == "median":
        bias = _median_bias(pxy.shape[-1])
        if pxy.dtype.is_complex:
            med = snp.median(snp.real(pxy), axis=-1) + 1j * snp.median(snp.imag(pxy), axis=-1)
            return snp.asarray(med, pxy.dtype) / bias
        return snp.median(pxy, axis=-1) / bias
    raise error(f"{fn} wants average 'mean' or 'median', got {average!r}")


@library()
def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
        return_onesided: bool = True, scaling: str = "density", axis: int = -1, average: str = "mean"):  # fmt: skip
    """The cross power spectral density by Welch's method (scipy.signal.csd): ``(f, Pxy)``.

    Segments of ``nperseg`` (256 for a named window, at most the signal's
    length) overlapping by ``noverlap`` (half), each detrended, windowed and
    transformed; Pxy averages conj(X) Y over them (``average`` 'mean' or
    'median'). ``y=None`` is x itself. A shorter input is padded with zeros.
    """
    f, pxy = _cross_spectrum(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                             return_onesided, scaling, axis, "csd")  # fmt: skip
    if pxy.size == 0:
        return f, pxy
    return f, _averaged(pxy, average, "csd")


@library()
def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1, average: str = "mean"):  # fmt: skip
    """The power spectral density by Welch's method (scipy.signal.welch): ``(f, Pxx)``, real.

    csd of x with itself: the average of |X|^2 over the windowed segments.
    """
    f, pxx = csd(
        x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis, average
    )
    return f, snp.real(pxx)


def _overlap_add(frames, win: np.ndarray, step: int):
    """(..., nseg, nperseg) -> (..., length): frames times ``win`` summed where they overlap."""
    nseg, nperseg = frames.shape[-2], frames.shape[-1]
    length = nperseg + (nseg - 1) * step
    index = (np.arange(nseg)[:, None] * step + np.arange(nperseg)[None, :]).reshape(-1).astype(np.int32)
    vals = snp.moveaxis(snp.reshape(frames, frames.shape[:-2] + (nseg * nperseg,)), -1, 0)
    added = snp.zeros((length,) + tuple(vals.shape[1:]), vals.dtype).at[snp.asarray(index)].add(vals)
    norm = np.zeros(length)
    np.add.at(norm, index, np.tile(win**2, nseg))
    return snp.moveaxis(added, 0, -1), norm


@library()
def istft(
    Zxx,
    fs=1.0,
    window="hann",
    nperseg=None,
    noverlap=None,
    nfft=None,
    input_onesided: bool = True,
    boundary: bool = True,
    time_axis: int = -1,
    freq_axis: int = -2,
    scaling: str = "spectrum",
):  # noqa: N803
    """The inverse short-time Fourier transform (scipy.signal.istft): ``(t, x)``.

    Each segment's inverse FFT, windowed again and overlap-added, divided by
    the summed squared window (where it exceeds 1e-10); ``boundary`` drops
    the nperseg // 2 samples stft's boundary extension added at each end.
    The window is a name or a numpy array (static).
    """
    z = snp.asarray(Zxx)
    if z.ndim < 2:
        raise error(f"istft wants an input of at least 2 dimensions, got {z.type}")
    fa, ta = normalize_axis(freq_axis, z.ndim), normalize_axis(time_axis, z.ndim)
    if fa == ta:
        raise error(f"istft wants different time and frequency axes, got {time_axis} and {freq_axis}")
    z = snp.asarray(z, complex_dtype(z.dtype))
    nfreq = _static_length(z, fa, "istft")
    default = 2 * (nfreq - 1) if input_onesided else nfreq
    nperseg = default if nperseg is None else int(nperseg)
    if nperseg < 1:
        raise error(f"istft wants a positive nperseg, got {nperseg}")
    if nfft is None:  # scipy's: an odd nperseg one more than the default is unpadded
        nfft = nperseg if input_onesided and nperseg == default + 1 else default
    win, _ = triage(window, nperseg, nperseg, "istft")
    plan = _Plan("istft", win, nperseg, noverlap, nfft, nperseg, input_onesided)
    outer = [d for d in range(z.ndim) if d not in (fa, ta)]
    z = snp.transpose(z, outer + [ta, fa])  # (..., nseg, nfreq)
    frames = snp.fft.irfft(z, n=plan.nfft) if input_onesided else snp.fft.ifft(z, n=plan.nfft)
    frames = frames[..., :nperseg]
    real = snp.real(frames).dtype
    if scaling == "spectrum":
        frames = frames * float(win.sum())
    elif scaling == "psd":
        frames = frames * snp.sqrt(snp.asarray(fs, real) * float((win**2).sum()))
    else:
        raise error(f"istft wants scaling 'spectrum' or 'psd', got {scaling!r}")
    x, norm = _overlap_add(frames * snp.asarray(win, real), win, plan.step)
    if boundary:
        cut = nperseg // 2
        x, norm = x[..., cut : x.shape[-1] - cut], norm[cut : norm.shape[0] - cut]
    x = x / snp.asarray(np.where(norm > 1e-10, norm, 1.0), real)
    if x.ndim > 1 and ta != z.ndim - 1:
        x = snp.moveaxis(x, -1, ta - 1 if fa < ta else ta)
    # as scipy and jax: the times count x's first axis, also when it is not the time axis
    t = snp.arange(x.shape[0], dtype=real) / snp.asarray(fs, real)
    return t, x


__all__ = ["csd", "istft", "stft", "welch"]
