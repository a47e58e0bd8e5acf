"""A fresh process to its first training-step result, stablegraph beside jax, both with warm disk caches.

Two models, each trained one step (Adam with a cosine schedule, batch 64,
float32) in a new Python process that builds it from nothing: the demo's
digits MLP (64-128-10, relu, dropout 0.1; stablegraph.demo.build) and the
convnet of examples/digits_convnet.py (conv 3x3 32, relu, max_pool, batch
norm, conv 3x3 64, relu, max_pool, dense 10). stablegraph's process builds
the graph, opens a Session (which initializes the variables) and runs
``sess.run([loss, train], feeds)``, with its persistent compile cache
(STABLEGRAPH_CACHE_DIR). jax's process writes the same models with
jax.numpy and jax.lax (weights drawn with numpy, so it compiles no
initializers), a hand-written Adam, and calls one ``jax.jit`` step, with
jax's persistent compilation cache on (``jax_compilation_cache_dir``,
both thresholds 0). Time: from starting the process to reading the loss it
prints. Each side runs once with an empty cache (cold), then ``--repeats``
times with the cache its cold run filled (warm; median). One run prints
both models, the cold ratio and, last, ``ratio stablegraph/jax: X.XX`` of
the warm totals (goal <= 0.5). Run with ``python benchmarks/first_result.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STABLEGRAPH = r"""
import importlib.util, sys
import numpy as np
import stablegraph as sg

model, root = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)
xb = rng.uniform(0, 1, (64, 64)).astype(np.float32)
yb = rng.integers(0, 10, 64).astype(np.int32)
if model == "digits":
    from stablegraph.demo import build
    g, t = build(64, 10, 600)
else:
    spec = importlib.util.spec_from_file_location("digits_convnet", f"{root}/examples/digits_convnet.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    g, t = example.build(10, 1200, 3e-3)
sess = sg.Session(g, seed=0)
loss, _ = sess.run([t["loss"], t["train"]], {t["x"]: xb, t["y"]: yb})
print("RESULT", float(loss), flush=True)
print("STATS", sess.stats.disk_hits, "of", sess.stats.compiles, "programs from disk,", sess.stats.plan_hits,
      "plans (nothing lowered); jax loaded:", "jax" in sys.modules)
"""

JAX = r"""
import sys
import jax
cache = sys.argv[2]
jax.config.update("jax_compilation_cache_dir", cache)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
import jax.numpy as jnp
import numpy as np

model = sys.argv[1]
B1, B2, EPS = 0.9, 0.999, 1e-8
rng = np.random.default_rng(0)
xb = rng.uniform(0, 1, (64, 64)).astype(np.float32)
yb = rng.integers(0, 10, 64).astype(np.int32)


def glorot(*shape):
    fan_in, fan_out = int(np.prod(shape[:-1])), shape[-1]
    limit = np.sqrt(6 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(np.float32)


def cross_entropy(logits, y):
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def adam(params, grads, mu, nu, count, lr0, steps):
    count = count + 1
    lr = 0.5 * lr0 * (1 + jnp.cos(jnp.pi * jnp.minimum(count, steps) / steps))
    mu = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, mu, grads)
    nu = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, nu, grads)
    c1, c2 = 1 - B1**count, 1 - B2**count
    params = jax.tree.map(lambda p, m, v: p - lr * (m / c1) / (jnp.sqrt(v / c2) + EPS), params, mu, nu)
    return params, mu, nu, count


if model == "digits":
    params = {"w1": glorot(64, 128), "b1": np.zeros(128, np.float32),
              "w2": glorot(128, 10), "b2": np.zeros(10, np.float32)}

    def loss_fn(params, x, y, key):
        h = jax.nn.relu(x @ params["w1"] + params["b1"])
        keep = jax.random.bernoulli(key, 0.9, h.shape)
        h = jnp.where(keep, h / 0.9, 0)
        return cross_entropy(h @ params["w2"] + params["b2"], y), None

    lr0, steps = 3e-3, 600
