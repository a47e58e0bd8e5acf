"""sg.simplify: identities, sharing, dead code, folding, fixed point; and the Session lowering it."""

import inspect
import textwrap

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.backend.planning as planning_module
from stablegraph import numpy as snp
from stablegraph.graph import all_ops, extract, lookup, verify
from stablegraph.ops.primitives import shape as shp
from stablegraph.ops.primitives.registry import bind

T = sg.TensorType
f32, i32 = sg.float32, sg.int32
neg = snp.negative


def simplified(py_fn, in_types):
    """The Function of py_fn and its simplification, both verified."""
    fn = sg.function(py_fn, in_types)
    out = sg.simplify(fn)
    verify(fn)
    verify(out)
    assert out.out_types == fn.out_types and out.in_types == fn.in_types
    return fn, out


def listing(text: str) -> str:
    return textwrap.dedent(text).strip()


def prim(name: str, *xs, **attrs):
    """A primitive node exactly as asked (the builders skip identities at build time)."""
    return bind(lookup(name), *xs, **attrs)


def no_simplify_run(monkeypatch, fetches, feeds=None, graph=None):
    """Run with the planner's simplify switched off: the graph exactly as built."""
    monkeypatch.setattr(planning_module, "simplify", lambda fn: fn)
    with sg.Session(graph) as sess:
        out = sess.run(fetches, feeds)
    monkeypatch.undo()
    return out


# -- identities ----------------------------------------------------------------
def test_arithmetic_identities_through_broadcast_constants():
    _, s = simplified(
        lambda x: (x * 1.0, 1.0 * x, x + 0.0, 0.0 + x, x - 0.0, x / 1.0, neg(neg(x))), [T(("n",), f32)]
    )
    assert str(s) == listing("""
        function lambda(x: f32[n]) -> (f32[n], f32[n], f32[n], f32[n], f32[n], f32[n], f32[n]) {
          return x, x, x, x, x, x, x
        }""")


def test_times_zero_only_for_integers_and_bools():
    _, s = simplified(
        lambda i, x, b: (i * 0, 0 * i, x * 0.0, b & False), [T((3,), i32), T((3,), f32), T((3,), sg.bool_)]
    )
    assert str(s) == listing("""
        function lambda(i: i32[3], x: f32[3], b: pred[3]) -> (i32[3], i32[3], f32[3], pred[3]) {
          constant = constant[value=0]() : i32[]
          broadcast_in_dim = broadcast_in_dim[shape=(3,), broadcast_dimensions=()](constant) : i32[3]
          constant_2 = constant[value=0.0]() : f32[]
          broadcast_in_dim_2 = broadcast_in_dim[shape=(3,), broadcast_dimensions=()](constant_2) : f32[3]
          mul_2 = mul(x, broadcast_in_dim_2) : f32[3]
          constant_3 = constant[value=False]() : pred[]
          broadcast_in_dim_3 = broadcast_in_dim[shape=(3,), broadcast_dimensions=()](constant_3) : pred[3]
          and = and(b, broadcast_in_dim_3) : pred[3]
          return broadcast_in_dim, broadcast_in_dim, mul_2, and
        }""")


def test_shape_identities():
    def fn(x):
        return (
            shp.broadcast_in_dim(shp.broadcast_in_dim(x, (2, 3), (1,)), (4, 2, 3), (1, 2)),
            prim("broadcast_in_dim", x, shape=(3,), broadcast_dimensions=(0,)),
            shp.transpose(shp.transpose(shp.reshape(x, (1, 3)), (1, 0)), (1, 0)),
            shp.transpose(shp.transpose(shp.reshape(x, (3, 1, 1)), (1, 0, 2)), (0, 2, 1)),
            shp.reshape(shp.reshape(x, (1, 3)), (3, 1)),
            shp.reshape(shp.reshape(x, (1, 3)), (3,)),
            prim("convert", x, dtype=f32),
            snp.where(True, x, -x),
        )

    _, s = simplified(fn, [T((3,), f32)])
    assert str(s) == listing("""
        function fn(x: f32[3]) -> (f32[4,2,3], f32[3], f32[1,3], f32[1,1,3], f32[3,1], f32[3], f32[3], f32[3]) {
          broadcast_in_dim_1 = broadcast_in_dim[shape=(4, 2, 3), broadcast_dimensions=(2,)](x) : f32[4,2,3]
          reshape = reshape[shape=(1, 3)](x) : f32[1,3]
          reshape_1 = reshape[shape=(3, 1, 1)](x) : f32[3,1,1]
          transpose_3 = transpose[permutation=(1, 2, 0)](reshape_1) : f32[1,1,3]
          reshape_3 = reshape[shape=(3, 1)](x) : f32[3,1]
          return broadcast_in_dim_1, x, reshape, transpose_3, reshape_3, x, x, x
        }""")


