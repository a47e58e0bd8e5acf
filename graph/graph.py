"""Graph: an append-only, topologically ordered list of Nodes (graph layer).

Ops are added only inside an explicit ``with g:`` block (or while a Function
is being built); there is no hidden default graph. Name scopes live on the
entered graph's frame, so ``with g, sg.name_scope("model"):`` prefixes every
node built inside with ``model/``. Library calls (``library_call``, see
calls.py) open on a frame too; every node built while one is open belongs
to it, also across a nested ``with g:`` (optimizers use one to name state
after its variable), but not across ``g.singleton`` (a graph's one seed or
step is nobody's).
"""

from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager

from .calls import Call
from .errors import GraphError, located
from .location import SourceLocation, user_location
from .node import Node
from .nxview import ancestors, to_networkx
from .printing import display_bundle, display_html, graph_listing
from .tensor import Tensor
from .types import TensorType

_state = threading.local()
_unnamed = itertools.count(1)


class _Frame:
    """One ``with g:``: the graph, its open name scopes and library calls; a ``barrier``
    (``g.singleton``) hides the calls of the frames below it."""

    __slots__ = ("graph", "scopes", "calls", "barrier")

    def __init__(self, graph: Graph, barrier: bool = False):
        self.graph, self.scopes, self.calls, self.barrier = graph, [], [], barrier


def _frames() -> list[_Frame]:
    frames = getattr(_state, "frames", None)
    if frames is None:
        frames = _state.frames = []
    return frames


def current_graph() -> Graph:
    """The graph being built, or a GraphError that says how to open one."""
    frames = _frames()
    if not frames:
        raise GraphError(
            located(
                "no graph is being built: create one with g = sg.Graph() and build ops inside `with g:`",
                user_location(),
            )
        )
    return frames[-1].graph


def building() -> bool:
    return bool(_frames())


@contextmanager
def name_scope(name: str):
    """Prefix the names of nodes built inside with ``name/`` (nests)."""
    frames = _frames()
    if not frames:
        raise GraphError(located("sg.name_scope needs an enclosing `with g:`", user_location()))
    if not name or "/" in name or ":" in name:
        raise GraphError(located(f"bad name scope {name!r}: no '/' or ':'", user_location()))
    scopes = frames[-1].scopes
    scopes.append(name)
    try:
        yield "/".join(scopes)
    finally:
        scopes.pop()


@contextmanager
def library_call(fn: str, name: str | None = None, scope: bool = True):
    """Record what the body builds as one call of library function ``fn`` (see calls.py).

    ``name`` opens a name scope for it, made unique in the current scope
    (``relu``, then ``relu_1``); the call is named by that scope's path. With
    ``scope=False`` the call is named ``<current scope>/<name>`` and opens no
    scope (a Generator whose variable must keep its own name); with no
    ``name`` it is named by the current scope (an optimizer's update, built
    under the variable's name). Yields the ``Call``; set ``call.outputs`` to
    what the function returns. A call that builds nothing is not recorded.
    """
    graph = current_graph()
    frame = _frames()[-1]
    current = graph._current_scope()
    if name is not None and scope:
        with name_scope(graph.free_scope(name)) as path:
            yield from _open(frame, Call(path, fn, graph.open_call()))
        return
    path = current if name is None else (f"{current}/{name}" if current else name)
    yield from _open(frame, Call(path or fn, fn, graph.open_call()))


def _open(frame: _Frame, call: Call):
    frame.calls.append(call)
    try:
        yield call
    finally:
        frame.calls.pop()


@contextmanager
def emitting_for(location, origin: str | None = None):
    """Give nodes built inside the source location of the node they derive from.

    Transforms use it so that, e.g., gradient nodes point at the user's line
    of the forward op rather than at the line that asked for the gradient.
    ``origin`` (that node's name) is kept on each node as ``derived_from``,
    so drawings can tie a gradient node to its forward node.
    """
    previous = getattr(_state, "emitting_for", None), getattr(_state, "origin", None)
    _state.emitting_for, _state.origin = location, origin
    try:
        yield
    finally:
        _state.emitting_for, _state.origin = previous


