"""The convolution primitive and the lax-level helpers (ops/primitives/convolution.py, ops/lax_convolution.py) against jax.lax.

One table of cases (1-3 spatial dims, layouts, strides, paddings, dilations, groups,
preferred_element_type) runs in float32 and float64 with values, gradients of both
operands and a symbolic batch all from one graph and one run; jax.lax is the oracle.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops import lax_convolution as conv_ops
from stablegraph.ops.primitives.constants import constant
from stablegraph.test_util import check_grads

R = np.random.default_rng(0)


pytestmark = pytest.mark.usefixtures("jax_x64")


NCHW, NHWC = ("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC")
F64, F32 = "float64", "float32"
# (lhs shape, rhs shape, keyword arguments of conv_general_dilated, the dtype whose gradients are checked).
# Values run in float32 and float64. XLA's CPU compile of a convolution costs ~0.1 s, more for
# channels-first layouts and for the gradients' layouts, so gradients go to the cases that take
# a different path through the vjp (dilations, groups, layouts, the casts of preferred_element_type).
CASES = [
    ((2, 3, 10), (4, 3, 3), dict(window_strides=(1,), padding="VALID"), None),
    ((2, 11, 3), (3, 3, 4), dict(window_strides=(2,), padding="SAME", dimension_numbers=("NWC", "WIO", "NWC")), None),
    ((2, 3, 9, 8), (4, 3, 3, 2), dict(window_strides=(2, 1), padding="SAME", rhs_dilation=(1, 2)), F64),
    ((1, 7, 6, 2), (3, 2, 2, 5), dict(window_strides=(1, 2), padding=((1, 2), (0, 1)), dimension_numbers=NHWC), None),
    ((2, 5, 4, 3), (3, 2, 3, 4), dict(window_strides=(1, 1), padding=((2, 0), (1, 1)), lhs_dilation=(2, 1),
                                      rhs_dilation=(1, 2), dimension_numbers=NHWC), F64),
    ((2, 6, 6, 3), (3, 3, 1, 6), dict(window_strides=(1, 1), padding="SAME", feature_group_count=3,
                                      dimension_numbers=NHWC), F64),  # depthwise, multiplier 2
    ((2, 4, 7, 7), (6, 2, 3, 3), dict(window_strides=(2, 2), padding="VALID", feature_group_count=2,
                                      dimension_numbers=NCHW), F64),
    ((4, 6, 5, 3), (3, 2, 3, 4), dict(window_strides=(1, 2), padding=((1, 0), (0, 2)), batch_group_count=2,
                                      dimension_numbers=NHWC), F64),
    ((1, 2, 5, 6, 4), (3, 2, 2, 3, 2), dict(window_strides=(1, 2, 1), padding="SAME_LOWER"), None),
    ((2, 4, 5, 3, 2), (2, 3, 2, 2, 3), dict(window_strides=(2, 1, 1), padding="SAME", rhs_dilation=(1, 1, 2),
                                            dimension_numbers=("NDHWC", "DHWIO", "NDHWC")), F64),
    ((3, 6, 2, 5), (2, 4, 3, 3), dict(window_strides=(3, 1), padding="SAME",
                                      dimension_numbers=("CHNW", "WOHI", "WCNH")), F64),
    ((2, 6, 5, 3), (2, 2, 3, 4), dict(window_strides=(1, 1), padding="VALID", preferred_element_type="float64",
                                      dimension_numbers=NHWC), F32),
]  # fmt: skip


def _jax_conv(x, w, kw):
    kw = dict(kw)
    if kw.get("preferred_element_type") is not None:
        kw["preferred_element_type"] = np.dtype(kw["preferred_element_type"])
    return jax.lax.conv_general_dilated(x, w, **kw)


def _jax_oracle(data, cts):
    """jax's float64 values and (where a cotangent is given) cotangents of every case, from one jit."""

    def all_cases(xs, ws, cts):
        outs = []
        for x, w, ct, (_, _, kw, _) in zip(xs, ws, cts, CASES):
            y, pullback = jax.vjp(lambda x_, w_, kw=kw: _jax_conv(x_, w_, kw), x, w)
            outs.append([y] if ct is None else [y, *pullback(ct)])
        return outs

    return jax.jit(all_cases)(*zip(*data), cts)


