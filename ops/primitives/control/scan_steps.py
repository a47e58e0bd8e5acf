"""The pieces of the scan vjp: one step's backward, and the residuals it reads (ops layer).

The step's backward is first built with the step's forward recomputed in it
(``Step``); the forward values that backward reads are the residuals
(``split_residuals`` splits them out). ops/control/scan.py's vjp rule stacks them
with a copy of the forward scan and runs the backward in a scan the other
way.
"""

from __future__ import annotations

from ....graph import Function, current_graph, function
from ....graph.function import inline
from .. import ad_util


class Step:
    """The backward pass of one scan step, first built with the step's forward recomputed in it.

    Params: cotangents of the differentiable carries (``dc``), the captures'
    cotangent sums (``dk``), the step's carry and xs, the live ys' cotangents.
    Results: the carry cotangents, the updated sums, the xs' cotangents (``dx``).
    """

    def __init__(self, ctx, body: Function, nx: int, caps, dc, dx, dk, live):
        self.ctx, self.body, self.nx, self.caps = ctx, body, nx, caps
        self.dc, self.dx, self.dk, self.live = dc, dx, dk, live
        self.env: dict = {}
        self.fwd_start = self.bwd_start = 0

    def __call__(self, *args):
        graph = current_graph()
        body, dc, dk = self.body, self.dc, self.dk
        nc = len(body.params) - self.nx
        ct_c, acc = args[: len(dc)], args[len(dc) : len(dc) + len(dk)]
        rest = args[len(dc) + len(dk) :]
        c_t, x_t, ct_y = rest[:nc], rest[nc : nc + self.nx], rest[nc + self.nx :]
        cap_params = [graph.capture(self.caps[m]) for m in dk]
        self.fwd_start = len(graph.nodes)
        outs = inline(
            body, graph, list(c_t) + list(x_t), captures=self.caps, env=self.env, effects="recomputed"
        )
        self.bwd_start = len(graph.nodes)
        seeds: dict = {}
        pairs = [(outs[j], c) for j, c in zip(dc, ct_c)] + [
            (outs[nc + k], c) for k, c in zip(self.live, ct_y)
        ]
        for o, ct in pairs:
            seeds[o] = ct if o not in seeds else ad_util.add(seeds[o], ct)
        wrt = [c_t[j] for j in dc] + [x_t[k] for k in self.dx] + cap_params
        got = self.ctx.backward(graph.nodes[self.fwd_start :], seeds, wrt)
        got = [g if g is not None else ad_util.zeros_like(w) for g, w in zip(got, wrt)]
        g_c, g_x, g_k = got[: len(dc)], got[len(dc) : len(dc) + len(self.dx)], got[len(dc) + len(self.dx) :]
        return [*g_c, *(ad_util.add(a, g) for a, g in zip(acc, g_k)), *g_x]


def split_residuals(full: Function, step: Step, n_lead: int, n_rows: int):
    """Split ``full`` (a Step's Function) into what the backward reads of the forward, and the rest.

    Returns the forward tensors of ``full`` the backward nodes read (the
    residuals, in order) and a Function that takes them in place of the
    step's carry and xs: (carry cts, sums, residuals..., live ct_ys) -> results.
    """
    nodes = full.graph.nodes
    fwd_params = set(full.params[n_lead : n_lead + n_rows])
    fwd_nodes = [n for n in nodes[step.fwd_start : step.bwd_start] if "parameter" not in n.op.traits]
    fwd_out = {o: n for n in fwd_nodes for o in n.outputs}
    bwd_nodes = [n for n in nodes[step.bwd_start :] if "parameter" not in n.op.traits]
    consts = [n for n in fwd_nodes if not n.inputs]
    saved: list = []
    for t in [t for n in bwd_nodes for t in n.inputs] + list(full.results):
        if (t in fwd_params or (t in fwd_out and fwd_out[t].inputs)) and not any(t is s for s in saved):
            saved.append(t)
    outer = {param: t for t, param in full.graph.captures.items()}
    lead, tail = list(full.params[:n_lead]), list(full.params[n_lead + n_rows :])

    def rebuilt(*args):
        graph = current_graph()
        env = dict(zip(lead + saved + tail, args))
        env.update((p, graph.capture(t)) for p, t in outer.items())
        for node in consts + bwd_nodes:
            new = graph.add_node(node.op, [env[t] for t in node.inputs], node.attrs, name=node.name,
                                 location=node.location)  # fmt: skip
            env.update(zip(node.outputs, new.outputs))
        return [env[r] for r in full.results]

    types = [t.type for t in lead + saved + tail]
    return saved, step.ctx.simplify(function(rebuilt, types, name=full.name))