class Graph:
    """A computation graph: nodes in the order they were built."""

    def __init__(self, name: str | None = None):
        # unnamed graphs get distinct names, so messages can tell two of them apart
        self.name = name if name is not None else f"graph_{next(_unnamed)}"
        self.nodes: list[Node] = []
        self.calls: list[Call] = []  # library calls, each after the call it was made in
        self._by_name: dict[str, Node] = {}
        self._name_counts: dict[str, int] = {}
        self._taken: set[str] = set()  # node names, their scopes and call names
        self._memos: dict[str, dict] = {}

    # -- building -------------------------------------------------------------
    def __enter__(self) -> Graph:
        _frames().append(_Frame(self))
        return self

    def __exit__(self, *exc) -> None:
        frames = _frames()
        if not frames or frames[-1].graph is not self:
            raise GraphError("graphs must be exited in the order they were entered")
        frames.pop()

    def _current_scope(self) -> str:
        for frame in reversed(_frames()):
            if frame.graph is self:
                return "/".join(frame.scopes)
        return ""

    def open_call(self) -> Call | None:
        """The innermost library call open on this graph (nodes built now belong to it), or None."""
        for frame in reversed(_frames()):
            if frame.graph is self:
                if frame.calls:
                    return frame.calls[-1]
                if frame.barrier:
                    return None
        return None

    def free_scope(self, base: str) -> str:
        """``base``, or ``base_1``, ``base_2``... : a scope name no node or call uses yet here."""
        scope = self._current_scope()
        candidate, n = base, 0
        while (f"{scope}/{candidate}" if scope else candidate) in self._taken:
            n += 1
            candidate = f"{base}_{n}"
        return candidate

    def add_call(self, call: Call) -> None:
        """Record ``call`` (and the calls around it, first) as this graph's next calls."""
        for c in call.chain():
            if c.id is None:
                c.id = len(self.calls)
                self.calls.append(c)
                self._taken.add(c.name)

    def _take(self, name: str) -> None:
        while name and name not in self._taken:
            self._taken.add(name)
            name = name.rpartition("/")[0]

    def unique_name(self, base: str) -> str:
        scope = self._current_scope()
        name = f"{scope}/{base}" if scope else base
        if name not in self._by_name:
            return name
        n = self._name_counts.get(name, 0)
        while True:
            n += 1
            candidate = f"{name}_{n}"
            if candidate not in self._by_name:
                self._name_counts[name] = n
                return candidate

    def add_node(self, op, inputs, attrs, name: str | None = None, location=None, full_name=None) -> Node:
        """Infer the output types of ``op`` on ``inputs`` and append the node.

        Inputs from another graph go through ``capture`` (an error for a plain
        Graph). Type errors carry the user's file:line and the node name.
        ``full_name`` is a name from ``unique_name`` (scope included), taken as is.
        """
        if location is None:
            location = getattr(_state, "emitting_for", None) or user_location()
        inputs = tuple(t if t.node.graph is self else self.capture(t) for t in inputs)
        if full_name is not None and full_name in self._by_name:
            raise GraphError(located(f"the name {full_name!r} is taken in graph {self.name!r}", location))
        node_name = full_name or self.unique_name(name or op.name)
        try:
            out = op.infer(attrs, *(t.type for t in inputs))
        except GraphError as e:
            raise GraphError(located(str(e), location, node_name)) from None
        out_types = (out,) if isinstance(out, TensorType) else tuple(out)
        node = Node(op, attrs, inputs, out_types, node_name, location, self, len(self.nodes))
        node.derived_from = getattr(_state, "origin", None)
        node.call = self.open_call()
        if node.call is not None and node.call.id is None:
            self.add_call(node.call)
        self.nodes.append(node)
        self._by_name[node_name] = node
        self._take(node_name)
        return node

    def capture(self, tensor: Tensor) -> Tensor:
        """Use a tensor from another graph here; plain graphs refuse."""
        raise GraphError(
            located(
                f"tensor {tensor.name} belongs to graph {tensor.graph.name!r}, not "
                f"{self.name!r}: build both in one graph",
                user_location(),
            )
        )

    # -- looking up -----------------------------------------------------------
    def node(self, name: str) -> Node:
        try:
            return self._by_name[name]
        except KeyError:
            raise GraphError(f"graph {self.name!r} has no node named {name!r}") from None

    def tensor(self, name: str) -> Tensor:
        """A tensor by name: ``"model/x"`` or ``"model/sort:1"``."""
        node_name, _, index = name.partition(":")
        node = self.node(node_name)
        i = int(index) if index else 0
        if i >= len(node.outputs):
            raise GraphError(f"node {node_name} has {len(node.outputs)} outputs, no output {i}")
        return node.outputs[i]

    def __contains__(self, item) -> bool:
        if isinstance(item, str):
            return item in self._by_name
        if isinstance(item, Tensor):
            return item.node.graph is self
        return False

    def __len__(self) -> int:
        return len(self.nodes)

    def nodes_of(self, op_name: str) -> list[Node]:
        return [n for n in self.nodes if n.op.name == op_name]

    @property
    def placeholders(self) -> list[Tensor]:
        return [n.output for n in self.nodes if n.op.name == "placeholder"]

    @property
    def variables(self) -> list:
        """Every Variable declared in this graph, in the order they were made (TF1's global collection)."""
        seen: dict[str, Tensor] = {}
        for n in self.nodes:
            if n.op.name == "variable":
                seen.setdefault(n.attrs.var, n.output)
        return list(seen.values())

    @property
    def trainable_variables(self) -> list:
        """The Variables optimizers update by default (``trainable=True``)."""
        return [v for v in self.variables if v.node.attrs.trainable]

    def collection(self, name: str) -> list:
        """TF1-style collections: ``"variables"`` (all), ``"trainable_variables"``."""
        table = {"variables": self.variables, "global_variables": self.variables,
                 "trainable_variables": self.trainable_variables, "trainable": self.trainable_variables}  # fmt: skip
        if name not in table:
            raise GraphError(f"no collection {name!r}; there are {sorted(table)}")
        return table[name]

    def singleton(self, key: str, make):
        """The graph's one tensor for ``key`` (its seed, step, training flag...), made on first use."""
        cache = self.__dict__.setdefault("_singletons", {})
        if key not in cache:
            frames = _frames()
            frames.append(_Frame(self, barrier=True))  # the top level, whatever scope or call asked first
            try:
                cache[key] = make()
            finally:
                frames.pop()
        return cache[key]

    def memo(self, kind: str) -> dict:
        """A dict this graph keeps for ``kind``, where builders note what they built so that later
        ones reuse it rather than build it again (a random key's two words)."""
        return self._memos.setdefault(kind, {})

    @property
    def nx(self):
        """A networkx DiGraph view: nodes by name, edges carry the output index."""
        return to_networkx(self)

    def ancestors(self, tensors, stop=()) -> list[Node]:
        """Nodes the given tensors depend on, in graph order, not looking past ``stop``."""
        return ancestors(self, tensors, stop)

    # -- text and JSON --------------------------------------------------------
    def __str__(self) -> str:
        return graph_listing(self)

    def listing(self, expand=False) -> str:
        """The text listing; library calls print as one line each unless opened: ``expand=True``
        opens all, ``expand=["model/fc1"]`` (or a unique last part, ``"fc1"``) those named."""
        return graph_listing(self, expand=expand)

    def __repr__(self) -> str:
        return f"<Graph {self.name!r} with {len(self.nodes)} nodes>"

    def _repr_html_(self) -> str:
        return display_html(self)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return display_bundle(self)

    def to_json(self, indent: int | None = None, locations: bool = True) -> str:
        """JSON through pydantic (see graph/serialize.py); ``locations=False`` leaves out source lines."""
        from .serialize import graph_to_json

        return graph_to_json(self, indent, locations)

    @classmethod
    def from_json(cls, text: str) -> Graph:
        from .serialize import graph_from_json

        return graph_from_json(text)


__all__ = [
    "Graph", "current_graph", "name_scope", "SourceLocation", "building", "emitting_for", "library_call",
]  # fmt: skip
