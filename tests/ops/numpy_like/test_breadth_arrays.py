"""sg.numpy's array building and rearranging against numpy: grids and diagonals, editing
(insert, delete, select, put, ...), orderings, windows, host data, dtype questions, functional
helpers and Tensor methods (ops/numpy_like/grids.py, editing.py, ordering.py, windows.py,
host_data.py, dtype_queries.py, functional.py, overloads.py)."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def _placed(fn):
    """numpy's in-place functions (place, put, fill_diagonal) as functions returning the array."""

    def run(a, *args, **kwargs):
        out = np.array(a, copy=True)
        fn(out, *args, **kwargs)
        return out

    return run


def np_or_snp(xp, name):
    return getattr(xp, name) if xp is snp else _placed(getattr(np, name))


GRID_CASES = {
    "diag": lambda xp, a, v, z: xp.diag(v, 1),
    "diag_neg": lambda xp, a, v, z: xp.diag(v, -2),
    "diag_2d": lambda xp, a, v, z: xp.diag(a, 1),
    "diag_2d_neg": lambda xp, a, v, z: xp.diag(a, -1),
    "diagflat": lambda xp, a, v, z: xp.diagflat(a[:2, :2], -1),
    "indices": lambda xp, a, v, z: xp.indices((2, 3)),
    "indices_sparse": lambda xp, a, v, z: xp.indices((2, 3), sparse=True),
    "meshgrid": lambda xp, a, v, z: xp.meshgrid(v, a[0]),
    "meshgrid_ij3": lambda xp, a, v, z: xp.meshgrid(v, a[0], v[:2], indexing="ij"),
    "meshgrid_sparse": lambda xp, a, v, z: xp.meshgrid(v, a[0], sparse=True),
    "ix_": lambda xp, a, v, z: a[xp.ix_(np.array([0, 2]), np.array([3, 1, 0]))],
    "kron": lambda xp, a, v, z: xp.kron(a[:2, :2], v),
    "kron_2d": lambda xp, a, v, z: xp.kron(a[:2, :3], a[:2, :2]),
    "geomspace": lambda xp, a, v, z: xp.geomspace(1, 1000, 4),
    "geomspace_neg": lambda xp, a, v, z: xp.geomspace(-1, -1000, 5, endpoint=False),
    "logspace": lambda xp, a, v, z: xp.logspace(0, 2, 5),
    "logspace_base": lambda xp, a, v, z: xp.logspace(1, 3, 4, base=2.0, endpoint=False),
    "fromfunction": lambda xp, a, v, z: xp.fromfunction(lambda i, j: i + 2 * j, (2, 3)),
    "diag_indices": lambda xp, a, v, z: xp.diag_indices(3, 3),
    "diag_indices_from": lambda xp, a, v, z: xp.diag_indices_from(a[:3, :3]),
    "tril_indices": lambda xp, a, v, z: xp.tril_indices(4, -1, 3),
    "triu_indices": lambda xp, a, v, z: xp.triu_indices(3, 1),
    "tril_indices_from": lambda xp, a, v, z: xp.tril_indices_from(a),
    "triu_indices_from": lambda xp, a, v, z: xp.triu_indices_from(a, 1),
    "mask_indices": lambda xp, a, v, z: xp.mask_indices(3, xp.triu, 1),
    "mask_indices_np": lambda xp, a, v, z: xp.mask_indices(3, np.tril),
}

