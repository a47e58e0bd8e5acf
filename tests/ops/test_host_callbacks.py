"""Host callbacks: sg.debug.print / sg.debug.callback (debug_callback, an effect) and
sg.pure_callback / sg.py_func / sg.numpy_function (pure_callback), against numpy and scipy:
what the callbacks receive and return, when prints run (loop bodies, gradients, vectorize),
and the errors of a callback that raises."""

import os
import re

import numpy as np
import pytest
import scipy.special

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.test_util import line_of

HERE = os.path.basename(__file__)


def _line_of(text: str) -> int:
    return line_of(__file__, text)


def test_print_formats_values_with_the_users_line(capsys):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        h = snp.tanh(x * 2)
        sg.debug.print("h[0] = {}, mean {m}", h[0], m=h.mean())  # the print under test
        sg.debug.print("first {:.3f}", h[0, 0])
        y = h.sum()
    xv = np.random.default_rng(0).normal(size=(2, 3)).astype(np.float32)
    with sg.Session(g) as sess:
        got = sess.run(y, {x: xv})
        out = capsys.readouterr().out.splitlines()
    hv = np.tanh(xv * np.float32(2))
    np.testing.assert_allclose(got, hv.sum(), rtol=1e-6)
    line = _line_of("# the print under test")
    first = next(s for s in out if s.startswith(f"{HERE}:{line} h[0] = ["))
    shown = re.match(r".*h\[0\] = \[(.*)\], mean (\S+)$", first)
    np.testing.assert_allclose(np.array(shown.group(1).split(), np.float32), hv[0], rtol=1e-6)
    assert shown.group(2) == str(np.float32(shown.group(2)))  # float32's own digits, not float64's
    np.testing.assert_allclose(float(shown.group(2)), hv.mean(), rtol=1e-6)
    assert f"{HERE}:{line + 1} first {hv[0, 0]:.3f}" in out and len(out) == 2


def test_prints_run_in_every_iteration_of_loop_bodies_in_order(capsys):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x")

        def step(c, xi):
            sg.debug.print("scan c={} xi={}", c, xi, ordered=True)
            sg.debug.print("scan then {}", c + xi, ordered=True)
            return c + xi, c * xi

        total, _ = sg.scan(step, sg.constant(0.0), x)
        count = sg.while_loop(
            lambda i: i < 3, lambda i: (sg.debug.print("while {}", i), i + 1)[1], sg.constant(0)
        )
        picked = sg.cond(total > 0, lambda a: (sg.debug.print("taken {}", a), a * 2)[1], lambda a: a, total)
    xv = np.array([1.0, 2.0, -0.5, 4.0], np.float32)
    with sg.Session(g) as sess:
        sess.run([total, count, picked], {x: xv})
        lines = [line.split(" ", 1)[1] for line in capsys.readouterr().out.splitlines()]
    partial = np.concatenate([[0.0], np.cumsum(xv)[:-1]]).astype(np.float32)
    scan_lines = [s for s in lines if s.startswith("scan")]
    want = []
    for c, xi in zip(partial, xv):
        want += [f"scan c={c} xi={xi}", f"scan then {np.float32(c + xi)}"]
    assert scan_lines == want
    assert [s for s in lines if s.startswith("while")] == ["while 0", "while 1", "while 2"]
    assert [s for s in lines if s.startswith("taken")] == [f"taken {np.float32(xv.sum())}"]


def test_print_under_grad_prints_forward_values_once_and_vmap_prints_lanes(capsys):
    f = sg.function(
        lambda a: (sg.debug.print("f at {}", a), snp.sin(a).sum())[1], [sg.TensorType((2,), sg.float32)]
    )
    g = sg.Graph()
    with g:
        a = sg.placeholder((2,), sg.float32, name="a")
        da = sg.grad(f)(a)
        m = sg.placeholder((3, 2), sg.float32, name="m")
        rows = sg.vmap(lambda r: (sg.debug.print("row {}", r), r.sum())[1])(m)
    av = np.array([0.5, 1.0], np.float32)
    mv = np.arange(6, dtype=np.float32).reshape(3, 2)
    with sg.Session(g) as sess:
        got_da, got_rows = sess.run([da, rows], {a: av, m: mv})
        lines = [line.split(" ", 1)[1] for line in capsys.readouterr().out.splitlines()]
    np.testing.assert_allclose(got_da, np.cos(av), rtol=1e-6)
    np.testing.assert_allclose(got_rows, mv.sum(1))
    assert [s for s in lines if "f at" in s] == [f"f at {av}"]  # the primal, once; no cotangent
    assert sorted(s for s in lines if "row" in s) == [f"[lane {i}] row {mv[i]}" for i in range(3)]


