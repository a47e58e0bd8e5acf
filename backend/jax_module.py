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

from ..graph import dtypes, poly
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


def make_dim_dynamic(text: str, size: int, sources, forms=()) -> str:
    """``text`` (a module lowered with some dim at the distinctive size ``size``) with that dim
    dynamic (``?``) wherever a type has it, its value read from @main's arguments (``sources``:
    (argument, dim) pairs holding it) by ``get_dimension_size``: broadcasts, iotas, reshapes and
    splat constants of that size become their dynamic forms, and constants equal to a dim of the
    symbol (a mean's divisor) are computed from it. ``forms``: the program's own dims that are
    expressions of this symbol alone (polys, graph/poly.py: ``(n + 1) // 2`` of ``x[::2]``); a
    dim of the lowering equal to one of them at ``size`` is that expression, else one affine in
    ``size`` (``n - 1``, ``3 * n``) is taken as that (see _SizeForms). A private function with
    the dim in its types reads it from its first argument that has it. The result, without
    locations, is the module jax's shape refinement makes static again at each call. An op it
    cannot generalize raises NotGeneralizable; what it does not recognize (an attribute holding
    the size) shows as a difference between the results for two sizes, which the caller compares."""
    with hlo.new_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        main = ir.SymbolTable(module.operation)["main"]
        known = _SizeForms(size, forms)
        for op in list(module.body.operations):
            if op.operation.name != "func.func":
                continue
            if op.operation == main.operation:
                _function_dim_dynamic(op, known, list(sources), all_arguments=False)
            elif _mentions(op.operation, known):
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
                _function_dim_dynamic(op, known, found[:1], all_arguments=True)
        _rename_sized_functions(module, size)
        module.operation.verify()
        return module.operation.get_asm(enable_debug_info=False)


# A dim a * size + b (1 <= a <= _MAX_FACTOR, |b| <= _MAX_OFFSET) not among the program's own dims
# stands for that function of the symbol (a padding's n + 2 inside a lowering rule);
# jax_format.SENTINELS are spaced so that no such range holds another symbol's sentinel.
_MAX_FACTOR, _MAX_OFFSET = 4, 16
# An expression of the symbol whose value at the sentinel is below this (``n % 4``, ``n // 4000``)
# is no evidence that a dim of that size is it: small dims are everywhere.
_DISTINCTIVE = 100
_N = "n"  # the symbol's name in the polys this module builds


class _SizeForms:
    """Which dims of a lowering at the sentinel ``size`` stand for which expression of the
    symbol, and (once ``bind`` gives them) the symbol's value in the function being rewritten:
    ``n`` (i32 scalar) and ``n1`` (i32[1])."""

    def __init__(self, size: int, forms):
        self.size = size
        self.n = self.n1 = None
        table: dict[int, dict[str, poly.Poly]] = {}
        for p in forms:
            if len(poly.symbols(p)) != 1:
                continue
            value = poly.evaluate(p, dict.fromkeys(poly.symbols(p), size))
            if value < _DISTINCTIVE:
                continue
            alike = table.setdefault(value, {})
            if not any(_same_function(p, q) for q in alike.values()):
                alike[poly.to_str(p)] = p
        self.table = table

    def bind(self, n, n1) -> None:
        self.n, self.n1 = n, n1

    def form(self, d: int) -> poly.Poly | None:
        """The expression the dim ``d`` stands for, or None (a concrete dim)."""
        if d in self.table:
            found = self.table[d]
            if len(found) > 1:
                raise NotGeneralizable(
                    f"the program's dims {' and '.join(sorted(found))} have the same size {d} at the sample "
                    "size, so which one a dim of that size is cannot be told"
                )
            return next(iter(found.values()))
        ab = _affine(d, self.size)
        if ab is None:
            return None
        return poly.add(poly.mul(poly.const(ab[0]), poly.symbol(_N)), poly.const(ab[1]))


def _same_function(p: poly.Poly, q: poly.Poly) -> bool:
    """Whether two expressions of one symbol are equal for every value of it though spelled
    apart (``(n + 1) // 2 + n // 2`` is ``n``): their difference is a polynomial on each residue
    class modulo the product of the divisors, so agreeing at (degree + 1) points of every class
    proves it; too long a period counts as different."""
    (p_symbol,), (q_symbol,) = poly.symbols(p), poly.symbols(q)
    period = _period(p) * _period(q)
    degree = max(_degree(p), _degree(q))
    if period * (degree + 1) > 4096:
        return False
    return all(
        poly.evaluate(p, {p_symbol: v}) == poly.evaluate(q, {q_symbol: v})
        for v in range(period * (degree + 1))
    )


