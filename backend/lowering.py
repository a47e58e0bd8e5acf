"""Lowering a pruned graph to a StableHLO module with the MLIR builders (backend).

One loop over nodes in graph order: look up each input's MLIR value, call
the op's ``lower`` rule under the node's location (its name around the
user's file:line), remember its results. Fed tensors and placeholders become
the arguments of ``func.func @main``; fetches its results.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..graph import CompileError, FeedError, GraphError, TensorType, located
from ..graph.dims import evaluate, substitute, symbols
from ..graph.function import bind_symbols
from ..graph.rewrite import Walk
from ..ops import hlo


@dataclass
class LowerContext:
    """What a lowering rule may read: the concrete types of the node it lowers."""

    node: object
    in_types: tuple[TensorType, ...]
    out_types: tuple[TensorType, ...]
    bindings: dict[str, int]

    def concrete(self, ty: TensorType) -> TensorType:
        return ty.evaluate(self.bindings)

    def dim(self, d) -> int:
        """The int value of a dim held in an attribute (an expression in the bound symbols)."""
        try:
            return evaluate(d, self.bindings)
        except KeyError as e:
            raise FeedError(
                located(
                    f"the value of {d} is not known: no feed binds {e.args[0]}",
                    self.node.location,
                    self.node.name,
                )
            ) from None

    def lower_function(self, fn, values, extra=()) -> list:
        """Emit a Function's body inline on ``values`` (its params, then its captures).

        Returns the values of its results, then of the tensors of ``fn`` in ``extra``.
        """
        params = fn.params + fn.capture_params
        env = dict(zip(params, values))
        Walk(env).run(fn.graph.nodes, _lowering(_body_bindings(params, values, self.bindings, fn.name)))
        return [env[r] for r in (*fn.results, *extra)]


def _body_bindings(params, values, bindings, name: str) -> dict:
    """The bindings a body lowers under. A body keeps the symbols it was built with when inlined
    (sg.vectorize's ``vmap``, a Function's own ``n``), and they may differ from, or shadow, the
    enclosing graph's: a symbol that is a whole dim of a param is bound from the size of the value
    it gets; the rest keep the enclosing bindings (``(batch + 1) // 2`` needs ``batch``)."""
    if not any(p.type.symbols for p in params):
        return bindings
    own = {str(d) for p in params for d in p.type.shape if isinstance(d, str) and symbols(d) == (str(d),)}
    outer = {k: v for k, v in bindings.items() if k not in own}
    declared = [TensorType(tuple(substitute(d, outer) for d in p.type.shape), p.type.dtype) for p in params]
    actual = [
        TensorType(tuple(hlo.ir.RankedTensorType(v.type).shape), p.type.dtype) for p, v in zip(params, values)
    ]
    return {**bindings, **bind_symbols(declared, actual, f"function {name}")}


def concrete_type(tensor, bindings) -> TensorType:
    """The tensor's type with every symbol bound; a dim that the feeds make negative
    (``batch - 5`` with batch = 3) is a GraphError at the node that made it."""
    ty = tensor.type
    if ty.is_concrete:
        return ty
    try:
        sizes = [evaluate(d, bindings) for d in ty.shape]
    except KeyError as e:
        raise FeedError(
            located(
                f"the size of dim {e.args[0]} of {ty} is not known from the feeds",
                tensor.node.location,
                tensor.node.name,
            )
        ) from None
    bad = [(d, n) for d, n in zip(ty.shape, sizes) if n < 0]
    if bad:
        spelled = ", ".join(f"{k} = {v}" for k, v in sorted(bindings.items()) if k in ty.symbols)
        raise GraphError(
            located(
                f"dim {bad[0][0]} of {ty} is {bad[0][1]} with {spelled}: the feeds are too small for the "
                "sizes this graph assumed",
                tensor.node.location,
                tensor.node.name,
            )
        )
    return TensorType(tuple(sizes), ty.dtype)


def lower_module(nodes, args, fetches, bindings, aliases=None) -> str:
    """StableHLO text of main(args) -> fetches over ``nodes`` (in graph order).

    ``aliases`` maps argument positions to the result each is donated to.
    """
    with hlo.new_context(), hlo.ir.Location.unknown():
        module = hlo.ir.Module.create()
        arg_types = [hlo.tensor_type(concrete_type(t, bindings)) for t in args]
        with hlo.ir.InsertionPoint(module.body):

            @hlo.func.FuncOp.from_py_func(*arg_types, name="main")
            def main(*values):
                env = Walk(dict(zip(args, values))).run(nodes, _lowering(bindings)).env
                return [env[t] for t in fetches]

        main.func_op.attributes["sym_visibility"] = hlo.ir.StringAttr.get("public")
        if aliases:
            hlo.alias_arguments(main.func_op, len(args), aliases)
        try:
            module.operation.verify()
        except hlo.ir.MLIRError as e:
            raise GraphError(f"internal error: the lowered module does not verify: {e}") from None
        return str(module.operation.get_asm(enable_debug_info=True))


def _lowering(bindings):
    """The visit that lowers one node: its op's rule under the node's MLIR location."""

    def lower_node(walk, node) -> list:
        if any(out in walk.env for out in node.outputs):
            return [walk.env.get(out) for out in node.outputs]  # fed: its value is an argument already
        ctx = LowerContext(
            node,
            tuple(concrete_type(t, bindings) for t in node.inputs),
            tuple(concrete_type(o, bindings) for o in node.outputs),
            bindings,
        )
        rule = node.op.rule("lower")
        try:
            with hlo.node_location(node):
                out = rule(ctx, node.attrs, *(walk.env[t] for t in node.inputs))
        except hlo.ir.MLIRError as e:  # a StableHLO op refused its operands: name the node, not MLIR
            message = f"lowering {node.op.name} failed: {str(e).strip()}"
            raise CompileError(located(message, node.location, node.name)) from None
        outs = list(out) if isinstance(out, list | tuple) else [out]
        if len(outs) != len(node.outputs):
            raise GraphError(
                f"internal error: lowering {node.op.name} gave {len(outs)} values for {len(node.outputs)} outputs"
            )
        return outs

    return lower_node
