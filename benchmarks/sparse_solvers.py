"""Krylov solvers with implicit gradients: ours beside jax.jit, one program each.

One program, written once against numpy/scipy-like modules: cg on a
symmetric positive definite n x n float64 matrix, bicgstab and gmres on a
general one, and the gradient of a loss of the three solutions with respect
to the matrices and b (each gradient is one more solve of the transposed
system, through custom_linear_solve on both sides). stablegraph runs it with
``sess.run`` on numpy feeds; jax runs ``jax.jit`` of the same function (x64
on). Repeats are interleaved; the last line is the ratio of the median step
times. Run with ``python benchmarks/sparse_solvers.py``.
"""

from __future__ import annotations

import argparse

import jax

jax.config.update("jax_enable_x64", True)  # the benchmark is float64 on both sides

import jax.numpy as jnp  # noqa: E402
import jax.scipy.sparse.linalg as jsl  # noqa: E402
import numpy as np  # noqa: E402
from timing import measure, per_call  # noqa: E402

import stablegraph as sg  # noqa: E402
import stablegraph.scipy.sparse.linalg as ssl  # noqa: E402
from stablegraph import numpy as snp  # noqa: E402


def solutions(lib, spd, gen, b):
    return [lib.cg(spd, b, tol=1e-10)[0], lib.bicgstab(gen, b, tol=1e-10)[0], lib.gmres(gen, b, tol=1e-10)[0]]


def program(xp, lib, grad, spd, gen, b):
    """The three solutions, and the gradient of the sum of their squares."""
    loss = lambda *args: sum(xp.sum(x * x) for x in solutions(lib, *args))  # noqa: E731
    return solutions(lib, spd, gen, b), grad(loss, (0, 1, 2))(spd, gen, b)


def make_inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(n, n))
    spd = m @ m.T / n + np.eye(n)
    gen = rng.normal(size=(n, n)) / np.sqrt(n) + 2 * np.eye(n)
    return spd, gen, rng.normal(size=n)


def stablegraph_step(spd, gen, b):
    g = sg.Graph("sparse_solvers_bench")
    with g:
        phs = [
            sg.placeholder(v.shape, sg.float64, name=k) for k, v in zip(("spd", "gen", "b"), (spd, gen, b))
        ]
        outs = program(snp, ssl, sg.grad, *phs)
    sess = sg.Session(g)
    feeds = dict(zip(phs, (spd, gen, b)))
    return lambda: sess.run(outs, feeds)


def jax_step(spd, gen, b):
    step = jax.jit(lambda *xs: program(jnp, jsl, jax.grad, *xs))
    return lambda: jax.tree.map(np.asarray, step(spd, gen, b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512, help="matrix size")
    parser.add_argument("--calls", type=int, default=3, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats")
    args = parser.parse_args()

    spd, gen, b = make_inputs(args.n)
    fns = {"stablegraph": stablegraph_step(spd, gen, b), "jax": jax_step(spd, gen, b)}
    ours, theirs = fns["stablegraph"](), fns["jax"]()  # compiles; also a check that both agree
    for u, v in zip(jax.tree.leaves(ours), jax.tree.leaves(theirs)):
        np.testing.assert_allclose(u, v, rtol=1e-6, atol=1e-8)
    for fn in fns.values():
        per_call(fn, 1)  # warm up caches
    med = measure(fns, args.calls, args.repeats)
    print(
        f"cg, bicgstab and gmres on {args.n}x{args.n} float64 matrices, with the implicit gradient of a loss of"
    )
    print(f"the three solutions; numpy in and out (median of {args.repeats} x {args.calls} calls)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.2f} ms")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