def _period(p: poly.Poly) -> int:
    out = 1
    for monomial, _ in p:
        for atom in monomial:
            if not isinstance(atom, str):
                out *= atom.k * _period(atom.operand)
    return out


def _degree(p: poly.Poly) -> int:
    return max(
        (sum(1 if isinstance(a, str) else _degree(a.operand) for a in monomial) for monomial, _ in p),
        default=0,
    )


def _affine(d: int, size: int) -> tuple[int, int] | None:
    """(a, b) with ``d == a * size + b`` in the ranges above, else None."""
    a = (d + size // 2) // size
    b = d - a * size
    return (a, b) if 1 <= a <= _MAX_FACTOR and abs(b) <= _MAX_OFFSET else None


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


def _function_dim_dynamic(fn, known: _SizeForms, sources, *, all_arguments: bool) -> None:
    """make_dim_dynamic within one function: its arguments (``sources`` only, unless
    ``all_arguments``), block arguments, ops and signature."""
    entry = fn.regions[0].blocks[0]
    i32 = ir.IntegerType.get_signless(32)
    chosen = {a for a, _ in sources}
    original = [list(_ranked(a.type).shape) if _ranked(a.type) else [] for a in entry.arguments]
    for block in _blocks(fn.operation):
        for arg in block.arguments:
            if block != entry or all_arguments or arg.arg_number in chosen:
                arg.set_type(_dynamic(arg.type, known))
    arg, dim = sources[0]
    a, b = _affine(original[arg][dim], known.size) or (1, 0)
    with ir.InsertionPoint.at_block_begin(entry):
        n = sh.GetDimensionSizeOp(entry.arguments[arg], dim).result
        if (a, b) != (1, 0):  # the argument's dim is a * n + b: n = (dim - b) / a
            n = sh.DivOp(sh.SubtractOp(n, _i32(b)).result, _i32(a)).result
        n1 = sh.ReshapeOp(ir.RankedTensorType.get([1], i32), n).result
    known.bind(n, n1)
    made = (n.owner.operation, n1.owner.operation)
    for op in list(_operations(fn.operation)):
        if op.operation in made:
            continue
        _generalize(op, known)
    terminator = entry.operations[len(entry.operations) - 1]
    fn.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([a.type for a in entry.arguments], [v.type for v in terminator.operands])
    )


def _generalize(op, known: _SizeForms) -> None:
    """Make one op's results dynamic in the symbol's dims."""
    name = op.operation.name
    results = list(op.operation.results)
    if name == "stablehlo.constant" and not any(_has(r.type, known) for r in results):
        _constant_of_size(op, known)
        return
    if name == "stablehlo.slice" and _slice_of_size(op, known):
        return
    if not any(_has(r.type, known) for r in results):
        return
    if name in _NOT_GENERALIZABLE:
        raise NotGeneralizable(f"{name} has the dim in its results")
    (result,) = results if name in _REPLACED else (None,)
    with ir.InsertionPoint(op), op.operation.location:
        if name == "stablehlo.broadcast_in_dim":
            dims = op.operation.attributes["broadcast_dimensions"]
            new = sh.DynamicBroadcastInDimOp(
                _dynamic(result.type, known), op.operation.operands[0], _shape(result.type, known), dims
            )
        elif name == "stablehlo.iota":
            axis = op.operation.attributes["iota_dimension"]
            new = sh.DynamicIotaOp(_dynamic(result.type, known), _shape(result.type, known), axis)
        elif name == "stablehlo.reshape":
            new = sh.DynamicReshapeOp(
                _dynamic(result.type, known), op.operation.operands[0], _shape(result.type, known)
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
                _dynamic(result.type, known), scalar.result, _shape(result.type, known), []
            )
        else:
            for r in results:
                r.set_type(_dynamic(r.type, known))
            return
    result.replace_all_uses_with(new.result)
    op.operation.erase()


_REPLACED = ("stablehlo.broadcast_in_dim", "stablehlo.iota", "stablehlo.reshape", "stablehlo.constant")