EDIT_CASES = {
    "append": lambda xp, a, v, z: xp.append(a, v),
    "append_axis": lambda xp, a, v, z: xp.append(a, a[:1], axis=0),
    "insert": lambda xp, a, v, z: xp.insert(a, 1, 5.0, axis=1),
    "insert_list": lambda xp, a, v, z: xp.insert(a, [1, 3, 1], v, axis=1),
    "insert_flat": lambda xp, a, v, z: xp.insert(v, 2, [9.0, 8.0]),
    "insert_rows": lambda xp, a, v, z: xp.insert(a, 2, a[0], axis=0),
    "delete": lambda xp, a, v, z: xp.delete(a, [0, 2], axis=1),
    "delete_slice": lambda xp, a, v, z: xp.delete(a, slice(1, 9, 3)),
    "delete_mask": lambda xp, a, v, z: xp.delete(v, np.array([True, False, True])),
    "block": lambda xp, a, v, z: xp.block([[a[:2, :2], a[:2]], [a[2:, :2], a[2:]]]),
    "block_1d": lambda xp, a, v, z: xp.block([v, v, a[0]]),
    "select": lambda xp, a, v, z: xp.select([a < 3, a > 8], [a, a**2], -1.0),
    "piecewise": lambda xp, a, v, z: xp.piecewise(a, [a < 4, a >= 7], [lambda t: -t, 1.0, lambda t: t * 10]),
    "piecewise_no_default": lambda xp, a, v, z: xp.piecewise(a, [a < 4], [lambda t: t + 1]),
    "choose": lambda xp, a, v, z: xp.choose(np.array([0, 2, 1, 1]), [a, a * 2, a * 3]),
    "choose_wrap": lambda xp, a, v, z: xp.choose(np.array([[0, 4, -1, 1]]), [a, a * 2, a * 3], mode="wrap"),
    "choose_clip": lambda xp, a, v, z: xp.choose(np.array([0, 4, -1, 1]), [a, a * 2, a * 3], mode="clip"),
    "compress": lambda xp, a, v, z: xp.compress([True, False, True], a, axis=0),
    "compress_flat": lambda xp, a, v, z: xp.compress([False, True, True], a),
    "place": lambda xp, a, v, z: np_or_snp(xp, "place")(a, a > 5, [10.0, 20.0]),
    "put": lambda xp, a, v, z: np_or_snp(xp, "put")(a, [0, 5, 11], [-1.0, -2.0, -3.0]),
    "put_cycle": lambda xp, a, v, z: np_or_snp(xp, "put")(a, [1, 2, 3, 4], [7.0, 8.0]),
    "put_wrap": lambda xp, a, v, z: np_or_snp(xp, "put")(a, [13, -1], [7.0, 8.0], mode="wrap"),
    "put_along_axis": lambda xp, a, v, z: np_or_snp(xp, "put_along_axis")(
        a, np.array([[1], [0], [3]]), 99.0, 1
    ),
    "fill_diagonal": lambda xp, a, v, z: np_or_snp(xp, "fill_diagonal")(a, 7.0),
    "fill_diagonal_wrap": lambda xp, a, v, z: np_or_snp(xp, "fill_diagonal")(
        xp.zeros((7, 3)), [1.0, 2.0], wrap=True
    ),
    "fill_diagonal_3d": lambda xp, a, v, z: np_or_snp(xp, "fill_diagonal")(xp.zeros((3, 3, 3)), 4.0),
    "resize": lambda xp, a, v, z: xp.resize(v, (2, 4)),
    "resize_shrink": lambda xp, a, v, z: xp.resize(a, 5),
    "rot90": lambda xp, a, v, z: xp.rot90(a),
    "rot90_k": lambda xp, a, v, z: xp.rot90(a, 3),
    "rot90_2": lambda xp, a, v, z: xp.rot90(a, -2, axes=(1, 0)),
    "rollaxis": lambda xp, a, v, z: xp.rollaxis(xp.zeros((2, 3, 4, 5)), 3, 1),
    "rollaxis_fwd": lambda xp, a, v, z: xp.rollaxis(xp.zeros((2, 3, 4, 5)), 1, 4),
    "unstack": lambda xp, a, v, z: xp.unstack(a, axis=1) if xp is snp else tuple(np.moveaxis(a, 1, 0)),
    "dsplit": lambda xp, a, v, z: xp.dsplit(xp.reshape(a, (1, 3, 4)), [1, 3]),
    "permute_dims": lambda xp, a, v, z: xp.permute_dims(xp.reshape(a, (2, 3, 2)), (2, 0, 1)),
    "concat": lambda xp, a, v, z: xp.concat([a, a], axis=1),
    "matvec": lambda xp, a, v, z: xp.matvec(a.T, v) if xp is snp else a.T @ v,
    "vecmat": lambda xp, a, v, z: xp.vecmat(v, a) if xp is snp else v @ a,
    "astype": lambda xp, a, v, z: xp.astype(a, xp.int32),
    "copy": lambda xp, a, v, z: xp.copy(a),
}

