"""Per-step time of a small MLP training step: ``sess.run(..., steps=50)`` against 50 single runs.

The step (issue 24's case (a)): a 64-64-10 MLP on batches of 32, softmax
cross-entropy, Adam; data are random (the time does not depend on them).
``--deep --hidden 256 --batch 128`` is case (b), 64-256-256-10 at batch 128.
Timed in one process, repeats interleaved:
  - stablegraph, 50 single ``sess.run([loss, train], feeds)`` calls;
  - stablegraph, 50 ``sess.run_async`` calls, each result read one step late;
  - stablegraph, one ``sess.run([loss, train], stacked, steps=50)``;
  - jax, 50 calls of a jitted step with donated parameters (the idiomatic loop);
  - jax, one jitted ``lax.scan`` over the 50 steps.
Prints the per-step time of each; the last line is steps=50 over jax's loop.
Run with ``python benchmarks/steps_per_call.py``.
"""

from __future__ import annotations

import argparse
import functools

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure

import stablegraph as sg

D, C, STEPS, LR = 64, 10, 50, 1e-3
H, BATCH, DEEP = 64, 32, False  # --hidden, --batch, --deep change them (case (b): 256, 128, deep)
B1, B2, EPS = 0.9, 0.999, 1e-8


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.random((STEPS, BATCH, D), dtype=np.float32)
    y = rng.integers(0, C, (STEPS, BATCH)).astype(np.int32)
    return x, y


def stablegraph_step():
    g = sg.Graph("mlp_step")
    with g:
        x = sg.placeholder((BATCH, D), sg.float32, name="x")
        y = sg.placeholder((BATCH,), sg.int32, name="y")
        w1 = sg.Variable(sg.nn.initializers.glorot_uniform(), (D, H), name="w1")
        b1 = sg.Variable(np.zeros(H, np.float32), name="b1")
        w2 = sg.Variable(sg.nn.initializers.glorot_uniform(), (H, C), name="w2")
        b2 = sg.Variable(np.zeros(C, np.float32), name="b2")
        w3 = sg.Variable(sg.nn.initializers.glorot_uniform(), (H, H), name="w3")
        h = sg.nn.relu(x @ w1 + b1)
        if DEEP:
            h = sg.nn.relu(h @ w3)
        logits = h @ w2 + b2
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(LR).minimize(loss)
    return g, x, y, loss, train


def stablegraph_cases(xs, ys) -> dict:
    g, x, y, loss, train = stablegraph_step()
    sess = sg.Session(g)
    fetches = [loss, train]
    singles = [{x: xs[i], y: ys[i]} for i in range(STEPS)]
    stacked = {x: xs, y: ys}

    def single_runs():
        for feeds in singles:
            sess.run(fetches, feeds)

    def async_runs():
        pending = None
        for feeds in singles:
            started = sess.run_async(fetches, feeds)
            if pending is not None:
                pending.result()
            pending = started
        pending.result()

    def one_loop():
        sess.run(fetches, stacked, steps=STEPS)

    for case in (single_runs, async_runs, one_loop):
        case()  # compile
    return {"stablegraph 50 runs": single_runs, "stablegraph 50 run_async": async_runs,
            "stablegraph steps=50": one_loop}  # fmt: skip


def jax_cases(xs, ys) -> dict:
    rng = np.random.default_rng(1)
    params = {
        "w1": jnp.asarray(rng.normal(size=(D, H)).astype(np.float32) * 0.1), "b1": jnp.zeros(H),
        "w2": jnp.asarray(rng.normal(size=(H, C)).astype(np.float32) * 0.1), "b2": jnp.zeros(C),
        "w3": jnp.asarray(rng.normal(size=(H, H)).astype(np.float32) * 0.1),
    }  # fmt: skip

    def loss_fn(p, x, y):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        if DEEP:
            h = jax.nn.relu(h @ p["w3"])
        logits = h @ p["w2"] + p["b2"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))

    def step(state, x, y):
        p, m, v, t = state
        loss, grads = jax.value_and_grad(loss_fn)(p, x, y)
        t = t + 1
        m = jax.tree.map(lambda a, g: B1 * a + (1 - B1) * g, m, grads)
        v = jax.tree.map(lambda a, g: B2 * a + (1 - B2) * g * g, v, grads)
        scale = LR * jnp.sqrt(1 - B2**t) / (1 - B1**t)
        p = jax.tree.map(lambda w, a, b: w - scale * a / (jnp.sqrt(b) + EPS), p, m, v)
        return (p, m, v, t), loss

    state = [
        (params, jax.tree.map(jnp.zeros_like, params), jax.tree.map(jnp.zeros_like, params), jnp.zeros(()))
    ]
    jit_step = jax.jit(step, donate_argnums=0)

    @functools.partial(jax.jit, donate_argnums=0)
    def scan(state, xs, ys):
        return jax.lax.scan(lambda s, xy: step(s, *xy), state, (xs, ys))

    def loop():
        s = state[0]
        for i in range(STEPS):
            s, loss = jit_step(s, xs[i], ys[i])
            np.asarray(loss)
        state[0] = s

    def scanned():
        s, losses = scan(state[0], xs, ys)
        np.asarray(losses)
        state[0] = s

    loop()
    scanned()
    return {"jax 50 jitted steps": loop, "jax lax.scan of 50": scanned}


def main() -> None:
    global H, BATCH, DEEP  # noqa: PLW0603  (the model's sizes, read by the builders above)
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--hidden", type=int, default=H, help="width of the hidden layers")
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--deep", action="store_true", help="two hidden layers (64-H-H-10)")
    args = parser.parse_args()
    H, BATCH, DEEP = args.hidden, args.batch, args.deep
    xs, ys = data()
    cases = {**stablegraph_cases(xs, ys), **jax_cases(xs, ys)}
    times = measure(cases, calls=1, repeats=args.repeats)
    layers = f"{D}-{H}-{H}-{C}" if DEEP else f"{D}-{H}-{C}"
    print(f"{BATCH}-batch {layers} MLP, Adam; per step over {STEPS} steps (median of {args.repeats}):")
    for name, t in times.items():
        print(f"  {name:28s} {t / STEPS * 1e6:9.1f} us/step")
    print(f"steps=50 vs 50 single runs: {times['stablegraph steps=50'] / times['stablegraph 50 runs']:.2f}")
    print(f"ratio stablegraph/jax: {times['stablegraph steps=50'] / times['jax 50 jitted steps']:.2f}")


if __name__ == "__main__":
    main()
