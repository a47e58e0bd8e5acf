"""Compile time of the demo's train step with dropout, beside JAX's equivalent.

stablegraph: the model demo.py builds (64-128-10 MLP, relu, dropout 0.1
from the graph's Generator, softmax cross-entropy, Adam with a cosine
schedule), timed from the graph to an XLA executable: ``sess.lower`` (prune,
simplify, lower to StableHLO) plus XLA's compile of that text. JAX: the same
step written by hand (threefry keys split and folded as the Generator does,
a bernoulli mask, optax's Adam math), timed as
``jax.jit(step).lower(...).compile()`` of a fresh function each repeat so no
JAX cache answers. Repeats interleaved, medians; the last line is
``ratio stablegraph/jax: X.XX`` (above 1 = slower). Run with
``python benchmarks/random_compile.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import stablegraph as sg
from stablegraph.backend import pjrt
from stablegraph.demo import build

FEATURES, HIDDEN, CLASSES, BATCH, RATE = 64, 128, 10, 64, 0.1
LR, STEPS, B1, B2, EPS = 3e-3, 600, 0.9, 0.999, 1e-8


def stablegraph_compile(sess, t, feeds) -> tuple[float, float, int]:
    """Seconds to lower the train step, seconds for XLA to compile it, and its graph size."""
    start = time.perf_counter()
    text = sess.lower([t["loss"], t["train"]], feeds)
    lowered = time.perf_counter()
    pjrt.compile(str(text), sess.devices[:1])  # straight to XLA: the Session's cache would answer
    return lowered - start, time.perf_counter() - lowered, text.count("\n")


def jax_step_fn():
    """A fresh jax train step (a new function object, so no trace cache is shared)."""

    def loss_fn(params, key, x, y):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        keep = jax.random.bernoulli(key, 1.0 - RATE, h.shape)
        h = jnp.where(keep, h / (1.0 - RATE), 0.0)
        logp = jax.nn.log_softmax(h @ w2 + b2)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(params, m, v, count, rng, x, y):
        rng_next, run_key = jax.random.split(rng)
        loss, grads = jax.value_and_grad(loss_fn)(params, jax.random.fold_in(run_key, 1), x, y)
        count = count + 1
        frac = jnp.minimum(count - 1, STEPS) / STEPS
        lr = LR * 0.5 * (1.0 + jnp.cos(jnp.pi * frac))
        m = [B1 * mi + (1 - B1) * g for mi, g in zip(m, grads)]
        v = [B2 * vi + (1 - B2) * g * g for vi, g in zip(v, grads)]
        c1, c2 = 1 - B1**count, 1 - B2**count
        params = [p - lr * (mi / c1) / (jnp.sqrt(vi / c2) + EPS) for p, mi, vi in zip(params, m, v)]
        return params, m, v, count, rng_next, loss

    return step


def jax_compile(args) -> float:
    start = time.perf_counter()
    jax.jit(jax_step_fn(), donate_argnums=(0, 1, 2, 3, 4)).lower(*args).compile()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    xb = rng.normal(size=(BATCH, FEATURES)).astype(np.float32)
    yb = rng.integers(0, CLASSES, size=BATCH).astype(np.int32)
    g, t = build(FEATURES, CLASSES, STEPS)
    sess = sg.Session(g, seed=0)
    feeds = {t["x"]: xb, t["y"]: yb}
    sess.run(t["loss"], feeds)  # initializes the variables (not timed)

    shapes = [(FEATURES, HIDDEN), (HIDDEN,), (HIDDEN, CLASSES), (CLASSES,)]
    params = [jnp.zeros(s, jnp.float32) for s in shapes]
    jax_args = (params, params, params, jnp.int32(0), jax.random.PRNGKey(0), xb, yb)

    lower_s, xla_s, ours, theirs = [], [], [], []
    lines = 0
    for _ in range(args.repeats):
        lo, xla, lines = stablegraph_compile(sess, t, feeds)
        lower_s.append(lo)
        xla_s.append(xla)
        ours.append(lo + xla)
        theirs.append(jax_compile(jax_args))
    med = statistics.median
    print(f"demo train step with dropout: MLP {FEATURES}-{HIDDEN}-{CLASSES}, batch {BATCH}, Adam")
    print(f"graph: {len(g)} nodes; lowered program: {lines} lines of StableHLO")
    print(f"(median of {args.repeats} interleaved repeats)")
    print(
        f"  stablegraph  {med(ours) * 1e3:8.1f} ms  (lower {med(lower_s) * 1e3:.1f} + XLA {med(xla_s) * 1e3:.1f})"
    )
    print(f"  jax          {med(theirs) * 1e3:8.1f} ms  (jit.lower.compile)")
    print(f"ratio stablegraph/jax: {med(ours) / med(theirs):.2f}")


if __name__ == "__main__":
    main()
