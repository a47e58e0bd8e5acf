"""sess.find_nonfinite and Session(check_numerics=True): the node that made a run's first nan or
infinity, found in one run of the compiled program, against where the test planted it (a deep
model's layer, a scan body's iteration, a gradient node, a fed value), its inputs' ranges
against numpy; no variable changes."""

import os

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.test_util import line_of

HERE = os.path.basename(__file__)
DEPTH = 3  # layers: over 300 nodes with the optimizer's


def _line_of(text: str) -> int:
    return line_of(__file__, text)


@pytest.fixture(scope="module")
def deep():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        h = x
        for k in range(DEPTH):
            h = sg.nn.dense(h, 4, activation=snp.tanh, name=f"layer{k}")
            if k == 1:
                h = snp.log(h + 1.0)  # planted: -inf where tanh rounds to -1
        loss = (h**2).mean()
        train = sg.optim.adam(1e-2).minimize(loss)
    return g, x, loss, train


def test_the_planted_infinity_is_found_among_hundreds_of_nodes(deep):
    g, x, loss, train = deep
    assert len(g.nodes) >= 300
    ones = np.ones((3, 4), np.float32)
    with sg.Session(g, seed=1) as sess:
        sess.run(train, {x: ones})
        assert not sess.find_nonfinite(train, {x: ones})
        bias = next(v for v in g.trainable_variables if v.name == "layer1/bias")
        sess.set(bias, np.full((4,), -100.0, np.float32))  # tanh(-100 + small) is -1.0 in float32
        before = {v.name: sess.get(v) for v in g.trainable_variables}
        report = sess.find_nonfinite(loss, {x: ones})
        fed_nan = sess.find_nonfinite(loss, {x: np.where(ones > 0, np.nan, 0).astype(np.float32)})
        after = {v.name: sess.get(v) for v in g.trainable_variables}
    assert report.found and report.op == "log" and report.node.startswith("log")
    assert (os.path.basename(report.location.file), report.location.line) == (HERE, _line_of("# planted"))
    assert report.value.neg_inf == 12 and report.value.nan == 0
    assert [(s.low, s.high, s.finite) for s in report.inputs] == [(0.0, 0.0, True)]  # tanh + 1 == 0
    assert f"{HERE}:{_line_of('# planted')}: node '{report.node}' (log) made -inf" in str(report)
    assert report.checked >= 30  # the loss's floating tensors (the train op's are checked below)
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value)  # nothing written
    assert fed_nan.node == "x" and fed_nan.op == "placeholder" and fed_nan.value.nan == 12


def test_inside_a_scan_body_the_iteration_is_named():
    g = sg.Graph()
    with g:
        xs = sg.placeholder((5,), sg.float32, name="xs")
        w = sg.Variable(np.float32(1.0), name="w")

        def step(c, x):
            r = snp.sqrt(x * w - 1.0)  # in the body
            return c + r, r

        total, _ = sg.scan(step, sg.constant(0.0), xs)
        train = sg.optim.sgd(0.1).minimize(total)
    xv = np.array([2.0, 3.0, 5.0, 0.5, 0.25], np.float32)  # iteration 3 is the first below 1
    with sg.Session(g) as sess:
        report = sess.find_nonfinite(train, {xs: xv})
        w_after = sess.get(w)
    assert report.op == "sqrt" and report.location.line == _line_of("# in the body")
    assert "iteration 3 of step" in report.inside
    assert report.value.nan == 1
    (sub,) = report.inputs
    np.testing.assert_allclose(sub.low, xv[3] - 1.0)
    assert w_after == 1.0


def test_a_gradient_node_is_named_with_its_forward_node():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x")
        root = snp.sqrt(x)  # forward
        (dx,) = sg.gradients(root.sum(), [x])
    xv = np.array([4.0, 0.0, 1.0, 9.0], np.float32)
    with sg.Session(g) as sess:
        report = sess.find_nonfinite(dx, {x: xv})
    assert report.gradient_of == root.node.name  # d sqrt(x) = 1 / (2 sqrt(x)): +inf at 0
    assert report.value.pos_inf == 1 and report.node.startswith("grad/")
    assert f"from the forward node '{root.node.name}'" in str(report)


