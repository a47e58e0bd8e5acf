"""sg.spmd as JAX users write shard_map: nests of arguments and results with prefix specs, the check
that an output promised replicated is (ops/spmd_specs.py, ops/primitives/replication.py), and errors at the
user's line. Values against a numpy model of a 2 x 2 mesh ("x", "y"); gradients against jax on one
device."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

P = sg.PartitionSpec
R = np.random.default_rng(7)
FILE = pathlib.Path(__file__).name


def line() -> int:
    """The caller's line number (for asserting the file:line errors cite)."""
    return sys._getframe(1).f_lineno


@pytest.fixture(scope="module")
def mesh():
    return sg.make_mesh((2, 2), ("x", "y"))


def test_nested_arguments_and_results_take_prefix_specs(mesh):
    X = R.normal(size=(4, 6)).astype(np.float32)
    W, B, V = (R.normal(size=s).astype(np.float32) for s in [(6,), (), (4,)])

    def body(params, data):  # params: {"w": split over y, "b": scalar}; data: ({"a": split x, y}, v: x)
        a, v = data[0]["a"], data[1]
        h = a * params["w"] + params["b"]
        return {"h": h, "total": sg.psum(h.sum(), ("x", "y")), "rows": [sg.psum(h.sum(1), "y") + v]}

    g = sg.Graph()
    with g:
        x, w, b, v = (sg.placeholder(t.shape, sg.float32, name=n) for t, n in [(X, "x"), (W, "w"), (B, "b"),
                                                                                (V, "v")])  # fmt: skip
        out = sg.spmd(
            body, mesh,
            in_specs=({"w": P("y"), "b": P()}, ({"a": P("x", "y")}, P("x"))),  # one entry per argument
            out_specs={"h": P("x", "y"), "total": P(), "rows": P("x")},  # a dict of specs for a dict result
        )({"w": w, "b": b}, ({"a": x}, v))  # fmt: skip
        # a single spec stands for every leaf; the decorator form with keywords, as shard_map is spelled
        doubled = sg.spmd(mesh=mesh, in_specs=P("x"), out_specs=P("x"))(lambda p, q: (p * 2, q + 1))(
            x, snp.ones((4, 3))
        )
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run([out, doubled], {x: X, w: W, b: B, v: V})
    h = X * W + B
    np.testing.assert_allclose(got[0]["h"], h, rtol=1e-6)
    np.testing.assert_allclose(got[0]["total"], h.sum(), rtol=1e-5)
    np.testing.assert_allclose(got[0]["rows"][0], h.sum(1) + V, rtol=1e-5)
    assert isinstance(got[0]["rows"], list) and isinstance(got[1], tuple)
    np.testing.assert_allclose(got[1][0], 2 * X)
    np.testing.assert_allclose(got[1][1], np.full((4, 3), 2.0))


def test_grad_through_a_region_with_dict_parameters_equals_jax_on_one_device(mesh, jax_x64):
    import jax
    import jax.numpy as jnp

    X, W, B = R.normal(size=(8, 5)), R.normal(size=(5, 3)), R.normal(size=3)

    def loss_sg(params, x):  # data parallel: params replicated, rows split over both axes
        def per_device(p, a):
            return sg.pmean(snp.mean(snp.tanh(a @ p["w"] + p["b"]) ** 2), ("x", "y"))

        return sg.spmd(per_device, mesh, in_specs=(P(), P(("x", "y"))), out_specs=P())(params, x)

    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float64, name="x")
        params = {"w": sg.placeholder(W.shape, sg.float64, name="w"), "b": sg.placeholder((3,), sg.float64)}
        value, grads = sg.value_and_grad(loss_sg)(params, x)
    with sg.Session(g, mesh=mesh) as sess:
        value, grads = sess.run([value, grads], {x: X, params["w"]: W, params["b"]: B})

    def loss_jax(p, x):
        return jnp.mean(jnp.tanh(x @ p["w"] + p["b"]) ** 2)

    want_value, want = jax.value_and_grad(loss_jax)({"w": W, "b": B}, X)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    for k in ("w", "b"):
        np.testing.assert_allclose(grads[k], want[k], rtol=1e-10)


