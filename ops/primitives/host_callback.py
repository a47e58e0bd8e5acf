"""The host-callback primitives: Python functions a compiled program calls (ops layer).

Both lower to XLA's Python callback custom call (``xla_ffi_python_cpu_callback`` on
CPU, the CUDA plugin's ``xla_ffi_python_gpu_callback`` on GPU): its
``backend_config`` index picks one of the Python functions the program is
compiled with, which the lowering collects (``ctx.host_callback``).

- ``pure_callback``: a function of its inputs with declared result types. It
  may be dropped when nothing uses its results and has no derivative of its
  own (sg.custom_vjp gives it one); vectorize calls it as its ``vmap_method``
  says.
- ``debug_callback``: called for what it does (print, log): an EFFECT, with
  no outputs, run whenever its inputs are computed (also in every run of a
  loop body), never shared or folded. Ordered ones run in graph order: the
  lowering threads a token value from each into the next (ctx.effect_token).

A Python exception in a callback fails the run; the Bound function the
program called keeps it (``failure``), so the Session raises an
ExecutionError naming the node and the user's line, with the Python
exception (and its traceback) as its cause.
"""

from __future__ import annotations

import threading

import numpy as np

from ...graph import (
    EFFECT,
    HOST_CALLBACK,
    ZERO_DERIVATIVE,
    Attrs,
    GraphError,
    OpDef,
    TensorType,
    dtypes,
    located,
)
from ...graph.attrs import DTypeAttr, ShapeAttr
from . import batching, hlo
from .hlo import ir, sh
from .registry import bind_node

VMAP_METHODS = ("sequential", "expand_dims", "broadcast_all")
_LANES = threading.local()  # the lane a vectorized callback is being called for (debug.print reads it)


class CheckFailed(Exception):
    """Raised by the function of a run-time check (sg.debug.check_numerics, sg.debug.assert_)
    that failed; the Session reports it as an ExecutionError at the check's line."""


class HostFunction:
    """A Python function a program calls back, and what the call needs at run time.

    ``fn`` takes and returns numpy arrays; ``what`` names the API that made it
    (for messages); ``location`` is where the user built it; ``lanes`` says
    how vectorize batched it: one level per vectorize, outermost first, each
    the batch axis of every argument (None: not batched). A batched function
    is called once per lane (outer levels first), its results stacked on a
    new leading axis per level.
    """

    __slots__ = ("fn", "what", "location", "lanes", "diagnostic")

    def __init__(self, fn, what: str, location, lanes: tuple = (), diagnostic: bool = False):
        self.fn, self.what, self.location, self.lanes = fn, what, location, lanes
        self.diagnostic = diagnostic  # the library's own (find_nonfinite's recorders): never left out

    def __repr__(self) -> str:
        lanes = f" lanes={list(self.lanes)}" if self.lanes else ""
        return f"<{self.what} {self.fn!r}{lanes}>"

    def batched(self, axes: tuple) -> HostFunction:
        """This function under one more vectorize, whose batch axes are ``axes`` (per argument)."""
        return HostFunction(self.fn, self.what, self.location, (tuple(axes), *self.lanes), self.diagnostic)

    def call(self, arrays, n_results: int) -> list:
        """The results of calling ``fn`` on ``arrays``, lane by lane if batched."""
        return _per_lane(self.fn, list(arrays), self.lanes, (), n_results)


def _per_lane(fn, arrays, lanes, at: tuple, n_results: int) -> list:
    if not lanes:
        _LANES.value = at
        try:
            out = fn(*arrays)
        finally:
            _LANES.value = ()
        return _as_results(out, n_results)
    axes, inner = lanes[0], lanes[1:]
    size = next(a.shape[b] for a, b in zip(arrays, axes) if b is not None)
    per_lane = [
        _per_lane(fn, [a if b is None else np.take(a, i, axis=b) for a, b in zip(arrays, axes)], inner,
                  (*at, i), n_results)
        for i in range(size)
    ]  # fmt: skip
    return [np.stack([lane[k] for lane in per_lane]) for k in range(n_results)]


def _as_results(out, n: int) -> list:
    if n == 0:
        return []
    leaves = list(out) if isinstance(out, list | tuple) else [out]
    if len(leaves) != n:
        raise TypeError(f"the callback returned {len(leaves)} results, its result types declare {n}")
    return [np.asarray(v) for v in leaves]


def current_lanes() -> tuple:
    """The lane indices (outermost first) of the vectorized callback being called, () if none."""
    return getattr(_LANES, "value", ())


