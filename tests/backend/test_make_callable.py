"""sess.make_callable (TF1's name): a function of the feeds in feed_list order that gives what
sess.run gives (numpy as the oracle), trains through variables, follows shape changes, and
refuses a wrong number of values, unknown names and a closed Session."""

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.test_util import line_of


def test_a_callable_step_equals_run():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n",), sg.float32, name="x")
        y = sg.placeholder(("n",), sg.float32, name="y")
        w = sg.Variable(np.float32(0.0), name="w")
        z = snp.sin(x) * y
        total = sg.assign_add(w, z.sum())
    a = np.linspace(-1, 1, 5).astype(np.float32)
    b = np.arange(5, dtype=np.float32)
    with sg.Session(g) as sess:
        f = sess.make_callable({"z": z}, [x, "y"])
        for _ in range(3):
            np.testing.assert_allclose(f(a, b)["z"], np.sin(a) * b, rtol=1e-6)
        np.testing.assert_allclose(f(a[:3], b[:3])["z"], np.sin(a[:3]) * b[:3], rtol=1e-6)  # a new shape
        np.testing.assert_allclose(
            f(a.astype(np.float64), b)["z"], np.sin(a) * b, rtol=1e-6
        )  # cast as run does
        step = sess.make_callable([z, total], [x, y])
        for _ in range(4):
            got_z, _ = step(a, b)
        np.testing.assert_allclose(sess.get(w), 4 * (np.sin(a) * b).sum(), rtol=1e-5)
        with pytest.raises(sg.FeedError, match=r"takes 2 feed values \(x, y\), got 1"):
            step(a)
        with pytest.raises(sg.FeedError):
            sess.make_callable(z, ["nope"])
    with pytest.raises(sg.FeedError, match="closed"):
        f(a, b)


def test_a_lean_step_gives_what_numpy_gives_and_sends_other_feeds_to_the_checked_path():
    import jax  # test-only: jax loaded, its x64 flag off: a 64-bit feed must still not be cast silently

    assert not jax.config.jax_enable_x64
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x")
        y = sg.placeholder((4,), sg.float32, name="y")
        n = sg.placeholder((2,), sg.int32, name="n")
        z = x * y
        k = n + 1
    rng = np.random.default_rng(0)
    with sg.Session(g) as sess:
        step = sess.make_callable((z, k), [x, y, n])
        by_name = sess.make_callable({"z": z, "k": k}, ["x", "y", "n"])
        one = sess.make_callable(z, [x, y])
        a, b = rng.normal(size=(2, 4)).astype(np.float32)
        ints = np.array([-(2**31), 2**31 - 2], np.int32)  # the range's ends
        step(a, b, ints), by_name(a, b, ints), one(a, b)
        assert all(f.state.lean is not None for f in (step, by_name, one))  # lean from here
        runs, compiles = sess.stats.runs, sess.stats.compiles
        for _ in range(5):  # random points, each form of fetches
            a, b = rng.normal(size=(2, 4)).astype(np.float32)
            ints = rng.integers(-1000, 1000, size=2).astype(np.int32)
            got_z, got_k = step(a, b, ints)
            assert type(got_z) is np.ndarray and got_z.dtype == np.float32 and got_k.dtype == np.int32
            np.testing.assert_array_equal(got_z, a * b)
            np.testing.assert_array_equal(got_k, ints + 1)
            named = by_name(a, b, ints)
            assert sorted(named) == ["k", "z"]
            np.testing.assert_array_equal(named["z"], a * b)
            np.testing.assert_array_equal(one(a, b), a * b)
        edge_a = np.array([0.0, -0.0, np.inf, np.nan], np.float32)
        edge_b = np.array([-0.0, 1.0, -1.0, 2.0], np.float32)
        got = one(edge_a, edge_b)
        np.testing.assert_array_equal(got, edge_a * edge_b)  # nan where numpy has nan
        np.testing.assert_array_equal(np.signbit(got), np.signbit(edge_a * edge_b))
        assert sess.stats.runs == runs + 16 and sess.stats.compiles == compiles  # 15 + 1 calls counted

        # 64-bit feeds miss the lean call and are converted as run converts them
        with pytest.raises(sg.FeedError, match=r"\bn\b") as err:
            step(a, b, np.array([1, 2**40], np.int64))  # would wrap in int32: the error names n's line
        assert f"test_make_callable.py:{line_of(__file__, N_LINE)}:" in str(err.value)
        _, got_k = step(a, b, np.array([1, 2], np.int64))
        np.testing.assert_array_equal(got_k, [2, 3])
        np.testing.assert_array_equal(one(a.astype(np.float64), 2.0 * np.ones(4)), a * 2)

        with pytest.raises(sg.FeedError, match=r"x.*\(5,\)") as err:
            one(np.zeros(5, np.float32), b)  # a fixed shape fed another
        assert f"test_make_callable.py:{line_of(__file__, X_LINE)}:" in str(err.value)
        with pytest.raises(sg.FeedError, match=r"takes 2 feed values \(x, y\), got 3"):
            one(a, b, b)
        np.testing.assert_array_equal(one(a, b), a * b)  # the step goes on

    with pytest.raises(sg.FeedError, match="closed"):
        by_name(a, b, ints)
    with sg.Session(g, check_numerics=True) as checked:
        one = checked.make_callable(z, [x, y])
        np.testing.assert_array_equal(one(a, b), a * b)
        for _ in range(2):  # every call checked, the repeats too
            with pytest.raises(sg.ExecutionError, match="nan"):
                one(edge_a, edge_b)