# Bodies whose result is promised replicated (out_specs P()) over axes it varies along, as jax's
# check_vma rejects them; each with the axes the message must name.
NOT_REPLICATED = {
    "a shard itself": (lambda a: a, ["'x'"]),
    "a local sum": (lambda a: a.sum(), ["'x'"]),
    "a sum over the wrong axis": (lambda a: sg.psum(a.sum(), "y"), ["'x'"]),
    "axis_index": (lambda a: sg.axis_index("y") * 1.0, ["'y'"]),
    "psum_scatter": (
        lambda a: sg.psum_scatter(sg.psum(a, "x"), "y", scatter_dimension=1, tiled=True),
        ["'y'"],
    ),
    "ppermute": (lambda a: sg.ppermute(sg.psum(a, "x"), "y", [(0, 1), (1, 0)]), ["'y'"]),
    "a cond on a local predicate": (
        lambda a: sg.cond(a.sum() > 0, lambda v: sg.psum(v, "x"), lambda v: sg.psum(-v, "x"), a),
        ["'x'"],
    ),
    "a scan whose carry picks up a shard": (
        lambda a: sg.scan(lambda c, r: (c + r, None), snp.zeros(6), a)[0],
        ["'x'"],
    ),
    "a while loop stopping per device": (
        lambda a: sg.while_loop(lambda c: c[0] < 3.0 + sg.axis_index("y"), lambda c: c + 1.0, snp.zeros(2)),
        ["'y'"],
    ),
    "both axes": (lambda a: a.sum() + sg.axis_index("y"), ["'x', 'y'"]),
}

# Bodies whose results are replicated as promised: the check must let them through.
REPLICATED = {
    "psum": (lambda a: sg.psum(a.sum(), "x"), lambda X: X.sum()),
    "pmean over both": (lambda a: sg.pmean(a.sum(0), ("x", "y")), lambda X: X.sum(0) / 2),  # y: copies
    "all_gather": (lambda a: sg.all_gather(a, "x", tiled=True), lambda X: X),
    "pmax": (lambda a: sg.pmax(a.max(), "x"), lambda X: X.max()),
    "a cond on a replicated predicate": (
        lambda a: sg.cond(sg.psum(a.sum(), "x") > 0, lambda v: sg.psum(v, "x"), lambda v: sg.pmin(v, "x"), a),
        lambda X: X[:2] + X[2:] if X.sum() > 0 else np.minimum(X[:2], X[2:]),
    ),
    "a scan adding psums": (
        lambda a: sg.scan(lambda c, r: (c + sg.psum(r, "x"), None), snp.zeros(6), a)[0],
        lambda X: X.sum(0),
    ),
    "a fori_loop": (
        lambda a: sg.fori_loop(0, 3, lambda i, c: c + sg.psum(a, "x"), snp.zeros((2, 6))),
        lambda X: 3 * (X[:2] + X[2:]),
    ),
    "a gradient, then pmean": (
        lambda a: sg.pmean(sg.grad(lambda v: snp.sum(v**3))(a).sum(0), "x"),
        lambda X: (3 * X**2).sum(0) / 2,
    ),
    "a custom_vjp function": (lambda a: _scaled(sg.psum(a, "x")), lambda X: 2 * (X[:2] + X[2:])),
    "a checkpointed function": (
        lambda a: sg.checkpoint(lambda v: snp.sin(sg.psum(v, "x")))(a),
        lambda X: np.sin(X[:2] + X[2:]),
    ),
    "a constant": (lambda a: snp.ones(3), lambda X: np.ones(3)),
}


@sg.custom_vjp
def _scaled(v):
    return 2.0 * v


_scaled.defvjp(lambda v: (_scaled(v), None), lambda _, g: (2.0 * g,))


def test_outputs_promised_replicated_are_checked(mesh):
    X = R.normal(size=(4, 6)).astype(np.float32)
    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float32, name="x")
        for label, (body, axes) in NOT_REPLICATED.items():
            with pytest.raises(sg.GraphError) as e:
                at = line() + 1
                sg.spmd(body, mesh, in_specs=P("x"), out_specs=P())(x)
            msg = str(e.value)
            assert f"{FILE}:{at}:" in msg and "varies along" in msg, (label, msg)
            assert all(f"mesh axis {a}" in msg for a in axes), (label, msg)
        # the same with check_vma=False (or jax's older check_rep=False) builds: one device's copy
        unchecked = sg.spmd(lambda a: a.sum(), mesh, in_specs=P("x"), out_specs=P(), check_vma=False)(x)
        sg.spmd(lambda a: a.sum(), mesh, in_specs=P("x"), out_specs=P(), check_rep=False)(x)
        # a result in a nest is named by its path
        with pytest.raises(sg.GraphError, match=r"result\['b'\]\[1\] \(f32\[\] per device\) has out_spec"):
            sg.spmd(lambda a: {"a": sg.psum(a, "x"), "b": (a, a.sum())}, mesh, P("x"),
                    {"a": P(), "b": (P("x"), P())})(x)  # fmt: skip
        ok = {
            label: sg.spmd(body, mesh, in_specs=P("x"), out_specs=P())(x)
            for label, (body, _) in REPLICATED.items()
        }
        split = sg.spmd(lambda a: sg.axis_index("y") + snp.zeros((1,), sg.int32), mesh, P(), P("y"))(x)
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run({"ok": ok, "split": split, "unchecked": unchecked}, {x: X})
    for label, (_, want) in REPLICATED.items():
        np.testing.assert_allclose(got["ok"][label], want(X), rtol=1e-5, atol=1e-6, err_msg=label)
    np.testing.assert_array_equal(got["split"], [0, 1])
    np.testing.assert_allclose(got["unchecked"], X[:2].sum(), rtol=1e-5)  # device (0, 0)'s copy


