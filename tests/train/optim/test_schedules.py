"""Schedules against their closed forms (on ints and in a graph at given global steps), and clipping."""

import math

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

STEPS = [0, 1, 3, 5, 9, 10, 11, 20, 37, 60]


def want_cosine(v, n, alpha, k):
    return v * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * min(k, n) / n)) + alpha)


def want_warmup_cosine(peak, w, n, end, k):
    if k < w:
        return peak * k / w
    return want_cosine(peak, n - w, end / peak, k - w)


# schedule, closed form of step k
CASES = {
    "constant": (lambda: sg.optim.constant(0.3), lambda k: 0.3),
    "constant_schedule": (lambda: sg.optim.constant_schedule(2.0), lambda k: 2.0),
    "exponential": (lambda: sg.optim.exponential_decay(0.5, 10, 0.8), lambda k: 0.5 * 0.8 ** (k / 10)),
    "staircase": (
        lambda: sg.optim.exponential_decay(0.5, 10, decay_rate=0.8, staircase=True),
        lambda k: 0.5 * 0.8 ** (k // 10),
    ),
    "cosine": (lambda: sg.optim.cosine_decay(1e-3, steps=40), lambda k: want_cosine(1e-3, 40, 0.0, k)),
    "cosine_alpha": (
        lambda: sg.optim.cosine_decay(0.2, steps=30, alpha=0.1),
        lambda k: want_cosine(0.2, 30, 0.1, k),
    ),
    "linear": (
        lambda: sg.optim.linear_decay(0.4, steps=20, end=0.1),
        lambda k: 0.4 + (0.1 - 0.4) * min(k, 20) / 20,
    ),
    "linear_schedule": (lambda: sg.optim.linear_schedule(1.0, steps=8), lambda k: max(1.0 - k / 8, 0.0)),
    "warmup_const": (
        lambda: sg.optim.warmup(0.5, warmup_steps=10, start=0.1),
        lambda k: 0.1 + 0.4 * k / 10 if k < 10 else 0.5,
    ),
    "warmup_cosine": (
        lambda: sg.optim.warmup(sg.optim.cosine_decay(0.2, steps=30), warmup_steps=5),
        lambda k: 0.2 * k / 5 if k < 5 else want_cosine(0.2, 30, 0.0, k - 5),
    ),
    "warmup_cosine_decay": (
        lambda: sg.optim.warmup_cosine_decay(0.3, warmup_steps=10, steps=50, end=0.03),
        lambda k: want_warmup_cosine(0.3, 10, 50, 0.03, k),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_schedule_on_python_ints(case):
    make, want = CASES[case]
    sched = make()
    for k in STEPS:
        got = sched(k)
        assert isinstance(got, float)
        assert got == pytest.approx(want(k), rel=1e-12, abs=1e-15), (case, k)


def test_schedules_in_a_graph_follow_the_global_step():
    g = sg.Graph()
    with g:
        step = sg.global_step()
        lrs = {case: make()(step) for case, (make, _) in CASES.items()}
        custom = sg.optim.warmup(lambda s: 1.0 / (1.0 + s), warmup_steps=4)(step)
    with sg.Session(g) as sess:
        for k in STEPS:
            sess.set(step, k)
            out = sess.run({"lrs": lrs, "custom": custom})
            got, got_custom = out["lrs"], out["custom"]
            for case, (_, want) in CASES.items():
                assert got[case].dtype == np.float32
                np.testing.assert_allclose(got[case], want(k), rtol=1e-5, atol=1e-8, err_msg=f"{case} {k}")
            np.testing.assert_allclose(got_custom, k / 4 if k < 4 else 1.0 / (1.0 + k - 4), rtol=1e-6)


def test_bad_schedule_arguments():
    with pytest.raises(ValueError, match="steps"):
        sg.optim.cosine_decay(1.0, steps=0)
    with pytest.raises(ValueError, match="above warmup_steps"):
        sg.optim.warmup_cosine_decay(1.0, warmup_steps=10, steps=10)
    with pytest.raises(TypeError, match="schedule"):
        sg.optim.warmup("fast", warmup_steps=3)


def test_clip_by_global_norm_as_tf1():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=5).astype(np.float32)
    norm = np.sqrt(np.sum(a.astype(np.float64) ** 2) + np.sum(b.astype(np.float64) ** 2))
    g = sg.Graph()
    with g:
        pa, pb = sg.placeholder(a.shape, sg.float32), sg.placeholder(b.shape, sg.float32)
        small, n1 = sg.optim.clip_by_global_norm([pa, None, pb], 1.0)
        big, n2 = sg.optim.clip_by_global_norm([pa, pb], 100.0)
        n3 = sg.optim.global_norm([pa, pb])
        assert small[1] is None
    with sg.Session(g) as sess:
        (sa, _, sb), n1v, (ba, bb), n2v, n3v = sess.run([small, n1, big, n2, n3], {pa: a, pb: b})
    for v in (n1v, n2v, n3v):
        np.testing.assert_allclose(v, norm, rtol=1e-6)
    np.testing.assert_allclose(sa, a / norm, rtol=1e-5)
    np.testing.assert_allclose(sb, b / norm, rtol=1e-5)
    np.testing.assert_allclose(np.sqrt(np.sum(sa**2) + np.sum(sb**2)), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(ba, a)  # under the bound: unchanged
    np.testing.assert_array_equal(bb, b)


def test_global_norm_rejects_integer_tensors():
    g = sg.Graph()
    with g, pytest.raises(sg.GraphError, match="floating"):
        sg.optim.global_norm([snp.arange(3)])
