"""sg.scipy.integrate.trapezoid, interpolate.RegularGridInterpolator, ndimage.map_coordinates and
cluster.vq.vq against scipy (float64), jax (ties, ints, float32, gradients) and a loop (vectorize).
Each table is one graph and one run."""

from __future__ import annotations

import jax
import jax.scipy.cluster.vq as jvq
import jax.scipy.integrate as jint
import jax.scipy.interpolate as jinterp
import jax.scipy.ndimage as jnd
import numpy as np
import pytest
import scipy.cluster.vq as svq
import scipy.integrate as sint
import scipy.interpolate as sinterp
import scipy.ndimage as snd

import stablegraph as sg
from stablegraph.test_util import check_vectorize, line_of

from .tables import assert_matches, grads_against_jax, run_cases

pytestmark = pytest.mark.usefixtures("jax_x64")
RNG = np.random.default_rng(262)
S = sg.scipy
MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap"}  # jax's spelling of scipy's grid modes

PTS = (np.sort(RNG.uniform(0, 5, 4)), np.sort(RNG.uniform(-1, 1, 6)))
VALS = RNG.normal(size=(4, 6, 2))
XI = np.stack([RNG.uniform(-0.5, 5.5, 30), RNG.uniform(-1.2, 1.2, 30)], -1)
XI[0], XI[1], XI[2] = (
    [PTS[0][1], PTS[1][2]],
    [PTS[0][0], PTS[1][0]],
    [PTS[0][-1], PTS[1][-1]],
)  # nodes, corners


def test_values_match_scipy():
    img = RNG.normal(size=(5, 6))
    coords = np.stack([RNG.uniform(-3, 9, size=(4, 7)), RNG.uniform(-3, 9, size=(4, 7))])
    coords[:, 0, :4] = [[0, 4, -0.0, 2], [0, 5, 3, 5]]  # exact nodes and ends
    y = RNG.normal(size=(3, 7))
    x1, x2 = np.sort(RNG.normal(size=7)), np.sort(RNG.normal(size=(3, 7)), axis=1)
    obs, book = RNG.normal(size=(20, 3)), RNG.normal(size=(5, 3))
    cases, want = {}, {}
    for order in (0, 1):
        for mode in MODES + ("grid-constant", "grid-wrap", "grid-mirror"):
            key = f"map_coordinates order {order} {mode}"
            cases[key] = (
                lambda x, c, o=order, m=mode: S.ndimage.map_coordinates(x, [c[0], c[1]], o, m, 1.5),
                (img, coords),
            )
            want[key] = snd.map_coordinates(
                img, coords, order=order, mode=SCIPY_MODE.get(mode, mode), cval=1.5
            )
    cases["map_coordinates, one stacked array"] = (
        lambda x, c: S.ndimage.map_coordinates(x, c, 1, "nearest"),
        (img, coords),
    )
    want["map_coordinates, one stacked array"] = snd.map_coordinates(img, coords, order=1, mode="nearest")
    for method in ("linear", "nearest"):
        for fill in (np.nan, None, 3.0):
            key = f"RegularGridInterpolator {method} {fill}"
            cases[key] = (
                lambda v, q, m=method, f=fill: S.interpolate.RegularGridInterpolator(PTS, v, m, False, f)(q),
                (VALS, XI),
            )
            want[key] = sinterp.RegularGridInterpolator(PTS, VALS, method, False, fill)(XI)
    cases["RegularGridInterpolator tuple xi, call method"] = (
        lambda v, a, b: S.interpolate.RegularGridInterpolator(PTS, v[..., 0])((a, b), method="nearest"), (VALS, XI[:, 0], XI[:, 1]))  # fmt: skip
    want["RegularGridInterpolator tuple xi, call method"] = sinterp.RegularGridInterpolator(PTS, VALS[..., 0], bounds_error=False)(
        (XI[:, 0], XI[:, 1]), method="nearest")  # fmt: skip
    for i, (args, kw) in enumerate([((y,), {}), ((y,), dict(dx=0.3)), ((y, x1), {}), ((y, x2), {}), ((y.T,), dict(axis=0)),
                                    ((y.T, x2.T), dict(axis=0)), ((y[:, :1],), {}), ((y[:, :0],), {})]):  # fmt: skip
        cases[f"trapezoid {i}"] = (lambda *a, kw=kw: S.integrate.trapezoid(*a, **kw), args)
        want[f"trapezoid {i}"] = sint.trapezoid(*args, **kw)
    cases["vq"] = (S.cluster.vq.vq, (obs, book))
    want["vq"] = svq.vq(obs, book)
    tie_book = np.array([[1.0, 0.0], [-1.0, 0.0]])
    cases["vq ties, 1-d"] = (
        lambda o, b, t: (S.cluster.vq.vq(o[:, 0], b[:, 0]), S.cluster.vq.vq(np.zeros((1, 2)), t)),
        (obs, book, tie_book),
    )
    want["vq ties, 1-d"] = (svq.vq(obs[:, 0], book[:, 0]), svq.vq(np.zeros((1, 2)), tie_book))
    got = run_cases(cases)
    for key in cases:
        g, w = got[key], want[key]
        if key.startswith("vq ties"):
            g, w = g[0] + g[1], w[0] + w[1]
        assert_matches(g, w, key)
    assert np.asarray(got["vq"][0]).dtype == np.int32


