"""One Adam training step of a small convnet in a Session, beside jax.jit with donated parameters.

The model takes 28x28x1 images (NHWC), batch 64, float32: conv 3x3 (32) +
relu + max_pool 2x2, conv 3x3 (64) + relu + max_pool 2x2, dense 10,
softmax cross-entropy with integer labels, Adam (optax's math, lr 1e-3).
stablegraph builds it from sg.nn layers, keeps weights and Adam's moments
as Session variables (donated, updated in place) and runs
``sess.run([loss, train], feeds)``. JAX runs the same model written with
jax.lax.conv_general_dilated and jax.lax.reduce_window, with a hand-written
Adam, as ``jax.jit(step, donate_argnums=0)`` over (params, moments, count).
Both start from the same weights and get the same numpy batch; both return
the loss as numpy. One process, repeats interleaved; prints the median step
time of each and their ratio (goal: stablegraph/jax <= 1.05). Run with
``python benchmarks/convnet.py`` (``--hlo`` also counts the ops of each
optimized XLA program).
"""

from __future__ import annotations

import argparse
import collections
import re

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure, per_call

import stablegraph as sg
from stablegraph import numpy as snp

LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8
CLASSES = 10


def make_data(batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, CLASSES, size=batch).astype(np.int32)
    return x, y


def stablegraph_model():
    """The graph, its loss and train op, and a Session holding its weights."""
    g = sg.Graph("convnet")
    with g:
        x = sg.placeholder(("batch", 28, 28, 1), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        h = sg.nn.relu(sg.nn.conv(x, 32, kernel_size=(3, 3), padding="SAME", name="conv1"))
        h = sg.nn.max_pool(h, window=(2, 2), strides=(2, 2))
        h = sg.nn.relu(sg.nn.conv(h, 64, kernel_size=(3, 3), padding="SAME", name="conv2"))
        h = sg.nn.max_pool(h, window=(2, 2), strides=(2, 2))
        logits = sg.nn.dense(snp.reshape(h, (-1, 7 * 7 * 64)), CLASSES, name="fc")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(LR, B1, B2, EPS).minimize(loss)
    sess = sg.Session(g, seed=0)
    return g, sess, x, y, loss, train


def jax_loss(params, x, y):
    k1, b1, k2, b2, kf, bf = params
    dims = ("NHWC", "HWIO", "NHWC")

    def conv(h, k, b):
        return jax.lax.conv_general_dilated(h, k, (1, 1), "SAME", dimension_numbers=dims) + b

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    h = pool(jax.nn.relu(conv(x, k1, b1)))
    h = pool(jax.nn.relu(conv(h, k2, b2)))
    logits = h.reshape(h.shape[0], -1) @ kf + bf
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def jax_step(state, x, y):
    """One Adam step (optax's math) on ``state`` = (params, mu, nu, count)."""
    params, mu, nu, count = state
    loss, grads = jax.value_and_grad(jax_loss)(params, x, y)
    count = count + 1
    mu = [B1 * m + (1 - B1) * g for m, g in zip(mu, grads)]
    nu = [B2 * v + (1 - B2) * g * g for v, g in zip(nu, grads)]
    c1, c2 = 1 - B1**count, 1 - B2**count
    params = [p - LR * (m / c1) / (jnp.sqrt(v / c2) + EPS) for p, m, v in zip(params, mu, nu)]
    return (params, mu, nu, count), loss


def op_counts(hlo: str) -> collections.Counter:
    """Instructions per HLO opcode in an optimized module's text (fusions counted once, bodies too)."""
    return collections.Counter(re.findall(r"=\s*[\w\[\]{},.:\d ]*?\s([a-z][\w-]*)\(", hlo))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--calls", type=int, default=10, help="steps per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    parser.add_argument("--hlo", action="store_true", help="count the ops of both optimized programs")
    args = parser.parse_args()

    xb, yb = make_data(args.batch)
    g, sess, x, y, loss, train = stablegraph_model()
    names = ["conv1/kernel", "conv1/bias", "conv2/kernel", "conv2/bias", "fc/kernel", "fc/bias"]
    params = [jnp.asarray(sess.get(n)) for n in names]  # the same starting point
    zeros = [jnp.zeros_like(p) for p in params]
    step = jax.jit(jax_step, donate_argnums=0)
    state = {"s": (params, zeros, [jnp.zeros_like(p) for p in params], jnp.zeros((), jnp.int32))}

    def ours():
        return sess.run([loss, train], {x: xb, y: yb})[0]

    def theirs():
        state["s"], value = step(state["s"], xb, yb)
        return np.asarray(value)

    for k in range(3):  # compiles; both follow the same trajectory
        a, b = ours(), theirs()
        np.testing.assert_allclose(a, b, rtol=2e-4, err_msg=f"loss at step {k}")
    fns = {"stablegraph": ours, "jax": theirs}
    for fn in fns.values():
        per_call(fn, 3)
    med = measure(fns, args.calls, args.repeats)
    print(
        f"one Adam step of a convnet (2 conv 3x3 + 2 max_pool + dense) on 28x28x1, batch {args.batch}, float32"
    )
    print(f"(median of {args.repeats} x {args.calls} steps)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.3f} ms")
    if args.hlo:
        ours_hlo = sess.lower([loss, train], {x: xb, y: yb}).compile().as_text()
        theirs_hlo = step.lower(state["s"], xb, yb).compile().as_text()
        for name, text in (("stablegraph", ours_hlo), ("jax", theirs_hlo)):
            counts = op_counts(text)
            top = ", ".join(f"{op} {n}" for op, n in counts.most_common(8))
            print(f"  {name} optimized HLO: {sum(counts.values())} instructions ({top})")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
