"""The cond primitive: run the branch an int32 index picks; stablehlo.case (ops layer).

Its vjp is a cond again: for the taken branch, a Function that recomputes
the branch forward and then its backward pass (through the rule context's
reverse pass). It returns one cotangent per differentiable operand or
capture (zeros for the other branches' captures), so every branch returns
the same types. Its nodes are ordinary primitives and cond again, so higher
orders follow. Its jvp is a cond of the branches with their forward passes.

Under vectorize, an index that is the same for every lane keeps one cond of
the vectorized branches; a batched index runs every branch on the whole
batch and picks each lane's result with a select.
"""

from __future__ import annotations

from ....graph import (
    Attrs,
    FunctionAttr,
    GraphError,
    OpDef,
    Tensor,
    TensorType,
    current_graph,
    dtypes,
    function,
)
from ....graph.function import inline
from .. import ad_util, hlo, shape
from ..batching import batched_at
from ..compare import compare
from ..constants import constant
from ..registry import bind_node
from .common import TangentStep, lane_select, out_types, split, types_str


class CondAttrs(Attrs):
    branches: tuple[FunctionAttr, ...]  # each: (operands..., its captures...) -> results


def _cond_infer(attrs: CondAttrs, index: TensorType, *rest: TensorType) -> tuple[TensorType, ...]:
    if index.shape != () or index.dtype is not dtypes.int32:
        raise GraphError(f"cond wants an int32 scalar index, got {index}")
    branches = attrs.branches
    n = len(branches[0].params)
    want = n + sum(len(b.capture_params) for b in branches)
    if len(rest) != want:
        raise GraphError(f"cond wants {want} operands and captures, got {len(rest)}")
    caps = split(rest, branches, n)
    outs = [out_types(b, list(rest[:n]) + c, f"cond branch {i} ({b.name})") for i, (b, c) in
            enumerate(zip(branches, caps))]  # fmt: skip
    for i, (b, o) in enumerate(zip(branches, outs)):
        if o != outs[0]:
            raise GraphError(
                f"cond wants every branch to return the same types, got {types_str(outs[0])} from branch 0 "
                f"({branches[0].name}) and {types_str(o)} from branch {i} ({b.name})"
            )
    return outs[0]


def _cond_lower(ctx, attrs: CondAttrs, index, *rest):
    n = len(attrs.branches[0].params)
    operands = list(rest[:n])
    caps = split(rest, attrs.branches, n)
    thunks = [
        (lambda fn=fn, c=c: ctx.lower_function(fn, operands + c)) for fn, c in zip(attrs.branches, caps)
    ]
    return hlo.case(index, [hlo.tensor_type(t) for t in ctx.out_types], thunks)


def _branch_vjp(ctx, fn, n: int, lo: int, hi: int, diff, live, num_rest: int):
    """(operands..., all captures..., live cotangents...) -> cotangents of ``diff`` positions."""

    def bwd(*args):
        rest, cts = args[:num_rest], args[num_rest:]
        own = list(range(n)) + list(range(lo, hi))
        graph = current_graph()
        start = len(graph.nodes)
        outs = inline(
            fn, graph, [rest[p] for p in own[:n]], captures=[rest[p] for p in own[n:]], effects="recomputed"
        )
        seeds: dict = {}
        for j, ct in zip(live, cts):
            o = outs[j]
            seeds[o] = ct if o not in seeds else ad_util.add(seeds[o], ct)
        wrt = [rest[p] for p in own if p in diff]
        got = dict(zip([p for p in own if p in diff], ctx.backward(graph.nodes[start:], seeds, wrt)))
        return [got.get(p) if got.get(p) is not None else ad_util.zeros_like(rest[p]) for p in diff]

    return bwd


def _cond_vjp(ctx, attrs: CondAttrs, xs, ys, cts):
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
        bwd = _branch_vjp(ctx, fn, n, lo, hi, diff, live, len(rest))
        fns.append(ctx.simplify(function(bwd, types, name=f"{fn.name}_vjp")))  # drops unused recomputation
        lo = hi
    out = dict(zip(diff, cond_call(index, fns, operands, name="cond_vjp")))
    return [None] + [out.get(p) for p in range(len(rest))]


