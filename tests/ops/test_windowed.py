"""reduce_window (sum, max, min) and select_and_scatter_add against jax.lax, in values and gradients."""

import inspect
from contextlib import contextmanager

import jax
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.windowed import padding_pairs, select_and_scatter_add, window_reduce
from stablegraph.test_util import check_grads

RNG = np.random.default_rng(3)


@contextmanager
def enable_x64():
    """jax computes in float64 inside (its switch is global: put back after)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


JAX_OPS = {"sum": (jax.lax.add, 0.0), "max": (jax.lax.max, -np.inf), "min": (jax.lax.min, np.inf)}

# (window_dimensions, window_strides, padding, base_dilation, window_dilation) over an operand (2, 7, 6)
WINDOWS = [
    ((1, 2, 2), (1, 2, 2), "VALID", None, None),
    ((1, 3, 3), (1, 1, 1), "SAME", None, None),
    ((2, 3, 2), (1, 2, 3), "SAME", None, None),
    ((1, 3, 1), None, ((0, 0), (2, 1), (0, 0)), None, None),
    ((2, 2, 2), (1, 1, 2), ((1, 0), (0, 3), (1, 1)), (1, 2, 1), None),
    ((1, 2, 3), (1, 3, 1), "VALID", None, (1, 2, 2)),
    ((1, 3, 2), (1, 2, 2), ((0, 0), (1, 2), (-1, 1)), (1, 2, 3), (1, 2, 1)),
    ((2, 7, 6), None, "VALID", None, None),  # one window: the whole operand
]
SHAPE = (2, 7, 6)


def _jax_reduce_window(x, kind, window, strides, padding, base, wdil):
    computation, init = JAX_OPS[kind]
    return jax.lax.reduce_window(
        x, np.asarray(init, x.dtype), computation, window, strides, padding, base, wdil
    )


def _cases():
    return [(kind, dt, *w) for kind in JAX_OPS for dt in (np.float32, np.float64) for w in WINDOWS]


def test_values_match_jax_over_windows_strides_paddings_dilations_and_dtypes(run):
    cases = _cases()
    xs = [RNG.normal(size=SHAPE).astype(dt) for _, dt, *_ in cases]
    got = run(lambda *ps: [window_reduce(p, k, *w) for p, (k, _, *w) in zip(ps, cases)], *xs)
    with enable_x64():
        wants = jax.jit(lambda vs: [_jax_reduce_window(v, k, *w) for v, (k, _, *w) in zip(vs, cases)])(xs)
        for (kind, dt, *w), g, want in zip(cases, got, wants):
            assert g.dtype == dt and g.shape == want.shape, (kind, dt, w)
            np.testing.assert_allclose(
                g, want, rtol=1e-5 if dt == np.float32 else 1e-12, err_msg=f"{kind} {w}"
            )


def test_integer_operands_and_an_explicit_init(run):
    x = RNG.integers(-9, 9, size=(5, 6)).astype(np.int32)
    cases = [("sum", None), ("max", None), ("min", None), ("max", 0), ("sum", 100)]
    got = run(lambda p: [window_reduce(p, k, (2, 3), (1, 2), "SAME", init=i) for k, i in cases], x)
    for (kind, init), g in zip(cases, got):
        computation, identity = JAX_OPS[kind]
        start = identity if init is None else init
        if kind != "sum" and init is None:
            start = np.iinfo(np.int32).min if kind == "max" else np.iinfo(np.int32).max
        want = jax.lax.reduce_window(x, np.int32(start), computation, (2, 3), (1, 2), "SAME")
        np.testing.assert_array_equal(g, want, err_msg=f"{kind} init {init}")


def _grad_cases():
    # jax has no max/min gradient with window dilation: those are checked by finite differences below
    return [(k, *w) for k in JAX_OPS for w in WINDOWS if k == "sum" or w[4] is None]


def test_gradients_match_jax_grad():
    cases = _grad_cases()
    x = RNG.normal(size=SHAPE).astype(np.float32)
    outs = [_jax_reduce_window(x, k, *w) for k, *w in cases]
    weights = [RNG.normal(size=o.shape).astype(np.float32) for o in outs]
    g = sg.Graph()
    with g:
        p = sg.placeholder(SHAPE, sg.float32)
        grads = [
            sg.grad(lambda t, c=c, wt=wt: (window_reduce(t, c[0], *c[1:]) * wt).sum())(p)
            for c, wt in zip(cases, weights)
        ]
    with sg.Session(g) as sess:
        got = sess.run(grads, {p: x})

    # one jitted jax function for every case: one compile
    def jax_loss(xs):
        return sum((_jax_reduce_window(t, k, *w) * wt).sum() for t, (k, *w), wt in zip(xs, cases, weights))

    wants = jax.jit(jax.grad(jax_loss))([x] * len(cases))
    for (kind, *w), gr, want in zip(cases, got, wants):
        np.testing.assert_allclose(gr, want, rtol=1e-5, atol=1e-6, err_msg=f"{kind} {w}")


def test_ties_send_the_cotangent_to_the_first_extremum_like_jax():
    # jax's vjp (select_and_scatter with >=, <=) picks the first maximal element of each window in
    # row-major window order; overlapping windows each pick their own
    x = np.array([[1, 3, 3, 0], [3, 2, 3, 3], [0, 3, 1, 3]], np.float32)
    cases = [
        ("max", (2, 2), (1, 1), "VALID"),
        ("max", (2, 3), (1, 1), "SAME"),
        ("min", (3, 2), (1, 2), "VALID"),
    ]
    g = sg.Graph()
    with g:
        p = sg.placeholder(x.shape, sg.float32)
        grads = [sg.grad(lambda t, c=c: window_reduce(t, c[0], *c[1:]).sum())(p) for c in cases]
    with sg.Session(g) as sess:
        got = sess.run(grads, {p: x})
    wants = jax.jit(
        jax.jacrev(lambda t: [_jax_reduce_window(t, k, *w, None, None).sum() for k, *w in cases])
    )(x)
    for (kind, *w), gr, want in zip(cases, got, wants):
        np.testing.assert_array_equal(gr, want, err_msg=f"{kind} {w}")


def test_dilated_max_min_and_init_gradients_by_finite_differences():
    # first and second order, forward and reverse, in float64; distinct values keep max/min smooth
    x = RNG.permutation(42).reshape(6, 7) * 0.25 + RNG.uniform(0, 0.1, size=(6, 7))
    cases = [
        ("max", (2, 3), (1, 2), ((1, 0), (0, 1)), (1, 1), (2, 2)),
        ("min", (3, 2), (2, 1), "SAME", (2, 1), (1, 3)),
        ("sum", (2, 2), (2, 1), ((1, 2), (0, 1)), (2, 3), (2, 1)),
    ]

    def fn(t):
        outs = [window_reduce(t, k, *w) for k, *w in cases]
        outs.append(window_reduce(t, "max", (2, 2), (1, 1), "VALID", init=5.0))  # init beats some windows
        return outs

    check_grads(fn, [x])


def test_select_and_scatter_add_is_the_max_pool_cotangent_and_its_own_vjp_matches_jax():
    x = RNG.normal(size=(5, 6)).astype(np.float32)
    window, strides, padding = (3, 2), (2, 1), ((1, 1), (0, 1))
    src = RNG.normal(
        size=jax.eval_shape(
            lambda t: _jax_reduce_window(t, "max", window, strides, padding, None, None), x
        ).shape
    )
    src = src.astype(np.float32)
    ct = RNG.normal(size=x.shape).astype(np.float32)
    g = sg.Graph()
    with g:
        s, p = sg.placeholder(src.shape, sg.float32), sg.placeholder(x.shape, sg.float32)
        args = (window, strides, padding)
        outs = [select_and_scatter_add(s, p, kind, *args) for kind in ("max", "min")]
        back = [
            sg.grad(lambda v, kind=kind: (select_and_scatter_add(v, p, kind, *args) * ct).sum())(s)
            for kind in ("max", "min")
        ]
    with sg.Session(g) as sess:
        got, got_back = sess.run([outs, back], {s: src, p: x})
    for kind, out, gb in zip(("max", "min"), got, got_back):

        def scatter(v, kind=kind):
            return jax.vjp(lambda t: _jax_reduce_window(t, kind, window, strides, padding, None, None), x)[1](
                v
            )[0]

        np.testing.assert_allclose(out, scatter(src), rtol=1e-6, err_msg=kind)
        np.testing.assert_allclose(
            gb, jax.grad(lambda v: (scatter(v) * ct).sum())(src), rtol=1e-6, err_msg=kind
        )


def test_padding_pairs_follow_lax_padtype_to_pads():
    for shape, window, strides in [((7, 6), (3, 2), (2, 4)), ((5,), (4,), (1,)), ((9, 2), (2, 5), (3, 1))]:
        for kind in ("SAME", "SAME_LOWER", "VALID"):
            want = tuple(tuple(p) for p in jax.lax.padtype_to_pads(shape, window, strides, kind))
            assert padding_pairs(kind, shape, window, strides) == want, (shape, window, strides, kind)


def test_a_symbolic_batch_dim(run):
    x = RNG.normal(size=(4, 6)).astype(np.float32)
    got = run(
        lambda p: window_reduce(p, "max", (1, 3), (1, 2), ((0, 0), (1, 1))), x, symbolic={0: ("batch", 6)}
    )
    want = _jax_reduce_window(x, "max", (1, 3), (1, 2), ((0, 0), (1, 1)), None, None)
    np.testing.assert_array_equal(got, want)


def test_errors_name_the_op_the_shapes_and_this_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 4), sg.float32)
        c = sg.placeholder((3, 4), sg.complex64)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            window_reduce(x, "max", (4, 1))
        assert "reduce_window_max wants each (padded, dilated) dim to hold a window" in str(e.value)
        assert "f32[3,4]" in str(e.value) and f"test_windowed.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError, match=r"wants one window dimension per dim of f32\[3,4\]"):
            window_reduce(x, "sum", (2,))
        with pytest.raises(sg.GraphError, match=r"reduce_window_sum wants window_strides >= 1, got \(0, 1\)"):
            window_reduce(x, "sum", (2, 2), (0, 1))
        with pytest.raises(sg.GraphError, match="reduce_window_min is not defined for complex operands"):
            window_reduce(c, "min", (2, 2))
        with pytest.raises(sg.GraphError, match="window_reduce wants kind in"):
            window_reduce(x, "mean", (2, 2))
        with pytest.raises(sg.GraphError, match="padding wants 'SAME', 'SAME_LOWER', 'VALID'"):
            window_reduce(x, "sum", (2, 2), padding="FULL")
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            select_and_scatter_add(x, x, "max", (2, 2), (1, 1), ((0, 0), (0, 0)))
        assert "select_and_scatter_add (max) wants a source of one element per window, shape (2, 3)" in str(
            e.value
        )
        assert f"test_windowed.py:{line}" in str(e.value)
