"""sg.simplify: dead code, common subexpressions, constant folding, identities (transforms layer).

One driver rebuilds a Function node by node into a fresh graph. For each
node, with its inputs already rewritten, it tries in turn:

1. the identities of transforms/patterns.py (a table of pattern -> rewrite);
2. folding: a splat (one repeated value) from elementwise and shape ops of
   splats, or a constant from ops of small constants (transforms/folding.py);
3. sharing: a node equal to one already built (same op, attributes and
   inputs) is that node;
4. otherwise a copy, with the same name and source location.

Nodes a rewrite builds go through the same steps, so one pass already sees
every input in its final form. Only nodes the results need are copied; a
pass that rewrote anything is followed by another, which drops what the
first made dead and confirms the fixed point. The input Function is never
modified; every result keeps its exact type, name and source location.
"""

from __future__ import annotations

import numpy as np

from ..graph import Attrs, Function, GraphError, TensorType, located, lookup, user_location
from ..graph.dims import is_symbolic
from ..graph.function import FunctionGraph
from ..graph.rewrite import Rewriter
from . import folding
from .patterns import New, match, rules_by_op

FOLD_LIMIT = 1024  # largest folded constant, in elements
MAX_PASSES = 10
_RULES = rules_by_op()
_NEVER_SHARED = frozenset(
    {"parameter", "feed", "effect"}
)  # two inputs are two values; two prints print twice


class _Term:
    """A node about to be built: what patterns match and rewrites read."""

    __slots__ = ("op", "attrs", "inputs", "out_types", "name", "location", "origin")

    def __init__(self, op, attrs, inputs, out_types, name, location, origin=None):
        self.op, self.attrs, self.inputs, self.out_types = op, attrs, tuple(inputs), tuple(out_types)
        self.name, self.location, self.origin = name, location, origin

    @classmethod
    def of(cls, node, inputs) -> _Term:
        """The term rebuilding ``node`` on new inputs (its name, location and derived_from kept)."""
        return cls(node.op, node.attrs, inputs, node.out_types, node.name, node.location, node.derived_from)


def simplify(fn: Function) -> Function:
    """A smaller Function computing the same results: DCE, CSE, constant folding, identities.

    Names, source locations, parameters and result types are kept.

        small = sg.simplify(sg.grad(f))
    """
    if not isinstance(fn, Function):
        raise GraphError(located(f"simplify wants a Function, got {type(fn).__name__}", user_location()))
    keys: dict = {}  # id(attrs) -> (attrs, frozen key), shared by the passes
    for _ in range(MAX_PASSES):
        fn, rewrote = _Pass(fn, keys).run()
        # Dropping dead nodes enables no rewrite, so only a pass that rewrote is repeated,
        # to remove what it made dead and to confirm the fixed point.
        if not rewrote:
            break
    return fn


def _live(fn: Function) -> set:
    """The nodes the results need, and the effects (prints, callbacks: they run whenever their
    inputs are computed) with what they need."""
    live: set = set()
    pending = [r.node for r in fn.results] + [n for n in fn.graph.nodes if "effect" in n.op.traits]
    while pending:
        node = pending.pop()
        if node not in live:
            live.add(node)
            pending.extend(t.node for t in node.inputs)
    return live


def _subsumed(nodes, live) -> dict:
    """Live nodes another live node on the same inputs subsumes (computes all they do and more, by
    its op's ``subsumes`` rule): each -> (that node, which of its outputs stand for the node's).

    The vjp of a scan runs the same scan again, its body also returning the
    per-step values its backward reads (ops/primitives/control/scan.py); merged, the
    forward loop runs once.
    """
    groups: dict = {}
    for node in nodes:
        if node in live and node.op.subsumes is not None:
            groups.setdefault((node.op, tuple(id(t) for t in node.inputs)), []).append(node)
    merges = {}
    for group in groups.values():
        for node in group:
            best = None
            for other in group:
                picked = None if other is node else node.op.subsumes(other.attrs, node.attrs)
                if picked is not None and len(other.outputs) > len(node.outputs):
                    if best is None or len(other.outputs) > len(best[0].outputs):
                        best = (other, picked)
            if best is not None:
                merges[node] = best
    return merges