def _cond_jvp(ctx, attrs: CondAttrs, xs, ys, tangents):
    """A cond of the branches with their forward passes: (operands, their tangents) -> (results,
    their tangents). A result has a tangent where some branch gives it one (zeros in the others)."""
    index, rest, t_rest = xs[0], list(xs[1:]), list(tangents[1:])
    branches = attrs.branches
    n = len(branches[0].params)
    diff = ad_util.is_differentiable
    tx = [k for k in range(n) if t_rest[k] is not None and diff(rest[k])]
    caps, t_caps = split(rest, branches, n), split(t_rest, branches, n)
    tks = [
        [m for m, (c, t) in enumerate(zip(cs, ts)) if t is not None and diff(c)]
        for cs, ts in zip(caps, t_caps)
    ]
    if not tx and not any(tks):
        return [None] * len(ys)
    types = [t.type for t in rest[:n]] + [rest[k].type for k in tx]

    def steps(want):
        made = [TangentStep(ctx, fn, 0, cs, [], tx, [ts[m] for m in tk], tk, want)
                for fn, cs, ts, tk in zip(branches, caps, t_caps, tks)]  # fmt: skip
        return made, [function(st, types, name=f"{fn.name}_jvp") for st, fn in zip(made, branches)]

    made, fns = steps(None)
    want = sorted({k for st in made for k in st.ys_out if diff(ys[k])})
    if any(st.ys_out != want for st in made):
        made, fns = steps(want)
    out = cond_call(index, fns, rest[:n] + [t_rest[k] for k in tx], name="cond_jvp")
    for y, value in zip(ys, out[: len(ys)]):
        ctx.same_values(y, value)
    result: list = [None] * len(ys)
    for i, k in enumerate(want):
        result[k] = out[len(ys) + i]
    return result


def _cond_batch(ctx, attrs: CondAttrs, xs, bdims):
    index, ib = xs[0], bdims[0]
    n = len(attrs.branches[0].params)
    operands, op_bdims = list(xs[1 : n + 1]), list(bdims[1 : n + 1])
    caps = split(list(zip(xs, bdims)), attrs.branches, n + 1)

    def batched(out_bdims):
        return [ctx.vectorize(fn, op_bdims, c, out_bdims) for fn, c in zip(attrs.branches, caps)]

    if ib is None:  # one branch runs for every lane: a cond of the vectorized branches
        first = batched(None)
        want = [None if all(got[j] is None for _, got in first) else 0 for j in range(len(first[0][1]))]
        fns = [fn for fn, _ in (first if all(got == want for _, got in first) else batched(want))]
        return cond_call(index, fns, operands, name="cond"), want
    # lanes pick different branches: run every branch and pick per lane (the last one out of range)
    graph = current_graph()
    outs = [inline(fn, graph, operands) for fn, _ in batched([0] * len(attrs.branches[0].results))]
    index = batched_at(index, ib, ctx.size)
    picked = outs[-1]
    for i in reversed(range(len(outs) - 1)):
        hit = compare(index, shape.broadcast_in_dim(constant(i, dtypes.int32), index.type.shape, ()), "EQ")
        picked = [lane_select(hit, a, b) for a, b in zip(outs[i], picked)]
    return picked, [0] * len(picked)


def _cond_vary(ctx, attrs: CondAttrs, vary):
    """Inside sg.spmd: a result varies along what any branch makes it vary along, and the index's axes."""
    n = len(attrs.branches[0].params)
    outs = [ctx.body(fn, list(vary[1 : 1 + n]) + caps)
            for fn, caps in zip(attrs.branches, split(vary, attrs.branches, 1 + n))]  # fmt: skip
    return [frozenset(vary[0]).union(*col) for col in zip(*outs)]


cond_op = OpDef(
    "cond",
    _cond_infer,
    _cond_lower,
    attrs=CondAttrs,
    vjp=_cond_vjp,
    jvp=_cond_jvp,
    batch=_cond_batch,
    vary=_cond_vary,
    doc="Runs the branch chosen by an int32 index on the operands; stablehlo.case.",
)


def cond_call(index: Tensor, branches, operands, name: str | None = None) -> list[Tensor]:
    """Bind cond_op: ``branches[index](*operands)``, each branch's captures passed as inputs."""
    caps = [c for fn in branches for c in fn.captures]
    node = bind_node(cond_op, [index, *operands, *caps], CondAttrs(branches=tuple(branches)), name=name)
    return list(node.outputs)
