"""MLIR rewrites of a lowered program for jax.export (backend; MLIR through ops/primitives/hlo).

``main_signature`` reads @main's types and custom calls; ``module_for_jax``
gives the module jax's calling convention (baked arguments as constants, a
platform index, the results picked) as a portable artifact;
``make_dim_dynamic`` turns one concrete dim of a lowering into a dynamic one
(jax_format.symbolic_module). jaxlib itself is reached only through hlo.py.
"""

from __future__ import annotations

import re

import numpy as np

from ..graph import dtypes
from ..ops.primitives import hlo

ir, sh, func = hlo.ir, hlo.sh, hlo.func


def main_signature(text: str) -> tuple[list, list, list[str]]:
    """@main's argument and result types of a module as ``(dims, element type)`` pairs (a dynamic
    dim is None; the element type as MLIR spells it: "f32", "i1", "ui8"), and the targets of the
    module's custom calls."""
    with hlo.new_context():
        module = ir.Module.parse(text)
        main = ir.SymbolTable(module.operation)["main"]
        fn_type = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        targets: list[str] = []

        def visit(op):
            if op.name == "stablehlo.custom_call":
                targets.append(ir.StringAttr(op.attributes["call_target_name"]).value)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        return (
            [_dims_and_element(t) for t in fn_type.inputs],
            [_dims_and_element(t) for t in fn_type.results],
            targets,
        )


def _dims_and_element(ty: ir.Type) -> tuple[tuple, str]:
    ranked = ir.RankedTensorType(ty)
    dims = tuple(None if ranked.is_dynamic_dim(i) else ranked.shape[i] for i in range(ranked.rank))
    return dims, str(ranked.element_type)


def module_for_jax(text: str, baked: dict, result_order, *, platform_index: bool, polymorphic: bool) -> bytes:
    """The portable artifact (StableHLO bytecode at a version about a month old, as jax.export
    stores it) of ``text`` with a new @main for jax's calling convention: the arguments at the
    positions in ``baked`` become constants of their numpy values, the results come back in
    ``result_order``, and with ``platform_index`` a first i32 argument (the platform index that a
    multi-platform jax export takes; ignored here). ``polymorphic`` marks the module as using
    shape polymorphism, so jax refines its dynamic dims when it is called."""
    with hlo.new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        table = ir.SymbolTable(module.operation)
        inner = table["main"]
        inner.attributes["sym_visibility"] = ir.StringAttr.get("private")
        table.set_symbol_name(inner, "_stablegraph_main")
        fn_type = ir.FunctionType(ir.TypeAttr(inner.attributes["function_type"]).value)
        kept = [i for i in range(len(fn_type.inputs)) if i not in baked]
        i32 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(32))
        inputs = ([i32] if platform_index else []) + [fn_type.inputs[i] for i in kept]
        results = [fn_type.results[k] for k in result_order]
        with ir.InsertionPoint.at_block_begin(module.body):
            main = func.FuncOp("main", (inputs, results))
        main.attributes["sym_visibility"] = ir.StringAttr.get("public")
        if platform_index:
            marker = {"jax.global_constant": ir.StringAttr.get("_platform_index")}
            main.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(marker)] + [ir.DictAttr.get({}) for _ in kept])
        entry = main.add_entry_block()
        with ir.InsertionPoint(entry):
            given = iter(entry.arguments[1:] if platform_index else entry.arguments)
            args = [
                hlo.constant(baked[i], dtypes.dtype(np.asarray(baked[i]).dtype))
                if i in baked
                else next(given)
                for i in range(len(fn_type.inputs))
            ]
            outs = func.CallOp(list(fn_type.results), ir.FlatSymbolRefAttr.get("_stablegraph_main"), args)
            func.ReturnOp([outs.results[k] for k in result_order])
        _drop_argument_attrs(inner)
        module.operation.attributes["jax.uses_shape_polymorphism"] = ir.BoolAttr.get(polymorphic)
        module.operation.verify()
        return hlo.portable_artifact(module)


class NotGeneralizable(Exception):
    """make_dim_dynamic met an op whose static form it cannot make dynamic (the reason)."""


# Ops whose results keep their static form when a dim becomes dynamic: XLA could not refine them.
_NOT_GENERALIZABLE = (
    "stablehlo.custom_call",
    "stablehlo.rng_bit_generator",
    "sdy.manual_computation",
)


