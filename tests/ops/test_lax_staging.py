"""sg.lax's staging names (ops/lax_staging.py, primitives/staging.py): optimization_barrier on
nests with gradients and vectorize, composite as one library call with jax's values and grads,
platform_dependent choosing by the Session's platform (and its error at the user's line),
dce_sink kept by sg.simplify, shape_as_value of symbolic shapes, stage."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
import stablegraph.lax as slax
import stablegraph.numpy as snp
from stablegraph.backend import session as session_module
from stablegraph.test_util import check_vectorize, line_of

HERE = __file__
X = np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -0.25]], np.float32)


def _tangent(lax, np_, plain=False):
    def decomposition(x, scale=None):
        return np_.sin(x) / np_.cos(x) * (1 if scale is None else scale)

    return decomposition if plain else lax.composite(decomposition, name="my.tangent", version=1)


def test_barrier_composite_and_platform_dependent_match_jax_values_and_grads():
    def cases(lax, np_, x):
        tangent = _tangent(lax, np_)
        fenced = lax.optimization_barrier({"a": x * 2, "b": (x, 1.5)})

        def loss(v):  # jax's composite has no derivative: its decomposition is the oracle
            w, _ = lax.optimization_barrier((v * v, v))
            return np_.sum(_tangent(lax, np_, plain=lax is jax.lax)(w, scale=None)) + np_.sum(
                lax.platform_dependent(v, cpu=np_.sin, cuda=np_.cos, default=np_.exp)
            )

        grad = jax.grad(loss) if lax is jax.lax else lambda v: sg.gradients(loss(v), [v])[0]
        return {
            "fenced": fenced, "tangent": tangent(x), "scaled": tangent(x, scale=2.0),
            "cpu": lax.platform_dependent(x, cpu=lambda v: v + 1, default=lambda v: v - 1),
            "default": lax.platform_dependent(x, tpu=lambda v: v + 1, default=lambda v: v * 10),
            "cuda_first": lax.platform_dependent(x, cuda=lambda v: v + 1, cpu=lambda v: v - 1),
            "grad": grad(x),
        }  # fmt: skip

    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float32)
        got_t = cases(slax, snp, x)
    with sg.Session(g) as sess:
        got = sess.run(got_t, {x: X})
    want = jax.jit(lambda v: cases(jax.lax, jnp, v))(X)
    for k, (a, b) in enumerate(zip(jax.tree.leaves(got), jax.tree.leaves(want))):
        np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=f"leaf {k}")
    listing = str(g)
    assert "my.tangent.v1" in listing and "platform_index" in listing and "optimization_barrier" in listing
    check_vectorize(lambda v: slax.optimization_barrier((v * 2, v))[0] + _tangent(slax, snp)(v), [X])


def test_platform_dependent_without_a_branch_for_the_platform_is_an_error_at_the_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float32)
        y = slax.platform_dependent(x, tpu=lambda v: v)  # only a tpu branch
    with sg.Session(g) as sess, pytest.raises(sg.GraphError, match="no branch for platform 'cpu'") as e:
        sess.run(y, {x: np.ones(2, np.float32)})
    assert f"test_lax_staging.py:{line_of(HERE, '# only a tpu branch')}" in str(e.value)
    with g, pytest.raises(sg.GraphError, match="at least one platform"):
        slax.platform_dependent(x)
    with g, pytest.raises(sg.GraphError, match="use 'cuda' or 'rocm'"):
        slax.platform_dependent(x, gpu=lambda v: v)


def test_platform_dependent_lowered_for_a_gpu_takes_the_cuda_branch(monkeypatch):
    real = session_module.lower_module

    def lower_for_cuda(nodes, args, fetches, bindings, aliases, mesh, shardings, platform, *rest):
        return real(nodes, args, fetches, bindings, aliases, mesh, shardings, "cuda", *rest)

    monkeypatch.setattr(session_module, "lower_module", lower_for_cuda)  # lowers for cuda, runs on the CPU
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32)
        picked = (slax.platform_dependent(x, cpu=lambda v: v + 1, cuda=lambda v: v * 10),
                  slax.platform_dependent(x, rocm=lambda v: v - 5, default=lambda v: v * 0))  # fmt: skip
    with sg.Session(g) as sess:
        got = sess.run(picked, {x: np.array([1.0, 2.0, -3.0], np.float32)})
    np.testing.assert_array_equal(got[0], [10.0, 20.0, -30.0])  # cuda's branch
    np.testing.assert_array_equal(got[1], [0.0, 0.0, 0.0])  # rocm is another GPU's: the default runs


def test_dce_sink_shape_as_value_and_stage():
    def body(x):
        kept = snp.exp(x) * 3
        slax.dce_sink({"kept": kept})
        return x + 1

    fn = sg.function(body, [sg.TensorType((3,), sg.float32)])
    small = sg.simplify(fn)
    assert "dce_sink" in str(small) and "exp" in str(small)  # the sink keeps what it reads
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 3), sg.float32)
        slax.dce_sink(x * 2)
        shapes = (slax.shape_as_value(x.shape), slax.shape_as_value((4, 5)), slax.shape_as_value(()),
                  slax.shape_as_value((x.shape[0] - 1, 2)))  # fmt: skip
        staged = slax.stage(np.arange(3, dtype=np.int32)), slax.stage(2.5), slax.stage(x)
    assert staged[2] is x and staged[1].dtype is sg.float32
    with sg.Session(g) as sess:
        got = sess.run([shapes, staged[:2]], {x: np.zeros((7, 3), np.float32)})
    want = (np.array([7, 3]), np.array([4, 5]), np.zeros((0,)), np.array([6, 2]))
    for a, b in zip(got[0], want):
        assert a.dtype == np.int32 and a.shape == b.shape and (a == b).all()
    np.testing.assert_array_equal(got[1][0], np.arange(3))
    np.testing.assert_array_equal(got[1][1], np.float32(2.5))
    np.testing.assert_array_equal(jax.lax.shape_as_value((4, 5)), got[0][1])
    with g, pytest.raises(sg.GraphError, match="stage wants") as e:
        slax.stage(object())  # not a value
    assert f"test_lax_staging.py:{line_of(HERE, '# not a value')}" in str(e.value)
