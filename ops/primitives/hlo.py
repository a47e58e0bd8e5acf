"""The MLIR builders: the one place ops touch jaxlib's MLIR bindings (ops layer).

Lowering rules get StableHLO ops through this module (``hlo.sh`` is the
stablehlo dialect) plus the helpers here that turn our dtypes, types and
numpy constants into MLIR types and attributes, and build reduction regions.
"""

from __future__ import annotations

import importlib
import io

import numpy as np
from jaxlib import _jax

from ...graph import TensorType, dtypes


class _Deferred:
    """One of jaxlib's MLIR modules, imported when a rule first reads from it: a process whose
    programs all come from the plan store (backend/plan_store.py) lowers nothing, and loading
    the bindings and dialects would cost it ~35 ms. An attribute once read is kept on the
    object, so later reads cost what a module's do."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        if attr.startswith("__"):  # copy, pickle and inspect probe dunders: never an import
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<{self._name}, imported on first use>"


ir = _Deferred("jaxlib.mlir.ir")
sh = _Deferred("jaxlib.mlir.dialects.stablehlo")
chlo = _Deferred("jaxlib.mlir.dialects.chlo")
func = _Deferred("jaxlib.mlir.dialects.func")
sdy = _Deferred("jaxlib.mlir.dialects.sdy")
_jax_mlir_ext = _Deferred("jaxlib.mlir._mlir_libs._jax_mlir_ext")


class _Builder:
    """An op builder of a dialect, named now and looked up at its first call."""

    __slots__ = ("_dialect", "_name", "_fn")

    def __init__(self, dialect: _Deferred, name: str):
        self._dialect, self._name, self._fn = dialect, name, None

    def __call__(self, *args, **kwargs):
        fn = self._fn
        if fn is None:
            fn = self._fn = getattr(self._dialect, self._name)
        return fn(*args, **kwargs)


class builders:
    """A dialect's op builders for tables made at import (``sh = hlo.builders(hlo.sh)``; then
    ``unary("neg", sh.negate, ...)``): each names its builder without importing the dialect."""

    def __init__(self, dialect: _Deferred):
        self._dialect = dialect

    def __getattr__(self, name: str) -> _Builder:
        if name.startswith("__"):
            raise AttributeError(name)
        builder = _Builder(self._dialect, name)
        setattr(self, name, builder)
        return builder


__all__ = ["ir", "sh", "chlo", "func", "sdy", "builders"]


def new_context() -> ir.Context:
    """An MLIR context with the stablehlo, sdy and func dialects loaded."""
    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx.append_dialect_registry(registry)
    sh.register_dialect(ctx)
    chlo.register_dialect(ctx)
    sdy.register_dialect(ctx)
    ctx.load_all_available_dialects()
    return ctx


_FLOATS = {  # the MLIR type class of each float dtype, by name (ir is imported on first use)
    "bfloat16": "BF16Type",
    "float16": "F16Type",
    "float32": "F32Type",
    "float64": "F64Type",
    "float8_e4m3fn": "Float8E4M3FNType",
    "float8_e5m2": "Float8E5M2Type",
    "float8_e4m3fnuz": "Float8E4M3FNUZType",
    "float8_e5m2fnuz": "Float8E5M2FNUZType",
}


def element_type(dt: dtypes.DType) -> ir.Type:
    if dt.kind == "b":
        return ir.IntegerType.get_signless(1)
    if dt.kind == "i":
        return ir.IntegerType.get_signless(dt.bits)
    if dt.kind == "u":
        return ir.IntegerType.get_unsigned(dt.bits)
    if dt.kind == "c":
        return ir.ComplexType.get(ir.F32Type.get() if dt.bits == 64 else ir.F64Type.get())
    return getattr(ir, _FLOATS[dt.name]).get()


def tensor_type(ty: TensorType) -> ir.RankedTensorType:
    """The MLIR type of a concrete TensorType."""
    return ir.RankedTensorType.get(list(ty.shape), element_type(ty.dtype))


def dense_attr(value: np.ndarray, dt: dtypes.DType) -> ir.DenseElementsAttr:
    arr = np.asarray(value, dtype=dt.np)
    if not arr.flags.c_contiguous:
        arr = arr.copy()
    ety = element_type(dt)
    if dt.kind == "b":  # jaxlib reads a numpy bool array (one byte per element) as i1 data
        return ir.DenseElementsAttr.get(arr, type=ety, shape=list(arr.shape))
    if arr.size > 1 and (arr == arr.reshape(-1)[0]).all() and dt.kind != "c":
        arr = arr.reshape(-1)[:1]
        return ir.DenseElementsAttr.get_splat(
            ir.RankedTensorType.get(list(value.shape), ety), _scalar_attr(arr[0], dt)
        )
    if dt.name in _FLOATS and dt.bits < 32 and dt.name != "float16":
        arr = arr.view(np.uint16 if dt.bits == 16 else np.uint8)
    return ir.DenseElementsAttr.get(arr, type=ety, shape=list(arr.shape))


def _scalar_attr(x, dt: dtypes.DType) -> ir.Attribute:
    ety = element_type(dt)
    if dt.kind in "iu":
        return ir.IntegerAttr.get(ety, int(x))
    return ir.FloatAttr.get(ety, float(x))


def constant(value, dt: dtypes.DType) -> ir.Value:
    """A stablehlo.constant holding a numpy array (any shape) of dtype dt."""
    arr = np.asarray(value, dtype=dt.np)
    return sh.constant(dense_attr(arr, dt))


def full(shape, value, dt: dtypes.DType) -> ir.Value:
    """A constant of the given concrete shape filled with one value."""
    return constant(np.full(tuple(shape), value, dtype=dt.np), dt)


def compare_type(dt: dtypes.DType) -> str:
    if dt.kind == "f" or dt.kind == "c":
        return "FLOAT"
    if dt.kind == "u" or dt.kind == "b":
        return "UNSIGNED"
    return "SIGNED"


def compare(x: ir.Value, y: ir.Value, direction: str, dt: dtypes.DType) -> ir.Value:
    return sh.compare(
        x,
        y,
        sh.ComparisonDirectionAttr.get(direction),
        compare_type=sh.ComparisonTypeAttr.get(compare_type(dt)),
    )


def scalar_type(dt: dtypes.DType) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([], element_type(dt))


def build_region(region: ir.Region, arg_types, body) -> None:
    """Fill an op's region: one block taking ``arg_types``, returning body(*args)."""
    block = region.blocks.append(*arg_types)
    with ir.InsertionPoint(block):
        out = body(*block.arguments)
        sh.return_(list(out) if isinstance(out, list | tuple) else [out])


