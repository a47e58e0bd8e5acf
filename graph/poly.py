"""Integer polynomials over named symbols, floor division and modulo by constants (graph layer).

The algebra behind symbolic dims (graph/dims.py), in the model JAX's shape
polymorphism uses. An expression is a sum of monomials with int coefficients;
a monomial is a product of atoms; an atom is a symbol (``batch``) or the floor
division or remainder of an expression by a positive constant
(``(batch + 1) // 2``, ``n % 4``). Expressions are kept normalized, so two
expressions that are equal as polynomials over their atoms have the same
canonical spelling:

- terms by falling degree, then by spelling; the constant last:
  ``2*a*b + a - 3``; a product puts its coefficient first: ``3*batch``;
- ``e // k`` first takes out of ``e`` every multiple of ``k`` (floor
  semantics, so ``(batch - 1) // 2`` is ``(batch + 1) // 2 - 1``) and
  ``e % k`` reduces every coefficient modulo ``k``; what is left with no
  symbol is a constant.

Equality is decided as polynomials over atoms: ``2*(a // 2) + a % 2`` is not
recognized as ``a`` (JAX does not either). A poly here is a tuple of
``(monomial, coefficient)`` pairs in canonical order, a monomial a tuple of
atoms sorted by spelling (an atom repeats for a power).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from .errors import GraphError

Poly = tuple  # ((monomial, coefficient), ...) in canonical order
SYMBOL = re.compile(r"[^\W\d]\w*\Z")  # an identifier, as Python's: "batch", "n_2", "bätch"


@dataclass(frozen=True)
class Div:
    """The atom ``operand // k`` (kind "//") or ``operand % k`` (kind "%"), k > 0."""

    kind: str
    operand: Poly
    k: int
    spelling: str = field(default="", compare=False, repr=False)

    def __post_init__(self):
        inner = to_str(self.operand)
        if not SYMBOL.match(inner):
            inner = f"({inner})"
        object.__setattr__(self, "spelling", f"{inner} {self.kind} {self.k}")

    def __str__(self) -> str:
        return self.spelling


def _term_key(term):
    mono = term[0]
    return (-len(mono), tuple(str(a) for a in mono))


def freeze(terms: dict) -> Poly:
    """The canonical poly of a dict monomial -> coefficient (zero terms dropped)."""
    return tuple(sorted(((m, c) for m, c in terms.items() if c), key=_term_key))


def const(c: int) -> Poly:
    return freeze({(): c})


def symbol(name: str) -> Poly:
    return (((name,), 1),)


def as_int(p: Poly) -> int | None:
    """The value of a constant poly, else None."""
    if not p:
        return 0
    return p[0][1] if len(p) == 1 and p[0][0] == () else None


def add(p: Poly, q: Poly, scale: int = 1) -> Poly:
    """p + scale * q."""
    terms = dict(p)
    for m, c in q:
        terms[m] = terms.get(m, 0) + scale * c
    return freeze(terms)


def mul(p: Poly, q: Poly) -> Poly:
    terms: dict = {}
    for m1, c1 in p:
        for m2, c2 in q:
            m = tuple(sorted(m1 + m2, key=str))
            terms[m] = terms.get(m, 0) + c1 * c2
    return freeze(terms)


