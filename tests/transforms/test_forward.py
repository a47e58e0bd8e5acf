"""The forward pass (transforms/forward.py) and the elementwise jvp rules against jax.jvp.

Every elementwise op's jvp (float64, and complex128 where it has one), the
generic rules for ops declared ``linear``/``bilinear``, the transposed-vjp
fallback, composite functions and higher orders (jvp of jvp, grad of jvp,
jvp of grad), each table built into one graph and run once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph.opdef import all_ops
from stablegraph.ops.primitives import compare as cmp
from stablegraph.ops.primitives import elementwise as ew
from stablegraph.ops.primitives.registry import bind
from stablegraph.transforms.forward import forward

R = np.random.default_rng(0)
SHAPE = (3, 4)


pytestmark = pytest.mark.usefixtures("jax_x64")  # the jax oracle computes in float64 here


def normal():
    return R.normal(size=SHAPE)


def positive():
    return R.uniform(0.2, 3.0, size=SHAPE)


def signed():
    return R.choice([-1.0, 1.0], size=SHAPE) * R.uniform(0.3, 2.0, size=SHAPE)


def cplx():
    return R.normal(size=SHAPE) + 1j * R.normal(size=SHAPE)


def ties(x):
    y = normal()
    y.flat[::3] = x.flat[::3]
    return y


def prim(op):
    return lambda *xs: bind(op, *xs)


UNARY = [(ew.neg, lax.neg, normal), (ew.abs_, lax.abs, signed), (ew.sign, lax.sign, signed),
         (ew.floor, lax.floor, normal), (ew.ceil, lax.ceil, normal), (ew.exp, lax.exp, normal),
         (ew.round_, lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), normal),
         (ew.expm1, lax.expm1, normal), (ew.log, lax.log, positive), (ew.log1p, lax.log1p, positive),
         (ew.sqrt, lax.sqrt, positive), (ew.rsqrt, lax.rsqrt, positive), (ew.cbrt, lax.cbrt, signed),
         (ew.sin, lax.sin, normal), (ew.cos, lax.cos, normal), (ew.tan, lax.tan, lambda: R.uniform(-1, 1, SHAPE)),
         (ew.tanh, lax.tanh, normal), (ew.logistic, lax.logistic, normal), (ew.erf, lax.erf, normal),
         (ew.erf_inv, lax.erf_inv, lambda: R.uniform(-0.8, 0.8, SHAPE)),
         (ew.stop_gradient_op, lax.stop_gradient, normal)]  # fmt: skip
BINARY = [(ew.add, lax.add, normal, normal), (ew.sub, lax.sub, normal, normal), (ew.mul, lax.mul, normal, normal),
          (ew.div, lax.div, normal, signed), (ew.rem, lax.rem, lambda: R.uniform(-6, 6, SHAPE), signed),
          (ew.pow_, lax.pow, positive, normal), (ew.max_, lax.max, normal, ties), (ew.min_, lax.min, normal, ties),
          (ew.atan2, lax.atan2, normal, signed)]  # fmt: skip
COMPLEX = [(ew.neg, lax.neg), (ew.exp, lax.exp), (ew.log, lax.log), (ew.sqrt, lax.sqrt), (ew.sin, lax.sin),
           (ew.tanh, lax.tanh), (ew.abs_, lax.abs), (ew.add, lax.add), (ew.mul, lax.mul), (ew.div, lax.div),
           (ew.pow_, lax.pow)]  # fmt: skip


def jvp_cases():
    """name -> (sg fn, jax fn, primals, tangents): every elementwise op, real and complex."""
    cases = {}
    for op, f, make in UNARY:
        cases[op.name] = (prim(op), f, [make()], [normal()])
    for op, f, mx, my in BINARY:
        x = mx()
        cases[op.name] = (prim(op), f, [x, my(x) if my is ties else my()], [normal(), normal()])
        cases[op.name + "_dx"] = (lambda a, op=op, y=cases[op.name][2][1]: bind(op, a, sg.constant(y)),
                                  lambda a, f=f, y=cases[op.name][2][1]: f(a, y), [x], [normal()])  # fmt: skip
    for op, f in COMPLEX:
        n = 1 if op in ew.UNARY else 2
        z = [cplx() for _ in range(n)]
        if op is ew.abs_:
            z[0].flat[0] = 0  # JAX gives 0 at 0
        cases["complex_" + op.name] = (prim(op), f, z, [cplx() for _ in range(n)])
    return cases


def composite(xp):
    def f(w, x, b):
        h = xp.tanh(x @ w + b)
        z = xp.max(h, axis=1, keepdims=True)
        return xp.sum(xp.exp(h - z) * xp.sqrt(1 + h * h), axis=1) / (1 + xp.abs(b).sum())

    return f


def run_jvps(cases, rtol=1e-9, atol=1e-12):
    g = sg.Graph()
    fetch, wants = {}, {}
    with g:
        for name, (sg_fn, _, primals, tangents) in cases.items():
            fetch[name] = sg.jvp(sg_fn, [sg.constant(p) for p in primals], [sg.constant(t) for t in tangents])
    with sg.Session(g) as sess:
        got = sess.run(fetch)
    # the oracle, one jit for the whole table (an eager jax.jvp compiles every primitive on its own)
    jax_fns = {name: case[1] for name, case in cases.items()}
    args = {name: (tuple(case[2]), tuple(case[3])) for name, case in cases.items()}
    wants = jax.jit(lambda a: {k: jax.jvp(jax_fns[k], *v) for k, v in a.items()})(args)
    for name, want in wants.items():
        for k, (a, b) in enumerate(
            zip(jax.tree_util.tree_leaves(got[name]), jax.tree_util.tree_leaves(want))
        ):
            assert a.dtype == b.dtype, (name, k, a.dtype, b.dtype)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{name} leaf {k}")


def test_every_elementwise_jvp_matches_jax():
    run_jvps(jvp_cases())


def test_elementwise_ops_have_direct_rules():
    """Forward mode through them builds no transposed vjp: one op per factor, no dummy cotangent."""
    for op in ew.UNARY + ew.BINARY:
        assert (op.jvp is None) == (op.vjp is None), op.name
    g = sg.Graph()
    with g:
        x = sg.constant(normal())
        start = len(g.nodes)
        sg.jvp(lambda a: snp.exp(snp.tanh(a)), [x], [x])
        ops = [n.op.name for n in g.nodes[start:]]
    # alias, tanh, exp; then tanh' = (1 + y)(1 - y) * t and exp' = y * t
    assert ops.count("mul") == 3 and "broadcast_in_dim" in ops and ops.count("exp") == 1, ops


def test_composites_and_structural_ops_match_jax():
    w, x, b = R.normal(size=(4, 3)), R.normal(size=(5, 4)), R.normal(size=(3,))
    cases = {"composite": (composite(snp), composite(jnp), [w, x, b], [R.normal(size=w.shape), x * 0.5, b])}
    cases["structural"] = (
        lambda a: snp.concatenate([a[:, ::-1].T, snp.pad(a, ((0, 1), (1, 0)))[:4, :3]], axis=1).reshape(-1),
        lambda a: jnp.concatenate([a[:, ::-1].T, jnp.pad(a, ((0, 1), (1, 0)))[:4, :3]], axis=1).reshape(-1),
        [R.normal(size=(3, 4))], [R.normal(size=(3, 4))],
    )  # fmt: skip
    cases["select_convert"] = (
        lambda a: snp.where(a > 0, a.astype(sg.float32).astype(sg.float64), snp.sin(a)),
        lambda a: jnp.where(a > 0, a.astype(jnp.float32).astype(jnp.float64), jnp.sin(a)),
        [normal()], [normal()],
    )  # fmt: skip
    cases["sort_cumsum"] = (lambda a: snp.cumsum(snp.sort(a, axis=1), axis=0),
                            lambda a: jnp.cumsum(jnp.sort(a, axis=1), axis=0), [normal()], [normal()])  # fmt: skip
    run_jvps(cases, rtol=1e-6, atol=1e-9)


LINEAR = ["broadcast_in_dim", "reshape", "transpose", "slice", "concatenate", "pad", "convert", "select"]


def test_linear_and_bilinear_traits_give_the_op_on_tangents(monkeypatch):
    """The generic rules, for ops that declare the traits: the op itself on the tangents."""
    ops = all_ops()
    for name in LINEAR:
        monkeypatch.setattr(ops[name], "traits", ops[name].traits | {"linear"})
    monkeypatch.setattr(ops["dot_general"], "traits", ops["dot_general"].traits | {"bilinear"})
    g = sg.Graph()
    with g:
        a, t = sg.constant(normal()), sg.constant(normal())
        start = len(g.nodes)
        sg.jvp(lambda v: (v @ v.T)[:2], [a], [t])
        emitted = [n.op.name for n in g.nodes[start:]]
    assert emitted.count("dot_general") == 3 and "mul" not in emitted, emitted  # x t' + t x', not a vjp
    test_composites_and_structural_ops_match_jax()


def test_higher_orders_match_jax():
    x, t = normal()[0], normal()[0]

    def f(xp):
        return lambda v: xp.sum(xp.sin(v) * xp.exp(v[::-1]) / (2 + xp.tanh(v)))

    def jvp_of(xp, jvp, fn):
        return lambda v, u: jvp(fn, (v,), (u,))[1]

    cases = {
        "jvp_jvp": (lambda v: sg.jvp(lambda w: jvp_of(snp, sg.jvp, f(snp))(w, v), [v], [v])[1],
                    lambda v: jax.jvp(lambda w: jvp_of(jnp, jax.jvp, f(jnp))(w, v), (v,), (v,))[1]),
        "grad_jvp": (sg.grad(lambda v: jvp_of(snp, sg.jvp, f(snp))(v, v * 2)),
                     jax.grad(lambda v: jvp_of(jnp, jax.jvp, f(jnp))(v, v * 2))),
        "jvp_grad": (lambda v: sg.jvp(sg.grad(f(snp)), [v], [v[::-1]])[1],
                     lambda v: jax.jvp(jax.grad(f(jnp)), (v,), (v[::-1],))[1]),
    }  # fmt: skip
    run_jvps({k: (s, j, [x], [t]) for k, (s, j) in cases.items()})


def test_fallback_transposes_the_vjp_of_an_op_without_a_rule():
    op = all_ops()["cumulative"]
    assert op.jvp is None and "linear" not in op.traits
    g = sg.Graph()
    with g:
        x = sg.constant(normal())
        (tx,) = forward([], {x: x}, [x])
        assert tx is x
    run_jvps({"cumprod": (lambda a: snp.cumprod(a, axis=1), lambda a: jnp.cumprod(a, axis=1), [positive()],
                          [normal()])})  # fmt: skip


def test_a_missing_rule_names_the_op_and_line():
    g = sg.Graph()
    with g:
        x = sg.constant(normal())
        with pytest.raises(
            sg.GraphError, match=r"test_forward.py:\d+ .*cannot differentiate through nextafter"
        ):
            sg.jvp(lambda v: sg.lax.nextafter(v, v * 2.0), [x], [x])


def test_jvp_checks_its_arguments():
    g = sg.Graph()
    with g:
        x = sg.constant(normal())
        with pytest.raises(sg.GraphError, match="tangents typed like the primals"):
            sg.jvp(snp.sin, [x], [sg.constant(np.zeros(3))])
        with pytest.raises(sg.GraphError, match="as tuples"):
            sg.jvp(snp.sin, x, x)
    assert cmp.select_op.jvp is None  # the generic rule comes from a trait, not from a rule in compare.py


def test_ops_whose_tangents_nobody_reads_need_no_rule():
    """A custom_vjp's forward (a while_loop here) is on the path, but its transposed vjp reads
    only the arguments' tangents: forward mode gives the user's bwd, transposed."""

    @sg.custom_vjp
    def f(x):
        return sg.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1]

    f.defvjp(lambda x: (f.fun(x), None), lambda r, g: (g * 4.0,))
    g = sg.Graph()
    with g:
        x = sg.constant(np.arange(3.0))
        fetch = (sg.jvp(f, (x,), (x * 2,))[1], sg.jacfwd(f)(x))
    with sg.Session(g) as sess:
        tangent, jac = sess.run(fetch)
    np.testing.assert_allclose(tangent, 8 * np.arange(3.0))
    np.testing.assert_allclose(jac, 4 * np.eye(3))
