"""Function: a Graph with ordered parameters and results (graph layer).

``function(py_fn, in_types)`` calls ``py_fn`` on parameter Tensors inside a
fresh graph and records what it builds. Tensors of an enclosing graph used
inside become *captures*: extra parameters whose values the caller supplies.
Calling a Function on Tensors inside a graph copies its nodes there (the
types are inferred again, so symbolic dims specialize to the arguments).
"""

from __future__ import annotations

import inspect

from . import dims
from .dims import div, linear
from .display import display_bundle, display_html
from .errors import GraphError, Unpicklable, located
from .graph import Graph, building, current_graph
from .location import user_location
from .overloads import overload
from .printing import function_listing
from .rewrite import Rewriter
from .structural import InputAttrs, parameter_op
from .tensor import Tensor
from .tree import flatten, unflatten
from .types import TensorType


class FunctionGraph(Graph):
    """The graph of a Function being built: outer tensors become captures."""

    def __init__(self, name: str):
        super().__init__(name)
        self.captures: dict[Tensor, Tensor] = {}  # outer tensor -> parameter

    def capture(self, tensor: Tensor) -> Tensor:
        if tensor not in self.captures:
            attrs = InputAttrs(shape=tensor.type.shape, dtype=tensor.type.dtype)
            node = self.add_node(
                parameter_op, (), attrs, name=f"capture_{tensor.node.name.replace('/', '_')}"
            )
            self.captures[tensor] = node.output
        return self.captures[tensor]

    def roll_back(self, mark: tuple[int, int]) -> None:
        super().roll_back(mark)
        kept = len(self.nodes)
        self.captures = {outer: p for outer, p in self.captures.items() if p.node.id < kept}


_TUPLE = object()  # default out_tree: the results as a tuple


class Function(Unpicklable):
    """A reusable subgraph: ``params`` in, ``results`` out (as a nest ``out_tree``).

    Built once and never edited: ``copy.copy``/``copy.deepcopy`` give the same Function; it does not
    pickle (save the graph that calls it with ``g.to_json()``).
    """

    _pickle_advice = "save the graph that calls it with g.to_json() (its body is saved with it)"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, graph: Graph, params, results, out_tree=_TUPLE, name="fn", captures=None):
        self.graph = graph
        self.params: tuple[Tensor, ...] = tuple(params)
        self.results: tuple[Tensor, ...] = tuple(results)
        # None (the treedef of a single leaf) means one bare result
        self.out_tree = (tuple, (None,) * len(self.results)) if out_tree is _TUPLE else out_tree
        self.name = name
        captures = captures or {}
        # outer tensors this function reads, and the parameters standing for them
        self.captures: tuple[Tensor, ...] = tuple(captures)
        self.capture_params: tuple[Tensor, ...] = tuple(captures.values())

    def with_results(self, extra) -> Function:
        """This function also returning ``extra`` (tensors of its graph): a Function on the same graph,
        params and captures, so a pass can tell that a node calling it computes all a node calling this
        one does (the scan vjp's forward stacks the values its backward reads this way)."""
        fn = Function(self.graph, self.params, self.results + tuple(extra), name=self.name)
        fn.captures, fn.capture_params = self.captures, self.capture_params  # repeats kept
        return fn

    def extends(self, other: Function) -> bool:
        """Whether this function is ``other`` with (possibly) more results: same graph, params, captures."""
        same = lambda a, b: len(a) == len(b) and all(x is y for x, y in zip(a, b))  # noqa: E731
        return (
            self.graph is other.graph
            and same(self.params, other.params)
            and same(self.capture_params, other.capture_params)
        )

    @property
    def in_types(self) -> tuple[TensorType, ...]:
        return tuple(p.type for p in self.params)

    @property
    def out_types(self) -> tuple[TensorType, ...]:
        return tuple(r.type for r in self.results)

    @property
    def listing_name(self) -> str:
        return f"@{self.name}"

    def __str__(self) -> str:
        return function_listing(self)

    def listing(self, expand=False) -> str:
        """The text listing, library calls closed unless ``expand`` opens them (as ``Graph.listing``)."""
        return function_listing(self, expand=expand)

    def __repr__(self) -> str:
        ins = ", ".join(str(t) for t in self.in_types)
        outs = ", ".join(str(t) for t in self.out_types)
        return f"<Function {self.name}({ins}) -> ({outs})>"

    def _repr_html_(self) -> str:
        return display_html(self)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return display_bundle(self)

    def __call__(self, *args, **kwargs):
        """Add this function's nodes to the graph being built; returns its results.

        Arguments go by position, or by their parameter's name (``f(x=..., w=...)``)."""
        if kwargs:
            args = self._by_name(args, kwargs)
        if len(args) != len(self.params):
            raise GraphError(
                located(
                    f"function {self.name} takes {len(self.params)} arguments, got {len(args)}",
                    user_location(),
                )
            )
        graph = current_graph()
        tensors = [_as_arg(a, p.type) for a, p in zip(args, self.params)]
        self._check_args(tensors)
        outs = inline(self, graph, tensors)
        return unflatten(self.out_tree, outs)

    def _by_name(self, args: tuple, kwargs: dict) -> tuple:
        """The positional arguments with the keyword ones put at their parameters' places."""
        names = [p.node.name for p in self.params]
        placed = list(args) + [_MISSING] * (len(names) - len(args))
        for key, value in kwargs.items():
            problem = None
            if key not in names:
                problem = f"has no parameter {key!r} (its parameters: {', '.join(names)})"
            elif names.index(key) < len(args):
                problem = f"got parameter {key!r} both by position and by name"
            if problem:
                raise GraphError(located(f"function {self.name} {problem}", user_location()))
            placed[names.index(key)] = value
        missing = [n for n, v in zip(names, placed) if v is _MISSING]
        if missing:
            raise GraphError(
                located(
                    f"function {self.name} is missing arguments for {', '.join(missing)}", user_location()
                )
            )
        return tuple(placed)

    def _check_args(self, tensors) -> None:
        """A GraphError at the caller's line naming the parameter whose argument has the wrong type."""
        names = [p.node.name for p in self.params]
        try:
            bind_symbols(self.in_types, [t.type for t in tensors], f"function {self.name}", names)
        except GraphError as e:
            raise GraphError(located(str(e), user_location())) from None


