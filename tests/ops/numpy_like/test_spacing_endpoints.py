"""sg.numpy.geomspace's exact ends only where the progression is defined (issue 20's sweep): a
start at 0 or ends of opposite signs give nan everywhere, the ends included (they used to be
written over with start and stop)."""

import numpy as np

import stablegraph as sg


def _geomspace(start, stop, num=4):
    start, stop = np.asarray(start, np.float32), np.asarray(stop, np.float32)
    g = sg.Graph()
    with g:
        a, b = sg.placeholder(start.shape, sg.float32), sg.placeholder(stop.shape, sg.float32)
        out = sg.numpy.geomspace(a, b, num, axis=-1)
    with sg.Session(g) as sess:
        return sess.run(out, {a: start, b: stop})


def test_undefined_progressions_are_nan_at_the_ends_too():
    got = _geomspace([0.0, -0.0, 1.0, -2.0, 0.0], [1.0, 5.0, -np.inf, 8.0, np.inf])
    assert np.isnan(got).all()


def test_defined_progressions_keep_their_exact_ends():
    start, stop = [1.0, -1.0, 2.0, 1e-3], [1e3, -8.0, 2.0, np.inf]
    got = _geomspace(start, stop)
    np.testing.assert_array_equal(got[:, 0], np.float32(start))
    np.testing.assert_array_equal(got[:, -1], np.float32(stop))
    np.testing.assert_allclose(
        got[:3], [np.geomspace(a, b, 4) for a, b in zip(start[:3], stop[:3])], rtol=1e-6
    )
