"""Session variables: initialization from seeds, get/set, assigns and their one-run semantics,
train ops, feeds over variables, buffer donation, late variables, int counters, symbolic batches."""

import re
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def _normal_init(k, shape, dtype):
    return sg.random.normal(k, shape, dtype)


def _jax_init(seed: int, name: str, shape) -> np.ndarray:
    """The oracle for a normal initializer: jax.random (bit-equal to sg.random) with the
    Session's root key folded by the variable's name (crc32, as ops/state.py documents)."""
    with jax.enable_x64(False), jax.threefry_partitionable(True):
        k = jax.random.fold_in(jax.random.PRNGKey(seed), zlib.crc32(name.encode()) & 0x7FFFFFFF)
        return np.asarray(jax.random.normal(k, shape, jnp.float32))


def _model():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
        w = sg.Variable(_normal_init, (3, 4), name="w")
        with sg.name_scope("fc1"):
            k = sg.Variable(_normal_init, (5,), name="kernel")
        full = sg.Variable(2.5, shape=(2, 2), name="full")
    return g, v, w, k, full


def test_initial_values_from_data_and_initializers():
    g, v, w, k, full = _model()
    assert k.var_name == "fc1/kernel" and [x.var_name for x in g.variables] == [
        "v",
        "w",
        "fc1/kernel",
        "full",
    ]
    with sg.Session(g, seed=0) as a, sg.Session(g, seed=0) as b, sg.Session(g, seed=1) as c:
        va, wa, ka, fa = a.get([v, w, k, full])
        np.testing.assert_array_equal(va, np.arange(6, dtype=np.float32).reshape(2, 3))
        np.testing.assert_array_equal(fa, np.full((2, 2), 2.5, np.float32))
        assert wa.dtype == np.float32 and wa.shape == (3, 4)
        np.testing.assert_allclose(wa, _jax_init(0, "w", (3, 4)), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(ka, _jax_init(0, "fc1/kernel", (5,)), rtol=1e-6, atol=1e-6)
        for x, y in zip(b.get([v, w, k, full]), (va, wa, ka, fa)):
            np.testing.assert_array_equal(x, y)  # same seed, same values
        wc, kc = c.get([w, k])
        np.testing.assert_allclose(wc, _jax_init(1, "w", (3, 4)), rtol=1e-6, atol=1e-6)
        assert not np.allclose(wc, wa) and not np.allclose(kc, ka)
        np.testing.assert_array_equal(c.get(v), va)  # data does not depend on the seed


def test_adding_a_variable_does_not_change_another_ones_initial_value():
    g1 = sg.Graph()
    with g1:
        w1 = sg.Variable(_normal_init, (3, 4), name="w")
    g2 = sg.Graph()
    with g2:
        sg.Variable(_normal_init, (3, 4), name="first")
        w2 = sg.Variable(_normal_init, (3, 4), name="w")
        sg.Variable(_normal_init, (7,), name="last")
    with sg.Session(g1, seed=3) as s1, sg.Session(g2, seed=3) as s2:
        np.testing.assert_array_equal(s1.get(w1), s2.get(w2))
        assert not np.allclose(s2.get("first"), s2.get(w2))  # other names, other keys


def test_get_set_and_their_errors():
    g, v, _, _, _ = _model()
    with g:
        c = sg.Variable(0, name="count")
    with sg.Session(g) as sess:
        sess.set(v, np.ones((2, 3)))  # float64 data: same_kind cast to the variable's float32
        got = sess.get(v)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, np.ones((2, 3)))
        sess.set("count", 7)
        assert sess.get(c) == 7 and sess.get(c).dtype == np.int32
        with pytest.raises(sg.FeedError, match=r"v is f32\[2,\s*3\].*shape \(3, 2\)"):
            sess.set(v, np.zeros((3, 2), np.float32))
        with pytest.raises(sg.FeedError, match="float64.*int32"):
            sess.set(c, 1.5)
        with pytest.raises(sg.FeedError, match="not a variable"):
            sess.get("nope")
        np.testing.assert_array_equal(sess.get(v), np.ones((2, 3)))  # failed sets changed nothing
        assert sess.get(c) == 7


def test_assign_add_sub_over_several_runs_match_numpy():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.zeros(3, np.float32), name="v")
        d = sg.placeholder((3,), sg.float32, name="d")
        ops = {"set": v.assign(d), "add": v.assign_add(d), "sub": sg.assign_sub(v, 2 * d)}
    rng = np.random.default_rng(0)
    ref = np.zeros(3, np.float32)
    with sg.Session(g) as sess:
        for which in ["set", "add", "add", "sub", "add", "set", "sub", "sub"]:
            dv = rng.normal(size=3).astype(np.float32)
            ref = {"set": dv, "add": ref + dv, "sub": ref - 2 * dv}[which]
            out = sess.run(ops[which], {d: dv})
            np.testing.assert_allclose(out, ref, rtol=1e-6)  # an assign's value is the new value
            np.testing.assert_allclose(sess.get(v), ref, rtol=1e-6)
        assert sess.stats.compiles <= 4  # the initializer and one program per assign


