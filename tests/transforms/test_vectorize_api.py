"""sg.vectorize as users meet it: state, ops without a rule, random draws over a batch of keys,
and chunk_size (transforms/vectorize.py, transforms/vectorize_args.py)."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph import opdef
from stablegraph.ops.primitives.registry import bind

R = np.random.default_rng(0)
F32 = np.float32


def here() -> str:
    """``test_vectorize_api.py:<line>`` of the caller's next line."""
    return f"test_vectorize_api.py:{inspect.currentframe().f_back.f_lineno + 1}"


# -- state and missing rules --------------------------------------------------------------------
def test_variables_read_inside_are_the_same_for_every_lane():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.array([1.0, 2.0, 3.0], F32), name="v")
        x = sg.placeholder((4, 3), sg.float32, name="x")
        y = sg.vmap(lambda r: r * v + snp.sum(v))(x)
    xv = R.normal(size=(4, 3)).astype(F32)
    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: xv}), xv * [1, 2, 3] + 6, rtol=1e-6)


def test_an_assign_inside_is_an_error_at_the_users_line():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.zeros(3, F32), name="v")
        x = sg.placeholder((4, 3), sg.float32, name="x")

        lines = []

        def step(r):
            lines.append(here())
            return v.assign(r)

        with pytest.raises(sg.GraphError) as e:
            sg.vmap(step)(x)
    message = str(e.value)
    assert "cannot vectorize assign" in message and "write to state" in message, message
    assert lines[0] in message, message


def test_a_primitive_without_a_batch_rule_is_an_error_naming_it_and_the_line(monkeypatch):
    monkeypatch.setattr(opdef, "_OPS", dict(opdef._OPS))  # keep the fake op out of the real registry
    fake = sg.OpDef("fake_unbatchable", lambda attrs, x: x, reasons={"batch": "a test op"})
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 3), sg.float32, name="x")
        line = here()
        f = sg.vmap(lambda r: bind(fake, snp.sin(r)) * 2.0)
        with pytest.raises(sg.GraphError) as e:
            f(x)
    message = str(e.value)
    assert "fake_unbatchable" in message and "a test op" in message, message
    assert line in message, message


def test_a_vectorized_function_with_loops_takes_any_batch_size():
    def per_lane(x):
        doubled = sg.while_loop(lambda v: snp.abs(v) < 10.0, lambda v: v * 2.0, x)
        return doubled + sg.scan(lambda c, t: (c + t, c), x, snp.ones((3,), F32))[0]

    vf = sg.vectorize(sg.function(per_lane, [sg.TensorType((), sg.float32)]))
    assert vf.in_types == (sg.TensorType(("vmap",), sg.float32),)
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n",), sg.float32, name="x")
        y = vf(x)  # the loops' bodies keep the symbol vmap: the lowering solves it per body
    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: np.array([1, -3, 7, 0.5], F32)}), [20, -12, 24, 19.5])


# -- random draws over a batch of keys equal jax.vmap's -------------------------------------------
def test_random_draws_over_batched_keys_equal_jax_vmap():
    R_, J = sg.random, jax.random
    draws = {
        "normal": (lambda k: R_.normal(k, (3,)), lambda k: J.normal(k, (3,))),
        "uniform": (lambda k: R_.uniform(k, (2, 2), minval=-1.0), lambda k: J.uniform(k, (2, 2), minval=-1.0)),
        "bits": (lambda k: R_.bits(k, (5,)), lambda k: J.bits(k, (5,))),
        "split": (lambda k: R_.split(k, 3), lambda k: J.split(k, 3)),
        "fold_in": (lambda k: R_.fold_in(k, 11), lambda k: J.fold_in(k, 11)),
    }  # fmt: skip

    def jax_draws(keys):
        out = {name: jax.vmap(j)(keys) for name, (_, j) in draws.items()}
        out["lanes"] = jax.vmap(lambda i: J.normal(J.fold_in(J.PRNGKey(0), i), (2,)))(jnp.arange(4))
        return out

    with jax.enable_x64(False), jax.threefry_partitionable(True):
        keys = np.asarray(J.split(J.PRNGKey(7), 4))
        want = jax.jit(jax_draws)(keys)
    g = sg.Graph()
    with g:
        k = sg.placeholder((4, 2), sg.uint32, name="keys")
        got = {name: sg.vmap(s)(k) for name, (s, _) in draws.items()}
        # a key per lane made inside: fold_in of a batched counter
        got["lanes"] = sg.vmap(lambda i: R_.normal(R_.fold_in(R_.key(0), i), (2,)))(snp.arange(4))
    with sg.Session(g) as sess:
        out = sess.run(got, {k: keys})
    for name, w in want.items():
        np.testing.assert_array_equal(out[name], np.asarray(w), err_msg=name)