def test_a_lean_step_follows_shape_changes_raises_a_failed_callback_and_serves_threads():
    import threading

    g = sg.Graph()
    with g:
        x = sg.placeholder(("n",), sg.float32, name="x")

        def guard(v):
            if v.size and v.max() > 10:
                raise ValueError(f"too big: {v.max()}")

        sg.debug.callback(guard, x)
        z = snp.cos(x) + x
    with sg.Session(g) as sess:
        step = sess.make_callable(z, [x])
        for size in (4, 3, 4, 0):  # back and forth, and empty
            v = np.linspace(-2, 2, size).astype(np.float32)
            got = step(v)
            assert got.shape == (size,) and step.state.lean is not None
            np.testing.assert_allclose(got, np.cos(v) + v, rtol=1e-6)
        with pytest.raises(sg.ExecutionError, match="too big: 11"):
            step(np.array([1, 11, 2, 3], np.float32))
        np.testing.assert_allclose(step(np.ones(4, np.float32)), np.cos(1.0) + 1, rtol=1e-6)

        failures = []

        def worker(seed):
            rng = np.random.default_rng(seed)
            for _ in range(100):
                v = rng.uniform(-5, 5, size=4).astype(np.float32)
                if not np.allclose(step(v), np.cos(v) + v, rtol=1e-6):
                    failures.append(seed)

        threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == []


def test_a_lean_step_sees_check_numerics_switched_and_the_session_closed_at_its_next_call():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        z = snp.log(x)
    good = np.array([1.0, 2.0, 0.5], np.float32)
    bad = np.array([1.0, -1.0, 0.0], np.float32)  # log: nan at -1, -inf at 0
    sess = sg.Session(g)
    step = sess.make_callable(z, [x])
    np.testing.assert_allclose(step(good), np.log(good), rtol=1e-6)
    assert step.state.lean is not None
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(step(bad), np.log(bad))  # unchecked: nan and -inf come back
    sess.check_numerics = True  # reaches the step without a test per call
    assert step.state.lean is None
    with pytest.raises(sg.ExecutionError, match="nan"):
        step(bad)
    np.testing.assert_allclose(step(good), np.log(good), rtol=1e-6)
    sess.check_numerics = False
    np.testing.assert_allclose(step(good), np.log(good), rtol=1e-6)
    assert step.state.lean is not None  # lean again
    runs = sess.stats.runs
    step(good)
    assert sess.stats.runs == runs + 1
    sess.close()
    assert step.state.lean is None
    with pytest.raises(sg.FeedError, match="closed"):
        step(good)


# the placeholders' lines, which their feed errors name (defined last: line_of finds the first line)
N_LINE, X_LINE = 'sg.placeholder((2,), sg.int32, name="n")', 'sg.placeholder((4,), sg.float32, name="x")'