def test_reads_in_a_run_see_the_value_from_its_start():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.array([1.0, 2.0], np.float32), name="v")
        fetches = [v, v.assign(v + 1), v * 2]
    with sg.Session(g) as sess:
        for start in ([1.0, 2.0], [2.0, 3.0], [3.0, 4.0]):
            old, new, doubled = sess.run(fetches)
            np.testing.assert_array_equal(old, start)
            np.testing.assert_array_equal(new, np.add(start, 1))
            np.testing.assert_array_equal(doubled, np.multiply(start, 2))
        np.testing.assert_array_equal(sess.get(v), [4.0, 5.0])


def test_two_assigns_to_one_variable_in_one_run_is_an_error():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.zeros(2, np.float32), name="v")
        first = v.assign_add(1.0)
        second = v.assign(5.0)
        train = sg.group(first, [second])
    first_line = second_line = None
    for i, line in enumerate(open(__file__).read().splitlines(), 1):
        if "first = v.assign_add(1.0)" in line and first_line is None:
            first_line = i
        if "second = v.assign(5.0)" in line and second_line is None:
            second_line = i
    with sg.Session(g) as sess:
        for fetches in ([first, second], train):
            with pytest.raises(sg.GraphError) as e:
                sess.run(fetches)
            msg = str(e.value)
            assert "variable v is assigned twice" in msg
            assert f"test_variables.py:{first_line}" in msg and f"test_variables.py:{second_line}" in msg
        np.testing.assert_array_equal(sess.get(v), [0.0, 0.0])
        np.testing.assert_array_equal(sess.run(first), [1.0, 1.0])  # each alone is fine
        np.testing.assert_array_equal(sess.run(second), [5.0, 5.0])


def test_train_op_fetches_none_and_runs_without_it_change_nothing():
    g = sg.Graph()
    with g:
        w = sg.Variable(np.array([1.0, -2.0], np.float32), name="w")
        loss = (w * w).sum()
        train = sg.group(w.assign_sub(0.25 * 2 * w))  # a gradient step on sum(w^2)
    with sg.Session(g) as sess:
        for _ in range(3):
            assert sess.run(loss) == 5.0
        np.testing.assert_array_equal(sess.get(w), [1.0, -2.0])
        assert sess.run(train) is None
        np.testing.assert_array_equal(sess.get(w), [0.5, -1.0])
        out = sess.run({"t": train, "loss": loss, "nest": [train]})
        assert out["t"] is None and out["nest"] == [None] and out["loss"] == 1.25  # loss before the step
        np.testing.assert_array_equal(sess.get(w), [0.25, -0.5])


def test_feeding_a_variable_overrides_it_for_one_run_only():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.array([1.0, 2.0], np.float32), name="v")
        y = v * 3
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {v: np.array([10.0, 20.0], np.float32)}), [30.0, 60.0])
        np.testing.assert_array_equal(sess.run(y, {"v": [0.0, 1.0]}), [0.0, 3.0])
        np.testing.assert_array_equal(sess.get(v), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(y), [3.0, 6.0])


def test_a_train_step_updates_variables_in_place():
    """Donation: the buffer an assigned variable had before a step is consumed by it (no new
    variable buffers per step); a variable only read keeps its buffer; fetched arrays stay valid."""
    g = sg.Graph()
    with g:
        w = sg.Variable(np.arange(4, dtype=np.float32), name="w")
        scale = sg.Variable(np.float32(2.0), name="scale")
        train = sg.group(w.assign(w * scale))
    with sg.Session(g) as sess:
        fetched = sess.run(w)
        for step in range(1, 4):
            old_w, old_scale = sess._state["w"], sess._state["scale"]
            sess.run(train)
            assert old_w.is_deleted() and not sess._state["w"].is_deleted()
            assert sess._state["scale"] is old_scale and not old_scale.is_deleted()
            np.testing.assert_array_equal(sess.get(w), np.arange(4) * 2.0**step)
        np.testing.assert_array_equal(fetched, np.arange(4))  # earlier results were not overwritten
        held = sess.get(w)  # an array the user keeps must keep its values through later steps
        sess.run(train)
        np.testing.assert_array_equal(held, np.arange(4) * 8.0)
        np.testing.assert_array_equal(sess.get(w), np.arange(4) * 16.0)


def test_global_step_and_int_counters():
    g = sg.Graph()
    with g:
        w = sg.Variable(np.ones(2, np.float32), name="w")
        step = sg.global_step()
        assert sg.global_step() is step
        hits = sg.Variable(np.zeros(3, np.int32), name="hits", trainable=True)  # ints never train
        i = sg.placeholder((), sg.int32, name="i")
        count = hits.assign_add(snp.where(snp.arange(3) == i, 1, 0))
        train = sg.group(w.assign(w * 0.5), step.assign_add(1))
    assert step.var_name == "global_step" and step.dtype == sg.int32 and not step.trainable
    assert not hits.trainable and [v.var_name for v in g.trainable_variables] == ["w"]
    with sg.Session(g) as sess:
        assert sess.get(step) == 0
        for n in range(1, 4):
            sess.run(train)
            assert sess.get(step) == n
        np.testing.assert_array_equal(sess.get(w), [0.125, 0.125])
        ref = np.zeros(3, np.int32)
        for k in [0, 2, 2, 1, 2]:
            ref[k] += 1
            np.testing.assert_array_equal(sess.run(count, {i: k}), ref)
        assert sess.get(hits).dtype == np.int32


