"""Batch rules of the fft and complex-part primitives: vectorize equals a loop over lanes."""

from __future__ import annotations

import numpy as np

from stablegraph.ops.primitives import complex_parts as cp
from stablegraph.ops.primitives import fft
from stablegraph.test_util import check_vectorize

R = np.random.default_rng(3)


def test_complex_parts_batch_like_a_loop():
    # real imag complex conj
    z = (R.normal(size=(2, 3)) + 1j * R.normal(size=(2, 3))).astype(np.complex64)
    x = R.normal(size=(2, 3)).astype(np.float32)
    check_vectorize(lambda a, b, c: (cp.real(a), cp.imag(a), cp.conj(a), cp.complex(b, c)), [z, x, x])


def test_fft_batch_like_a_loop():
    # fft of each type, over one and two trailing axes: the batch axis may land among them
    z = (R.normal(size=(2, 4)) + 1j * R.normal(size=(2, 4))).astype(np.complex64)
    x = R.normal(size=(2, 4)).astype(np.float32)
    h = (R.normal(size=(2, 3)) + 1j * R.normal(size=(2, 3))).astype(np.complex64)

    def f(a, b, c):
        return (
            fft.fft(a, "FFT", (4,)), fft.fft(a, "IFFT", (2, 4)), fft.fft(b, "RFFT", (4,)),
            fft.fft(b, "RFFT", (2, 4)), fft.fft(c, "IRFFT", (4,)), fft.fft(c, "IRFFT", (2, 4)),
        )  # fmt: skip

    check_vectorize(f, [z, x, h], atol=1e-4, rtol=1e-4)