def test_an_effect_runs_when_its_inputs_are_computed_and_not_otherwise():
    seen = []
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        other = sg.placeholder((3,), sg.float32, name="other")
        y = snp.exp(x)
        sg.debug.callback(
            lambda mean, top: seen.append(("x", float(mean), top.copy())), y.mean(), top=snp.sort(y)
        )
        sg.debug.callback(lambda v: seen.append(("other", v.copy())), other)  # never fed below
        z = snp.log(x)  # does not use y, but the run is fed x: the first callback runs too
        q = sg.placeholder((), sg.float32, name="q")
        twice = q * 2  # a run of this is not fed x: no callback can run
    xv = np.array([0.3, -1.0, 2.0], np.float32)
    with sg.Session(g) as sess:
        for _ in range(2):
            sess.run(y, {x: xv})
        sess.run(z, {x: xv})
        sess.run(twice, {q: 1.0})
    assert [s[0] for s in seen] == ["x", "x", "x"]
    for _, mean, top in seen:
        np.testing.assert_allclose(mean, np.exp(xv).mean(), rtol=1e-6)
        np.testing.assert_allclose(top, np.sort(np.exp(xv)), rtol=1e-6)


def test_pure_callback_values_nests_and_symbolic_shapes():
    g = sg.Graph()
    with g:
        m = sg.placeholder(("batch", 2), sg.float32, name="m")
        k = sg.pure_callback(scipy.special.ellipk, sg.TensorType(("batch", 2), sg.float32), m)
        pair = sg.pure_callback(
            lambda a, b: {"sum": a + b, "max": np.maximum(a, b).max(axis=1)},
            {"sum": sg.TensorType(("batch", 2), sg.float32), "max": sg.TensorType(("batch",), sg.float64)},
            m,
            b=snp.cos(m),
        )
        tanh = sg.py_func(np.tanh, [m], sg.float32)
        [sinh, cosh] = sg.numpy_function(lambda v: (np.sinh(v), np.cosh(v)), [m], [sg.float32, sg.float32])
    mv = np.array([[0.0, 0.5], [0.9, -3.0], [1e-7, 0.999]], np.float32)
    with sg.Session(g) as sess:
        got = sess.run([k, pair["sum"], pair["max"], tanh, sinh, cosh], {m: mv})
    np.testing.assert_allclose(got[0], scipy.special.ellipk(mv), rtol=1e-6)
    np.testing.assert_allclose(got[1], mv + np.cos(mv), rtol=1e-6)
    assert got[2].dtype == np.float64
    np.testing.assert_allclose(got[2], np.maximum(mv, np.cos(mv)).max(axis=1), rtol=1e-6)
    for v, fn in zip(got[3:], (np.tanh, np.sinh, np.cosh)):
        np.testing.assert_allclose(v, fn(mv), rtol=1e-6)


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_pure_callback_under_vmap(method):
    shapes = []

    def scaled(a, s):
        shapes.append((a.shape, s.shape))
        return a * s.reshape(s.shape + (1,))  # s is (), (1,) or (3,) as the method passes it

    g = sg.Graph()
    with g:
        m = sg.placeholder((3, 2), sg.float32, name="m")
        s = sg.placeholder((), sg.float32, name="s")
        out = sg.vmap(
            lambda r: sg.pure_callback(scaled, sg.TensorType((2,), sg.float32), r, s, vmap_method=method)
        )(m)
    mv = np.arange(6, dtype=np.float32).reshape(3, 2)
    with sg.Session(g) as sess:
        got = sess.run(out, {m: mv, s: np.float32(1.5)})
    np.testing.assert_allclose(got, mv * 1.5)
    want = {
        "sequential": [((2,), ())] * 3,
        "expand_dims": [((3, 2), (1,))],
        "broadcast_all": [((3, 2), (3,))],
    }[method]
    assert shapes == want


