"""Forward mode through a scan: sg.jvp of the tanh RNN's loss beside jax.jvp under jit.

The RNN is benchmarks/rnn_scan.py's (hidden 256, input 64, 100 steps, batch
32, float32), differentiated along random tangents of its weights. Three
programs, one process, repeats interleaved: stablegraph with scan's own jvp
rule (one scan carrying the tangents), stablegraph with that rule switched
off (forward mode then transposes scan's vjp for that node, as before the
rule existed: a residual scan and a backward scan), and
``jax.jit(lambda ...: jax.jvp(...))``. Prints the scans each stablegraph
program builds and the median time of each; the last line is the ratio of
the rule's program to JAX's. Run with ``python benchmarks/scan_jvp.py``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from rnn_scan import loss, make_inputs, rnn_arguments
from timing import measure, per_call

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph import extract
from stablegraph.ops.primitives.control.scan import scan_op


def stablegraph_jvp(weights, tangents, xs, h0, own_rule: bool):
    rule = scan_op.jvp
    if not own_rule:
        scan_op.jvp = None  # the forward pass falls back on transposing scan's vjp for this node
    try:
        g = sg.Graph("rnn_jvp" if own_rule else "rnn_jvp_transposed")
        with g:
            ws = [sg.placeholder(w.shape, sg.float32, name=f"w{i}") for i, w in enumerate(weights)]
            ts = [sg.placeholder(w.shape, sg.float32, name=f"t{i}") for i, w in enumerate(weights)]
            x = sg.placeholder(xs.shape, sg.float32, name="xs")
            h = sg.placeholder(h0.shape, sg.float32, name="h0")
            value, slope = sg.jvp(lambda *q: loss(snp, sg.scan, list(q), x, h), tuple(ws), tuple(ts))
    finally:
        scan_op.jvp = rule
    program = sg.simplify(extract(g, [value, slope], [*ws, *ts, x, h]))
    scans = sum(1 for n in program.graph.nodes if n.op is scan_op)
    sess = sg.Session(g)
    feeds = dict(zip(ws, weights)) | dict(zip(ts, tangents)) | {x: xs, h: h0}
    return (lambda: sess.run([value, slope], feeds)), scans


def jax_jvp(weights, tangents, xs, h0):
    step = jax.jit(lambda ws, ts, a, b: jax.jvp(lambda *q: loss(jnp, jax.lax.scan, list(q), a, b), ws, ts))
    return lambda: [np.asarray(r) for r in step(tuple(weights), tuple(tangents), xs, h0)]


def main() -> None:
    args = rnn_arguments(__doc__.splitlines()[0])
    weights, xs, h0 = make_inputs(args.hidden, args.input, args.steps, args.batch)
    rng = np.random.default_rng(1)
    tangents = [rng.normal(size=w.shape).astype(np.float32) for w in weights]
    rule, rule_scans = stablegraph_jvp(weights, tangents, xs, h0, own_rule=True)
    old, old_scans = stablegraph_jvp(weights, tangents, xs, h0, own_rule=False)
    fns = {"stablegraph": rule, "stablegraph, vjp transposed": old, "jax": jax_jvp(weights, tangents, xs, h0)}
    want = fns["jax"]()
    for name in ("stablegraph", "stablegraph, vjp transposed"):  # compiles; also a check that all agree
        for k, (a, b) in enumerate(zip(fns[name](), want)):
            np.testing.assert_allclose(a, b, rtol=2e-3, atol=1e-6, err_msg=f"{name} result {k}")
    for fn in fns.values():
        per_call(fn, 3)  # warm up caches
    med = measure(fns, args.calls, args.repeats)
    print(
        f"jvp of a tanh RNN's loss: hidden {args.hidden}, input {args.input}, {args.steps} steps, "
        f"batch {args.batch}, float32, numpy in and out (median of {args.repeats} x {args.calls} calls)"
    )
    print(f"  scans after simplify: {rule_scans} with scan's jvp rule, {old_scans} with its vjp transposed")
    for name, seconds in med.items():
        print(f"  {name:<28} {seconds * 1e3:8.2f} ms")
    print(f"vjp transposed / jvp rule: {med['stablegraph, vjp transposed'] / med['stablegraph']:.2f}")
    print(f"ratio stablegraph/jax: {med['stablegraph'] / med['jax']:.2f}")


if __name__ == "__main__":
    main()
