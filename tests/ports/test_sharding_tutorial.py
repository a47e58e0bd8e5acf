"""JAX's sharding tutorials (shard_map), ported as JAX users write them: a data-parallel training
step whose per-device body takes nested params and returns ``pmean((loss, grads), "data")``, a psum
over a dict of gradients, ``psum(1, axis)`` for the axis size, ``grad`` of a shard_mapped loss, the
tensor-parallel matmuls (psum, psum_scatter, all_gather), and the out_specs check: ``P()`` on a value
that differs between devices is an error. Batches are TF1's ``None`` dims. jax on one device (the same
math without a mesh) and numpy are the oracles."""

from __future__ import annotations

import pathlib
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

P = sg.PartitionSpec
FILE = pathlib.Path(__file__).name
R = np.random.default_rng(0)
SIZES = [6, 8, 3]


def predict(np_, params, inputs):
    for W, b in params[:-1]:
        inputs = np_.tanh(inputs @ W + b)
    W, b = params[-1]
    return inputs @ W + b


def loss_fn(np_, params, batch):
    inputs, targets = batch
    return np_.mean(np_.sum((predict(np_, params, inputs) - targets) ** 2, axis=-1))


def init_params():
    return [
        (R.normal(size=(m, n)).astype(np.float32) / np.sqrt(m), R.normal(size=n).astype(np.float32) * 0.1)
        for m, n in zip(SIZES[:-1], SIZES[1:])
    ]


def test_data_parallel_training_step_matches_jax():
    mesh = sg.make_mesh((4,), ("data",))
    params0 = init_params()
    X, Y = R.normal(size=(16, 6)).astype(np.float32), R.normal(size=(16, 3)).astype(np.float32)
    g = sg.Graph()
    with g:
        params = [
            (sg.placeholder(sg.float32, W.shape), sg.placeholder(sg.float32, b.shape)) for W, b in params0
        ]
        x = sg.placeholder(sg.float32, shape=[None, 6], name="x")
        y = sg.placeholder(sg.float32, shape=[None, 3], name="y")

        @partial(sg.spmd, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
        def train_step(params, batch):
            loss, grads = sg.value_and_grad(partial(loss_fn, snp))(params, batch)
            return sg.pmean((loss, grads), "data")

        loss, grads = train_step(params, (x, y))

        @partial(sg.spmd, mesh=mesh, in_specs=(P(), P("data")), out_specs=(P(), P()))
        def summed(params, batch):
            grads = sg.grad(partial(loss_fn, snp))(params, batch)
            return sg.psum({"W0": grads[0][0], "b1": grads[1][1]}, "data"), sg.psum(1, "data")

        total, devices = summed(params, (x, y))

        @partial(sg.spmd, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
        def loss_dp(params, batch):
            return sg.pmean(loss_fn(snp, params, batch), "data")

        dp_grads = sg.grad(loss_dp)(params, (x, y))
        # a per-example result keeps its batch dim: it meets the inputs' again outside the region
        scaled = sg.spmd(lambda a: a * 2.0, mesh, in_specs=P("data"), out_specs=P("data"))(x)
        region_line = sys._getframe().f_lineno - 1
        residual = scaled - x
        assert residual.shape == x.shape
        with pytest.raises(sg.GraphError) as info:  # one device's loss promised the same everywhere
            sg.spmd(partial(loss_fn, snp), mesh, in_specs=(P(), P("data")), out_specs=P())(params, (x, y))
        line = sys._getframe().f_lineno - 1
    assert f"{FILE}:{line}" in str(info.value) and "varies along" in str(info.value)

    feed_dict = {x: X, y: Y}
    for (W, b), (W0, b0) in zip(params, params0):
        feed_dict.update({W: W0, b: b0})
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run(
            {"loss": loss, "grads": grads, "total": total, "n": devices, "dp": dp_grads, "res": residual},
            feed_dict=feed_dict,
        )
        with pytest.raises(sg.StablegraphError, match="split evenly") as uneven:
            sess.run(residual, {x: X[:6]})
    assert f"{FILE}:{region_line}" in str(uneven.value)
    want_loss, want_grads = jax.value_and_grad(partial(loss_fn, jnp))(params0, (X, Y))
    np.testing.assert_allclose(got["loss"], want_loss, rtol=1e-5)
    assert isinstance(got["grads"], list) and isinstance(got["grads"][0], tuple)
    for mine, theirs in ((got["grads"], want_grads), (got["dp"], want_grads)):
        for a, b in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs)):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    # the local losses average the local batches: summing their gradients gives 4 times the mean's
    np.testing.assert_allclose(got["total"]["W0"], 4 * want_grads[0][0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got["total"]["b1"], 4 * want_grads[1][1], rtol=1e-4, atol=1e-6)
    assert got["n"] == 4
    np.testing.assert_allclose(got["res"], X, rtol=1e-6)


def test_tensor_parallel_matmuls_match_numpy():
    mesh = sg.make_mesh((2, 2), ("x", "y"))
    A, B = R.normal(size=(8, 16)).astype(np.float32), R.normal(size=(16, 4)).astype(np.float32)
    g = sg.Graph()
    with g:
        a, b = sg.placeholder(sg.float32, A.shape, "a"), sg.placeholder(sg.float32, B.shape, "b")

        @partial(sg.spmd, mesh=mesh, in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None))
        def matmul_basic(a_block, b_block):
            c_partialsum = snp.dot(a_block, b_block)
            return sg.psum(c_partialsum, "y")

        @partial(sg.spmd, mesh=mesh, in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", "y"))
        def matmul_psumscatter(a_block, b_block):
            c_partialsum = snp.matmul(a_block, b_block)
            return sg.psum_scatter(c_partialsum, "y", scatter_dimension=1, tiled=True)

        @partial(sg.spmd, mesh=mesh, in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None))
        def matmul_allgather(a_block, b_block):
            a_full = sg.all_gather(a_block, "y", axis=1, tiled=True)
            b_full = sg.all_gather(b_block, "y", axis=0, tiled=True)
            return a_full @ b_full

        products = [matmul_basic(a, b), matmul_psumscatter(a, b), matmul_allgather(a, b)]
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run(products, feed_dict={a: A, b: B})
    for c in got:
        np.testing.assert_allclose(c, A @ B, rtol=1e-5, atol=1e-5)
