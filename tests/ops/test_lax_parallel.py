"""sg.lax's remaining collectives inside sg.spmd (ops/lax_parallel.py) on 4 CPU devices, against
a numpy model of the devices (jax 0.10.2's CPU runs neither pbroadcast nor ragged_all_to_all):
axis_size, pbroadcast, pshuffle, pswapaxes, pcast(to="varying") and its out_specs check,
ragged_all_to_all with uneven, empty and overlapping-free ranges; gradients through pbroadcast."""

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.lax as slax
import stablegraph.numpy as snp
from stablegraph.test_util import line_of

P = sg.PartitionSpec
R = np.random.default_rng(26)
HERE = __file__


@pytest.fixture(scope="module")
def mesh():
    return sg.make_mesh((4,), ("x",))


# ragged_all_to_all's plan, from every sender's view: sends[i][j] = (input offset, size, output offset)
SENDS = [[(0, 1, 0), (1, 2, 0), (3, 0, 0), (3, 1, 0)],
         [(0, 0, 1), (0, 1, 2), (1, 3, 0), (4, 0, 1)],
         [(0, 2, 1), (2, 0, 3), (2, 0, 3), (2, 2, 1)],
         [(0, 1, 3), (1, 1, 3), (2, 2, 3), (4, 0, 3)]]  # fmt: skip


def _ragged_model(blocks, init):
    """Device j's output: init, with each sender i's rows written where i says."""
    outs = [b.copy() for b in init]
    for i, row in enumerate(SENDS):
        for j, (start, size, dest) in enumerate(row):
            outs[j][dest : dest + size] = blocks[i][start : start + size]
    return outs


def test_collectives_match_a_numpy_model_of_the_devices(mesh):
    X = R.normal(size=(16, 3)).astype(np.float32)
    init = np.full((24, 3), -7.0, np.float32)
    plan = np.array(SENDS, np.int32)  # (sender, receiver, 3)
    recv = np.ascontiguousarray(plan[:, :, 1].T)  # what each device receives from each sender

    def body(a, out0, numbers, received):
        n = slax.axis_size("x")
        offsets, sizes, dests = (numbers[0, :, k] for k in range(3))
        return (
            slax.pbroadcast(a, "x", 2), slax.pbroadcast(a > 0, "x", 1), slax.pshuffle(a, "x", [3, 0, 1, 2]),
            slax.pswapaxes(a, "x", 0), snp.reshape(n * sg.axis_index("x"), (1,)),
            slax.ragged_all_to_all(a, out0, offsets, sizes, dests, received[0], axis_name="x"),
        )  # fmt: skip

    g = sg.Graph()
    with g:
        x = sg.placeholder((16, 3), sg.float32)
        out0 = sg.placeholder((24, 3), sg.float32)
        numbers = sg.placeholder((4, 4, 3), sg.int32)
        received = sg.placeholder((4, 4), sg.int32)
        got_t = sg.spmd(body, mesh, in_specs=(P("x"), P("x"), P("x"), P("x")), out_specs=P("x"))(
            x, out0, numbers, received
        )
        loss = snp.sum(
            snp.sin(sg.spmd(lambda a: slax.pbroadcast(a, "x", 2), mesh, in_specs=P("x"), out_specs=P("x"))(x))
        )
        grad = sg.gradients(loss, [x])[0]
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run([got_t, grad], {x: X, out0: init, numbers: plan, received: recv})
    b = np.split(X, 4)
    bcast, bools, shuffled, swapped, sizes, ragged = got[0]
    np.testing.assert_array_equal(bcast, np.concatenate([b[2]] * 4))
    np.testing.assert_array_equal(bools, np.concatenate([b[1] > 0] * 4))
    np.testing.assert_array_equal(shuffled, np.concatenate([b[3], b[0], b[1], b[2]]))
    np.testing.assert_array_equal(
        swapped, np.concatenate([np.stack([b[j][i] for j in range(4)]) for i in range(4)])
    )
    np.testing.assert_array_equal(sizes, [0, 4, 8, 12])
    np.testing.assert_array_equal(ragged, np.concatenate(_ragged_model(b, np.split(init, 4))))
    # every device's copy of block 2 reads it: its cotangents add up there (4 cos), nothing elsewhere
    want = np.zeros_like(X)
    want[8:12] = 4 * np.cos(b[2])
    np.testing.assert_allclose(got[1], want, rtol=1e-6)


def test_pcast_marks_values_varying_and_bad_arguments_are_errors_at_the_line(mesh):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 2), sg.float32)
        varying = sg.spmd(
            lambda a: slax.pcast(a, "x", to="varying") * 2, mesh, in_specs=P(), out_specs=P("x")
        )(x)
        assert "pvary" in str(g)
        with pytest.raises(sg.GraphError, match="varies along") as e:
            region = sg.spmd(lambda a: slax.pcast(a, "x", to="varying"), mesh, in_specs=P(), out_specs=P())
            region(x)  # replicated?
        assert f"test_lax_parallel.py:{line_of(HERE, '# replicated?')}" in str(e.value)
        for call, message in [
            (lambda a: slax.pcast(a, "x", to="reduced"), "no reduced/unreduced"),
            (lambda a: slax.pshuffle(a, "x", [0, 0, 1, 2]), "permutation"),
            (lambda a: slax.pbroadcast(a, "x", 4), "not a position"),
            (lambda a: slax.pswapaxes(a, "x", 0, axis_index_groups=[[0, 1], [2, 3]]), "axis_index_groups"),
        ]:
            with pytest.raises(sg.GraphError, match=message):
                sg.spmd(call, mesh, in_specs=P(), out_specs=P("x"))(x)
    with sg.Session(g, mesh=mesh) as sess:
        X = R.normal(size=(4, 2)).astype(np.float32)
        np.testing.assert_array_equal(sess.run(varying, {x: X}), np.concatenate([2 * X] * 4))
