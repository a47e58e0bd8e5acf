"""sg.numpy products (matmul, dot, vdot, inner, outer, tensordot, einsum, trace) against numpy."""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablegraph as sg
import stablegraph.numpy as snp

RNG = np.random.default_rng(13)

# (name, sg function, numpy function, operand shapes): every case of a dtype runs in one graph.
CASES = [
    *[("matmul", snp.matmul, np.matmul, shapes) for shapes in [
        ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
        ((2, 3), (5, 3, 4)), ((1, 2, 3), (4, 3, 2)), ((2, 1, 2, 3), (3, 3, 2)), ((5, 3), (2, 1, 3, 4)),
        ((3,), (2, 3, 4)), ((2, 4, 3), (3,)),
    ]],
    *[("dot", snp.dot, np.dot, shapes) for shapes in [
        ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
        ((2, 2, 3), (4, 3, 5)), ((2, 3), (4, 3, 5)), ((4,), (2, 4, 3)),
    ]],
    *[("inner", snp.inner, np.inner, shapes) for shapes in [
        ((3,), (3,)), ((2, 3), (4, 3)), ((2, 4, 3), (3,)), ((), (2, 3)),
    ]],
    ("outer", snp.outer, np.outer, ((3,), (4,))),
    ("outer", snp.outer, np.outer, ((2, 3), (2,))),
    ("vdot", snp.vdot, np.vdot, ((2, 3), (3, 2))),
    *[(f"tensordot {axes}", lambda a, b, ax=axes: snp.tensordot(a, b, ax),
       lambda a, b, ax=axes: np.tensordot(a, b, ax), shapes) for shapes, axes in [
        (((2, 3, 4), (3, 4, 5)), 2), (((2, 3, 4), (4, 5)), 1), (((2, 3), (4, 5)), 0),
        (((2, 3, 4), (4, 3, 5)), ((1, 2), (1, 0))), (((3, 4), (4, 3)), (0, 1)),
        (((2, 3, 4), (5, 2)), ([0], [-1])),
    ]],
    *[(f"trace {kw}", lambda a, kw=kw: snp.trace(a, **kw), lambda a, kw=kw: np.trace(a, **kw), shapes)
      for shapes, kw in [
        (((4, 4),), {}), (((4, 4),), {"offset": 1}), (((3, 5),), {"offset": -2}),
        (((2, 3, 4),), {"axis1": 1, "axis2": 2}), (((2, 3, 4),), {"axis1": 2, "axis2": 0, "offset": 1}),
    ]],
]  # fmt: skip

EINSUMS = [
    ("ij,jk->ik", (2, 3), (3, 4)),
    ("ij,jk", (2, 3), (3, 4)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    ("ii", (4, 4)),
    ("ii->i", (4, 4)),
    ("iij->ji", (3, 3, 2)),
    ("ij->", (2, 3)),
    ("ij->ji", (2, 3)),
    ("ij", (2, 3)),
    ("ji", (2, 3)),
    ("i,i", (3,), (3,)),
    ("i,j->ij", (3,), (4,)),
    ("ij,ij->ij", (1, 3), (2, 3)),
    ("ij,ij->", (1, 3), (2, 3)),
    ("ij,jk->ik", (2, 1), (3, 4)),
    ("...ij,...jk->...ik", (2, 3, 4), (4, 5)),
    ("...ij,...jk->...ik", (5, 1, 3, 4), (2, 4, 5)),
    ("...ij,...jk", (5, 1, 3, 4), (2, 4, 5)),
    ("...i->...", (2, 3)),
    ("...ii->...i", (2, 3, 3)),
    ("i...->...", (3, 2, 2)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 5)),
    ("ab,bc,ca->", (2, 3), (3, 4), (4, 2)),
    ("ijk,ikl,il->j", (2, 3, 4), (2, 4, 5), (2, 5)),
    (",ij->ij", (), (2, 3)),
    ("ij,j->i", (2, 3), (3,)),
    ("Ab,bC->AC", (2, 3), (3, 4)),
    ("ba,ab", (2, 3), (3, 2)),
    ("i j , j k -> k i", (2, 3), (3, 4)),
]
CASES += [(f"einsum {spec}", lambda *xs, s=spec: snp.einsum(s, *xs), lambda *xs, s=spec: np.einsum(s, *xs), shapes)
          for spec, *shapes in EINSUMS]  # fmt: skip


def _data(shape, dt):
    if dt == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(bool)
    return RNG.integers(-3, 4, size=shape).astype(dt) if dt == np.int32 else RNG.normal(size=shape).astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.bool_])
def test_products_against_numpy(run, dt):
    args, spans = [], []
    for _, _, _, shapes in CASES:
        spans.append((len(args), len(args) + len(shapes)))
        args += [_data(s, dt) for s in shapes]
    got = run(lambda *ps: [fn(*ps[a:b]) for (_, fn, _, _), (a, b) in zip(CASES, spans)], *args)
    for (name, _, ref, shapes), (a, b), g in zip(CASES, spans, got):
        want = np.asarray(ref(*args[a:b]))
        msg = f"{name} {shapes} {np.dtype(dt).name}"
        assert g.shape == want.shape, msg
        if name.startswith("trace"):  # bool and small ints sum in int32, like jax.numpy
            assert g.dtype == (np.int32 if dt in (np.bool_, np.int32) else dt), msg
        else:
            assert g.dtype == want.dtype, msg
        tol = 1e-4 if dt == np.float32 else 1e-10
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol, err_msg=msg)


