"""Per-example gradients: an MLP's softmax cross-entropy loss, vectorized over a batch, ours beside JAX's.

The MLP (784-512-512-10 by default, tanh, float32) is written once against a
numpy-like module (benchmarks/grad.py's ``loss``, on one example at a time).
stablegraph builds ``sg.vectorize(sg.grad(loss), in_axes=(None, 0, 0))`` in a
graph and runs it with ``sess.run`` and numpy feeds; JAX runs
``jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))`` on the same numpy
arrays. One process, repeats interleaved so machine noise hits both alike;
prints the median call time of each, the temp memory of each compiled
program (from the compilers' memory analyses) and their ratio (goal:
stablegraph/jax <= 1.0). Run with ``python benchmarks/per_example_grads.py``.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from grad import loss, make_inputs
from timing import measure, per_call

import stablegraph as sg
from stablegraph import numpy as snp


def example_loss(xp, params, x, y):
    """The loss of one example: ``x`` of shape (784,), ``y`` one-hot of shape (10,)."""
    return loss(xp, params, x[None], y[None])


def stablegraph_step(params, x, y):
    """The per-example gradient call, and the temp bytes of its compiled program."""
    g = sg.Graph("per_example_grads")
    with g:
        ps = [sg.placeholder(p.shape, sg.float32, name=f"p{i}") for i, p in enumerate(params)]
        xs = sg.placeholder(x.shape, sg.float32, name="x")
        ys = sg.placeholder(y.shape, sg.float32, name="y")
        per_example = sg.vectorize(sg.grad(lambda p, a, b: example_loss(snp, p, a, b)), in_axes=(None, 0, 0))
        grads = per_example(ps, xs, ys)
    sess = sg.Session(g)
    feeds = dict(zip(ps, params)) | {xs: x, ys: y}
    temp = sess.lower(grads, feeds).compile().memory_analysis()["temp_size_in_bytes"]
    return (lambda: sess.run(grads, feeds)), temp


def jax_step(params, x, y):
    """JAX's per-example gradient call, and the temp bytes of its compiled program."""
    fn = jax.jit(jax.vmap(jax.grad(lambda p, a, b: example_loss(jnp, p, a, b)), in_axes=(None, 0, 0)))
    temp = fn.lower(params, x, y).compile().memory_analysis().temp_size_in_bytes
    return (lambda: [np.asarray(g) for g in fn(params, x, y)]), temp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[784, 512, 512, 10], help="layer widths")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--calls", type=int, default=3, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats")
    args = parser.parse_args()

    params, x, y = make_inputs(args.sizes, args.batch)
    (ours_fn, ours_temp), (jax_fn, jax_temp) = stablegraph_step(params, x, y), jax_step(params, x, y)
    fns = {"stablegraph": ours_fn, "jax": jax_fn}
    ours, theirs = ours_fn(), jax_fn()  # compiles; also a check that both agree
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert a.shape == (args.batch, *params[k].shape) and a.dtype == np.float32, (k, a.shape, a.dtype)
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-5, err_msg=f"gradient {k}")
    for fn in fns.values():
        per_call(fn, 1)  # warm up caches
    med = measure(fns, args.calls, args.repeats)
    shape = "-".join(map(str, args.sizes))
    print(f"per-example gradients of an MLP {shape}, batch {args.batch}, float32, numpy in and out")
    print(f"(median of {args.repeats} x {args.calls} calls)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.2f} ms")
    print(f"temp memory: stablegraph {ours_temp / 2**20:.1f} MiB, jax {jax_temp / 2**20:.1f} MiB")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
