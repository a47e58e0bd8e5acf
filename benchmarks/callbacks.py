"""Host callbacks and numerics checks: what they cost next to jax (issue 22).

1. A ``pure_callback`` of a numpy function (np.sinh) inside a graph around two XLA ops, run by
   ``sess.run``, next to ``jax.pure_callback`` inside a ``jax.jit`` function doing the same;
   numpy in and out, repeats interleaved in one process. Goal: stablegraph/jax <= 1.0.
2. The digits MLP's training step (the demo's model, batch 256) in a Session with
   ``check_numerics=True`` next to the same step without it (both stablegraph). Goal: < 1.3x.
The last line is the ratio of case 1. Run with ``python benchmarks/callbacks.py``.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure, per_call

import stablegraph as sg
import stablegraph.numpy as snp


def stablegraph_callback(a: np.ndarray):
    g = sg.Graph("callback")
    with g:
        x = sg.placeholder(a.shape, sg.float32, name="x")
        y = sg.pure_callback(np.sinh, sg.TensorType(a.shape, sg.float32), x * 2.0)
        z = snp.cos(y)
    sess = sg.Session(g)
    feeds = {x: a}
    return lambda: sess.run(z, feeds)


def jax_callback(a: np.ndarray):
    shape = jax.ShapeDtypeStruct(a.shape, jnp.float32)
    fn = jax.jit(lambda x: jnp.cos(jax.pure_callback(np.sinh, shape, x * 2.0)))
    return lambda: np.asarray(fn(a))


def digits_step(check: bool):
    X, Y = sg.data.load_digits()
    g = sg.Graph("digits")
    with g:
        x = sg.placeholder(("batch", X.shape[1]), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        h = sg.nn.relu(sg.nn.dense(x, 128, name="fc1"))
        logits = sg.nn.dense(h, 10, name="fc2")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(1e-3).minimize(loss)
    sess = sg.Session(g, check_numerics=check)
    feeds = {x: X[:256].astype(np.float32), y: Y[:256].astype(np.int32)}
    return lambda: sess.run([loss, train], feeds)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    args = parser.parse_args()

    a = np.random.default_rng(0).normal(size=(64,)).astype(np.float32)
    fns = {"stablegraph": stablegraph_callback(a), "jax": jax_callback(a)}
    for name, fn in fns.items():
        np.testing.assert_allclose(fn(), np.cos(np.sinh(a * 2)), rtol=1e-5, err_msg=name)
        per_call(fn, 100)
    med = measure(fns, args.calls, args.repeats)
    print(
        f"pure_callback(np.sinh) between two ops on float32[64], numpy in and out (median of {args.repeats} x {args.calls})"
    )
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e6:8.1f} us")

    steps = {"unchecked": digits_step(False), "check_numerics": digits_step(True)}
    for fn in steps.values():
        per_call(fn, 20)
    step_med = measure(steps, max(args.calls // 10, 10), args.repeats)
    print(f"digits MLP training step (batch 256), median of {args.repeats} x {max(args.calls // 10, 10)}")
    for name, seconds in step_med.items():
        print(f"  {name:<15} {seconds * 1e6:8.1f} us")
    print(
        f"check_numerics=True costs: ratio {step_med['check_numerics'] / step_med['unchecked']:.2f} (goal < 1.3)"
    )
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
