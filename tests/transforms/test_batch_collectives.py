"""Grad and vectorize through per-device regions (spmd) and their collectives, on 4 CPU devices.

check_vectorize and check_grads run their Sessions on the region's mesh.
Batch rules: spmd, all_reduce (psum/pmax/pmin), all_gather, psum_scatter,
ppermute, all_to_all; vjp rules the same, checked by finite differences and
against the same computation written without devices (in jax).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import check_grads, check_vectorize

P = sg.PartitionSpec
R = np.random.default_rng(0)


@pytest.fixture(scope="module")
def mesh():
    return sg.make_mesh((2, 2), ("x", "y"))


def _every_collective(mesh):
    def body(a, w):
        h = snp.tanh(a @ w)  # (2, 3) per device: a split over x and y, w replicated
        s = sg.psum(h, "x") * sg.pmax(h, "y") - sg.pmin(h, ("x", "y"))
        g = sg.all_gather(h * h, "x", tiled=True)  # (4, 3)
        sc = sg.psum_scatter(g, "y", scatter_dimension=0, tiled=True)  # (2, 3)
        pp = sg.ppermute(sc, "x", [(0, 1), (1, 0)])
        a2a = sg.all_to_all(snp.concatenate([pp, s], 0), "y", 0, 1, tiled=True)  # (2, 6)
        return a2a + snp.sin(sg.pmean(a2a, "y"))

    return sg.spmd(body, mesh, in_specs=(P("x", "y"), P()), out_specs=P("x", "y"))


def test_spmd_and_collectives_vectorize(mesh):
    region = _every_collective(mesh)
    check_vectorize(
        region, [R.normal(size=(4, 6)), R.normal(size=(3, 3))], size=2, atol=1e-5, rtol=1e-5, mesh=mesh
    )


def test_spmd_grads_by_finite_differences(mesh):
    region = _every_collective(mesh)
    check_grads(lambda a, w: region(a, w), [R.normal(size=(4, 6)), R.normal(size=(3, 3))], order=1, mesh=mesh)


def test_grad_through_spmd_equals_the_computation_on_one_device(mesh, jax_x64):
    import jax
    import jax.numpy as jnp

    X, W = R.normal(size=(8, 5)), R.normal(size=(5, 3))

    def loss_sg(x, w):  # data parallel: each device its rows, the total summed across devices
        per_device = lambda a, w: sg.psum(snp.sum(snp.tanh(a @ w) ** 2), ("x", "y"))  # noqa: E731
        return sg.spmd(per_device, mesh, in_specs=(P(("x", "y")), P()), out_specs=P())(x, w)

    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float64, name="x")
        w = sg.placeholder(W.shape, sg.float64, name="w")
        value = loss_sg(x, w)
        grads = sg.grad(loss_sg, argnums=(0, 1))(x, w)
        per_lane = sg.vmap(loss_sg, in_axes=(None, 0))(x, snp.stack([w, 2 * w]))
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run([value, grads, per_lane], {x: X, w: W})

    def loss_jax(x, w):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    np.testing.assert_allclose(got[0], loss_jax(X, W), rtol=1e-12)
    for a, b in zip(got[1], jax.grad(loss_jax, argnums=(0, 1))(X, W)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(got[2], [loss_jax(X, W), loss_jax(X, 2 * W)], rtol=1e-12)
