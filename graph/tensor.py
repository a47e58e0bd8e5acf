"""Tensor: a symbolic handle to one output of a Node (graph layer).

Operators (+, @, [], comparisons, .T, .sum(), ...) are looked up in a table
that the numpy-like op set fills when stablegraph is imported; this keeps the
graph layer free of any op. Every output of a node has exactly one Tensor
object, so Tensors hash by identity and work as dict keys (feeds).
"""

from __future__ import annotations

from .dims import prod
from .display import display_bundle
from .errors import GraphTypeError, Unpicklable, located
from .location import user_location
from .overloads import SymbolicOperand, overload


def _binary(name: str):
    def forward(self, other):
        return overload(name)(self, other)

    def reverse(self, other):
        return overload(name)(other, self)

    forward.__name__, reverse.__name__ = f"__{name}__", f"__r{name}__"
    return forward, reverse


class Tensor(Unpicklable, SymbolicOperand):
    """The value of one node output, known only by its type until a Session runs.

    A Tensor has no value while the graph is built: ``float(x)``, ``np.asarray(x)``
    and ``if x:`` are GraphTypeErrors that point to ``sess.run``. It does not
    pickle; ``copy.copy`` and ``copy.deepcopy`` give the same handle (it is immutable).
    """

    __slots__ = ("node", "index", "__weakref__")
    _pickle_advice = (
        "it is a symbolic handle to a node of its graph; save the graph with g.to_json() and find the "
        "tensor again by name (g2.tensor(name)), or pickle its value, sess.run(tensor)"
    )
    __array_ufunc__ = None  # numpy defers to our reflected operators
    __array_priority__ = 1000

    def __init__(self, node, index: int):  # node: the graph.node.Node whose output this is
        self.node = node
        self.index = index

    @property
    def type(self):
        return self.node.out_types[self.index]

    @property
    def shape(self):
        return self.type.shape

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return len(self.type.shape)

    @property
    def size(self):
        return prod(self.type.shape)

    @property
    def graph(self):
        return self.node.graph

    @property
    def op(self):
        return self.node.op

    @property
    def name(self) -> str:
        """The node name, with ``:i`` for nodes with several outputs."""
        if len(self.node.out_types) == 1:
            return self.node.name
        return f"{self.node.name}:{self.index}"

    def __repr__(self) -> str:
        return f"<Tensor {self.name} : {self.type}>"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """In Jupyter: a drawing of what this tensor needs (viz registers it; see graph.display)."""
        return display_bundle(self)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def _no_value(self, what: str, advice: str = "") -> GraphTypeError:
        """The error for asking a Tensor for its value (``what``) while the graph is built."""
        return GraphTypeError(
            located(
                f"{what} of Tensor {self.name} ({self.type}) needs its value, which exists only when a "
                f"Session runs the graph: fetch the value with sess.run(tensor){advice}",
                user_location(),
            )
        )

    def __bool__(self):
        raise GraphTypeError(
            located(
                f"bool() of Tensor {self.name} ({self.type}): a Tensor has no truth value while the graph is "
                "built, so `if`, `while`, `and`, `or` cannot test it; choose by value inside the graph with "
                "sg.numpy.where or sg.cond, or fetch the value with sess.run(tensor)",
                user_location(),
            )
        )

    def __float__(self):
        raise self._no_value("float()")

    def __int__(self):
        raise self._no_value("int()")

    def __complex__(self):
        raise self._no_value("complex()")

    def __array__(self, dtype=None, copy=None):
        raise self._no_value("np.asarray()", "; inside the graph use sg.numpy functions on the Tensor")

    def __len__(self):
        if not self.shape:
            raise GraphTypeError(
                located(f"len() of Tensor {self.name} ({self.type}): a scalar has no length", user_location())
            )
        d = self.shape[0]
        if not isinstance(d, int):
            raise GraphTypeError(
                located(
                    f"len() of Tensor {self.name} ({self.type}): its first dim is the symbol {d}, whose size "
                    "is known only when a Session runs; use x.shape[0] (a size you can compute with)",
                    user_location(),
                )
            )
        return d

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    __hash__ = object.__hash__
    __add__, __radd__ = _binary("add")
    __sub__, __rsub__ = _binary("subtract")
    __mul__, __rmul__ = _binary("multiply")
    __truediv__, __rtruediv__ = _binary("true_divide")
    __floordiv__, __rfloordiv__ = _binary("floor_divide")
    __mod__, __rmod__ = _binary("remainder")
    __pow__, __rpow__ = _binary("power")
    __matmul__, __rmatmul__ = _binary("matmul")
    __and__, __rand__ = _binary("bitwise_and")
    __or__, __ror__ = _binary("bitwise_or")
    __xor__, __rxor__ = _binary("bitwise_xor")
    __lshift__, __rlshift__ = _binary("left_shift")
    __rshift__, __rrshift__ = _binary("right_shift")

    def __lt__(self, other):
        return overload("less")(self, other)

    def __le__(self, other):
        return overload("less_equal")(self, other)

    def __gt__(self, other):
        return overload("greater")(self, other)

    def __ge__(self, other):
        return overload("greater_equal")(self, other)

    def __eq__(self, other):
        return overload("equal")(self, other)

    def __ne__(self, other):
        return overload("not_equal")(self, other)

    def __neg__(self):
        return overload("negative")(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return overload("abs")(self)

    def __invert__(self):
        return overload("invert")(self)

    def __getitem__(self, index):
        return overload("getitem")(self, index)

    @property
    def at(self):
        return overload("at")(self)

    @property
    def T(self):
        return overload("transpose")(self)

    def transpose(self, *axes):
        return overload("transpose")(self, _varargs(axes))

    def reshape(self, *shape, **kwargs):
        return overload("reshape")(self, _varargs(shape), **kwargs)

    def astype(self, dtype):
        return overload("astype")(self, dtype)

    def sum(self, axis=None, keepdims=False, **kwargs):
        return overload("sum")(self, axis=axis, keepdims=keepdims, **kwargs)

    def mean(self, axis=None, keepdims=False, **kwargs):
        return overload("mean")(self, axis=axis, keepdims=keepdims, **kwargs)

    def max(self, axis=None, keepdims=False, **kwargs):
        return overload("max")(self, axis=axis, keepdims=keepdims, **kwargs)

    def min(self, axis=None, keepdims=False, **kwargs):
        return overload("min")(self, axis=axis, keepdims=keepdims, **kwargs)

    def prod(self, axis=None, keepdims=False, **kwargs):
        return overload("prod")(self, axis=axis, keepdims=keepdims, **kwargs)

    def argmax(self, axis=None, **kwargs):
        return overload("argmax")(self, axis=axis, **kwargs)

    def argmin(self, axis=None, **kwargs):
        return overload("argmin")(self, axis=axis, **kwargs)

    def flatten(self):
        return overload("reshape")(self, (-1,))

    def squeeze(self, axis=None):
        return overload("squeeze")(self, axis)


def _varargs(args):
    """Accept both f(2, 3) and f((2, 3)) spellings."""
    if len(args) == 1 and (isinstance(args[0], tuple | list) or args[0] is None):
        return args[0]
    return tuple(args)
