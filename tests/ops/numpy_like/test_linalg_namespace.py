"""sg.numpy.linalg against numpy.linalg: values in float32 and float64, batched shapes, every norm ord,
result named tuples and errors (gradients: test_linalg_grads.py). Each table is one graph and one run."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(11)
INF = np.inf


def _normal(*shape, dt=np.float64):
    return RNG.normal(size=shape).astype(dt)


def _spd(*shape, dt=np.float64):
    x = RNG.normal(size=shape)
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _run_table(table, tol):
    """table: name -> (args, sg function, numpy function); all cases in one graph, one run."""
    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (args, ours, _) in table.items():
            phs = [sg.placeholder(np.shape(a), sg.dtype(np.asarray(a).dtype)) for a in args]
            feeds.update(zip(phs, args))
            fetches[name] = ours(*phs)
    with sg.Session(g) as sess:
        got = sess.run(fetches, feeds)
    for name, (args, _, theirs) in table.items():
        want = theirs(*args)
        mine = got[name]
        if isinstance(want, tuple):
            assert isinstance(mine, tuple) and len(mine) == len(want), name
        else:
            mine, want = (mine,), (want,)
        for k, (a, b) in enumerate(zip(mine, want)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), **tol, err_msg=f"{name} output {k}")


def _sorted_eig(w):
    return np.sort_complex(np.asarray(w).reshape(-1))


def _abs(x):
    return np.abs(np.asarray(x))


def value_table(dt):
    sq, spd = _normal(3, 4, 4, dt=dt), _spd(2, 4, 4, dt=dt)
    tall, wide, b = _normal(2, 5, 3, dt=dt), _normal(3, 5, dt=dt), _normal(3, 4, 2, dt=dt)
    v3, w3 = _normal(4, 3, dt=dt), _normal(4, 3, dt=dt)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], dt)
    rank2 = (_normal(5, 2, dt=dt) @ _normal(2, 4, dt=dt)).astype(dt)
    la = snp.linalg
    return {
        "solve batched": ((sq, b), la.solve, np.linalg.solve),
        "solve vector": ((sq[0], b[0, :, 0]), la.solve, np.linalg.solve),
        "solve broadcast b": ((sq[0], b), la.solve, np.linalg.solve),
        "inv": ((sq,), la.inv, np.linalg.inv),
        "det": ((sq,), la.det, np.linalg.det),
        "det singular": ((singular,), la.det, np.linalg.det),
        "slogdet": ((sq,), lambda x: tuple(la.slogdet(x)), lambda x: tuple(np.linalg.slogdet(x))),
        "slogdet singular": ((singular,), lambda x: tuple(la.slogdet(x)), lambda x: tuple(np.linalg.slogdet(x))),
        "cholesky": ((spd,), la.cholesky, np.linalg.cholesky),
        "cholesky upper": ((spd,), lambda x: la.cholesky(x, upper=True), lambda x: np.linalg.cholesky(x, upper=True)),
        "eigh": ((spd,), lambda x: (la.eigh(x).eigenvalues, snp.abs(la.eigh(x).eigenvectors)),
                 lambda x: (np.linalg.eigh(x)[0], _abs(np.linalg.eigh(x)[1]))),
        "eigh upper": ((spd,), lambda x: la.eigh(x, UPLO="U")[0], lambda x: np.linalg.eigh(x, UPLO="U")[0]),
        "eigvalsh": ((spd,), la.eigvalsh, np.linalg.eigvalsh),
        "eigvals": ((sq,), la.eigvals, lambda x: np.linalg.eigvals(x)),
        "svd reduced": ((tall,), lambda x: tuple(snp.abs(t) for t in la.svd(x, full_matrices=False)),
                        lambda x: tuple(_abs(t) for t in np.linalg.svd(x, full_matrices=False))),
        "svd full": ((wide,), lambda x: tuple(snp.abs(t) for t in la.svd(x)),
                     lambda x: tuple(_abs(t) for t in np.linalg.svd(x))),
        "svd values": ((tall,), lambda x: la.svd(x, compute_uv=False), lambda x: np.linalg.svd(x, compute_uv=False)),
        "svdvals": ((wide,), la.svdvals, np.linalg.svdvals),
        "qr reduced": ((tall,), lambda x: tuple(snp.abs(t) for t in la.qr(x)),
                       lambda x: tuple(_abs(t) for t in np.linalg.qr(x))),
        "qr complete": ((tall,), lambda x: tuple(snp.abs(t) for t in la.qr(x, mode="complete")),
                        lambda x: tuple(_abs(t) for t in np.linalg.qr(x, mode="complete"))),
        "qr r": ((wide,), lambda x: snp.abs(la.qr(x, mode="r")), lambda x: _abs(np.linalg.qr(x, mode="r"))),
        "lstsq vector": ((tall[0], tall[0, :, 0] + 1), lambda a, y: tuple(la.lstsq(a, y)[::2]),
                         lambda a, y: tuple(np.linalg.lstsq(a, y)[::2])),
        "lstsq residuals": ((tall[0], _normal(5, 2, dt=dt)), lambda a, y: la.lstsq(a, y)[1],
                            lambda a, y: np.linalg.lstsq(a, y)[1]),
        "pinv": ((tall,), la.pinv, np.linalg.pinv),
        "matrix_rank": ((rank2,), la.matrix_rank, np.linalg.matrix_rank),
        "matrix_rank batched": ((tall,), la.matrix_rank, np.linalg.matrix_rank),
        "matrix_power 3": ((sq,), lambda x: la.matrix_power(x, 3), lambda x: np.linalg.matrix_power(x, 3)),
        "matrix_power 0": ((sq,), lambda x: la.matrix_power(x, 0), lambda x: np.linalg.matrix_power(x, 0)),
        "matrix_power -2": ((sq,), lambda x: la.matrix_power(x, -2), lambda x: np.linalg.matrix_power(x, -2)),
        "cond": ((sq,), lambda x: tuple(la.cond(x, p) for p in (None, 2, -2, 1, -1, INF, -INF, "fro", "nuc")),
                 lambda x: tuple(np.linalg.cond(x, p) for p in (None, 2, -2, 1, -1, INF, -INF, "fro", "nuc"))),
        "cross": ((v3, w3), la.cross, np.linalg.cross),
        "cross axis 0": ((v3.T, w3.T), lambda x, y: la.cross(x, y, axis=0), lambda x, y: np.cross(x, y, axis=0)),
        "multi_dot": ((b[0, :, 0], sq[0], sq[1], b[1]), lambda *xs: la.multi_dot(xs), lambda *xs: np.linalg.multi_dot(xs)),
        "tensorinv": ((sq[0].reshape(2, 2, 4),), lambda x: la.tensorinv(x, ind=2), lambda x: np.linalg.tensorinv(x, 2)),
        "tensorsolve": ((sq[0].reshape(4, 2, 2), b[0, :, 0]), la.tensorsolve, np.linalg.tensorsolve),
        "outer": ((v3[0], w3[1]), la.outer, np.linalg.outer),
        "trace": ((sq[0],), la.trace, np.linalg.trace),
        "vecdot": ((v3, w3), la.vecdot, np.linalg.vecdot),
        "matrix_transpose": ((sq,), la.matrix_transpose, np.linalg.matrix_transpose),
        "diagonal": ((tall,), lambda x: tuple(la.diagonal(x, offset=k) for k in (0, 1, -2)),
                     lambda x: tuple(np.linalg.diagonal(x, offset=k) for k in (0, 1, -2))),
        "matmul": ((sq, b), la.matmul, np.linalg.matmul),
        "tensordot": ((sq, b), lambda x, y: la.tensordot(x, y, axes=((0, 1), (0, 1))),
                      lambda x, y: np.linalg.tensordot(x, y, axes=((0, 1), (0, 1)))),
    }  # fmt: skip


FLOAT32_CASES = {"solve", "inv", "slogdet", "cholesky", "eigh", "eigvals", "svd", "qr", "lstsq", "pinv"}


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_linalg_functions_match_numpy(dt):
    table = value_table(dt)
    if dt == np.float32:  # the kernels' float32 variants; the graph around them is dtype-generic
        table = {k: v for k, v in table.items() if k.split()[0] in FLOAT32_CASES}
    tol = dict(rtol=1e-8, atol=1e-9) if dt == np.float64 else dict(rtol=2e-3, atol=2e-3)
    _run_table(table, tol)


def test_norms_with_every_ord_match_numpy():
    vec, mat, batch = _normal(5), _normal(3, 4), _normal(2, 3, 4)
    la = snp.linalg
    vector_ords = [None, 2, 1, -1, INF, -INF, 0, 3, 0.5, -2]
    matrix_ords = [None, "fro", "nuc", 1, -1, 2, -2, INF, -INF]
    table = {f"vector ord={o}": ((vec,), lambda x, o=o: la.norm(x, o), lambda x, o=o: np.linalg.norm(x, o))
             for o in vector_ords}  # fmt: skip
    table.update({f"matrix ord={o}": ((mat,), lambda x, o=o: la.norm(x, o), lambda x, o=o: np.linalg.norm(x, o))
                  for o in matrix_ords})  # fmt: skip
    table.update({
        "matrix axes keepdims": ((batch,), lambda x: tuple(la.norm(x, o, axis=(2, 0), keepdims=True) for o in matrix_ords),
                                 lambda x: tuple(np.linalg.norm(x, o, axis=(2, 0), keepdims=True) for o in matrix_ords)),
        "vector axis": ((batch,), lambda x: la.norm(x, 1, axis=1), lambda x: np.linalg.norm(x, 1, axis=1)),
        "flat": ((batch,), la.norm, np.linalg.norm),
        "vector_norm": ((batch,), lambda x: tuple(la.vector_norm(x, ord=o) for o in (2, 1, INF, 3)),
                        lambda x: tuple(np.linalg.vector_norm(x, ord=o) for o in (2, 1, INF, 3))),
        "vector_norm axis keepdims": ((batch,), lambda x: la.vector_norm(x, axis=(0, 2), keepdims=True),
                                      lambda x: np.linalg.vector_norm(x, axis=(0, 2), keepdims=True)),
        "matrix_norm": ((batch,), lambda x: tuple(la.matrix_norm(x, ord=o) for o in ("fro", "nuc", 2, -INF)),
                        lambda x: tuple(np.linalg.matrix_norm(x, ord=o) for o in ("fro", "nuc", 2, -INF))),
    })  # fmt: skip
    _run_table(table, dict(rtol=1e-9, atol=1e-10))


def test_results_are_named_tuples_and_bad_input_is_a_graph_error():
    g = sg.Graph()
    la = snp.linalg
    with g:
        x = sg.placeholder((3, 3), sg.float64)
        assert la.eigh(x)._fields == ("eigenvalues", "eigenvectors")
        assert la.svd(x)._fields == ("U", "S", "Vh")
        assert la.qr(x)._fields == ("Q", "R")
        assert la.slogdet(x)._fields == ("sign", "logabsdet")
        assert la.eig(x)._fields == ("eigenvalues", "eigenvectors")
        with pytest.raises(
            sg.GraphError, match=r"test_linalg_namespace.py:\d+: linalg.inv wants square matrices"
        ):
            la.inv(x[:2])
        with pytest.raises(sg.GraphError, match="linalg.solve wants b of shape"):
            la.solve(x, x[:2])
        with pytest.raises(sg.GraphError, match="linalg.qr wants mode"):
            la.qr(x, mode="raw")
        with pytest.raises(sg.GraphError, match="norm of a matrix takes ord"):
            la.norm(x, 3)


def test_complex_inputs_match_numpy():
    def cplx(*shape):
        return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)

    sq, b = cplx(2, 3, 3), cplx(2, 3, 2)
    herm = sq @ np.conj(np.swapaxes(sq, -1, -2)) + 3 * np.eye(3)
    la = snp.linalg
    table = {
        "solve": ((sq, b), la.solve, np.linalg.solve),
        "inv": ((sq,), la.inv, np.linalg.inv),
        "det": ((sq,), la.det, np.linalg.det),
        "slogdet": ((sq,), lambda x: tuple(la.slogdet(x)), lambda x: tuple(np.linalg.slogdet(x))),
        "cholesky": ((herm,), la.cholesky, np.linalg.cholesky),
        "eigvalsh": ((herm,), la.eigvalsh, np.linalg.eigvalsh),
        "svdvals": ((sq,), la.svdvals, np.linalg.svdvals),
        "pinv": ((sq,), la.pinv, np.linalg.pinv),
        "norm nuc": (
            (sq,),
            lambda x: la.norm(x, "nuc", axis=(1, 2)),
            lambda x: np.linalg.norm(x, "nuc", axis=(1, 2)),
        ),
        "vecdot": ((b, b), la.vecdot, np.linalg.vecdot),
    }
    _run_table(table, dict(rtol=1e-9, atol=1e-10))
