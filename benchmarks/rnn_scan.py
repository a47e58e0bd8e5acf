"""Forward and backward of a tanh RNN over sg.scan, ours beside JAX's lax.scan under jit(grad).

The RNN (hidden 256, input 64, 100 steps, batch 32, float32 by default) is
written once against a numpy-like module and a scan. stablegraph runs
``sg.gradients(loss, weights)`` with ``sess.run`` and numpy feeds; JAX runs
``jax.jit(jax.grad(loss))`` on the same numpy arrays and gives back numpy
arrays. One process, repeats interleaved; prints the median step time of
each and their ratio (goal: stablegraph/jax <= 1.2). Run with
``python benchmarks/rnn_scan.py``.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure, per_call

import stablegraph as sg
from stablegraph import numpy as snp


def loss(xp, scan, weights, xs, h0):
    """Mean over steps and batch of the squared hidden state of ``h = tanh(x Wx + h Wh + b)``."""
    wx, wh, b = weights

    def cell(h, x):
        h = xp.tanh(x @ wx + h @ wh + b)
        return h, h

    _, hs = scan(cell, h0, xs)
    return xp.mean(hs * hs)


def make_inputs(hidden: int, inp: int, steps: int, batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    weights = [
        (rng.normal(size=(inp, hidden)) / np.sqrt(inp)).astype(np.float32),
        (rng.normal(size=(hidden, hidden)) / np.sqrt(hidden)).astype(np.float32),
        np.zeros(hidden, np.float32),
    ]
    xs = rng.normal(size=(steps, batch, inp)).astype(np.float32)
    h0 = np.zeros((batch, hidden), np.float32)
    return weights, xs, h0


def stablegraph_step(weights, xs, h0):
    g = sg.Graph("rnn_grad")
    with g:
        ws = [sg.placeholder(w.shape, sg.float32, name=f"w{i}") for i, w in enumerate(weights)]
        x = sg.placeholder(xs.shape, sg.float32, name="xs")
        h = sg.placeholder(h0.shape, sg.float32, name="h0")
        grads = sg.gradients(loss(snp, sg.scan, ws, x, h), ws)
    sess = sg.Session(g)
    feeds = dict(zip(ws, weights)) | {x: xs, h: h0}
    return lambda: sess.run(grads, feeds)


def jax_step(weights, xs, h0):
    step = jax.jit(jax.grad(lambda ws, a, b: loss(jnp, jax.lax.scan, ws, a, b)))
    return lambda: [np.asarray(g) for g in step(weights, xs, h0)]


def rnn_arguments(description: str) -> argparse.Namespace:
    """The RNN's sizes and the timing's repeats from the command line (this benchmark's and scan_jvp.py's)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--input", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--calls", type=int, default=10, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    return parser.parse_args()


def main() -> None:
    args = rnn_arguments(__doc__.splitlines()[0])

    weights, xs, h0 = make_inputs(args.hidden, args.input, args.steps, args.batch)
    fns = {"stablegraph": stablegraph_step(weights, xs, h0), "jax": jax_step(weights, xs, h0)}
    ours, theirs = fns["stablegraph"](), fns["jax"]()  # compiles; also a check that both agree
    for k, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-5, err_msg=f"gradient {k}")
        assert isinstance(a, np.ndarray) and a.dtype == np.float32, (k, type(a), a.dtype)
    for fn in fns.values():
        per_call(fn, 3)  # warm up caches
    med = measure(fns, args.calls, args.repeats)
    print(
        f"forward+backward of a tanh RNN: hidden {args.hidden}, input {args.input}, {args.steps} steps, "
        f"batch {args.batch}, float32, numpy in and out"
    )
    print(f"(median of {args.repeats} x {args.calls} calls)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.2f} ms")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
