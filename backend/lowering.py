"""Lowering a pruned graph to a StableHLO module with the MLIR builders (backend).

One loop over nodes in graph order: look up each input's MLIR value, call
the op's ``lower`` rule under the node's location (its name around the
user's file:line), remember its results. Fed tensors and placeholders become
the arguments of ``func.func @main``; fetches its results.

On a mesh the module is an SPMD program in Shardy's terms: it declares
``sdy.mesh @mesh`` and ``mhlo.num_partitions``, and the arguments and
results the Session lays out carry ``sdy.sharding`` attributes; XLA
propagates the rest (a one-device mesh is lowered the same way). Rules read the mesh from
``ctx.mesh`` (None without one), its symbol as ``ctx.mesh.symbol``, its axis sizes as
``ctx.mesh.shape``.
"""

from __future__ import annotations

from ..graph import CompileError, FeedError, GraphError, TensorType, located
from ..graph.dims import evaluate, substitute, symbols
from ..graph.function import bind_symbols
from ..graph.printing import held_functions
from ..graph.rewrite import Walk
from ..graph.rule_context import RuleContext, Services
from ..ops.primitives import hlo
from ..sharding import Mesh, sdy_mesh, sdy_sharding


class LoweringPass(Services):
    """What the lowering of one module offers lower rules (besides the node's concrete types, the
    bindings, the mesh, the platform and the training switch's value, fields of their context):
    a body lowered inline, the host callbacks the program is compiled with, and the token that
    orders its ordered effects (one chain per body: a loop body's effects run in order in every
    iteration)."""

    name = "the lowering"

    def __init__(self, nodes=(), effects: bool = True):
        self.effects = effects  # False: the user's effects (prints, checks) are left out
        self.originals = _original_effects(nodes)
        self.host_callbacks: list = []
        self.calls_kernels = any("foreign_call" in n.op.traits for n in _all_nodes(nodes))  # sg.ffi_call
        self._tokens: list = [None]  # the last ordered effect's token, per body being lowered

    def lower_function(self, ctx, fn, values, extra=()) -> list:
        """Emit a Function's body inline on ``values`` (its params, then its captures).

        Returns the values of its results, then of the tensors of ``fn`` in ``extra``.
        """
        params = fn.params + fn.capture_params
        env = dict(zip(params, values))
        bindings = _body_bindings(params, values, ctx.bindings, fn.name)
        self._tokens.append(None)
        try:
            Walk(env).run(fn.graph.nodes, _lowering(self, bindings, ctx.mesh, ctx.platform, ctx.training))
        finally:
            self._tokens.pop()
        return [env[r] for r in (*fn.results, *extra)]

    def host_callback(self, ctx, fn) -> int:
        self.host_callbacks.append(fn)
        return len(self.host_callbacks) - 1

    def runs_effects(self, ctx) -> bool:
        return self.effects

    def runs_elsewhere(self, ctx, key) -> bool:
        return key in self.originals

    def effect_token(self, ctx):
        return self._tokens[-1]

    def set_effect_token(self, ctx, value) -> None:
        self._tokens[-1] = value


def _all_nodes(nodes):
    """``nodes`` and the nodes of the bodies they hold, at any depth."""
    pending = list(nodes)
    while pending:
        node = pending.pop()
        yield node
        pending.extend(n for fn in held_functions(node) for n in fn.graph.nodes)


def _original_effects(nodes) -> set:
    """The keys of the effects among ``nodes`` and the bodies they hold that are not a vjp's
    recomputed copies."""
    keys, pending = set(), list(nodes)
    while pending:
        node = pending.pop()
        if "effect" in node.op.traits and not node.attrs.recomputed:
            keys.add(node.attrs.effect_key())
        pending.extend(n for fn in held_functions(node) for n in fn.graph.nodes)
    return keys


class ModuleText(str):
    """A lowered module's StableHLO text, with the Python functions its host callbacks call
    (``host_callbacks``, by their index): compiling it needs both. ``portable``: the text
    without source locations (what the persistent compile cache keys on)."""

    host_callbacks: tuple = ()
    portable: str = ""


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