ORDER_CASES = {
    "lexsort": lambda xp, a, v, z: xp.lexsort([xp.round(z * 2), xp.floor(z)]),
    "partition": lambda xp, a, v, z: xp.partition(z, 3)[3],
    "argpartition": lambda xp, a, v, z: z[xp.argpartition(z, 2)[2]],
    "sort_complex": lambda xp, a, v, z: xp.sort_complex(xp.round(z)),
    "unravel_index": lambda xp, a, v, z: xp.unravel_index(np.array([0, 5, 11, 7]), (3, 4)),
    "ravel_multi_index": lambda xp, a, v, z: xp.ravel_multi_index(
        (np.array([0, 2, 1]), np.array([3, 1, 2])), (3, 4)
    ),
    "ravel_multi_index_clip": lambda xp, a, v, z: xp.ravel_multi_index(
        (np.array([0, 5, 1]), np.array([3, 1, 9])), (3, 4), mode="clip"
    ),
    "ravel_multi_index_f": lambda xp, a, v, z: xp.ravel_multi_index(
        (np.array([0, 2]), np.array([3, 1])), (3, 4), mode="wrap", order="F"
    ),
    "bartlett": lambda xp, a, v, z: xp.bartlett(5),
    "blackman": lambda xp, a, v, z: xp.blackman(6),
    "hamming": lambda xp, a, v, z: xp.hamming(7),
    "hanning": lambda xp, a, v, z: xp.hanning(6),
    "hanning_1": lambda xp, a, v, z: xp.hanning(1),
    "kaiser": lambda xp, a, v, z: xp.kaiser(6, 3.0),
    "frombuffer": lambda xp, a, v, z: xp.frombuffer(np.arange(4, dtype=np.float32).tobytes(), xp.float32),
    "fromstring": lambda xp, a, v, z: xp.fromstring("1 2 3.5", xp.float32, sep=" "),
    "fromiter": lambda xp, a, v, z: xp.fromiter((i * i for i in range(4)), xp.int32),
    "from_dlpack": lambda xp, a, v, z: xp.from_dlpack(np.arange(3.0, dtype=np.float32)),
    "apply_along_axis": lambda xp, a, v, z: xp.apply_along_axis(lambda r: r[::-1] * r[0], 1, a),
    "apply_along_axis_0d": lambda xp, a, v, z: xp.apply_along_axis(lambda r: r.sum(), 0, a),
    "apply_over_axes": lambda xp, a, v, z: xp.apply_over_axes(xp.sum, xp.reshape(a, (2, 3, 2)), [0, 2]),
    "vectorize": lambda xp, a, v, z: xp.vectorize(lambda s, t: s * t + 1)(a, v[:1]),
    "vectorize_sig": lambda xp, a, v, z: xp.vectorize(lambda r, s: (r * s).sum(), signature="(n),(n)->()")(
        a, a[0]
    ),
}


def test_grids_against_numpy(run, check_table):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = np.array([1.0, 2.0, 3.0], np.float32)
    check_table(run, GRID_CASES, (a, v, v), rtol=1e-5)


def test_editing_against_numpy(run, check_table):
    a = (np.arange(12, dtype=np.float32).reshape(3, 4) - 4) ** 2
    v = np.array([1.0, -2.0, 3.0], np.float32)
    check_table(run, EDIT_CASES, (a, v, v), rtol=1e-6)


def test_orderings_windows_and_functional_against_numpy(run, check_table):
    a = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5
    z = np.random.default_rng(3).normal(size=7).astype(np.float32) * 3
    fixups = {"trim_zeros": lambda got, want: (got[: want.size], want)}
    with pytest.raises(sg.GraphError, match="size="):
        run(lambda t: snp.trim_zeros(t), z)
    cases = dict(ORDER_CASES)
    cases["trim_zeros"] = lambda xp, a, v, z: (
        xp.trim_zeros(xp.asarray(np.array([0, 0, 1.0, 2, 0, 3, 0], np.float32)), size=5)
        if xp is snp
        else np.trim_zeros(np.array([0, 0, 1.0, 2, 0, 3, 0], np.float32))
    )
    cases["trim_zeros_f"] = lambda xp, a, v, z: (
        xp.trim_zeros(xp.asarray(np.array([0, 0, 1.0, 0], np.float32)), "f", size=2)
        if xp is snp
        else np.trim_zeros(np.array([0, 0, 1.0, 0], np.float32), "f")
    )
    check_table(run, cases, (a, a, z), rtol=2e-6, atol=1e-6, fixups=fixups)


