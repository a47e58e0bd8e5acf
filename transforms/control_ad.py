"""Reverse-mode rules of the cond and scan primitives (transforms layer).

The rules differentiate body Functions with the reverse pass, so they
cannot live in ops/control.py (ops may not import transforms); importing
this module attaches them to ``cond_op`` and ``scan_op``.

cond: the cotangent cond runs, for the taken branch, a Function that recomputes the branch forward and then its
backward pass; The cotangent cond runs, for the
taken branch, a Function that recomputes the branch forward and then its
backward pass; it returns one cotangent per differentiable operand or
capture (zeros for the other branches' captures), so every branch returns
the same types. Its nodes are ordinary primitives and cond again, so higher
orders (and jvp by double vjp) follow.

scan: the step's backward is first built with the step's forward recomputed
in it; the forward values that backward reads are the residuals. A copy of
the scan with ``saved`` naming them stacks them per step (simplify merges it
with the original scan, so the forward loop runs once; xs are read where
they are), and a scan in the opposite direction runs the backward on them.
Its carry is the carry's cotangent plus the captures' cotangents summed over
the steps; it stacks the cotangents of xs. With ``remat`` (sg.checkpoint)
the residuals are the carry entering each step and the backward recomputes
the step.
"""

from __future__ import annotations

from ..graph import Function, TensorType, current_graph, function
from ..graph.function import bind_symbols, substitute_attrs
from ..ops import ad_util
from ..ops.control import ScanAttrs, cond_call, cond_op, scan_call, scan_op
from ..ops.registry import bind_node
from .backward import backward
from .simplify import simplify


def _apply(fn: Function, values) -> list:
    """Copy fn's nodes into the graph being built, its params and captures bound to ``values``."""
    graph = current_graph()
    env = dict(zip(fn.params + fn.capture_params, values))
    for node in fn.graph.nodes:
        if node.op.name == "parameter":
            continue
        new = graph.add_node(
            node.op, [env[t] for t in node.inputs], node.attrs, name=f"{fn.name}/{node.name}",
            location=node.location,
        )  # fmt: skip
        env.update(zip(node.outputs, new.outputs))
    return [env[r] for r in fn.results]


def _branch_vjp(fn: Function, n: int, lo: int, hi: int, diff, live, num_rest: int):
    """(operands..., all captures..., live cotangents...) -> cotangents of ``diff`` positions."""

    def bwd(*args):
        rest, cts = args[:num_rest], args[num_rest:]
        own = list(range(n)) + list(range(lo, hi))
        graph = current_graph()
        start = len(graph.nodes)
        outs = _apply(fn, [rest[p] for p in own])
        seeds: dict = {}
        for j, ct in zip(live, cts):
            o = outs[j]
            seeds[o] = ct if o not in seeds else ad_util.add(seeds[o], ct)
        wrt = [rest[p] for p in own if p in diff]
        got = dict(zip([p for p in own if p in diff], backward(graph.nodes[start:], seeds, wrt)))
        return [got.get(p) if got.get(p) is not None else ad_util.zeros_like(rest[p]) for p in diff]

    return bwd


def _cond_vjp(attrs, xs, ys, cts):
    index, rest = xs[0], list(xs[1:])
    n = len(attrs.branches[0].params)
    diff = [p for p, t in enumerate(rest) if ad_util.is_differentiable(t)]
    live = [j for j, (y, c) in enumerate(zip(ys, cts)) if c is not None and ad_util.is_differentiable(y)]
    if not diff or not live:
        return [None] * len(xs)
    operands = rest + [cts[j] for j in live]
    types = [t.type for t in operands]
    fns, lo = [], n
    for fn in attrs.branches:
        hi = lo + len(fn.capture_params)
        bwd = _branch_vjp(fn, n, lo, hi, diff, live, len(rest))
        fns.append(simplify(function(bwd, types, name=f"{fn.name}_vjp")))  # drops unused recomputation
        lo = hi
    out = dict(zip(diff, cond_call(index, fns, operands, name="cond_vjp")))
    return [None] + [out.get(p) for p in range(len(rest))]


