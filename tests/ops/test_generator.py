"""sg.random.Generator: fresh draws every run, reproducible sequences, call sites, runs that do not draw,
the Session seed, and the distribution of its numbers."""

import jax
import numpy as np
import pytest
from scipy import stats

import stablegraph as sg

J = jax.random


@pytest.fixture(autouse=True)
def _jax_defaults():
    """jax as sg.random follows it: 32-bit defaults and the partitionable threefry."""
    with jax.enable_x64(False), jax.threefry_partitionable(True):
        yield


def _oracle(seed, runs):
    """jax's keys for a Generator(seed): each run splits the state, draws from the second half
    (call site i folds in i) and keeps the first half as the next state. Yields (run key, state after)."""
    state = J.PRNGKey(seed)
    for _ in range(runs):
        halves = J.split(state)
        state = halves[0]
        yield halves[1], np.asarray(state)


def _graph():
    g = sg.Graph()
    with g:
        gen = sg.random.Generator(42)
        u = gen.uniform((4,))
        n = gen.normal((3,))
        y = sg.placeholder((2,), sg.float32, name="y")
        other = y * 2
    return g, gen, u, n, y, other


def test_fresh_numbers_every_run_and_the_same_sequence_in_two_sessions():
    g, gen, u, n, _, _ = _graph()
    with sg.Session(g, seed=0) as a, sg.Session(g, seed=7) as b:  # an explicit seed ignores the Session's
        draws = [a.run([u, n]) for _ in range(3)]
        oracle = list(_oracle(42, 3))
        for (ua, na), (key, _) in zip(draws, oracle):
            np.testing.assert_array_equal(ua, J.uniform(J.fold_in(key, 1), (4,)))
            np.testing.assert_array_equal(na, J.normal(J.fold_in(key, 2), (3,)))
            np.testing.assert_array_equal(b.run(u), ua)  # the other Session runs the same sequence
        np.testing.assert_array_equal(a.get(gen.state), oracle[-1][1])
        np.testing.assert_array_equal(b.get(gen.state), oracle[-1][1])
        assert len({tuple(d[0]) for d in draws}) == 3  # every run differs


def test_a_run_that_does_not_draw_does_not_advance_the_generator():
    g, gen, u, n, y, other = _graph()
    oracle = _oracle(42, 3)
    with sg.Session(g) as sess:
        start = sess.get(gen.state)
        np.testing.assert_array_equal(start, J.PRNGKey(42))
        for _ in range(2):
            np.testing.assert_array_equal(sess.run(other, {y: np.ones(2, np.float32)}), [2.0, 2.0])
        np.testing.assert_array_equal(sess.get(gen.state), start)
        key, _ = next(oracle)
        np.testing.assert_array_equal(sess.run(u), J.uniform(J.fold_in(key, 1), (4,)))  # one site alone
        sess.run(other, {y: np.zeros(2, np.float32)})
        key, _ = next(oracle)
        np.testing.assert_array_equal(sess.run(n), J.normal(J.fold_in(key, 2), (3,)))  # the next run's key
        key, state = next(oracle)
        got_u, _ = sess.run([u, other], {y: np.zeros(2, np.float32)})
        np.testing.assert_array_equal(got_u, J.uniform(J.fold_in(key, 1), (4,)))
        np.testing.assert_array_equal(sess.get(gen.state), state)
        sess.initialize([gen.state])  # starts the sequence over
        np.testing.assert_array_equal(sess.get(gen.state), start)


def test_two_call_sites_and_two_generators_draw_different_numbers():
    g = sg.Graph()
    with g:
        gen = sg.random.Generator(0)
        a, b = gen.uniform((64,)), gen.uniform((64,))
        keys = gen.split(3)
        other = sg.random.Generator(1).uniform((64,))
        twin = sg.random.Generator(0).uniform((64,))  # the same seed: the first call site's numbers
    with sg.Session(g) as sess:
        va, vb, vk, vo, vt = sess.run([a, b, keys, other, twin])
    assert not np.allclose(va, vb) and not np.allclose(va, vo)
    np.testing.assert_array_equal(va, vt)
    assert vk.shape == (3, 2) and vk.dtype == np.uint32 and len({tuple(k) for k in vk}) == 3
    key, _ = next(_oracle(0, 1))
    np.testing.assert_array_equal(vk, J.key_data(J.split(J.wrap_key_data(J.fold_in(key, 3)), 3)))


def test_a_generator_without_seed_follows_the_session_seed():
    g = sg.Graph()
    with g:
        first = sg.random.Generator()
        second = sg.random.Generator()
        d = sg.random.default_generator()
        assert sg.random.default_generator() is d and d.state.var_name == "rng"
        draws = [first.uniform((8,)), second.uniform((8,)), d.bernoulli(0.5, (8,))]
    states = [first.state, second.state, d.state]
    with sg.Session(g, seed=0) as s0, sg.Session(g, seed=0) as s0b, sg.Session(g, seed=1) as s1:
        for x, y, z in zip(s0.get(states), s0b.get(states), s1.get(states)):
            np.testing.assert_array_equal(x, y)
            assert not np.array_equal(x, z)
        r0, r1 = s0.run(draws), s1.run(draws)
        assert not np.allclose(r0[0], r1[0]) and not np.allclose(r0[1], r1[1])
        assert not np.allclose(r0[0], r0[1])  # two unseeded generators of one graph are two streams
        assert r0[2].dtype == np.bool_ and r0[2].shape == (8,)
        for x, y in zip(s0.get(states), s0b.get(states)):
            assert not np.array_equal(x, y)  # the run advanced s0's generators, not s0b's


def test_uniform_draws_pass_a_ks_test():
    g = sg.Graph()
    with g:
        u = sg.random.Generator(123).uniform((500,))
    with sg.Session(g) as sess:
        us = np.concatenate([sess.run(u) for _ in range(8)])
    assert len(np.unique(us)) > 3990  # no repeats across runs
    assert stats.kstest(us, "uniform").pvalue > 1e-3
    assert stats.kstest(us[:2000], us[2000:]).pvalue > 1e-3  # early and late runs alike
    assert stats.kstest(us, "uniform", args=(0.1, 0.9)).pvalue < 1e-6  # the test can tell