_MISSING = object()  # a parameter no argument was given for


def _as_arg(value, ty: TensorType) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return overload("asarray")(value, ty.dtype)


def bind_symbols(declared, actual, what: str, names=None) -> dict[str, object]:
    """Match declared parameter types to argument types; symbol -> dim.

    A declared dim that is one symbol binds it; then a dim ``k*s + c`` in one
    unbound symbol solves for it (``2*n`` taking 6 gives n = 3); every dim
    must then equal the argument's. ``names`` (the parameters') say which
    argument is wrong in errors.
    """

    def arg(i: int) -> str:
        return f"argument {i}" + (f" ({names[i]})" if names is not None else "")

    for i, (d, a) in enumerate(zip(declared, actual)):
        if d.dtype is not a.dtype or len(d.shape) != len(a.shape):
            raise GraphError(f"{what}: {arg(i)} wants {d}, got {a}")
    pairs = [(dd, ad) for d, a in zip(declared, actual) for dd, ad in zip(d.shape, a.shape)]
    subst: dict[str, object] = {}
    for dd, ad in pairs:
        if isinstance(dd, str) and linear(dd) == (dd, 1, 0):
            if subst.setdefault(dd, ad) != ad:
                raise GraphError(f"{what}: symbol {dd} is {subst[dd]} and {ad} at once")
    for dd, ad in pairs:
        solved = linear(substitute_dim(dd, subst)) if isinstance(dd, str) else None
        if solved is not None:
            sym, k, c = solved
            value = div(dims.sub(ad, c), k)
            if value is not None:
                subst[sym] = value
    for i, (d, a) in enumerate(zip(declared, actual)):
        if any(substitute_dim(dd, subst) != ad for dd, ad in zip(d.shape, a.shape)):
            raise GraphError(f"{what}: {arg(i)} wants {d}, got {a}")
    return subst


def substitute_dim(d, subst):
    """d with the symbols in ``subst`` (symbol -> Dim) replaced."""
    return dims.substitute(d, subst)


def inline(
    fn: Function, graph: Graph, args, captures=None, env: dict | None = None, effects: str = "kept"
) -> list[Tensor]:
    """Copy fn's nodes into ``graph`` with params bound to ``args``; returns its results.

    ``captures`` are the values of fn's capture parameters (by default the
    outer tensors fn captured, captured again into ``graph`` if they live
    elsewhere; a control-flow rule passes its node's own capture inputs).
    ``env``, when given, is filled with fn's tensors -> their copies.
    ``effects="recomputed"`` marks fn's effects (prints, checks) as copies made
    for a vjp rule that recomputes a body's forward for its backward: the
    lowering runs such a copy only where the program does not run the
    original (ctx.runs_elsewhere), so a print prints the forward values once.
    """
    if captures is None:
        captures = fn.captures
    caps = [c if c.graph is graph else graph.capture(c) for c in captures]
    subst = bind_symbols([p.type for p in fn.params], [a.type for a in args], f"function {fn.name}")
    env = {} if env is None else env
    env.update(zip(fn.params + fn.capture_params, list(args) + caps))
    visit = _recomputed_effect if effects == "recomputed" else None
    Rewriter(env, subst, prefix=fn.name).run(fn.graph.nodes, visit)
    return [env[r] for r in fn.results]


