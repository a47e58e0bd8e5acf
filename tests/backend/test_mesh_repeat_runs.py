"""Repeated runs on a mesh take the planned fast path (fetches as a dict, feeds by name) and stay
right: new values each run, a new feed shape compiles again, an uneven one is still refused."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg

P = sg.PartitionSpec


def test_repeated_dict_runs_with_named_feeds_on_a_mesh():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x", sharding=P("data"))
        total = sg.Variable(np.zeros(4, np.float32), name="total", sharding=P("model"))
        fetches = {"double": x * 2, "sum": x.sum(axis=0), "count": total.assign_add(x.sum(axis=0))}
    rng = np.random.default_rng(3)
    batches = [rng.normal(size=(8, 4)).astype(np.float32) for _ in range(4)]
    with sg.Session(g, mesh=sg.make_mesh((4, 2), ("data", "model"))) as sess:
        for b in batches:
            got = sess.run(dict(fetches), {"x": b})
            assert list(got) == ["double", "sum", "count"]
            np.testing.assert_allclose(got["double"], 2 * b, rtol=1e-6)
            np.testing.assert_allclose(got["sum"], b.sum(axis=0), rtol=1e-5, atol=1e-6)
        assert len(sess._repeats) == 1 and sess.stats.cache_hits >= 3
        np.testing.assert_allclose(sess.get(total), sum(b.sum(axis=0) for b in batches), rtol=1e-5, atol=1e-5)
        bigger = rng.normal(size=(16, 4)).astype(np.float32)
        np.testing.assert_allclose(sess.run(dict(fetches), {"x": bigger})["double"], 2 * bigger, rtol=1e-6)
        with pytest.raises(sg.FeedError, match=r"dim 0 \(6\) does not split evenly over mesh axes data=4"):
            sess.run(dict(fetches), {"x": bigger[:6]})
