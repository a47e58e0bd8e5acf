"""What a drawing shows, before any graphviz (viz layer): boxes, links and groups.

``build_view`` reads a Graph, a Function, a Tensor or a list of Tensors and
returns a View: one Box per node (the nodes of control-flow bodies
included); one Link per input edge, per body a control-flow node runs, and
per forward node that has gradient nodes (tied to the last one made for
it); and a tree of Groups: name scopes, library calls (graph/calls.py: the
nodes one call of ``sg.nn.dense``, ``adam.minimize``... built, whatever
their names, with the calls made inside it as groups of their own),
control-flow bodies, and (added later, for crowded groups) chunks of
consecutive nodes. Drawing, diffing and the explorer all start from a View,
so they agree on what is drawn and where it lives. Building one only reads
the IR.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ..graph import Function, Graph, Tensor
from ..graph.printing import held_functions
from .labels import edge_label

_INPUTS = frozenset({"feed", "parameter"})  # traits of the inputs


@dataclass(eq=False)
class Box:
    """One node of the IR (or a Function's ``return``), as drawn.

    ``key`` is unique in the View: the node's name, prefixed with its body's
    group path inside control-flow bodies. ``origin`` is the key of the forward
    node a gradient node was made for; ``status`` is set by a diff.
    """

    key: str
    node: object  # a Node, or None for a return box
    kind: str  # input, variable, constant, control, op or return
    order: int  # position in graph order, bodies right after their node
    group: Group | None = None
    fetch: bool = False
    origin: str | None = None
    status: str | None = None  # "added", "removed" or "kept" in a diff


@dataclass(frozen=True)
class Link:
    """An edge between two boxes: a tensor (data), a gradient tie (grad) or a body entry (body)."""

    src: str
    dst: str
    label: str = ""
    kind: str = "data"
    status: str | None = None


@dataclass(eq=False)
class Group:
    """A name scope, a control-flow body or a chunk: drawn as a cluster when open, a box when closed."""

    path: str  # "model/dense", "loop@body", "#3" for a chunk
    kind: str  # root, scope, library, body or chunk
    label: str
    index: int  # for dot ids
    parent: Group | None = None
    boxes: list[Box] = field(default_factory=list)
    children: dict[str, Group] = field(default_factory=dict)  # by key: the segment, "+id" for a call
    aliases: list[str] = field(default_factory=list)  # paths of empty scopes merged into this one
    library: str | None = None  # for a library call: the function, as listings name it
    key: str = ""  # its key among its parent's children

    @property
    def depth(self) -> int:
        return 0 if self.parent is None else self.parent.depth + 1

    @property
    def order(self) -> int:
        """Graph order of the group's first node (to sort groups among boxes)."""
        orders = [b.order for b in self.boxes] + [c.order for c in self.children.values()]
        return min(orders, default=0)

    def items(self) -> list:
        """The boxes and child groups directly inside, in graph order."""
        return sorted([*self.boxes, *self.children.values()], key=lambda x: x.order)

    def walk(self):
        """This group and every group below it, parents first."""
        yield self
        for child in self.children.values():
            yield from child.walk()

    def all_boxes(self) -> list[Box]:
        return [b for g in self.walk() for b in g.boxes]


class View:
    """Boxes by key, links and the group tree of one drawing."""

    def __init__(self, title: str):
        self.title = title
        self.root = Group("", "root", title, 0)
        self.boxes: dict[str, Box] = {}
        self.links: list[Link] = []
        self._groups = 1
        self._orders = itertools.count()

    def next_order(self) -> int:
        """A new box's place in graph order (unique, so it doubles as the box's dot id)."""
        return next(self._orders)

    def child(
        self,
        parent: Group,
        segment: str,
        kind: str = "scope",
        label: str | None = None,
        key: str | None = None,
    ) -> Group:
        """The group ``segment`` inside ``parent`` (found by ``key``, default the segment), made on first use."""
        key = segment if key is None else key
        group = parent.children.get(key)
        if group is None:
            path = f"{parent.path}/{segment}" if parent.path else segment
            group = Group(path, kind, label or segment, self._groups, parent, key=key)
            self._groups += 1
            parent.children[key] = group
        return group

    def add(self, box: Box, home: Group, scopes) -> Box:
        """Put ``box`` in the group ``scopes`` (name segments) below ``home``, or in ``home`` itself
        when ``scopes`` is None."""
        group = home
        for s in scopes or ():
            group = self.child(group, s)
        box.group = group
        group.boxes.append(box)
        self.boxes[box.key] = box
        return box

    def groups(self) -> list[Group]:
        return list(self.root.walk())[1:]


def kind_of(node) -> str:
    """How a node is styled: inputs, variables and constants stand apart from ops."""
    traits = node.op.traits
    if _INPUTS & traits:
        return "input"
    if "reads_state" in traits:
        return "variable"
    if held_functions(node):
        return "control"
    if not node.inputs:  # constants, iota: values known from the attributes alone
        return "constant"
    return "op"


def build_view(obj) -> View:
    """The View of a Graph, a Function, or the ancestors of a Tensor (or a list of Tensors)."""
    if isinstance(obj, Function):
        view = View(f"function {obj.name}")
        _add_nodes(view, obj.graph.nodes, view.root, "")
        _add_return(view, view.root, "", obj.results, fetch=True)
    elif isinstance(obj, Graph):
        view = View(f"graph {obj.name}")
        _add_nodes(view, obj.nodes, view.root, "")
    elif isinstance(obj, Tensor) or _is_tensor_list(obj):
        fetches = [obj] if isinstance(obj, Tensor) else list(obj)
        graph = fetches[0].graph
        names = ", ".join(t.name for t in fetches[:3]) + (", ..." if len(fetches) > 3 else "")
        view = View(f"graph {graph.name}: what {names} need{'s' if len(fetches) == 1 else ''}")
        _add_nodes(view, graph.ancestors(fetches), view.root, "")
        for t in fetches:
            view.boxes[t.node.name].fetch = True
    else:
        raise TypeError(f"sg.draw wants a Graph, a Function or Tensors, got {type(obj).__name__}")
    for group in list(view.root.children.values()):
        _merge_chains(group)
    return view


def _merge_chains(group: Group) -> None:
    """A scope holding nothing but one scope (or library call) is drawn as that one
    (``kernel/init``, ``fc1/kernel/adam``): one click, not two."""
    for child in list(group.children.values()):
        _merge_chains(child)
    if group.boxes or len(group.children) != 1 or group.kind != "scope":
        return
    (child,) = group.children.values()
    if child.kind not in ("scope", "library"):
        return
    del group.parent.children[group.key]
    child.key = group.key if child.kind == "scope" else child.key
    group.parent.children[child.key] = child
    child.parent, child.label = group.parent, f"{group.label}/{child.label}"
    child.aliases += [group.path, *group.aliases]


def _home(view: View, home: Group, node) -> Group:
    """The group a node is drawn in: inside the groups of the library calls that built it
    (each under the scopes its name adds to its parent's), then its own name's scopes."""
    group, base = home, ""
    for call in node.call.chain() if node.call is not None else ():
        *scopes, last = _below(call.name, base).split("/")
        for s in scopes:
            group = view.child(group, s)
        group = view.child(group, last, kind="library", key=f"{last}+{call.id}")
        group.library = call.fn
        base = call.name
    for s in _below(node.name, base).split("/")[:-1]:
        group = view.child(group, s)
    return group


def _below(name: str, base: str) -> str:
    """``name`` relative to the call named ``base``: the part after ``base/``, else all of it."""
    if base and name.startswith(base + "/"):
        return name[len(base) + 1 :]
    return name.rsplit("/", 1)[-1] if name == base else name


def _is_tensor_list(obj) -> bool:
    if not isinstance(obj, list | tuple) or not obj or not all(isinstance(t, Tensor) for t in obj):
        return False
    if len({id(t.graph) for t in obj}) > 1:
        raise ValueError("sg.draw draws tensors of one graph at a time")
    return True


def _add_nodes(view: View, nodes, home: Group, prefix: str) -> None:
    """Boxes and links for ``nodes`` (one graph's), keyed ``prefix + name``, below ``home``."""
    drawn = {n.name for n in nodes}
    tied: dict[str, str] = {}  # forward node -> its gradient node the drawing ties it to
    for node in nodes:
        box = Box(prefix + node.name, node, kind_of(node), view.next_order())
        view.add(box, _home(view, home, node), None)
        for t in node.inputs:
            if t.node.graph is node.graph and t.node.name in drawn:
                view.links.append(Link(prefix + t.node.name, box.key, edge_label(t)))
        if node.derived_from is not None:
            box.origin = prefix + node.derived_from
            if node.derived_from in drawn:
                tied[box.origin] = box.key  # the last one made: the cotangent it passes on
        for fn in held_functions(node):
            _add_body(view, box, fn)
    view.links += [Link(src, dst, kind="grad") for src, dst in tied.items()]


def _add_body(view: View, box: Box, fn: Function) -> None:
    """A control-flow body: a group beside its node, with its own boxes and a return."""
    short = box.key.rsplit("/", 1)[-1]
    segment, n = f"{short}@{fn.name}", 1
    while segment in box.group.children:  # two bodies of one node may share a name
        n += 1
        segment = f"{short}@{fn.name}#{n}"
    label = f"{fn.listing_name} of {short}"
    body = view.child(box.group, segment, kind="body", label=label)
    prefix = body.path + "/"
    _add_nodes(view, fn.graph.nodes, body, prefix)
    _add_return(view, body, prefix, fn.results, fetch=False)
    for p in fn.params:
        view.links.append(Link(box.key, prefix + p.node.name, kind="body"))


def _add_return(view: View, home: Group, prefix: str, results, fetch: bool) -> None:
    """A ``return`` box fed by the results (numbered when there are several); ``fetch`` marks them."""
    ret = view.add(Box(prefix + "return", None, "return", view.next_order()), home, ())
    for i, t in enumerate(results):
        label = edge_label(t)
        view.links.append(Link(prefix + t.node.name, ret.key, f"{i}: {label}" if len(results) > 1 else label))
        view.boxes[prefix + t.node.name].fetch |= fetch