def test_table_values_and_gradients_against_jax():
    # every case in float32 and float64, with d/dlhs and d/drhs for a random cotangent where asked, in
    # one run. The data are float32 numbers, so one float64 oracle serves both dtypes (and one compile).
    data = [(_f32(R.normal(size=ls)), _f32(R.normal(size=rs))) for ls, rs, _, _ in CASES]
    g, fetches, feeds, cts, checks = sg.Graph("conv_table"), [], {}, [None] * len(CASES), []
    with g:
        for dt in (np.float32, np.float64):
            for k, ((x, w), (_, _, kw, grads)) in enumerate(zip(data, CASES)):
                a, b = sg.placeholder(x.shape, sg.dtype(dt)), sg.placeholder(w.shape, sg.dtype(dt))
                feeds.update({a: x.astype(dt), b: w.astype(dt)})
                y = conv_ops.conv_general_dilated(a, b, **kw)
                checks.append((k, dt, y.dtype.np))
                if grads != np.dtype(dt).name:
                    fetches.append([y])
                    continue
                cts[k] = _f32(R.normal(size=y.shape))
                fetches.append([y, *sg.gradients(y, [a, b], grad_ys=[constant(cts[k].astype(y.dtype.np))])])
    got = sg.Session(g).run(fetches, feeds)
    wants = _jax_oracle(data, cts)
    for (k, dt, out_dt), gs in zip(checks, got):
        tol = 1e-4 if dt == np.float32 else 1e-11
        for name, gv, wv, want_dt in zip(("value", "d lhs", "d rhs"), gs, wants[k], (out_dt, dt, dt)):
            msg = f"{name} of {np.dtype(dt).name} case {CASES[k][2]}"
            assert gv.dtype == want_dt and gv.shape == wv.shape, msg
            np.testing.assert_allclose(gv, wv, rtol=tol, atol=tol, err_msg=msg)


def _f32(x):
    """float64 numbers that float32 holds exactly."""
    return x.astype(np.float32).astype(np.float64)


