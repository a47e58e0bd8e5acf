"""The threefry2x32 primitive against jax's, its errors, its lowering, and how small draws are now."""

import inspect

import jax
import numpy as np
import pytest
from jax.extend import random as jxr

import stablegraph as sg
from stablegraph.demo import build as build_demo

R = np.random.default_rng(11)
_U32 = np.iinfo(np.uint32).max + 1


def _words(*shape):
    return R.integers(0, _U32, size=shape, dtype=np.uint64).astype(np.uint32)


# (k1 shape, k2 shape, counters shape): scalar keys over odd, empty-rank and 3-d sizes;
# key words that broadcast along trailing or leading dims; a symbolic counter dim.
CASES = [
    ((), (), (7,)),
    ((), (), (3, 5)),
    ((), (), ()),
    ((), (), (1,)),
    ((), (), (2, 3, 4)),
    ((5,), (), (3, 5)),
    ((3, 1), (1, 5), (3, 5)),
    ((), (), ("n",)),
]
N = 9  # the size fed for "n"


def _oracle(k1, k2, x1, x2):
    """jax's threefry: its public hash for scalar keys, its primitive for broadcast ones."""
    if k1.ndim == 0 and k2.ndim == 0:
        out = np.asarray(jxr.threefry_2x32((k1, k2), np.concatenate([x1.ravel(), x2.ravel()])))
        return out[: x1.size].reshape(x1.shape), out[x1.size :].reshape(x1.shape)
    k1, k2 = np.broadcast_to(k1, x1.shape), np.broadcast_to(k2, x1.shape)
    return tuple(np.asarray(o) for o in jxr.threefry2x32_p.bind(k1, k2, x1, x2))


def test_threefry2x32_equals_jax_on_random_words():
    g = sg.Graph()
    feeds, outs = {}, []
    with g:
        for i, (k1s, k2s, xs) in enumerate(CASES):
            concrete = tuple(N if d == "n" else d for d in xs)
            phs = [
                sg.placeholder(s, sg.uint32, name=f"{w}{i}")
                for w, s in zip(("k1", "k2", "a", "b"), (k1s, k2s, xs, xs))
            ]
            feeds.update({p: _words(*s) for p, s in zip(phs, (k1s, k2s, concrete, concrete))})
            outs.append(sg.random.threefry2x32(*phs))
            assert outs[-1][0].shape == xs and outs[-1][1].dtype == sg.uint32
    with sg.Session(g) as sess:
        got = sess.run(outs, feeds)
    values = list(feeds.values())
    for i, case in enumerate(CASES):
        want = _oracle(*values[4 * i : 4 * i + 4])
        for w, o in zip(want, got[i]):
            np.testing.assert_array_equal(o, w, err_msg=str(case))


def test_sites_of_one_shape_share_one_private_function():
    g = sg.Graph()
    with g:
        k = sg.placeholder((2,), sg.uint32, name="k")
        a = sg.random.bits(k, (3, 5))
        b = sg.random.bits(sg.random.fold_in(k, 1), (3, 5))
    with sg.Session(g) as sess:
        text = sess.lower([a, b], {k: np.zeros(2, np.uint32)})
    assert text.count("func.func private @threefry2x32_3x5(") == 1
    assert text.count("call @threefry2x32_3x5(") == 2
    assert text.count("call @threefry2x32_scalar(") == 1  # fold_in hashes one counter pair


def test_draws_inside_scan_and_cond_bodies():
    # The private function is added to the module from inside the loop's and the case's regions.
    key = np.array([0, 42], np.uint32)
    g = sg.Graph()
    with g:
        k = sg.placeholder((2,), sg.uint32, name="k")
        p = sg.placeholder((), sg.bool_, name="p")
        _, ys = sg.scan(
            lambda c, i: (c, sg.random.bits(sg.random.fold_in(k, i), (3,))), 0.0, sg.numpy.arange(4)
        )
        z = sg.cond(p, lambda: sg.random.bits(k, (3,)), lambda: sg.random.bits(sg.random.fold_in(k, 9), (3,)))
    with sg.Session(g) as sess:
        got_ys, got_z = sess.run([ys, z], {k: key, p: False})
    with jax.enable_x64(False), jax.threefry_partitionable(True):
        want_ys = [jax.random.bits(jax.random.fold_in(key, i), (3,)) for i in range(4)]
        want_z = jax.random.bits(jax.random.fold_in(key, 9), (3,))
    np.testing.assert_array_equal(got_ys, np.stack(want_ys))
    np.testing.assert_array_equal(got_z, want_z)


def test_threefry2x32_errors_point_here():
    g = sg.Graph()
    with g:
        u = sg.placeholder((), sg.uint32)
        i = sg.placeholder((), sg.int32)
        x = sg.placeholder((4,), sg.uint32)
        y = sg.placeholder((3,), sg.uint32)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            sg.random.threefry2x32(i, u, x, x)
        assert "threefry2x32 wants uint32 operands, got k1 of i32[]" in str(e.value)
        assert f"test_threefry.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError, match=r"counters x1, x2 of one shape, got u32\[4\] and u32\[3\]"):
            sg.random.threefry2x32(u, u, x, y)
        with pytest.raises(
            sg.GraphError, match=r"broadcast to the counters' shape u32\[4\], got k2 of u32\[3\]"
        ):
            sg.random.threefry2x32(u, y, x, x)


def test_a_draw_is_a_few_nodes():
    # With 20 unrolled rounds per hash this graph had 345 nodes (349 from sg.random.key(0)).
    g = sg.Graph()
    with g:
        key = sg.placeholder((2,), sg.uint32, name="key")
        sg.random.normal(key, (3, 4))
    assert len(g) <= 32
    assert [n.op.name for n in g.nodes].count("threefry2x32") == 1


def test_the_demo_graph_shrank():
    # demo.py's model (glorot initializers, dropout, Adam): 2,349 nodes with unrolled rounds.
    g, _ = build_demo(64, 10, 600)
    assert len(g) <= 500