def _slice_of_size(op, known: _SizeForms) -> bool:
    """A slice whose bounds or result are dims of the symbol (``x[1:]``, ``x[-2:]``, ``x[::2]``)
    becomes a real_dynamic_slice with those bounds computed; whether it did."""
    attrs = op.operation.attributes
    starts, limits, strides = (
        list(ir.DenseI64ArrayAttr(attrs[k])) for k in ("start_indices", "limit_indices", "strides")
    )
    result = op.operation.results[0]
    if not any(known.form(d) is not None for d in (*starts, *limits)) and not _has(result.type, known):
        return False
    with ir.InsertionPoint(op), op.operation.location:
        bound = lambda values: sh.ConcatenateOp([_value_of(d, known) for d in values], 0).result  # noqa: E731
        new = sh.RealDynamicSliceOp(
            _dynamic(result.type, known),
            op.operation.operands[0],
            bound(starts),
            bound(limits),
            bound(strides),
        )
    result.replace_all_uses_with(new.result)
    op.operation.erase()
    return True


def _constant_of_size(op, known: _SizeForms) -> None:
    """A splat constant whose value is a dim of the symbol (a mean's divisor k * size, a
    variance's size - 1, the count of ``x[::2]``) becomes that function of the dim's value."""
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
    if not np.isfinite(number) or number != int(number):
        return
    form = known.form(int(number))
    if form is None:
        return
    scalar = ir.RankedTensorType.get([], ty.element_type)
    with ir.InsertionPoint(op), op.operation.location:
        value_of = sh.ConvertOp(scalar, _poly_value(form, known.n)).result
        if ty.rank:
            value_of = sh.BroadcastInDimOp(ty, value_of, []).result
    op.operation.results[0].replace_all_uses_with(value_of)
    op.operation.erase()


def _i32(v: int) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return sh.ConstantOp(ir.DenseElementsAttr.get(np.array(v, np.int32), type=i32)).result


def _poly_value(p: poly.Poly, n) -> ir.Value:
    """The i32 scalar value of the expression ``p`` of the symbol whose value is ``n``: sums of
    products, ``//`` and ``%`` with floor semantics (graph/poly.py's)."""
    total = None
    for monomial, c in p:
        term = None if monomial and c == 1 else _i32(c)
        for atom in monomial:
            factor = n if isinstance(atom, str) else _floor_division(atom, n)
            term = factor if term is None else sh.MulOp(term, factor).result
        total = term if total is None else sh.AddOp(total, term).result
    return _i32(0) if total is None else total


def _floor_division(atom, n) -> ir.Value:
    """``operand // k`` or ``operand % k`` rounding down (StableHLO's divide and remainder round
    toward zero)."""
    value, k = _poly_value(atom.operand, n), _i32(atom.k)
    modulo = sh.RemOp(sh.AddOp(sh.RemOp(value, k).result, k).result, k).result
    if atom.kind == "%":
        return modulo
    return sh.DivOp(sh.SubtractOp(value, modulo).result, k).result


def _value_of(d: int, known: _SizeForms) -> ir.Value:
    """The i32[1] value of the dim ``d``: its expression of the symbol, else ``d`` itself."""
    i32 = ir.IntegerType.get_signless(32)
    form = known.form(d)
    if form is None:
        return sh.ConstantOp(ir.DenseElementsAttr.get(np.array([d], np.int32), type=i32)).result
    if form == poly.symbol(_N):
        return known.n1
    return sh.ReshapeOp(ir.RankedTensorType.get([1], i32), _poly_value(form, known.n)).result


def _shape(ty, known: _SizeForms) -> ir.Value:
    """The i32[rank] shape of ``ty`` with its dims of the symbol computed."""
    pieces = [_value_of(d, known) for d in ir.RankedTensorType(ty).shape]
    return sh.ConcatenateOp(pieces, 0).result if len(pieces) > 1 else pieces[0]


def _dynamic(ty, known: _SizeForms) -> ir.Type:
    ranked = _ranked(ty)
    if ranked is None:
        return ty
    dyn = ir.ShapedType.get_dynamic_size()
    shape = [
        dyn if (not ranked.is_dynamic_dim(i) and known.form(d) is not None) else d
        for i, d in enumerate(ranked.shape)
    ]
    return ir.RankedTensorType.get(shape, ranked.element_type, ranked.encoding)


def _has(ty, known: _SizeForms) -> bool:
    ranked = _ranked(ty)
    if ranked is None:
        return False
    return any(not ranked.is_dynamic_dim(i) and known.form(d) is not None for i, d in enumerate(ranked.shape))


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


def _mentions(op, known: _SizeForms) -> bool:
    return any(_has(r.type, known) for o in [op, *_operations(op)] for r in o.results) or any(
        _has(a.type, known) for b in _blocks(op) for a in b.arguments
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
