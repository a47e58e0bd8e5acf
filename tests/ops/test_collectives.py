"""Per-device regions and collectives on 4 CPU devices, against a numpy model of the devices.

The model: a 2 x 2 mesh ("x", "y"); the device at (i, j) holds block (i, j) of a
tensor split as P("x", "y"); each collective is computed block by block in numpy.
All cases run in one region, one program.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

P = sg.PartitionSpec
R = np.random.default_rng(0)


@pytest.fixture(scope="module")
def mesh():
    return sg.make_mesh((2, 2), ("x", "y"))


def blocks(x):
    """x split as P("x", "y"): blocks[i][j] is device (i, j)'s shard."""
    return [np.split(half, 2, axis=1) for half in np.split(x, 2, axis=0)]


def test_collectives_match_a_numpy_model_of_the_devices(mesh):
    X = R.normal(size=(8, 8)).astype(np.float32)

    def body(a):
        return (
            sg.psum(a, "x"),
            sg.pmean(a, ("x", "y")),
            sg.pmax(a, "y"),
            sg.pmin(a, "x"),
            sg.all_gather(a, "x", tiled=True),
            sg.all_gather(a, "y", axis=1),
            sg.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
            sg.ppermute(a, "x", [(0, 1), (1, 0)]),
            sg.ppermute(a, "y", [(0, 1)]),
            sg.all_to_all(a, "y", 0, 1, tiled=True),
            snp.reshape(sg.axis_index(("x", "y")), (1,)),
            snp.reshape(sg.axis_index("y"), (1,)),
        )

    outs = (P(None, "y"), P(), P("x"), P(None, "y"), P(None, "y"), P("x"), P("x", "y"), P("x", "y"),
            P("x", "y"), P("x", "y"), P(("x", "y")), P(("x", "y")))  # fmt: skip
    g = sg.Graph()
    with g:
        x = sg.placeholder((8, 8), sg.float32, name="x")
        got = sg.spmd(body, mesh, in_specs=P("x", "y"), out_specs=outs)(x)
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run(list(got), {x: X})

    b = blocks(X)
    dev = [(i, j) for i in range(2) for j in range(2)]
    np.testing.assert_allclose(got[0], np.concatenate([b[0][j] + b[1][j] for j in range(2)], 1), rtol=1e-6)
    np.testing.assert_allclose(got[1], sum(b[i][j] for i, j in dev) / 4, rtol=1e-5)
    np.testing.assert_allclose(got[2], np.concatenate([np.maximum(b[i][0], b[i][1]) for i in range(2)], 0))
    np.testing.assert_allclose(got[3], np.concatenate([np.minimum(b[0][j], b[1][j]) for j in range(2)], 1))
    np.testing.assert_allclose(got[4], X)
    # all_gather over y stacked at axis 1: device (i, j) holds (4, 2, 4) = [b[i][0], b[i][1]] along axis 1
    np.testing.assert_allclose(got[5], np.concatenate([np.stack([b[i][0], b[i][1]], 1) for i in range(2)], 0))
    # psum_scatter over y along dim 1: device (i, j) keeps columns j of the sum over y of its row of blocks
    summed = [b[i][0] + b[i][1] for i in range(2)]
    want = np.block([[np.split(summed[i], 2, axis=1)[j] for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(got[6], want, rtol=1e-6)
    np.testing.assert_allclose(got[7], np.block([[b[1][0], b[1][1]], [b[0][0], b[0][1]]]))
    zeros = np.zeros_like(b[0][0])
    np.testing.assert_allclose(got[8], np.block([[zeros, b[0][0]], [zeros, b[1][0]]]))
    # all_to_all over y, split rows, join columns: device (i, j) gets rows j of each y-neighbour's block
    a2a = [[np.concatenate([np.split(b[i][k], 2, axis=0)[j] for k in range(2)], 1) for j in range(2)]
           for i in range(2)]  # fmt: skip
    np.testing.assert_allclose(got[9], np.block(a2a))
    np.testing.assert_array_equal(got[10], [0, 1, 2, 3])
    np.testing.assert_array_equal(got[11], [0, 1, 0, 1])


def test_untiled_all_gather_and_all_to_all(mesh):
    X = R.normal(size=(4, 6)).astype(np.float32)

    def body(a):  # a: (2, 6) on each x position
        stacked = sg.all_gather(a, "x")  # (2, 2, 6): [x0's rows, x1's rows]
        swapped = sg.all_to_all(a, "x", 0, 0)  # row r of every device -> device r, stacked
        return stacked, swapped

    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 6), sg.float32, name="x")
        stacked, swapped = sg.spmd(body, mesh, in_specs=P("x"), out_specs=(P(), P("x")))(x)
    with sg.Session(g, mesh=mesh) as sess:
        stacked, swapped = sess.run([stacked, swapped], {x: X})
    np.testing.assert_allclose(stacked, X.reshape(2, 2, 6))
    parts = X.reshape(2, 2, 6)  # [device, row, :]
    np.testing.assert_allclose(swapped, np.concatenate([parts[:, r] for r in range(2)], 0))


def test_collectives_outside_a_region_and_bad_specs_are_errors(mesh):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 6), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="outside sg.spmd"):
            sg.psum(x, "x")
        with pytest.raises(sg.GraphError, match="not axes of the mesh"):
            sg.spmd(lambda a: a, mesh, in_specs=P("data"), out_specs=P())(x)
        with pytest.raises(sg.GraphError, match="does not split evenly"):
            sg.spmd(lambda a: a, mesh, in_specs=P(None, ("x", "y")), out_specs=P())(snp.zeros((4, 6)))
        with pytest.raises(sg.GraphError, match="the mesh's axes"):
            sg.spmd(lambda a: sg.psum(a, "z"), mesh, in_specs=P("x"), out_specs=P())(x)
