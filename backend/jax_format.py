"""A stablegraph program as bytes that ``jax.export.deserialize`` loads (backend).

``to_jax_bytes`` writes jax.export's serialized form: a flatbuffer (its
schema is jax's ``serialization.fbs``; this module writes it with the
``flatbuffers`` package alone, no jax import) holding the function's
argument and result types, the platforms, the calling-convention version,
and the module as a StableHLO portable artifact. The module gets a new
@main for jax's calling convention (backend/jax_module.py does the MLIR
part): the arguments the caller bakes in (an export's variables) become
constants, so the jax function takes the remaining arguments in order.

Symbolic dims stay jax shape polymorphism when the module's @main has
dynamic dims (``?``) where the types name a symbol: jax solves the symbols
from its arguments' shapes and refines the module's shapes at each call.
A module lowered with concrete dims cannot be made polymorphic here; a
symbolic dim over a concrete one is refused with a GraphError, as are
host callbacks (jax could not run them), unknown dtypes, symbols that no
argument's shape gives, and a baked value of the wrong type.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ..graph import GraphError, dims, located, user_location
from . import jax_module

if TYPE_CHECKING:
    import flatbuffers

# jax.export's calling convention: version 10 (jax accepts 9..10 today) has @main take the
# platform index (multi-platform exports only), then the arrays; dims are solved by the caller.
CALLING_CONVENTION = 10
# The schema version jax itself writes into the file: readers older than 2026 accept only 2 or 3,
# and the newer tables (unique avals and their indices) are found by their presence, not this field.
SERIALIZATION_VERSION = 3

# jax.export's DType enum (serialization.fbs), by numpy dtype name.
DTYPE_CODES = {
    "bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "uint16": 6, "uint32": 7,
    "uint64": 8, "float16": 9, "float32": 10, "float64": 11, "complex64": 12, "complex128": 13,
    "bfloat16": 14, "int4": 15, "uint4": 16, "float8_e4m3b11fnuz": 17, "float8_e4m3fn": 18,
    "float8_e4m3fnuz": 19, "float8_e5m2": 20, "float8_e5m2fnuz": 21, "float8_e4m3": 23,
    "float8_e3m4": 24, "float8_e8m0fnu": 25, "float4_e2m1fn": 26,
}  # fmt: skip
# MLIR's spelling of each element type, to check the module against the types given.
MLIR_ELEMENTS = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "ui8",
    "uint16": "ui16", "uint32": "ui32", "uint64": "ui64", "float16": "f16", "float32": "f32",
    "float64": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>", "bfloat16": "bf16",
    "int4": "i4", "uint4": "ui4", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ", "float8_e4m3fn": "f8E4M3FN",
    "float8_e4m3fnuz": "f8E4M3FNUZ", "float8_e5m2": "f8E5M2", "float8_e5m2fnuz": "f8E5M2FNUZ",
    "float8_e4m3": "f8E4M3", "float8_e3m4": "f8E3M4", "float8_e8m0fnu": "f8E8M0FNU",
    "float4_e2m1fn": "f4E2M1FN",
}  # fmt: skip
# Custom-call targets of host callbacks: the Python process that owned them is not jax's.
HOST_CALLBACK_TARGETS = ("xla_python_cpu_callback", "xla_ffi_python_cpu_callback", "xla_python_gpu_callback",
                         "xla_ffi_python_gpu_callback", "xla_ffi_partitioned_python_cpu_callback",
                         "xla_ffi_partitioned_python_gpu_callback")  # fmt: skip
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DEVICE_MEMORY = 1  # MemorySpace.Device
_PYTREE_LEAF, _PYTREE_TUPLE, _PYTREE_DICT = 0, 2, 4


def to_jax_bytes(
    module_text: str,
    arg_types: list,
    result_types: list,
    *,
    baked: dict | None = None,
    platforms=("cpu",),
    nr_devices: int = 1,
    result_names: list[str] | None = None,
    function_name: str = "stablegraph_program",
    results: list[int] | None = None,
) -> bytes:
    """jax.export's serialized Exported of the program ``module_text`` (a StableHLO module as the
    Session lowers it). ``arg_types`` / ``result_types``: @main's arguments and results in order,
    each ``(shape, numpy dtype)`` with str entries for symbolic dims; ``baked``: argument positions
    whose values become constants (the jax function takes the other arguments, in order);
    ``platforms``: where jax may run it; ``results``: which of @main's results the jax function
    returns, in order (all by default); ``result_names``: they come back as a dict by these
    names (else a tuple)."""
    baked = dict(baked or {})
    platforms = tuple(platforms)
    where = user_location()
    module_args, module_results, targets = jax_module.main_signature(module_text)
    _check_module(module_args, module_results, targets, arg_types, result_types, platforms, where)
    _check_baked(baked, arg_types, where)
    free = [i for i in range(len(arg_types)) if i not in baked]
    in_avals = [_aval(arg_types[i], f"argument {i}", where) for i in free]
    picked = list(range(len(result_types))) if results is None else [int(k) for k in results]
    if any(not 0 <= k < len(result_types) for k in picked):
        raise GraphError(
            located(f"to_jax: results {picked} are not all among the {len(result_types)}", where)
        )
    out_avals = {k: _aval(result_types[k], f"result {k}", where) for k in picked}
    given = {s for i in free for d in arg_types[i][0] if isinstance(d, str) for s in dims.symbols(d)}
    for k in out_avals:
        missing = [
            s for d in result_types[k][0] if isinstance(d, str) for s in dims.symbols(d) if s not in given
        ]
        if missing:
            raise GraphError(located(
                f"to_jax: result {k}'s dim {missing[0]!r} is in no argument's shape, so jax could not "
                "solve it from the arguments it is called with", where))  # fmt: skip
    order = picked
    if result_names is not None:
        if len(result_names) != len(picked) or len(set(result_names)) != len(result_names):
            raise GraphError(located(
                f"to_jax: {len(picked)} results want as many distinct names, got {result_names!r}",
                where))  # fmt: skip
        named = dict(zip(picked, result_names))
        order = sorted(picked, key=named.get)  # jax orders a dict's leaves by sorted key
    out_avals = [out_avals[k] for k in order]
    polymorphic = bool(given)
    module = jax_module.module_for_jax(
        module_text,
        {i: np.asarray(v, dtype=np.dtype(arg_types[i][1])) for i, v in baked.items()},
        order,
        platform_index=len(platforms) > 1,
        polymorphic=polymorphic,
    )
    names = None if result_names is None else sorted(result_names)
    return _flatbuffer(function_name, in_avals, out_avals, names, platforms, nr_devices, module, polymorphic)


# Sizes a symbolic dim is lowered at to find where it shows in the program: primes that an
# ordinary shape is unlikely to have, two per symbol (the same program at both, or no program).
SENTINELS = (7919, 7963, 8009, 8053, 8101, 8147, 8191, 8233)  # |a*s - a'*t| > 40 for a, a' <= 4


def symbolic_module(lower, arg_types, who: str = "to_jax", program_dims=()) -> str:
    """A module whose @main has dynamic dims (``?``) where ``arg_types`` (@main's arguments, str
    entries symbolic) name a symbol, made from concrete lowerings: ``lower(sizes)`` gives the
    program's StableHLO text with each symbol bound to ``sizes[symbol]`` (e.g. a Session's
    ``sess.lower`` with feeds of those shapes). The program is lowered at two distinctive sizes
    per symbol; each lowering gets its dim made dynamic (jax_module.make_dim_dynamic), and the two
    results must be the same program, else the program depends on the dim's value in a way that
    cannot be read from the arguments' shapes (an attribute, a constant derived from it) and
    that is a GraphError (its message starts with ``who``): it is then exported for concrete
    shapes only. ``program_dims``: the symbolic dims the program's tensors have (spellings, e.g.
    ``(batch + 1) // 2`` of ``x[::2]``); a dim of a lowering that equals one of them at the
    distinctive size is computed from the symbol as that expression."""
    where = user_location()
    symbols = list(
        dict.fromkeys(
            s for shape, _ in arg_types for d in shape if isinstance(d, str) for s in dims.symbols(d)
        )
    )
    if not symbols:
        raise GraphError(located("symbolic_module: the argument types name no symbolic dim", where))
    if 2 * len(symbols) > len(SENTINELS):
        raise GraphError(
            located(f"symbolic_module: at most {len(SENTINELS) // 2} symbols, got {symbols}", where)
        )
    forms = {s: [dims.poly_of(d) for d in program_dims if dims.symbols(d) == (s,)] for s in symbols}
    texts = []
    for attempt in (0, 1):
        sizes = {s: SENTINELS[2 * k + attempt] for k, s in enumerate(symbols)}
        text = str(lower(dict(sizes)))
        for s in symbols:
            # the arguments with the dim: those that have it alone first (@main reads its value there;
            # else from an affine dim, 2 * n - 1, by solving for it)
            sources = sorted(
                ((i, j) for i, (shape, _) in enumerate(arg_types) for j, d in enumerate(shape)
                 if isinstance(d, str) and s in dims.symbols(d)),
                key=lambda ij: arg_types[ij[0]][0][ij[1]] != s,
            )  # fmt: skip
            if not sources:
                raise GraphError(
                    located(f"{who}: no argument's shape has the dim {s!r}, to read it from", where)
                )
            try:
                text = jax_module.make_dim_dynamic(text, sizes[s], sources, forms[s])
            except jax_module.NotGeneralizable as e:
                raise GraphError(located(f"{who}: the dim {s!r} cannot stay symbolic: {e}", where)) from None
        texts.append(text)
    if texts[0] != texts[1]:
        raise GraphError(located(
            f"{who}: the program depends on the value of {', '.join(map(repr, symbols))} in a way jax could "
            "not recompute from its arguments' shapes (an attribute or a constant derived from it): export "
            "it for concrete shapes", where))  # fmt: skip
    return texts[0]


def _check_module(module_args, module_results, targets, arg_types, result_types, platforms, where) -> None:
    """The module's @main has the types given (a symbolic dim over a dynamic one), no host
    callbacks, and custom calls only where one platform runs it."""
    callbacks = sorted({t for t in targets if t in HOST_CALLBACK_TARGETS})
    if callbacks:
        raise GraphError(located(
            f"to_jax: the program calls back into Python ({', '.join(callbacks)}); a jax process "
            "could not run those callbacks: export it without prints, checks or callbacks", where))  # fmt: skip
    if len(platforms) > 1 and targets:
        raise GraphError(located(
            f"to_jax: the program's custom calls ({', '.join(sorted(set(targets)))}) are kernels of one "
            f"platform, so it cannot be exported for {list(platforms)}: export for one platform", where))  # fmt: skip
    for what, have, want in (("argument", module_args, arg_types), ("result", module_results, result_types)):
        if len(have) != len(want):
            raise GraphError(located(
                f"to_jax: the module's @main has {len(have)} {what}s, the types given {len(want)}", where))  # fmt: skip
        for k, ((module_dims, element), (shape, dtype)) in enumerate(zip(have, want)):
            name = np.dtype(dtype).name
            if MLIR_ELEMENTS.get(name) != element or len(module_dims) != len(shape):
                raise GraphError(located(
                    f"to_jax: {what} {k} is {_spell(module_dims, element)} in the module but {name}{list(shape)} "
                    "in the types given", where))  # fmt: skip
            for i, (d, s) in enumerate(zip(module_dims, shape)):
                if isinstance(s, str) and d is not None:
                    raise GraphError(located(
                        f"to_jax: {what} {k}'s dim {i} is the symbol {s!r} but the module was lowered with "
                        f"it concrete ({_spell(module_dims, element)}); a module with concrete dims cannot become "
                        "shape-polymorphic: lower it with that dim dynamic, or give concrete types", where))  # fmt: skip
                if not isinstance(s, str) and d is not None and int(s) != d:
                    raise GraphError(located(
                        f"to_jax: {what} {k}'s dim {i} is {d} in the module but {s} in the types given", where))  # fmt: skip


def _spell(dims, element) -> str:
    return f"tensor<{'x'.join('?' if d is None else str(d) for d in dims)}{'x' if dims else ''}{element}>"


def _check_baked(baked: dict, arg_types, where) -> None:
    for i, value in baked.items():
        if not isinstance(i, int | np.integer) or not 0 <= i < len(arg_types):
            raise GraphError(
                located(f"to_jax: baked position {i!r} is not one of the {len(arg_types)} arguments", where)
            )
        shape, dtype = arg_types[i]
        arr = np.asarray(value)
        if any(isinstance(d, str) for d in shape):
            raise GraphError(
                located(f"to_jax: argument {i} has symbolic dims {tuple(shape)}; it cannot be baked", where)
            )
        if arr.shape != tuple(shape) or arr.dtype != np.dtype(dtype):
            raise GraphError(located(
                f"to_jax: the value baked into argument {i} is {arr.dtype}{list(arr.shape)}, the argument "
                f"{np.dtype(dtype)}{list(shape)}", where))  # fmt: skip


def _aval(type_, what: str, where) -> tuple[tuple[str, ...], int]:
    """(dims as jax spells them, DType code) of one ``(shape, dtype)``."""
    shape, dtype = type_
    name = np.dtype(dtype).name
    if name not in DTYPE_CODES:
        raise GraphError(located(f"to_jax: {what} is of dtype {name}, which jax.export cannot carry", where))
    spelled = []
    for d in shape:
        if isinstance(d, str):
            if not all(_SYMBOL.match(s) for s in _symbols_or_none(d)):
                raise GraphError(located(
                    f"to_jax: {what}'s symbolic dim {d!r} is not a name jax's shape polymorphism accepts "
                    "(letters, digits and underscores, not starting with a digit), nor an expression of "
                    "such names", where))  # fmt: skip
            spelled.append(jax_spelling(dims.poly_of(d)))
        else:
            spelled.append(str(int(d)))
    return tuple(spelled), DTYPE_CODES[name]


def jax_spelling(p) -> str:
    """A dim's poly (graph/poly.py) as jax's shape polymorphism spells it: sums and products as
    ours, ``e // k`` as ``floordiv(e, k)`` and ``e % k`` as ``mod(e, k)``."""
    out = []
    for monomial, c in p:
        atoms = [
            a
            if isinstance(a, str)
            else f"{'floordiv' if a.kind == '//' else 'mod'}({jax_spelling(a.operand)}, {a.k})"
            for a in monomial
        ]
        body = "*".join(([str(abs(c))] if abs(c) != 1 or not atoms else []) + atoms)
        out.append(("- " if c < 0 else "+ ") + body)
    text = " ".join(out) or "0"
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _symbols_or_none(d: str) -> tuple[str, ...]:
    """The symbols of a dim's spelling, ("",) (no name) when it is not a dim expression."""
    try:
        return dims.symbols(d) or ("",)
    except (GraphError, ValueError):
        return ("",)


