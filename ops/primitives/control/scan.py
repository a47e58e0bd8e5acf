"""The scan primitive: a loop of known length over stacked inputs; stablehlo.while (ops layer).

A scan is a stablehlo.while over a counter that reads step ``i`` of the
stacked ``xs`` and writes step ``i`` of the stacked ``ys``. Knowing its
length is what makes it reverse-differentiable: the vjp stacks, per step,
the forward values the step's backward reads (a copy of the scan that also
stacks them; simplify merges it with the original, so the forward loop runs
once) and runs the backward in a scan the other way, whose carry is the
carry's cotangent plus the captures' cotangents summed over the steps. With
``remat`` it stacks only the carry entering each step and the backward
recomputes the step (sg.checkpoint no longer sets it: a checkpointed body
holds a checkpoint node, whose own vjp keeps the step's inputs and what its
policy saves, ops/checkpoint.py).

Under vectorize the body is vectorized with the carry's batch axes at a
fixed point (a carry the body makes batched goes in batched) and the xs'
batch axis behind the steps; batched ys come out with the batch at axis 1.
"""

from __future__ import annotations

from ....graph import (
    Attrs,
    Function,
    FunctionAttr,
    GraphError,
    OpDef,
    ShapeAttr,
    Tensor,
    TensorType,
    dtypes,
    function,
)
from .. import ad_util, hlo
from ..batching import batched_at
from ..registry import bind_node
from .common import TangentStep, carry_bdims, first_index, out_types, row, types_str
from .scan_steps import Step, split_residuals


class ScanAttrs(Attrs):
    body: FunctionAttr  # (carry..., x_t..., its captures...) -> (carry..., y_t...)
    length_shape: ShapeAttr  # (number of steps,): an int or a symbol
    reverse: bool = False  # walk the steps from the last (ys are written at the step's own index)
    num_carry: int
    remat: bool = False  # its vjp saves only the carries and recomputes each step
    unroll: int = 1  # steps per loop iteration in the lowering (0: all of them); results are the same


def _scan_infer(attrs: ScanAttrs, *in_types: TensorType) -> tuple[TensorType, ...]:
    body, nc = attrs.body, attrs.num_carry
    (n,) = attrs.length_shape
    nx = len(body.params) - nc
    carry, xs = list(in_types[:nc]), list(in_types[nc : nc + nx])
    for x in xs:
        if x.ndim == 0 or x.shape[0] != n:
            raise GraphError(f"scan wants xs with {n} steps along their leading axis, got {x}")
    x_t = [TensorType(x.shape[1:], x.dtype) for x in xs]
    args = carry + x_t + list(in_types[nc + nx :])
    outs = out_types(body, args, f"scan body {body.name}")
    if list(outs[:nc]) != carry:
        raise GraphError(
            f"scan body {body.name} must keep the carry's types: it takes {types_str(carry)} "
            f"and returns {types_str(outs[:nc])}"
        )
    return (*carry, *(TensorType((n, *t.shape), t.dtype) for t in outs[nc:]))


def _scan_lower(ctx, attrs: ScanAttrs, *values):
    body, nc = attrs.body, attrs.num_carry
    nx = len(body.params) - nc
    carry, xs, caps = list(values[:nc]), list(values[nc : nc + nx]), list(values[nc + nx :])
    (n,) = ctx.concrete(TensorType(attrs.length_shape, dtypes.int32)).shape
    x_types = ctx.in_types[nc : nc + nx]
    y_types = ctx.out_types[nc:]
    ys = [hlo.full(t.shape, 0, t.dtype) for t in y_types]
    if n == 0:  # no step runs: the carry as given, empty ys (a body over empty xs would not verify)
        return [*carry, *ys]

    per_iter = n if attrs.unroll == 0 else max(1, min(attrs.unroll, n))
    looped = n - n % per_iter if n else 0

    def cond(i, *_):
        return hlo.compare(i, hlo.constant(looped, dtypes.int32), "LT", dtypes.int32)

    def one_step(i, state):
        t = hlo.sh.subtract(hlo.constant(n - 1, dtypes.int32), i) if attrs.reverse else i
        zero = hlo.constant(0, dtypes.int32)
        x_t = []
        for x, ty in zip(xs, x_types):
            window = hlo.sh.dynamic_slice(x, [t] + [zero] * (ty.ndim - 1), hlo.dense_i64((1, *ty.shape[1:])))
            x_t.append(hlo.sh.reshape(hlo.tensor_type(TensorType(ty.shape[1:], ty.dtype)), window))
        outs = ctx.lower_function(body, list(state[:nc]) + x_t + caps)
        new_ys = []
        for buf, y, ty in zip(state[nc:], outs[nc:], y_types):
            row = hlo.sh.reshape(hlo.tensor_type(TensorType((1, *ty.shape[1:]), ty.dtype)), y)
            new_ys.append(hlo.sh.dynamic_update_slice(buf, row, [t] + [zero] * (ty.ndim - 1)))
        return hlo.sh.add(i, hlo.constant(1, dtypes.int32)), [*outs[:nc], *new_ys]

    def step(i, *state):
        state = list(state)
        for _ in range(per_iter):  # unrolled: several steps per trip around the loop
            i, state = one_step(i, state)
        return [i, *state]

    out = hlo.while_loop([hlo.constant(0, dtypes.int32), *carry, *ys], cond, step)
    i, state = out[0], list(out[1:])
    for _ in range(n - looped):  # the steps left over, straight after the loop
        i, state = one_step(i, state)
    return state


