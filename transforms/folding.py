"""Constant folding for sg.simplify: numpy versions of primitives (transforms layer).

``FOLDS`` maps an op name to ``fold(attrs, *arrays) -> array``, or None where
folding would disagree with XLA (an integer division by zero, a float to int
conversion out of range) or where numpy has no matching function. The
simplify driver prefers an OpDef's own ``fold`` slot and falls back to this
table; the entries can move into the op families' blocks later.

A *splat* is a tensor whose elements all hold one value: a constant, or a
broadcast of one. Elementwise and shape ops of splats fold to a splat even
when their shape is symbolic or large, written as a broadcast of a scalar.
"""

from __future__ import annotations

import numpy as np

SPLAT_LIMIT = 1024  # largest constant inspected for a repeated value


def constant_value(t) -> np.ndarray | None:
    """The value of a constant node's output, else None."""
    node = t.node
    return node.attrs.value if node.op.name == "constant" else None


def splat_value(t) -> np.ndarray | None:
    """The one value (0-d array) every element of ``t`` holds, if it is known, else None."""
    node = t.node
    if node.op.name == "broadcast_in_dim":
        return splat_value(node.inputs[0])
    value = constant_value(t)
    if value is None or not 0 < value.size <= SPLAT_LIMIT:
        return None
    first = value.reshape(-1)[0]
    return first if np.all(value == first) else None


def is_canonical_splat(node) -> bool:
    """A broadcast of a constant scalar: how folding writes splats, so never folded again."""
    if node.op.name != "broadcast_in_dim":
        return False
    source = node.inputs[0]
    return source.node.op.name == "constant" and source.type.shape == ()


# -- the table -----------------------------------------------------------------
def _unary(f):
    return lambda attrs, x: f(x)


def _binary(f):
    return lambda attrs, x, y: f(x, y)


def _int_div(attrs, x, y):
    if x.dtype.kind not in "iu":
        return np.true_divide(x, y)
    if np.any(y == 0) or _min_over_minus_one(x, y):
        return None
    return (x - np.fmod(x, y)) // y  # exact: the truncated quotient, as StableHLO rounds


def _int_rem(attrs, x, y):
    if x.dtype.kind in "iu" and (np.any(y == 0) or _min_over_minus_one(x, y)):
        return None
    return np.fmod(x, y)


def _min_over_minus_one(x, y) -> bool:
    return x.dtype.kind == "i" and bool(np.any((x == np.iinfo(x.dtype).min) & (y == -1)))


def _pow(attrs, x, y):
    if x.dtype.kind in "iu" and np.any(y < 0):
        return None
    return np.power(x, y)


def _real_only(f):
    return lambda attrs, *xs: None if xs[0].dtype.kind == "c" else f(*xs)


def _shift(f):
    def fold(attrs, x, y):
        if x.dtype.kind not in "iu" or np.any(y < 0) or np.any(y >= x.dtype.itemsize * 8):
            return None  # XLA defines over-wide shifts; numpy does not
        return f(x, y)

    return fold


def _shift_right_logical(x, y):
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    return np.right_shift(x.view(unsigned), y.astype(unsigned)).view(x.dtype)


def _logistic(x):
    e = np.exp(-np.abs(x))  # never overflows, so tiny results keep their digits
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


_DIRECTIONS = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
               "GT": np.greater, "GE": np.greater_equal}  # fmt: skip


def _convert(attrs, x):
    dst = attrs.dtype.np
    if dst.kind == "f" and dst.itemsize == 1:
        return None  # float8 overflow rules differ between ml_dtypes and XLA
    if dst.kind == "b":
        return x != 0
    if x.dtype.kind == "c" and dst.kind != "c":
        x = x.real
    if x.dtype.kind == "f" and dst.kind in "iu":
        info = np.iinfo(dst)
        if not np.all(np.isfinite(x)) or np.any(x < info.min) or np.any(x > info.max):
            return None  # numpy and XLA disagree outside the target's range
    return x.astype(dst)


