"""sg.scipy.linalg against scipy.linalg: values in float32 and float64 and errors (gradients against
jax.scipy.linalg: test_linalg_scipy_grads.py). Each table is one graph and one run."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import stablegraph as sg

RNG = np.random.default_rng(13)
la = sg.scipy.linalg


def _normal(*shape, dt=np.float64):
    return RNG.normal(size=shape).astype(dt)


def _spd(n, dt=np.float64):
    x = RNG.normal(size=(n, n))
    return (x @ x.T + n * np.eye(n)).astype(dt)


def _run_table(table, tol):
    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (args, ours, _) in table.items():
            phs = [sg.placeholder(np.shape(a), sg.dtype(np.asarray(a).dtype)) for a in args]
            feeds.update(zip(phs, args))
            fetches[name] = ours(*phs)
    with sg.Session(g) as sess:
        got = sess.run(fetches, feeds)
    for name, (args, _, theirs) in table.items():
        want, mine = theirs(*args), got[name]
        if not isinstance(want, tuple):
            mine, want = (mine,), (want,)
        assert len(mine) == len(want), name
        for k, (a, b) in enumerate(zip(mine, want)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), **tol, err_msg=f"{name} output {k}")


def _abs_all(xs):
    return tuple(np.abs(np.asarray(x)) for x in xs)


def value_table(dt):
    spd, sq, tall = _spd(4, dt), _normal(4, 4, dt=dt), _normal(5, 3, dt=dt)
    b, bv = _normal(4, 2, dt=dt), _normal(4, dt=dt)
    low, up = np.tril(sq) + 4 * np.eye(4, dtype=dt), np.triu(sq) + 4 * np.eye(4, dtype=dt)
    small = (_normal(3, 3, dt=dt) * 0.7).astype(dt)
    big = (_normal(3, 3, dt=dt) * 3).astype(dt)
    return {
        "cholesky upper": ((spd,), la.cholesky, sl.cholesky),
        "cholesky lower": ((spd,), lambda x: la.cholesky(x, lower=True), lambda x: sl.cholesky(x, lower=True)),
        "cho_solve": ((spd, b), lambda a, y: la.cho_solve(la.cho_factor(a), y),
                      lambda a, y: sl.cho_solve(sl.cho_factor(a), y)),
        "cho_solve lower vector": ((spd, bv), lambda a, y: la.cho_solve(la.cho_factor(a, lower=True), y),
                                   lambda a, y: sl.cho_solve(sl.cho_factor(a, lower=True), y)),
        "solve gen": ((sq, b), la.solve, sl.solve),
        "solve pos": ((spd, bv), lambda a, y: la.solve(a, y, assume_a="pos"), lambda a, y: sl.solve(a, y, assume_a="pos")),
        "solve sym": ((spd, b), lambda a, y: la.solve(a, y, assume_a="sym"), lambda a, y: sl.solve(a, y, assume_a="sym")),
        "solve_triangular": ((low, b), lambda a, y: la.solve_triangular(a, y, lower=True),
                             lambda a, y: sl.solve_triangular(a, y, lower=True)),
        "solve_triangular trans": ((up, bv), lambda a, y: la.solve_triangular(a, y, trans=1, unit_diagonal=True),
                                   lambda a, y: sl.solve_triangular(a, y, trans=1, unit_diagonal=True)),
        "solve_triangular C": ((low, b), lambda a, y: la.solve_triangular(a, y, trans="C", lower=True),
                               lambda a, y: sl.solve_triangular(a, y, trans="C", lower=True)),
        "lu": ((tall,), la.lu, sl.lu),
        "lu wide": ((tall.T,), la.lu, sl.lu),
        "lu permute_l": ((sq,), lambda a: la.lu(a, permute_l=True), lambda a: sl.lu(a, permute_l=True)),
        "lu_factor": ((sq,), la.lu_factor, sl.lu_factor),
        "lu_solve": ((sq, b), lambda a, y: la.lu_solve(la.lu_factor(a), y), lambda a, y: sl.lu_solve(sl.lu_factor(a), y)),
        "lu_solve trans": ((sq, bv), lambda a, y: la.lu_solve(la.lu_factor(a), y, trans=1),
                           lambda a, y: sl.lu_solve(sl.lu_factor(a), y, trans=1)),
        "qr full": ((tall,), lambda a: _abs_sg(la.qr(a)), lambda a: _abs_all(sl.qr(a))),
        "qr economic": ((tall,), lambda a: _abs_sg(la.qr(a, mode="economic")), lambda a: _abs_all(sl.qr(a, mode="economic"))),
        "qr r": ((tall,), lambda a: _abs_sg(la.qr(a, mode="r")), lambda a: _abs_all(sl.qr(a, mode="r"))),
        "svd": ((tall,), lambda a: _abs_sg(la.svd(a)), lambda a: _abs_all(sl.svd(a))),
        "svd values": ((tall,), lambda a: la.svd(a, compute_uv=False), lambda a: sl.svd(a, compute_uv=False)),
        "eigh": ((spd,), lambda a: _abs_sg(la.eigh(a)), lambda a: _abs_all(sl.eigh(a))),
        "eigh upper values": ((spd,), lambda a: la.eigh(a, lower=False, eigvals_only=True),
                              lambda a: sl.eigh(a, lower=False, eigvals_only=True)),
        "inv": ((sq,), la.inv, sl.inv),
        "det": ((sq,), la.det, sl.det),
        "expm small": ((small,), la.expm, sl.expm),
        "expm scaled": ((big,), la.expm, sl.expm),
        "expm batched": ((np.stack([small, big]),), la.expm, lambda a: np.stack([sl.expm(a[0]), sl.expm(a[1])])),
        "block_diag": ((sq, tall, bv), la.block_diag, sl.block_diag),
        "sqrtm": ((spd,), la.sqrtm, sl.sqrtm),
    }  # fmt: skip


def _abs_sg(xs):
    return tuple(sg.numpy.abs(x) for x in xs)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_scipy_linalg_matches_scipy(dt):
    tol = dict(rtol=1e-8, atol=1e-9) if dt == np.float64 else dict(rtol=2e-3, atol=2e-3)
    _run_table(value_table(dt), tol)


def test_scipy_linalg_errors_name_the_function():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 3), sg.float64)
        with pytest.raises(sg.GraphError, match="linalg.solve wants assume_a"):
            la.solve(x, x, assume_a="banded")
        with pytest.raises(sg.GraphError, match="linalg.solve_triangular wants trans"):
            la.solve_triangular(x, x, trans=3)
        with pytest.raises(sg.GraphError, match="linalg.qr with pivoting=True is not supported"):
            la.qr(x, pivoting=True)
