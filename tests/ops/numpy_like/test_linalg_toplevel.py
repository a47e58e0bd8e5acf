"""numpy's top-level diagonal, cross, matrix_transpose and vecdot against numpy, in one session run."""

import warnings

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp


def test_top_level_linalg_helpers_match_numpy():
    r = np.random.default_rng(0)
    a, v = r.normal(size=(3, 4, 5)), r.normal(size=(3, 4, 5))
    b3, c3, b2 = r.normal(size=(4, 3)), r.normal(size=(4, 3)), r.normal(size=(4, 2))
    builds = [
        (lambda m: m.diagonal(a)), (lambda m: m.diagonal(a, 1, 1, 2)), (lambda m: m.diagonal(a, -1, 2, 0)),
        (lambda m: m.cross(b3, c3)), (lambda m: m.cross(b2, c3)), (lambda m: m.cross(b2, b2[::-1])),
        (lambda m: m.cross(b3.T, c3.T, axis=0)), (lambda m: m.cross(b3, c3, axisc=0)),
        (lambda m: m.matrix_transpose(a)), (lambda m: m.vecdot(a, v)),
    ]  # fmt: skip
    g = sg.Graph()
    with g:
        outs = [build(snp) for build in builds]
    with sg.Session(g) as sess:
        got = sess.run(outs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy deprecates 2-vectors in cross
        expected = [build(np) for build in builds]
    for k, (x, y) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6, err_msg=f"case {k}")


def test_cross_refuses_vectors_of_other_lengths():
    g = sg.Graph()
    with g, np.testing.assert_raises(sg.GraphError) as caught:
        snp.cross(np.ones((2, 4)), np.ones((2, 4)))
    assert "2 or 3 elements" in str(caught.exception) and "test_linalg_toplevel.py" in str(caught.exception)