def reduce_region(region: ir.Region, dt: dtypes.DType, combine) -> None:
    """A binary reduction body over scalars: ``combine(a, b) -> value``."""
    st = scalar_type(dt)
    build_region(region, [st, st], combine)


def dense_i64(values) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def node_location(node) -> ir.Location:
    """The node's name as an MLIR name location around the user's file:line."""
    loc = node.location
    inner = ir.Location.file(loc.file, loc.line, 0) if loc is not None else ir.Location.unknown()
    return ir.Location.name(node.name, childLoc=inner)


def case(index: ir.Value, result_types, branches) -> list:
    """stablehlo.case on an i32 scalar; ``branches`` are thunks returning each branch's values."""
    op = sh.CaseOp(list(result_types), index, len(branches))
    for region, body in zip(op.regions, branches):
        build_region(region, [], body)
    return list(op.results)


def while_loop(init, cond, body) -> list:
    """stablehlo.while over ``init``; ``cond(*carry)`` gives an i1 scalar, ``body(*carry)`` the next carry.

    Both regions may use values defined above them (StableHLO regions are not
    isolated), so loop-invariant captures need not be carried.
    """
    types = [v.type for v in init]
    op = sh.WhileOp(types, list(init))
    build_region(op.cond, types, cond)
    build_region(op.body, types, body)
    return list(op.results)


def alias_arguments(func_op, n_args: int, aliases: dict[int, int]) -> None:
    """Donate argument i to result ``aliases[i]`` (``tf.aliasing_output``): XLA updates it in place."""
    i32 = ir.IntegerType.get_signless(32)
    attrs = [
        ir.DictAttr.get({"tf.aliasing_output": ir.IntegerAttr.get(i32, aliases[i])} if i in aliases else {})
        for i in range(n_args)
    ]
    func_op.arg_attrs = ir.ArrayAttr.get(attrs)


