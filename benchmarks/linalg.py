"""Linear algebra and FFT step time: ours beside jax.jit on the same LAPACK and ducc kernels.

One program, written once against numpy/scipy-like modules: the Cholesky
factor of a 1024 x 1024 SPD float64 matrix, two triangular solves with it
(L y = b, L^T x = y, for 8 right-hand sides), slogdet of the matrix (LU),
and the rfft of 2^20 float64 points. stablegraph runs it with ``sess.run``
on numpy feeds; jax runs ``jax.jit`` of the same function on the same numpy
arrays (x64 on) and gives back numpy arrays. Repeats are interleaved; the
last line is the ratio of the median step times. Run with
``python benchmarks/linalg.py``.
"""

from __future__ import annotations

import argparse

import jax

jax.config.update("jax_enable_x64", True)  # the benchmark is float64 on both sides

import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
import numpy as np  # noqa: E402
from timing import measure, per_call  # noqa: E402

import stablegraph as sg  # noqa: E402
from stablegraph import numpy as snp  # noqa: E402


def program(xp, sl, a, b, signal):
    """(x with A x = b through the Cholesky factor, slogdet(A), rfft(signal))."""
    low = xp.linalg.cholesky(a)
    y = sl.solve_triangular(low, b, lower=True)
    x = sl.solve_triangular(low, y, lower=True, trans=1)
    sign, logdet = xp.linalg.slogdet(a)
    return x, sign, logdet, xp.fft.rfft(signal)


def make_inputs(n: int, rhs: int, points: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(n, n))
    a = m @ m.T / n + np.eye(n)
    return a, rng.normal(size=(n, rhs)), rng.normal(size=points)


def stablegraph_step(a, b, signal):
    g = sg.Graph("linalg_bench")
    with g:
        phs = [sg.placeholder(v.shape, sg.float64, name=k) for k, v in zip("abs", (a, b, signal))]
        outs = program(snp, sg.scipy.linalg, *phs)
    sess = sg.Session(g)
    feeds = dict(zip(phs, (a, b, signal)))
    return lambda: sess.run(list(outs), feeds)


def jax_step(a, b, signal):
    step = jax.jit(lambda *xs: program(jnp, jsl, *xs))
    return lambda: [np.asarray(v) for v in step(a, b, signal)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024, help="matrix size")
    parser.add_argument("--rhs", type=int, default=8, help="right-hand sides")
    parser.add_argument("--points", type=int, default=2**20, help="rfft length")
    parser.add_argument("--calls", type=int, default=3, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats")
    args = parser.parse_args()

    a, b, signal = make_inputs(args.n, args.rhs, args.points)
    fns = {"stablegraph": stablegraph_step(a, b, signal), "jax": jax_step(a, b, signal)}
    ours, theirs = fns["stablegraph"](), fns["jax"]()  # compiles; also a check that both agree
    for k, (u, v) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(u, v, rtol=1e-7, atol=1e-7, err_msg=f"output {k}")
    np.testing.assert_allclose(a @ ours[0], b, rtol=1e-8, atol=1e-8)
    for fn in fns.values():
        per_call(fn, 1)  # warm up caches
    med = measure(fns, args.calls, args.repeats)
    print(
        f"cholesky + 2 triangular solves ({args.rhs} rhs) + slogdet of a {args.n}x{args.n} SPD float64 matrix,"
    )
    print(
        f"and rfft of {args.points} float64 points; numpy in and out (median of {args.repeats} x {args.calls} calls)"
    )
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.2f} ms")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