def test_pure_callback_refuses_vmap_and_grad_without_a_rule_and_takes_custom_vjp():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match=r"vmap_method.*sequential") as err:
            sg.vmap(lambda r: sg.pure_callback(np.sin, sg.TensorType((), sg.float32), r))(
                sg.placeholder((2,), sg.float32, name="v")
            )
        assert HERE in str(err.value)
        y = sg.pure_callback(np.sin, sg.TensorType((3,), sg.float32), x)
        with pytest.raises(sg.GraphError, match="custom_vjp"):
            sg.gradients(y.sum(), [x])

        @sg.custom_vjp
        def host_sin(a):
            return sg.pure_callback(np.sin, sg.TensorType((3,), sg.float32), a)

        host_sin.defvjp(
            lambda a: (host_sin(a), a),
            lambda a, ct: (ct * sg.pure_callback(np.cos, sg.TensorType((3,), sg.float32), a),),
        )
        (dx,) = sg.gradients((host_sin(x) ** 2).sum(), [x])
    xv = np.array([0.1, -2.0, 3.0], np.float32)
    with sg.Session(g) as sess:
        got = sess.run(dx, {x: xv})
    np.testing.assert_allclose(got, 2 * np.sin(xv) * np.cos(xv), rtol=1e-5)


def test_a_callback_that_raises_is_an_execution_error_and_variables_survive():
    g = sg.Graph()
    with g:
        w = sg.Variable(np.ones(3, np.float32), name="w")
        x = sg.placeholder((3,), sg.float32, name="x")

        def guard(v):
            if v.max() > 10:
                raise ValueError(f"too big: {v.max()}")

        sg.debug.callback(guard, x * w)  # the raising callback
        train = sg.optim.sgd(0.1).minimize(((x * w) ** 2).sum())
        wrong = sg.pure_callback(lambda v: v[:2], sg.TensorType((3,), sg.float32), x)
    ones = np.ones(3, np.float32)
    with sg.Session(g) as sess:
        sess.run(train, {x: ones})
        after_one = sess.get(w)
        with pytest.raises(sg.ExecutionError) as err:
            sess.run(train, {x: ones * 100})
        assert isinstance(err.value.__cause__, ValueError) and "too big: 80" in str(err.value)
        assert f"{HERE}:{_line_of('# the raising callback')}" in str(err.value)
        assert "sg.debug.callback" in str(err.value)
        np.testing.assert_array_equal(sess.get(w), after_one)  # nothing lost, nothing written
        sess.run(train, {x: ones})  # the Session goes on
        np.testing.assert_allclose(sess.get(w), after_one - 0.1 * 2 * after_one, rtol=1e-6)
        with pytest.raises(sg.ExecutionError, match=r"shape \(2,\).*f32\[3\]"):
            sess.run(wrong, {x: ones})


def test_graphs_with_callbacks_say_why_they_cannot_be_json():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        sg.debug.print("x {}", x)
    with pytest.raises(sg.GraphError, match=r"debug_callback.*Python function") as err:
        g.to_json()
    assert HERE in str(err.value)
    assert not re.search("pydantic", str(err.value), re.I)


def test_print_checks_its_format_at_build_time():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match=r"format.*\{m\}|'m'"):
            sg.debug.print("x {m}", x)
        with pytest.raises(sg.GraphError, match="format string"):
            sg.debug.print(x)


@pytest.mark.parametrize("remat", [False, True])
def test_prints_in_differentiated_bodies_print_the_forward_once(capsys, remat):
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")

        def step(c, xi):
            sg.debug.print("scan {}", xi)
            return c + snp.sin(xi) * c, c

        total, _ = sg.scan(sg.checkpoint(step) if remat else step, sg.constant(1.0), x)
        picked = sg.cond(x[0] > 0, lambda a: (sg.debug.print("cond {}", a), snp.sin(a))[1], lambda a: a, x[1])
        kept = sg.checkpoint(lambda a: (sg.debug.print("ckpt {}", a), snp.sin(snp.sin(a)))[1])(x[2])
        (dx,) = sg.gradients(total + picked + kept, [x])
    xv = np.array([1.0, 2.0, 3.0], np.float32)
    want = sorted([f"scan {v}" for v in xv] + [f"cond {xv[1]}", f"ckpt {xv[2]}"])
    with sg.Session(g) as sess:
        for fetches in ([dx], [total, picked, kept, dx]):  # the forward pruned away, then fetched
            got = sess.run(fetches, {x: xv})[-1]
            lines = sorted(line.split(" ", 1)[1] for line in capsys.readouterr().out.splitlines())
            assert lines == want, fetches
    # total = prod_k (1 + sin x_k), so d total / d x_k = total / (1 + sin x_k) * cos x_k
    prod = np.prod(1 + np.sin(xv.astype(np.float64)))
    d_total = [prod / (1 + np.sin(v)) * np.cos(v) for v in xv.astype(np.float64)]
    want_dx = np.array(d_total) + [0.0, np.cos(2.0), np.cos(np.sin(3.0)) * np.cos(3.0)]
    np.testing.assert_allclose(got, want_dx, rtol=1e-5)