# -- chunk_size ---------------------------------------------------------------------------------
def pairwise(x, ys):
    """Attention-like weights: a per-lane (m, n) temporary that XLA keeps whole (what chunks shrink)."""
    e = snp.exp(snp.tanh(x[:, None] * ys[None, :]))
    return e / snp.sum(e, axis=1, keepdims=True) @ ys


def test_chunks_give_the_unchunked_results():
    g = sg.Graph()
    with g:
        x = sg.placeholder((10, 5), sg.float32, name="x")
        ys = sg.placeholder((7,), sg.float32, name="ys")
        f = sg.vmap(pairwise, in_axes=(0, None))
        whole = f(x, ys)
        # 10 lanes in chunks of 3, 4 and 6 leave remainders; out_axes moves the batch axis
        chunked = [sg.vmap(pairwise, in_axes=(0, None), chunk_size=c)(x, ys) for c in (3, 4, 6, 10, 16)]
        moved = sg.vmap(pairwise, in_axes=(1, None), out_axes=1, chunk_size=4)(snp.transpose(x), ys)
    xv, yv = R.normal(size=(10, 5)).astype(F32), R.normal(size=7).astype(F32)
    with sg.Session(g) as sess:
        w, cs, m = sess.run([whole, chunked, moved], {x: xv, ys: yv})
    for c in cs:
        np.testing.assert_allclose(c, w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(m, w.T, rtol=1e-6, atol=1e-6)


def test_smaller_chunks_need_less_temporary_memory():
    g = sg.Graph()
    with g:
        x = sg.placeholder((256, 64), sg.float32, name="x")
        ys = sg.placeholder((512,), sg.float32, name="ys")
        outs = [sg.vmap(pairwise, in_axes=(0, None), chunk_size=c)(x, ys) for c in (None, 64, 8)]
    feeds = {x: np.zeros((256, 64), F32), ys: np.zeros(512, F32)}
    with sg.Session(g) as sess:
        temp = [sess.lower(o, feeds).compile().memory_analysis()["temp_size_in_bytes"] for o in outs]
    assert temp[0] > temp[1] > temp[2], temp


def test_chunk_size_errors():
    g = sg.Graph()
    with g:
        x = sg.placeholder((10, 5), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="positive int chunk_size") as e:
            line = here()
            sg.vmap(snp.sin, chunk_size=0)
        assert line in str(e.value)
        with pytest.raises(sg.GraphError, match="out_axes=None"):
            sg.vmap(lambda r: r * 2.0, out_axes=None, chunk_size=3)(x)


def test_chunks_of_a_symbolic_batch_and_of_a_vectorized_function():
    """A batch size known only at run time: size // chunk scan steps and a size % chunk remainder
    (empty when the size divides), the same Function specialized to each fed size."""
    pair = sg.function(pairwise, [sg.TensorType((5,), F32), sg.TensorType((7,), F32)])
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 5), sg.float32, name="x")
        ys = sg.placeholder((7,), sg.float32, name="ys")
        whole = sg.vmap(pairwise, in_axes=(0, None))(x, ys)
        chunked = sg.vectorize(pair, in_axes=(0, None), chunk_size=4)(x, ys)
    with sg.Session(g) as sess:
        for n in (10, 8, 3):
            xv, yv = R.normal(size=(n, 5)).astype(F32), R.normal(size=7).astype(F32)
            w, c = sess.run([whole, chunked], {x: xv, ys: yv})
            np.testing.assert_allclose(c, w, rtol=1e-6, atol=1e-6, err_msg=f"n={n}")