def test_promotion_and_python_scalars(run):
    a = _data((2, 3), np.int32)
    b = _data((3, 4), np.float32)
    c = _data((3,), np.float64)
    got = run(
        lambda p, q, r: [snp.matmul(p, q), snp.dot(2.0, p), snp.einsum("ij,j->i", p, r), p @ q, snp.inner(p, r)],
        a, b, c,
    )  # fmt: skip
    for g, want in zip(got, [a @ b, 2.0 * a, a @ c, a @ b, np.inner(a, c)]):
        np.testing.assert_allclose(g, want, rtol=1e-6)
    assert [g.dtype for g in got] == [np.float32, np.float32, np.float64, np.float32, np.float64]


def test_einsum_sums_ellipsis_dims_missing_from_the_output_like_jax(run):
    x = _data((2, 5, 3), np.float32)
    got = run(lambda p: [snp.einsum("...i->i", p), snp.einsum("...ij->j", p)], x)
    np.testing.assert_allclose(got[0], x.sum((0, 1)), rtol=1e-5)
    np.testing.assert_allclose(got[1], x.sum((0, 1)), rtol=1e-5)


def test_symbolic_batch_dims(run):
    x = RNG.normal(size=(3, 4, 5)).astype(np.float32)
    w = RNG.normal(size=(5, 2)).astype(np.float32)
    got = run(
        lambda p, q: {
            "matmul": snp.matmul(p, q),
            "vec": snp.matmul(p, np.arange(5, dtype=np.float32)),
            "batched": snp.matmul(p, snp.transpose(p, (0, 2, 1))),
            "einsum": snp.einsum("bij,jk->bik", p, q),
            "einsum_ell": snp.einsum("...j,jk->...k", p, q),
            "trace": snp.einsum("bii->b", snp.einsum("bij,bkj->bik", p, p)),
            "tensordot": snp.tensordot(p, q, 1),
            "dot": snp.dot(p, q),
        },
        x, w, symbolic={0: ("batch", 4, 5)},
    )  # fmt: skip
    gram = np.einsum("bij,bkj->bik", x, x)
    wants = {
        "matmul": x @ w,
        "vec": x @ np.arange(5, dtype=np.float32),
        "batched": x @ np.swapaxes(x, 1, 2),
        "einsum": x @ w,
        "einsum_ell": x @ w,
        "trace": np.einsum("bii->b", gram),
        "tensordot": np.tensordot(x, w, 1),
        "dot": np.dot(x, w),
    }
    for k, want in wants.items():
        np.testing.assert_allclose(got[k], want, rtol=1e-4, atol=1e-5, err_msg=k)


_LABELS = "abcde"


@st.composite
def einsum_specs(draw):
    sizes = {c: draw(st.integers(1, 4)) for c in _LABELS}
    n_ops = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from(_LABELS), min_size=0, max_size=3)) for _ in range(n_ops)]
    used = sorted({c for t in terms for c in t})
    explicit = draw(st.booleans())
    out = draw(st.permutations(used)) if explicit else None
    if out is not None:
        out = out[: draw(st.integers(0, len(out)))]
    spec = ",".join("".join(t) for t in terms) + ("" if out is None else "->" + "".join(out))
    # Now and then a dim of size 1 that broadcasts against its label's size elsewhere.
    shapes = [
        tuple(1 if t.count(c) == 1 and draw(st.integers(0, 4)) == 0 else sizes[c] for c in t) for t in terms
    ]
    return spec, shapes


@settings(max_examples=15)
@given(einsum_specs(), st.sampled_from([np.float32, np.int32]))
def test_einsum_random_specs(run, case, dt):
    spec, shapes = case
    xs = [_data(s, dt) for s in shapes]
    got = run(lambda *ps: snp.einsum(spec, *ps), *xs)
    want = np.einsum(spec, *xs)
    assert got.shape == want.shape and got.dtype == want.dtype, spec
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=spec)


def test_errors_name_the_function_the_shapes_and_this_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32)
        y = sg.placeholder((4, 5), sg.float32)
        v = sg.placeholder((3,), sg.float32)
        checks = [
            (lambda: snp.matmul(x, y), "matmul wants x.shape[-1] == y.shape[-2], got (2, 3) and (4, 5)"),
            (lambda: x @ y, "matmul wants x.shape[-1] == y.shape[-2], got (2, 3) and (4, 5)"),
            (lambda: snp.dot(x, y), "dot wants a.shape[1] == b.shape[0], got (2, 3) and (4, 5)"),
            (lambda: snp.inner(x, y), "inner wants a.shape[1] == b.shape[1], got (2, 3) and (4, 5)"),
            (lambda: snp.tensordot(x, y, 1), "tensordot wants a.shape[1] == b.shape[0], got (2, 3) and (4, 5)"),
            (lambda: snp.tensordot(x, y, 3), "tensordot axes=3 does not fit operands f32[2,3] and f32[4,5]"),
            (lambda: snp.einsum("ij,jk", x, y), "einsum 'ij,jk': label 'j' has sizes 3 and 4 in operands (2, 3), (4, 5)"),
            (lambda: snp.einsum("ijk", x), "einsum subscripts 'ijk': operand 0 term 'ijk' does not fit rank 2"),
            (lambda: snp.einsum("ij->iz", x), "einsum subscripts 'ij->iz': output label 'z' names no input dim"),
            (lambda: snp.einsum("ij,j", x), "einsum subscripts 'ij,j' name 2 operands, got 1"),
            (lambda: snp.trace(v), "trace wants an array of rank >= 2, got f32[3]"),
            (lambda: snp.matmul(v, 2.0), "matmul wants operands of rank >= 1, got f32[3] and f32[]"),
        ]  # fmt: skip
        first = inspect.currentframe().f_lineno - len(checks) - 1
        for i, (call, words) in enumerate(checks):
            with pytest.raises(sg.GraphError) as e:
                call()
            assert words in str(e.value)
            assert f"test_linalg.py:{first + i}" in str(e.value), str(e.value)