def test_dtype_questions_answer_at_build_time():
    assert snp.isdtype(snp.float32, "real floating") and not snp.isdtype(snp.int8, "real floating")
    assert snp.isdtype(snp.uint8, ("bool", "integral")) and snp.isdtype(snp.complex64, "numeric")
    assert snp.isdtype(np.float64, snp.float64) and not snp.isdtype(snp.float32, snp.float64)
    assert snp.issubdtype(snp.float32, np.floating) and snp.issubdtype(snp.bfloat16, np.floating)
    assert snp.issubdtype(np.int16, np.signedinteger) and not snp.issubdtype(snp.uint8, np.signedinteger)
    assert snp.issubdtype(snp.float32, snp.float32) and not snp.issubdtype(snp.float32, snp.float64)
    for a, b in [(np.int8, np.int32), (np.int32, np.float32), (np.float32, np.float64), (np.int64, np.int8)]:
        assert snp.can_cast(a, b) == np.can_cast(a, b), (a, b)
    assert snp.can_cast(np.float64, np.float32, "same_kind")
    with sg.Graph():
        x = sg.placeholder((2, "n"), sg.float32)
        assert snp.isscalar(x[0, 0]) and not snp.isscalar(x) and snp.isscalar(3.0) and not snp.isscalar([3])
        assert snp.iterable(x) and snp.iterable([1]) and not snp.iterable(3)
        assert snp.ndim(x) == 2 and snp.shape(x)[0] == 2 and snp.size(x, 0) == 2 and snp.ndim([[1, 2]]) == 2
        assert snp.shape(np.zeros((2, 5))) == (2, 5) and snp.size(np.zeros((2, 5))) == 10
    path, report = snp.einsum_path("ij,jk,kl->il", np.zeros((2, 3)), np.zeros((3, 4)), np.zeros((4, 5)))
    assert path == np.einsum_path("ij,jk,kl->il", np.zeros((2, 3)), np.zeros((3, 4)), np.zeros((4, 5)))[0]


def test_tensor_methods_call_sg_numpy(run):
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    got = run(
        lambda t: [
            t.ravel(),
            t.var(axis=0),
            t.std(),
            t.cumsum(axis=1),
            t.clip(-1, 2),
            t.round(),
            t.any(),
            t.all(axis=1),
            t.argsort(axis=0),
            t.take([0, 5]),
            t.repeat(2, axis=0),
            t.swapaxes(0, 1),
            t.copy(),
            t.dot(t.T),
            t.ptp(axis=1),
            t.cumprod(),
        ],  # fmt: skip
        a,
    )
    want = [a.ravel(), a.var(axis=0), a.std(), a.cumsum(axis=1), a.clip(-1, 2), a.round(), a.any(),
            a.all(axis=1), a.argsort(axis=0), a.take([0, 5]), a.repeat(2, axis=0), a.swapaxes(0, 1),
            a.copy(), a.dot(a.T), np.ptp(a, axis=1), a.cumprod()]  # fmt: skip
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=str(k))


def test_vectorize_and_apply_along_axis_through_the_batching_transform(run):
    """One batched computation over a symbolic number of lanes (transforms/numpy_mapping.py maps
    with sg.vectorize)."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    got = run(
        lambda t: [
            snp.apply_along_axis(lambda r: r * r[0], 1, t),
            snp.vectorize(lambda s, u: snp.where(s > u, s, u * 2))(t, t[0]),
            snp.vectorize(lambda r: r.max(), signature="(n)->()")(t),
            snp.apply_along_axis(lambda r: r.sum() * r[0], 1, t),
        ],
        x,
        symbolic={0: ("n", 3)},
    )
    np.testing.assert_allclose(got[3], x.sum(1) * x[:, 0])
    np.testing.assert_allclose(got[0], x * x[:, :1])
    np.testing.assert_allclose(got[1], np.where(x > x[0], x, x[0] * 2))
    np.testing.assert_allclose(got[2], x.max(axis=1))
