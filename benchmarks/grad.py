"""Step time of a compiled gradient: an MLP's softmax cross-entropy loss, ours beside JAX's.

The MLP (784-512-512-10 by default, tanh, batch 256, float32) is written once
against a numpy-like module. stablegraph runs ``sg.gradients(loss, params)``
with ``sess.run`` and numpy feeds; JAX runs ``jax.jit(jax.grad(loss))`` on the
same numpy arrays and gives back numpy arrays. One process, repeats
interleaved so machine noise hits both alike; prints the median step time of
each and their ratio (goal: stablegraph/jax <= 1.1). Run with
``python benchmarks/grad.py``.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure, per_call

import stablegraph as sg
from stablegraph import numpy as snp


def loss(xp, params, x, y):
    """Mean softmax cross-entropy of an MLP with tanh hidden layers; ``y`` is one-hot."""
    h = x
    for w, b in zip(params[:-2:2], params[1:-2:2]):
        h = xp.tanh(h @ w + b)
    z = h @ params[-2] + params[-1]
    m = xp.max(z, axis=-1, keepdims=True)
    log_p = z - m - xp.log(xp.sum(xp.exp(z - m), axis=-1, keepdims=True))
    return -xp.mean(xp.sum(y * log_p, axis=-1))


def make_inputs(sizes, batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.normal(size=(n_in, n_out)) / np.sqrt(n_in)).astype(np.float32))
        params.append(np.zeros(n_out, np.float32))
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    return params, x, y


def stablegraph_step(params, x, y):
    g = sg.Graph("mlp_grad")
    with g:
        ps = [sg.placeholder(p.shape, sg.float32, name=f"p{i}") for i, p in enumerate(params)]
        xs = sg.placeholder(x.shape, sg.float32, name="x")
        ys = sg.placeholder(y.shape, sg.float32, name="y")
        grads = sg.gradients(loss(snp, ps, xs, ys), ps)
    sess = sg.Session(g)
    feeds = dict(zip(ps, params)) | {xs: x, ys: y}
    return lambda: sess.run(grads, feeds)


def jax_step(params, x, y):
    step = jax.jit(jax.grad(lambda ps, a, b: loss(jnp, ps, a, b)))
    return lambda: [np.asarray(g) for g in step(params, x, y)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[784, 512, 512, 10], help="layer widths")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--calls", type=int, default=10, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    args = parser.parse_args()

    params, x, y = make_inputs(args.sizes, args.batch)
    fns = {"stablegraph": stablegraph_step(params, x, y), "jax": jax_step(params, x, y)}
    ours, theirs = fns["stablegraph"](), fns["jax"]()  # compiles; also a check that both agree
    for k, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-5, err_msg=f"gradient {k}")
        assert isinstance(a, np.ndarray) and a.dtype == np.float32, (k, type(a), a.dtype)
    for fn in fns.values():
        per_call(fn, 3)  # warm up caches
    med = measure(fns, args.calls, args.repeats)
    shape = "-".join(map(str, args.sizes))
    print(f"gradient step of an MLP {shape}, batch {args.batch}, float32, numpy in and out")
    print(f"(median of {args.repeats} x {args.calls} calls)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.2f} ms")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