def floordiv(p: Poly, k: int) -> Poly:
    """p // k for a positive int k: the multiples of k come out, the rest stays in one atom."""
    _check_divisor(k)
    quotient = {m: c // k for m, c in p}
    rest = {m: c % k for m, c in p}
    rest_poly = freeze(rest)
    if as_int(rest_poly) is not None:
        return freeze(quotient)  # 0 <= rest < k: its floor quotient is 0
    inner = _single_floordiv(rest_poly)
    if inner is not None:  # (e // j + r) // k == (e + r * j) // (j * k)
        atom, r = inner
        return add(freeze(quotient), floordiv(add(atom.operand, const(r * atom.k)), atom.k * k))
    return add(freeze(quotient), ((((Div("//", rest_poly, k),), 1),)))


def _single_floordiv(p: Poly):
    """(atom, constant) when p is ``e // j + constant``, else None."""
    lead = [(m, c) for m, c in p if m != ()]
    if len(lead) != 1 or lead[0][1] != 1 or len(lead[0][0]) != 1:
        return None
    atom = lead[0][0][0]
    if not isinstance(atom, Div) or atom.kind != "//":
        return None
    return atom, as_int(freeze({m: c for m, c in p if m == ()})) or 0


def mod(p: Poly, k: int) -> Poly:
    """p % k for a positive int k (result in [0, k))."""
    _check_divisor(k)
    rest = freeze({m: c % k for m, c in p})
    value = as_int(rest)
    if value is not None:
        return const(value % k)
    return (((Div("%", rest, k),), 1),)


def _check_divisor(k) -> None:
    if not isinstance(k, int) or k <= 0:
        raise GraphError(f"a dim can only be divided by a positive int, got {k!r}")


def divide_exact(p: Poly, q: Poly) -> Poly | None:
    """p / q when q divides p as polynomials with int coefficients, else None.

    Long division by leading terms in graded lex order over the atoms: if q
    divides p, the leading term of q divides that of every remainder.
    """
    if not q:
        return None
    atoms = sorted({str(a) for m, _ in p + q for a in m})

    def key(m):
        counts = Counter(str(a) for a in m)
        return (len(m), tuple(counts[a] for a in atoms))

    lead_m, lead_c = max(q, key=lambda t: key(t[0]))
    rest, quotient = p, {}
    while rest:
        m, c = max(rest, key=lambda t: key(t[0]))
        left = Counter(m) - Counter(lead_m)
        if c % lead_c or sum(left.values()) != len(m) - len(lead_m):
            return None
        t = freeze({tuple(sorted(left.elements(), key=str)): c // lead_c})
        quotient[t[0][0]] = t[0][1]
        rest = add(rest, mul(t, q), -1)
    return freeze(quotient)


def evaluate(p: Poly, bindings) -> int:
    """The int value of p with symbols bound (KeyError names an unbound symbol)."""
    total = 0
    for m, c in p:
        value = c
        for atom in m:
            value *= _atom_value(atom, bindings)
        total += value
    return total


def _atom_value(atom, bindings) -> int:
    if isinstance(atom, str):
        return bindings[atom]
    value = evaluate(atom.operand, bindings)
    return value // atom.k if atom.kind == "//" else value % atom.k


def symbols(p: Poly) -> set[str]:
    out: set[str] = set()
    for m, _ in p:
        for atom in m:
            out |= {atom} if isinstance(atom, str) else symbols(atom.operand)
    return out


def substitute(p: Poly, values: dict) -> Poly:
    """p with some symbols replaced by polys."""
    out = const(0)
    for m, c in p:
        term = const(c)
        for atom in m:
            term = mul(term, _substitute_atom(atom, values))
        out = add(out, term)
    return out


def _substitute_atom(atom, values) -> Poly:
    if isinstance(atom, str):
        return values.get(atom, symbol(atom))
    inner = substitute(atom.operand, values)
    return floordiv(inner, atom.k) if atom.kind == "//" else mod(inner, atom.k)


# -- spelling ------------------------------------------------------------------
def to_str(p: Poly) -> str:
    """The canonical spelling: ``batch - 1``, ``(batch + 1) // 2``, ``3*batch``."""
    if not p:
        return "0"
    out = ""
    for i, (m, c) in enumerate(p):
        body = _monomial(m, abs(c))
        if i == 0:
            out = body if c > 0 else "-" + (f"({body})" if len(m) == 1 and isinstance(m[0], Div) else body)
        else:
            out += (" + " if c > 0 else " - ") + body
    return out


def _monomial(m, c: int) -> str:
    if not m:
        return str(c)
    lone = len(m) == 1 and c == 1
    parts = [str(a) if isinstance(a, str) or lone else f"({a})" for a in m]
    return "*".join(([str(c)] if c != 1 else []) + parts)


_TOKEN = re.compile(r"\s*(?:([0-9]+)|([^\W\d]\w*)|(//|[-+*%()]))")


@lru_cache(maxsize=4096)
def parse(text: str) -> Poly:
    """The poly of a dim expression: ints, symbols, + - * // % and parentheses.

    ``//`` and ``%`` take a positive constant on the right. GraphError otherwise.
    """
    tokens, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise GraphError(f"cannot read dim expression {text!r} at {text[pos:].strip()!r}")
        number, name, op = match.groups()
        tokens.append(int(number) if number is not None else name or op)
        pos = match.end()
    reader = _Reader(tokens, text)
    p = reader.expr()
    if reader.i != len(tokens):
        raise GraphError(f"cannot read dim expression {text!r}")
    return p


class _Reader:
    """Recursive descent with Python's precedence (unary minus binds tighter than * // %)."""

    def __init__(self, tokens, text):
        self.tokens, self.text, self.i = tokens, text, 0

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self):
        self.i += 1
        return self.tokens[self.i - 1]

    def expr(self) -> Poly:
        p = self.term()
        while self.peek() in ("+", "-"):
            sign = 1 if self.take() == "+" else -1
            p = add(p, self.term(), sign)
        return p

    def term(self) -> Poly:
        p = self.unary()
        while self.peek() in ("*", "//", "%"):
            op, q = self.take(), self.unary()
            if op == "*":
                p = mul(p, q)
                continue
            k = as_int(q)
            if k is None or k <= 0:
                raise GraphError(f"dim expression {self.text!r}: {op} takes a positive int on the right")
            p = floordiv(p, k) if op == "//" else mod(p, k)
        return p

    def unary(self) -> Poly:
        if self.peek() == "-":
            self.take()
            return mul(const(-1), self.unary())
        tok = self.take() if self.i < len(self.tokens) else None
        if isinstance(tok, int):
            return const(tok)
        if tok == "(":
            p = self.expr()
            if self.peek() != ")":
                raise GraphError(f"dim expression {self.text!r}: missing ')'")
            self.take()
            return p
        if isinstance(tok, str) and SYMBOL.match(tok):
            return symbol(tok)
        raise GraphError(f"cannot read dim expression {self.text!r}")
