"""An exported function as StableHLO: the module_call attributes an sg.Exported runs (backend).

``program_call(fn, name, vjp=...)`` lowers ``fn`` (an sg.Function of its
inputs, then the variables it reads) through a one-device Session of a
graph of placeholders, its symbolic dims made dynamic dims of @main
(session_to_jax.lowered_program: two lowerings at distinctive sizes, made one
module), and gives the ``ModuleCallAttrs`` of ops/primitives/module_call.py
with the programs exported beside it: the function vectorized over a new
symbolic leading axis of every argument (so a loaded export vectorizes), and
with ``vjp=True`` its backward program (primals..., cotangents...) -> the
primals' cotangents, which has its own vectorized form, as the vectorized
form has its own backward program. One level of each: a second derivative or
a vectorized vectorization is a clear GraphError where it is asked for
(module_call's rules say so).

The program is lowered without a mesh: the same module runs on one device or
on a mesh, where the Session that calls it lays it out from the signature's
shardings (a sharding constraint inside the program has no mesh to name at
export and is left out; an sg.spmd region needs one, and refuses export).

``module_json`` / ``module_from_json`` write these attributes into an export
file's header with each module as a StableHLO portable artifact (a blob the
file holds), and read them back; the loaded program is the stored artifact.
"""

from __future__ import annotations

import functools

from ..graph import Graph, GraphError, StablegraphError, function, located, placeholder
from ..ops.primitives import hlo
from ..ops.primitives.ad_util import zeros_like
from ..ops.primitives.module_call import ModuleCallAttrs
from ..transforms import gradients, vectorize
from .session_to_jax import lowered_program

BATCH_SYMBOL = "sg_export_batch"  # the leading axis of the vectorized program (a name no user picks)
_NO_MESH = "export lowers the program on one device without a mesh (so that it runs anywhere), where it fails"


def program_call(fn, name: str, *, vjp: bool, where, session_class, shared: int = 0) -> ModuleCallAttrs:
    """The module_call attributes of ``fn`` (one result per result of ``fn``) with the programs
    exported beside it (see the module docstring), lowered through Sessions of ``session_class``
    (passed in: the Session module imports this one). The last ``shared`` params (the variables)
    stay unbatched in the vectorized programs: vectorizing a call does not copy the weights."""
    lowered = functools.partial(_lowered, session_class=session_class)
    unbatched = set(range(len(fn.in_types) - shared, len(fn.in_types)))
    attrs = _with_batched(
        lowered(fn, name, where), _batched(lowered, fn, unbatched, name, where), unbatched, fn
    )
    if not vjp:
        return attrs
    backward_fn = _backward_fn(fn)
    backward = _lowered_backward(lowered, fn, name, where)
    backward = _with_batched(
        backward, _batched(lowered, backward_fn, unbatched, f"vjp_{name}", where), unbatched, backward_fn
    )
    batched = attrs.batched_call
    if batched is not None:
        try:  # an extra, like the vectorized form: without it, sg.grad of the vectorized call says so
            batched = batched.model_copy(
                update={
                    "vjp_call": _lowered_backward(lowered, _vectorized(fn, unbatched), f"vmap_{name}", where)
                }
            )
        except StablegraphError:
            pass
    return attrs.model_copy(update={"vjp_call": backward, "batched_call": batched})


def _with_batched(attrs: ModuleCallAttrs, batched, unbatched: set, fn) -> ModuleCallAttrs:
    """``attrs`` with its vectorized program, and which arguments that takes batched."""
    args = None if not unbatched else tuple(k for k in range(len(fn.in_types)) if k not in unbatched)
    return attrs.model_copy(update={"batched_call": batched, "batched_args": args})


def _lowered(fn, name: str, where, session_class) -> ModuleCallAttrs:
    """``fn`` as one module: @main takes the params ``fn`` uses and returns each of its results (a
    run without train ops returns every fetch, repeated ones too)."""
    graph = Graph(f"export_{name}")
    with graph:
        params = [placeholder(t.shape, t.dtype, name=f"arg{k}") for k, t in enumerate(fn.in_types)]
        outs = fn(*params)
    outs = list(outs) if isinstance(outs, list | tuple) else [outs]
    with session_class(graph) as sess:
        text, plan, kept = lowered_program(sess, tuple(outs), params, where, who="export", context=_NO_MESH)
        platform = sess.devices[0].platform
    if plan.state_in or plan.state_out:  # fn's state reads are params: this is a stablegraph bug
        raise GraphError(
            located(f"export: the program {name} still reads or writes state {plan.state_in}", where)
        )
    return ModuleCallAttrs(
        name=name,
        module=hlo.without_locations(text),
        in_shapes=tuple(tuple(t.shape) for t in fn.in_types),
        in_dtypes=tuple(t.dtype for t in fn.in_types),
        out_shapes=tuple(tuple(t.type.shape) for t in outs),
        out_dtypes=tuple(t.type.dtype for t in outs),
        kept=tuple(kept),
        platforms=(platform,),
    )