# -- the flatbuffer ---------------------------------------------------------------
def _flatbuffer(name, in_avals, out_avals, result_names, platforms, nr_devices, module, polymorphic) -> bytes:
    """The Exported table of jax's schema (fields by slot number; see serialization.fbs)."""
    import flatbuffers  # noqa: PLC0415  (only an export to jax needs it: not loaded by `import stablegraph`)

    b = flatbuffers.Builder(1024 + len(module))
    unique = list(dict.fromkeys(in_avals + out_avals))
    index = {a: k for k, a in enumerate(unique)}

    fun_name = b.CreateString(name)
    leaves = lambda n: [_pytree(b, _PYTREE_LEAF) for _ in range(n)]  # noqa: E731
    in_tree = _pytree(
        b, _PYTREE_TUPLE, [_pytree(b, _PYTREE_TUPLE, leaves(len(in_avals))), _pytree(b, _PYTREE_DICT, [], [])]
    )
    if result_names is None:
        out_tree = _pytree(b, _PYTREE_TUPLE, leaves(len(out_avals)))
    else:
        out_tree = _pytree(b, _PYTREE_DICT, leaves(len(out_avals)), result_names)
    in_avals_vec = _tables(b, [_abstract_value(b, a) for a in in_avals])
    out_avals_vec = _tables(b, [_abstract_value(b, a) for a in out_avals])
    in_shardings = _tables(b, [_unspecified_sharding(b) for _ in in_avals])
    out_shardings = _tables(b, [_unspecified_sharding(b) for _ in out_avals])
    platforms_vec = _tables(b, [b.CreateString(p) for p in platforms])
    no_effects = _tables(b, [])
    no_unordered = _tables(b, [])
    no_checks = _tables(b, [])
    module_vec = b.CreateByteVector(module)
    kept = b.CreateNumpyVector(np.arange(len(in_avals), dtype=np.uint16))
    unique_vec = _tables(b, [_abstract_value(b, a) for a in unique])
    no_meshes = _tables(b, [])
    no_named = _tables(b, [])
    in_idx = b.CreateNumpyVector(np.array([index[a] for a in in_avals], dtype=np.uint32))
    out_idx = b.CreateNumpyVector(np.array([index[a] for a in out_avals], dtype=np.uint32))
    in_sh_idx = b.CreateNumpyVector(np.zeros(len(in_avals), dtype=np.uint32))  # 0: no sharding given
    out_sh_idx = b.CreateNumpyVector(np.zeros(len(out_avals), dtype=np.uint32))

    b.StartObject(26)
    b.PrependUint16Slot(0, SERIALIZATION_VERSION, 0)
    b.PrependUOffsetTRelativeSlot(1, fun_name, 0)
    b.PrependUOffsetTRelativeSlot(2, in_tree, 0)
    b.PrependUOffsetTRelativeSlot(3, in_avals_vec, 0)
    b.PrependUOffsetTRelativeSlot(4, out_tree, 0)
    b.PrependUOffsetTRelativeSlot(5, out_avals_vec, 0)
    b.PrependInt16Slot(6, min(nr_devices, 32767), 0)  # the field readers before 2026 look at
    b.PrependUOffsetTRelativeSlot(7, in_shardings, 0)
    b.PrependUOffsetTRelativeSlot(8, out_shardings, 0)
    b.PrependUOffsetTRelativeSlot(9, platforms_vec, 0)
    b.PrependUOffsetTRelativeSlot(10, no_effects, 0)
    b.PrependUOffsetTRelativeSlot(11, no_unordered, 0)
    b.PrependUOffsetTRelativeSlot(12, no_checks, 0)
    b.PrependUOffsetTRelativeSlot(13, module_vec, 0)
    b.PrependUint16Slot(14, CALLING_CONVENTION, 0)
    b.PrependUOffsetTRelativeSlot(15, kept, 0)
    b.PrependBoolSlot(16, polymorphic, False)
    b.PrependUint32Slot(18, nr_devices, 0)
    b.PrependUOffsetTRelativeSlot(19, unique_vec, 0)
    b.PrependUOffsetTRelativeSlot(20, no_meshes, 0)
    b.PrependUOffsetTRelativeSlot(21, no_named, 0)
    b.PrependUOffsetTRelativeSlot(22, in_idx, 0)
    b.PrependUOffsetTRelativeSlot(23, out_idx, 0)
    b.PrependUOffsetTRelativeSlot(24, in_sh_idx, 0)
    b.PrependUOffsetTRelativeSlot(25, out_sh_idx, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


def _tables(b: flatbuffers.Builder, offsets: list[int]) -> int:
    """A vector of tables or strings already written (offsets in the order they are read)."""
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _pytree(b: flatbuffers.Builder, kind: int, children=(), names=None) -> int:
    """A PyTreeDef table: a leaf, a tuple of ``children`` or a dict of them by ``names``."""
    kids = _tables(b, list(children)) if children else None
    keys = _tables(b, [b.CreateString(n) for n in names]) if names is not None else None
    b.StartObject(5)
    b.PrependInt8Slot(0, kind, 0)
    if kids is not None:
        b.PrependUOffsetTRelativeSlot(1, kids, 0)
    if keys is not None:
        b.PrependUOffsetTRelativeSlot(2, keys, 0)
    return b.EndObject()


def _abstract_value(b: flatbuffers.Builder, aval) -> int:
    """An AbstractValue table: a shaped array's dims (as strings: a number or a symbol) and dtype."""
    dims, code = aval
    shape = _tables(b, [b.CreateString(d) for d in dims])
    b.StartObject(4)
    b.PrependInt8Slot(0, 0, 0)  # shapedArray
    b.PrependUOffsetTRelativeSlot(1, shape, 0)
    b.PrependInt8Slot(2, code, 0)
    b.PrependInt8Slot(3, _DEVICE_MEMORY, 0)
    return b.EndObject()


def _unspecified_sharding(b: flatbuffers.Builder) -> int:
    b.StartObject(3)
    return b.EndObject()


__all__ = ["symbolic_module", "to_jax_bytes"]
