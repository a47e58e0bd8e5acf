"""sg.Exported: a program with its signature and variable values, to save, load and call (backend).

An Exported holds the program as StableHLO: the module_call attributes of
ops/primitives/module_call.py (the module, with its symbolic dims as dynamic
dims of @main, its declared types, and the programs exported with it: the
vectorized form, and with ``vjp=True`` the backward program; see
export_program.py), its signature (names, types with symbolic dims kept,
shardings, the mesh shape it was exported on) and the variables' values. The
file (export_file.py) holds each module as a StableHLO portable artifact with
its version; what a loaded export runs is that artifact, with no
stablegraph graph behind it.

Called with numpy values it runs in a Session of its own (made on first use,
on a mesh of the recorded shape, the inputs and variables laid out as the
signature says): one module_call node, refined to each new shape and compiled
once for it (the persistent compile cache makes a second process compile
nothing). Called with Tensors inside ``with g:``, it adds one library call
(``exported``) holding the module_call node, the variables as constants:
sg.grad goes through its backward program, sg.vectorize through its
vectorized one. Either way it returns a dict by output name.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..graph import Graph, GraphError, Tensor, TensorType, dtypes, located, placeholder, user_location
from ..graph.graph import library_call
from ..ops import constant
from ..ops.nn import initializers
from ..ops.primitives.module_call import ModuleCallAttrs, module_call
from ..ops.state import Variable
from ..sharding import make_mesh
from . import export_file
from .export_file import ExportError
from .export_program import module_json
from .jax_format import to_jax_bytes

FORMAT = "stablegraph.exported"


@dataclass(frozen=True)
class Port:
    """One input or output of an exported program: its name, type and sharding spec (None:
    replicated for an input, XLA's choice for an output)."""

    name: str
    type: TensorType
    sharding: tuple | None = None

    def __str__(self) -> str:
        dims = ", ".join(str(d) for d in self.type.shape)
        return f"{self.name}: {self.type.dtype.short}[{dims}]"


@dataclass(frozen=True)
class Signature:
    """What an exported program takes and gives: ``x: f32[batch, 64] -> probs: f32[batch, 10]``.
    ``mesh``: the mesh shape ({axis: size}) it was exported on, None for one device."""

    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    mesh: dict | None = None

    def __str__(self) -> str:
        return f"{', '.join(map(str, self.inputs))} -> {', '.join(map(str, self.outputs))}"

    def __repr__(self) -> str:
        return f"<Signature {self}>"

    @property
    def symbols(self) -> tuple[str, ...]:
        """The symbolic dims of the inputs, in order of first use."""
        seen = []
        for port in self.inputs:
            seen.extend(s for s in port.type.symbols if s not in seen)
        return tuple(seen)


class Exported:
    """A program exported by ``sess.export`` or ``sg.export``; save it with ``save(path)``, load it
    with ``sg.load_exported(path)``, call it by keyword or position (see the module docstring).

        srv = sg.load_exported("model.sgx")
        print(srv.signature)                        # x: f32[batch, 64] -> probs: f32[batch, 10]
        probs = srv(x=np.ones((5, 64), np.float32))["probs"]
    """

    def __init__(self, signature: Signature, variables: tuple[Port, ...], values: dict, call: ModuleCallAttrs,
                 *, vjp: bool = False, session_class=None, name: str = "exported"):  # fmt: skip
        self.signature = signature
        self.variables = variables  # the program's variable inputs, after the signature's inputs
        self.values = values  # {variable name: numpy value}
        self.call = call  # the program: module_call attributes (inputs then variables -> the outputs)
        self.vjp = vjp
        self.name = name
        self._session_class = session_class
        self._runner = None
        self._lock = threading.Lock()  # one thread makes the runner

    def __repr__(self) -> str:
        return f"<sg.Exported {self.signature}>"

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *args, **kwargs) -> dict:
        """The outputs by name, from numpy inputs (a run) or Tensors (nodes in the graph being built)."""
        values = self._arguments(args, kwargs)
        if any(isinstance(v, Tensor) for v in values):
            return self._in_graph(values)
        return self._session_runner()(values)

    def _session_runner(self) -> _Runner:
        with self._lock:
            if self._runner is None:
                self._runner = _Runner(self)
            return self._runner

    def _arguments(self, args, kwargs) -> list:
        names = [p.name for p in self.signature.inputs]
        if len(args) > len(names):
            raise GraphError(located(f"{self!r} takes {len(names)} inputs, got {len(args)}", user_location()))
        placed = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise GraphError(
                    located(
                        f"{self!r} has no input {key!r} (its inputs: {', '.join(names)})", user_location()
                    )
                )
            if key in placed:
                raise GraphError(
                    located(f"{self!r} got input {key!r} by position and by name", user_location())
                )
            placed[key] = value
        missing = [n for n in names if n not in placed]
        if missing:
            raise GraphError(located(f"{self!r} is missing inputs {', '.join(missing)}", user_location()))
        return [placed[n] for n in names]

    def _in_graph(self, values) -> dict:
        where = user_location()
        for k, (port, v) in enumerate(zip(self.signature.inputs, values)):
            if not isinstance(v, Tensor):
                values[k] = constant(np.asarray(v, port.type.dtype.np))
            elif v.type.dtype != port.type.dtype:
                raise GraphError(located(f"{self!r}: input {port.name} wants {port}, got {v.type}", where))
        with library_call("exported", name=self.name) as call:
            outs = self.apply([*values, *(constant(self.values[p.name]) for p in self.variables)])
            call.outputs = outs
        return dict(zip((p.name for p in self.signature.outputs), outs))

    def apply(self, tensors) -> list[Tensor]:
        """The outputs, in order, of the program called on ``tensors`` (the inputs, then the
        variables): one module_call node in the graph being built."""
        return module_call(self.call, list(tensors))

    # -- files -----------------------------------------------------------------------------
    def save(self, path) -> str:
        """Write this export to ``path`` as one checked, versioned file (atomically); returns it."""
        blobs: dict[str, bytes] = {}
        header = {
            "format": FORMAT,
            "name": self.name,
            "vjp": self.vjp,
            "mesh": self.signature.mesh,
            "inputs": [_port_json(p) for p in self.signature.inputs],
            "outputs": [_port_json(p) for p in self.signature.outputs],
            "variables": [_port_json(p) for p in self.variables],
            "program": module_json(self.call, blobs),
        }
        values = {p.name: self.values[p.name] for p in self.variables}
        return export_file.write(path, header, values, blobs)

    # -- StableHLO -------------------------------------------------------------------------
    def lower(self, **sizes):
        """The StableHLO this export compiles to for concrete ``sizes`` of its symbolic dims
        (``exp.lower(batch=8)``): an sg.Lowered (the text itself), arguments the inputs then the variables."""
        feeds = {}
        for port in self.signature.inputs:
            shape = tuple(sizes[d] if isinstance(d, str) and d in sizes else d for d in port.type.shape)
            if any(isinstance(d, str) for d in shape):
                raise GraphError(
                    located(
                        f"exp.lower needs a size for every symbolic dim of {port}, got {sizes}",
                        user_location(),
                    )
                )
            feeds[port.name] = np.zeros(shape, port.type.dtype.np)
        return self._session_runner().lower(feeds)

    def to_jax(self) -> bytes:
        """Bytes that ``jax.export.deserialize`` loads and runs: this program with its variables baked
        in, so the jax function takes the signature's inputs in order and returns a dict by output
        name; symbolic dims stay jax shape polymorphism (the stored module, through jax_format.py)."""
        call, where = self.call, user_location()
        n_in = len(self.signature.inputs)
        unused = [p.name for i, p in enumerate(self.signature.inputs) if i not in call.kept]
        if unused:
            raise GraphError(located(f"to_jax: the outputs do not depend on the inputs {unused}", where))
        types = [(tuple(t.shape), t.dtype.np) for t in call.in_types]
        arg_types = [types[i] for i in call.kept]
        baked = {k: self.values[self.variables[i - n_in].name] for k, i in enumerate(call.kept) if i >= n_in}
        result_types = [(tuple(t.shape), t.dtype.np) for t in call.out_types]
        return to_jax_bytes(
            call.module, arg_types, result_types, baked=baked, platforms=call.platforms,
            result_names=[p.name for p in self.signature.outputs], function_name=self.name,
        )  # fmt: skip