def test_symbolic_batch_passes_through():
    # the batch dim stays a symbol through infer, the vjp and vectorize; values match jax once fed
    x, w = R.normal(size=(3, 4, 6, 2)), R.normal(size=(2, 3, 2, 4))
    kw = dict(window_strides=(2, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    grouped = dict(kw, feature_group_count=2)
    wg = R.normal(size=(2, 2, 1, 4))
    g = sg.Graph("conv_symbolic")
    with g:
        a = sg.placeholder(("batch", 4, 6, 2), sg.float64)
        y = conv_ops.conv_general_dilated(a, constant(w), **kw)
        assert y.shape == ("batch", 2, 6, 4)
        yg = conv_ops.conv_general_dilated(a, constant(wg), **grouped)
        (dx,) = sg.gradients(snp_sum_squares(y), [a])
        lanes = sg.placeholder(("batch", 1, 4, 6, 2), sg.float64)
        per_example = sg.vmap(lambda e: conv_ops.conv_general_dilated(e, constant(w), **kw))(lanes)
        kernels = sg.placeholder(("k", 2, 3, 2, 4), sg.float64)
        per_kernel = sg.vmap(lambda k: conv_ops.conv_general_dilated(a, k, **kw))(kernels)
    ws = R.normal(size=(2, 2, 3, 2, 4))
    got = sg.Session(g).run([y, yg, dx, per_example, per_kernel], {a: x, lanes: x[:, None], kernels: ws})
    want = jax.lax.conv_general_dilated(x, w, **kw)
    np.testing.assert_allclose(got[0], want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[1], jax.lax.conv_general_dilated(x, wg, **grouped), rtol=1e-12, atol=1e-12)
    want_dx = jax.grad(lambda x_: (jax.lax.conv_general_dilated(x_, w, **kw) ** 2).sum())(x)
    np.testing.assert_allclose(got[2], want_dx, rtol=1e-12, atol=1e-12)
    want_pe = np.stack([jax.lax.conv_general_dilated(e[None], w, **kw) for e in x])
    np.testing.assert_allclose(got[3], want_pe, rtol=1e-12, atol=1e-12)
    want_pk = np.stack([jax.lax.conv_general_dilated(x, k, **kw) for k in ws])
    np.testing.assert_allclose(got[4], want_pk, rtol=1e-12, atol=1e-12)


def snp_sum_squares(y):
    return sg.numpy.sum(y * y)


def test_gradients_against_finite_differences():
    # float64, first order, forward and reverse: strides with both dilations, and feature groups
    def fn(x1, w1, x2, w2):
        return [
            conv_ops.conv_general_dilated(
                x1, w1, (2, 1), ((1, 0), (0, 1)), lhs_dilation=(1, 2), rhs_dilation=(2, 1)
            ),
            conv_ops.conv_general_dilated(x2, w2, (1,), "SAME", feature_group_count=2),
        ]

    check_grads(fn, [R.normal(size=(1, 2, 6, 3)), R.normal(size=(2, 2, 2, 2)),
                     R.normal(size=(2, 4, 5)), R.normal(size=(4, 2, 3))], order=1)  # fmt: skip


TRANSPOSE_CASES = [
    ((2, 5, 6, 3), (3, 3, 3, 4), dict(strides=(2, 2), padding="SAME")),
    ((2, 5, 6, 3), (3, 2, 3, 4), dict(strides=(2, 3), padding="VALID")),
    ((2, 5, 6, 3), (2, 3, 3, 4), dict(strides=(2, 1), padding=((1, 2), (0, 1)), rhs_dilation=(1, 2))),
    ((2, 5, 6, 3), (3, 3, 4, 3), dict(strides=(2, 2), padding="SAME", transpose_kernel=True)),
    ((2, 3, 7), (4, 3, 2), dict(strides=(3,), padding="VALID", dimension_numbers=("NCH", "OIH", "NCH"))),
    ((1, 4, 3, 2, 2), (2, 2, 2, 2, 3), dict(strides=(1, 2, 2), padding="SAME")),
]  # fmt: skip


def test_conv_transpose_against_jax():
    cases = [(R.normal(size=ls).astype(np.float32), R.normal(size=rs).astype(np.float32), kw)
             for ls, rs, kw in TRANSPOSE_CASES]  # fmt: skip
    got = _run_conv(cases, conv_ops.conv_transpose)
    for (x, w, kw), gv in zip(cases, got):
        np.testing.assert_allclose(
            gv, jax.lax.conv_transpose(x, w, **kw), rtol=1e-4, atol=1e-4, err_msg=str(kw)
        )


def test_wrappers_match_jax():
    x, w = R.normal(size=(2, 3, 8, 7)).astype(np.float32), R.normal(size=(4, 3, 3, 2)).astype(np.float32)
    calls = [
        ("conv", ((1, 2), "SAME"), {}),
        ("conv", ((2, 1), "VALID"), {"precision": "highest"}),
        ("conv_with_general_padding", ((1, 1), ((1, 1), (2, 0)), (2, 1), (1, 2)), {}),
        ("conv_with_general_padding", ((2, 2), "SAME", None, (2, 1)), {"precision": jax.lax.Precision.HIGH}),
    ]
    g = sg.Graph("conv_wrappers")
    with g:
        outs = [getattr(conv_ops, name)(constant(x), constant(w), *args, **kw) for name, args, kw in calls]
    for out, (name, args, kw) in zip(sg.Session(g).run(outs), calls):
        np.testing.assert_allclose(out, getattr(jax.lax, name)(x, w, *args, **kw), rtol=1e-4, atol=1e-4)


def _run_conv(cases, builder):
    g = sg.Graph("conv_cases")
    with g:
        outs = [builder(constant(x), constant(w), **kw) for x, w, kw in cases]
    return sg.Session(g).run(outs)


def test_dimension_numbers_and_pads_match_jax():
    for specs in [None, NCHW, NHWC, ("CHNW", "WOHI", "WCNH"), ("NWC", "WIO", "NWC")]:
        rank = 4 if specs is None else len(specs[0])
        got = conv_ops.conv_dimension_numbers((1,) * rank, (1,) * rank, specs)
        want = jax.lax.conv_dimension_numbers((1,) * rank, (1,) * rank, specs)
        assert tuple(map(tuple, got)) == tuple(map(tuple, want)), specs
        assert conv_ops.conv_dimension_numbers((1,) * rank, (1,) * rank, got) is got
    for args in [
        ((9, 8), (3, 2), (2, 3), "SAME"),
        ((9, 8), (4, 5), (1, 2), "SAME_LOWER"),
        ((5,), (2,), (2,), "VALID"),
    ]:
        want = [tuple(p) for p in jax.lax.padtype_to_pads(*args)]
        assert conv_ops.padtype_to_pads(*args) == want, args


def _error(build, *shapes, dtype=sg.float32):
    g = sg.Graph("conv_errors")
    with g, pytest.raises(sg.GraphError) as info:
        build(*(sg.placeholder(s, dtype) for s in shapes))
    return str(info.value)


@pytest.mark.parametrize(
    "shapes, kw, words",
    [
        (((2, 3, 8, 8), (4, 3, 3)), {}, ["one rank", "(2, 3, 8, 8)", "(4, 3, 3)"]),
        (((2, 3, 8, 8), (4, 5, 3, 3)), {}, ["features", "f32[2,3,8,8]", "f32[4,5,3,3]"]),
        (((2, 6, 8, 8), (4, 2, 3, 3)), {"feature_group_count": 4}, ["feature_group_count=4", "f32[2,6,8,8]"]),
        (((2, 6, 8, 8), (5, 3, 3, 3)), {"feature_group_count": 2}, ["output features", "f32[5,3,3,3]"]),
        (((3, 2, 8, 8), (4, 2, 3, 3)), {"batch_group_count": 2}, ["batch_group_count=2", "f32[3,2,8,8]"]),
        (((2, 4, 8, 8), (4, 2, 3, 3)), {"batch_group_count": 2, "feature_group_count": 2}, ["at most one"]),
        (((2, 3, 8), (4, 3, 3)), {"dimension_numbers": ("NCH", "OIW", "NCH")}, ["spatial letters"]),
        (((2, 3, 8), (4, 3, 3)), {"window_strides": (1, 1)}, ["window_strides", "f32[2,3,8]"]),
    ],
)
def test_bad_inputs_are_graph_errors_naming_the_shapes(shapes, kw, words):
    n = len(shapes[0]) - 2
    kw = {"window_strides": (1,) * n, "padding": "VALID", **kw}
    message = _error(lambda x, w: conv_ops.conv_general_dilated(x, w, **kw), *shapes)
    for word in ["convolution", *words]:
        assert word in message, message
    assert "test_convolution.py:" in message, message


def test_complex_values_and_gradients_against_jax(run):
    x = (R.normal(size=(2, 3, 6)) + 1j * R.normal(size=(2, 3, 6))).astype(np.complex64)
    w = (R.normal(size=(4, 3, 2)) + 1j * R.normal(size=(4, 3, 2))).astype(np.complex64)
    y_jax, pullback = jax.vjp(lambda x_, w_: jax.lax.conv(x_, w_, (2,), "SAME"), x, w)
    ct = (R.normal(size=y_jax.shape) + 1j * R.normal(size=y_jax.shape)).astype(np.complex64)

    def value_and_cotangents(a, b):
        y = conv_ops.conv(a, b, (2,), "SAME")
        return [y, *sg.gradients(y, [a, b], grad_ys=[constant(ct)])]

    got = run(value_and_cotangents, x, w)
    for gv, wv in zip(got, [y_jax, *pullback(ct)]):
        np.testing.assert_allclose(gv, wv, rtol=1e-4, atol=1e-4)


def test_mixed_dtypes_and_bad_preferred_type_are_errors():
    g = sg.Graph("conv_dtypes")
    with g:
        x, w = sg.placeholder((1, 2, 5), sg.float32), sg.placeholder((3, 2, 2), sg.float64)
        with pytest.raises(sg.GraphError, match="one dtype.*f32\\[1,2,5\\].*f64\\[3,2,2\\]"):
            conv_ops.conv(x, w, (1,), "VALID")
        with pytest.raises(sg.GraphError, match="preferred_element_type float16"):
            conv_ops.conv(
                x, constant(np.ones((3, 2, 2), np.float32)), (1,), "VALID", preferred_element_type="float16"
            )
