"""sg.Exported: a program with its signature and variable values, to save, load and call (backend).

An Exported holds the program as a stablegraph graph (placeholders for its
inputs and for the variables it reads, then its nodes; symbolic dims kept),
its signature (names, types, shardings, the mesh shape it was exported on)
and the variables' values. The graph is the portable part: saved as the
JSON document of graph/serialize.py inside one checked file
(export_file.py), it lowers to StableHLO for any concrete shapes, so one
export answers every batch size, and inside another graph it is inlined as
one library call, which sg.grad and sg.vectorize see through.

Called with numpy values it runs in a Session of its own (made on first use,
on a mesh of the recorded shape): every new shape compiles once (and the
persistent compile cache makes a second process compile nothing). Called
with Tensors inside ``with g:``, it adds its nodes to ``g`` as one library
call, the variables as constants. Either way it returns a dict by output name.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..graph import (
    Graph,
    GraphError,
    Tensor,
    TensorType,
    dtypes,
    extract,
    located,
    placeholder,
    user_location,
)
from ..graph.graph import library_call
from ..ops import constant
from ..ops.nn import initializers
from ..ops.state import Variable
from ..sharding import make_mesh
from . import export_file
from . import feeds as feeding
from .export_file import ExportError
from .session_to_jax import session_to_jax

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

    def __init__(self, program: Graph, tensors: tuple[list[str], list[str]], signature: Signature,
                 variables: tuple[Port, ...], values: dict, *, vjp: bool = False, session_class=None,
                 name: str = "exported"):  # fmt: skip
        self.program = program
        self.tensors = tensors  # the names in ``program`` of (inputs then variables, outputs)
        self.signature = signature
        self.variables = variables  # the program's variable inputs, after the signature's inputs
        self.values = values  # {variable name: numpy value}
        self.vjp = vjp
        self.name = name
        self._session_class = session_class
        ins = [feeding.resolve(program, t) for t in tensors[0]]
        outs = [feeding.resolve(program, t) for t in tensors[1]]
        self.function = extract(program, outs, ins, name=name)
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
        with library_call("exported", name=self.name) as call:
            consts = [constant(self.values[p.name]) for p in self.variables]
            outs = self.function(*values, *consts)
            call.outputs = list(outs)
        return dict(zip((p.name for p in self.signature.outputs), outs))

    # -- files -----------------------------------------------------------------------------
    def save(self, path) -> str:
        """Write this export to ``path`` as one checked, versioned file (atomically); returns it."""
        header = {
            "format": FORMAT,
            "name": self.name,
            "vjp": self.vjp,
            "mesh": self.signature.mesh,
            "inputs": [_port_json(p) for p in self.signature.inputs],
            "outputs": [_port_json(p) for p in self.signature.outputs],
            "variables": [_port_json(p) for p in self.variables],
            "tensors": [list(self.tensors[0]), list(self.tensors[1])],
            "program": self.program.to_json(),
        }
        return export_file.write(path, header, {p.name: self.values[p.name] for p in self.variables})

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
        name; symbolic dims stay jax shape polymorphism (backend/session_to_jax.py)."""
        runner = self._session_runner()
        outputs = dict(zip(runner.names, runner.outputs))
        inputs = {p.name: t for p, t in zip(self.signature.inputs, runner.inputs)}
        return session_to_jax(runner.session, outputs, inputs, function_name=self.name)


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
            outs = exp.function(*self.inputs, *variables)
        self.outputs = list(outs)
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
