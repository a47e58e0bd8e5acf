"""Dimensions that may be symbolic until a Session runs (graph layer).

A Dim is an ``int`` or a ``str``. A string is a product of symbols with an
optional integer factor, kept in one canonical spelling so that equal dims
compare equal: ``"batch"``, ``"3*batch"``, ``"batch*time"``. Reshaping
``(batch, 3)`` to ``(-1,)`` gives ``("3*batch",)``. A Session binds each
symbol to an int from the feeds and evaluates every dim with ``evaluate``.
``None`` in a user's shape makes a fresh anonymous symbol.
"""

from __future__ import annotations

import itertools
import math
import re

from .errors import GraphError

Dim = int | str
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_anonymous = itertools.count()


def fresh_symbol() -> str:
    """A new anonymous symbol, for a ``None`` dim."""
    return f"_d{next(_anonymous)}"


def is_symbolic(d: Dim) -> bool:
    return isinstance(d, str)


def factors(d: Dim) -> tuple[int, tuple[str, ...]]:
    """Split a dim into (integer factor, sorted symbols)."""
    if isinstance(d, int):
        return d, ()
    coef, syms = 1, []
    for part in d.split("*"):
        if part.isdigit():
            coef *= int(part)
        else:
            syms.append(part)
    return coef, tuple(sorted(syms))


def _make(coef: int, syms) -> Dim:
    syms = tuple(sorted(syms))
    if not syms or coef == 0:
        return coef
    return "*".join(([str(coef)] if coef != 1 else []) + list(syms))


def mul(a: Dim, b: Dim) -> Dim:
    ca, sa = factors(a)
    cb, sb = factors(b)
    return _make(ca * cb, sa + sb)


def prod(dims) -> Dim:
    out: Dim = 1
    for d in dims:
        out = mul(out, d)
    return out


def div(a: Dim, b: Dim) -> Dim | None:
    """a / b when it divides exactly as a product of symbols, else None."""
    ca, sa = factors(a)
    cb, sb = factors(b)
    if cb == 0 or ca % cb:
        return None
    rest = list(sa)
    for s in sb:
        if s not in rest:
            return None
        rest.remove(s)
    return _make(ca // cb, rest)


def symbols(d: Dim) -> tuple[str, ...]:
    return factors(d)[1]


def evaluate(d: Dim, bindings: dict[str, int]) -> int:
    """The int value of a dim under symbol bindings (KeyError names a free symbol)."""
    if isinstance(d, int):
        return d
    coef, syms = factors(d)
    return coef * math.prod(bindings[s] for s in syms)


def check_dim(d) -> Dim:
    """Validate one user-given dim: a non-negative int, a symbol string or None."""
    if d is None:
        return fresh_symbol()
    if isinstance(d, bool):
        raise GraphError(f"a dim must be an int or a symbol name, got {d!r}")
    if isinstance(d, int) or (hasattr(d, "__index__") and not isinstance(d, str)):
        d = int(d)
        if d < 0:
            raise GraphError(f"a dim must be non-negative, got {d}")
        return d
    if isinstance(d, str):
        parts = d.split("*")
        if all(p.isdigit() or _SYMBOL.match(p) for p in parts):
            return _make(*_split_parts(parts))
    raise GraphError(f"a dim must be an int, a symbol name or None, got {d!r}")


def _split_parts(parts):
    coef, syms = 1, []
    for p in parts:
        if p.isdigit():
            coef *= int(p)
        else:
            syms.append(p)
    return coef, syms


def check_shape(shape) -> tuple[Dim, ...]:
    """Validate a user-given shape (an int is a 1-d shape)."""
    if isinstance(shape, int | str) or shape is None:
        shape = (shape,)
    return tuple(check_dim(d) for d in shape)


def shape_str(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
