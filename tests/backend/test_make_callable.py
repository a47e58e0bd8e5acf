"""sess.make_callable (TF1's name): a function of the feeds in feed_list order that gives what
sess.run gives (numpy as the oracle), trains through variables, follows shape changes, and
refuses a wrong number of values, unknown names and a closed Session."""

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp


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
