"""Bad hyperparameters of optimizers, schedules and clipping are typed errors at the user's line.

They were raw ValueErrors and TypeErrors (or, for a negative learning rate or
clipping norm, no error at all). Values of the wrong kind are GraphTypeErrors,
which are TypeErrors too; values out of range are GraphErrors (ValueErrors).
The oracle for what must keep working is optax's formulas in numpy.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

import stablegraph as sg

FILE = os.path.basename(__file__)


def _raises(kind, fn, *words):
    """``fn()`` raises ``kind`` led by this file and fn's line, holding ``words``."""
    with pytest.raises(kind) as e:
        fn()
    message = str(e.value)
    assert isinstance(e.value, sg.GraphError) and message.startswith(
        f"{FILE}:{fn.__code__.co_firstlineno}:"
    ), message
    for word in words:
        assert word in message, (word, message)


def test_optimizer_hyperparameters():
    _raises(ValueError, lambda: sg.optim.adam(-1), "adam: learning_rate", "[0.0, inf)", "-1")
    _raises(ValueError, lambda: sg.optim.sgd(float("nan")), "sgd: learning_rate", "finite")
    _raises(ValueError, lambda: sg.optim.adam(1e-3, b1=2), "adam: b1", "[0.0, 1.0)", "got 2")
    _raises(ValueError, lambda: sg.optim.adam(1e-3, b2=1.0), "adam: b2", "got 1.0")
    _raises(ValueError, lambda: sg.optim.adam(1e-3, eps=-1e-8), "adam: eps")
    _raises(ValueError, lambda: sg.optim.adamw(1e-3, weight_decay=-0.1), "adamw: weight_decay")
    _raises(ValueError, lambda: sg.optim.momentum(0.1, 1.5), "momentum: momentum", "1.5")
    _raises(ValueError, lambda: sg.optim.rmsprop(0.1, decay=-0.5), "rmsprop: decay")
    _raises(ValueError, lambda: sg.optim.adagrad(0.1, eps=float("inf")), "adagrad: eps", "finite")
    _raises(ValueError, lambda: sg.optim.sgd(0.1, clip_norm=0), "sgd: clip_norm", "(0.0, inf)")
    _raises(ValueError, lambda: sg.optim.sgd(0.1, name="a/b"), "bad optimizer name 'a/b'")
    _raises(TypeError, lambda: sg.optim.adam("fast"), "adam: learning_rate must be a number", "str")
    _raises(TypeError, lambda: sg.optim.adam(1e-3, b1="0.9"), "adam: b1 must be a number", "str '0.9'")
    _raises(TypeError, lambda: sg.optim.sgd(0.1, clip_norm="1"), "clip_norm must be a number")
    _raises(TypeError, lambda: sg.optim.adamw(0.1, mask=3), "adamw mask must be None")
    opts = [sg.optim.sgd(0), sg.optim.adam(np.float64(1e-3), b1=0.0), sg.optim.momentum(0.1, np.float32(0.5))]
    assert [o.kind for o in opts] == ["sgd", "adam", "momentum"] and opts[2].momentum == 0.5


def test_schedule_arguments():
    _raises(
        ValueError, lambda: sg.optim.cosine_decay(1e-3, 0), "cosine_decay: steps must be an int >= 1", "got 0"
    )
    _raises(ValueError, lambda: sg.optim.exponential_decay(0.1, -5, 0.5), "exponential_decay: steps", "-5")
    _raises(TypeError, lambda: sg.optim.linear_decay(0.1, 10.5), "linear_decay: steps", "float 10.5")
    _raises(ValueError, lambda: sg.optim.warmup(0.1, 0), "warmup: warmup_steps", "got 0")
    _raises(ValueError, lambda: sg.optim.warmup_cosine_decay(1e-3, 10, 5), "steps (5)", "warmup_steps (10)")
    _raises(TypeError, lambda: sg.optim.cosine_decay("1e-3", 10), "cosine_decay: value must be a number")
    _raises(TypeError, lambda: sg.optim.adam(sg.optim.warmup("x", 3)), "a schedule is a number or a callable")
    lr = sg.optim.warmup_cosine_decay(1.0, np.int64(2), 6, end=0.1)  # numpy ints are ints
    want = [0.0, 0.5, 1.0] + [0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * k / 4)) for k in (1, 2, 3, 4)]
    np.testing.assert_allclose([lr(k) for k in range(7)], want, rtol=1e-6)


def test_clipping_arguments():
    g = sg.Graph()
    with g:
        a = sg.placeholder((3,), sg.float32, name="a")
        b = sg.placeholder((2,), sg.float32, name="b")
        _raises(ValueError, lambda: sg.optim.clip_by_global_norm([a], -1), "max_norm", "(0.0, inf)", "-1")
        _raises(ValueError, lambda: sg.optim.clip_by_global_norm([a], 0.0), "max_norm", "got 0.0")
        _raises(TypeError, lambda: sg.optim.clip_by_global_norm([a], "1"), "max_norm must be a number")
        _raises(
            TypeError, lambda: sg.optim.clip_by_global_norm(a, 1.0), "list of tensors", "one Tensor a", "[t]"
        )
        _raises(TypeError, lambda: sg.optim.global_norm(a), "global_norm wants a list of tensors")
        _raises(TypeError, lambda: sg.optim.global_norm(3), "global_norm wants a list of tensors", "int")
        clipped, norm = sg.optim.clip_by_global_norm([a, None, b], 1.0)
        limit = sg.placeholder((), sg.float32, name="limit")
        by_tensor, _ = sg.optim.clip_by_global_norm((t for t in [a, b]), limit)
    av, bv = np.array([3.0, 0.0, 0.0], np.float32), np.array([0.0, 4.0], np.float32)
    with sg.Session(g) as sess:
        got = sess.run([clipped[0], clipped[2], norm, by_tensor[1]], {a: av, b: bv, limit: 10.0})
    np.testing.assert_allclose(got[0], av / 5, rtol=1e-6)
    np.testing.assert_allclose(got[1], bv / 5, rtol=1e-6)
    np.testing.assert_allclose(got[2], 5.0, rtol=1e-6)
    np.testing.assert_allclose(got[3], bv)  # under the limit: unchanged
    assert clipped[1] is None