def lower_module(
    nodes,
    args,
    fetches,
    bindings,
    aliases=None,
    mesh=None,
    shardings=None,
    platform="cpu",
    training=False,
    effects=True,
) -> str:
    """StableHLO text of main(args) -> fetches over ``nodes`` (in graph order), to run on ``platform``;
    ``training``: the run writes variables itself (the training switch's value unless fed).
    ``effects=False`` leaves the user's effects out (prints, callbacks, checks: a diagnostic
    program runs without them). Returns a ModuleText.

    ``aliases`` maps argument positions to the result each is donated to (not in a program
    with host callbacks: a callback that raises fails the run, and the Session's variables must
    outlive it). With
    a ``mesh``, ``shardings`` = (argument specs, result specs) gives each a
    PartitionSpec, or None to let XLA choose.
    """
    lowering = LoweringPass(nodes, effects)
    with hlo.new_context(), hlo.ir.Location.unknown():
        module = hlo.ir.Module.create()
        arg_types = [hlo.tensor_type(concrete_type(t, bindings)) for t in args]
        with hlo.ir.InsertionPoint(module.body):

            @hlo.func.FuncOp.from_py_func(*arg_types, name="main")
            def main(*values):
                env = (
                    Walk(dict(zip(args, values)))
                    .run(nodes, _lowering(lowering, bindings, mesh, platform, training))
                    .env
                )
                return [env[t] for t in fetches]

        main.func_op.attributes["sym_visibility"] = hlo.ir.StringAttr.get("public")
        if lowering.host_callbacks or lowering.calls_kernels:
            aliases = None
        if mesh is not None:
            _partition(module, main.func_op, mesh, aliases or {}, shardings or ((), ()))
        elif aliases:
            hlo.alias_arguments(main.func_op, len(args), aliases)
        try:
            module.operation.verify()
        except hlo.ir.MLIRError as e:
            raise GraphError(f"internal error: the lowered module does not verify: {e}") from None
        text = ModuleText(module.operation.get_asm(enable_debug_info=True))
        text.host_callbacks = tuple(lowering.host_callbacks)
        text.portable = module.operation.get_asm(enable_debug_info=False)
        return text


def _partition(module, func_op, mesh: Mesh, aliases: dict, shardings) -> None:
    """Make ``module`` an SPMD program over ``mesh``: the mesh, partition count, and the
    arguments' and results' ``sdy.sharding`` (with the donations)."""
    ir = hlo.ir
    i32 = ir.IntegerType.get_signless(32)
    module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, mesh.size)
    module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
    with ir.InsertionPoint.at_block_begin(module.body):
        ir.Operation.create(
            "sdy.mesh",
            attributes={
                "sym_name": ir.StringAttr.get(mesh.symbol),
                "mesh": ir.Attribute.parse(sdy_mesh(mesh)),
            },
        )
    arg_specs, result_specs = shardings
    fn_type = ir.FunctionType(ir.TypeAttr(func_op.attributes["function_type"]).value)

    def attrs(types, specs, extra) -> ir.ArrayAttr:
        dicts = []
        for i, ty in enumerate(types):
            entries = dict(extra.get(i, {}))
            spec = specs[i] if i < len(specs) else None
            if spec is not None:
                rank = len(ir.RankedTensorType(ty).shape)
                entries["sdy.sharding"] = ir.Attribute.parse(sdy_sharding(spec, rank))
            dicts.append(ir.DictAttr.get(entries))
        return ir.ArrayAttr.get(dicts)

    donated = {i: {"tf.aliasing_output": ir.IntegerAttr.get(i32, k)} for i, k in aliases.items()}
    func_op.arg_attrs = attrs(fn_type.inputs, arg_specs, donated)
    func_op.result_attrs = attrs(fn_type.results, result_specs, {})


def _lowering(lowering: LoweringPass, bindings, mesh=None, platform="cpu", training=False):
    """The visit that lowers one node: its op's rule under the node's MLIR location."""

    def lower_node(walk, node) -> list:
        if any(out in walk.env for out in node.outputs):
            return [walk.env.get(out) for out in node.outputs]  # fed: its value is an argument already
        ctx = RuleContext(
            lowering, node.op, node,
            in_types=tuple(concrete_type(t, bindings) for t in node.inputs),
            out_types=tuple(concrete_type(o, bindings) for o in node.outputs),
            bindings=bindings, mesh=mesh, platform=platform, training=training,
        )  # fmt: skip
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