def _module_body(block: ir.Block) -> ir.Block:
    """The body of the module that ``block`` (at any depth of regions) belongs to."""
    op = block.owner
    while op.operation.name != "builtin.module":
        op = op.parent
    return op.regions[0].blocks[0]


def call_private(name: str, arg_types, result_types, body, args) -> list:
    """Call the module's private function ``name``, defining it on first use.

    ``body(*params) -> [values]`` builds the function; later calls with the
    same name reuse it (one definition per program, whichever site comes first).
    """
    module = _module_body(ir.InsertionPoint.current.block)
    known = any(
        op.operation.name == "func.func" and ir.StringAttr(op.operation.attributes["sym_name"]).value == name
        for op in module.operations
    )
    if not known:
        with ir.InsertionPoint.at_block_begin(module), ir.Location.name(name):
            fn = func.FuncOp(name, (list(arg_types), list(result_types)))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            entry = fn.add_entry_block()
            with ir.InsertionPoint(entry):
                func.ReturnOp(list(body(*entry.arguments)))
    return list(func.CallOp(list(result_types), ir.FlatSymbolRefAttr.get(name), list(args)).results)


def portable_artifact(module: ir.Module) -> bytes:
    """``module`` as a StableHLO portable artifact at a version about a month old, as jax.export
    stores one; "mixed" keeps Shardy's ops and attributes (a mesh program's) beside the StableHLO."""
    return bytes(_jax.mlir.serialize_portable_artifact(module, artifact_version(), True))


def artifact_version() -> str:
    """The StableHLO version portable artifacts are written at (that of about a month ago)."""
    return sh.get_version_from_compatibility_requirement(sh.StablehloCompatibilityRequirement.WEEK_4)


def stablehlo_version() -> str:
    """The newest StableHLO version this jaxlib reads."""
    return sh.get_current_version()


def artifact_of_text(text: str) -> tuple[str, bytes]:
    """(the StableHLO version it targets, the portable artifact) of a module's text (an export
    file's program: readable by this jaxlib and those of the month before)."""
    with new_context():
        return artifact_version(), portable_artifact(ir.Module.parse(text))


def text_of_artifact(artifact: bytes) -> str:
    """The module text of a portable artifact; ValueError when it is not one this jaxlib reads."""
    try:
        with new_context() as ctx:
            module = _jax.mlir.deserialize_portable_artifact(artifact, ctx)
            return module.operation.get_asm(enable_debug_info=False)
    except Exception as e:  # jaxlib's own error types: the caller names the file
        raise ValueError(f"its StableHLO artifact does not load: {str(e).strip()[:300]}") from None


# -- device meshes (Shardy) and collectives ------------------------------------
def manual_computation(result_types, operands, in_shardings, out_shardings, axis_names, body) -> list:
    """sdy.manual_computation: ``body(*local_values)`` runs once per device on its shards."""
    per_value = lambda shardings: ir.Attribute.parse(  # noqa: E731
        "#sdy.sharding_per_value<["
        + ", ".join(str(s).removeprefix("#sdy.sharding") for s in shardings)
        + "]>"
    )
    manual = ir.Attribute.parse("#sdy<manual_axes{" + ", ".join(f'"{a}"' for a in axis_names) + "}>")
    op = sdy.ManualComputationOp(
        list(result_types), list(operands), per_value(in_shardings), per_value(out_shardings), manual
    )
    local_types = [t for t in body.local_types]
    block = op.regions[0].blocks.append(*local_types)
    with ir.InsertionPoint(block):
        sdy.ReturnOp(list(body(*block.arguments)))
    return list(op.results)


_channels = iter(range(1, 1 << 62))


def channel_handle() -> ir.Attribute:
    """A fresh device-to-device channel (type 1) for a cross-device collective."""
    return sh.ChannelHandle.get(next(_channels), 1)


def replica_groups(groups) -> ir.DenseElementsAttr:
    """The i64[groups, size] attribute of device positions that a collective combines."""
    arr = np.ascontiguousarray(groups, dtype=np.int64)
    return ir.DenseElementsAttr.get(arr, type=ir.IntegerType.get_signless(64), shape=list(arr.shape))


