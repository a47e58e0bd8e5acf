"""sg.random's candidate samplers (TF1's): the log-uniform (Zipfian) distribution, expected counts,
and the unique draws, against numpy replaying TF1's one-draw-at-a-time loop on jax's random bits."""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

pytestmark = pytest.mark.usefixtures("jax_x64")


def _here(offset: int = 1) -> str:
    return f"test_random_candidates.py:{sys._getframe(1).f_lineno + offset}"


def _p(classes, range_max: int, kind: str) -> np.ndarray:
    c = np.asarray(classes, np.float64)
    if kind == "uniform":
        return np.full(c.shape, 1 / range_max)
    return (np.log(c + 2) - np.log(c + 1)) / np.log(range_max + 1)


def _replay(seed: int, n: int, range_max: int, kind: str, unique: bool):
    """TF1's sampler on jax's bits for sg's draws: block i of n uniforms comes from fold_in(key, i)."""

    def block(i, key):
        u = np.asarray(jax.random.uniform(key, (n,), jnp.float64))
        c = np.floor(u * range_max) if kind == "uniform" else np.floor(np.exp(u * np.log(range_max + 1))) - 1
        return np.clip(c, 0, range_max - 1).astype(np.int64)

    key = jax.random.key(seed)
    if not unique:
        return block(0, key), None
    picked, tries, i = [], 0, 0
    while len(picked) < n:  # one draw at a time, as TF1's RangeSampler
        for value in block(i, jax.random.fold_in(key, i)):
            tries += 1
            if value not in picked:
                picked.append(value)
                if len(picked) == n:
                    break
        i += 1
    return np.array(picked, np.int64), tries


def _expected(p, n: int, tries):
    if tries is None or tries == n:
        return p * n
    return -np.expm1(tries * np.log1p(-p))


@pytest.mark.parametrize("kind", ["log_uniform", "uniform"])
@pytest.mark.parametrize("unique, n, range_max", [(True, 12, 30), (True, 40, 45), (False, 16, 1000)])
def test_samples_and_expected_counts_replay_tf1s_sampler(kind, unique, n, range_max):
    labels = np.array([[0, 3], [29, 1], [7, 7]], np.int64)
    sampler = getattr(sg.random, f"{kind}_candidate_sampler")
    g = sg.Graph()
    with g:
        true_classes = sg.placeholder((None, 2), sg.int64, name="labels")
        out = sampler(true_classes, 2, n, unique, range_max, key=sg.random.key(5))
    with sg.Session(g) as sess:
        sampled, true_ec, sampled_ec = sess.run(list(out), {true_classes: labels})
    want, tries = _replay(5, n, range_max, kind, unique)
    assert sampled.dtype == np.int64 and true_ec.dtype == sampled_ec.dtype == np.float32
    np.testing.assert_array_equal(sampled, want)
    if unique:
        assert len(set(sampled.tolist())) == n and tries >= n
    np.testing.assert_allclose(true_ec, _expected(_p(labels, range_max, kind), n, tries), rtol=2e-6)
    np.testing.assert_allclose(sampled_ec, _expected(_p(sampled, range_max, kind), n, tries), rtol=2e-6)


def test_log_uniform_frequencies_follow_the_zipfian_law():
    range_max, n = 20, 50000
    g = sg.Graph()
    with g:
        labels = sg.constant(np.zeros((1, 1), np.int64))
        sampled, _, sampled_ec = sg.random.log_uniform_candidate_sampler(labels, 1, n, False, range_max)
    with sg.Session(g, seed=1) as sess:
        first, ec = sess.run([sampled, sampled_ec])
        second = sess.run(sampled)  # the default Generator: fresh candidates every run
    assert not np.array_equal(first, second)
    p = _p(np.arange(range_max), range_max, "log_uniform")
    assert abs(p.sum() - 1) < 1e-12
    freq = np.bincount(first, minlength=range_max) / n
    sigma = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) < 5 * sigma), (freq, p)  # within 5 standard deviations
    np.testing.assert_allclose(ec, p[first] * n, rtol=1e-6)  # with replacement: P(c) * num_sampled


def test_a_seed_makes_the_sampler_reproducible_from_run_to_run():
    def draws(seed):
        g = sg.Graph()
        with g:
            labels = sg.constant(np.zeros((1, 1), np.int64))
            s, _, _ = sg.random.log_uniform_candidate_sampler(labels, 1, 8, True, 100, seed=seed)
        with sg.Session(g, seed=0) as sess:
            return [sess.run(s) for _ in range(2)]

    a, b = draws(3), draws(3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda t: sg.random.log_uniform_candidate_sampler(t, 1, 5, True, 4), "cannot come from 4 classes"),
        (lambda t: sg.random.log_uniform_candidate_sampler(t, 2, 5, True, 10), "num_true=2"),
        (lambda t: sg.random.log_uniform_candidate_sampler(t, 1, 0, True, 10), "positive int num_sampled"),
        (lambda t: sg.random.log_uniform_candidate_sampler(t, 1, 2, True, 10, key=1), "key= as a uint32[2]"),
        (lambda t: sg.random.uniform_candidate_sampler(t.astype(sg.float32), 1, 2, True, 9), "of ints"),
    ],
)
def test_sampler_argument_errors_name_the_users_line(call, says):
    g = sg.Graph()
    with g:
        t = sg.placeholder((3, 1), sg.int64, name="t")
        with pytest.raises(sg.GraphError) as info:
            call(t)
    msg = str(info.value)
    assert f"test_random_candidates.py:{call.__code__.co_firstlineno}" in msg and says in msg, msg
