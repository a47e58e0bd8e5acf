"""One SGD training step of an MLP in a Session, beside jax.jit with donated parameters.

The MLP is 784-512-512-10 with relu, batch 128, float32, softmax
cross-entropy with integer labels, plain SGD. stablegraph keeps its weights
as Session variables (donated, updated in place) and runs
``sess.run([loss, train], feeds)``; JAX runs
``jax.jit(step, donate_argnums=0)`` on a parameter list it threads through
the loop. Both start from the same weights and get the same numpy batches;
both return the loss as numpy. One process, repeats interleaved; prints the
median step time of each, their ratio (goal: stablegraph/jax <= 1.10) and
whether a stablegraph step allocated new variable buffers. Run with
``python benchmarks/train_step.py``.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure, per_call

import stablegraph as sg

SIZES = (784, 512, 512, 10)
LR = 0.05


def make_data(batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=batch).astype(np.int32)
    return x, y


def stablegraph_model(batch: int):
    """The graph, its loss and train op, and a Session holding its weights."""
    g = sg.Graph("mlp")
    with g:
        x = sg.placeholder(("batch", SIZES[0]), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        h = x
        for i, units in enumerate(SIZES[1:]):
            h = sg.nn.dense(h, units, name=f"fc{i + 1}")
            if i < len(SIZES) - 2:
                h = sg.nn.relu(h)
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(h, y).mean()
        train = sg.optim.sgd(LR).minimize(loss)
    sess = sg.Session(g, seed=0)
    return g, sess, x, y, loss, train


def jax_step(params, x, y):
    def loss_fn(ps):
        h = x
        for i in range(0, len(ps), 2):
            h = h @ ps[i] + ps[i + 1]
            if i < len(ps) - 2:
                h = jax.nn.relu(h)
        logp = jax.nn.log_softmax(h)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    loss, grads = jax.value_and_grad(loss_fn)(params)
    return [p - LR * g for p, g in zip(params, grads)], loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--calls", type=int, default=10, help="steps per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    args = parser.parse_args()

    xb, yb = make_data(args.batch)
    g, sess, x, y, loss, train = stablegraph_model(args.batch)
    weights = [v for v in g.trainable_variables]
    params = [jnp.asarray(sess.get(v)) for v in weights]  # the same starting point
    step = jax.jit(jax_step, donate_argnums=0)
    state = {"params": params}

    def ours():
        return sess.run([loss, train], {x: xb, y: yb})[0]

    def theirs():
        state["params"], value = step(state["params"], xb, yb)
        return np.asarray(value)

    for k in range(3):  # compiles; both follow the same trajectory
        a, b = ours(), theirs()
        np.testing.assert_allclose(a, b, rtol=1e-4, err_msg=f"loss at step {k}")
    buffers = {v.var_name: sess._state[v.var_name] for v in weights}
    ours()
    reused = all(old.is_deleted() for old in buffers.values())
    fns = {"stablegraph": ours, "jax": theirs}
    for fn in fns.values():
        per_call(fn, 3)
    med = measure(fns, args.calls, args.repeats)
    print(
        f"one SGD step of an MLP {'-'.join(map(str, SIZES))}, batch {args.batch}, float32, numpy batches in"
    )
    print(f"(median of {args.repeats} x {args.calls} steps)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.3f} ms")
    print(f"variable buffers donated (no new allocation per step): {'yes' if reused else 'NO'}")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
