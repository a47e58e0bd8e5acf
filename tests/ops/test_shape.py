"""broadcast_in_dim, reshape and transpose primitives against numpy, symbolic dims included."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.shape import broadcast_in_dim, reshape, transpose

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.bool_])
def test_shape_primitives_against_numpy(run, dt):
    x = (
        (RNG.normal(size=(2, 1, 3)) > 0).astype(dt)
        if dt == np.bool_
        else (RNG.normal(size=(2, 1, 3)) * 5).astype(dt)
    )
    got = run(
        lambda p: [
            broadcast_in_dim(p, (2, 4, 3), (0, 1, 2)),
            broadcast_in_dim(p, (5, 2, 1, 3), (1, 2, 3)),
            broadcast_in_dim(reshape(p, (6,)), (4, 6), (1,)),
            reshape(p, (3, 2)),
            reshape(p, (6,)),
            transpose(p, (2, 0, 1)),
            transpose(p, (1, 2, 0)),
        ],
        x,
    )
    want = [
        np.broadcast_to(x, (2, 4, 3)), np.broadcast_to(x, (5, 2, 1, 3)), np.broadcast_to(x.reshape(6), (4, 6)),
        x.reshape(3, 2), x.reshape(6), x.transpose(2, 0, 1), x.transpose(1, 2, 0),
    ]  # fmt: skip
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_symbolic_shapes(run):
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    got = run(
        lambda p: [reshape(p, ("3*batch",)), transpose(p, (1, 0)), broadcast_in_dim(p, (2, "batch", 3), (1, 2))],
        x, symbolic={0: ("batch", 3)},
    )  # fmt: skip
    np.testing.assert_array_equal(got[0], x.reshape(-1))
    np.testing.assert_array_equal(got[1], x.T)
    np.testing.assert_array_equal(got[2], np.broadcast_to(x, (2, 4, 3)))


def test_shape_errors():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32)
        with pytest.raises(sg.GraphError, match="reshape cannot turn f32\\[batch,3\\] into \\(4, 3\\)"):
            reshape(x, (4, 3))
        with pytest.raises(sg.GraphError, match="transpose wants a permutation"):
            transpose(x, (0, 0))
        with pytest.raises(sg.GraphError, match="broadcast_in_dim cannot broadcast"):
            broadcast_in_dim(x, (4, 3), (0, 1))