class Bound:
    """What a compiled program calls: a HostFunction with the node it belongs to, the concrete
    result types that program declares (results are checked and cast to them), and the ordering
    token it passes along. ``failure``: the exception of its last failed call, kept for the
    Session to report (``take_failure``)."""

    __slots__ = ("function", "node", "out_types", "takes_token", "gives_token", "failure")

    def __init__(self, function: HostFunction, node, out_types, takes_token: bool, gives_token: bool):
        self.function, self.node, self.out_types = function, node, out_types
        self.takes_token, self.gives_token = takes_token, gives_token
        self.failure: BaseException | None = None

    def __call__(self, *arrays):
        if self.takes_token:
            arrays = arrays[:-1]
        try:
            results = self.function.call(arrays, len(self.out_types))
            results = [_checked(r, ty, k) for k, (r, ty) in enumerate(zip(results, self.out_types))]
        except BaseException as e:
            self.failure = e
            raise
        return (*results, np.True_) if self.gives_token else tuple(results)

    def take_failure(self) -> BaseException | None:
        """The exception its last failed call raised (then forgotten), or None."""
        failure, self.failure = self.failure, None
        return failure


def _checked(value: np.ndarray, ty: TensorType, k: int) -> np.ndarray:
    want = ty.dtype.np
    if tuple(value.shape) != tuple(ty.shape):
        raise TypeError(f"result {k} of the callback has shape {value.shape}, its result type says {ty}")
    if value.dtype != want:
        if not np.can_cast(value.dtype, want, "same_kind"):
            raise TypeError(f"result {k} of the callback is {value.dtype}, its result type says {ty}")
        value = value.astype(want)
    return np.ascontiguousarray(value)


# -- lowering ---------------------------------------------------------------------------------
def _row_major(rank: int) -> ir.Attribute:
    return ir.DenseIntElementsAttr.get(np.arange(rank - 1, -1, -1, dtype=np.int64), type=ir.IndexType.get())


def _emit(ctx, bound: Bound, operands, in_types, out_types, effect: bool) -> list:
    """The custom call running ``bound`` on ``operands``: its results (the token last, if any)."""
    index = ctx.host_callback(bound)
    target = "xla_ffi_python_cpu_callback" if ctx.platform == "cpu" else "xla_ffi_python_gpu_callback"
    results = [hlo.tensor_type(t) for t in out_types]
    u64 = ir.IntegerType.get_unsigned(64)
    attributes = {
        "call_target_name": ir.StringAttr.get(target),
        "has_side_effect": ir.BoolAttr.get(effect),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        "backend_config": ir.DictAttr.get({"index": ir.IntegerAttr.get(u64, index)}),
        "called_computations": ir.ArrayAttr.get([]),
        "operand_layouts": ir.ArrayAttr.get([_row_major(t.ndim) for t in in_types]),
        "result_layouts": ir.ArrayAttr.get([_row_major(t.ndim) for t in out_types]),
    }
    op = sh.CustomCallOp.build_generic(results=results, operands=list(operands), attributes=attributes)
    return list(op.results)


def _token_type() -> TensorType:
    """The type of the value ordered callbacks pass along (a bool scalar)."""
    return TensorType((), dtypes.bool_)


# -- pure_callback ------------------------------------------------------------------------------
class PureCallbackAttrs(Attrs):
    function: HostFunction
    shapes: tuple[ShapeAttr, ...]
    dtypes: tuple[DTypeAttr, ...]
    vmap_method: str | None = None


def _pure_infer(attrs: PureCallbackAttrs, *in_types) -> tuple:
    return tuple(TensorType(s, d) for s, d in zip(attrs.shapes, attrs.dtypes))


def _pure_lower(ctx, attrs: PureCallbackAttrs, *values) -> list:
    bound = Bound(attrs.function, ctx.node, ctx.out_types, takes_token=False, gives_token=False)
    return _emit(ctx, bound, values, ctx.in_types, ctx.out_types, effect=False)


def _pure_batch(ctx, attrs: PureCallbackAttrs, xs, bdims):
    method = attrs.vmap_method
    if method is None:
        raise GraphError(
            located(
                f"{attrs.function.what} cannot be vectorized without a vmap_method: give "
                "vmap_method='sequential' (one call per lane), 'expand_dims' (one call, unbatched "
                "arguments with a size-1 leading axis) or 'broadcast_all' (one call, every argument "
                "broadcast along the batch)",
                ctx.node.location,
                ctx.node.name,
            )
        )
    size = ctx.size
    shapes = tuple((size, *s) for s in attrs.shapes)
    if method == "sequential":
        function, inputs = attrs.function.batched(tuple(bdims)), xs
    else:
        function = attrs.function
        inputs = [batching.leading_or_one(x, b, size, method == "broadcast_all") for x, b in zip(xs, bdims)]
    node = bind_node(ctx.op, inputs, PureCallbackAttrs(
        function=function, shapes=shapes, dtypes=attrs.dtypes, vmap_method=method
    ))  # fmt: skip
    return list(node.outputs), [0] * len(node.outputs)


