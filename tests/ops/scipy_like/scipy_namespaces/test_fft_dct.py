"""sg.scipy.fft's dct, idct, dctn and idctn against scipy.fft (float64: types 1-4, every norm,
odd/even/short lengths, n, axes, s, complex input), jax (float32 values, gradients) and a loop
(vectorize). Each table is one graph and one run."""

from __future__ import annotations

import jax
import jax.scipy.fft as jfft
import numpy as np
import pytest
import scipy.fft as sfft

import stablegraph as sg
from stablegraph.test_util import check_grads, check_vectorize, line_of

from .tables import assert_matches, grads_against_jax, run_cases

pytestmark = pytest.mark.usefixtures("jax_x64")
RNG = np.random.default_rng(261)
F = sg.scipy.fft


def test_types_norms_and_lengths_match_scipy():
    cases, want = {}, {}
    for t in (1, 2, 3, 4):
        for norm in (None, "ortho", "forward") if t != 4 else ("backward", "ortho"):
            for n in (2, 5) if t == 1 else (5, 8):
                x = RNG.normal(size=(2, n))
                if n == 5:
                    x = x + 1j * RNG.normal(size=(2, n))
                for name, ours, theirs in (("dct", F.dct, sfft.dct), ("idct", F.idct, sfft.idct)):
                    key = f"{name} type {t} {norm} n={n}"
                    cases[key] = (lambda v, f=ours, t=t, m=norm: f(v, t, norm=m), (x,))
                    want[key] = theirs(x, t, norm=norm)
    cases["dct n=1"] = (lambda v: F.dct(v, n=1), (RNG.normal(size=(3, 4)),))
    want["dct n=1"] = None
    x3 = RNG.normal(size=(4, 5, 6))
    for name, ours, theirs in (("dctn", F.dctn, sfft.dctn), ("idctn", F.idctn, sfft.idctn)):
        for i, kw in enumerate([{}, dict(axes=(0, 2)), dict(s=(7, 3)), dict(s=(3, 8), axes=(0, 1), norm="ortho"),
                                dict(type=3), dict(type=1, axes=-1), dict(type=4, norm="forward")]):  # fmt: skip
            cases[f"{name} {i}"] = (lambda v, f=ours, kw=kw: f(v, **kw), (x3,))
            want[f"{name} {i}"] = theirs(x3, **kw)
    for kw in (dict(n=9, axis=0), dict(n=3, axis=1, type=3)):
        cases[f"dct {kw}"] = (lambda v, kw=kw: F.dct(v, **kw), (x3,))
        want[f"dct {kw}"] = sfft.dct(x3, **kw)
    edge = np.array([[0.0, -0.0, 1e-300, -1e-300, 3.0], [1e300, 1e300, -1e300, 1e300, 0.0]])
    cases["dct edge values"] = (lambda v: F.dct(v, norm="ortho"), (edge,))
    want["dct edge values"] = sfft.dct(edge, norm="ortho")
    got = run_cases(cases)
    want["dct n=1"] = sfft.dct(cases["dct n=1"][1][0], n=1)
    for key in cases:
        scale = max(1.0, float(np.max(np.abs(cases[key][1][0]))))  # rounding is relative to the largest input
        assert_matches(got[key], want[key], key, rtol=1e-9, atol=1e-12 * scale)


def test_float32_and_ints_follow_jax():
    x = RNG.normal(size=(3, 16)).astype(np.float32)
    xi = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = run_cases({
        "dct": (lambda v: F.dct(v), (x,)), "idct ortho": (lambda v: F.idct(v, norm="ortho"), (x,)),
        "dctn": (lambda v: F.dctn(v), (x,)), "idctn": (lambda v: F.idctn(v, axes=[0]), (x,)),
        "dct int": (lambda v: F.dct(v), (xi,)),
    })  # fmt: skip
    want = jax.jit(lambda x, xi: {"dct": jfft.dct(x), "idct ortho": jfft.idct(x, norm="ortho"), "dctn": jfft.dctn(x),
                                  "idctn": jfft.idctn(x, axes=[0]), "dct int": jfft.dct(xi)})(x, xi)  # fmt: skip
    for key in want:
        assert_matches(got[key], np.asarray(want[key]), key, rtol=1e-4, atol=1e-4, dtype=np.float32)


def test_gradients_match_jax():
    x = RNG.normal(size=(3, 6))
    table = {
        "dct": ((x,), lambda m, v: (m.dct(v), m.dct(v, norm="ortho", axis=0))),
        "idct": ((x,), lambda m, v: (m.idct(v), m.idct(v, n=4, norm="ortho"))),
        "dctn": ((x,), lambda m, v: (m.dctn(v), m.idctn(v, s=(4, 7)))),
    }
    grads_against_jax(table, F, jfft)
    # jax has type 2 only: finite differences are the oracle of the others
    check_grads(
        lambda v: (F.dct(v, 1), F.dct(v, 3, norm="ortho"), F.idct(v, 4), F.idctn(v, 1)),
        [x],
        order=1,
        modes="rev",
    )


def test_vectorize_matches_a_loop():
    check_vectorize(
        lambda v: (F.dct(v, 1), F.idct(v, 4, norm="ortho"), F.dctn(v, 3)), [RNG.normal(size=(5,))]
    )


def test_bad_arguments_name_the_users_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float64)
        with pytest.raises(sg.GraphError, match="type 1, 2, 3 or 4") as e1:
            F.dct(x, type=5)  # no type 5
        with pytest.raises(sg.GraphError, match="norm") as e2:
            F.idctn(x, norm="both")  # bad norm
        with pytest.raises(sg.GraphError, match="at least 2") as e3:
            F.dct(x, type=1, n=1)  # too short
    for e, text in ((e1, "# no type 5"), (e2, "# bad norm"), (e3, "# too short")):
        assert f"test_fft_dct.py:{line_of(__file__, text)}" in str(e.value)
