"""compare, select, clamp and convert against numpy."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.compare import clamp, compare, convert, select

RNG = np.random.default_rng(1)
DIRECTIONS = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
              "GT": np.greater, "GE": np.greater_equal}  # fmt: skip


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8, np.int64])
def test_compare_all_directions(run, dt):
    a = RNG.integers(0, 4, size=(5, 3)).astype(dt)
    b = RNG.integers(0, 4, size=(5, 3)).astype(dt)
    if np.issubdtype(dt, np.floating):
        a[0, 0] = np.nan
    got = run(lambda x, y: {d: compare(x, y, d) for d in DIRECTIONS}, a, b)
    for d, ref in DIRECTIONS.items():
        np.testing.assert_array_equal(got[d], ref(a, b), err_msg=d)


def test_select_and_clamp(run):
    p = RNG.random((4, 3)) < 0.5
    a, b = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    lo, hi = np.float32(-0.5), np.float32(0.5)
    got = run(
        lambda pp, x, y, l_, h_: [select(pp, x, y), clamp(l_, x, h_)],
        p,
        a,
        b,
        lo,
        hi,
    )
    np.testing.assert_array_equal(got[0], np.where(p, a, b))
    np.testing.assert_array_equal(got[1], np.clip(a, lo, hi))


def test_scalar_predicate_select(run):
    a, b = RNG.normal(size=(2, 3)).astype(np.float32)
    got = run(lambda t, x, y: select(t, x, y), np.array(False), a, b)
    np.testing.assert_array_equal(got, b)


CONVERSIONS = [
    (np.float32, np.int32), (np.float64, np.float32), (np.int32, np.float64), (np.float32, np.bool_),
    (np.int32, np.bool_), (np.bool_, np.float32), (np.int64, np.int8), (np.uint8, np.int32),
    (np.float32, np.float16), (np.int32, np.uint32), (np.complex64, np.float32),
]  # fmt: skip


def test_convert_matches_numpy_astype(run):
    data = []
    for src, _ in CONVERSIONS:
        x = RNG.normal(scale=20, size=(6,))
        if src == np.complex64:
            x = x + 1j
        if np.issubdtype(src, np.unsignedinteger):
            x = np.abs(x)
        x = x.astype(src)
        x[0] = 0
        data.append(x)
    got = run(lambda *xs: [convert(x, dst) for x, (_, dst) in zip(xs, CONVERSIONS)], *data)
    for x, (src, dst), g in zip(data, CONVERSIONS, got):
        with np.errstate(all="ignore"):
            want = x.real.astype(dst) if src == np.complex64 else x.astype(dst)
        if src == np.int32 and dst == np.uint32:
            want = x.astype(np.int64).astype(np.uint32)
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g, want, err_msg=f"{src} -> {dst}")


def test_type_errors():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float32)
        i = sg.placeholder((2,), sg.int32)
        with pytest.raises(
            sg.GraphError,
            match="compare wants operands of equal shape and dtype, got f32\\[2\\] and i32\\[2\\]",
        ):
            compare(x, i, "LT")
        with pytest.raises(sg.GraphError, match="select wants a bool predicate, got f32"):
            select(x, x, x)
        with pytest.raises(sg.GraphError, match="clamp wants bounds"):
            clamp(i, x, x)
        with pytest.raises(sg.GraphError, match="bad attributes"):
            compare(x, x, "LESS")


def test_bitcast_convert(run):
    from stablegraph.ops.primitives.compare import bitcast_convert

    f = RNG.normal(size=(3, 4)).astype(np.float32)
    d = RNG.normal(size=(5,))
    h = RNG.integers(0, 2**16, size=(6,)).astype(np.uint16)
    got = run(
        lambda x, y, z: [
            bitcast_convert(x, sg.uint32),
            bitcast_convert(bitcast_convert(x, sg.int32), sg.float32),
            bitcast_convert(y, sg.int64),
            bitcast_convert(z, sg.float16),
        ],
        f,
        d,
        h,
        symbolic={0: ("batch", 4)},
    )
    np.testing.assert_array_equal(got[0], f.view(np.uint32))
    np.testing.assert_array_equal(got[1], f)
    np.testing.assert_array_equal(got[2], d.view(np.int64))
    np.testing.assert_array_equal(got[3].view(np.uint16), h)
    g = sg.Graph()
    with (
        g,
        pytest.raises(sg.GraphError, match=r"test_compare.py:\d+.*bitcast_convert wants .* same bit width"),
    ):
        bitcast_convert(sg.placeholder((2,), sg.float32), sg.float64)
