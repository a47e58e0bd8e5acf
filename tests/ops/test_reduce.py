"""The reduce primitive, dot_general, constants, iota and dim_size against numpy."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.constants import constant, dim_size, iota
from stablegraph.ops.primitives.dot_general import dot_general
from stablegraph.ops.primitives.reduce import reduce

RNG = np.random.default_rng(2)
REFS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "and": np.all, "or": np.any}


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_reduce_every_kind_and_axes(run, dt):
    x = RNG.integers(-3, 4, size=(2, 3, 4)).astype(dt)
    kinds = ["and", "or", "max", "min"] if dt == np.bool_ else ["sum", "prod", "max", "min"]
    if np.issubdtype(dt, np.integer):
        kinds += ["and", "or"]
    axes_list = [(0,), (1,), (2,), (0, 2), (0, 1, 2)]
    cases = [(k, ax) for k in kinds for ax in axes_list]
    got = run(lambda p: [reduce(p, k, ax) for k, ax in cases], x)
    for (k, ax), g in zip(cases, got):
        if k in ("and", "or") and dt != np.bool_:
            want = (np.bitwise_and if k == "and" else np.bitwise_or).reduce(x, axis=ax)
        else:
            want = REFS[k](x, axis=ax)
        np.testing.assert_allclose(g, want.astype(dt), rtol=1e-6, err_msg=f"{k} {ax}")
        assert g.dtype == dt


def test_reduce_over_a_symbolic_dim(run):
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    got = run(lambda p: [reduce(p, "sum", (0,)), reduce(p, "max", (1,))], x, symbolic={0: ("batch", 3)})
    np.testing.assert_allclose(got[0], x.sum(0), rtol=1e-5)
    np.testing.assert_allclose(got[1], x.max(1))


DOT_CASES = [  # (lhs shape, rhs shape, contracting, batch)
    ((3, 4), (4, 5), ((1,), (0,)), ((), ())),
    ((4,), (4,), ((0,), (0,)), ((), ())),
    ((2, 3, 4), (2, 4, 5), ((2,), (1,)), ((0,), (0,))),
    ((3, 4, 2), (2, 4), ((1, 2), (1, 0)), ((), ())),
    ((3,), (5,), ((), ()), ((), ())),
]


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32])
def test_dot_general_against_einsum(run, dt):
    args = [(RNG.normal(size=s) * 3).astype(dt) for a, b, *_ in DOT_CASES for s in (a, b)]
    got = run(
        lambda *ps: [dot_general(ps[2 * i], ps[2 * i + 1], c, b) for i, (_, _, c, b) in enumerate(DOT_CASES)],
        *args,
    )
    letters = "abcdefgh"
    for i, (a, b, (lc, rc), (lb, rb)) in enumerate(DOT_CASES):
        ls = list(letters[: len(a)])
        rs = list(letters[4 : 4 + len(b)])
        for x, y in zip(lc + lb, rc + rb):
            rs[y] = ls[x]
        out = [ls[d] for d in lb] + [ls[d] for d in range(len(a)) if d not in lc + lb]
        out += [rs[d] for d in range(len(b)) if d not in rc + rb]
        want = np.einsum(f"{''.join(ls)},{''.join(rs)}->{''.join(out)}", args[2 * i], args[2 * i + 1])
        np.testing.assert_allclose(got[i], want.astype(dt), rtol=1e-5)


def test_dot_general_shape_errors():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 4), sg.float32)
        y = sg.placeholder((5, 6), sg.float32)
        with pytest.raises(
            sg.GraphError,
            match="dot_general wants x.shape\\[1\\] == y.shape\\[0\\], got \\(3, 4\\) and \\(5, 6\\)",
        ):
            dot_general(x, y, ((1,), (0,)))
        with pytest.raises(sg.GraphError, match="reduce_sum wants distinct axes"):
            reduce(x, "sum", (0, 0))


def test_constants_iota_and_dim_size(run):
    x = np.zeros((6, 2), np.float32)
    got = run(
        lambda p: [
            iota(sg.int32, (2, 3), 1), iota(sg.float32, 4), dim_size(p, 0), constant(np.array([1, 2], np.uint8)),
            constant(True), constant(np.ones((3, 3), np.float64) * 2),
        ],
        x, symbolic={0: ("n", 2)},
    )  # fmt: skip
    np.testing.assert_array_equal(got[0], np.broadcast_to(np.arange(3), (2, 3)))
    np.testing.assert_array_equal(got[1], np.arange(4, dtype=np.float32))
    assert got[2] == 6 and got[2].dtype == np.int32
    assert got[3].dtype == np.uint8 and got[4].dtype == np.bool_ and got[4]
    assert got[5].dtype == np.float64 and (got[5] == 2).all()
