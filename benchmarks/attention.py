"""Forward and backward of causal dot-product attention in a Session, beside jax.jit.

Queries, keys and values are (batch 8, seq 256, 8 heads, 64) float32 in
jax.nn's (B, T, N, H) layout. Both sides compute the gradient of the sum of
``dot_product_attention(q, k, v, is_causal=True)`` with respect to q, k and
v and return the three gradients as numpy: stablegraph as one graph of
``sg.nn.dot_product_attention`` and ``sg.grad`` run by
``sess.run(grads, feeds)``, JAX as ``jax.jit(jax.grad(...,
argnums=(0, 1, 2)))`` over ``jax.nn.dot_product_attention``. Both get the
same numpy inputs each call. One process, repeats interleaved; prints the
median time of each and their ratio (goal: stablegraph/jax <= 1.05). Run
with ``python benchmarks/attention.py``.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from timing import measure, per_call

import stablegraph as sg


def make_data(shape, seed: int = 0):
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(size=shape).astype(np.float32) for _ in range(3))


def stablegraph_grads(shape):
    """The graph's placeholders, the three gradients, and a Session."""
    g = sg.Graph("attention")
    with g:
        q, k, v = (sg.placeholder(shape, sg.float32, name=n) for n in "qkv")

        def total(q, k, v):
            return sg.nn.dot_product_attention(q, k, v, is_causal=True).sum()

        grads = sg.grad(total, argnums=(0, 1, 2))(q, k, v)
    return (q, k, v), list(grads), sg.Session(g)


def jax_total(q, k, v):
    return jnp.sum(jax.nn.dot_product_attention(q, k, v, is_causal=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=256)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--calls", type=int, default=5, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved repeats")
    args = parser.parse_args()

    shape = (args.batch, args.seq, args.heads, args.head_dim)
    data = make_data(shape)
    placeholders, grads, sess = stablegraph_grads(shape)
    feeds = dict(zip(placeholders, data))
    jax_grads = jax.jit(jax.grad(jax_total, argnums=(0, 1, 2)))

    def ours():
        return sess.run(grads, feeds)

    def theirs():
        return [np.asarray(a) for a in jax_grads(*data)]

    for a, b, name in zip(ours(), theirs(), "qkv"):  # compiles; both give the same gradients
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-4, err_msg=f"gradient w.r.t. {name}")
    fns = {"stablegraph": ours, "jax": theirs}
    for fn in fns.values():
        per_call(fn, 2)
    med = measure(fns, args.calls, args.repeats)
    b, t, n, h = shape
    print(
        f"grad of sum(causal dot_product_attention) w.r.t. q, k, v: batch {b}, seq {t}, {n} heads of {h}, float32"
    )
    print(f"(median of {args.repeats} x {args.calls} calls, numpy in and out)")
    for name, seconds in med.items():
        print(f"  {name:<12} {seconds * 1e3:8.3f} ms")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
