"""Session.run: nests, feeds by Tensor or name, overriding feeds, the cache and its stats, lower."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


@pytest.fixture
def model():
    g = sg.Graph()
    with g, sg.name_scope("model"):
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        w = sg.constant(np.arange(6, dtype=np.float32).reshape(3, 2) / 6, name="w")
        h = snp.tanh(x @ w)
        y = h.sum(axis=1)
    return g, x, w, h, y


def _ref(xv):
    w = np.arange(6, dtype=np.float32).reshape(3, 2) / 6
    return np.tanh(xv @ w).sum(axis=1)


def test_issue_example(model):
    g, x, _, _, y = model
    xv = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    with sg.Session(g) as sess:
        out = sess.run(y, {x: xv})
        assert isinstance(out, np.ndarray) and out.shape == (4,)
        np.testing.assert_allclose(out, _ref(xv), rtol=1e-5)
        outs = sess.run({"y": y, "both": [y, x]}, {"model/x": np.zeros((7, 3), np.float32)})
        assert set(outs) == {"y", "both"} and isinstance(outs["both"], list)
        np.testing.assert_array_equal(outs["y"], np.zeros(7))
        np.testing.assert_array_equal(outs["both"][1], np.zeros((7, 3)))
        text = sess.lower(y, {x: xv})
        assert "stablehlo.tanh" in text and "func.func public @main" in text
        assert "tensor<4x3xf32>" in text and "test_session.py" in text  # user lines as locations


def test_fetch_by_name_and_tuple_nest(model):
    g, x, _, h, y = model
    with sg.Session(g) as sess:
        a, (b,) = sess.run(("model/reduce_sum", (h,)), {x: np.ones((2, 3), np.float32)})
    np.testing.assert_allclose(a, _ref(np.ones((2, 3), np.float32)), rtol=1e-6)
    assert b.shape == (2, 2)


def test_same_shapes_do_not_recompile_new_batch_compiles_once(model):
    g, x, _, _, y = model
    with sg.Session(g) as sess:
        for _ in range(3):
            sess.run(y, {x: np.ones((128, 3), np.float32)})
        assert sess.stats.compiles == 1 and sess.stats.cache_hits == 2
        sess.run(y, {x: np.ones((64, 3), np.float32)})
        sess.run(y, {x: np.ones((64, 3), np.float32)})
        assert sess.stats.compiles == 2
        assert sess.stats.reasons[1] == "placeholder model/x: batch 128 -> 64"
        sess.run(y, {x: np.ones((128, 3), np.float32)})
        assert sess.stats.compiles == 2  # the 128 program is still cached
        assert "compiles" in str(sess.stats)


def test_feeding_any_tensor_overrides_it_and_prunes(model):
    g, x, _, h, y = model
    hv = np.full((5, 2), 0.5, np.float32)
    with sg.Session(g) as sess:
        out = sess.run(y, {h: hv})  # x is not needed any more
        np.testing.assert_allclose(out, hv.sum(axis=1))
        assert "tanh" not in sess.lower(y, {h: hv})


def test_feeds_are_cast_with_same_kind_rules(model):
    g, x, _, _, y = model
    with sg.Session(g) as sess:
        xv = np.random.default_rng(2).normal(size=(3, 3))  # float64 into float32 works
        np.testing.assert_allclose(sess.run(y, {x: xv}), _ref(xv.astype(np.float32)), rtol=1e-5)
        sess.run(y, {x: [[1, 2, 3]]})  # Python ints into float works
    gi = sg.Graph()
    with gi:
        n = sg.placeholder((2,), sg.int32, name="n")
        m = n * 2
    with sg.Session(gi) as sess, pytest.raises(sg.FeedError, match="float64.*int32"):
        sess.run(m, {n: np.array([1.5, 2.5])})


@pytest.mark.parametrize(
    "feeds, match",
    [
        ({}, "placeholder model/x f32\\[batch,3\\] needs a feed"),
        ({"model/nope": np.ones(3)}, "no node named 'model/nope'"),
        ({"model/x": np.ones((2, 4), np.float32)}, "shape \\(2, 4\\), expected \\(batch, 3\\)"),
        ({"model/x": np.ones(3, np.float32)}, "shape \\(3,\\), expected"),
        ({"model/x": np.ones((2, 3), np.complex64)}, "complex64"),
    ],
)
def test_bad_feeds_are_feed_errors(model, feeds, match):
    g, *_, y = model
    with sg.Session(g) as sess:
        with pytest.raises(sg.FeedError, match=match):
            sess.run(y, feeds)
        assert sess.stats.compiles == 0  # never reached XLA


def test_one_symbol_bound_twice_is_a_feed_error():
    g = sg.Graph()
    with g:
        a = sg.placeholder(("n",), name="a")
        b = sg.placeholder(("n",), name="b")
        c = a + b
    with sg.Session(g) as sess:
        with pytest.raises(sg.FeedError, match="dim n is 3 in the feed for a but 4 in the feed for b"):
            sess.run(c, {a: np.ones(3), b: np.ones(4)})
        np.testing.assert_array_equal(sess.run(c, {a: np.ones(3), b: np.ones(3)}), [2, 2, 2])


def test_feeding_the_same_tensor_twice_is_an_error(model):
    g, x, *_, y = model
    with sg.Session(g) as sess, pytest.raises(sg.FeedError, match="fed twice"):
        sess.run(y, {x: np.ones((1, 3)), "model/x": np.ones((1, 3))})


def test_symbolic_sizes_in_reshape_and_mean():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), name="x")
        flat = x.reshape(-1)
        m = x.mean()
    assert flat.shape == ("3*batch",)
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    with sg.Session(g) as sess:
        f, mv = sess.run([flat, m], {x: xv})
    np.testing.assert_array_equal(f, xv.reshape(-1))
    np.testing.assert_allclose(mv, xv.mean())


def test_lower_compile_gives_cost_and_memory_analysis(model):
    g, x, *_, y = model
    with sg.Session(g) as sess:
        compiled = sess.lower(y, {x: np.ones((4, 3), np.float32)}).compile()
    assert compiled.cost_analysis()["flops"] > 0
    assert compiled.memory_analysis()["argument_size_in_bytes"] == 4 * 3 * 4
    assert "tanh" in compiled.as_text()


def test_session_with_several_cpu_devices_and_closing(model):
    g, x, *_, y = model
    sess = sg.Session(g, devices=2)
    assert len(sess.devices) == 2
    np.testing.assert_allclose(
        sess.run(y, {x: np.ones((2, 3))}), _ref(np.ones((2, 3), np.float32)), rtol=1e-6
    )
    sess.close()
    with pytest.raises(sg.FeedError, match="closed"):
        sess.run(y, {x: np.ones((2, 3))})


def test_64_bit_types_are_honoured_without_a_switch():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float64, name="x")
        i = sg.placeholder((2,), sg.int64, name="i")
        y = x * 1e-300
        j = i * 3_000_000_000
    with sg.Session(g) as sess:
        yv, jv = sess.run([y, j], {x: np.array([1.0, 2.0]), i: np.array([1, 2])})
    assert yv.dtype == np.float64 and yv[1] == 2e-300
    assert jv.dtype == np.int64 and jv[1] == 6_000_000_000


def test_xla_failures_become_compile_errors(model):
    g, x, *_, y = model
    with sg.Session(g) as sess:
        text = sess.lower(y, {x: np.ones((2, 3), np.float32)})
        broken = type(text)(text.replace("stablehlo.tanh", "stablehlo.not_an_op"), sess.devices)
        with pytest.raises(sg.CompileError, match="XLA could not compile"):
            broken.compile()


def test_lower_before_any_run_initializes_what_the_program_reads():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 3), sg.float32, name="x")
        w = sg.Variable(np.ones((3, 2), np.float32), name="w")
        loss = (x @ w).sum()
    with sg.Session(g) as sess:
        text = str(sess.lower(loss, {x: np.ones((4, 3), np.float32)}))
        assert "stablehlo.dot_general" in text
        np.testing.assert_allclose(sess.run(loss, {x: np.ones((4, 3), np.float32)}), 24.0)