def test_identities_keep_symbolic_types():
    def fn(x):
        flat = shp.reshape(x, ("3*batch",))
        return shp.reshape(flat, ("batch", 3)), shp.transpose(shp.transpose(x, (1, 0)), (1, 0)) * 1.0

    _, s = simplified(fn, [T(("batch", 3), f32)])
    assert str(s) == listing("""
        function fn(x: f32[batch,3]) -> (f32[batch,3], f32[batch,3]) {
          return x, x
        }""")


# -- sharing, dead code, folding -------------------------------------------------
def test_common_subexpressions_share_one_node():
    def fn(x):
        a = sg.constant(np.array([1.0, np.nan], np.float32))
        b = sg.constant(np.array([1.0, np.nan], np.float32))  # equal bytes, NaN included
        c = sg.constant(np.array([1.0, np.nan], np.float64))  # another dtype: not shared
        return snp.tanh(x) * snp.tanh(x), x + a, x + b, c

    _, s = simplified(fn, [T((2,), f32)])
    assert str(s) == listing("""
        function fn(x: f32[2]) -> (f32[2], f32[2], f32[2], f64[2]) {
          constant = constant[value=[ 1., nan]]() : f32[2]
          constant_2 = constant[value=[ 1., nan]]() : f64[2]
          tanh = tanh(x) : f32[2]
          mul = mul(tanh, tanh) : f32[2]
          add = add(x, constant) : f32[2]
          return mul, add, add, constant_2
        }""")


def test_dead_nodes_go_unused_parameters_stay():
    def fn(x, unused):
        snp.exp(x)  # nobody needs it
        return snp.sin(x)

    _, s = simplified(fn, [T((2,), f32), T((4,), i32)])
    assert str(s) == listing("""
        function fn(x: f32[2], unused: i32[4]) -> (f32[2]) {
          sin = sin(x) : f32[2]
          return sin
        }""")


def test_folding_constants_and_splats():
    def fn(x):
        return (
            (sg.constant(np.float32(2)) * 3.0 + 1.0),  # a chain of scalar constants
            snp.exp(sg.constant(np.array([0.0, 1.0], np.float32))),  # a small array
            snp.full_like(x, 2.0) * snp.full_like(x, 3.0),  # splats of a symbolic shape
            prim("div", sg.constant(np.int32(7)), sg.constant(np.int32(0))),  # XLA's to define: kept
            snp.sum(sg.constant(np.ones((33, 33), np.float32))),  # a small result of a large constant
            snp.exp(sg.constant(np.arange(1025, dtype=np.float32))),  # 1025 > 1024 elements: kept
        )

    _, s = simplified(fn, [T(("n",), f32)])
    assert str(s) == listing("""
        function fn(x: f32[n]) -> (f32[], f32[2], f32[n], i32[], f32[], f32[1025]) {
          mul = constant[value=6.0]() : f32[]
          add = constant[value=7.0]() : f32[]
          exp = constant[value=[1.      , 2.718282]]() : f32[2]
          mul_1 = broadcast_in_dim[shape=(n,), broadcast_dimensions=()](mul) : f32[n]
          constant_6 = constant[value=7]() : i32[]
          constant_7 = constant[value=0]() : i32[]
          div = div(constant_6, constant_7) : i32[]
          reduce_sum = constant[value=1089.0]() : f32[]
          constant_9 = constant[value=<float32[1025]>]() : f32[1025]
          exp_1 = exp(constant_9) : f32[1025]
          return add, exp, mul_1, div, reduce_sum, exp_1
        }""")


def test_fixed_point_names_and_locations():
    line = inspect.currentframe().f_lineno + 3

    def fn(x):
        y = neg(neg(neg(neg(x))))  # each rewrite exposes the next
        t = shp.transpose(shp.transpose(shp.transpose(x, (1, 0)), (1, 0)), (1, 0))
        return y + snp.zeros_like(y), t * snp.ones_like(t)

    f, s = simplified(fn, [T((2, 3), f32)])
    assert str(s) == listing("""
        function fn(x: f32[2,3]) -> (f32[2,3], f32[3,2]) {
          transpose = transpose[permutation=(1, 0)](x) : f32[3,2]
          return x, transpose
        }""")  # the third transpose is the first again (shared)
    assert str(sg.simplify(s)) == str(s)  # a fixed point
    node = s.graph.node("transpose")
    assert node.location == f.graph.node("transpose").location and node.location.line == line + 1
    assert str(s) != str(f) and len(f.graph.nodes) == 14  # the input is untouched


