"""Finite-difference gradient cases of the complex, fft and transcendental primitives
(read by test_grad_registry.py)."""

import numpy as np

from stablegraph.ops.primitives import complex_parts, constants, fft
from stablegraph.ops.primitives import transcendental as tr
from stablegraph.ops.primitives.registry import bind

R = np.random.default_rng(4)


def normal(*shape):
    return R.normal(size=shape)


def positive(*shape):
    return R.uniform(0.5, 2.0, size=shape)


def small(*shape):
    return R.uniform(-0.9, 0.9, size=shape)


def cplx(*shape):
    return R.normal(size=shape) + 1j * R.normal(size=shape)


def un(op, *arrays):
    return [(lambda x: bind(op, x), [a]) for a in arrays]


CASES = {
    "real": [(complex_parts.real, [cplx(2, 3)])],
    "imag": [(complex_parts.imag, [cplx(2, 3)])],
    "complex": [(complex_parts.complex, [normal(2, 3), normal(2, 3)])],
    "conj": [(complex_parts.conj, [cplx(2, 3)])],
    "fft": [
        (lambda z: fft.fft(z, "FFT", (4,)), [cplx(2, 4)]),
        (lambda z: fft.fft(z, "IFFT", (2, 3)), [cplx(2, 3)]),
        (lambda x: fft.fft(x, "RFFT", (5,)), [normal(2, 5)]),
        (lambda z: fft.fft(z, "IRFFT", (4,)), [cplx(2, 3)]),
    ],
    "asin": un(tr.asin, small(2, 3), cplx(2) * 0.3),
    "acos": un(tr.acos, small(2, 3)),
    "atan": un(tr.atan, normal(2, 3)),
    "sinh": un(tr.sinh, normal(2, 3), cplx(2)),
    "cosh": un(tr.cosh, normal(2, 3), cplx(2)),
    "asinh": un(tr.asinh, normal(2, 3)),
    "acosh": un(tr.acosh, positive(2, 3) + 1),
    "atanh": un(tr.atanh, small(2, 3)),
    "lgamma": un(tr.lgamma, positive(2, 3)),
    "digamma": un(tr.digamma, positive(2, 3)),
    "erfc": un(tr.erfc, normal(2, 3)),
    "bessel_i0e": un(tr.bessel_i0e, normal(2, 3)),
    "bessel_i1e": un(tr.bessel_i1e, normal(2, 3)),
    "polygamma": [(lambda x: bind(tr.polygamma, constants.constant(np.ones((2, 3))), x), [positive(2, 3)])],
    # first order only for the incomplete gamma family: a second-order check differentiates
    # igamma_grad_a (whose own slope in a is a central difference, checked in its entry) and the
    # closed form in x (elementwise ops, checked in theirs); it took 35 s of CPU to compile
    "igamma": [(lambda a, x: bind(tr.igamma, a, x), [positive(2, 3), positive(2, 3)], dict(order=1))],
    "igammac": [(lambda a, x: bind(tr.igammac, a, x), [positive(2, 3), positive(2, 3)], dict(order=1))],
    "igamma_grad_a": [  # its derivative in a is a central difference (1e-4 off at second order)
        (lambda a, x: bind(tr.igamma_grad_a, a, x), [positive(2, 3), positive(2, 3)],
         dict(atol=1e-3, rtol=1e-3, order=1))
    ],
    "betainc": [  # its a and b derivatives are central differences; first order only here (the
        # second, of differences of differences, took 35 s of CPU to compile for a 1e-3 check; the
        # special-point sweep compares its second derivative in x with jax's)
        (lambda a, b, x: bind(tr.betainc, a, b, x),
         [positive(2, 3), positive(2, 3), R.uniform(0.2, 0.8, (2, 3))], dict(atol=1e-3, rtol=1e-3, order=1))
    ],
    "zeta": [(lambda x, q: bind(tr.zeta, x, q), [positive(2, 3) + 1.5, positive(2, 3)])],
}  # fmt: skip
