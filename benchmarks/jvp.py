"""Forward mode: sg.jvp (the forward pass) beside the double vjp it replaced, on an MLP's loss.

The MLP (benchmarks/grad.py's ``loss``: 784-512-512-10, tanh, batch 128,
float32) is differentiated along random tangents of its parameters twice:
with ``sg.jvp`` (each op's jvp rule, or its vjp transposed for that node)
and with the old construction, the vjp of the vjp seeded with the tangents.
Prints the nodes each builds and keeps after sg.simplify, and the median
run time of each (interleaved), and checks that both agree. Run with
``python benchmarks/jvp.py``.
"""

from __future__ import annotations

import argparse

import numpy as np
from grad import loss, make_inputs
from timing import measure, per_call

import stablegraph as sg
from stablegraph import numpy as snp


def forward_mode(n: int):
    def fn(*args):
        ps, ts, x, y = args[:n], args[n : 2 * n], args[-2], args[-1]
        return sg.jvp(lambda *q: loss(snp, list(q), x, y), tuple(ps), tuple(ts))

    return fn


def double_vjp(n: int):
    def fn(*args):
        ps, ts, x, y = args[:n], args[n : 2 * n], args[-2], args[-1]
        out, vjp_fn = sg.vjp(lambda *q: loss(snp, list(q), x, y), *ps)
        _, transpose = sg.vjp(vjp_fn, snp.zeros_like(out))  # the vjp is linear in its cotangent
        return out, transpose(tuple(ts))[0]

    return fn


def count(fn: sg.Function) -> int:
    return sum(1 for node in fn.graph.nodes if node.op.name != "parameter")


def runner(fn: sg.Function, values):
    g = sg.Graph("jvp")
    with g:
        phs = [sg.placeholder(v.shape, sg.float32) for v in values]
        out = fn(*phs)
    sess = sg.Session(g)
    feeds = dict(zip(phs, values))
    return lambda: sess.run(out, feeds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[784, 512, 512, 10], help="layer widths")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--calls", type=int, default=10, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats")
    args = parser.parse_args()

    params, x, y = make_inputs(args.sizes, args.batch)
    rng = np.random.default_rng(1)
    values = params + [rng.normal(size=p.shape).astype(np.float32) for p in params] + [x, y]
    types = [sg.TensorType(v.shape, sg.float32) for v in values]
    fns = {}
    for name, make in (("forward pass", forward_mode), ("double vjp", double_vjp)):
        built = sg.function(make(len(params)), types, name=name.replace(" ", "_"))
        small = sg.simplify(built)
        print(f"{name:<13} nodes built {count(built):4d}, after simplify {count(small):4d}")
        fns[name] = runner(small, values)
    ours, old = fns["forward pass"](), fns["double vjp"]()
    np.testing.assert_allclose(ours[1], old[1], rtol=1e-4, atol=1e-6)
    for fn in fns.values():
        per_call(fn, 3)
    med = measure(fns, args.calls, args.repeats)
    for name, seconds in med.items():
        print(f"{name:<13} {seconds * 1e3:8.2f} ms per run")


if __name__ == "__main__":
    main()