def _vectorized(fn, unbatched: set):
    """``fn`` over a new leading axis (the symbol BATCH_SYMBOL) of every argument but those at
    ``unbatched``, and of every result."""
    in_axes = tuple(None if k in unbatched else 0 for k in range(len(fn.in_types)))
    return vectorize(fn, in_axes=in_axes, axis_size=BATCH_SYMBOL)


def _batched(lowered, fn, unbatched: set, name: str, where) -> ModuleCallAttrs | None:
    """The module of ``fn`` vectorized; None (vectorizing the call then says so) when it cannot be."""
    try:
        return lowered(_vectorized(fn, unbatched), f"vmap_{name}", where)
    except StablegraphError:
        return None


def _backward_fn(fn):
    """(primals..., cotangents of the results...) -> the primals' cotangents (zeros for integer
    primals; integer results' cotangents are taken and ignored)."""
    n = len(fn.in_types)
    types = [*fn.in_types, *fn.out_types]

    def backward(*args):
        primals, cts = args[:n], args[n:]
        outs = fn(*primals)
        outs = list(outs) if isinstance(outs, list | tuple) else [outs]
        pairs = [(y, ct) for y, ct in zip(outs, cts) if y.type.dtype.is_floating]
        wrt = [k for k, p in enumerate(primals) if p.type.dtype.is_floating]
        grads = [zeros_like(p) for p in primals]
        if pairs and wrt:
            found = gradients([y for y, _ in pairs], [primals[k] for k in wrt], [ct for _, ct in pairs])
            for k, g in zip(wrt, found):
                grads[k] = g
        return grads

    return function(backward, types, name=f"vjp_{fn.name}")


def _lowered_backward(lowered, fn, name: str, where) -> ModuleCallAttrs:
    """The module of ``fn``'s backward program; a GraphError at the export when it has none."""
    try:
        return lowered(_backward_fn(fn), f"vjp_{name}", where)
    except StablegraphError as e:
        raise GraphError(
            located(f"export(vjp=True): the program's gradient cannot be exported: {e}", where)
        ) from None


class NewerStablehlo(ValueError):
    """A stored module is at a StableHLO version newer than this jaxlib reads."""


# -- in the export file -----------------------------------------------------------------------
def module_json(attrs: ModuleCallAttrs, blobs: dict[str, bytes], path: str = "program") -> dict:
    """``attrs`` as JSON, each module put in ``blobs`` (under a name the JSON gives) as a StableHLO
    portable artifact at the version recorded beside it."""
    version, blobs[path] = hlo.artifact_of_text(attrs.module)
    raw = attrs.model_dump(mode="json", exclude={"module", "vjp_call", "batched_call"})
    raw["module"] = {"artifact": path, "stablehlo_version": version}
    for key, sub in (("vjp_call", attrs.vjp_call), ("batched_call", attrs.batched_call)):
        raw[key] = None if sub is None else module_json(sub, blobs, f"{path}/{key}")
    return raw


def module_from_json(raw: dict, blobs: dict) -> ModuleCallAttrs:
    """The attributes ``module_json`` wrote (ValueError / KeyError / TypeError if malformed)."""
    fields = dict(raw)
    for key in ("vjp_call", "batched_call"):
        fields[key] = None if raw.get(key) is None else module_from_json(raw[key], blobs)
    blob = blobs[str(raw["module"]["artifact"])]
    version, newest = str(raw["module"]["stablehlo_version"]), hlo.stablehlo_version()
    if _version(version) > _version(newest):
        raise NewerStablehlo(
            f"its program is StableHLO {version}; this jaxlib reads up to {newest}: load it with a newer jaxlib"
        )
    fields["module"] = hlo.text_of_artifact(blob)
    return ModuleCallAttrs.model_validate(fields)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


__all__ = ["BATCH_SYMBOL", "NewerStablehlo", "module_from_json", "module_json", "program_call"]
