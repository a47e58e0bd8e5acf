"""Dimensions that may be symbolic until a Session runs (graph layer).

A Dim is an ``int`` or a symbolic expression: a polynomial over named
symbols with floor division and modulo by positive constants (graph/poly.py),
so that ``x[1:]`` of a ``("batch", 4)`` tensor is ``(batch - 1, 4)`` and
``x[::2]`` is ``((batch + 1) // 2, 4)``. A symbolic dim is stored as its
canonical spelling, a ``SymbolicSize`` (a ``str``), so equal expressions
compare and hash equal, shapes stay JSON strings, ``"batch" == x.shape[0]``
holds, and ``isinstance(d, str)`` means symbolic. A Session binds each symbol
to an int from the feeds and evaluates every dim with ``evaluate``. ``None``
in a user's shape makes a fresh anonymous symbol.

Build-time rules: two dims are equal when their spellings are; a question
that only the symbols' values can answer (is ``batch >= 5``?) is assumed
true where a shape rule needs it, as JAX does, and checked once the Session
binds the symbols. Broadcasting is strict for named symbols and ints, but an
anonymous dim (TF1's unknown dim) unifies with the dim it meets (``unify``,
``broadcast_dims``): the op that needs them equal takes them to be, and the
node that makes one stand for the other (``ensure_shape``) checks it when
the Session binds the symbols.
"""

from __future__ import annotations

import itertools
import numbers
import re
from functools import lru_cache

from . import poly
from .errors import GraphError
from .overloads import SymbolicOperand, overload

Dim = int | str
_anonymous = itertools.count()


_ANONYMOUS = re.compile(r"_d[0-9]+")


def fresh_symbol() -> str:
    """A new anonymous symbol, for a ``None`` dim."""
    return SymbolicSize(f"_d{next(_anonymous)}")


def is_anonymous(d: Dim) -> bool:
    """Whether ``d`` is one anonymous symbol: a ``None`` dim (``_d3``), not an expression of one."""
    return isinstance(d, str) and _ANONYMOUS.fullmatch(d) is not None


def is_symbolic(d: Dim) -> bool:
    return isinstance(d, str)


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def poly_of(d: Dim) -> poly.Poly:
    """The polynomial of a dim (an int or a dim spelling)."""
    if _is_int(d):
        return poly.const(int(d))
    return poly.parse(str(d))


def from_poly(p: poly.Poly) -> Dim:
    """A dim for a polynomial: an int when it has no symbol, else its SymbolicSize."""
    value = poly.as_int(p)
    return value if value is not None else SymbolicSize(poly.to_str(p))


@lru_cache(maxsize=4096)
def _canonical(text: str) -> Dim:
    return from_poly(poly.parse(text))


def as_dim(d) -> Dim:
    """An int or a dim spelling (any form, e.g. "2 * n") as a canonical Dim; no range check."""
    if type(d) is SymbolicSize:
        return d
    if _is_int(d):
        return int(d)
    if isinstance(d, str):
        return _canonical(str(d))
    raise GraphError(f"a dim must be an int or a dim expression, got {d!r}")


# -- arithmetic ----------------------------------------------------------------
def add(a: Dim, b: Dim) -> Dim:
    if _is_int(a) and _is_int(b):
        return int(a) + int(b)
    return from_poly(poly.add(poly_of(a), poly_of(b)))


def sub(a: Dim, b: Dim) -> Dim:
    if _is_int(a) and _is_int(b):
        return int(a) - int(b)
    return from_poly(poly.add(poly_of(a), poly_of(b), -1))


def mul(a: Dim, b: Dim) -> Dim:
    if _is_int(a) and _is_int(b):
        return int(a) * int(b)
    return from_poly(poly.mul(poly_of(a), poly_of(b)))


def floordiv(a: Dim, k) -> Dim:
    """a // k for a positive int k (or a dim that is one)."""
    if _is_int(a) and _is_int(k) and k > 0:
        return int(a) // int(k)
    return from_poly(poly.floordiv(poly_of(a), _divisor(k)))


def mod(a: Dim, k) -> Dim:
    """a % k for a positive int k (or a dim that is one)."""
    if _is_int(a) and _is_int(k) and k > 0:
        return int(a) % int(k)
    return from_poly(poly.mod(poly_of(a), _divisor(k)))


