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
from .display import display_bundle, display_html
from .errors import GraphError, Unpicklable, located
from .location import SourceLocation, user_location
from .node import Node
from .nxview import ancestors, to_networkx
from .overloads import overload
from .printing import graph_listing
from .tensor import Tensor
from .types import TensorType

_state = threading.local()
_unnamed = itertools.count(1)


class _Frame:
    """One ``with g:``: the graph, its open name scopes and library calls, and the layers being
    built that reuse variables (``reuses``: pairs of the name prefix a Variable is built under and
    the prefix of the existing variables it stands for); a ``barrier`` (``g.singleton``) hides the
    calls and reuses of the frames below it."""

    __slots__ = ("graph", "scopes", "calls", "reuses", "barrier")

    def __init__(self, graph: Graph, barrier: bool = False):
        self.graph, self.scopes, self.calls, self.reuses, self.barrier = graph, [], [], [], barrier


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


def check_name(name, what: str = "node name", location=None) -> None:
    """A GraphError at the user's line if ``name`` holds a character that is not printable (a newline,
    a tab, a control or zero-width character): listings, drawings and JSON would show it garbled."""
    if isinstance(name, str) and not name.isprintable():
        bad = next(c for c in name if not c.isprintable())
        raise GraphError(
            located(
                f"bad {what} {name!r}: it holds {bad!r} (U+{ord(bad):04X}); names are printable text",
                location or user_location(),
            )
        )


@contextmanager
def name_scope(name: str):
    """Prefix the names of nodes built inside with ``name/`` (nests).

    A path opens one scope per part: ``name_scope("a/b")`` is ``a`` then ``b``
    inside it. As in TF1, a path ending in "/" is absolute: ``name_scope("a/b/")``
    re-enters exactly ``a/b``, whatever scopes are open around it.
    """
    frames = _frames()
    if not frames:
        raise GraphError(located("sg.name_scope needs an enclosing `with g:`", user_location()))
    absolute = isinstance(name, str) and name.endswith("/")
    parts = name[:-1].split("/") if absolute else name.split("/") if isinstance(name, str) else [name]
    if not all(isinstance(p, str) and p and ":" not in p for p in parts):
        raise GraphError(
            located(
                f"bad name scope {name!r}: a name or a path of names joined by '/' (a trailing '/' "
                "re-enters that path), without ':' or empty parts",
                user_location(),
            )
        )
    check_name(name, "name scope")
    scopes = frames[-1].scopes
    saved = list(scopes)
    if absolute:
        scopes.clear()
    scopes.extend(parts)
    try:
        yield "/".join(scopes)
    finally:
        scopes[:] = saved


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
    graph = frame.graph
    mark = graph.mark()
    frame.calls.append(call)
    try:
        yield call
    except BaseException:
        graph.roll_back(mark)  # a failed library function leaves the graph as it was
        raise
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


def _suffix_counts(by_name: dict) -> dict[str, int]:
    """``unique_name``'s counters as the names in use give them: the largest k of each ``base_k``
    whose base is a name in use."""
    counts: dict[str, int] = {}
    for name in by_name:
        base, _, k = name.rpartition("_")
        if k.isdigit() and base in by_name:
            counts[base] = max(counts.get(base, 0), int(k))
    return counts


class Graph(Unpicklable):
    """A computation graph: nodes in the order they were built.

    It does not pickle or copy (its nodes point at shared op definitions): the
    JSON document is how to save or copy one, ``sg.Graph.from_json(g.to_json())``.
    """

    _pickle_advice = (
        "save it with g.to_json() and read it back with sg.Graph.from_json(text) (also the way to copy "
        "one); save variables' values with sess.save(path)"
    )

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

    @contextmanager
    def reusing(self, built_under: str, existing: str):
        """Variables built inside whose names start with ``built_under/`` stand for the existing
        variables under ``existing/`` (a layer that shares its variables: TF1's ``reuse=True``,
        whose ops take a scope of their own, ``fc_1``, and whose variables stay ``fc/kernel``)."""
        frame = next(f for f in reversed(_frames()) if f.graph is self)
        frame.reuses.append((built_under, existing))
        try:
            yield
        finally:
            frame.reuses.pop()

    def scoped(self, name: str) -> str:
        """``name`` under the name scopes open on this graph now (``model/fc1`` in ``model``)."""
        scope = self._current_scope()
        return f"{scope}/{name}" if scope else name

    def variable_name(self, full: str) -> str:
        """The name of the variable that one built as ``full`` is: ``full``, or inside ``reusing``
        the existing variable's name it stands for."""
        for frame in reversed(_frames()):
            if frame.graph is not self:
                continue
            for built_under, existing in reversed(frame.reuses):
                if full == built_under or full.startswith(built_under + "/"):
                    return existing + full[len(built_under) :]
            if frame.barrier:
                break
        return full

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
        check_name(name or full_name, location=location)
        if name is not None and not isinstance(name, str):
            raise GraphError(located(f"a node's name is a str, got {type(name).__name__} {name!r}", location))
        if name and ":" in name:
            raise GraphError(
                located(f"bad node name {name!r}: ':' is kept for output indices (\"node:1\")", location)
            )
        mark = self.mark()
        try:
            return self._append(op, inputs, attrs, name, location, full_name)
        except BaseException:
            self.roll_back(mark)  # also the parameters that capturing the inputs made
            raise

    def _append(self, op, inputs, attrs, name, location, full_name) -> Node:
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

    def mark(self) -> tuple[int, int]:
        """Where the graph stands now (its node and call counts), for ``roll_back``."""
        return len(self.nodes), len(self.calls)

    def roll_back(self, mark: tuple[int, int]) -> None:
        """Forget every node and call added since ``mark``: a builder that failed half-way leaves
        the graph as it was. The names they took are free again, and what singletons and memos
        noted of them is dropped."""
        n_nodes, n_calls = mark
        removed = {id(n) for n in self.nodes[n_nodes:]}
        if not removed and len(self.calls) == n_calls:
            return
        for node in self.nodes[n_nodes:]:
            self._by_name.pop(node.name, None)
        for call in self.calls[n_calls:]:
            call.id = None
        del self.nodes[n_nodes:], self.calls[n_calls:]
        self._taken = set()
        for name in [n.name for n in self.nodes] + [c.name for c in self.calls]:
            self._take(name)
        self._name_counts = _suffix_counts(self._by_name)

        def refers_to_removed(value) -> bool:
            values = value if isinstance(value, tuple | list) else (value,)
            return any(isinstance(v, Tensor) and id(v.node) in removed for v in values)

        for table in [self.__dict__.get("_singletons", {}), *self._memos.values()]:
            for key in [k for k, v in table.items() if refers_to_removed(v)]:
                del table[key]

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
        return [n.output for n in self.nodes if "feed" in n.op.traits]

    @property
    def variables(self) -> list:
        """Every Variable declared in this graph, in the order they were made (TF1's global collection)."""
        seen: dict[str, Tensor] = {}
        for n in self.nodes:
            if "reads_state" in n.op.traits and "seed" not in n.op.traits:
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
        return overload("Graph.to_json")(self, indent, locations)  # installed by graph/serialize.py

    @classmethod
    def from_json(cls, text: str) -> Graph:
        return overload("Graph.from_json")(text)


__all__ = [
    "Graph", "current_graph", "name_scope", "SourceLocation", "building", "emitting_for", "library_call",
]  # fmt: skip