class _Pass:
    """One rebuild of a Function: the old -> new tensor map and the table of built nodes."""

    def __init__(self, fn: Function, keys: dict):
        self.fn = fn
        self.graph = FunctionGraph(fn.graph.name)
        self.env: dict = {}
        self.built: dict = {}  # (op, attrs, inputs) -> outputs, for sharing
        self.keys = keys
        self.splats: dict = {}  # tensor -> its one repeated value, or None
        self.changed = False

    def run(self) -> tuple[Function, bool]:
        fn = self.fn
        live = _live(fn)
        merges = _subsumed(fn.graph.nodes, live)
        for node in fn.graph.nodes:
            if "parameter" in node.op.traits:  # kept even if unused: they are the signature
                new = self.graph.add_node(node.op, (), node.attrs, name=node.name, location=node.location)
                self.env[node.output] = new.output

        def visit(rewriter, node):
            if node in merges:  # another node computes all this one does: its outputs
                big, picked = merges[node]
                outs = self.emit(_Term.of(big, [self.env[t] for t in node.inputs]))
                self.changed = True
                return [outs[i] for i in picked]
            if node in live:
                return self.emit(_Term.of(node, [self.env[t] for t in node.inputs]))
            return []  # dead: nothing is built

        Rewriter(self.env, graph=self.graph).run(fn.graph.nodes, visit)
        captures = {outer: self.env[p] for outer, p in zip(fn.captures, fn.capture_params)}
        self.graph.captures = dict(captures)
        params, results = [self.env[p] for p in fn.params], [self.env[r] for r in fn.results]
        return Function(self.graph, params, results, fn.out_tree, fn.name, captures=captures), self.changed

    # -- one node ----------------------------------------------------------------
    def emit(self, term: _Term) -> list:
        """The outputs standing for ``term``: rewritten, folded, shared or built."""
        if len(term.out_types) == 1:
            replaced = self._rewrite(term)
            if replaced is None:
                replaced = self._fold(term)
            if replaced is not None:
                self.changed = True
                return [self._check(term, replaced)]
        key = self._key(term) if not _NEVER_SHARED & term.op.traits else None
        if key is not None and key in self.built:
            self.changed = True
            return self.built[key]
        node = self.graph.add_node(term.op, term.inputs, term.attrs, name=term.name, location=term.location)
        node.derived_from = term.origin
        if node.out_types != term.out_types:
            raise GraphError(located(f"internal error: simplify changed the type of {term.name}",
                                     term.location, term.name))  # fmt: skip
        if key is not None:
            self.built[key] = list(node.outputs)
        return list(node.outputs)

    def _rewrite(self, term: _Term):
        for rule in _RULES.get(term.op.name, ()):
            bindings: dict = {}
            if match(rule.pattern, term, bindings, self._splat_value):
                out = rule.rewrite(term, **bindings)
                if out is not None:
                    return self._build(out, term)
        return None

    def _fold(self, term: _Term):
        traits = term.op.traits
        if not term.inputs or term.op.fold is None or folding.is_canonical_splat(term):
            return None
        # Of splats, an op moving elements gives its operand's value; an elementwise op, its value
        # computed on the scalars.
        if "moves_data" in traits or "elementwise" in traits:
            splats = [self._splat_value(t) for t in term.inputs]
            if all(s is not None for s in splats):
                moves = "moves_data" in traits
                value = splats[0] if moves else self._evaluate(term, splats, scalar=True)
                if value is not None:
                    return self._splat(term, value)
        values = [folding.constant_value(t) for t in term.inputs]
        ty = term.out_types[0]
        if any(v is None for v in values) or any(is_symbolic(d) for d in ty.shape):
            return None
        if int(np.prod(ty.shape)) > FOLD_LIMIT:
            return None
        value = self._evaluate(term, values, scalar=False)
        if value is None:
            return None
        if value.size > 1 and np.all(value == value.reshape(-1)[0]):
            return self._splat(term, value.reshape(-1)[0])
        return self._build(New("constant", (), {"value": value}), term)

    def _evaluate(self, term: _Term, arrays, scalar: bool):
        out = folding.evaluate(term.op, term.attrs, arrays)
        if out is None:
            return None
        ty = term.out_types[0]
        value = out[0].astype(ty.dtype.np)
        if value.shape != (() if scalar else ty.shape):
            raise GraphError(located(f"internal error: folding {term.op.name} gave shape {value.shape} for {ty}",
                                     term.location, term.name))  # fmt: skip
        return value

    def _splat(self, term: _Term, value):
        ty = term.out_types[0]
        scalar = New("constant", (), {"value": np.asarray(value, ty.dtype.np)})
        if ty.shape == ():
            return self._build(scalar, term)
        return self._build(
            New("broadcast_in_dim", (scalar,), {"shape": ty.shape, "broadcast_dimensions": ()}), term
        )

    def _build(self, out, root: _Term, name: str | None = None):
        """An existing Tensor, or a New built (recursively simplified) under the root's name."""
        if not isinstance(out, New):
            return out
        inputs = [
            self._build(i, root, f"{root.name}/{i.op}") if isinstance(i, New) else i for i in out.inputs
        ]
        op = lookup(out.op)
        attrs = op.attrs(**out.attrs)
        ty = op.infer(attrs, *(t.type for t in inputs))
        types = (ty,) if isinstance(ty, TensorType) else tuple(ty)
        (result,) = self.emit(_Term(op, attrs, inputs, types, name or root.name, root.location, root.origin))
        return result

    def _check(self, term: _Term, out):
        if out.type != term.out_types[0]:
            raise GraphError(located(f"internal error: simplifying {term.name} changed its type "
                                     f"{term.out_types[0]} to {out.type}", term.location, term.name))  # fmt: skip
        return out

    def _splat_value(self, t):
        if t not in self.splats:
            self.splats[t] = folding.splat_value(t)
        return self.splats[t]

    def _key(self, term: _Term):
        entry = self.keys.get(id(term.attrs))
        if entry is None or entry[0] is not term.attrs:
            entry = self.keys[id(term.attrs)] = (term.attrs, _freeze(term.attrs))
        return (term.op.name, entry[1], term.inputs)


def _freeze(v):
    """A hashable stand-in for an attribute value; arrays compare by dtype, shape and bytes."""
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, Attrs):
        return (type(v).__name__, *(_freeze(x) for x in v.__dict__.values()))
    if isinstance(v, tuple | list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, float):
        return ("float", v.hex())
    try:
        hash(v)
    except TypeError:
        return ("object", id(v))
    return v