def make_dim_dynamic(text: str, size: int, sources) -> str:
    """``text`` (a module lowered with some dim at the distinctive size ``size``) with that dim
    dynamic (``?``) wherever a type has it, its value read from @main's arguments (``sources``:
    (argument, dim) pairs holding it) by ``get_dimension_size``: broadcasts, iotas, reshapes and
    splat constants of that size become their dynamic forms, and constants equal to a multiple
    of ``size`` (a mean's divisor) are computed from it. A private function with the dim in
    its types reads it from its first argument that has it. The result, without locations, is
    the module jax's shape refinement makes static again at each call. An op it cannot
    generalize raises NotGeneralizable; what it does not recognize (an attribute holding the
    size) shows as a difference between the results for two sizes, which the caller compares."""
    with hlo.new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        main = ir.SymbolTable(module.operation)["main"]
        for op in list(module.body.operations):
            if op.operation.name != "func.func":
                continue
            if op.operation == main.operation:
                _function_dim_dynamic(op, size, list(sources), all_arguments=False)
            elif _mentions(op.operation, size):
                entry = op.regions[0].blocks[0]
                found = [
                    (a.arg_number, j)
                    for a in entry.arguments
                    if _ranked(a.type) is not None
                    for j, d in enumerate(_ranked(a.type).shape)
                    if d == size
                ]
                if not found:
                    raise NotGeneralizable("a function makes values of the dim's size from no argument")
                _function_dim_dynamic(op, size, found[:1], all_arguments=True)
        _rename_sized_functions(module, size)
        module.operation.verify()
        return module.operation.get_asm(enable_debug_info=False)


_MODULE_KEY = re.compile(r"sg_module_[0-9a-f]{16}")


def _rename_sized_functions(module, size: int) -> None:
    """Functions named after their shapes (``threefry2x32_7919x128``, module_call's copies of a
    module named by a hash of its types) get the size out of their names, so the same program
    lowered at another size prints the same."""
    table = ir.SymbolTable(module.operation)
    hashed: dict[str, str] = {}  # module_call's copies are named by a hash of their types (the size)
    for op in list(module.body.operations):
        if op.operation.name != "func.func":
            continue
        name = ir.StringAttr(op.operation.attributes["sym_name"]).value
        found = _MODULE_KEY.match(name)
        if found:
            key = hashed.setdefault(found.group(0), f"sg_module_dyn{len(hashed)}")
            new = key + name[found.end() :]
        elif str(size) in name:
            new = name.replace(str(size), "dyn")
        else:
            continue
        while new in table:
            new += "_"
        ir.SymbolTable.replace_all_symbol_uses(name, new, module.operation)
        table.set_symbol_name(op.operation, new)


def _function_dim_dynamic(fn, size: int, sources, *, all_arguments: bool) -> None:
    """make_dim_dynamic within one function: its arguments (``sources`` only, unless
    ``all_arguments``), block arguments, ops and signature."""
    entry = fn.regions[0].blocks[0]
    i32 = ir.IntegerType.get_signless(32)
    chosen = {a for a, _ in sources}
    original = [list(_ranked(a.type).shape) if _ranked(a.type) else [] for a in entry.arguments]
    for block in _blocks(fn.operation):
        for arg in block.arguments:
            if block != entry or all_arguments or arg.arg_number in chosen:
                arg.set_type(_dynamic(arg.type, size))
    arg, dim = sources[0]
    a, b = _affine(original[arg][dim], size) or (1, 0)
    with ir.InsertionPoint.at_block_begin(entry):
        n = sh.GetDimensionSizeOp(entry.arguments[arg], dim).result
        if (a, b) != (1, 0):  # the argument's dim is a * n + b: n = (dim - b) / a
            scalar = lambda v: sh.ConstantOp(ir.DenseElementsAttr.get(np.array(v, np.int32), type=i32)).result  # noqa: E731
            n = sh.DivOp(sh.SubtractOp(n, scalar(b)).result, scalar(a)).result
        n1 = sh.ReshapeOp(ir.RankedTensorType.get([1], i32), n).result
    for op in list(_operations(fn.operation)):
        if op.operation in (n.owner.operation, n1.owner.operation):
            continue
        _generalize(op, size, n, n1)
    terminator = entry.operations[len(entry.operations) - 1]
    fn.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([a.type for a in entry.arguments], [v.type for v in terminator.operands])
    )


