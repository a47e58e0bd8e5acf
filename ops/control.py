"""Control-flow primitives whose bodies are Functions: cond, while and scan (ops layer).

cond lowers to stablehlo.case; while and scan to stablehlo.while. A scan is
a loop of known length over stacked inputs, which is what makes it
reverse-differentiable.

A body is a Function held as an attribute. Tensors of the enclosing graph
that a body reads are its *captures*: the node takes them as extra inputs
after the operands, and the lowering hands them to the body, which StableHLO
lets a region read from above. The user API (sg.cond, sg.scan, ...) is in
ops/control_api.py; the cond and scan vjps need the reverse pass, so they
live in transforms/control_ad.py and are attached to the OpDefs there.
"""

from __future__ import annotations

from ..graph import Attrs, Function, FunctionAttr, GraphError, OpDef, ShapeAttr, Tensor, TensorType, dtypes
from ..graph.function import bind_symbols, substitute_dim
from . import hlo
from .registry import bind_node


def _types(types) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _out_types(fn: Function, arg_types, what: str) -> tuple[TensorType, ...]:
    """fn's result types when called on ``arg_types`` (its symbols renamed to the arguments')."""
    params = [p.type for p in fn.params + fn.capture_params]
    if len(params) != len(arg_types):
        raise GraphError(f"{what} takes {len(params)} values, got {len(arg_types)}")
    subst = bind_symbols(params, arg_types, what)
    return tuple(TensorType(tuple(substitute_dim(d, subst) for d in t.shape), t.dtype) for t in fn.out_types)


def _split(values, fns, start: int) -> list[list]:
    """Each Function's slice of the captured values, which follow one another from ``start``."""
    out = []
    for fn in fns:
        out.append(list(values[start : start + len(fn.capture_params)]))
        start += len(fn.capture_params)
    return out


# -- cond (stablehlo.case) -----------------------------------------------------------------------
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
    caps = _split(rest, branches, n)
    outs = [_out_types(b, list(rest[:n]) + c, f"cond branch {i} ({b.name})") for i, (b, c) in
            enumerate(zip(branches, caps))]  # fmt: skip
    for i, (b, o) in enumerate(zip(branches, outs)):
        if o != outs[0]:
            raise GraphError(
                f"cond wants every branch to return the same types, got {_types(outs[0])} from branch 0 "
                f"({branches[0].name}) and {_types(o)} from branch {i} ({b.name})"
            )
    return outs[0]


def _cond_lower(ctx, attrs: CondAttrs, index, *rest):
    n = len(attrs.branches[0].params)
    operands = list(rest[:n])
    caps = _split(rest, attrs.branches, n)
    thunks = [
        (lambda fn=fn, c=c: ctx.lower_function(fn, operands + c)) for fn, c in zip(attrs.branches, caps)
    ]
    return hlo.case(index, [hlo.tensor_type(t) for t in ctx.out_types], thunks)


cond_op = OpDef(
    "cond",
    _cond_infer,
    _cond_lower,
    attrs=CondAttrs,
    reasons={"batch": "not written yet"},  # vjp: attached by transforms/control_ad.py
    doc="Runs the branch chosen by an int32 index on the operands; stablehlo.case.",
)


def cond_call(index: Tensor, branches, operands, name: str | None = None) -> list[Tensor]:
    """Bind cond_op: ``branches[index](*operands)``, each branch's captures passed as inputs."""
    caps = [c for fn in branches for c in fn.captures]
    node = bind_node(cond_op, [index, *operands, *caps], CondAttrs(branches=tuple(branches)), name=name)
    return list(node.outputs)


# -- while (stablehlo.while) ---------------------------------------------------------------------
class WhileAttrs(Attrs):
    cond_fn: FunctionAttr  # (carry..., its captures...) -> bool scalar
    body_fn: FunctionAttr  # (carry..., its captures...) -> carry


