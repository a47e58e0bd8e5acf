"""Batch rules of the host callbacks: pure_callback under each vmap_method equals a loop over
lanes (check_vectorize, every in_axes choice), and debug_callback (sg.debug.callback) called per
lane receives each lane's values, in the lane order, as numpy computes them."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.test_util import check_vectorize


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_pure_callback_batch_rule_matches_a_loop(method):
    def host(a, b):
        return np.tanh(a) * b[..., None, :]  # works on whatever leading axes the method passes

    def fn(x, y):
        return sg.pure_callback(host, sg.TensorType((2, 3), sg.float32), x, y, vmap_method=method)

    check_vectorize(fn, [np.ones((2, 3), np.float32), np.ones((3,), np.float32)], size=3)


def test_debug_callback_batch_rule_calls_once_per_lane():
    seen = []
    g = sg.Graph()
    with g:
        m = sg.placeholder((4, 3), sg.float32, name="m")
        s = sg.placeholder((), sg.float32, name="s")
        out = sg.vmap(
            lambda r: (
                sg.debug.callback(lambda v, k: seen.append((v.copy(), float(k))), snp.exp(r), s),
                r.sum(),
            )[1]
        )(m)
    mv = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(out, {m: mv, s: 2.5}), mv.sum(1), rtol=1e-6)
    assert len(seen) == 4
    for (v, k), row in zip(seen, mv):
        np.testing.assert_allclose(v, np.exp(row), rtol=1e-6)
        assert k == 2.5