def _generalize(op, size: int, n, n1) -> None:
    """Make one op's results dynamic in the dim of ``size`` (``n``: its value, i32 scalar; ``n1``: as i32[1])."""
    name = op.operation.name
    results = list(op.operation.results)
    if name == "stablehlo.constant" and not any(_has(r.type, size) for r in results):
        _constant_of_size(op, size, n)
        return
    if name == "stablehlo.slice" and _slice_of_size(op, size, n1):
        return
    if not any(_has(r.type, size) for r in results):
        return
    if name in _NOT_GENERALIZABLE:
        raise NotGeneralizable(f"{name} has the dim in its results")
    (result,) = results if name in _REPLACED else (None,)
    with ir.InsertionPoint(op), op.operation.location:
        if name == "stablehlo.broadcast_in_dim":
            dims = op.operation.attributes["broadcast_dimensions"]
            new = sh.DynamicBroadcastInDimOp(
                _dynamic(result.type, size), op.operation.operands[0], _shape(result.type, size, n1), dims
            )
        elif name == "stablehlo.iota":
            axis = op.operation.attributes["iota_dimension"]
            new = sh.DynamicIotaOp(_dynamic(result.type, size), _shape(result.type, size, n1), axis)
        elif name == "stablehlo.reshape":
            new = sh.DynamicReshapeOp(
                _dynamic(result.type, size), op.operation.operands[0], _shape(result.type, size, n1)
            )
        elif name == "stablehlo.constant":
            value = ir.DenseElementsAttr(op.operation.attributes["value"])
            if not value.is_splat:
                raise NotGeneralizable("a constant that is not one value repeated has the dim in its shape")
            element = ir.RankedTensorType(result.type).element_type
            scalar = sh.ConstantOp(
                ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], element), value.get_splat_value())
            )
            new = sh.DynamicBroadcastInDimOp(
                _dynamic(result.type, size), scalar.result, _shape(result.type, size, n1), []
            )
        else:
            for r in results:
                r.set_type(_dynamic(r.type, size))
            return
    result.replace_all_uses_with(new.result)
    op.operation.erase()


_REPLACED = ("stablehlo.broadcast_in_dim", "stablehlo.iota", "stablehlo.reshape", "stablehlo.constant")


def _slice_of_size(op, size: int, n1) -> bool:
    """A slice whose bounds or result are affine in ``size`` (``x[1:]``, ``x[-2:]``) becomes a
    real_dynamic_slice with those bounds computed; whether it did."""
    attrs = op.operation.attributes
    starts, limits, strides = (
        list(ir.DenseI64ArrayAttr(attrs[k])) for k in ("start_indices", "limit_indices", "strides")
    )
    result = op.operation.results[0]
    if not any(_affine(d, size) for d in (*starts, *limits)) and not _has(result.type, size):
        return False
    with ir.InsertionPoint(op), op.operation.location:
        bound = lambda values: sh.ConcatenateOp([_value_of(d, size, n1) for d in values], 0).result  # noqa: E731
        new = sh.RealDynamicSliceOp(
            _dynamic(result.type, size),
            op.operation.operands[0],
            bound(starts),
            bound(limits),
            bound(strides),
        )
    result.replace_all_uses_with(new.result)
    op.operation.erase()
    return True


def _constant_of_size(op, size: int, n) -> None:
    """A splat constant whose value is affine in ``size`` (a mean's divisor k * size, a variance's
    size - 1) becomes that function of the dim's value."""
    value = ir.DenseElementsAttr(op.operation.attributes["value"])
    ty = ir.RankedTensorType(op.operation.results[0].type)
    if not value.is_splat or ty.element_type == ir.IntegerType.get_signless(1):
        return
    splat = value.get_splat_value()
    as_float, as_int = _cast(ir.FloatAttr, splat), _cast(ir.IntegerAttr, splat)
    if as_float is not None:
        number = as_float.value
    elif as_int is not None:
        number = as_int.value
    else:
        return
    if not np.isfinite(number) or number != int(number) or _affine(int(number), size) is None:
        return
    k, b = _affine(int(number), size)
    scalar = ir.RankedTensorType.get([], ty.element_type)
    with ir.InsertionPoint(op), op.operation.location:
        value_of = sh.ConvertOp(scalar, n).result
        if k != 1:
            factor = sh.ConstantOp(ir.DenseElementsAttr.get_splat(scalar, _scalar_like(splat, k))).result
            value_of = sh.MulOp(value_of, factor).result
        if b != 0:
            offset = sh.ConstantOp(ir.DenseElementsAttr.get_splat(scalar, _scalar_like(splat, b))).result
            value_of = sh.AddOp(value_of, offset).result
        if ty.rank:
            value_of = sh.BroadcastInDimOp(ty, value_of, []).result
    op.operation.results[0].replace_all_uses_with(value_of)
    op.operation.erase()


