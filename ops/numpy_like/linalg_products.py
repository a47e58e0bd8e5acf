"""Products in numpy spelling: matmul, dot, vdot, inner, outer, tensordot, einsum, trace (ops layer).

Part of sg.numpy.linalg (ops/numpy_like/linalg.py gathers the namespace).

Every product lowers to dot_general (plus transpose, reshape and reduce);
bool operands multiply as int32 and come back as "is nonzero", as numpy's
bool products do. trace, several primitives, is a library call (graph/calls.py).
"""

from __future__ import annotations

from collections import Counter

from ...graph import dtypes, library
from ...graph.dims import shape_str
from ..primitives.compare import compare, convert, select
from ..primitives.complex_parts import conj
from ..primitives.constants import iota
from ..primitives.dot_general import dot_general
from ..primitives.reduce import reduce
from ..primitives.shape import reshape as prim_reshape
from ..primitives.shape import transpose as prim_transpose
from .core import (
    accumulate_dtype,
    asarray,
    broadcast_shapes,
    broadcast_to,
    error,
    normalize_axis,
    result_dtype,
)
from .manipulation import expand_dims, reshape, squeeze
from .ufuncs import multiply, subtract


def _operands(a, b):
    dt = result_dtype(a, b)
    return asarray(a, dt), asarray(b, dt)


def _dot(x, y, contracting, batch=((), ())):
    """dot_general that also takes bool operands (numpy: any(x and y) over the contraction)."""
    if x.dtype.kind != "b":
        return dot_general(x, y, contracting, batch)
    out = dot_general(convert(x, dtypes.int32), convert(y, dtypes.int32), contracting, batch)
    return convert(out, dtypes.bool_)