def test_verify_names_a_node_whose_type_is_wrong():
    line = inspect.currentframe().f_lineno + 1
    f = sg.function(lambda x: snp.tanh(x), [T((2,), f32)])
    f.graph.node("tanh").out_types = (T((3,), f32),)  # corrupt it on purpose
    with pytest.raises(sg.GraphError) as e:
        verify(f)
    assert "tanh has type f32[3] but tanh infers f32[2]" in str(e.value)
    assert f"test_simplify.py:{line}" in str(e.value)


# -- numerics: the simplified program computes the same values -------------------
def test_simplified_functions_compute_the_same(monkeypatch):
    def fn(x, i):
        t = shp.transpose(shp.transpose(x, (1, 0)), (1, 0))
        return (
            snp.tanh(x) * snp.tanh(x) * 1.0 + 0.0,
            neg(neg(t)) / 1.0 - snp.zeros_like(t),
            shp.reshape(shp.reshape(x, ("3*b",)), ("b", 3)) + snp.exp(sg.constant(np.float32([1, 2, 3]))),
            i * 0 + i * snp.full_like(i, 1),
            snp.full_like(x, 2.0) * snp.full_like(x, 3.0) + x,
        )

    f, s = simplified(fn, [T(("b", 3), f32), T(("b", 3), i32)])
    assert len(s.graph.nodes) < len(f.graph.nodes) / 2
    rng = np.random.default_rng(0)
    xv, iv = rng.normal(size=(4, 3)).astype(np.float32), rng.integers(-5, 5, (4, 3)).astype(np.int32)
    g = sg.Graph()
    with g:
        x, i = sg.placeholder(("b", 3), f32, name="x"), sg.placeholder(("b", 3), i32, name="i")
        both = [f(x, i), s(x, i)]
    want, got = no_simplify_run(monkeypatch, both, {x: xv, i: iv}, g)
    for w, v in zip(want, got):
        np.testing.assert_allclose(v, w, rtol=1e-6)


def _random_program(seed: int):
    """A random DAG over x, y of type f32[b,3] mixing real work with identities to remove."""
    rng = np.random.default_rng(seed)
    steps = [
        lambda a, b: a + b,
        lambda a, b: a * b,
        lambda a, b: a - b,
        lambda a, b: snp.tanh(a),
        lambda a, b: neg(neg(a)) * 1.0,
        lambda a, b: a + snp.zeros_like(a) + snp.full_like(a, 0.5) * snp.full_like(a, 2.0),
        lambda a, b: shp.transpose(shp.transpose(a, (1, 0)), (1, 0)),
        lambda a, b: shp.reshape(shp.reshape(a, ("3*b",)), ("b", 3)),
        lambda a, b: snp.sum(shp.broadcast_in_dim(a, (2, "b", 3), (1, 2)), axis=0),
        lambda a, b: snp.where(True, a, b) / 1.0,
        lambda a, b: a * sg.constant(np.float32([1, 2, 3])) + snp.exp(sg.constant(np.float32([0, 1, 0]))),
    ]

    def fn(x, y):
        pool = [x, y]
        for _ in range(40):
            step = steps[rng.integers(len(steps))]
            pool.append(step(pool[rng.integers(len(pool))], pool[rng.integers(len(pool))]))
        return tuple(pool[-8:])

    return fn


def test_random_programs_compute_the_same(monkeypatch):
    ty = T(("b", 3), f32)
    pairs = [simplified(_random_program(seed), [ty, ty]) for seed in range(6)]
    assert sum(len(s.graph.nodes) for _, s in pairs) < 0.6 * sum(len(f.graph.nodes) for f, _ in pairs)
    rng = np.random.default_rng(3)
    xv, yv = rng.uniform(-1, 1, size=(2, 5, 3)).astype(np.float32)
    g = sg.Graph()
    with g:
        x, y = sg.placeholder(("b", 3), f32), sg.placeholder(("b", 3), f32)
        outs = [(f(x, y), s(x, y)) for f, s in pairs]
    got = no_simplify_run(monkeypatch, outs, {x: xv, y: yv}, g)
    for want, have in got:
        for w, h in zip(want, have):
            np.testing.assert_allclose(h, w, rtol=1e-5, atol=1e-6)


