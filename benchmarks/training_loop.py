"""Training steps per second from host numpy data: stablegraph's prefetch + steps=50 beside the idiomatic jax loop.

Each case trains an MLP (relu, softmax cross-entropy with integer labels,
Adam 1e-3, float32) on data held in host numpy arrays, shuffled anew every
epoch. stablegraph: an ``sg.data.Dataset`` (shuffle, batch, repeat) fed
through ``sg.data.prefetch`` (the next blocks already on the device) to
``sess.run([loss, train], feed, steps=50)``, one compiled loop per 50 steps;
also the same prefetch with single steps (no ``steps=``), single steps fed
numpy batches cut on the host as the jax loop cuts them (waiting for each
run, and with ``sess.run_async``, reading the losses every 50 steps as the
jax loop does), and ``sg.train.Loop``
(steps_per_run=50, no logdir). jax: ``jax.jit(step, donate_argnums=(0, 1))``
over params and an Adam state (written out, as optax computes it), fed ``X[perm[i:i + batch]]`` numpy
batches, the losses fetched once per 50 steps. All run in one process with
their repeats interleaved; a repeat is 500 steps. Each case prints wall-clock
steps per second and process CPU time per step (all threads): on a machine
other processes load, the CPU ratio is the steadier one.

Cases (issue 24): (a) the digits MLP 64-64-10 at batch 32, where per-step
overhead dominates (goal with steps=50: <= 0.5 of jax's time per step);
(b) the digits MLP 64-256-256-10 at batch 128, where compute dominates
(goal <= 1.0); (c) on a GPU only (STABLEGRAPH_PLATFORM=gpu and jax's CUDA
plugin), the MLP 784-512-512-10 at batch 128 on 10,000 random rows (goal
<= 0.3). Without steps= the goal is <= 1.0, for the idiomatic loop of each:
jax's dispatches step k + 1 while step k computes, and ours is the same loop
with ``sess.run_async`` (each step started at once, queued behind the running
one, the losses read every 50 steps). On one CPU device the Session gathers
its steps into 16-step loops once they have cost what the step's compile did
(gathering.py); the warm-up runs it until they are, as the steady state of a
long training run is what is timed. The synchronous single steps are printed beside it.
The last line is case (a)'s ratio.
Run with ``python benchmarks/training_loop.py``.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import stablegraph as sg

CHUNK = 50  # steps per sess.run(..., steps=CHUNK) and per jax loss fetch
LR = 1e-3


def digits():
    """scikit-learn's digits (1797 rows of 64 pixels, 10 classes) as float32 and int32."""
    X, Y = sg.data.load_digits()
    return X.astype(np.float32), Y.astype(np.int32)


def random_rows(rows: int, features: int, classes: int):
    """Random normal rows and labels (case (c): MNIST-sized rows without a download)."""
    rng = np.random.default_rng(0)
    return rng.normal(size=(rows, features)).astype(np.float32), rng.integers(0, classes, rows).astype(
        np.int32
    )


# -- stablegraph -------------------------------------------------------------------------------
def sg_graph(sizes: tuple, batch: int):
    """The MLP of ``sizes`` as a graph: placeholders, loss and an Adam train op."""
    g = sg.Graph("mlp")
    with g:
        x = sg.placeholder((batch, sizes[0]), sg.float32, name="x")
        y = sg.placeholder((batch,), sg.int32, name="y")
        h = x
        for i, width in enumerate(sizes[1:-1]):
            h = sg.nn.relu(sg.nn.dense(h, width, name=f"fc{i}"))
        logits = sg.nn.dense(h, sizes[-1], name="out")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(LR).minimize(loss)
    return g, x, y, loss, train


def sg_dataset(X, Y, batch: int):
    """The host arrays as a Dataset reshuffled every epoch, in batches, repeated."""
    return (
        sg.data.Dataset.from_arrays({"x": X, "y": Y})
        .shuffle(seed=0)
        .batch(batch, drop_remainder=True)
        .repeat()
    )


