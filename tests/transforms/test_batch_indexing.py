"""Batch rules of gather and scatter: vectorize equals a loop over lanes, with the operand, the
indices or the updates batched (at any axis) or not; numpy indexing and its gradients under vmap."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.ops.primitives import constants
from stablegraph.ops.primitives.indexing import add_along_axis, gather, scatter
from stablegraph.test_util import check_vectorize

RNG = np.random.default_rng(0)
X3 = RNG.normal(size=(4, 5, 2)).astype(np.float32)
IDX = np.array([[0, 4, 1, 2], [3, 0, 2, 1]], np.int32)  # lanes draw ints in [0, 4]: some clamp


def test_gather_batches_like_a_loop():
    # gather: implicit index vector dim with window dims around the batch dims, an explicit
    # index_vector_dim 0 with a window, and operand/indices batching dims (take_along_axis style)
    def fn(x, i):
        return (
            gather(x, i, offset_dims=(0, 3), collapsed_slice_dims=(1,), start_index_map=(1,),
                   index_vector_dim=2, slice_sizes=(4, 1, 2)),
            gather(x, i, offset_dims=(0, 2), collapsed_slice_dims=(2,), start_index_map=(0, 2),
                   index_vector_dim=0, slice_sizes=(2, 5, 1)),
            gather(x, i, offset_dims=(2,), collapsed_slice_dims=(1,), operand_batching_dims=(0,),
                   start_indices_batching_dims=(1,), start_index_map=(1,), index_vector_dim=2,
                   slice_sizes=(1, 1, 2)),
        )  # fmt: skip

    check_vectorize(fn, [X3, IDX])


def test_scatter_batches_like_a_loop():
    # scatter of windows with update window dims on both sides of the scatter dim (skipped where they
    # do not fit): unbatched operands broadcast, batch axes moved only where the dims need it. The
    # rule does not look at the kind (add, set, mul, min, max); each scatter costs ~20 ms of compile.
    x = RNG.normal(size=(4, 5)).astype(np.float32)
    u = RNG.normal(size=(4, 2, 2)).astype(np.float32)

    def fn(x, i, u):
        return scatter(x, i, u, update_window_dims=(0, 2), inserted_window_dims=(),
                       scattered_dims_to_operand_dims=(1,), index_vector_dim=1, kind="add")  # fmt: skip

    check_vectorize(fn, [x, np.array([0, 4], np.int32), u], atol=1e-5, rtol=1e-5)


def test_scatter_with_batching_dims_batches_like_a_loop():
    # scatter with operand and index batching dims (add_along_axis)
    x = RNG.normal(size=(4, 5)).astype(np.float32)
    upd = RNG.normal(size=(4, 2)).astype(np.float32)
    check_vectorize(lambda x, i, u: add_along_axis(x, i, u, 1), [x, IDX.T.copy(), upd], atol=1e-5, rtol=1e-5)


def test_numpy_indexing_under_vmap_matches_numpy():
    # snp.take, x[idx], x[:, idx], x.at[idx].add(v) under sg.vmap, batched and unbatched operands (gathers
    # and scatters with a trailing index vector dim)
    xs = RNG.normal(size=(3, 4, 5)).astype(np.float32)
    idx = np.array([[2, 0, 3], [1, 1, 0], [3, 2, 2]], np.int32)
    vs = RNG.normal(size=(3, 3, 5)).astype(np.float32)
    g = sg.Graph("vmap_indexing")
    with g:
        x, i, v = constants.constant(xs), constants.constant(idx), constants.constant(vs)
        outs = [
            sg.vmap(lambda a, j: snp.take(a, j, axis=1))(x, i),
            sg.vmap(lambda a, j: a[j], in_axes=(None, 0))(x[0], i),
            sg.vmap(lambda a, j: a[:, j], in_axes=(2, None))(x, i[0]),
            sg.vmap(lambda a, j, w: a.at[j].add(w))(x, i, vs),
            sg.vmap(lambda a, j, w: a.at[j].add(w), in_axes=(None, 0, 0))(x[0], i, v),
        ]
    got = sg.Session(g).run(outs)
    want = [
        np.stack([np.take(a, j, axis=1) for a, j in zip(xs, idx)]),
        np.stack([xs[0][j] for j in idx]),
        np.stack([xs[:, :, k][:, idx[0]] for k in range(5)]),
        np.stack([_add_at(a, j, w) for a, j, w in zip(xs, idx, vs)]),
        np.stack([_add_at(xs[0], j, w) for j, w in zip(idx, vs)]),
    ]
    for g_, w_ in zip(got, want):
        np.testing.assert_allclose(g_, w_, rtol=1e-6, atol=1e-6)


def test_gather_and_scatter_gradients_under_vmap_match_numpy():
    # per-example gradients through gather (fancy indexing) and scatter (x.at[i].add): vmap(grad(f))
    xs = RNG.normal(size=(3, 4)).astype(np.float32)
    idx = np.array([[0, 2, 2], [3, 3, 1], [1, 0, 0]], np.int32)
    ws = RNG.normal(size=(3, 3)).astype(np.float32)

    def loss(x, i, w):
        y = x.at[i].add(w * x[i])
        return snp.sum(y * y)

    g = sg.Graph("vmap_grad")
    with g:
        grads = sg.vmap(sg.grad(loss, argnums=(0, 2)))(*map(constants.constant, (xs, idx, ws)))
    got = sg.Session(g).run(list(grads))
    for k in range(3):
        x, i, w = xs[k], idx[k], ws[k]
        y = _add_at(x, i, w * x[i])
        gx = 2 * y
        np.add.at(gx, i, 2 * y[i] * w)  # through x[i] inside the update
        np.testing.assert_allclose(got[0][k], gx, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got[1][k], 2 * y[i] * x[i], rtol=1e-5, atol=1e-5)


def _add_at(a, j, w):
    out = a.copy()
    np.add.at(out, j, w)
    return out
