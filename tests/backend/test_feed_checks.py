"""Feeds that a cast would change are FeedErrors: integers out of range (no wrap-around), finite
floats that overflow, ragged lists; a Session of a non-Graph is a TypeError; a closed Session
refuses restore, get, set, save and initialize as it refuses run."""

import re

import numpy as np
import pytest

import stablegraph as sg


@pytest.fixture(scope="module")
def feeds_graph():
    g = sg.Graph()
    with g:
        i32 = sg.placeholder((3,), sg.int32, name="i32")
        u8 = sg.placeholder((2,), sg.uint8, name="u8")
        f32 = sg.placeholder((2,), sg.float32, name="f32")
        f16 = sg.placeholder((2,), sg.float16, name="f16")
        c64 = sg.placeholder((2,), sg.complex64, name="c64")
        m = sg.placeholder((2, 2), sg.float32, name="m")
        outs = [i32 + 0, u8 + 0, f32 + 0, f16 + 0, c64 + 0, m + 0]
    return g, (i32, u8, f32, f16, c64, m), outs


@pytest.mark.parametrize(
    "name, value, match",
    [
        ("i32", [2**40, 0, 1], r"i32 has int64 values in \[0, 1099511627776\], outside the range of int32"),
        ("i32", np.array([4294967295, 1, 2], np.uint32), r"i32 has uint32 values .*4294967295.*wrap around"),
        ("i32", np.array([-(2**31) - 1, 0, 0], np.int64), r"i32 has int64 values in \[-2147483649, 0\]"),
        (
            "u8",
            np.array([300, 1], np.uint16),
            r"u8 has uint16 values in \[1, 300\], outside the range of uint8",
        ),
        ("f32", [1e300, 1.0], r"f32 has float64 values too large for float32 \(e\.g\. 1e\+300 becomes inf\)"),
        ("f32", np.array([1.0, -1e39]), r"f32 has float64 values too large for float32"),
        ("f16", np.array([70000, 1], np.int32), r"f16 has int32 values too large for float16"),
        ("c64", np.array([1e300 + 0j, 0j]), r"c64 has complex128 values too large for complex64"),
        ("m", [[1.0, 2.0], [3.0]], r"feed for m is not a rectangular array \(.*inhomogeneous.*\)"),
        ("i32", [2**70, 0, 0], r"feed for i32 does not convert to an array of numbers"),
    ],
)
def test_feeds_a_cast_would_change_are_feed_errors(feeds_graph, name, value, match):
    g, _, outs = feeds_graph
    with sg.Session(g) as sess:
        with pytest.raises(sg.FeedError, match=match):
            sess.run(outs, {name: value, **_others(name)})


def _others(skip: str) -> dict:
    """Good feeds for every placeholder but ``skip``."""
    good = {
        "i32": np.zeros(3, np.int32),
        "u8": np.zeros(2, np.uint8),
        "f32": np.zeros(2, np.float32),
        "f16": np.zeros(2, np.float16),
        "c64": np.zeros(2, np.complex64),
        "m": np.zeros((2, 2), np.float32),
    }
    return {k: v for k, v in good.items() if k != skip}


def test_values_that_fit_still_convert_exactly(feeds_graph):
    g, _, outs = feeds_graph
    feeds = {
        "i32": [2**31 - 1, -(2**31), 7],  # the int32 range's ends, from Python ints (int64)
        "u8": np.array([255, 0], np.uint16),  # narrowing, but in range
        "f32": np.array([3.0e38, np.inf]),  # large but finite; inf stays inf
        "f16": np.array([65504.0, np.nan]),
        "c64": np.array([1e30 + 2j, -1j]),
        "m": [[1.0, 2.0], [3.0, 4.0]],
    }
    with sg.Session(g) as sess:
        got = sess.run(outs, feeds)
    want = [
        np.array([2**31 - 1, -(2**31), 7], np.int32),
        np.array([255, 0], np.uint8),
        np.array([3.0e38, np.inf], np.float32),
        np.array([65504.0, np.nan], np.float16),
        np.array([1e30 + 2j, -1j], np.complex64),
        np.array([[1.0, 2.0], [3.0, 4.0]], np.float32),
    ]
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_sess_set_checks_values_the_same_way():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.zeros(2, np.int32), name="v")
    with sg.Session(g) as sess:
        with pytest.raises(
            sg.FeedError, match=r"sess.set value for v has int64 values .* outside the range of int32"
        ):
            sess.set(v, [2**40, 1])
        np.testing.assert_array_equal(sess.get(v), np.zeros(2, np.int32))


@pytest.mark.parametrize("thing", ["not a graph", 3, None])
def test_a_session_of_something_not_a_graph_is_a_type_error(thing):
    with pytest.raises(TypeError, match=f"sg.Session takes a Graph, got {type(thing).__name__}"):
        sg.Session(thing)


def test_a_session_of_a_tensor_is_a_type_error_too():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float32, name="x")
    with pytest.raises(TypeError, match=re.escape("sg.Session takes a Graph, got Tensor")):
        sg.Session(x)