def test_spec_and_region_mistakes_are_errors_at_the_users_line(mesh):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 6), sg.float32, name="x")
        cases = [
            (lambda: P("x", "x"), "uses mesh axis 'x' twice"),
            (lambda: P(1), "entries are None, an axis name or a tuple of names, got 1"),
            (lambda: sg.NamedSharding(mesh, P("z")), "names axis 'z', not an axis of"),
            (lambda: sg.spmd(lambda a: a, mesh, P(None, ("x", "y")), P())(snp.zeros((4, 6))),
             r"args\[0\]: dim 1 of f32\[4,6\] does not split evenly over \('x', 'y'\)"),
            (lambda: sg.spmd(lambda a: a, mesh, P("x", None, None), P("x"))(x), "3 entries for a value of rank 2"),
            (lambda: sg.spmd(lambda a: a, mesh, P("data"), P())(x), r"names \['data'\], not axes of the mesh"),
            (lambda: sg.spmd(lambda a: a, mesh, (P("x"), P()), P("x"))(x),
             "in_specs has 2 entries, but the function is called with 1 argument"),
            (lambda: sg.spmd(lambda a: a, mesh, "x", P("x"))(x), r"in_specs is 'x' \(a str\): give a PartitionSpec"),
            (lambda: sg.spmd(lambda a: (a, a), mesh, P("x"), (P("x"),) * 3)(x),
             r"out_specs has 3 entries, but the function returns \(\*, \*\)"),
            (lambda: sg.spmd(lambda d: d["a"], mesh, ({"b": P()},), P())({"a": x}),
             r"in_specs\[0\] has the keys 'b', but the value there is structured as \{'a': \*\}"),
            (lambda: sg.spmd(lambda a: a, mesh, ((P(), P()),), P("x"))(x),
             r"in_specs\[0\] is a tuple of specs, but the value there is a single value"),
            (lambda: sg.spmd(lambda a: a, "mesh", P("x"), P("x"))(x), "spmd wants a Mesh"),
            (lambda: sg.spmd(lambda a: a, mesh, P("x"), P("x"))("text"), r"args\[0\] is a str"),
        ]  # fmt: skip
        for make, match in cases:
            with pytest.raises(sg.GraphError, match=match) as e:
                make()
            assert str(e.value).startswith(f"{FILE}:{make.__code__.co_firstlineno}: "), str(e.value)


def test_collectives_take_nests_and_python_numbers_as_jax(mesh):
    """jax's data-parallel habit: pmean a (loss, grads) nest; psum(1, axis) is the axis size."""
    X = R.normal(size=(4, 6)).astype(np.float32)
    sizes = []

    def body(a):
        n = sg.psum(1, ("x", "y"))
        sizes.append((n, sg.psum(1, "x"), sg.pmean(3, "y"), sg.pmax(2.5, "x")))
        loss, grads = sg.value_and_grad(lambda v: snp.sum(v**2) / n)(a)
        return sg.pmean((loss, {"g": grads.sum(0)}), ("x", "y")), sg.all_gather({"a": a}, "x", tiled=True)

    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float32, name="x")
        (loss, grads), gathered = sg.spmd(body, mesh, P("x", "y"), ((P(), {"g": P()}), {"a": P(None, "y")}))(
            x
        )
    assert sizes == [(4, 2, 3.0, 2.5)] and isinstance(sizes[0][0], int)
    with sg.Session(g, mesh=mesh) as sess:
        loss, grads, gathered = sess.run([loss, grads, gathered], {x: X})
    blocks = [np.split(h, 2, axis=1) for h in np.split(X, 2, axis=0)]  # blocks[i][j]: device (i, j)
    np.testing.assert_allclose(loss, sum((b**2).sum() for r in blocks for b in r) / 16, rtol=1e-5)
    want = sum(2 * b.sum(0) / 4 for r in blocks for b in r) / 4  # each device's (3,) column sums, averaged
    np.testing.assert_allclose(grads["g"], want, rtol=1e-5)
    np.testing.assert_allclose(gathered["a"], X)