def _broadcast_in_dim(attrs, x):
    expanded = [1] * len(attrs.shape)
    for i, d in enumerate(attrs.broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), attrs.shape)


def _slice(attrs, x):
    return x[
        tuple(slice(s, lim, st) for s, lim, st in zip(attrs.start_indices, attrs.limit_shape, attrs.strides))
    ]


_REDUCE = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "and": np.all, "or": np.any}


def _reduce(attrs, x):
    if x.dtype.kind in "iu" and attrs.kind in ("and", "or"):
        return None  # bitwise reductions: numpy's all/any are logical
    return _REDUCE[attrs.kind](x, axis=attrs.axes)


FOLDS = {
    "neg": _unary(np.negative),
    "abs": _unary(np.abs),
    "sign": _real_only(np.sign),
    "floor": _unary(np.floor),
    "ceil": _unary(np.ceil),
    "round": _unary(np.round),  # half to even, as stablehlo.round_nearest_even
    "exp": _unary(np.exp),
    "expm1": _unary(np.expm1),
    "log": _unary(np.log),
    "log1p": _unary(np.log1p),
    "sqrt": _unary(np.sqrt),
    "rsqrt": _unary(lambda x: 1 / np.sqrt(x)),
    "cbrt": _unary(np.cbrt),
    "sin": _unary(np.sin),
    "cos": _unary(np.cos),
    "tan": _unary(np.tan),
    "tanh": _unary(np.tanh),
    "logistic": _unary(_logistic),
    "is_finite": _unary(np.isfinite),
    "not": _unary(np.invert),
    "add": _binary(np.add),
    "sub": _binary(np.subtract),
    "mul": _binary(np.multiply),
    "div": _int_div,
    "rem": _int_rem,
    "pow": _pow,
    "max": _real_only(np.maximum),  # NaN wins in both
    "min": _real_only(np.minimum),
    "atan2": _binary(np.arctan2),
    "and": _binary(np.bitwise_and),
    "or": _binary(np.bitwise_or),
    "xor": _binary(np.bitwise_xor),
    "shift_left": _shift(np.left_shift),
    "shift_right_arithmetic": _shift(np.right_shift),
    "shift_right_logical": _shift(_shift_right_logical),
    "compare": lambda attrs, x, y: _DIRECTIONS[attrs.direction](x, y),
    "select": lambda attrs, pred, x, y: np.where(pred, x, y),
    "clamp": _real_only(lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi)),
    "convert": _convert,
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": lambda attrs, x: x.reshape(attrs.shape),
    "transpose": lambda attrs, x: np.transpose(x, attrs.permutation),
    "rev": lambda attrs, x: np.flip(x, attrs.dimensions),
    "slice": _slice,
    "concatenate": lambda attrs, *xs: np.concatenate(xs, axis=attrs.dimension),
    "reduce": _reduce,
}

# Ops whose result is a splat when every input is one: the elementwise ops
# (computed on the scalars) and the ops that only move elements (the same value).
ELEMENTWISE = frozenset(FOLDS) - {
    "broadcast_in_dim",
    "reshape",
    "transpose",
    "rev",
    "slice",
    "concatenate",
    "reduce",
}
MOVES = frozenset({"broadcast_in_dim", "reshape", "transpose", "rev", "slice"})


def fold_rule(op):
    """The op's own fold rule, else this table's, else None."""
    return op.fold or FOLDS.get(op.name)


def evaluate(op, attrs, arrays) -> list[np.ndarray] | None:
    """Run a fold rule with numpy's warnings off; None where it declines or numpy cannot."""
    rule = fold_rule(op)
    if rule is None:
        return None
    try:
        with np.errstate(all="ignore"):
            out = rule(attrs, *arrays)
    except (TypeError, ValueError, ArithmeticError):
        return None  # e.g. a dtype (float8, bfloat16) numpy has no loop for
    if out is None:
        return None
    return [np.asarray(o) for o in out] if isinstance(out, tuple | list) else [np.asarray(out)]