def test_a_closed_session_refuses_restore_and_every_state_call(tmp_path):
    g = sg.Graph()
    with g:
        v = sg.Variable(np.arange(3, dtype=np.float32), name="v")
        y = v * 2
    sess = sg.Session(g)
    path = sess.save(str(tmp_path / "ckpt"))
    sess.close()
    calls = {
        "run": lambda: sess.run(y),
        "restore": lambda: sess.restore(path),
        "get": lambda: sess.get(v),
        "set": lambda: sess.set(v, np.ones(3, np.float32)),
        "save": lambda: sess.save(str(tmp_path / "again")),
        "initialize": lambda: sess.initialize(),
        "lower": lambda: sess.lower(y),
    }
    for name, call in calls.items():
        with pytest.raises(sg.FeedError, match="this Session is closed"):
            call()
        assert not (tmp_path / "again").exists(), name


def test_repeated_runs_check_feeds_as_the_first_run_does():
    # a repeated run hands its feeds to jaxlib's dispatcher unconverted; with jax loaded and its
    # x64 switch off, that dispatcher would take int64/float64 feeds as int32/float32 and cast them
    import jax  # noqa: PLC0415  (loaded here on purpose: the hazard needs it)

    assert not jax.config.jax_enable_x64
    g = sg.Graph()
    with g:
        i32 = sg.placeholder((3,), sg.int32, name="i32")
        f32 = sg.placeholder((2,), sg.float32, name="f32")
        out = {"i": i32 * 2, "f": f32 * 2}
    ints, floats = np.array([1, 2, 3], np.int32), np.array([0.5, 1.5], np.float32)
    with sg.Session(g) as sess:
        for _ in range(3):
            got = sess.run(out, {"i32": ints, "f32": floats})
        np.testing.assert_array_equal(got["i"], ints * 2)
        with pytest.raises(sg.FeedError, match="outside the range of int32"):
            sess.run(out, {"i32": np.array([2**40, 0, 1]), "f32": floats})
        with pytest.raises(sg.FeedError, match="too large for float32"):
            sess.run(out, {"i32": ints, "f32": np.array([1e300, 1.0])})
        with pytest.raises(sg.FeedError, match=r"has shape \(4,\)"):
            sess.run(out, {"i32": np.arange(4, dtype=np.int32), "f32": floats})
        cast = sess.run(out, {"i32": np.array([4, 5, 6], np.int64), "f32": np.array([0.25, 2.0])})
        np.testing.assert_array_equal(cast["i"], [8, 10, 12])
        np.testing.assert_array_equal(cast["f"], np.array([0.5, 4.0], np.float32))
        assert cast["i"].dtype == np.int32 and cast["f"].dtype == np.float32
        again = sess.run(out, {"i32": ints + 1, "f32": floats})
        np.testing.assert_array_equal(again["i"], (ints + 1) * 2)


def test_feed_errors_lead_with_the_line_that_made_the_placeholder():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 3), sg.float32, name="x", sharding=sg.PartitionSpec("data"))  # made here
        y = x * 2
    line = next(i for i, text in enumerate(open(__file__), 1) if text.rstrip().endswith("# made here"))
    where = f"test_feed_checks.py:{line}: feed for x"
    bad = {
        "has shape (2, 4), expected (n, 3)": np.ones((2, 4), np.float32),
        "has dtype complex64, which does not cast": np.ones((2, 3), np.complex64),
        "is not a rectangular array": [[1.0, 2.0, 3.0], [1.0]],
    }
    with sg.Session(g) as sess:
        for message, value in bad.items():
            with pytest.raises(sg.FeedError, match=re.escape(f"{where} {message}")):
                sess.run(y, {x: value})
    with sg.Session(g, mesh=sg.make_mesh((4,), ("data",))) as sess:
        with pytest.raises(
            sg.FeedError, match=re.escape(f"{where} has shape (6, 3): dim 0 (6) does not split")
        ):
            sess.run(y, {x: np.ones((6, 3), np.float32)})


def test_repeated_runs_with_python_scalars_convert_and_check_each_value():
    g = sg.Graph()
    with g:
        scale = sg.placeholder((), sg.float32, name="scale")
        step = sg.placeholder((), sg.int8, name="step")
        half = sg.placeholder((), sg.float16, name="half")
        x = sg.placeholder((3,), sg.float32, name="x")
        out = [scale * x, step * 2, half]
    xs = np.array([1.0, 2.0, 3.0], np.float32)
    with sg.Session(g) as sess:
        for k, (s, i, h) in enumerate(
            [(0.5, 3, 1.5), (2.0, -64, 65504.0), (True, 1, 65519.0), (3, 2, np.inf)]
        ):
            got = sess.run(out, {scale: s, step: i, half: h, x: xs})
            np.testing.assert_array_equal(got[0], np.float32(s) * xs, err_msg=str(k))
            assert got[1] == np.int8(i * 2) and got[1].dtype == np.int8  # -64 * 2 wraps in int8, as numpy
            assert got[2] == np.float16(h) and got[2].dtype == np.float16
        assert sess.stats.compiles == 1
        for bad, match in [
            ({step: 128}, "outside the range of int8"),
            ({step: 2**70}, "does not convert to an array of numbers"),
            ({step: 1.5}, "has dtype float64, which does not cast to int8"),
            ({half: 70000.0}, "too large for float16"),
            ({scale: 1e39}, "too large for float32"),
            ({scale: 1j}, "has dtype complex128, which does not cast to float32"),
        ]:
            with pytest.raises(sg.FeedError, match=match):
                sess.run(out, {scale: 1.0, step: 1, half: 1.0, x: xs, **bad})