def test_captures_survive():
    g = sg.Graph()
    with g:
        c = sg.placeholder((2,), f32, name="c")
        f = sg.function(lambda x: x * c * 1.0, [T((2,), f32)])
        s = sg.simplify(f)
        verify(s)
        assert s.captures == (c,) and str(s) == listing("""
            function lambda(x: f32[2]) -> (f32[2]) {
              mul = mul(x, capture_c) : f32[2]
              return mul
            }""")
        y = s(sg.constant(np.float32([1, 2])))
    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(y, {c: np.float32([3, 4])}), [3, 8])


_FOLD_CASES = {  # name -> (inputs, attrs): every op's fold rule against XLA
    "neg": ([np.float32([1.5, -2])], {}),
    "abs": ([np.complex64([3 + 4j, -1])], {}),
    "sign": ([np.float32([-2, 0, 3])], {}),
    "floor": ([np.float32([-1.5, 1.5])], {}),
    "ceil": ([np.float32([-1.5, 1.5])], {}),
    "round": ([np.float32([0.5, 1.5, 2.5, -0.5])], {}),
    "exp": ([np.float32([0, 1, -3])], {}),
    "expm1": ([np.float32([1e-5, 1])], {}),
    "log": ([np.float64([0.5, 3])], {}),
    "log1p": ([np.float32([1e-6, 2])], {}),
    "sqrt": ([np.float32([4, 2])], {}),
    "rsqrt": ([np.float32([4, 2])], {}),
    "cbrt": ([np.float32([-8, 2])], {}),
    "sin": ([np.float32([0.5, 2])], {}),
    "cos": ([np.float32([0.5, 2])], {}),
    "tan": ([np.float32([0.5, 1])], {}),
    "tanh": ([np.float32([0.5, -3])], {}),
    "logistic": ([np.float32([0, 3, -100])], {}),
    "is_finite": ([np.float32([np.inf, 1, np.nan])], {}),
    "not": ([np.int8([0, 5, -1])], {}),
    "stop_gradient": ([np.float32([1, -2])], {}),
    "add": ([np.int32([2**31 - 1, 1]), np.int32([1, 2])], {}),
    "sub": ([np.float16([1, 2]), np.float16([0.5, 3])], {}),
    "mul": ([np.uint8([200, 3]), np.uint8([2, 4])], {}),
    "div": ([np.int32([7, -7, 7, -7]), np.int32([2, 2, -2, -2])], {}),
    "rem": ([np.int32([7, -7, 7, -7]), np.int32([2, 2, -2, -2])], {}),
    "pow": ([np.float32([2, 3]), np.float32([0.5, 3])], {}),
    "max": ([np.float32([1, np.nan]), np.float32([2, 0])], {}),
    "min": ([np.float32([1, np.nan]), np.float32([2, 0])], {}),
    "atan2": ([np.float32([1, -1]), np.float32([-1, 2])], {}),
    "and": ([np.int32([6, 3]), np.int32([3, 5])], {}),
    "or": ([np.bool_([True, False]), np.bool_([False, False])], {}),
    "xor": ([np.uint16([6, 3]), np.uint16([3, 5])], {}),
    "shift_left": ([np.int32([1, -3]), np.int32([3, 1])], {}),
    "shift_right_arithmetic": ([np.int32([-16, 16]), np.int32([2, 3])], {}),
    "shift_right_logical": ([np.int32([-16, 16]), np.int32([2, 3])], {}),
    "compare": ([np.float32([1, 2, np.nan]), np.float32([2, 2, np.nan])], {"direction": "LE"}),
    "select": ([np.bool_([True, False]), np.float32([1, 2]), np.float32([3, 4])], {}),
    "clamp": ([np.float32(0), np.float32([-1, 0.5, 2]), np.float32(1)], {}),
    "convert": ([np.float32([1.7, -2.5, 0])], {"dtype": sg.int32}),
    "bitcast_convert": ([np.float32([1, -2.5])], {"dtype": sg.int32}),
    "broadcast_in_dim": ([np.float32([1, 2])], {"shape": (3, 2), "broadcast_dimensions": (1,)}),
    "reshape": ([np.arange(6, dtype=np.int32)], {"shape": (2, 3)}),
    "transpose": ([np.arange(6, dtype=np.int32).reshape(2, 3)], {"permutation": (1, 0)}),
    "rev": ([np.arange(6, dtype=np.int32).reshape(2, 3)], {"dimensions": (1,)}),
    "slice": (
        [np.arange(12, dtype=np.int32).reshape(3, 4)],
        {"start_indices": (1, 0), "limit_shape": (3, 4), "strides": (1, 2)},
    ),
    "concatenate": ([np.float32([1, 2]), np.float32([3])], {"dimension": 0}),
    "reduce": ([np.float32([[1, 2], [3, 4]])], {"kind": "prod", "axes": (1,)}),
}