else:
    params = {"k1": glorot(3, 3, 1, 32), "c1": np.zeros(32, np.float32),
              "scale": np.ones(32, np.float32), "offset": np.zeros(32, np.float32),
              "k2": glorot(3, 3, 32, 64), "c2": np.zeros(64, np.float32),
              "wf": glorot(256, 10), "bf": np.zeros(10, np.float32)}
    moving = {"mean": np.zeros(32, np.float32), "var": np.ones(32, np.float32)}

    def conv(h, k, b):
        return jax.lax.conv_general_dilated(h, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) + b

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(params, x, y, key):
        h = pool(jax.nn.relu(conv(x.reshape(-1, 8, 8, 1), params["k1"], params["c1"])))
        mean, var = h.mean(axis=(0, 1, 2)), h.var(axis=(0, 1, 2))
        h = (h - mean) / jnp.sqrt(var + 1e-5) * params["scale"] + params["offset"]
        h = pool(jax.nn.relu(conv(h, params["k2"], params["c2"])))
        return cross_entropy(h.reshape(h.shape[0], -1) @ params["wf"] + params["bf"], y), (mean, var)

    lr0, steps = 3e-3, 1200


@jax.jit
def step(state, x, y):
    params, mu, nu, count, stats = state
    (loss, batch_stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y, jax.random.key(0))
    params, mu, nu, count = adam(params, grads, mu, nu, count, lr0, steps)
    if batch_stats is not None:
        stats = {"mean": 0.99 * stats["mean"] + 0.01 * batch_stats[0], "var": 0.99 * stats["var"] + 0.01 * batch_stats[1]}
    return (params, mu, nu, count, stats), loss


zeros = {k: np.zeros_like(v) for k, v in params.items()}
stats = moving if model != "digits" else None
state, loss = step((params, zeros, zeros, np.int32(0), stats), xb, yb)
print("RESULT", float(loss), flush=True)
"""


def first_result(program: str, argv: list[str], env: dict) -> tuple[float, str]:
    """Seconds from starting a fresh Python process running ``program`` (with ``argv``) to
    reading the loss it prints first, and what else it printed."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", program, *argv],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    line = proc.stdout.readline()
    seconds = time.perf_counter() - start
    rest = proc.stdout.read()
    err = proc.stderr.read()
    if proc.wait(timeout=600) != 0 or not line.startswith("RESULT"):
        raise RuntimeError(f"{argv}: exit {proc.returncode}, printed {line!r}\n{err}")
    return seconds, (line.strip() + "; " + rest.strip()).strip("; ")


def run_side(side: str, model: str, cache: str, env: dict) -> tuple[float, str]:
    """One fresh process of ``side`` ("stablegraph" or "jax") training ``model`` with ``cache``."""
    if side == "stablegraph":
        return first_result(STABLEGRAPH, [model, ROOT], dict(env, STABLEGRAPH_CACHE_DIR=cache))
    return first_result(JAX, [model, cache], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="warm runs per side and model (median)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "STABLEGRAPH_CACHE"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed packages are: compiled once, not every start
    env["JAX_PLATFORMS"] = "cpu"
    sides = ("stablegraph", "jax")
    totals = {side: {"cold": 0.0, "warm": 0.0} for side in sides}
    with tempfile.TemporaryDirectory(prefix="first-result-") as scratch:
        for model in ("digits", "convnet"):
            cache = {side: os.path.join(scratch, f"{model}-{side}") for side in sides}
            for side in sides:  # untimed: bytecode and the OS's file cache warm, caches of their own
                run_side(side, model, cache[side] + "-prime", env)
            cold = {side: run_side(side, model, cache[side], env)[0] for side in sides}
            warm, notes = {side: [] for side in sides}, {}
            for _ in range(args.repeats):  # interleaved, so a busy moment of the machine hits both
                for side in sides:
                    seconds, notes[side] = run_side(side, model, cache[side], env)
                    warm[side].append(seconds)
            for side in sides:
                median = statistics.median(warm[side])
                totals[side]["cold"] += cold[side]
                totals[side]["warm"] += median
                print(
                    f"{model:8s} {side:12s} cold {cold[side]:5.2f} s  warm {median:5.2f} s "
                    f"(min {min(warm[side]):.2f})  {notes[side]}"
                )
    ours, theirs = totals["stablegraph"], totals["jax"]
    print(f"both models, warm: stablegraph {ours['warm']:.2f} s, jax {theirs['warm']:.2f} s")
    print(f"cold-cache ratio stablegraph/jax: {ours['cold'] / theirs['cold']:.2f}")
    print(f"ratio stablegraph/jax: {ours['warm'] / theirs['warm']:.2f}")


if __name__ == "__main__":
    main()