def _call(fn: Function, args, caps, env=None) -> list:
    """Copy fn's nodes into the graph being built on ``args``, its captures bound to ``caps``.

    ``caps`` are the scan node's own capture inputs (not ``fn.captures``, which
    name the tensors of the graph the body was first traced in). ``env``, when
    given, is filled with fn's tensors -> their copies.
    """
    graph = current_graph()
    caps = [c if c.graph is graph else graph.capture(c) for c in caps]
    subst = bind_symbols([p.type for p in fn.params], [a.type for a in args], f"function {fn.name}")
    env = {} if env is None else env
    env.update(zip(fn.params + fn.capture_params, list(args) + caps))
    for node in fn.graph.nodes:
        if node.op.name == "parameter":
            continue
        new = graph.add_node(
            node.op, [env[t] for t in node.inputs], substitute_attrs(node.attrs, subst),
            name=f"{fn.name}/{node.name}", location=node.location,
        )  # fmt: skip
        env.update(zip(node.outputs, new.outputs))
    return [env[r] for r in fn.results]


class _Step:
    """The backward pass of one scan step, first built with the step's forward recomputed in it.

    Params: cotangents of the differentiable carries (``dc``), the captures'
    cotangent sums (``dk``), the step's carry and xs, the live ys' cotangents.
    Results: the carry cotangents, the updated sums, the xs' cotangents (``dx``).
    """

    def __init__(self, body: Function, nx: int, saved, caps, dc, dx, dk, live):
        self.body, self.nx, self.saved, self.caps = body, nx, saved, caps
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
        outs = _call(body, list(c_t) + list(x_t), self.caps, self.env)
        outs += [self.env[body.graph.nodes[ni].outputs[oi]] for ni, oi in self.saved]  # stacked outputs too
        self.bwd_start = len(graph.nodes)
        seeds: dict = {}
        pairs = [(outs[j], c) for j, c in zip(dc, ct_c)] + [
            (outs[nc + k], c) for k, c in zip(self.live, ct_y)
        ]
        for o, ct in pairs:
            seeds[o] = ct if o not in seeds else ad_util.add(seeds[o], ct)
        wrt = [c_t[j] for j in dc] + [x_t[k] for k in self.dx] + cap_params
        got = backward(graph.nodes[self.fwd_start :], seeds, wrt)
        got = [g if g is not None else ad_util.zeros_like(w) for g, w in zip(got, wrt)]
        g_c, g_x, g_k = got[: len(dc)], got[len(dc) : len(dc) + len(self.dx)], got[len(dc) + len(self.dx) :]
        return [*g_c, *(ad_util.add(a, g) for a, g in zip(acc, g_k)), *g_x]


def _residuals(full: Function, step: _Step, n_lead: int, n_rows: int):
    """Split ``full`` (a _Step's Function) into what the backward reads of the forward, and the rest.

    Returns the forward tensors of ``full`` the backward nodes read (the
    residuals, in order) and a Function that takes them in place of the
    step's carry and xs: (carry cts, sums, residuals..., live ct_ys) -> results.
    """
    nodes = full.graph.nodes
    fwd_params = set(full.params[n_lead : n_lead + n_rows])
    fwd_nodes = [n for n in nodes[step.fwd_start : step.bwd_start] if n.op.name != "parameter"]
    fwd_out = {o: n for n in fwd_nodes for o in n.outputs}
    bwd_nodes = [n for n in nodes[step.bwd_start :] if n.op.name != "parameter"]
    consts = [n for n in fwd_nodes if not n.inputs]
    saved: list = []
    for t in [t for n in bwd_nodes for t in n.inputs] + list(full.results):
        if (t in fwd_params or (t in fwd_out and fwd_out[t].inputs)) and not any(t is s for s in saved):
            saved.append(t)
    outer = {param: t for t, param in full.graph.captures.items()}
    lead, tail = list(full.params[:n_lead]), list(full.params[n_lead + n_rows :])

    def split(*args):
        graph = current_graph()
        env = dict(zip(lead + saved + tail, args))
        env.update((p, graph.capture(t)) for p, t in outer.items())
        for node in consts + bwd_nodes:
            new = graph.add_node(node.op, [env[t] for t in node.inputs], node.attrs, name=node.name,
                                 location=node.location)  # fmt: skip
            env.update(zip(node.outputs, new.outputs))
        return [env[r] for r in full.results]

    types = [t.type for t in lead + saved + tail]
    return saved, simplify(function(split, types, name=full.name))


