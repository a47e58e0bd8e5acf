"""``sg.load_exported(path)`` and ``sg.export(fn, *example_types)`` (backend).

Loading reads the checked file (export_file.py), validates its header and
reads the program's StableHLO portable artifacts (export_program.py): the
loaded Exported runs them, and no graph-building code is involved (nothing
in the file is imported or run; the JSON is parsed as data). A version 1
file (the program as a stablegraph graph, graph/serialize.py) still loads:
its graph is lowered to StableHLO here, as an export would, with its
backward program (every version 1 export was differentiable). Anything
malformed is an ExportError naming the file. ``sg.export`` builds ``fn`` on
placeholders of the example types in a graph of its own and exports it from
a Session of that graph (its Variables, if it makes any, at their initial
values).
"""

from __future__ import annotations

import os

from ..graph import (
    Function,
    Graph,
    GraphError,
    StablegraphError,
    TensorType,
    extract,
    flatten,
    located,
    placeholder,
    user_location,
)
from . import export_file
from .export_file import ExportError
from .export_program import NewerStablehlo, module_from_json, program_call
from .exported import FORMAT, Exported, Signature, port_from_json
from .session import Session


def load_exported(path) -> Exported:
    """The Exported saved at ``path`` by ``exp.save(path)``; call it by keyword or position.

    srv = sg.load_exported("model.sgx")
    out = srv(x=np.ones((5, 64), np.float32))     # {"probs": array of shape (5, 10)}
    """
    path = os.fspath(path)
    version, header, arrays, blobs = export_file.read(path)
    try:
        if header.get("format") != FORMAT:
            raise ValueError(f"its format is {header.get('format')!r}, not {FORMAT!r}")
        inputs = tuple(port_from_json(p) for p in header["inputs"])
        outputs = tuple(port_from_json(p) for p in header["outputs"])
        variables = tuple(port_from_json(p) for p in header["variables"])
        mesh = header.get("mesh")
        mesh = None if mesh is None else {str(k): int(v) for k, v in dict(mesh).items()}
        for p in variables:
            value = arrays[p.name]
            if value.shape != tuple(p.type.shape) or value.dtype != p.type.dtype.np:
                raise ValueError(f"variable {p.name} is {p.type}, its value {value.dtype}{list(value.shape)}")
        name, vjp = str(header.get("name", "exported")), bool(header.get("vjp"))
        if version == 1:
            call, vjp = _program_of_graph(header, name, len(variables)), True
        else:
            call = module_from_json(header["program"], blobs)
        _check_program(call, inputs, outputs, variables)
        return Exported(
            Signature(inputs, outputs, mesh), variables, arrays, call,
            vjp=vjp, session_class=Session, name=name,
        )  # fmt: skip
    except NewerStablehlo as e:
        raise ExportError(f"{path} cannot be read here: {e}") from None
    except (ValueError, KeyError, TypeError, AttributeError, StablegraphError) as e:
        if isinstance(e, ExportError):
            raise
        raise ExportError(f"{path} is corrupt: {e}") from None


def _program_of_graph(header: dict, name: str, shared: int):
    """A version 1 file's program (a stablegraph graph: its inputs, then variables -> outputs by
    tensor name) lowered to StableHLO now, with its backward program."""
    program = Graph.from_json(header["program"])
    ins, outs = ([program.tensor(str(t)) for t in part] for part in header["tensors"])
    fn = extract(program, outs, ins, name=name)
    return program_call(fn, name, vjp=True, where=user_location(), session_class=Session, shared=shared)


def _check_program(call, inputs, outputs, variables) -> None:
    """The program takes the signature's inputs then the variables and gives each output
    (ValueError when the header's parts disagree)."""
    want = [p.type for p in (*inputs, *variables)]
    if [(t.shape, t.dtype) for t in call.in_types] != [(t.shape, t.dtype) for t in want]:
        raise ValueError(f"its program takes {call.in_types}, its signature gives {want}")
    if [(t.shape, t.dtype) for t in call.out_types] != [(p.type.shape, p.type.dtype) for p in outputs]:
        raise ValueError(f"its program gives {call.out_types}, its signature {[p.type for p in outputs]}")


def export(fn, *example_types, vjp: bool = False) -> Exported:
    """An sg.Exported of ``fn`` (a Python function building ops, or an sg.Function) for inputs of
    ``example_types`` (TensorTypes, or anything with a shape and dtype; str dims stay symbolic).
    Its outputs are named by ``fn``'s dict keys, else ``out`` (one) or ``out0``, ``out1``, ...

        exp = sg.export(lambda x: {"y": snp.tanh(x)}, sg.TensorType(("batch", 3), sg.float32))
    """
    where = user_location()
    types = [_as_type(t, where) for t in example_types]
    names = _param_names(fn, len(types))
    graph = Graph(getattr(fn, "name", None) or getattr(fn, "__name__", "exported").strip("<>"))
    with graph:
        inputs = [placeholder(t.shape, t.dtype, name=n) for t, n in zip(types, names)]
        out = fn(*inputs)
    if isinstance(out, dict):
        outputs = {str(k): v for k, v in out.items()}
    else:
        leaves, _ = flatten(out)
        outputs = {"out": leaves[0]} if len(leaves) == 1 else {f"out{i}": v for i, v in enumerate(leaves)}
    with Session(graph) as sess:
        return sess.export(outputs, dict(zip(names, inputs)), vjp=vjp)


def _as_type(t, where) -> TensorType:
    if isinstance(t, TensorType):
        return t
    if hasattr(t, "shape") and hasattr(t, "dtype"):
        return TensorType(tuple(t.shape), t.dtype)
    raise GraphError(located(f"sg.export wants example types (TensorTypes), got {t!r}", where))


def _param_names(fn, n: int) -> list[str]:
    if isinstance(fn, Function):
        return [p.node.name for p in fn.params]
    import inspect

    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        params = []
    params = params[:n]
    return params + [f"arg{i}" for i in range(len(params), n)]