def _while_infer(attrs: WhileAttrs, *in_types: TensorType) -> tuple[TensorType, ...]:
    cond, body = attrs.cond_fn, attrs.body_fn
    n = len(body.params)
    carry = list(in_types[:n])
    ccap, bcap = _split(in_types, [cond, body], n)
    pred = _out_types(cond, carry + ccap, f"while_loop cond {cond.name}")
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype is not dtypes.bool_:
        raise GraphError(f"while_loop cond {cond.name} must return one bool scalar, got {_types(pred)}")
    outs = _out_types(body, carry + bcap, f"while_loop body {body.name}")
    if list(outs) != carry:
        raise GraphError(
            f"while_loop body {body.name} must keep the carry's types: it takes {_types(carry)} "
            f"and returns {_types(outs)}"
        )
    return tuple(carry)


def _while_lower(ctx, attrs: WhileAttrs, *values):
    cond, body = attrs.cond_fn, attrs.body_fn
    n = len(body.params)
    ccap, bcap = _split(values, [cond, body], n)
    return hlo.while_loop(
        values[:n],
        lambda *c: ctx.lower_function(cond, list(c) + ccap),
        lambda *c: ctx.lower_function(body, list(c) + bcap),
    )


while_op = OpDef(
    "while",
    _while_infer,
    _while_lower,
    attrs=WhileAttrs,
    reasons={
        "vjp": "a loop of unknown length: give sg.while_loop a bound with max_steps=, or give "
        "sg.fori_loop Python int bounds",
        "batch": "not written yet",
    },
    doc="Repeats body_fn on the carry while cond_fn holds; stablehlo.while.",
)


def while_call(cond: Function, body: Function, init, name: str | None = None) -> list[Tensor]:
    """Bind while_op on the carry ``init``, the bodies' captures passed as inputs."""
    inputs = [*init, *cond.captures, *body.captures]
    node = bind_node(while_op, inputs, WhileAttrs(cond_fn=cond, body_fn=body), name=name)
    return list(node.outputs)


# -- scan (stablehlo.while over a counter) -------------------------------------------------------
class ScanAttrs(Attrs):
    body: FunctionAttr  # (carry..., x_t..., its captures...) -> (carry..., y_t...)
    length_shape: ShapeAttr  # (number of steps,): an int or a symbol
    reverse: bool = False  # walk the steps from the last (ys are written at the step's own index)
    num_carry: int
    remat: bool = False  # its vjp saves only the carries and recomputes each step (sg.checkpoint)
    # tensors of body (node index, output index) also stacked as outputs, after the ys: what the
    # vjp's forward scan saves per step (simplify merges a scan into one that saves more)
    saved: tuple[tuple[int, int], ...] = ()
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
    outs = _out_types(body, args, f"scan body {body.name}")
    if list(outs[:nc]) != carry:
        raise GraphError(
            f"scan body {body.name} must keep the carry's types: it takes {_types(carry)} "
            f"and returns {_types(outs[:nc])}"
        )
    subst = bind_symbols([p.type for p in body.params + body.capture_params], args, f"scan body {body.name}")
    for ni, oi in attrs.saved:
        t = body.graph.nodes[ni].outputs[oi].type
        outs = (*outs, TensorType(tuple(substitute_dim(d, subst) for d in t.shape), t.dtype))
    return (*carry, *(TensorType((n, *t.shape), t.dtype) for t in outs[nc:]))


def _scan_lower(ctx, attrs: ScanAttrs, *values):
    body, nc = attrs.body, attrs.num_carry
    nx = len(body.params) - nc
    carry, xs, caps = list(values[:nc]), list(values[nc : nc + nx]), list(values[nc + nx :])
    (n,) = ctx.concrete(TensorType(attrs.length_shape, dtypes.int32)).shape
    x_types = ctx.in_types[nc : nc + nx]
    y_types = ctx.out_types[nc:]
    ys = [hlo.full(t.shape, 0, t.dtype) for t in y_types]

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
        extra = [body.graph.nodes[ni].outputs[oi] for ni, oi in attrs.saved]
        outs = ctx.lower_function(body, list(state[:nc]) + x_t + caps, extra)
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


scan_op = OpDef(
    "scan",
    _scan_infer,
    _scan_lower,
    attrs=ScanAttrs,
    reasons={"batch": "not written yet"},  # vjp: attached by transforms/control_ad.py
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