def test_every_fold_rule_agrees_with_xla(monkeypatch):
    folding = {name for name, op in all_ops().items() if op.fold and "constant" not in op.traits}
    assert set(_FOLD_CASES) == folding
    g = sg.Graph()
    with g:
        outs = {
            name: prim(name, *(sg.constant(a) for a in xs), **attrs)
            for name, (xs, attrs) in _FOLD_CASES.items()
        }
    fn = extract(g, list(outs.values()))
    folded = sg.simplify(fn)
    verify(folded)
    kept = [n.name for n in folded.graph.nodes if n.op.name not in ("constant", "broadcast_in_dim")]
    assert kept == []  # everything folded
    want = no_simplify_run(monkeypatch, outs, graph=g)
    got = dict(zip(outs, (r.node.attrs.value for r in folded.results)))
    for name in outs:
        assert got[name].dtype == want[name].dtype and got[name].shape == want[name].shape, name
        np.testing.assert_allclose(got[name], want[name], rtol=2e-6, err_msg=name)


# -- gradients -------------------------------------------------------------------
def test_a_gradient_graph_shrinks():
    def loss(x, y):
        return snp.sum(snp.tanh(x * y) * x + 1.0)

    g = sg.grad(sg.function(loss, [T((3,), f32), T((3,), f32)]), argnums=(0, 1))
    s = sg.simplify(g)
    verify(s)
    assert len(s.graph.nodes) <= 0.65 * len(g.graph.nodes)
    ones = [
        n
        for n in s.graph.nodes
        if n.op.name == "mul" and any(i.node.op.name == "broadcast_in_dim" for i in n.inputs)
    ]
    assert ones == []  # no multiplication by the seed of ones is left
    rng = np.random.default_rng(1)
    xv, yv = rng.normal(size=(2, 3)).astype(np.float32)
    gr = sg.Graph()
    with gr:
        x, y = sg.placeholder((3,), f32), sg.placeholder((3,), f32)
        outs = [*g(x, y), *s(x, y)]
    with sg.Session(gr) as sess:
        dx, dy, sx, sy = sess.run(outs, {x: xv, y: yv})
    t = np.tanh(xv * yv)
    np.testing.assert_allclose(dx, t + xv * yv * (1 - t**2), rtol=1e-5)
    np.testing.assert_allclose(dy, xv * xv * (1 - t**2), rtol=1e-5)
    np.testing.assert_allclose([sx, sy], [dx, dy], rtol=1e-6)


# -- the Session lowers the simplified program ------------------------------------
def test_session_lowers_the_simplified_program():
    g = sg.Graph()
    with g, sg.name_scope("model"):
        x = sg.placeholder(("batch", 3), f32, name="x")
        h = snp.tanh(x) * 1.0 + snp.zeros_like(x)
        snp.exp(h)  # built, never fetched
        y = snp.sum(shp.transpose(shp.transpose(h, (1, 0)), (1, 0)), axis=1)
    xv = np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32)
    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: xv}), np.tanh(xv).sum(axis=1), atol=1e-6)
        text = sess.lower(y, {x: xv})
    for op in ("multiply", "add", "transpose", "exponential", "broadcast_in_dim"):
        assert f"= stablehlo.{op}" not in text, op
    assert "stablehlo.tanh" in text and "stablehlo.reduce" in text
    assert '"model/tanh"' in text and "test_simplify.py" in text  # node names and lines survive


def test_extract_makes_feeds_parameters():
    g = sg.Graph("graph")
    with g:
        x = sg.placeholder((2,), f32, name="x")
        h = snp.exp(x)
        y = snp.sin(h) + x
    f = extract(g, [y], [h, x])
    verify(f)
    assert str(f) == listing("""
        function graph(exp: f32[2], x: f32[2]) -> (f32[2]) {
          sin = sin(exp) : f32[2]
          add = add(sin, x) : f32[2]
          return add
        }""")
    with pytest.raises(sg.GraphError, match="needs a value for placeholder x"):
        extract(g, [y], [h])
