"""sg.scipy.signal against scipy.signal (float64 references) and jax.scipy.signal (float32 values,
gradients): every mode, boundary and axis option, odd/even/length-1/empty inputs, complex input,
vectorize against a loop, and errors at the user's line. Each table is one graph and one run."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import jax.scipy.signal as jss
import numpy as np
import pytest
import scipy.fft
import scipy.signal as ss

import stablegraph as sg
from stablegraph.test_util import check_grads, check_vectorize, line_of, run_graph

from .tables import assert_matches, grads_against_jax, run_cases

pytestmark = pytest.mark.usefixtures("jax_x64")
RNG = np.random.default_rng(26)
sgs = sg.scipy.signal
MODES = ("full", "same", "valid")


def _normal(*shape, complex_=False):
    x = RNG.normal(size=shape)
    return x + 1j * RNG.normal(size=shape) if complex_ else x


def _scipy(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def test_convolutions_match_scipy():
    shapes = [((7,), (3,)), ((3,), (8,)), ((6,), (4,)), ((1,), (1,)), ((5, 6), (2, 3)), ((4, 3), (4, 3)),
              ((3, 4, 2), (2, 2, 2))]  # fmt: skip
    cases, want = {}, {}
    for mode in MODES:
        for k, (s1, s2) in enumerate(shapes):
            a, b = _normal(*s1), _normal(*s2, complex_=k % 3 == 0)
            for name, ours, theirs in [("convolve", sgs.convolve, ss.convolve), ("correlate", sgs.correlate, ss.correlate),
                                       ("fftconvolve", sgs.fftconvolve, ss.fftconvolve)]:  # fmt: skip
                key = f"{name} {mode} {s1} {s2}"
                cases[key] = (lambda x, y, f=ours, m=mode: f(x, y, m), (a, b))
                want[key] = theirs(a, b, mode)
            if k == 1:
                key = f"convolve fft method {mode} {s1} {s2}"
                cases[key] = (lambda x, y, m=mode: sgs.convolve(x, y, m, method="fft"), (a, b))
                want[key] = ss.convolve(a, b, mode, method="fft")
            if s1 == (5, 6):  # in1 larger, then smaller: each boundary extends the other input
                for boundary, fill in [("fill", 0), ("fill", 2.5), ("wrap", 0), ("symm", 0)]:
                    for name, ours, theirs in [("convolve2d", sgs.convolve2d, ss.convolve2d),
                                               ("correlate2d", sgs.correlate2d, ss.correlate2d)]:  # fmt: skip
                        for x, y in [(a, b), (b, a)]:
                            key = f"{name} {mode} {boundary}{fill} {x.shape} {y.shape} {x.dtype}"
                            cases[key] = (
                                lambda p, q, f=ours, m=mode, bd=boundary, fv=fill: f(p, q, m, bd, fv),
                                (x, y),
                            )
                            want[key] = theirs(x, y, mode, boundary, fill)
    # fftconvolve over some axes, the others broadcast
    a, b = _normal(3, 8), _normal(1, 5)
    for mode in MODES:
        cases[f"fftconvolve axes {mode}"] = (lambda x, y, m=mode: sgs.fftconvolve(x, y, m, axes=1), (a, b))
        want[f"fftconvolve axes {mode}"] = ss.fftconvolve(a, b, mode, axes=1)
    got = run_cases(cases)
    for key in cases:
        assert_matches(got[key], want[key], key)


def test_integer_and_float32_inputs_follow_jax():
    a32, b32 = _normal(9).astype(np.float32), _normal(4).astype(np.float32)
    ai, bi = np.arange(6, dtype=np.int32), np.array([1, -2, 3], np.int32)
    x32 = _normal(2, 200).astype(np.float32)
    cases = {
        "convolve f32": (lambda x, y: sgs.convolve(x, y, "same"), (a32, b32)),
        "fftconvolve f32": (lambda x, y: sgs.fftconvolve(x, y), (a32, b32)),
        "correlate int": (lambda x, y: sgs.correlate(x, y), (ai, bi)),
        "stft f32": (lambda x: sgs.stft(x, nperseg=32), (x32,)),
        "welch f32": (lambda x: sgs.welch(x, nperseg=64), (x32,)),
        "detrend f32": (lambda x: sgs.detrend(x), (x32,)),
    }
    got = run_cases(cases)

    @jax.jit  # one compile: jax's spectral functions run slowly op by op
    def theirs(a, b, ai, bi, x):
        return {
            "convolve f32": jss.convolve(a, b, "same"),
            "fftconvolve f32": jss.fftconvolve(a, b),
            "correlate int": jss.correlate(ai, bi),
            "stft f32": jss.stft(x, nperseg=32),
            "welch f32": jss.welch(x, nperseg=64),
            "detrend f32": jss.detrend(x),
        }

    want = theirs(a32, b32, ai, bi, x32)
    for key in cases:
        w = want[key] if isinstance(want[key], tuple) else (want[key],)
        assert_matches(
            got[key],
            tuple(np.asarray(v) for v in w),
            key,
            rtol=2e-4,
            atol=2e-4,
            dtype=np.asarray(w[-1]).dtype,
        )


def test_spectral_functions_match_scipy():
    x, y = _normal(2, 300), _normal(2, 280)
    xc = x + 1j * _normal(2, 300)
    stft_options = [{}, dict(nperseg=64), dict(nperseg=64, noverlap=20), dict(nperseg=50, nfft=64, detrend="linear"),
                    dict(nperseg=33, window="hamming", boundary="even", padded=False),
                    dict(nperseg=16, boundary=None, return_onesided=False), dict(nperseg=32, boundary="odd"),
                    dict(nperseg=32, boundary="constant", scaling="psd", fs=3.0), dict(nperseg=1, noverlap=0),
                    dict(nperseg=20, window=np.linspace(0.1, 1.0, 20)), dict(nperseg=24, window=("tukey", 0.3))]  # fmt: skip
    welch_options = [dict(nperseg=1000), dict(nperseg=64, noverlap=20, average="median"),
                     dict(nperseg=50, nfft=65, detrend="linear", scaling="spectrum"),
                     dict(nperseg=33, window="blackman", detrend=False, return_onesided=False)]  # fmt: skip
    cases, want = {}, {}
    for i, kw in enumerate(stft_options):
        cases[f"stft {i}"] = (lambda v, kw=kw: sgs.stft(v, **kw), (x,))
        want[f"stft {i}"] = _scipy(ss.stft, x, **kw)
        if i in (1, 4):
            cases[f"stft axis0 {i}"] = (lambda v, kw=kw: sgs.stft(v, axis=0, **kw), (x.T,))
            want[f"stft axis0 {i}"] = _scipy(ss.stft, x.T, axis=0, **kw)
    cases["stft complex"] = (lambda v: sgs.stft(v, nperseg=40), (xc,))
    want["stft complex"] = _scipy(ss.stft, xc, nperseg=40)
    for i, kw in enumerate(welch_options):
        cases[f"welch {i}"] = (lambda v, kw=kw: sgs.welch(v, **kw), (x,))
        want[f"welch {i}"] = _scipy(ss.welch, x, **kw)
        if i != 1:
            cases[f"csd {i}"] = (lambda v, w, kw=kw: sgs.csd(v, w, **kw), (x, y))
            want[f"csd {i}"] = _scipy(ss.csd, x, y, **kw)
    two_sided = dict(nperseg=48, return_onesided=False)
    cases["csd complex"] = (lambda v, w: sgs.csd(v, w, **two_sided), (x, xc))
    want["csd complex"] = _scipy(ss.csd, x, xc, **two_sided)
    cases["welch axis0"] = (lambda v: sgs.welch(v, nperseg=40, axis=0), (x.T,))
    want["welch axis0"] = _scipy(ss.welch, x.T, nperseg=40, axis=0)
    for i, kw in enumerate([dict(nperseg=64, noverlap=20), dict(nperseg=33, window="hamming"),
                            dict(nperseg=50, nfft=64), dict(nperseg=16, boundary=False)]):  # fmt: skip
        _, _, z = _scipy(ss.stft, x, **{**kw, "boundary": None if kw.get("boundary") is False else "zeros"})
        cases[f"istft {i}"] = (lambda v, kw=kw: sgs.istft(v, **kw), (z,))
        want[f"istft {i}"] = _scipy(ss.istft, z, **kw)
    _, _, z = ss.stft(x, nperseg=30, return_onesided=False)
    cases["istft two-sided, axes"] = (lambda v: sgs.istft(np_swap(v), nperseg=30, input_onesided=False, time_axis=1,
                                                          freq_axis=2), (z,))  # fmt: skip
    want["istft two-sided, axes"] = _scipy(ss.istft, np.swapaxes(z, 1, 2), nperseg=30, input_onesided=False,
                                           time_axis=1, freq_axis=2)  # fmt: skip
    for i, kw in enumerate([dict(type="constant"), dict(bp=[1, 120, 299]), dict(axis=0)]):
        cases[f"detrend {i}"] = (lambda v, kw=kw: sgs.detrend(v, **kw), (x,))
        want[f"detrend {i}"] = ss.detrend(x, **kw)
    cases["detrend length 1"] = (lambda v: sgs.detrend(v), (x[:, :1],))
    want["detrend length 1"] = ss.detrend(x[:, :1])
    got = run_cases(cases)
    for key in cases:
        assert_matches(got[key], want[key], key, rtol=1e-8, atol=1e-10)


def np_swap(v):
    return sg.numpy.swapaxes(v, 1, 2)


def test_empty_signals():
    e = np.zeros((2, 0))
    got = run_cases({
        "stft": (lambda v: sgs.stft(v), (e,)),
        "welch": (lambda v: sgs.welch(v), (e,)),
        "csd": (lambda v, w: sgs.csd(v, w), (e, e)),
        "fftconvolve": (lambda v, w: sgs.fftconvolve(v, w), (e, np.ones((2, 3)))),
        "detrend": (lambda v: sgs.detrend(v, type="constant"), (e,)),
    })  # fmt: skip
    for key, ref in [
        ("stft", ss.stft(e)),
        ("welch", ss.welch(e)),
        ("csd", ss.csd(e, e)),
        ("detrend", _scipy(ss.detrend, e, type="constant")),  # numpy warns of the empty mean
    ]:
        assert_matches(got[key], ref, key)
    assert np.asarray(got["fftconvolve"]).size == 0  # scipy gives shape (0,), jax and sg keep the rank


def test_gradients_match_jax():
    a, b, x = _normal(9), _normal(4), _normal(2, 100)
    img, ker = _normal(5, 6), _normal(2, 3)
    table = {
        "convolve": ((a, b), lambda m, p, q: tuple(m.convolve(p, q, mode) for mode in MODES)),
        "correlate": ((a, b), lambda m, p, q: tuple(m.correlate(p, q, mode) for mode in MODES)),
        "fftconvolve": ((a, b), lambda m, p, q: tuple(m.fftconvolve(p, q, mode) for mode in MODES)),
        "convolve2d": ((img, ker), lambda m, p, q: (m.convolve2d(p, q), m.correlate2d(p, q, "valid"))),
        "stft": ((x,), lambda m, v: m.stft(v, nperseg=16)[2]),
        "welch": (
            (x,),
            lambda m, v: (m.welch(v, nperseg=32)[1], m.welch(v, nperseg=20, noverlap=7, average="median")[1]),
        ),
        "csd": ((x, x[::-1]), lambda m, v, w: m.csd(v, w, nperseg=32)[1]),
        "istft": ((x,), lambda m, v: m.istft(m.stft(v, nperseg=16)[2], nperseg=16)[1]),
        "detrend": ((x,), lambda m, v: (m.detrend(v), m.detrend(v, type="constant", axis=0))),
    }
    grads_against_jax(table, sgs, jss)

    def boundaries(p, q):  # jax has fill 0 only: finite differences are the oracle
        return (sgs.convolve2d(p, q, "same", "wrap"), sgs.correlate2d(p, q, "full", "symm"),
                sgs.convolve2d(p, q, "full", "fill", 1.5))  # fmt: skip

    check_grads(boundaries, [img, ker], order=1, modes="rev")


def test_vectorize_matches_a_loop():
    def many(x, k):
        return (
            sgs.convolve(x, k, "same"),
            sgs.fftconvolve(x, k, "valid"),
            sgs.welch(x, nperseg=8)[1],
            sgs.detrend(x),
        )

    check_vectorize(many, [_normal(24), _normal(5)], size=2)

    def windowed(x):  # a hop of 5 does not divide 8: segments by gather; istft's overlap-add scatters
        z = sgs.stft(x, nperseg=8, noverlap=3)[2]
        return z, sgs.istft(z, nperseg=8, noverlap=3)[1], sgs.csd(x, x[::-1], nperseg=8, average="median")[1]

    check_vectorize(windowed, [_normal(30)], size=2)


def test_bad_arguments_name_the_users_line():
    g = sg.Graph()
    with g:
        a, b, m = (
            sg.placeholder((5,), sg.float64),
            sg.placeholder((3,), sg.float64),
            sg.placeholder((3, 3), sg.float64),
        )
        with pytest.raises(sg.GraphError, match="mode") as e1:
            sgs.convolve(a, b, "middle")  # bad mode
        with pytest.raises(sg.GraphError, match="one rank") as e2:
            sgs.fftconvolve(a, m)  # rank mismatch
        with pytest.raises(sg.GraphError, match="every dimension") as e3:
            sgs.convolve2d(sg.numpy.ones((2, 5)), sg.numpy.ones((4, 3)), "valid")  # neither covers
        with pytest.raises(sg.GraphError, match="noverlap") as e4:
            sgs.stft(a, nperseg=4, noverlap=4)  # overlap too long
    for e, text in [
        (e1, "# bad mode"),
        (e2, "# rank mismatch"),
        (e3, "# neither covers"),
        (e4, "# overlap too long"),
    ]:
        assert f"test_signal.py:{line_of(__file__, text)}" in str(e.value)


def test_jnp_reference_is_jax():  # the oracle module really is jax's (a stale import would test nothing)
    assert jnp.asarray(1.0).dtype == np.float64


def test_a_symbolic_batch_axis():
    x = _normal(3, 200)
    kernel = np.ones((1, 5))

    def many(v):
        z = sgs.stft(v, nperseg=32, noverlap=5)[2]
        return (z, sgs.welch(v, nperseg=32)[1], sgs.istft(sgs.stft(v, nperseg=32)[2], nperseg=32)[1],
                sgs.fftconvolve(v, kernel, axes=1), sgs.detrend(v), sg.scipy.fft.dct(v))  # fmt: skip

    got = run_graph(many, x, symbolic={0: ("batch", 200)})
    want = (ss.stft(x, nperseg=32, noverlap=5)[2], ss.welch(x, nperseg=32)[1],
            ss.istft(ss.stft(x, nperseg=32)[2], nperseg=32)[1], ss.fftconvolve(x, kernel, axes=1), ss.detrend(x),
            scipy.fft.dct(x))  # fmt: skip
    assert_matches(tuple(got), want, "symbolic batch")
