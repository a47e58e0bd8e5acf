"""A C++ kernel through XLA's FFI: stablegraph's sg.ffi_call next to jax.ffi.ffi_call (issue 25).

The RMS norm of examples/ffi/rms_norm.cc, built once by sg.ffi.build; the same shared library is
registered for both (two target names, one handler), and each side runs the kernel between two
elementwise ops: ``sess.run`` on a Session against ``jax.jit``, numpy in and out, repeats
interleaved in one process, at a small size (the per-call overhead) and a larger one; the
step ``sess.make_callable`` gives is timed too. Goal:
stablegraph/jax <= 1.0. The last line is the ratio at the small size. Run with
``python benchmarks/ffi.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure, per_call

import stablegraph as sg

SOURCE = Path(__file__).resolve().parents[1] / "examples" / "ffi" / "rms_norm.cc"
EPS = 1e-5


def register_both():
    lib = sg.ffi.build("rms_norm", [SOURCE])
    sg.ffi.register("bench_rms_norm", lib.handler("RmsNorm"), platform="cpu")
    jax.ffi.register_ffi_target("bench_rms_norm_jax", lib.handler("RmsNorm"), platform="cpu")


def stablegraph_rms(a: np.ndarray):
    """``sess.run`` of the kernel between two ops, and the same through ``sess.make_callable``."""
    g = sg.Graph("ffi")
    with g:
        x = sg.placeholder(a.shape, sg.float32, name="x")
        y = sg.ffi_call("bench_rms_norm", sg.TensorType(a.shape, sg.float32), x * 2.0, eps=np.float32(EPS))
        z = y + 1.0
    sess = sg.Session(g)
    feeds = {x: a}
    step = sess.make_callable(z, [x])
    return (lambda: sess.run(z, feeds)), (lambda: step(a))


def jax_rms(a: np.ndarray):
    call = jax.ffi.ffi_call("bench_rms_norm_jax", jax.ShapeDtypeStruct(a.shape, jnp.float32))
    fn = jax.jit(lambda x: call(x * 2.0, eps=np.float32(EPS)) + 1.0)
    return lambda: np.asarray(fn(a))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    args = parser.parse_args()
    register_both()
    rng = np.random.default_rng(0)
    ratios = []
    for shape, calls in (((16, 64), args.calls), ((512, 1024), max(args.calls // 10, 10))):
        a = rng.normal(size=shape).astype(np.float32)
        want = 2 * a / np.sqrt(((2 * a.astype(np.float64)) ** 2).mean(-1, keepdims=True) + EPS) + 1
        run, step = stablegraph_rms(a)
        fns = {"stablegraph": run, "make_callable": step, "jax": jax_rms(a)}
        for name, fn in fns.items():
            np.testing.assert_allclose(fn(), want, rtol=1e-5, atol=1e-5, err_msg=name)
            per_call(fn, 50)
        med = measure(fns, calls, args.repeats)
        print(f"rms_norm kernel between two ops on float32{list(shape)}, numpy in and out "
              f"(median of {args.repeats} x {calls})")  # fmt: skip
        for name, seconds in med.items():
            print(f"  {name:<12} {seconds * 1e6:9.1f} us")
        ratios.append(med["stablegraph"] / med["jax"])
        print(f"  stablegraph/jax: {ratios[-1]:.2f} (make_callable: {med['make_callable'] / med['jax']:.2f})")
    print(f"ratio stablegraph/jax: {ratios[0]:.2f}")


if __name__ == "__main__":
    main()