def sg_runners(X, Y, sizes, batch, steps_per_call):
    """{name: one repeat of ``steps_per_call`` steps} for stablegraph's three ways."""
    g, x, y, loss, train = sg_graph(sizes, batch)
    sess = sg.Session(g)
    data = sg_dataset(X, Y, batch)
    many = sg.data.prefetch(data, sess, {"x": x, "y": y}, depth=2)
    single = sg.data.prefetch(data, sess, {"x": x, "y": y}, depth=2)

    def steps_50():
        """Prefetched blocks, 50 steps per sess.run."""
        for _ in range(steps_per_call // CHUNK):
            losses, _ = sess.run([loss, train], many, steps=CHUNK)
        return losses

    def one_by_one():
        """Prefetched batches, one sess.run per step."""
        for _ in range(steps_per_call):
            value, _ = sess.run([loss, train], single)
        return value

    rng = np.random.default_rng(0)
    order = {"perm": rng.permutation(len(X)), "at": 0}
    per_epoch = len(X) // batch

    def numpy_feeds():
        """Numpy batches cut on the host, one sess.run per step (the jax loop's way)."""
        for _ in range(steps_per_call):
            if order["at"] == per_epoch:
                order["perm"], order["at"] = rng.permutation(len(X)), 0
            idx = order["perm"][order["at"] * batch : (order["at"] + 1) * batch]
            order["at"] += 1
            value, _ = sess.run([loss, train], {x: X[idx], y: Y[idx]})
        return value

    def numpy_feeds_async():
        """The jax loop's way with run_async: every step started at once (queued behind the
        running one), the losses read every 50 steps."""
        handles = []
        for i in range(steps_per_call):
            if order["at"] == per_epoch:
                order["perm"], order["at"] = rng.permutation(len(X)), 0
            idx = order["perm"][order["at"] * batch : (order["at"] + 1) * batch]
            order["at"] += 1
            handles.append(sess.run_async([loss, train], {x: X[idx], y: Y[idx]}))
            if (i + 1) % CHUNK == 0:
                fetched = np.array([h.result()[0] for h in handles])
                handles = []
        return fetched

    loop = sg.train.Loop(g, train, data=data, feeds={"x": x, "y": y}, steps=0, metrics={"loss": loss},
                         steps_per_run=CHUNK, log_every=CHUNK, progress=False)  # fmt: skip

    def managed():
        """sg.train.Loop, 50 steps per run, the same number of steps further."""
        loop.steps = loop.step + steps_per_call
        return loop.run()["loss"]

    def warm_async():
        """Run the run_async loop until its runs are gathered (they have cost what the step's
        compile did, and the loop is compiled), or 40 repeats: the steady state is what is timed."""
        for _ in range(40):
            if any("steps=16" in r for r in sess.stats.reasons):
                break
            numpy_feeds_async()

    closers = [many.close, single.close, loop.close, sess.close]
    runners = {"sg steps=50": steps_50, "sg single": one_by_one, "sg numpy": numpy_feeds, "sg async": numpy_feeds_async,
               "sg Loop": managed}  # fmt: skip
    return runners, closers, warm_async


# -- jax ----------------------------------------------------------------------------------------
def jax_runner(X, Y, sizes, batch, steps_per_call, device):
    """One repeat of ``steps_per_call`` steps of the idiomatic jax loop."""
    keys = jax.random.split(jax.random.key(0), len(sizes) - 1)
    params = [
        (jax.random.normal(k, (m, n), jnp.float32) * np.sqrt(2.0 / m), jnp.zeros(n, jnp.float32))
        for k, m, n in zip(keys, sizes[:-1], sizes[1:])
    ]
    params = jax.device_put(params, device)

    def zeros():
        """Fresh zero buffers shaped like the params (donated buffers must not be shared)."""
        return jax.tree_util.tree_map(jnp.zeros_like, params)

    opt_state = (jnp.zeros((), jnp.int32, device=device), zeros(), zeros())  # Adam: count, mu, nu

    def loss_fn(params, xb, yb):
        """Mean softmax cross-entropy of the MLP on one batch."""
        h = xb
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        w, b = params[-1]
        logp = jax.nn.log_softmax(h @ w + b)
        return -jnp.take_along_axis(logp, yb[:, None], axis=1).mean()

    def adam(grads, opt_state, params, b1=0.9, b2=0.999, eps=1e-8):
        """Adam as optax.adam computes it (bias-corrected moments, eps outside the root)."""
        count, mu, nu = opt_state
        count = count + 1
        mu = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, mu, grads)
        nu = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, nu, grads)
        c1, c2 = 1 - b1 ** count.astype(jnp.float32), 1 - b2 ** count.astype(jnp.float32)
        params = jax.tree_util.tree_map(
            lambda p, m, v: p - LR * (m / c1) / (jnp.sqrt(v / c2) + eps), params, mu, nu
        )
        return params, (count, mu, nu)

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def step(params, opt_state, xb, yb):
        """One Adam step, params and state donated."""
        loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
        params, opt_state = adam(grads, opt_state, params)
        return params, opt_state, loss

    rng = np.random.default_rng(0)
    state = {"params": params, "opt": opt_state, "perm": rng.permutation(len(X)), "at": 0}
    per_epoch = len(X) // batch

    def run():
        """``steps_per_call`` steps on reshuffled numpy batches, the losses read every 50."""
        losses = []
        for i in range(steps_per_call):
            if state["at"] == per_epoch:
                state["perm"], state["at"] = rng.permutation(len(X)), 0
            idx = state["perm"][state["at"] * batch : (state["at"] + 1) * batch]
            state["at"] += 1
            state["params"], state["opt"], loss = step(state["params"], state["opt"], X[idx], Y[idx])
            losses.append(loss)
            if (i + 1) % CHUNK == 0:
                fetched = np.asarray(jax.device_get(losses))
                losses = []
        return fetched

    return run