class _Runner:
    """An Exported's own Session: placeholders for its inputs, Variables holding its values, and
    one step callable per call (the Session compiles each new shape once)."""

    def __init__(self, exp: Exported):
        if exp._session_class is None:
            raise ExportError(f"{exp!r} has no Session to run in")
        sig = exp.signature
        self.graph = Graph(exp.name)
        with self.graph:
            self.inputs = [_placeholder(p) for p in sig.inputs]
            variables = [_variable(p) for p in exp.variables]
            self.outputs = exp.apply([*self.inputs, *variables])
        self.names = [p.name for p in sig.outputs]
        mesh = make_mesh(tuple(sig.mesh.values()), tuple(sig.mesh)) if sig.mesh else None
        self.session = exp._session_class(self.graph, mesh=mesh)
        for v, p in zip(variables, exp.variables):
            self.session.set(v, exp.values[p.name])
        self.step = self.session.make_callable(self.outputs, self.inputs)

    def __call__(self, values) -> dict:
        return dict(zip(self.names, self.step(*values)))

    def lower(self, feeds: dict):
        return self.session.lower(self.outputs, dict(zip(self.inputs, feeds.values())))


def _placeholder(port: Port) -> Tensor:
    return placeholder(port.type.shape, port.type.dtype, name=port.name, sharding=port.sharding)


def _variable(port: Port) -> Tensor:
    return Variable(
        initializers.zeros,
        port.type.shape,
        port.type.dtype,
        name=port.name,
        trainable=False,
        sharding=port.sharding,
    )


def _port_json(p: Port) -> dict:
    return {
        "name": p.name,
        "shape": [d if isinstance(d, int) else str(d) for d in p.type.shape],
        "dtype": p.type.dtype.name,
        "sharding": None
        if p.sharding is None
        else [list(e) if isinstance(e, tuple) else e for e in p.sharding],
    }


def port_from_json(raw: dict) -> Port:
    """A Port from its header entry (ValueError / KeyError / TypeError if malformed)."""
    shape = tuple(d if isinstance(d, int) else str(d) for d in raw["shape"])
    sharding = raw.get("sharding")
    if sharding is not None:
        sharding = tuple(tuple(e) if isinstance(e, list) else e for e in sharding)
    return Port(str(raw["name"]), TensorType(shape, dtypes.dtype(str(raw["dtype"]))), sharding)
