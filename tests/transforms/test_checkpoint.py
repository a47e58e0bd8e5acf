"""sg.checkpoint (sg.remat) with jax's policies and sg.checkpoint_name (ops/checkpoint.py): what the
gradient keeps, measured by the compiled program's temp memory against jax.checkpoint on the same
program, and gradient values against jax (first and second order, forward mode, under vmap)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

FILE = pathlib.Path(__file__).name
R = np.random.default_rng(11)
cp = sg.checkpoint_policies


def layer(c, w, np_=snp, name=sg.checkpoint_name):
    """A scan step with two matmuls and elementwise work between them; z and h are named."""
    z = name(w @ c, "z")
    h = name(np_.sin(z) * np_.tanh(z), "h")
    return np_.cos(w @ h) * np_.exp(h * 0.1), None


def _policies(module):
    return {
        "nothing": module.nothing_saveable,
        "only h": module.save_only_these_names("h"),
        "all names but h": module.save_any_names_but_these("h"),
        "z or h": module.save_from_both_policies(
            module.save_only_these_names("z"), module.save_only_these_names("h")
        ),
        "dots": module.dots_saveable,
        "dots without batch dims": module.dots_with_no_batch_dims_saveable,
        "everything": module.everything_saveable,
    }


def test_policies_keep_what_jax_keeps_in_a_scan():
    """The temp memory of grad(scan(checkpoint(layer, policy))) is at most jax's, policy by policy
    (equal, measured), and keeping less costs less."""
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name

    n, steps = 64, 6
    W = (R.normal(size=(steps, n, n)) / np.sqrt(n)).astype(np.float32)
    X = R.normal(size=(n, n)).astype(np.float32)
    kept = ["nothing", "only h", "dots", "everything"]
    bodies = {k: sg.checkpoint(layer, policy=_policies(cp)[k]) for k in kept}
    g = sg.Graph()
    with g:
        w = sg.placeholder(W.shape, sg.float32, name="w")
        x = sg.placeholder(X.shape, sg.float32, name="x")
        grads = {k: sg.grad(lambda ws, f=f: snp.sum(sg.scan(f, x, ws)[0]))(w) for k, f in bodies.items()}
    with sg.Session(g) as sess:
        mem = {k: sess.lower(t, {w: W, x: X}).compile().memory_analysis()["temp_size_in_bytes"]
               for k, t in grads.items()}  # fmt: skip

    def jlayer(c, w):
        return layer(c, w, jnp, checkpoint_name)

    jpols = _policies(jax.checkpoint_policies)
    for k in mem:
        f = jax.checkpoint(jlayer, policy=jpols[k])
        fn = jax.jit(jax.grad(lambda ws, f=f: jnp.sum(jax.lax.scan(f, X, ws)[0])))
        want = fn.lower(W).compile().memory_analysis().temp_size_in_bytes
        assert mem[k] <= want * 1.02 + 4096, (k, mem[k], want)
    assert mem["nothing"] < mem["only h"] < mem["dots"] < mem["everything"], mem


def _net(x, w, policy, np_=snp, name=sg.checkpoint_name, remat=sg.checkpoint):
    """A block of two layers checkpointed as a unit, applied twice."""

    def block(a):
        a = name(np_.tanh(a @ w), "h")
        return np_.sin(a @ w) + a

    step = block if policy is False else remat(block, policy=policy)
    return np_.sum(step(step(x)) ** 2)


def _derivatives(f, x, w, sgl):
    """First and second order and forward mode, in jax's spelling: ``sgl`` is sg or jax.
    (vmap: tests/transforms/test_batch_checkpoint.py)"""
    np_ = snp if sgl is sg else __import__("jax.numpy").numpy
    return {
        "grad": sgl.grad(f, argnums=(0, 1))(x, w),
        "second": sgl.grad(lambda w_: np_.sum(sgl.grad(f)(x, w_) ** 2))(w),
        "jvp": sgl.jvp(lambda w_: f(x, w_), (w,), (np_.ones_like(w),))[1],
    }


def test_gradients_match_jax_in_every_mode(jax_x64):
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name

    X, W = R.normal(size=(3, 3)), R.normal(size=(3, 3)) * 0.5
    chosen = ["all names but h", "z or h", "everything"]
    pols, jpols = _policies(cp), _policies(jax.checkpoint_policies)
    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float64, name="x")
        w = sg.placeholder(W.shape, sg.float64, name="w")
        got = {
            k: _derivatives(lambda x_, w_, p=p: _net(x_, w_, p), x, w, sg)
            for k, p in [("plain", False), ("default", None), *((k, pols[k]) for k in chosen)]
        }
    with sg.Session(g) as sess:
        got = sess.run(got, {x: X, w: W})
    for k, p in [("plain", False), ("default", None), *((k, jpols[k]) for k in chosen)]:
        want = _derivatives(
            lambda x_, w_, p=p: _net(x_, w_, p, jnp, checkpoint_name, jax.checkpoint), X, W, jax
        )
        for what, value in want.items():
            for a, b in zip(*(v if what == "grad" else [v] for v in (got[k][what], value))):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=f"{k} {what}")


def test_the_recomputation_is_fenced_and_prunes_what_it_does_not_read():
    """The gradient recomputes behind one optimization_barrier that also holds the cotangent; with
    prevent_cse=False there is none. Only saved values the backward reads enter it."""
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 3), sg.float32, name="x")
        f = sg.checkpoint(lambda a: snp.sin(a @ a), policy=cp.everything_saveable)
        fenced = sg.grad(lambda a: f(a).sum())(x)
        loose = sg.grad(lambda a: sg.checkpoint(lambda b: snp.sin(b @ b), prevent_cse=False)(a).sum())(x)
    del fenced, loose
    barriers = [n for n in g.nodes if n.op.name == "optimization_barrier"]
    assert len(barriers) == 1, barriers
    # x (as grad's alias of it), the dot (sin's cotangent needs cos(x @ x)) and the cotangent; not
    # sin's output, saved too (output 2 of the checkpoint node) but never read
    x_alias, dot, ct = barriers[0].inputs
    assert dot.node.op.name == "checkpoint" and len(dot.node.outputs) == 3 and dot is dot.node.outputs[1]
    assert x_alias.node.inputs == (x,) and ct.node.op.name == "broadcast_in_dim"


def test_spellings_jax_users_write():
    import jax
    import jax.numpy as jnp

    X = R.normal(size=(2, 3)).astype(np.float32)

    @sg.remat  # the decorator, and sg.remat is sg.checkpoint
    def f(a, scale, *, shift):
        return snp.tanh(a * scale + shift["s"])

    @sg.checkpoint(policy=cp.dots_saveable, static_argnums=(1,))  # a static (Python) argument
    def g_(a, power):
        return snp.sum(a**power, axis=1) @ snp.ones((2,))

    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float32, name="x")
        value = f(x, 2.0, shift={"s": 0.5})
        grad_f = sg.grad(lambda a: f(a, 2.0, shift={"s": 0.5}).sum())(x)
        grad_g = sg.grad(lambda a: g_(a, 3))(x)
        named = sg.checkpoint_name({"a": x, "b": [x * 2]}, "both")
        # a checkpointed scan body closing over x[0]: TF1's gradients follows that path too
        cell = sg.checkpoint(lambda c, r: (snp.tanh(c * x[0] + r), c), policy=cp.dots_saveable)
        (scan_grad,) = sg.gradients(snp.sum(sg.scan(cell, x[1], x)[1] ** 2), [x])
    assert sg.remat is sg.checkpoint
    assert [n.op.name for n in g.nodes].count("checkpoint_name") == 2
    with sg.Session(g) as sess:
        got = sess.run([value, grad_f, grad_g, named, scan_grad], {x: X})
    jf = jax.checkpoint(lambda a: jnp.tanh(a * 2.0 + 0.5))
    np.testing.assert_allclose(got[0], jf(X), rtol=1e-6)
    np.testing.assert_allclose(got[1], jax.grad(lambda a: jf(a).sum())(X), rtol=1e-5)
    np.testing.assert_allclose(got[2], jax.grad(lambda a: jnp.sum(a**3))(X), rtol=1e-5)
    np.testing.assert_array_equal(got[3]["b"][0], 2 * X)

    def scanned(a):
        return jnp.sum(jax.lax.scan(lambda c, r: (jnp.tanh(c * a[0] + r), c), a[1], a)[1] ** 2)

    np.testing.assert_allclose(got[4], jax.grad(scanned)(X), rtol=1e-5, atol=1e-6)
    for name in ("dots_saveable", "nothing_saveable", "everything_saveable", "dots_with_no_batch_dims_saveable",
                 "save_only_these_names", "save_any_names_but_these", "save_from_both_policies", "checkpoint_dots",
                 "checkpoint_dots_with_no_batch_dims"):  # fmt: skip
        assert callable(getattr(cp, name)) and hasattr(jax.checkpoint_policies, name), name


def test_mistakes_are_errors_at_the_users_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        cases = [
            (lambda: sg.checkpoint(snp.sin, policy="dots")(x), "checkpoint wants a policy such as"),
            (lambda: sg.checkpoint(3), "checkpoint wants a function, got int"),
            (lambda: sg.checkpoint_name(x, 3), "checkpoint_name wants a str name, got int"),
            (lambda: sg.checkpoint(lambda a: a)({"a": "text"}), r"args\[0\]\[0\]\['a'\] is a str"),
        ]
        for make, match in cases:
            with pytest.raises(sg.GraphError, match=match) as e:
                make()
            assert str(e.value).startswith(f"{FILE}:{make.__code__.co_firstlineno}: "), str(e.value)