def _scan_vjp(ctx, attrs: ScanAttrs, xs, ys, cts):
    body, nc = attrs.body, attrs.num_carry
    nx = len(body.params) - nc
    init, seqs, caps = list(xs[:nc]), list(xs[nc : nc + nx]), list(xs[nc + nx :])
    (length,) = attrs.length_shape
    dc = [j for j in range(nc) if ad_util.is_differentiable(init[j])]
    dx = [k for k in range(nx) if ad_util.is_differentiable(seqs[k])]
    # a tensor captured twice (after sharing) gets its whole cotangent at its first place
    dk = [m for m, c in enumerate(caps) if ad_util.is_differentiable(c) and first_index(caps, c) == m]
    live = [
        k for k in range(len(ys) - nc) if cts[nc + k] is not None and ad_util.is_differentiable(ys[nc + k])
    ]
    if not (dc or dx or dk):
        return [None] * len(xs)
    ct_init = [cts[j] if cts[j] is not None else ad_util.zeros_like(ys[j]) for j in dc]
    acc_init = [ad_util.zeros_like(caps[m]) for m in dk]
    ct_ys = [cts[nc + k] for k in live]
    rows = [t.type for t in init] + [row(t) for t in seqs]
    lead = [t.type for t in ct_init + acc_init]
    step = Step(ctx, body, nx, caps, dc, dx, dk, live)
    full = function(step, lead + rows + [row(t) for t in ct_ys], name=f"{body.name}_vjp")
    n_lead = len(lead)
    if attrs.remat:  # save only the carry entering each step; the backward recomputes the step
        saved = list(full.params[n_lead : n_lead + nc + nx])
        bwd_fn = ctx.simplify(full)
    else:  # save what the backward reads
        saved, bwd_fn = split_residuals(full, step, n_lead, nc + nx)
    # a forward scan stacking the residuals not already stacked (xs themselves are)
    x_params = dict(zip(full.params[n_lead + nc : n_lead + nc + nx], seqs))
    own = [t for t in saved if t not in x_params]
    if own:  # the same scan, its body also returning the tensors the backward reads (stacked as ys)
        inverse = {copy: t for t, copy in step.env.items()}
        res_attrs = attrs.model_copy(update={"body": body.with_results(inverse[t] for t in own)})
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


def _scan_jvp(ctx, attrs: ScanAttrs, xs, ys, tangents):
    """One scan carrying the tangents beside the values: each step runs the body and its forward pass.

    The carries with a tangent are those given one and those the body gives one from another (a
    fixed point over the body's tangent pattern); the ys with a tangent come out stacked too. No vjp
    is built and nothing is stacked for a backward scan, as transposing the vjp would; the new scan
    computes the values too (ctx.same_values), so the first one drops out when nothing else reads it.
    """
    body, nc = attrs.body, attrs.num_carry
    nx = len(body.params) - nc
    init, seqs, caps = list(xs[:nc]), list(xs[nc : nc + nx]), list(xs[nc + nx :])
    diff = ad_util.is_differentiable
    has = [t is not None and diff(x) for x, t in zip(xs, tangents)]
    tc = [j for j in range(nc) if has[j]]
    tx = [k for k in range(nx) if has[nc + k]]
    tk = [m for m in range(len(caps)) if has[nc + nx + m]]
    while True:
        step = TangentStep(ctx, body, nc, caps, tc, tx, [tangents[nc + nx + m] for m in tk], tk)
        types = [t.type for t in init] + [init[j].type for j in tc]
        types += [row(t) for t in seqs] + [row(seqs[k]) for k in tx]
        fn = function(step, types, name=f"{body.name}_jvp")
        grown = sorted(set(tc) | {j for j in step.carry_out if diff(init[j])})
        if grown == tc:
            break
        tc = grown
    t_init = [tangents[j] if tangents[j] is not None else ad_util.zeros_like(init[j]) for j in tc]
    (length,) = attrs.length_shape
    out = scan_call(
        fn, init + t_init, seqs + [tangents[nc + k] for k in tx], length, attrs.reverse, attrs.remat,
        name="scan_jvp", unroll=attrs.unroll,
    )  # fmt: skip
    n_y = len(ys) - nc
    for j in range(nc):  # the new scan computes the values too: later nodes build on its
        ctx.same_values(ys[j], out[j])
    for k in range(n_y):
        ctx.same_values(ys[nc + k], out[nc + len(tc) + k])
    result: list = [None] * len(ys)
    for i, j in enumerate(tc):
        result[j] = out[nc + i]
    for i, k in enumerate(step.ys_out):
        result[nc + k] = out[nc + len(tc) + n_y + i]
    return result


