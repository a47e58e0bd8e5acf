"""Library calls: the nodes one call of a library function built, kept as one group (graph layer).

sg.nn layers, activations and losses, optimizers, initializers, composite
sg.numpy and sg.scipy functions and sg.random samplers run inside
``library_call`` (graph.py; the ``library`` decorator in library.py): a name
scope of their own (``fc1``, ``relu``, ``adam``) that the Graph records as a
``Call``. Every node built while a call is open belongs to it (its innermost
open call is ``node.call``), also the nodes of calls made inside it, so a
call inside a call is part of the outer group. Listings print a closed call
as one line and drawings as one box until asked to open it, which keeps a
model's graph as short as its source.

This module holds the record and what listings and drawings ask of it (who
belongs, what goes in, what comes out, which calls are closed); it builds
nothing.
"""

from __future__ import annotations

from .variables import Variable


class Call:
    """One call of a library function: its name (the scope path, e.g. ``model/fc1``),
    the function's name as listings print it (``dense``), the call it was made in
    (or None), and the tensors it returned (``outputs``, its nodes' tensors only).

    ``id`` is its index in ``graph.calls``, set when its first node is built:
    a call that built nothing is not recorded.
    """

    __slots__ = ("name", "fn", "parent", "outputs", "id")

    def __init__(self, name: str, fn: str, parent: Call | None = None):
        self.name = name
        self.fn = fn
        self.parent = parent
        self.outputs: tuple = ()
        self.id: int | None = None

    def chain(self) -> list[Call]:
        """The calls from the outermost down to this one."""
        out = []
        call = self
        while call is not None:
            out.append(call)
            call = call.parent
        return out[::-1]

    def __repr__(self) -> str:
        return f"<Call {self.name} = {self.fn}(...)>"


def resolve(calls, names, strict: bool = True) -> set:
    """The calls ``names`` picks (a full name such as "model/fc1" or a last part such as
    "fc1"), with the calls around them; ``True`` picks every call. A name that picks
    nothing is a KeyError if ``strict`` (control-flow bodies are listed with their
    graph's names, which need not be theirs)."""
    if names is True:
        return set(calls)
    if names is False or names is None:
        return set()
    if isinstance(names, str):
        names = [names]
    opened = set()
    for name in names:
        found = [c for c in calls if c.name == name] or [c for c in calls if c.name.endswith("/" + name)]
        if not found and strict:
            known = ", ".join(sorted({c.name for c in calls})[:12]) or "none"
            raise KeyError(f"expand: no library call named {name!r}; the calls are {known}")
        for c in found:
            opened.update(c.chain())
    return opened


def closing(node, opened: set) -> Call | None:
    """The outermost call holding ``node`` that is not in ``opened`` (it hides the node), or None."""
    if node.call is None:
        return None
    return next((c for c in node.call.chain() if c not in opened), None)


class Grouping:
    """Which nodes of one graph closed calls hide, and what each closed call reads and gives.

    ``opened`` is the set of open calls (see ``resolve``). A closed call stands
    where its last node is; its inputs are the tensors from outside it that its
    nodes read; its outputs are what it returned (or, if it returned nothing of
    its own, its tensors that nodes outside it read).
    """

    def __init__(self, nodes, opened: set):
        self.nodes = list(nodes)
        self.hider = {n: closing(n, opened) for n in self.nodes}
        self.members: dict[Call, list] = {}
        for n in self.nodes:
            c = self.hider[n]
            if c is not None:
                self.members.setdefault(c, []).append(n)
        for c, ms in list(self.members.items()):
            if len(ms) == 1:  # one node says as much as its call's line: show the node
                self.hider[ms[0]] = None
                del self.members[c]
        self.last = {c: ms[-1] for c, ms in self.members.items()}
        self._used: dict[Call, dict] = {c: {} for c in self.members}  # its tensors read outside it
        for n in self.nodes:
            for t in n.inputs:
                c = self.hider.get(t.node)
                if c is not None and self.hider[n] is not c:
                    self._used[c].setdefault(t, None)
        self._outs_of: dict[Call, list] = {}

    def items(self):
        """Each visible node, or a closed call at its last node, in graph order."""
        for n in self.nodes:
            c = self.hider[n]
            if c is None:
                yield n
            elif self.last[c] is n:
                yield c

    def inputs(self, call: Call) -> list:
        """Tensors from outside ``call`` that its nodes read, in first-use order."""
        mine = set(self.members[call])
        seen: dict = {}
        for n in self.members[call]:
            for t in n.inputs:
                if t.node not in mine:
                    seen.setdefault(t, None)
        return list(seen)

    def outputs(self, call: Call) -> list:
        """What ``call`` gives: the tensors it returned, else its tensors read outside it."""
        returned = [t for t in call.outputs if self.hider.get(t.node) is call]
        return returned or list(self._used[call])

    def ref(self, t, whole: bool = False) -> str:
        """How a line names tensor ``t``: its name (always, for a Variable), or for an output of
        a closed call the call's name (``:i`` for the i-th); ``whole`` names any other tensor of
        a closed call by the call too."""
        c = self.hider.get(t.node)
        if c is None or isinstance(t, Variable):  # a variable's name means something on its own
            return t.name
        i = self._position(c).get(t)  # by identity: Tensor's == builds a node
        if i is not None:
            return c.name if i == 0 else f"{c.name}:{i}"
        return c.name if whole else t.name

    def _outs(self, call: Call) -> list:
        if call not in self._outs_of:
            self._outs_of[call] = self.outputs(call)
        return self._outs_of[call]

    def _position(self, call: Call) -> dict:
        return {t: i for i, t in enumerate(self._outs(call))}

    def call_line(self, call: Call) -> str:
        """``name = fn(inputs) : output types``, inputs named by ``ref`` (whole calls), once each."""
        ins = list(dict.fromkeys(self.ref(t, whole=True) for t in self.inputs(call)))
        types = ", ".join(str(t.type) for t in self._outs(call))
        return f"{call.name} = {call.fn}({', '.join(ins)}) : {types}"