# -- calling a StableHLO module of another program (sg.from_jax, module_call) --------------------
def call_module(text: str, key: str, args, result_types) -> list:
    """Call the @main of the StableHLO module ``text`` (shape-polymorphic, as jax.export writes
    them) on ``args``: its shapes are refined to the args' static ones (jaxlib's refinement, which
    also checks its shape assertions), its functions copied into the module being built with their
    symbols prefixed by ``key`` (once per program), and a func.call emitted.

    Raises ValueError (with jaxlib's message) when the module does not refine for these types.
    """
    module = _module_body(ir.InsertionPoint.current.block)
    entry = f"{key}_main"
    if entry not in {_symbol(op) for op in module.operations}:
        refined = _refined(text, [a.type for a in args], list(result_types))
        for op in list(refined.body.operations):
            if op.operation.name != "func.func":
                raise ValueError(f"the module holds a {op.operation.name}, which a call cannot inline")
            old = _symbol(op)
            ir.SymbolTable.replace_all_symbol_uses(old, f"{key}_{old}", refined.operation)
            ir.SymbolTable.set_symbol_name(op.operation, f"{key}_{old}")
            op.operation.attributes["sym_visibility"] = ir.StringAttr.get("private")
        with ir.InsertionPoint.at_block_begin(module):
            for op in list(refined.body.operations):
                ir.InsertionPoint.current.insert(op.operation.detach_from_parent())
    return list(func.CallOp(list(result_types), ir.FlatSymbolRefAttr.get(entry), list(args)).results)


def _refined(text: str, arg_types, result_types) -> ir.Module:
    """``text`` with a new @main of static ``arg_types`` -> ``result_types`` around its own @main,
    its shapes refined by jaxlib (so every type in it is static), parsed in the current context."""
    callee = ir.Module.parse(text)
    ir.SymbolTable.replace_all_symbol_uses("main", "callee_main", callee.operation)
    for op in callee.body.operations:
        if _symbol(op) == "main" and op.operation.name == "func.func":
            ir.SymbolTable.set_symbol_name(op.operation, "callee_main")
            op.operation.attributes["sym_visibility"] = ir.StringAttr.get("private")
            inner = ir.FunctionType(ir.TypeAttr(op.operation.attributes["function_type"]).value)
    with ir.InsertionPoint(callee.body), ir.Location.unknown():
        wrapper = func.FuncOp("main", (list(arg_types), list(result_types)))
        wrapper.attributes["sym_visibility"] = ir.StringAttr.get("public")
        block = wrapper.add_entry_block()
        with ir.InsertionPoint(block):
            ins = [_as_type(v, t) for v, t in zip(block.arguments, inner.inputs)]
            outs = func.CallOp(list(inner.results), ir.FlatSymbolRefAttr.get("callee_main"), ins).results
            func.ReturnOp([_as_type(v, t) for v, t in zip(outs, result_types)])
    for name in list(callee.operation.attributes):
        del callee.operation.attributes[name]
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(
            ir_bytecode(callee), enable_shape_assertions=True, validate_static_shapes=True
        )
    except Exception as e:  # jaxlib raises its own error types; the caller names the node
        raise ValueError(str(e).strip()) from None
    return ir.Module.parse(refined)


def _symbol(op) -> str | None:
    attrs = op.operation.attributes
    return ir.StringAttr(attrs["sym_name"]).value if "sym_name" in attrs else None


def _as_type(v: ir.Value, t: ir.Type) -> ir.Value:
    """``v`` as type ``t``: static <-> dynamic shapes meet through stablehlo.convert, as jax does."""
    return v if v.type == t else sh.ConvertOp(t, v).result


def without_locations(text: str) -> str:
    """A module's text without its debug locations (smaller, and no file paths of the machine that
    made it)."""
    with new_context():
        return ir.Module.parse(text).operation.get_asm(enable_debug_info=False)


def ir_bytecode(module: ir.Module) -> bytes:
    """The module as MLIR bytecode (what jaxlib's module passes read)."""
    out = io.BytesIO()
    module.operation.write_bytecode(out)
    return out.getvalue()