# -- the cases ----------------------------------------------------------------------------------
def measure_wall_and_cpu(fns: dict, repeats: int) -> tuple[dict, dict]:
    """Median wall seconds and median process CPU seconds (every thread) per call of each
    function, repeats interleaved. The CPU time is the steadier of the two where other
    processes load the machine: a step waiting for a core costs wall time, not CPU time."""
    wall: dict = {name: [] for name in fns}
    cpu: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start, used = time.perf_counter(), time.process_time()
            fn()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - used)
    median = statistics.median
    return {n: median(t) for n, t in wall.items()}, {n: median(t) for n, t in cpu.items()}


def run_case(label, X, Y, sizes, batch, goal, args, device) -> float:
    """Time every runner of one case, interleaved; print steps per second and ratios; (a)'s ratio back."""
    steps = args.steps
    fns, closers, warm_async = sg_runners(X, Y, sizes, batch, steps)
    fns["jax"] = jax_runner(X, Y, sizes, batch, steps, device)
    for name, fn in fns.items():
        out = np.asarray(fn())  # compiles, fills the queues; every loss must be finite
        assert np.isfinite(out).all(), (label, name, out)
    warm_async()
    med, cpu = measure_wall_and_cpu(fns, args.repeats)
    for close in closers:
        close()
    rate = {name: steps / t for name, t in med.items()}
    print(
        f"\n({label}) MLP {'-'.join(map(str, sizes))}, batch {batch}: steps per second (median of {args.repeats}),"
        f" and process CPU time per step (load average {os.getloadavg()[0]:.1f})"
    )
    for name in ("jax", "sg steps=50", "sg single", "sg numpy", "sg async", "sg Loop"):
        print(f"  {name:12s} {rate[name]:10.0f}   cpu {cpu[name] / steps * 1e6:8.1f} us")

    def ratios(name: str) -> str:
        return f"{med[name] / med['jax']:.2f} (cpu {cpu[name] / cpu['jax']:.2f})"

    ratio = med["sg steps=50"] / med["jax"]
    print(f"  ratio stablegraph/jax, prefetch + steps=50: {ratios('sg steps=50')} (goal <= {goal})")
    print(f"  ratio stablegraph/jax, without steps= (idiomatic: run_async, numpy feeds): {ratios('sg async')}"
          " (goal <= 1.0)")  # fmt: skip
    print(f"  ratio stablegraph/jax, prefetch, single synchronous steps: {ratios('sg single')}")
    print(f"  ratio stablegraph/jax, numpy feeds, single synchronous steps: {ratios('sg numpy')}")
    print(f"  ratio stablegraph/jax, sg.train.Loop steps_per_run=50: {ratios('sg Loop')}")
    return ratio


def gpu_device():
    """jax's GPU device when stablegraph runs on a GPU too (STABLEGRAPH_PLATFORM=gpu), else None."""
    if os.environ.get("STABLEGRAPH_PLATFORM", "cpu") not in ("gpu", "cuda"):
        return None
    try:
        sg.devices(platform="gpu")
        return jax.devices("gpu")[0]
    except Exception:  # no plugin, no device: the case is skipped with a line saying so
        return None


def main() -> None:
    """Cases (a) and (b), (c) where a GPU is lent; the last line is case (a)'s ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500, help="steps per timed repeat (a multiple of 50)")
    parser.add_argument("--repeats", type=int, default=9, help="interleaved repeats")
    parser.add_argument("--cases", default="abc", help="which cases to run (default: abc)")
    args = parser.parse_args()
    gpu = gpu_device()  # both sides run every case on it when there is one
    device = gpu or jax.devices("cpu")[0]
    print(f"stablegraph and jax on {device.platform}, load average {os.getloadavg()[0]:.1f}")
    X, Y = digits()
    ratio_a = run_case("a", X, Y, (64, 64, 10), 32, 0.5, args, device) if "a" in args.cases else float("nan")
    if "b" in args.cases:
        run_case("b", X, Y, (64, 256, 256, 10), 128, 1.0, args, device)
    if "c" not in args.cases:
        pass
    elif gpu is None:
        print("\n(c) skipped: no GPU (set STABLEGRAPH_PLATFORM=gpu with jax's CUDA plugin installed)")
    else:
        Xc, Yc = random_rows(10_000, 784, 10)
        run_case("c", Xc, Yc, (784, 512, 512, 10), 128, 0.3, args, device)
    print(f"\nratio stablegraph/jax: {ratio_a:.2f}")


if __name__ == "__main__":
    main()