def test_ties_integers_and_float32_follow_jax():
    img = RNG.integers(0, 10, size=(5, 6)).astype(np.int32)
    half = np.array(
        [[-0.5, 0.5, 1.5, 2.5, 4.5], [-1.5, 0.5, 2.5, 3.5, 5.5]]
    )  # order 0 ties round away from zero
    img32 = RNG.normal(size=(5, 6)).astype(np.float32)
    c32 = RNG.uniform(-1, 6, size=(2, 9)).astype(np.float32)
    y32 = RNG.normal(size=(4, 5)).astype(np.float32)
    v32, xi32 = VALS.astype(np.float32), XI.astype(np.float32)
    obs32, book32 = RNG.normal(size=(8, 2)).astype(np.float32), RNG.normal(size=(3, 2)).astype(np.float32)
    cases = {}
    for mode in MODES:
        for order in (0, 1):
            cases[f"int {mode} {order}"] = (
                lambda x, c, m=mode, o=order: S.ndimage.map_coordinates(x, [c[0], c[1]], o, m),
                (img, half),
            )
        cases[f"f32 {mode}"] = (
            lambda x, c, m=mode: S.ndimage.map_coordinates(x, [c[0], c[1]], 1, m),
            (img32, c32),
        )
    cases["trapezoid f32"] = (lambda v: S.integrate.trapezoid(v, dx=0.5), (y32,))
    cases["rgi f32 values, f64 grid"] = (
        lambda v, q: S.interpolate.RegularGridInterpolator(PTS, v)(q),
        (v32, xi32),
    )
    cases["rgi f32"] = (
        lambda v, q: S.interpolate.RegularGridInterpolator([p.astype(np.float32) for p in PTS], v)(q),
        (v32, xi32),
    )
    cases["vq f32"] = (S.cluster.vq.vq, (obs32, book32))
    got = run_cases(cases)

    @jax.jit  # one compile: jax's functions run slowly op by op
    def theirs(img, half, img32, c32, y32, v32, xi32, obs32, book32):
        out = {}
        for mode in MODES:
            for order in (0, 1):
                out[f"int {mode} {order}"] = jnd.map_coordinates(img, list(half), order, mode)
            out[f"f32 {mode}"] = jnd.map_coordinates(img32, list(c32), 1, mode)
        out["trapezoid f32"] = jint.trapezoid(y32, dx=0.5)
        out["rgi f32 values, f64 grid"] = jinterp.RegularGridInterpolator(PTS, v32)(xi32)
        out["rgi f32"] = jinterp.RegularGridInterpolator([p.astype(np.float32) for p in PTS], v32)(xi32)
        out["vq f32"] = jvq.vq(obs32, book32)
        return out

    want = theirs(img, half, img32, c32, y32, v32, xi32, obs32, book32)
    for key in cases:
        w = want[key] if isinstance(want[key], tuple) else (want[key],)
        w = tuple(np.asarray(v) for v in w)
        assert_matches(got[key], w if len(w) > 1 else w[0], key, rtol=1e-5, atol=1e-5, dtype=w[-1].dtype)


def test_gradients_match_jax():
    img, coords = RNG.normal(size=(4, 5)), RNG.uniform(-1, 5.5, size=(2, 6))
    y, x = RNG.normal(size=(3, 6)), np.sort(RNG.normal(size=6))
    obs, book = RNG.normal(size=(7, 3)), RNG.normal(size=(4, 3))
    xi = XI[3:]  # off the nodes, where the slopes are defined
    table = {
        "map_coordinates": (
            (img, coords),
            lambda m, a, c: tuple(
                m.ndimage.map_coordinates(a, [c[0], c[1]], 1, mode) for mode in ("constant", "mirror")
            ),
        ),  # fmt: skip
        "trapezoid": (
            (y, x),
            lambda m, a, b: (m.integrate.trapezoid(a, b), m.integrate.trapezoid(a, dx=0.2, axis=0)),
        ),
        "RegularGridInterpolator": (
            (VALS, xi),
            lambda m, v, q: m.interpolate.RegularGridInterpolator(PTS, v, fill_value=None)(q),
        ),
        "vq": ((obs, book), lambda m, o, b: m.cluster.vq.vq(o, b)[1]),
    }
    grads_against_jax(table, S, jax.scipy)


def test_vectorize_matches_a_loop():
    img = RNG.normal(size=(3, 4))
    rgi_points = (np.arange(3.0), np.arange(4.0))

    def many(c):
        return (S.ndimage.map_coordinates(img, [c[0], c[1]], 1, "mirror"),
                S.interpolate.RegularGridInterpolator(rgi_points, img)(c.T), S.integrate.trapezoid(c),
                S.cluster.vq.vq(c.T, img[:, :2])[1])  # fmt: skip

    check_vectorize(many, [RNG.uniform(0, 2, size=(2, 5))], size=2)


def test_bad_arguments_name_the_users_line():
    g = sg.Graph()
    with g:
        img = sg.placeholder((3, 4), sg.float64)
        with pytest.raises(sg.GraphError, match="order 0 or 1") as e1:
            S.ndimage.map_coordinates(img, [img, img], 3)  # spline order
        with pytest.raises(sg.GraphError, match="one coordinate array per axis") as e2:
            S.ndimage.map_coordinates(img, [img], 1)  # one coordinate short
        grid = (np.arange(3.0), np.arange(4.0))
        with pytest.raises(sg.GraphError, match="bounds_error") as e3:
            S.interpolate.RegularGridInterpolator(grid, img, bounds_error=True)  # raising
        with pytest.raises(sg.GraphError, match="obs") as e4:
            S.cluster.vq.vq(img, sg.numpy.ones((2, 5)))  # D differs
    for e, text in (
        (e1, "# spline order"),
        (e2, "# one coordinate short"),
        (e3, "# raising"),
        (e4, "# D differs"),
    ):
        assert f"test_grids.py:{line_of(__file__, text)}" in str(e.value)