pure_callback_op = OpDef(
    "pure_callback",
    _pure_infer,
    _pure_lower,
    attrs=PureCallbackAttrs,
    batch=_pure_batch,
    reasons={
        "vjp": "a Python function has no derivative here: wrap the call in sg.custom_vjp to give one",
        "jvp": "a Python function has no derivative here: wrap the call in sg.custom_jvp to give one",
    },
    traits=HOST_CALLBACK,
    doc="A Python function of its inputs, called on the host with numpy arrays, with declared result types.",
)


# -- debug_callback ------------------------------------------------------------------------------
class DebugCallbackAttrs(Attrs):
    function: HostFunction
    ordered: bool = False
    # the first input is a bool predicate, and the program calls the function only when it is
    # False somewhere (a run-time check: passing costs the reduction, not a call to Python)
    guarded: bool = False
    recomputed: bool = False  # a vjp's recomputation of the forward made this copy (graph.inline)

    def effect_key(self) -> int:
        """What copies of one effect share (the forward's and a vjp's recomputed one)."""
        return id(self.function.fn)


def _debug_infer(attrs: DebugCallbackAttrs, *in_types) -> tuple:
    return ()


def _debug_lower(ctx, attrs: DebugCallbackAttrs, *values) -> list:
    if not ctx.runs_effects() and not attrs.function.diagnostic:
        return []
    if attrs.recomputed and ctx.runs_elsewhere(attrs.effect_key()):
        return []  # the program runs the forward's own copy: print once
    operands, in_types = list(values), list(ctx.in_types)
    token = ctx.effect_token() if attrs.ordered else None
    if token is not None:
        operands.append(token)
        in_types.append(_token_type())
    out_types = [_token_type()] if attrs.ordered else []
    bound = Bound(attrs.function, ctx.node, (), takes_token=token is not None, gives_token=attrs.ordered)
    if attrs.guarded:
        _emit_unless(ctx, bound, operands, in_types)
        return []
    results = _emit(ctx, bound, operands, in_types, out_types, effect=True)
    if attrs.ordered:
        ctx.set_effect_token(results[0])
    return []


def _emit_unless(ctx, bound: Bound, operands, in_types) -> None:
    """The callback inside a branch taken only where the predicate (operand 0) is not all True."""
    pred, pred_type = operands[0], in_types[0]
    if pred_type.ndim:
        bool_scalar = hlo.scalar_type(dtypes.bool_)
        reduce = sh.ReduceOp([bool_scalar], [pred], [hlo.constant(np.array(True), dtypes.bool_)],
                             hlo.dense_i64(range(pred_type.ndim)))  # fmt: skip
        hlo.reduce_region(reduce.regions[0], dtypes.bool_, lambda a, b: sh.and_(a, b))
        pred = reduce.results[0]
    index = sh.convert(hlo.scalar_type(dtypes.int32), sh.not_(pred))  # 0: all passed, 1: call

    def call():
        _emit(ctx, bound, operands, in_types, [], effect=True)
        return []

    hlo.case(index, [], [lambda: [], call])


def _debug_vjp(ctx, attrs, xs, ys, cts):
    return [None] * len(xs)  # it prints the primal values; cotangents pass it by


def _debug_batch(ctx, attrs: DebugCallbackAttrs, xs, bdims):
    batched = attrs.function.batched(tuple(bdims))
    bind_node(ctx.op, xs, attrs.model_copy(update={"function": batched}))
    return [], []


def _debug_jvp(ctx, attrs, xs, ys, tangents):
    return []


debug_callback_op = OpDef(
    "debug_callback",
    _debug_infer,
    _debug_lower,
    attrs=DebugCallbackAttrs,
    vjp=_debug_vjp,
    jvp=_debug_jvp,
    batch=_debug_batch,
    traits=EFFECT | HOST_CALLBACK | ZERO_DERIVATIVE,
    doc="A Python function called for what it does (print, log) whenever its inputs are computed.",
)


def pure_callback(function: HostFunction, result_types, args, vmap_method=None):
    """The outputs of a pure_callback node calling ``function`` on ``args``."""
    node = bind_node(pure_callback_op, list(args), PureCallbackAttrs(
        function=function,
        shapes=tuple(tuple(t.shape) for t in result_types),
        dtypes=tuple(t.dtype for t in result_types),
        vmap_method=vmap_method,
    ))  # fmt: skip
    return list(node.outputs)


def debug_callback(function: HostFunction, args, ordered: bool = False, guarded: bool = False) -> None:
    """A debug_callback node calling ``function`` on ``args`` whenever they are computed (with
    ``guarded``, only when ``args[0]``, a bool predicate, is False somewhere)."""
    bind_node(
        debug_callback_op, list(args), DebugCallbackAttrs(function=function, ordered=ordered, guarded=guarded)
    )


__all__ = [
    "Bound",
    "CheckFailed",
    "HostFunction",
    "current_lanes",
    "debug_callback",
    "pure_callback",
    "VMAP_METHODS",
]