def matmul(a, b):
    """Matrix product with numpy semantics: 1-d operands and batch broadcasting."""
    x, y = _operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        raise error(f"matmul wants operands of rank >= 1, got {x.type} and {y.type}")
    x1, y1 = x.ndim == 1, y.ndim == 1
    if x1:
        x = expand_dims(x, 0)
    if y1:
        y = expand_dims(y, 1)
    if x.shape[-1] != y.shape[-2]:
        raise error(
            f"matmul wants x.shape[-1] == y.shape[-2], got {shape_str(x.shape)} and {shape_str(y.shape)}"
        )
    batch = broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = broadcast_to(x, batch + tuple(x.shape[-2:]))
    y = broadcast_to(y, batch + tuple(y.shape[-2:]))
    nb = len(batch)
    out = _dot(x, y, ((x.ndim - 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    if x1:
        out = squeeze(out, -2)
    if y1:
        out = squeeze(out, -1)
    return out


def _contract(name: str, x, y, xa, ya):
    """x and y contracted over dims xa of x with ya of y; result dims: x's free, then y's free."""
    bad = [(i, j) for i, j in zip(xa, ya) if x.shape[i] != y.shape[j]]
    if bad:
        i, j = bad[0]
        raise error(f"{name} wants a.shape[{i}] == b.shape[{j}], got {x.shape} and {y.shape}")
    return _dot(x, y, (tuple(xa), tuple(ya)))


def dot(a, b):
    """numpy's dot: scalars multiply; else contract a's last dim with b's last
    (1-d b) or second-to-last dim. Result dims: a's free, then b's free."""
    x, y = _operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    return _contract("dot", x, y, (x.ndim - 1,), (max(y.ndim - 2, 0),))


def vdot(a, b):
    """Dot product of the flattened operands, conjugating the first (as numpy.vdot)."""
    x, y = _operands(a, b)
    if x.dtype.is_complex:
        x = conj(x)
    x, y = reshape(x, (-1,)), reshape(y, (-1,))
    return _contract("vdot", x, y, (0,), (0,))


def inner(a, b):
    """Contract the last dims of a and b; scalars multiply."""
    x, y = _operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    return _contract("inner", x, y, (x.ndim - 1,), (y.ndim - 1,))


def outer(a, b):
    """out[i, j] = a.ravel()[i] * b.ravel()[j]."""
    x, y = _operands(a, b)
    return multiply(expand_dims(reshape(x, (-1,)), 1), expand_dims(reshape(y, (-1,)), 0))


def tensordot(a, b, axes=2):
    """Sum products over ``axes``: an int n (a's last n dims with b's first n)
    or a pair (a_axes, b_axes) of ints or sequences. Result: a's free, then b's free dims."""
    x, y = _operands(a, b)
    if isinstance(axes, int):
        if not 0 <= axes <= min(x.ndim, y.ndim):
            raise error(f"tensordot axes={axes} does not fit operands {x.type} and {y.type}")
        xa, ya = tuple(range(x.ndim - axes, x.ndim)), tuple(range(axes))
    else:
        try:
            xa, ya = axes
        except (TypeError, ValueError):
            raise error(f"tensordot wants axes as an int or a pair of sequences, got {axes!r}") from None
        xa = (xa,) if isinstance(xa, int) else tuple(xa)
        ya = (ya,) if isinstance(ya, int) else tuple(ya)
        if len(xa) != len(ya):
            raise error(f"tensordot wants as many axes of a as of b, got {xa} and {ya}")
        xa = tuple(normalize_axis(i, x.ndim) for i in xa)
        ya = tuple(normalize_axis(i, y.ndim) for i in ya)
    return _contract("tensordot", x, y, xa, ya)


def _diagonal_mask(shape, axis1: int, axis2: int, offset: int = 0):
    """True where index[axis2] - index[axis1] == offset, over ``shape``."""
    diff = subtract(iota(dtypes.int32, shape, axis2), iota(dtypes.int32, shape, axis1))
    return compare(diff, broadcast_to(asarray(offset, dtypes.int32), shape), "EQ")


def _keep_diagonal(x, axis1: int, axis2: int, offset: int = 0):
    """x with everything off the (offset) diagonal of axes (axis1, axis2) set to zero."""
    zeros = broadcast_to(asarray(0, x.dtype), x.shape)
    return select(_diagonal_mask(x.shape, axis1, axis2, offset), x, zeros)


@library()
def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None):
    """Sum along the (offset) diagonal of axes (axis1, axis2); bool and small ints sum in int32."""
    x = asarray(a)
    if x.ndim < 2:
        raise error(f"trace wants an array of rank >= 2, got {x.type}")
    a1, a2 = normalize_axis(axis1, x.ndim, "axis1"), normalize_axis(axis2, x.ndim, "axis2")
    if a1 == a2:
        raise error(f"trace wants two different axes, got axis1={axis1} and axis2={axis2} for {x.type}")
    dt = dtypes.dtype(dtype) if dtype is not None else accumulate_dtype(x.dtype)
    return reduce(_keep_diagonal(convert(x, dt), a1, a2, int(offset)), "sum", (a1, a2))


# -- einsum --------------------------------------------------------------------
# Labels are letters for named dims and ints for the dims an ellipsis stands for,
# counted from the right (0 = last), so that ellipsis dims of different operands
# line up and broadcast as numpy's do.


def _einsum_term(term: str, n_dims: int | None, subscripts: str, what: str) -> list:
    """The labels of one term; ``n_dims`` is the rank it must name (None: the output)."""
    before, ell, after = term.partition("...")
    if "." in before + after or (before + after and not (before + after).isalpha()):
        raise error(f"einsum subscripts {subscripts!r}: {what} term {term!r} may hold letters and one '...'")
    named = len(before) + len(after)
    if n_dims is None:
        return list(before) + list(after)
    n_ell = n_dims - named
    if n_ell < 0 or (n_ell and not ell):
        raise error(f"einsum subscripts {subscripts!r}: {what} term {term!r} does not fit rank {n_dims}")
    return list(before) + list(range(n_ell - 1, -1, -1)) + list(after)


def _einsum_parse(subscripts: str, xs) -> tuple[list[list], list]:
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(xs):
        raise error(f"einsum subscripts {subscripts!r} name {len(terms)} operands, got {len(xs)}")
    ins = [_einsum_term(t, x.ndim, subscripts, f"operand {k}") for k, (t, x) in enumerate(zip(terms, xs))]
    n_ell = max((sum(isinstance(lb, int) for lb in labels) for labels in ins), default=0)
    ell_labels = list(range(n_ell - 1, -1, -1))
    if not arrow:
        counts = Counter(lb for labels in ins for lb in labels if isinstance(lb, str))
        return ins, ell_labels + sorted(lb for lb, c in counts.items() if c == 1)
    if "->" in rhs:
        raise error(f"einsum subscripts {subscripts!r} have more than one '->'")
    named = _einsum_term(rhs, None, subscripts, "output")
    before, ell, _ = rhs.partition("...")
    out = named[: len(before)] + (ell_labels if ell else []) + named[len(before) :]
    known = {lb for labels in ins for lb in labels}
    for lb in named:
        if lb not in known or named.count(lb) > 1:
            why = "appears twice in the output" if lb in known else "names no input dim"
            raise error(f"einsum subscripts {subscripts!r}: output label {lb!r} {why}")
    return ins, out


def _einsum_sizes(subscripts: str, ins, xs) -> dict:
    """Each label's size; a size-1 dim broadcasts against the others."""
    sizes: dict = {}
    for labels, x in zip(ins, xs):
        for lb, d in zip(labels, x.shape):
            s = sizes.get(lb, 1)
            if s == 1:
                sizes[lb] = d
            elif d not in (1, s):
                shapes = ", ".join(str(y.shape) for y in xs)
                name = "..." if isinstance(lb, int) else lb
                raise error(
                    f"einsum {subscripts!r}: label {name!r} has sizes {s} and {d} in operands {shapes}"
                )
    return sizes


def _einsum_drop_broadcast(x, labels: list, sizes: dict):
    """Remove the size-1 dims that broadcast against a larger size of their label elsewhere."""
    drop = [i for i, (lb, d) in enumerate(zip(labels, x.shape)) if d == 1 and sizes[lb] != 1]
    if not drop:
        return x, list(labels)
    x = prim_reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in drop))
    return x, [lb for i, lb in enumerate(labels) if i not in drop]