def test_a_session_that_checks_numerics_names_the_node_and_writes_nothing(deep):
    g, x, loss, train = deep
    ones = np.ones((2, 4), np.float32)
    with sg.Session(g, seed=1) as plain, sg.Session(g, seed=1, check_numerics=True) as checked:
        for _ in range(2):
            want = plain.run([loss, train], {x: ones})[0]
            got = checked.run([loss, train], {x: ones})[0]
            assert got == want  # the check changes no value
        bias = next(v for v in g.trainable_variables if v.name == "layer1/bias")
        checked.set(bias, np.full((4,), -100.0, np.float32))
        before = {v.name: checked.get(v) for v in g.trainable_variables}
        with pytest.raises(
            sg.ExecutionError, match=r"nan or an infinity[\s\S]*node 'log[^']*' \(log\) made -inf"
        ):
            checked.run([loss, train], {x: ones})
        for v in g.trainable_variables:
            np.testing.assert_array_equal(checked.get(v), before[v.name])
        checked.set(bias, np.zeros((4,), np.float32))
        assert np.isfinite(checked.run(loss, {x: ones}))  # usable after

        # the flag set on a Session that already ran the program: the next run checks (or not)
        plain.set(bias, np.full((4,), -100.0, np.float32))
        assert not np.isfinite(plain.run(loss, {x: ones}))
        plain.check_numerics = True
        with pytest.raises(sg.ExecutionError, match=r"nan or an infinity"):
            plain.run(loss, {x: ones})
        plain.check_numerics = False
        assert not np.isfinite(plain.run(loss, {x: ones}))


def test_the_users_checks_and_prints_do_not_stop_the_search(capsys):
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        y = snp.log(x)  # the culprit
        sg.debug.check_numerics(y, "log of x")
        sg.debug.print("y is {}", y)
        z = y * 2
    xv = np.array([1.0, -1.0, 2.0], np.float32)
    with sg.Session(g) as sess:
        with pytest.raises(sg.ExecutionError, match="log of x: 1 nan"):
            sess.run(z, {x: xv})
        capsys.readouterr()
        report = sess.find_nonfinite(z, {x: xv})
        assert capsys.readouterr().out == ""  # the diagnostic run prints nothing of the user's
    assert report.op == "log" and report.location.line == _line_of("# the culprit")
    assert (report.inputs[0].low, report.inputs[0].high) == (-1.0, 2.0)


def test_tensors_of_every_shape_and_dtype_keep_their_own_summaries(monkeypatch):
    # the summaries are computed per shape (stacked), then put back in graph order: a mix of shapes,
    # dtypes (float16 to complex) and ranks interleaved, with the planted value in the middle
    import stablegraph.backend.nonfinite as nonfinite

    texts = []
    compile_text = nonfinite.compile_text
    monkeypatch.setattr(
        nonfinite, "compile_text", lambda text, *a: texts.append(text) or compile_text(text, *a)
    )
    g = sg.Graph()
    with g:
        a = sg.placeholder((3,), sg.float32, name="a")
        b = sg.placeholder((2, 2), sg.float64, name="b")
        h = sg.placeholder((), sg.float16, name="h")
        za = snp.exp(a)
        zb = snp.sqrt(b)
        zc = (b + 1j).astype(sg.complex64)
        hh = h * 2
        planted = snp.log(za - 1.0) * snp.sum(zb)  # planted: -inf where a == 0, nan where a < 0
        out = planted + snp.abs(zc).sum().astype(sg.float32) + hh.astype(sg.float32)
    av = np.array([0.5, 0.0, -2.0], np.float32)
    bv = np.array([[4.0, 9.0], [0.25, 1.0]])
    hv = np.float16(3.0)
    with sg.Session(g) as sess:
        report = sess.find_nonfinite(out, {a: av, b: bv, h: hv})
    want = np.exp(av) - np.float32(1.0)
    with np.errstate(all="ignore"):
        logs = np.log(want)
    finite = logs[np.isfinite(logs)]
    assert report.node.startswith("log") and report.value.neg_inf == 1 and report.value.nan == 1
    np.testing.assert_allclose([report.value.low, report.value.high], [finite.min(), finite.max()], rtol=1e-6)
    (inp,) = report.inputs
    np.testing.assert_allclose([inp.low, inp.high], [want.min(), want.max()], rtol=1e-6)
    assert inp.finite and report.value.type.shape == (3,)
    # five reductions per shape, not per tensor: the program's count does not grow with the nodes
    shapes = {t.shape for n in g.nodes for t in n.outputs if t.dtype.is_floating or t.dtype.is_complex}
    assert texts and texts[-1].count("stablehlo.reduce") <= 5 * len(shapes) + 2
