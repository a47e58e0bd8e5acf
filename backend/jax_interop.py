"""JAX code inside a graph: ``sg.from_jax(fn, *tensors)`` and ``sg.import_jax_exported`` (backend).

jax is the user's dependency, not ours (the optional extra ``stablegraph[jax]``),
and the library never imports it: these functions work with the jax the caller
has already imported (``fn`` is jax code; an Exported comes from jax), found in
``sys.modules``, and say so when there is none. The function is exported with ``jax.export`` for the tensors' types (their
symbolic dims as jax shape polymorphism, one symbolic scope for all of
them), for CPU and CUDA, and becomes one ``module_call`` node (ops/primitives/
module_call.py) whose attributes also carry jax's exported vjp and the
export of ``jax.vmap(fn)`` over a new symbolic leading axis, so sg.grad and
sg.vectorize work through the node. Results come back in fn's structure.
"""

from __future__ import annotations

import contextlib
import sys

from ..graph import GraphError, Tensor, TensorType, dtypes, located, user_location
from ..graph.graph import library_call
from ..ops import constant
from ..ops.primitives import hlo
from ..ops.primitives.module_call import ModuleCallAttrs, module_call

PLATFORMS = ("cpu", "cuda")  # what sg.from_jax exports for (module_call picks one when lowering)
BATCH_SYMBOL = "sg_vmap_batch"  # the leading axis of the batched export (a name no user picks)


def from_jax(fn, *tensors, order: int = 2):
    """``fn(*tensors)`` for a JAX function ``fn``, as one node of the graph being built.

    ``tensors`` are Tensors (or numpy values, made constants); fn gets jax arrays
    of their types (symbolic dims become jax symbolic dims) and may return any
    pytree of arrays: the result is the same pytree of Tensors. Gradients come
    from an export of fn's vjp, vectorization from an export of ``jax.vmap(fn)``,
    and those have theirs, ``order`` levels deep (2: hessians, forward mode,
    vectorized gradients; each level exports more programs at build time).

        y = sg.from_jax(lambda x: jax.nn.gelu(x) * 2, x)
    """
    where = user_location()
    jax = _users_jax("sg.from_jax", where)
    args = [_as_tensor(t) for t in tensors]
    types = [t.type for t in args]

    def flat(*xs):
        return jax.tree_util.tree_leaves(fn(*xs))

    # 64-bit operands are exported as such for this call only (there is no global switch to ask for)
    wide = any(t.dtype.bits == 64 or t.dtype.name == "complex128" for t in types)
    with jax.enable_x64(True) if wide else contextlib.nullcontext():
        try:
            exp = _export(jax, jax.jit(fn), types)
        except Exception as e:  # jax's tracing and export errors: say which call failed, at the user's line
            raise GraphError(located(f"sg.from_jax: jax could not export {_name(fn)}: {e}", where)) from None
        attrs = _module(jax, flat, types, _name(fn), int(order), exp)
    return _call(jax, exp, args, attrs, where)


def import_jax_exported(exported, *tensors):
    """The ``jax.export.Exported`` ``exported`` called on ``tensors``, as one node of the graph being
    built; gradients come from its vjp (``exported.vjp()``; it can't be vectorized: no function is
    left to vmap). Returns its results in its output structure."""
    where = user_location()
    jax = _users_jax("sg.import_jax_exported", where)
    args = [_as_tensor(t) for t in tensors]
    if len(args) != len(exported.in_avals):
        raise GraphError(
            located(f"import_jax_exported: {exported.fun_name} takes {len(exported.in_avals)} arrays, got {len(args)}",
                    where)
        )  # fmt: skip
    return _call(jax, exported, args, _attrs(exported, exported.fun_name, with_vjp=True), where)


def _users_jax(who: str, where):
    """The jax module the caller imported (their code is jax code, so it is loaded); a GraphError at
    their line if it is not."""
    jax = sys.modules.get("jax")
    if jax is None or not hasattr(jax, "export"):
        raise GraphError(
            located(f"{who} runs JAX code with the caller's jax, which is not loaded: import it before this call (pip install 'stablegraph[jax]')",
                    where)
        )  # fmt: skip
    return jax