def _scalar_like(attr, k: int) -> ir.Attribute:
    as_float = _cast(ir.FloatAttr, attr)
    if as_float is not None:
        return ir.FloatAttr.get(as_float.type, float(k))
    return ir.IntegerAttr.get(ir.IntegerAttr(attr).type, k)


# A dim a * size + b (1 <= a <= _MAX_FACTOR, |b| <= _MAX_OFFSET) stands for that function of the
# symbol (a slice's n - 1, a flattened 3 * n); jax_format.SENTINELS are spaced so that no such
# range holds another symbol's sentinel.
_MAX_FACTOR, _MAX_OFFSET = 4, 16


def _affine(d: int, size: int) -> tuple[int, int] | None:
    """(a, b) with ``d == a * size + b`` in the ranges above, else None (a concrete dim)."""
    a = (d + size // 2) // size
    b = d - a * size
    return (a, b) if 1 <= a <= _MAX_FACTOR and abs(b) <= _MAX_OFFSET else None


def _value_of(d: int, size: int, n1) -> ir.Value:
    """The i32[1] value of the dim ``d``: a * (the dim's value) + b when it is affine, else d."""
    i32 = ir.IntegerType.get_signless(32)
    const = lambda v: sh.ConstantOp(ir.DenseElementsAttr.get(np.array([v], np.int32), type=i32)).result  # noqa: E731
    ab = _affine(d, size)
    if ab is None:
        return const(d)
    a, b = ab
    value = n1 if a == 1 else sh.MulOp(n1, const(a)).result
    return value if b == 0 else sh.AddOp(value, const(b)).result


def _shape(ty, size: int, n1) -> ir.Value:
    """The i32[rank] shape of ``ty`` with its dims affine in ``size`` computed from ``n1``."""
    pieces = [_value_of(d, size, n1) for d in ir.RankedTensorType(ty).shape]
    return sh.ConcatenateOp(pieces, 0).result if len(pieces) > 1 else pieces[0]


def _dynamic(ty, size: int) -> ir.Type:
    ranked = _ranked(ty)
    if ranked is None:
        return ty
    dyn = ir.ShapedType.get_dynamic_size()
    shape = [
        dyn if (not ranked.is_dynamic_dim(i) and _affine(d, size)) else d for i, d in enumerate(ranked.shape)
    ]
    return ir.RankedTensorType.get(shape, ranked.element_type, ranked.encoding)


def _has(ty, size: int) -> bool:
    ranked = _ranked(ty)
    if ranked is None:
        return False
    return any(not ranked.is_dynamic_dim(i) and _affine(d, size) for i, d in enumerate(ranked.shape))


def _ranked(ty):
    try:
        return ir.RankedTensorType(ty)
    except ValueError:  # a token or a tuple
        return None


def _cast(kind, attr):
    try:
        return kind(attr)
    except ValueError:
        return None


def _mentions(op, size: int) -> bool:
    return any(_has(r.type, size) for o in [op, *_operations(op)] for r in o.results) or any(
        _has(a.type, size) for b in _blocks(op) for a in b.arguments
    )


def _blocks(op):
    for region in op.regions:
        for block in region.blocks:
            yield block
            for inner in block.operations:
                yield from _blocks(inner.operation)


def _operations(op):
    """The ops nested in ``op``, each before the ops of its regions (program order)."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner
                yield from _operations(inner.operation)


def _drop_argument_attrs(fn) -> None:
    """Remove donations (``tf.aliasing_output``) from ``fn``'s arguments: the constants and the
    caller's arrays passed to it are not its to overwrite."""
    if "arg_attrs" not in fn.attributes:
        return
    kept = []
    for attrs in ir.ArrayAttr(fn.attributes["arg_attrs"]):
        entries = {a.name: a.attr for a in ir.DictAttr(attrs) if a.name != "tf.aliasing_output"}
        kept.append(ir.DictAttr.get(entries))
    fn.arg_attrs = ir.ArrayAttr.get(kept)


__all__ = ["NotGeneralizable", "main_signature", "make_dim_dynamic", "module_for_jax"]
