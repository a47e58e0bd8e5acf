"""JAX's autodiff_remat tutorial (gradient checkpointing), ported as a JAX user writes it: a
decorated ``checkpoint`` of a layer, ``checkpoint_name`` on each layer's output with
``save_only_these_names``, the other policies by jax's names (offloading ones included), a scanned
layer stack with a checkpointed body, and what each policy keeps, read off the compiled program's
temp memory. jax is the oracle for every gradient and for the memory."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.ad_checkpoint import checkpoint_name as jax_checkpoint_name

import stablegraph as sg
from stablegraph import numpy as snp

R = np.random.default_rng(0)
SCANS = ("scan nothing", "scan h", "scan everything")


def programs(np_, lib, checkpoint_name):
    """The tutorial's functions over one API (jax or stablegraph): name -> gradient function."""
    cp = lib.checkpoint_policies

    def g(W, x):
        y = np_.dot(W, x)
        return np_.sin(y)

    def f(W1, W2, W3, x):
        x = lib.checkpoint(g)(W1, x)
        x = lib.checkpoint(g)(W2, x)
        return np_.sum(lib.checkpoint(g)(W3, x))

    @partial(lib.checkpoint, policy=cp.dots_with_no_batch_dims_saveable)
    def g_dots(W, x):
        return g(W, x)

    def predict(params, x):
        *Ws, Wlast = params
        for i, W in enumerate(Ws):
            x = g(W, x)
            x = checkpoint_name(x, name=f"layer{i}_output")
        return np_.dot(Wlast, x)

    def loss(params, x):
        return np_.sum(predict(params, x) ** 2)

    def scanned(policy):
        def body(x, W):
            h = checkpoint_name(np_.dot(W, x), "h")
            return np_.sin(h) * np_.tanh(h), None

        step = lib.checkpoint(body, policy=policy, prevent_cse=False)
        return lambda Ws, x: np_.sum(lib.lax.scan(step, x, Ws)[0])

    names = cp.save_only_these_names("layer1_output")
    offload = cp.save_and_offload_only_these_names(
        names_which_can_be_saved=["layer0_output"], names_which_can_be_offloaded=["layer1_output"],
        offload_src="device", offload_dst="pinned_host",
    )  # fmt: skip
    return {
        "f": lambda Ws, x: lib.grad(f, argnums=(0, 1, 2))(*Ws[:3], x),
        "decorated": lambda Ws, x: lib.grad(lambda w, v: np_.sum(g_dots(w, v)), argnums=(0, 1))(Ws[0], x),
        "names": lambda Ws, x: lib.grad(lib.checkpoint(loss, policy=names))(list(Ws), x),
        "offload": lambda Ws, x: lib.grad(lib.checkpoint(loss, policy=offload))(list(Ws), x),
        "all but": lambda Ws, x: lib.grad(
            lib.remat(loss, policy=cp.save_anything_except_these_names("layer0_output"))
        )(list(Ws), x),
        "dot offload": lambda Ws, x: lib.grad(
            lib.checkpoint(loss, policy=cp.offload_dot_with_no_batch_dims("device", "pinned_host"))
        )(list(Ws), x),
        "scan nothing": lib.grad(scanned(cp.nothing_saveable)),
        "scan h": lib.grad(scanned(cp.save_only_these_names("h"))),
        "scan everything": lib.grad(scanned(cp.everything_saveable)),
    }


N, LAYERS = 32, 6
WS = (R.normal(size=(LAYERS, N, N)) / np.sqrt(N)).astype(np.float32)
X = R.normal(size=(N,)).astype(np.float32)


def build(names):
    """The stablegraph programs ``names`` in one graph: (graph, feeds, name -> gradients)."""
    g = sg.Graph()
    with g:
        w = sg.placeholder(sg.float32, WS.shape, "Ws")
        x = sg.placeholder(sg.float32, X.shape, "x")
        fns = programs(snp, sg, sg.checkpoint_name)
        grads = {k: fns[k](w if k in SCANS else [w[i] for i in range(LAYERS)], x) for k in names}
    return g, {w: WS, x: X}, grads


def test_remat_tutorial_gradients_match_jax():
    jax_programs = {k: v for k, v in programs(jnp, jax, jax_checkpoint_name).items() if k not in SCANS[1:]}
    want = jax.jit(lambda w, v: {k: fn(w, v) for k, fn in jax_programs.items()})(WS, X)
    g, feed_dict, grads = build(list(jax_programs))
    with sg.Session(g) as sess:
        got = sess.run(grads, feed_dict=feed_dict)
    for name in want:
        for a, b in zip(jax.tree.leaves(got[name]), jax.tree.leaves(want[name])):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6, err_msg=name)


def test_policies_keep_what_jax_keeps_in_a_scanned_stack():
    jax_programs = programs(jnp, jax, jax_checkpoint_name)
    compiled = {k: jax.jit(jax_programs[k]).lower(WS, X).compile() for k in SCANS}
    g, feed_dict, grads = build(SCANS)
    with sg.Session(g) as sess:
        lowered = {k: sess.lower(grads[k], feed_dict).compile() for k in SCANS}
        got = sess.run(grads, feed_dict=feed_dict)
    memory = {k: c.memory_analysis()["temp_size_in_bytes"] for k, c in lowered.items()}
    for k in SCANS:
        np.testing.assert_allclose(got[k], compiled[k](WS, X), rtol=2e-5, atol=1e-6, err_msg=k)
        # no policy keeps more than jax's does
        assert memory[k] <= compiled[k].memory_analysis().temp_size_in_bytes * 1.05 + 256, (k, memory)
    assert memory["scan nothing"] < memory["scan h"] < memory["scan everything"], (
        memory
    )  # more kept, more memory
