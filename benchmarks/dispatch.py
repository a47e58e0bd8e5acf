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
"""

from __future__ import annotations

import argparse
import cProfile
import pstats

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
    if args.profile:
        profile(fns["stablegraph"], 20 * args.calls, top=25)
    print(f"sess.make_callable(z, [x, y]) step: ratio {med['make_callable'] / med['jax']:.2f} (goal <= 1.0)")
    print(f"dict fetch, feeds by name: ratio {med['stablegraph dict'] / med['jax dict']:.2f}")
    print(f"a Python float feed (s * y): ratio {med['stablegraph scalar'] / med['jax scalar']:.2f}")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