def _scan_batch(ctx, attrs: ScanAttrs, xs, bdims):
    body, nc = attrs.body, attrs.num_carry
    nx = len(body.params) - nc
    full = body
    # a batched xs has the batch at axis 1, behind the steps: each step's slice has it at 0
    seqs = [x if b is None else batched_at(x, b, ctx.size, 1) for x, b in zip(xs[nc : nc + nx], bdims[nc:])]
    x_bdims = [None if b is None else 0 for b in bdims[nc : nc + nx]]
    caps = list(zip(xs[nc + nx :], bdims[nc + nx :]))
    carry = carry_bdims(lambda c: ctx.vectorize(full, c + x_bdims, caps)[1][:nc], bdims[:nc])
    fn, out_bdims = ctx.vectorize(full, carry + x_bdims, caps, carry + [None] * (len(full.results) - nc))
    init = [x if c is None else batched_at(x, b, ctx.size) for x, b, c in zip(xs, bdims, carry)]
    (length,) = attrs.length_shape
    outs = scan_call(fn, init, seqs, length, attrs.reverse, attrs.remat, name="scan", unroll=attrs.unroll)
    return outs, carry + [None if b is None else b + 1 for b in out_bdims[nc:]]


def _scan_subsumes(big: ScanAttrs, small: ScanAttrs):
    """A scan whose body extends ``small``'s (more results, same graph) computes all it does: the
    vjp's residual scan and the forward scan it copies. Each small output's index among big's."""
    if big.model_copy(update={"body": small.body}) != small or not big.body.extends(small.body):
        return None
    nc, results = small.num_carry, big.body.results
    where = [
        next((i for i in range(nc, len(results)) if results[i] is r), None) for r in small.body.results[nc:]
    ]
    if any(i is None for i in where):
        return None
    return list(range(nc)) + where


def _scan_vary(ctx, attrs: ScanAttrs, vary):
    """Inside sg.spmd: the carry to a fixed point (it varies along what the body makes it vary along),
    then the ys as the body gives them."""
    nc = attrs.num_carry
    carry, rest = [frozenset(v) for v in vary[:nc]], list(vary[nc:])
    while True:
        outs = ctx.body(attrs.body, carry + rest)
        new = [c | o for c, o in zip(carry, outs[:nc])]
        if new == carry:
            return carry + outs[nc:]
        carry = new


scan_op = OpDef(
    "scan",
    _scan_infer,
    _scan_lower,
    attrs=ScanAttrs,
    vjp=_scan_vjp,
    jvp=_scan_jvp,
    batch=_scan_batch,
    vary=_scan_vary,
    subsumes=_scan_subsumes,
    doc="Loops body over the leading axis of xs with a carry, stacking the per-step ys; stablehlo.while.",
)


def scan_call(
    body: Function,
    init,
    xs,
    length,
    reverse: bool = False,
    remat: bool = False,
    name: str | None = None,
    unroll: int = 1,
) -> list[Tensor]:
    """Bind scan_op: ``length`` steps of ``body`` from carry ``init`` over stacked ``xs``; carry, then ys."""
    inputs = [*init, *xs, *body.captures]
    attrs = ScanAttrs(
        body=body, length_shape=(length,), reverse=reverse, num_carry=len(init), remat=remat, unroll=unroll
    )
    return list(bind_node(scan_op, inputs, attrs, name=name).outputs)