def _divisor(k) -> int:
    if _is_int(k) and k > 0:
        return int(k)
    raise GraphError(f"a dim can only be divided by a positive int, got {k!r}")


def prod(dims) -> Dim:
    out: Dim = 1
    for d in dims:
        out = mul(out, d)
    return out


def total(dims) -> Dim:
    """The sum of dims."""
    out: Dim = 0
    for d in dims:
        out = add(out, d)
    return out


def div(a: Dim, b: Dim) -> Dim | None:
    """a / b when b divides a exactly as polynomials (``div("6*n - 6", "n - 1") == 6``), else None."""
    q = poly.divide_exact(poly_of(a), poly_of(b))
    return None if q is None else from_poly(q)


def range_length(start: Dim, stop: Dim, step: int) -> Dim:
    """len(range(start, stop, step)) for dims; a symbolic gap is taken to be >= 0 (as JAX does)."""
    gap = sub(stop, start) if step > 0 else sub(start, stop)
    if isinstance(gap, int):
        return max(0, -(-gap // abs(step)))
    return floordiv(add(gap, abs(step) - 1), abs(step))


def difference(a: Dim, b: Dim) -> int | None:
    """a - b when it is the same int for every value of the symbols, else None."""
    d = sub(a, b)
    return d if isinstance(d, int) else None


def symbols(d: Dim) -> tuple[str, ...]:
    """The symbols a dim depends on, sorted."""
    return () if _is_int(d) else tuple(sorted(poly.symbols(poly_of(d))))


def evaluate(d: Dim, bindings: dict[str, int]) -> int:
    """The int value of a dim under symbol bindings (KeyError names a free symbol)."""
    if _is_int(d):
        return int(d)
    return poly.evaluate(poly_of(d), bindings)


def substitute(d: Dim, values: dict) -> Dim:
    """d with symbols replaced by dims (``values``: symbol -> Dim)."""
    if _is_int(d) or not values or not set(symbols(d)) & set(values):
        return d
    return from_poly(poly.substitute(poly_of(d), {s: poly_of(v) for s, v in values.items()}))


def linear(d: Dim) -> tuple[str, int, int] | None:
    """(symbol, k, c) when d is ``k*symbol + c`` with k != 0, else None."""
    terms = [(m, c) for m, c in poly_of(d) if m != ()]
    if len(terms) != 1 or len(terms[0][0]) != 1 or not isinstance(terms[0][0][0], str):
        return None
    (sym,), k = terms[0]
    return sym, k, evaluate(d, {sym: 0})


# -- unifying anonymous dims ---------------------------------------------------
def unify(a: Dim, b: Dim) -> Dim | None:
    """The one dim that ``a`` and ``b`` are taken to be where an op needs them equal, or None.

    Equal dims are that dim. An anonymous dim (a ``None`` of the user's, TF1's
    unknown dim) is taken to be the other one, whatever it is (another
    anonymous dim: the first of the two), unless that is an expression of the
    anonymous symbol itself (``_d0`` and ``_d0 - 1`` never agree). Named
    symbols and ints stay strict: ``batch`` and 4, or ``a`` and ``b``, do not
    unify. Whoever unifies makes the taken-for-equal dims explicit with an
    ``ensure_shape`` node, which the Session checks against the feeds.
    """
    if a == b:
        return a
    for anon, other in ((b, a), (a, b)):
        if is_anonymous(anon) and (_is_int(other) or anon not in symbols(other)):
            return other
    return _unify_alike(a, b)


def _unify_alike(a: Dim, b: Dim) -> Dim | None:
    """``a`` when ``a`` and ``b`` are one expression of two anonymous dims (``_d0 // 4`` and
    ``_d1 // 4``: one device's shards of two None batches), which are then taken to be one."""
    (sa, sb) = symbols(a), symbols(b)
    if len(sa) != 1 or len(sb) != 1 or not is_anonymous(sa[0]) or not is_anonymous(sb[0]):
        return None
    return a if substitute(b, {sb[0]: sa[0]}) == a else None


def broadcast_dims(dims) -> Dim | None:
    """The dim that ``dims`` (one axis of shapes being broadcast) broadcast to, or None if they clash:
    1 stretches to anything, equal dims agree, and an anonymous dim unifies with the others (``unify``)."""
    out: Dim = 1
    for d in dims:
        if d == 1:
            continue
        out = d if out == 1 else unify(out, d)
        if out is None:
            return None
    return out


# -- user-given dims and shapes ------------------------------------------------
def check_dim(d) -> Dim:
    """Validate one user-given dim: a non-negative int, a dim expression or None."""
    if d is None:
        return fresh_symbol()
    if type(d) is SymbolicSize:
        return d
    if isinstance(d, bool):
        raise GraphError(f"a dim must be an int or a symbol name, got {d!r}")
    if isinstance(d, int) or (hasattr(d, "__index__") and not isinstance(d, str)):
        d = int(d)
        if d < 0:
            raise GraphError(f"a dim must be non-negative, got {d}")
        return d
    if isinstance(d, str):
        try:
            out = _canonical(d)
        except GraphError as e:
            raise GraphError(f"a dim must be an int, a symbol name, a dim expression or None: {e}") from None
        return check_dim(out)
    raise GraphError(f"a dim must be an int, a symbol name or None, got {d!r}")


def check_shape(shape) -> tuple[Dim, ...]:
    """Validate a user-given shape (an int or a str is a 1-d shape)."""
    if isinstance(shape, int | str) or shape is None:
        shape = (shape,)
    return tuple(check_dim(d) for d in shape)


def shape_str(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


# -- x.shape[i] as a value -----------------------------------------------------
class SymbolicSize(str):
    """A symbolic dim, as ``x.shape[i]`` gives it: its canonical spelling, which is a str.

    With ints and other dims, ``+ - * // %`` and unary minus give dims
    (``x.shape[0] - 1``, ``n // 2``), so sizes compute shapes
    (``snp.zeros((x.shape[0], 3))``). With anything else (a Tensor, a float,
    ``/``) it becomes a scalar tensor, weakly typed like a Python int, whose
    value the Session fills in once it binds the symbols: ``loss / x.shape[0]``.
    It compares equal to its spelling: ``x.shape == ("batch", 4)``.
    """

    __slots__ = ()
    __array_ufunc__ = None  # numpy defers to the reflected operators below

    def _dim_op(self, other, fn, name: str, reverse: bool = False):
        if _is_int(other) or isinstance(other, str):
            other = as_dim(other)
            return fn(other, self) if reverse else fn(self, other)
        if isinstance(other, SymbolicOperand):
            return NotImplemented  # the Tensor's own operator builds the node
        return overload(name)(other, self) if reverse else overload(name)(self, other)

    def __add__(self, other):
        return self._dim_op(other, add, "add")

    def __radd__(self, other):
        return self._dim_op(other, add, "add", reverse=True)

    def __sub__(self, other):
        return self._dim_op(other, sub, "subtract")

    def __rsub__(self, other):
        return self._dim_op(other, sub, "subtract", reverse=True)

    def __mul__(self, other):
        return self._dim_op(other, mul, "multiply")

    def __rmul__(self, other):
        return self._dim_op(other, mul, "multiply", reverse=True)

    def __floordiv__(self, other):
        return self._dim_op(other, floordiv, "floor_divide")

    def __rfloordiv__(self, other):
        return overload("floor_divide")(other, self)

    def __mod__(self, other):
        return self._dim_op(other, mod, "remainder")

    def __rmod__(self, other):
        return overload("remainder")(other, self)

    def __truediv__(self, other):
        return NotImplemented if isinstance(other, SymbolicOperand) else overload("true_divide")(self, other)

    def __rtruediv__(self, other):
        return overload("true_divide")(other, self)

    def __pow__(self, other):
        if _is_int(other) and other >= 0:
            return prod([self] * int(other))
        return NotImplemented if isinstance(other, SymbolicOperand) else overload("power")(self, other)

    def __neg__(self):
        return sub(0, self)

    def __pos__(self):
        return self

    def _order(self, other, name: str) -> int:
        if not (_is_int(other) or isinstance(other, str)):
            raise GraphError(f"cannot compare the symbolic size {self} with {other!r} ({name})")
        diff = difference(self, as_dim(other))
        if diff is None:
            raise GraphError(
                f"cannot tell whether {self} {name} {other} while the graph is built: it depends on "
                "the symbols' values"
            )
        return diff

    def __lt__(self, other):
        return self._order(other, "<") < 0

    def __le__(self, other):
        return self._order(other, "<=") <= 0

    def __gt__(self, other):
        return self._order(other, ">") > 0

    def __ge__(self, other):
        return self._order(other, ">=") >= 0

    __hash__ = str.__hash__
