"""sg.lax's grouped, scaled and patch contractions (ops/lax_dots.py, lax_patches.py) and the
precision types (lax_precision.py) against jax.lax: values at random points and at edges (empty
groups, rows past the last group, inf and NaN inputs, padding), gradients against jax.grad,
vectorize against a loop; each test builds all its cases into one graph and one run."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
import stablegraph.lax as slax
import stablegraph.numpy as snp
from stablegraph.test_util import check_grads, check_vectorize, line_of

RNG = np.random.default_rng(26)
HERE = __file__


def _run(fn, *arrays):
    """fn(*placeholders) in one graph and one Session run."""
    g = sg.Graph()
    with g:
        phs = [sg.placeholder(a.shape, sg.dtype(a.dtype)) for a in arrays]
        out = fn(*phs)
    with sg.Session(g) as sess:
        return sess.run(out, dict(zip(phs, arrays)))


def _close(got, want, rtol=0.0, atol=0.0):
    for k, (a, b) in enumerate(zip(jax.tree.leaves(got), jax.tree.leaves(want))):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (k, a.shape, a.dtype, b.shape, b.dtype)
        np.testing.assert_allclose(
            a.astype(np.float64),
            b.astype(np.float64),
            rtol=rtol,
            atol=atol,
            equal_nan=True,
            err_msg=f"case {k}",
        )


def test_patches_and_local_convolutions_match_jax_values_and_grads():
    x = RNG.normal(size=(2, 3, 7, 6)).astype(np.float32)
    x[0, 1, 2, 3], x[1, 0, 0, 0] = np.inf, np.nan  # inf * 0 in the one-hot kernel: NaN, as jax's
    xh = np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1)))
    w = RNG.normal(size=(4, 3 * 6, 5, 5)).astype(np.float32)  # OIHW: 5x5 outputs of a VALID 3x2 window
    wh = RNG.normal(size=(4, 2, 6 * 3, 2)).astype(np.float32)  # HWIO: 4x2 outputs of SAME, strides (2, 3)
    xf = np.nan_to_num(x, posinf=1.0)
    xhf = np.ascontiguousarray(np.transpose(xf, (0, 2, 3, 1)))

    def local2(lax, a, b):
        return lax.conv_general_dilated_local(
            a, b, (2, 3), "SAME", (2, 3), dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    def cases(lax, np_, x, xh, w, wh, xf, xhf):
        loss = lambda a, b: np_.sum(np_.sin(local2(lax, a, b)))  # noqa: E731
        return {
            "same": lax.conv_general_dilated_patches(x, (3, 2), (1, 1), "SAME"),
            "dilated": lax.conv_general_dilated_patches(
                xh,
                (2, 3),
                (2, 1),
                [(1, 0), (0, 2)],
                rhs_dilation=(1, 2),
                dimension_numbers=("NHWC", "OIWH", "CNHW"),
            ),
            "lhs_dilated": lax.conv_general_dilated_patches(
                xh,
                (2, 2),
                (1, 1),
                [(0, 1), (1, 1)],
                lhs_dilation=(2, 1),
                dimension_numbers=("NHWC", "HWIO", "NHWC"),
            ),
            "one_by_one": lax.conv_general_dilated_patches(x, (1, 1), (1, 1), "VALID"),
            "local": lax.conv_general_dilated_local(xf, w, (1, 1), "VALID", (3, 2)),
            "local_nhwc": local2(lax, xhf, wh),
            "grads": (
                jax.grad(loss, (0, 1)) if lax is jax.lax else lambda a, b: sg.gradients(loss(a, b), [a, b])
            )(xhf, wh),
        }

    got = _run(lambda *a: cases(slax, snp, *a), x, xh, w, wh, xf, xhf)
    want = jax.jit(lambda *a: cases(jax.lax, jnp, *a))(x, xh, w, wh, xf, xhf)
    assert set(got) == set(want)
    _close(
        {k: got[k] for k in sorted(got) if k != "grads"}, {k: want[k] for k in sorted(want) if k != "grads"}
    )
    _close(got["grads"], want["grads"], rtol=1e-5, atol=1e-5)
    check_vectorize(
        lambda a: slax.conv_general_dilated_patches(a, (2, 2), (1, 1), "VALID"), [xf[:1, :2, :4, :3]]
    )


def test_ragged_dots_match_jax_in_every_mode():
    lhs = RNG.normal(size=(9, 4)).astype(np.float32)
    rhs = RNG.normal(size=(4, 4, 5)).astype(np.float32)
    sizes = {  # an empty group, rows past the last group, every row in one group, no rows at all
        "mixed": np.array([2, 0, 3, 1], np.int32), "all_last": np.array([0, 0, 0, 9], np.int32),
        "none": np.array([0, 0, 0, 0], np.int32), "first": np.array([9, 0, 0, 0], np.int32),
    }  # fmt: skip
    lc, rc, gc = (RNG.normal(size=(3, 6)).astype(np.float32), RNG.normal(size=(6, 2)).astype(np.float32),
                  np.array([1, 4, 0, 1], np.int32))  # fmt: skip
    lb, rb, gb = (RNG.normal(size=(2, 5, 3)).astype(np.float32), RNG.normal(size=(2, 2, 3, 4)).astype(np.float32),
                  np.array([[2, 3], [4, 0]], np.int32))  # fmt: skip
    lbat, rbat = RNG.normal(size=(3, 2, 4)).astype(np.float32), RNG.normal(size=(3, 4, 2)).astype(np.float32)

    def numbers(lax, *args):
        return lax.RaggedDotDimensionNumbers(*args)

    def cases(lax, np_, lhs, rhs, g1, g2, g3, g4, lc, rc, gc, lb, rb, gb, lbat, rbat):
        contracting = numbers(lax, (((1,), (0,)), ((), ())), [1], [])
        batched_free = numbers(lax, (((2,), (2,)), ((0,), (1,))), [1], [0])
        ragged_batch = numbers(lax, (((2,), (1,)), ((0,), (0,))), [0], [])

        def loss(a, b, c, d):
            return np_.sum(np_.sin(lax.ragged_dot(a, b, g1))) + np_.sum(
                lax.ragged_dot_general(c, d, gb, batched_free) ** 2
            )

        grad = jax.grad(loss, (0, 1, 2, 3)) if lax is jax.lax else lambda *v: sg.gradients(loss(*v), list(v))
        return {
            **{f"dot_{k}": lax.ragged_dot(lhs, rhs, g) for k, g in zip(sizes, (g1, g2, g3, g4))},
            "f64": lax.ragged_dot(lhs, rhs, g1, preferred_element_type=np_.float64),
            "contracting": lax.ragged_dot_general(lc, rc, gc, contracting),
            "batched_free": lax.ragged_dot_general(lb, rb, gb, batched_free),
            "ragged_batch": lax.ragged_dot_general(lbat, rbat, np_.array([1, 2], np_.int32), ragged_batch),
            "grads": grad(lhs, rhs, lb, rb),
        }

    arrays = (lhs, rhs, *sizes.values(), lc, rc, gc, lb, rb, gb, lbat, rbat)
    got = _run(lambda *a: cases(slax, snp, *a), *arrays)
    with jax.enable_x64(True):
        want = jax.jit(lambda *a: cases(jax.lax, jnp, *a))(*arrays)
    _close(got, want, rtol=1e-6, atol=1e-6)
    check_vectorize(lambda a: slax.ragged_dot(a, rhs[:2, :, :3], np.array([1, 2], np.int32)), [lhs[:4]])
    # jax has no gradient of the contracting mode: finite differences are the oracle
    contracting = slax.RaggedDotDimensionNumbers((((1,), (0,)), ((), ())), [1], [])
    check_grads(
        lambda a, b: slax.ragged_dot_general(a, b, gc, contracting), [lc.astype(np.float64), rc], order=1
    )


def test_ragged_dot_errors_name_the_line():
    g = sg.Graph()
    with g:
        lhs, rhs = sg.placeholder((6, 4), sg.float32), sg.placeholder((3, 4, 5), sg.float32)
        with pytest.raises(sg.GraphError, match=r"integer group_sizes") as e:
            slax.ragged_dot(lhs, rhs, sg.placeholder((3,), sg.float32))  # float group sizes
        assert f"test_lax_contractions.py:{line_of(HERE, '# float group sizes')}" in str(e.value)
        with pytest.raises(sg.GraphError, match=r"one entry per group"):
            slax.ragged_dot(lhs, rhs, sg.placeholder((2,), sg.int32))
        with pytest.raises(sg.GraphError, match="group_offset"):
            slax.ragged_dot(
                lhs, rhs, sg.placeholder((3,), sg.int32), group_offset=sg.placeholder((1,), sg.int32)
            )


def test_scaled_dot_and_precision_types_match_jax():
    a, b = RNG.normal(size=(4, 8)).astype(np.float32), RNG.normal(size=(8, 3)).astype(np.float32)
    sa, sb = (
        RNG.uniform(0.5, 2, size=(4, 2)).astype(np.float32),
        RNG.uniform(0.5, 2, size=(2, 3)).astype(np.float32),
    )
    a3, b3 = RNG.normal(size=(2, 4, 6)).astype(np.float32), RNG.normal(size=(2, 6, 3)).astype(np.float32)
    s3 = RNG.uniform(0.5, 2, size=(2, 4, 3)).astype(np.float32)

    def cases(lax, np_, a, b, sa, sb, a3, b3, s3):
        return {
            "scaled": lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb),
            "unscaled_f32": lax.scaled_dot(a, b, preferred_element_type=np_.float32),
            "batched": lax.scaled_dot(a3, b3, lhs_scale=s3, preferred_element_type=np_.float32),
            **{p: lax.dot(a, b, precision=p) for p in ("DEFAULT", "F32_F32_F32", "BF16_BF16_F32", "highest")},
            "preset": lax.dot(a, b, precision=lax.DotAlgorithmPreset.BF16_BF16_F32_X3),
            "pair": lax.dot_general(
                a, b, (((1,), (0,)), ((), ())), precision=(lax.Precision.HIGH, lax.Precision.DEFAULT)
            ),
            "exp": lax.exp(a, accuracy=lax.Tolerance(atol=1e-3, rtol=1e-3, ulps=2)),
            "tanh": lax.tanh(a, accuracy=lax.AccuracyMode.HIGHEST),
        }

    got = _run(lambda *v: cases(slax, snp, *v), a, b, sa, sb, a3, b3, s3)
    want = jax.jit(lambda *v: cases(jax.lax, jnp, *v))(a, b, sa, sb, a3, b3, s3)
    _close(got, want, rtol=1e-6, atol=1e-6)
    preset = slax.DotAlgorithmPreset.BF16_BF16_F32
    theirs = jax.lax.DotAlgorithmPreset.BF16_BF16_F32
    assert [p.name for p in slax.DotAlgorithmPreset] == [p.name for p in jax.lax.DotAlgorithmPreset]
    assert preset.supported_lhs_types == theirs.supported_lhs_types and preset.accumulation_type is np.float32
    assert slax.DotAlgorithmPreset.DEFAULT.accumulation_type is None and str(preset) == "BF16_BF16_F32"
    assert slax.DotAlgorithm(np.float32, np.float32, np.float32)._fields == jax.lax.DotAlgorithm._fields
    assert [m.name for m in slax.AccuracyMode] == [m.name for m in jax.lax.AccuracyMode]
    tol = slax.Tolerance(atol=1e-3)
    assert (tol.atol, tol.rtol, tol.ulps) == (1e-3, 0.0, 0) and tol == slax.Tolerance(1e-3)
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 2), sg.float32)
        with pytest.raises(sg.GraphError, match="precision must be") as e:
            slax.dot(x, x, precision="FASTER")  # an unknown precision
        assert f"test_lax_contractions.py:{line_of(HERE, '# an unknown precision')}" in str(e.value)
        with pytest.raises(sg.GraphError, match="accuracy must be"):
            slax.exp(x, accuracy=1e-3)
        with pytest.raises(sg.GraphError, match="multiple"):
            slax.scaled_dot(x, x, lhs_scale=x)  # a scale as large as its operand
        with pytest.raises(sg.GraphError, match="operand's size"):
            slax.scaled_dot(x, x, rhs_scale=sg.placeholder((1, 1), sg.float32))