def _scan_vjp(attrs: ScanAttrs, xs, ys, cts):
    body, nc = attrs.body, attrs.num_carry
    nx = len(body.params) - nc
    init, seqs, caps = list(xs[:nc]), list(xs[nc : nc + nx]), list(xs[nc + nx :])
    (length,) = attrs.length_shape
    dc = [j for j in range(nc) if ad_util.is_differentiable(init[j])]
    dx = [k for k in range(nx) if ad_util.is_differentiable(seqs[k])]
    # a tensor captured twice (after sharing) gets its whole cotangent at its first place
    dk = [m for m, c in enumerate(caps) if ad_util.is_differentiable(c) and _first(caps, c) == m]
    live = [
        k for k in range(len(ys) - nc) if cts[nc + k] is not None and ad_util.is_differentiable(ys[nc + k])
    ]
    if not (dc or dx or dk):
        return [None] * len(xs)
    ct_init = [cts[j] if cts[j] is not None else ad_util.zeros_like(ys[j]) for j in dc]
    acc_init = [ad_util.zeros_like(caps[m]) for m in dk]
    ct_ys = [cts[nc + k] for k in live]
    rows = [t.type for t in init] + [_row(t) for t in seqs]
    lead = [t.type for t in ct_init + acc_init]
    step = _Step(body, nx, attrs.saved, caps, dc, dx, dk, live)
    full = function(step, lead + rows + [_row(t) for t in ct_ys], name=f"{body.name}_vjp")
    n_lead = len(lead)
    if attrs.remat:  # save only the carry entering each step; the backward recomputes the step
        saved = list(full.params[n_lead : n_lead + nc + nx])
        bwd_fn = simplify(full)
    else:  # save what the backward reads
        saved, bwd_fn = _residuals(full, step, n_lead, nc + nx)
    # a forward scan stacking the residuals not already stacked (xs themselves are)
    x_params = dict(zip(full.params[n_lead + nc : n_lead + nc + nx], seqs))
    own = [t for t in saved if t not in x_params]
    if own:  # the same scan, also stacking the body's tensors the backward reads
        inverse = {copy: t for t, copy in step.env.items()}
        where = {t: (k, i) for k, node in enumerate(body.graph.nodes) for i, t in enumerate(node.outputs)}
        spec = tuple(where[inverse[t]] for t in own)
        res_attrs = attrs.model_copy(update={"saved": attrs.saved + spec})
        res = bind_node(scan_op, list(xs), res_attrs, name="scan_res").outputs
        stacked = dict(zip(own, res[len(ys) :]))
    else:
        stacked = {}
    residuals = [x_params[t] if t in x_params else stacked[t] for t in saved]
    out = scan_call(
        bwd_fn, ct_init + acc_init, residuals + ct_ys, length, not attrs.reverse, remat=attrs.remat,
        name="scan_vjp", unroll=attrs.unroll,
    )  # fmt: skip
    ct_carry, ct_caps, ct_seqs = out[: len(dc)], out[len(dc) : len(dc) + len(dk)], out[len(dc) + len(dk) :]
    result: list = [None] * len(xs)
    for j, c in zip(dc, ct_carry):
        result[j] = c
    for k, c in zip(dx, ct_seqs):
        result[nc + k] = c
    for m, c in zip(dk, ct_caps):
        result[nc + nx + m] = c
    return result


def _first(values, t) -> int:
    return next(i for i, v in enumerate(values) if v is t)


def _row(t):
    """The type of one step of a stacked tensor."""
    return TensorType(t.type.shape[1:], t.type.dtype)


# The rules need the reverse pass, which lives above ops: attach them here (see the module docstring).
cond_op.vjp = _cond_vjp
cond_op.reasons.pop("vjp", None)
scan_op.vjp = _scan_vjp
scan_op.reasons.pop("vjp", None)