def test_variables_made_after_the_session_started_are_initialized_on_first_use():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.float32(1.0), name="v")
    with sg.Session(g, seed=4) as sess:
        sess.set(v, 42.0)
        with g:
            u = sg.Variable(_normal_init, (3,), name="u")
            c = sg.Variable(np.int32(5), name="c")
            out = [u * 1, c + 1, v]
        got_u, got_c, got_v = sess.run(out)
        np.testing.assert_allclose(got_u, _jax_init(4, "u", (3,)), rtol=1e-6, atol=1e-6)
        assert got_c == 6 and got_v == 42.0  # existing variables keep their values
        np.testing.assert_array_equal(sess.get(u), got_u)


def test_initialize_resets_all_or_some_variables():
    g, v, w, k, full = _model()
    with sg.Session(g, seed=2) as sess:
        start = sess.get([v, w, k, full])
        sess.set(v, np.zeros((2, 3)))
        sess.set(w, np.zeros((3, 4)))
        sess.set(full, np.zeros((2, 2)))
        sess.initialize([w, "full"])
        np.testing.assert_array_equal(sess.get(v), np.zeros((2, 3)))  # not in the list
        np.testing.assert_array_equal(sess.get(w), start[1])
        np.testing.assert_array_equal(sess.get(full), start[3])
        sess.set(k, np.zeros(5))
        sess.initialize()
        for got, want in zip(sess.get([v, w, k, full]), start):
            np.testing.assert_array_equal(got, want)


def test_a_variable_initialized_from_another_starts_from_its_initial_value():
    """sg.Variable(a * 2 + 1) reads a's initial value in a fresh Session (TF1 needed
    a.initialized_value() for it), through a chain and from a random draw, whichever is asked
    first; initialize() later resets them in the same order."""
    g = sg.Graph()
    with g:
        a = sg.Variable(np.float32([1.0, -2.0, 0.0]), name="a")
        twice = sg.Variable(a * 2 + 1, name="twice")
        thrice = sg.Variable(twice * 3 - a, name="thrice")
        draw = sg.Variable(_normal_init, shape=(3,), name="draw")
        doubled = sg.Variable(draw * 2, name="doubled")
        total = twice + a
    want_twice = np.float32([3.0, -3.0, 1.0])
    want_thrice = want_twice * 3 - np.float32([1.0, -2.0, 0.0])
    with sg.Session(g, seed=4) as sess:  # asked for the last one first: the others come before it
        np.testing.assert_array_equal(sess.get(thrice), want_thrice)
        np.testing.assert_array_equal(sess.get(twice), want_twice)
        np.testing.assert_array_equal(sess.get(doubled), _jax_init(4, "draw", (3,)) * 2)
    with sg.Session(g, seed=4) as sess:
        np.testing.assert_array_equal(sess.run(total), want_twice + np.float32([1.0, -2.0, 0.0]))
        sess.set(a, np.float32([5.0, 5.0, 5.0]))
        sess.initialize()  # every variable from its initial value, a first
        np.testing.assert_array_equal(sess.get(twice), want_twice)
        sess.set(a, np.float32([5.0, 5.0, 5.0]))
        sess.initialize([twice])  # a keeps its value: twice reads it, as TF1's Variable(a * 2 + 1) would
        np.testing.assert_array_equal(sess.get(twice), np.float32([11.0, 11.0, 11.0]))


def test_training_with_symbolic_batch_feeds():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.float32, name="y")
        w = sg.Variable(np.zeros(3, np.float32), name="w")
        b = sg.Variable(np.float32(0.0), name="b")
        err = x @ w + b - y
        loss = (err * err).mean()
        gw, gb = sg.gradients(loss, [w, b])
        train = sg.group(w.assign_sub(0.1 * gw), b.assign_sub(0.1 * gb))
    rng = np.random.default_rng(0)
    w_ref, b_ref = np.zeros(3), 0.0
    with sg.Session(g) as sess:
        for n in [4, 7, 4, 7, 1]:
            xv = rng.normal(size=(n, 3)).astype(np.float32)
            yv = rng.normal(size=n).astype(np.float32)
            e = xv @ w_ref + b_ref - yv
            loss_ref = np.mean(e**2)
            w_ref, b_ref = w_ref - 0.1 * 2 * xv.T @ e / n, b_ref - 0.1 * 2 * e.mean()
            assert sess.run([train, loss], {x: xv, y: yv})[1] == pytest.approx(loss_ref, rel=1e-5)
            np.testing.assert_allclose(sess.get(w), w_ref, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(sess.get(b), b_ref, rtol=1e-5, atol=1e-6)
        reasons = [r for r in sess.stats.reasons if re.search("batch", r)]
        assert len(reasons) == 2  # 4 -> 7 and 7 -> 1; the second batch of 4 and of 7 reuse programs