def _module(jax, flat, types, name: str, depth: int, exp=None) -> ModuleCallAttrs:
    """The module_call attributes of ``flat`` (a function of arrays returning a list of arrays) for
    ``types``, with the modules of its vjp and of its vmap ``depth`` levels deep. A level jax
    cannot export is left out (the rule that needs it says so)."""
    exp = exp or _export(jax, jax.jit(flat), types)
    vjp = batched = None
    if depth > 0:
        outs = [TensorType(_shape(a.shape), _dtype(a.dtype)) for a in exp.out_avals]
        if all(t.dtype.is_floating for t in (*types, *outs)):
            vjp = _maybe(
                lambda: _module(
                    jax, _pullback(jax, flat, len(types)), [*types, *outs], f"vjp_{name}", depth - 1
                )
            )
        else:  # integers' cotangents are float0: jax's own exported vjp handles them (one level)
            vjp = _maybe(lambda: _attrs(exp.vjp(), f"vjp_{name}", with_vjp=False))
        axis = f"{BATCH_SYMBOL}_{depth}"  # nested vmaps get distinct batch symbols
        btypes = [TensorType((axis, *t.shape), t.dtype) for t in types]
        batched = _maybe(lambda: _module(jax, jax.vmap(flat), btypes, f"vmap_{name}", depth - 1))
    return _attrs(exp, name, with_vjp=False, vjp=vjp, batched=batched)


def _pullback(jax, flat, n: int):
    """flat's vjp as a function of (primals..., cotangents...) -> the primals' cotangents."""

    def vjp(*args):
        _, pull = jax.vjp(flat, *args[:n])
        return list(pull(list(args[n:])))

    return vjp


def _maybe(make):
    try:
        return make()
    except Exception:  # noqa: BLE001  (jax could not differentiate or vmap it: that rule says so)
        return None


def _export(jax, jitted, types):
    """jax.export of ``jitted`` for ``types``: for CPU and CUDA (the program picks its branch by
    the platform it is lowered for), else for CPU alone when jax cannot lower it for CUDA here."""
    specs = _specs(jax, types)
    try:
        return jax.export.export(jitted, platforms=PLATFORMS)(*specs)
    except Exception:  # noqa: BLE001  (e.g. a kernel jax has only for CPU in this install)
        return jax.export.export(jitted, platforms=("cpu",))(*specs)


def _call(jax, exp, args, attrs: ModuleCallAttrs, where):
    if exp.ordered_effects or exp.nr_devices != 1:
        raise GraphError(
            located(
                f"sg.from_jax: {attrs.name} has ordered effects or runs on {exp.nr_devices} devices", where
            )
        )
    try:
        with library_call("from_jax", name=attrs.name) as call:
            outs = module_call(attrs, args)
            call.outputs = outs
    except GraphError as e:
        raise GraphError(located(str(e), where)) from None
    return jax.tree_util.tree_unflatten(exp.out_tree, outs)


def _attrs(exp, name: str, *, with_vjp: bool, vjp=None, batched=None) -> ModuleCallAttrs:
    """The module_call attributes of a jax Exported (``with_vjp``: with its own vjp's, one level)."""
    if with_vjp and exp.has_vjp():
        try:
            vjp = _attrs(exp.vjp(), f"vjp_{name}", with_vjp=False)
        except Exception:  # noqa: BLE001  (not differentiable: the vjp rule says so when asked)
            vjp = None
    return ModuleCallAttrs(
        name=name,
        module=hlo.without_locations(exp.mlir_module()),
        in_shapes=tuple(_shape(a.shape) for a in exp.in_avals),
        in_dtypes=tuple(_dtype(a.dtype) for a in exp.in_avals),
        out_shapes=tuple(_shape(a.shape) for a in exp.out_avals),
        out_dtypes=tuple(_dtype(a.dtype) for a in exp.out_avals),
        kept=tuple(sorted(exp.module_kept_var_idx)),
        platforms=tuple(exp.platforms),
        vjp_call=vjp,
        batched_call=batched,
    )


def _specs(jax, types) -> list:
    """jax.ShapeDtypeStructs of our types, symbolic dims in one jax symbolic scope."""
    scope = jax.export.SymbolicScope()
    out = []
    for t in types:
        shape = tuple(t.shape)
        if any(isinstance(d, str) for d in shape):
            spec = ", ".join(str(d) for d in shape) if shape else ""
            shape = jax.export.symbolic_shape(spec, scope=scope)
        out.append(jax.ShapeDtypeStruct(shape, t.dtype.np))
    return out


def _shape(shape) -> tuple:
    return tuple(d if isinstance(d, int) else str(d) for d in shape)


def _dtype(dt):
    # jax's float0 (the cotangent of an integer) is lowered as i1
    return dtypes.dtype("bool" if "float0" in str(dt) else str(dt))


def _as_tensor(t) -> Tensor:
    return t if isinstance(t, Tensor) else constant(t)


def _name(fn) -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return "jax_" + ("lambda" if name == "<lambda>" else name)
