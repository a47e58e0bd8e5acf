"""Per-call dispatch cost: ``sess.run`` on x + y (float32[8]) next to a jitted JAX function.

Both take numpy arrays and give back a numpy array, and both are timed in
one process with their repeats interleaved, so machine noise hits both
alike. Prints the median per-call time of each and their ratio; the goal is
stablegraph/jax <= 1.0 (issue 10). A second case fetches a dict ``{"z": z}`` with feeds
given by name (``{"x": a, "y": b}``) beside a jitted function returning a
dict, a third feeds a Python float (``s * y``), and a fourth calls the step
``sess.make_callable(z, [x, y])`` gave; their ratios are printed too. The last
line is the plain case's ratio.
Run with ``make bench`` or ``python benchmarks/dispatch.py``.

``--profile`` also prints where ``sess.run`` spends its time (cProfile).
``--cpu`` also prints each call's main-thread CPU time (``time.thread_time``), which
other processes on a busy machine disturb less than wall time, with each case's
ratio to jax taken chunk by chunk (each chunk over the jax chunk timed next to it)
and the bare strict dispatcher plus ``np.asarray`` beside them: the floor of any
Python step around it.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

import jax
import numpy as np
from timing import measure, per_call

import stablegraph as sg


def stablegraph_call(a: np.ndarray, b: np.ndarray):
    g = sg.Graph("dispatch")
    with g:
        x = sg.placeholder(a.shape, sg.float32, name="x")
        y = sg.placeholder(b.shape, sg.float32, name="y")
        z = x + y
    sess = sg.Session(g)
    feeds = {x: a, y: b}
    return lambda: sess.run(z, feeds)


def stablegraph_callable(a: np.ndarray, b: np.ndarray):
    g = sg.Graph("dispatch_callable")
    with g:
        x = sg.placeholder(a.shape, sg.float32, name="x")
        y = sg.placeholder(b.shape, sg.float32, name="y")
        z = x + y
    step = sg.Session(g).make_callable(z, [x, y])
    return lambda: step(a, b)


def jax_call(a: np.ndarray, b: np.ndarray):
    add = jax.jit(lambda x, y: x + y)
    return lambda: np.asarray(add(a, b))


def stablegraph_dict_call(a: np.ndarray, b: np.ndarray):
    g = sg.Graph("dispatch_dict")
    with g:
        x = sg.placeholder(a.shape, sg.float32, name="x")
        y = sg.placeholder(b.shape, sg.float32, name="y")
        z = x + y
    sess = sg.Session(g)
    feeds = {"x": a, "y": b}
    return lambda: sess.run({"z": z}, feeds)["z"]


def jax_dict_call(a: np.ndarray, b: np.ndarray):
    add = jax.jit(lambda feeds: {"z": feeds["x"] + feeds["y"]})
    feeds = {"x": a, "y": b}
    return lambda: np.asarray(add(feeds)["z"])


def stablegraph_scalar_call(a: np.ndarray, b: np.ndarray):
    g = sg.Graph("dispatch_scalar")
    with g:
        s = sg.placeholder((), sg.float32, name="s")
        y = sg.placeholder(b.shape, sg.float32, name="y")
        z = s * y
    sess = sg.Session(g)
    feeds = {s: 2.0, y: b}
    return lambda: sess.run(z, feeds)


def jax_scalar_call(a: np.ndarray, b: np.ndarray):
    scale = jax.jit(lambda s, y: s * y)
    return lambda: np.asarray(scale(2.0, b))


def cpu_ratios(fns: dict, calls: int, repeats: int) -> None:
    """Print the p10 main-thread CPU time per call of each function and the median, over
    interleaved chunks of ``calls`` calls, of its chunk's time over the jax chunk next to it."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.thread_time_ns()
            for _ in range(calls):
                fn()
            times[name].append((time.thread_time_ns() - start) / calls / 1e3)
    print(f"main-thread CPU per call (p10 of {repeats} x {calls} calls), ratio to jax chunk by chunk")
    for name, ts in times.items():
        ratio = statistics.median(t / j for t, j in zip(ts, times["jax"]))
        print(f"  {name:<19} {sorted(ts)[repeats // 10]:8.2f} us  {ratio:.3f}")


def strict_floor(a: np.ndarray, b: np.ndarray):
    """The make_callable step's strict dispatcher called bare, plus np.asarray: no Python
    frame of ours (what the step would cost if it were jaxlib's object alone)."""
    g = sg.Graph("dispatch_floor")
    with g:
        x = sg.placeholder(a.shape, sg.float32, name="x")
        y = sg.placeholder(b.shape, sg.float32, name="y")
        z = x + y
    step = sg.Session(g).make_callable(z, [x, y])
    step(a, b)
    strict = step.state.lean.strict
    return lambda: np.asarray(strict(a, b))


def profile(fn, calls: int, top: int) -> None:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=21, help="interleaved repeats")
    parser.add_argument("--profile", action="store_true", help="cProfile sess.run afterwards")
    parser.add_argument("--cpu", action="store_true", help="also main-thread CPU per call, paired with jax")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 8)).astype(np.float32)
    fns = {
        "stablegraph": stablegraph_call(a, b),
        "jax": jax_call(a, b),
        "make_callable": stablegraph_callable(a, b),
        "stablegraph dict": stablegraph_dict_call(a, b),
        "jax dict": jax_dict_call(a, b),
        "stablegraph scalar": stablegraph_scalar_call(a, b),
        "jax scalar": jax_scalar_call(a, b),
    }
    for name, fn in fns.items():
        out = fn()  # compiles; also a check that both compute the same thing
        np.testing.assert_allclose(out, 2 * b if "scalar" in name else a + b, rtol=1e-6, err_msg=name)
        assert isinstance(out, np.ndarray) and out.dtype == np.float32, (name, type(out), out.dtype)
        per_call(fn, 200)  # warm up caches
    med = measure(fns, args.calls, args.repeats)
    print(f"per call, x + y on float32[8], numpy in and out (median of {args.repeats} x {args.calls} calls)")
    for name, seconds in med.items():
        print(f"  {name:<19} {seconds * 1e6:8.1f} us")
    if args.cpu:
        cases = ("jax", "make_callable", "stablegraph")
        cpu_ratios({"strict floor": strict_floor(a, b)} | {k: fns[k] for k in cases}, 200, 15 * args.repeats)
    if args.profile:
        profile(fns["stablegraph"], 20 * args.calls, top=25)
    print(f"sess.make_callable(z, [x, y]) step: ratio {med['make_callable'] / med['jax']:.2f} (goal <= 1.0)")
    print(f"dict fetch, feeds by name: ratio {med['stablegraph dict'] / med['jax dict']:.2f}")
    print(f"a Python float feed (s * y): ratio {med['stablegraph scalar'] / med['jax scalar']:.2f}")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