def _einsum_reduce(x, labels: list, keep: set):
    """Take the diagonal of repeated labels, then sum the labels not in ``keep``."""
    labels = list(labels)
    for lb in list(labels):
        while labels.count(lb) > 1:
            p = labels.index(lb)
            q = labels.index(lb, p + 1)
            x = reduce(_keep_diagonal(x, p, q), "sum", (q,))
            del labels[q]
    gone = tuple(i for i, lb in enumerate(labels) if lb not in keep)
    return reduce(x, "sum", gone), [lb for lb in labels if lb in keep]


def einsum(subscripts: str, *operands, optimize=None, dtype=None):
    """Einstein summation, e.g. ``einsum("bij,bjk->bik", x, y)``.

    Supports explicit ('->') and implicit outputs, '...' for broadcast dims,
    repeated labels within an operand (diagonals) and any number of operands,
    contracted pairwise from left to right with dot_general. Labels that are in
    no other operand nor the output are summed first. ``optimize`` is accepted
    and ignored.
    """
    if not isinstance(subscripts, str):
        raise error(
            "einsum wants a subscripts string first (the interleaved operand, sublist form is not supported)"
        )
    if not operands:
        raise error("einsum wants at least one operand")
    dt = dtypes.dtype(dtype) if dtype is not None else result_dtype(*operands)
    work = dtypes.int32 if dt.kind == "b" else dt
    xs = [asarray(x, dt) for x in operands]
    ins, out = _einsum_parse(subscripts, xs)
    sizes = _einsum_sizes(subscripts, ins, xs)
    terms = [_einsum_drop_broadcast(convert(x, work), labels, sizes) for x, labels in zip(xs, ins)]
    terms = [
        _einsum_reduce(x, labels, set(out).union(*(set(ls) for j, (_, ls) in enumerate(terms) if j != k)))
        for k, (x, labels) in enumerate(terms)
    ]
    acc, acc_l = terms[0]
    for k in range(1, len(terms)):
        y, y_l = terms[k]
        later = set(out).union(*(set(ls) for _, ls in terms[k + 1 :]))
        common = [lb for lb in acc_l if lb in y_l]
        batch = [lb for lb in common if lb in later]
        summed = [lb for lb in common if lb not in later]
        acc = dot_general(
            acc, y,
            ([acc_l.index(lb) for lb in summed], [y_l.index(lb) for lb in summed]),
            ([acc_l.index(lb) for lb in batch], [y_l.index(lb) for lb in batch]),
        )  # fmt: skip
        acc_l = batch + [lb for lb in acc_l if lb not in common] + [lb for lb in y_l if lb not in common]
    acc = prim_transpose(acc, [acc_l.index(lb) for lb in out])
    return convert(acc, dt)


__all__ = ["matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "trace"]
