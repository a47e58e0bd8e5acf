"""One training step of an MLP on a 4-device CPU mesh, beside jax.jit with the same shardings.

The model is the sharding issue's: x (batch 128, 784) split over ``data``,
w1 (784, 512) column-split and w2 (512, 10) row-split over ``model``, the
hidden layer constrained to ("data", "model"), softmax cross-entropy with
integer labels, plain SGD. stablegraph runs ``sess.run([loss, train], feeds)``
in a Session on ``sg.make_mesh(shape, ("data", "model"))``, variables kept
sharded and donated; JAX runs ``jax.jit`` with the same NamedShardings
(in, out, donated params) over jax's own 4 CPU devices. Both get numpy
batches and give the loss as numpy. One process, repeats interleaved;
prints the median step time of each and their ratio. Run with
``python benchmarks/data_parallel.py [--shape 4,1]``.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"

import argparse  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as JP  # noqa: E402
from timing import measure, per_call  # noqa: E402

import stablegraph as sg  # noqa: E402

D, H, C = 784, 512, 10
LR = 0.05
P = sg.PartitionSpec


def stablegraph_step(shape, w1, w2):
    g = sg.Graph("mlp")
    with g:
        x = sg.placeholder(("batch", D), sg.float32, name="x", sharding=P("data", None))
        y = sg.placeholder(("batch",), sg.int32, name="y", sharding=P("data"))
        v1 = sg.Variable(w1, name="w1", sharding=P(None, "model"))
        v2 = sg.Variable(w2, name="w2", sharding=P("model", None))
        h = sg.sharding_constraint(sg.nn.relu(x @ v1), P("data", "model"))
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(h @ v2, y).mean()
        train = sg.optim.sgd(LR).minimize(loss)
    sess = sg.Session(g, mesh=sg.make_mesh(shape, ("data", "model")), seed=0)
    return sess, lambda xb, yb: sess.run([loss, train], {x: xb, y: yb})[0]


def jax_step(shape, w1, w2):
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(shape), ("data", "model"))
    named = lambda *spec: NamedSharding(mesh, JP(*spec))  # noqa: E731
    ws = (named(None, "model"), named("model", None))

    def step(params, x, y):
        def loss_fn(ps):
            h = jax.lax.with_sharding_constraint(jax.nn.relu(x @ ps[0]), named("data", "model"))
            logp = jax.nn.log_softmax(h @ ps[1])
            return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

        loss, grads = jax.value_and_grad(loss_fn)(params)
        return tuple(p - LR * gr for p, gr in zip(params, grads)), loss

    jitted = jax.jit(
        step,
        in_shardings=(ws, named("data", None), named("data")),
        out_shardings=(ws, named()),
        donate_argnums=0,
    )
    state = {"params": tuple(jax.device_put(w, s) for w, s in zip((w1, w2), ws))}

    def run(xb, yb):
        state["params"], loss = jitted(state["params"], xb, yb)
        return np.asarray(loss)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--shape", default="2,2", help="mesh shape (data,model), 4 devices")
    parser.add_argument("--calls", type=int, default=10, help="steps per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    args = parser.parse_args()
    shape = tuple(int(n) for n in args.shape.split(","))

    rng = np.random.default_rng(0)
    xb = rng.normal(size=(args.batch, D)).astype(np.float32)
    yb = rng.integers(0, C, size=args.batch).astype(np.int32)
    w1 = (rng.normal(size=(D, H)) / np.sqrt(D)).astype(np.float32)
    w2 = (rng.normal(size=(H, C)) / np.sqrt(H)).astype(np.float32)
    sess, ours = stablegraph_step(shape, w1, w2)
    theirs = jax_step(shape, w1, w2)
    for k in range(3):  # compiles; both follow the same trajectory
        np.testing.assert_allclose(ours(xb, yb), theirs(xb, yb), rtol=1e-4, err_msg=f"loss at step {k}")
    fns = {"stablegraph": lambda: ours(xb, yb), "jax": lambda: theirs(xb, yb)}
    for fn in fns.values():
        per_call(fn, 3)
    med = measure(fns, args.calls, args.repeats)
    print(
        f"one SGD step of an MLP {D}-{H}-{C}, batch {args.batch}, float32, on a {shape} mesh of 4 CPU devices"
    )
    print(f"(median of {args.repeats} x {args.calls} steps)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.3f} ms")
    sess.close()
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