def _recomputed_effect(rewriter, node):
    """A copy of an effect marked ``recomputed`` (see ``inline``); None (a plain copy) for the rest."""
    if "effect" not in node.op.traits:
        return None
    return rewriter.copy(node, attrs=node.attrs.model_copy(update={"recomputed": True}))


def extract(graph: Graph, outputs, inputs=(), name: str | None = None, effects=()) -> Function:
    """The part of ``graph`` that computes ``outputs`` from ``inputs``, as a Function.

    ``inputs`` become the parameters, in order (named after the tensors);
    every other tensor the outputs need is computed by a copy of its node,
    with the node's name and source line. ``effects`` (nodes with the EFFECT
    trait: prints, callbacks) are copied too, with what they need. A
    placeholder that is needed but not among the inputs is a GraphError. The
    Session extracts the fetches from the feeds this way before simplifying
    and lowering.
    """
    inputs, outputs = tuple(inputs), tuple(outputs)
    fgraph = FunctionGraph(name or graph.name)
    env: dict[Tensor, Tensor] = {}
    for t in inputs:
        if t in env:
            raise GraphError(f"extract wants distinct inputs, got {t.name} twice")
        attrs = InputAttrs(shape=t.type.shape, dtype=t.type.dtype)
        param = fgraph.add_node(
            parameter_op, (), attrs, name=t.name.replace(":", "_"), location=t.node.location
        )
        env[t] = param.output
    needed = graph.ancestors([*outputs, *(t for n in effects for t in n.inputs)], stop=inputs)
    nodes = sorted({*needed, *effects}, key=lambda n: n.id)
    Rewriter(env, graph=fgraph).run(nodes, _no_placeholders)
    return Function(fgraph, [env[t] for t in inputs], [env[t] for t in outputs], name=fgraph.name)


def _no_placeholders(rewriter, node):
    if "feed" in node.op.traits:
        raise GraphError(
            located(f"extract needs a value for placeholder {node.name}", node.location, node.name)
        )


def function(py_fn, in_types, name: str | None = None, arg_names=None) -> Function:
    """Build a Function by calling ``py_fn`` on parameters of the given types.

    ``in_types`` lists TensorTypes (or anything with ``shape`` and ``dtype``,
    such as numpy arrays). ``py_fn`` may return a Tensor or a nest of them.
    Parameters are named after py_fn's arguments unless ``arg_names`` says.

        f = sg.function(lambda x: snp.tanh(x) * 2, [sg.TensorType(("n",), sg.float32)])
    """
    types = [_as_type(t) for t in in_types]
    fname = name or getattr(py_fn, "__name__", "fn")
    if fname == "<lambda>":
        fname = "lambda"
    graph = FunctionGraph(fname)
    arg_names = list(arg_names) if arg_names is not None else _arg_names(py_fn, len(types))
    with graph:
        params = [
            graph.add_node(parameter_op, (), InputAttrs(shape=t.shape, dtype=t.dtype), name=n).output
            for t, n in zip(types, arg_names)
        ]
        out = py_fn(*params)
        leaves, tree = flatten(out)
        results = [leaf if isinstance(leaf, Tensor) else overload("asarray")(leaf) for leaf in leaves]
        results = [r if r.graph is graph else graph.capture(r) for r in results]
    return Function(graph, params, results, tree, fname, captures=dict(graph.captures))


def _as_type(t) -> TensorType:
    if isinstance(t, TensorType):
        return t
    if isinstance(t, Tensor):
        return t.type
    if hasattr(t, "shape") and hasattr(t, "dtype"):
        return TensorType(t.shape, t.dtype)
    raise GraphError(located(f"sg.function wants TensorTypes for its inputs, got {t!r}", user_location()))


def _arg_names(py_fn, n: int) -> list[str]:
    try:
        sig = inspect.signature(py_fn)
        names = [
            p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        names = []
    names = names[:n]
    return names + [f"arg{i}" for i in range(len(names), n)]


__all__ = ["Function", "extract", "function", "inline", "building"]
