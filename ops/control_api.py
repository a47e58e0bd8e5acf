"""Control flow as jax.lax spells it: cond, switch, while_loop, fori_loop, scan, map (ops layer).

Bodies are Python callables, traced once into Functions on the carried or
operand types (or Functions already); tensors of the enclosing graph that
they read become captures. Everything lowers to the primitives of
ops/control.py: cond (stablehlo.case), while (stablehlo.while) and scan (a
stablehlo.while over a counter that reads step ``i`` of the stacked ``xs``
and writes step ``i`` of the stacked ``ys``). scan, map, fori_loop with
Python int bounds and while_loop with ``max_steps`` are scans, so reverse
mode goes through them; fori_loop with Tensor bounds and a plain
while_loop are while loops.
"""

from __future__ import annotations

import inspect
import operator

from ..graph import (
    Function,
    GraphError,
    Tensor,
    TensorType,
    describe,
    dtypes,
    flatten,
    function,
    leaf_paths,
    located,
    unflatten,
    user_location,
)
from ..graph.dims import check_dim
from .nests import tensor_leaves
from .primitives import elementwise as ew
from .primitives.compare import clamp, compare, convert, select
from .primitives.constants import constant
from .primitives.control import cond_call, scan_call, while_call
from .primitives.registry import bind
from .primitives.shape import broadcast_in_dim

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map"]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _tensor(x, dtype=None) -> Tensor:
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype is dtype else convert(x, dtype)
    return constant(x, dtype)


def _name(fn, default: str) -> str:
    name = getattr(fn, "__name__", default)
    return default if name == "<lambda>" else name


def _check_arity(fn, takes: tuple[str, ...], who: str, label: str) -> None:
    """A GraphError at the user's line unless ``fn`` can be called as ``label(*takes)``.

    Checked before tracing, so a body with the wrong number of parameters is not a raw
    TypeError from inside the library (a TypeError the body itself raises still is its own).
    """
    n, spelled = len(takes), f"{label}({', '.join(takes)})"
    if isinstance(fn, Function):
        if len(fn.params) != n:
            raise _error(
                f"{who} calls {spelled}, but the Function {fn.name} takes {len(fn.params)} arguments"
            )
        return
    if not callable(fn):
        raise _error(f"{who} wants {label} to be a function {spelled}, got {type(fn).__name__} {fn!r:.40}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: calling it will say what is wrong
        return
    try:
        sig.bind(*takes)
    except TypeError:
        name = getattr(fn, "__name__", type(fn).__name__)
        name = "lambda" if name == "<lambda>" else name
        raise _error(
            f"{who} calls {spelled} with {n} argument{'s' if n != 1 else ''}, but the {label} given, "
            f"{name}{sig}, does not take {n}"
        ) from None


def _int(value, who: str, what: str, low: int | None = 0) -> int:
    """``value`` as a Python int (>= ``low`` unless None), else a GraphError at the user's line."""
    try:
        n = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        n = None
    if n is None or (low is not None and n < low):
        want = "an int" if low is None else f"an int >= {low}"
        raise _error(f"{who} wants {what} to be {want}, got {type(value).__name__} {value!r:.40}")
    return n


def _operands(n: int) -> tuple[str, ...]:
    return tuple(f"operands[{i}]" for i in range(n))


def _trace(fn, types, name: str, arg_tree=None, out_types=None):
    """A Function for ``fn`` on flat ``types`` (unflattened to ``arg_tree`` for the call) and its out tree.

    Python numbers that ``fn`` returns take the dtypes of ``out_types`` where given.
    """
    if isinstance(fn, Function):
        return fn, fn.out_tree
    trees = []

    def flat(*params):
        args = unflatten(arg_tree, list(params)) if arg_tree is not None else params
        leaves, tree = flatten(fn(*args))
        trees.append(tree)
        if out_types is not None and len(out_types) == len(leaves):
            leaves = [
                _tensor(x, t.dtype) if not isinstance(x, Tensor) else x for x, t in zip(leaves, out_types)
            ]
        return leaves

    out = function(flat, types, name=name, arg_names=_arg_names(fn, arg_tree, len(types)))
    return out, trees[0]


def _arg_names(fn, arg_tree, n: int):
    """fn's own parameter names when each of its arguments is one leaf (else arg0, arg1, ...)."""
    if arg_tree != (tuple, (None,) * n):
        return None
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names if len(names) == n and len(set(names)) == n else None


def _unary_tree(tree):
    """The treedef of the nest (a,) so that a one-argument body gets its whole carry."""
    return (tuple, (tree,))


def _add(x, y):
    return bind(ew.add, x, y)


# -- cond and switch ------------------------------------------------------------------------------
def switch(index, branches, *operands):
    """``branches[clamp(index, 0, len(branches) - 1)](*operands)``, like jax.lax.switch.

    Every branch must return the same structure of the same types. Lowers to
    stablehlo.case.

        y = sg.switch(i, [lambda x: x, lambda x: 2 * x, snp.sin], x)
    """
    if not isinstance(branches, list | tuple):
        raise _error(f"switch wants a list of branch functions, got {type(branches).__name__}")
    branches = list(branches)
    if not branches:
        raise _error("switch wants at least one branch, got none")
    if isinstance(index, Tensor):
        index = _tensor(index, dtypes.int32)
    else:
        index = constant(_int(index, "switch", "index", None), dtypes.int32)
    if index.type.shape != ():
        raise _error(f"switch wants a scalar index, got {index.type}")
    for i, b in enumerate(branches):
        _check_arity(b, _operands(len(operands)), "switch", f"branches[{i}]")
    index = clamp(constant(0, dtypes.int32), index, constant(len(branches) - 1, dtypes.int32))
    return _case(index, branches, operands, [f"branch{i}" for i in range(len(branches))])


def cond(pred, true_fn, false_fn, *operands):
    """``true_fn(*operands)`` if the scalar ``pred`` holds, else ``false_fn(*operands)``; jax.lax.cond.

    Only the chosen branch runs (stablehlo.case on the predicate).

        y = sg.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x)
    """
    for fn, label in ((true_fn, "true_fn"), (false_fn, "false_fn")):
        _check_arity(fn, _operands(len(operands)), "cond", label)
    pred = _tensor(pred)
    if pred.type.shape != ():
        raise _error(f"cond wants a scalar predicate, got {pred.type}")
    if pred.dtype is not dtypes.bool_:
        pred = compare(pred, constant(0, pred.dtype), "NE")
    index = convert(pred, dtypes.int32)
    return _case(index, [false_fn, true_fn], operands, ["false_fn", "true_fn"])


def _case(index, branches, operands, labels):
    leaves, tree = tensor_leaves(tuple(operands), "operands", "cond")
    types = [x.type for x in leaves]
    traced = [_trace(b, types, _name(b, label), tree) for b, label in zip(branches, labels)]
    fns = [fn for fn, _ in traced]
    for fn, (_, t) in zip(fns, traced):
        if t != traced[0][1]:
            raise _error(
                f"cond wants every branch to return the same structure, got {describe(traced[0][1])} from "
                f"{fns[0].name} and {describe(t)} from {fn.name}"
            )
    return unflatten(traced[0][1], cond_call(index, fns, leaves))


# -- while_loop and fori_loop ---------------------------------------------------------------------
def while_loop(cond_fun, body_fun, init_val, max_steps: int | None = None):
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)``; jax.lax.while_loop.

    ``init_val`` may be any nest; the body must keep its structure and types.
    With ``max_steps`` the loop stops after at most that many iterations (a
    bounded loop; reverse-mode gradients need it). Lowers to stablehlo.while.

        n = sg.while_loop(lambda s: s < 100, lambda s: s * 2, one)
    """
    _check_arity(cond_fun, ("val",), "while_loop", "cond_fun")
    _check_arity(body_fun, ("val",), "while_loop", "body_fun")
    leaves, tree = tensor_leaves(init_val, "init_val", "while_loop")
    if max_steps is None:
        return unflatten(tree, _loop(cond_fun, body_fun, leaves, tree))
    steps = _int(max_steps, "while_loop", "max_steps")
    return unflatten(tree, _bounded_loop(cond_fun, body_fun, leaves, tree, steps))


def _bounded_loop(cond_fun, body_fun, leaves, tree, max_steps: int) -> list[Tensor]:
    """At most ``max_steps`` iterations as a scan whose steps after the first failed cond keep the carry.

    The carry gains a ``done`` flag; each step runs the body and selects, per
    leaf, the old value where done (or cond fails) and the new one elsewhere.
    A scan of known length is reverse-differentiable; the body's value on a
    skipped step is computed and dropped.
    """
    if max_steps <= 0:
        return leaves
    types = [x.type for x in leaves]

    def step(carry, _):
        done, val = carry[0], list(carry[1:])
        nest = unflatten(tree, val)
        go = bind(ew.and_, bind(ew.not_, done), _tensor(cond_fun(nest)))
        new, new_tree = flatten(body_fun(nest))
        if new_tree != tree:
            raise _error(
                f"while_loop body {_name(body_fun, 'body_fun')} must keep the carry's structure: it takes "
                f"{describe(tree)} and returns {describe(new_tree)}"
            )
        new = [_tensor(x, t.dtype) if not isinstance(x, Tensor) else x for x, t in zip(new, types)]
        kept = [select(broadcast_in_dim(go, v.type.shape, ()), n, v) for n, v in zip(new, val)]
        return [bind(ew.not_, go), *kept], ()

    _named(step, _name(body_fun, "body_fun"))
    init = [constant(False, dtypes.bool_), *leaves]
    return scan(step, init, None, length=max_steps)[0][1:]


def _named(fn, name: str):
    fn.__name__ = name
    return fn


def _loop(cond_fun, body_fun, leaves, tree, spread: bool = False, name: str = "while_loop") -> list[Tensor]:
    """while_op over flat ``leaves``; the bodies get the carry as one nest (or spread as arguments)."""
    types = [x.type for x in leaves]
    arg_tree = tree if spread else _unary_tree(tree)
    cond_fn, _ = _trace(cond_fun, types, _name(cond_fun, "cond_fun"), arg_tree)
    body_fn, out_tree = _trace(body_fun, types, _name(body_fun, "body_fun"), arg_tree, types)
    if out_tree != tree:
        raise _error(
            f"while_loop body {body_fn.name} must keep the carry's structure: it takes {describe(tree)} and "
            f"returns {describe(out_tree)}"
        )
    return while_call(cond_fn, body_fn, leaves, name=name)


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``; jax.lax.fori_loop.

    Bounds are Python ints or integer scalar Tensors (the counter takes their
    dtype, int32 for Python ints).

        acc = sg.fori_loop(0, 10, lambda i, a: a + i, 0.0)
    """
    _check_arity(body_fun, ("i", "val"), "fori_loop", "body_fun")
    leaves, tree = tensor_leaves(init_val, "init_val", "fori_loop")
    if not isinstance(lower, Tensor) and not isinstance(upper, Tensor):
        lo, hi = (_int(b, "fori_loop", what, None) for b, what in ((lower, "lower"), (upper, "upper")))
        return unflatten(tree, _static_fori(lo, hi, body_fun, leaves, tree))
    dt = next((b.dtype for b in (lower, upper) if isinstance(b, Tensor)), dtypes.int32)
    lo, hi = _tensor(lower, dt), _tensor(upper, dt)

    def loop_cond(i, val):
        return compare(i, hi, "LT")

    types = [x.type for x in leaves]

    def loop_body(i, val):
        return (_add(i, constant(1, dt)), unflatten(tree, _fori_body(body_fun, i, val, tree, types)))

    _named(loop_body, _name(body_fun, "body_fun"))
    out = _loop(loop_cond, loop_body, [lo, *leaves], (tuple, (None, tree)), spread=True, name="fori_loop")
    return unflatten(tree, out[1:])


def _static_fori(lower: int, upper: int, body_fun, leaves, tree) -> list[Tensor]:
    """fori_loop with Python int bounds: a scan of ``upper - lower`` steps carrying the counter."""
    if upper <= lower:
        return leaves
    types = [x.type for x in leaves]

    def step(carry, _):
        i, val = carry[0], unflatten(tree, list(carry[1:]))
        return [_add(i, constant(1, dtypes.int32)), *_fori_body(body_fun, i, val, tree, types)], ()

    _named(step, _name(body_fun, "body_fun"))
    init = [constant(lower, dtypes.int32), *leaves]
    return scan(step, init, None, length=upper - lower)[0][1:]


def _fori_body(body_fun, i, val, tree, types) -> list[Tensor]:
    """The leaves of ``body_fun(i, val)``, which must keep the carry's structure and types."""
    new, new_tree = flatten(body_fun(i, val))
    name = _name(body_fun, "body_fun")
    if new_tree != tree:
        raise _error(
            f"fori_loop body {name} must keep the carry's structure: it takes {describe(tree)} and "
            f"returns {describe(new_tree)}"
        )
    new = [_tensor(x, t.dtype) if not isinstance(x, Tensor) else x for x, t in zip(new, types)]
    if [x.type for x in new] != types:
        raise _error(
            f"fori_loop body {name} must keep the carry's types: it takes {_types_str(types)} and returns "
            f"{_types_str(x.type for x in new)}"
        )
    return new


# -- scan and map ---------------------------------------------------------------------------------
def scan(f, init, xs=None, length: int | None = None, reverse: bool = False, unroll: int | bool = 1):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns ``(carry, ys)``.

    As jax.lax.scan: ``init`` and ``xs`` may be nests (``xs=None`` needs
    ``length``), ``ys`` stacks the per-step outputs, ``reverse=True`` walks
    ``xs`` from the end (and writes ``ys`` in the same places). ``unroll=k``
    runs k steps per trip around the loop (``True``: all steps, no loop),
    trading program size for loop overhead; results do not change. Lowers
    to stablehlo.while with dynamic_slice / dynamic_update_slice.

        h_last, hs = sg.scan(lambda h, x: (snp.tanh(h + x), h), h0, xs)
    """
    if isinstance(unroll, bool):
        unroll = 0 if unroll else 1
    elif not isinstance(unroll, int) or unroll < 1:
        raise _error(f"scan wants unroll to be a positive int or a bool, got {unroll!r}")
    _check_arity(f, ("carry", "x"), "scan", "f")
    carry, ctree = tensor_leaves(init, "init", "scan")
    xs_leaves, xtree = tensor_leaves(xs, "xs", "scan")
    n = _scan_length(xs_leaves, xtree, length)
    x_types = [TensorType(x.type.shape[1:], x.type.dtype) for x in xs_leaves]
    c_types = [c.type for c in carry]
    trees = []

    def step(*flat):
        c = unflatten(ctree, list(flat[: len(carry)]))
        x = unflatten(xtree, list(flat[len(carry) :]))
        out = f(c, x)
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise _error(f"scan wants f to return a pair (carry, y), got {type(out).__name__}")
        c_leaves, c_out = flatten(out[0])
        y_leaves, y_tree = flatten(out[1])
        trees.append((c_out, y_tree))
        c_leaves = [x if isinstance(x, Tensor) else _tensor(x, t.dtype) for x, t in zip(c_leaves, c_types)]
        return c_leaves + [_tensor(y) for y in y_leaves]

    flat_args = ctree is None and xtree is None  # f(c, x) on one leaf each: keep f's parameter names
    names = _arg_names(f, (tuple, (None, None)), 2) if flat_args else None
    f_fn = function(step, c_types + x_types, name=_name(f, "f"), arg_names=names)
    c_out, y_tree = trees[0]
    if c_out != ctree or list(f_fn.out_types[: len(carry)]) != c_types:
        got = _types_str(f_fn.out_types[: len(carry)])
        raise _error(
            f"scan body {f_fn.name} must keep the carry's structure and types: it takes {describe(ctree)} "
            f"{_types_str(c_types)} and returns {describe(c_out)} {got}"
        )
    out = scan_call(f_fn, carry, xs_leaves, n, reverse=reverse, unroll=unroll)
    return unflatten(ctree, out[: len(carry)]), unflatten(y_tree, out[len(carry) :])


def _types_str(types) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _scan_length(xs_leaves, xtree, length):
    if any(x.ndim == 0 for x in xs_leaves):
        raise _error("scan wants xs with a leading axis to scan over, got a scalar")
    lengths = [(f"xs{path}", x.type.shape[0]) for path, x in zip(leaf_paths(xtree), xs_leaves)]
    if length is not None:
        lengths.append(("length", _scan_steps(length)))
    if not lengths:
        raise _error("scan wants xs or length, got neither")
    if len({n for _, n in lengths}) != 1:
        spelled = ", ".join(f"{where} has {n}" for where, n in lengths)
        raise _error(f"scan wants xs (and length) to agree on the number of steps, got: {spelled}")
    return lengths[0][1]


def _scan_steps(length):
    """scan's ``length``: an int >= 0, or a dim (a symbol such as "n", or an expression)."""
    if not isinstance(length, str):
        return _int(length, "scan", "length")
    try:
        return check_dim(length)
    except GraphError as e:
        raise _error(f"scan wants length to be an int >= 0 or a dim, got {length!r}: {e}") from None


def map(f, xs):  # noqa: A001  (spelled like jax.lax.map)
    """``f`` applied to each slice of ``xs`` along its leading axis, stacked; jax.lax.map."""
    _check_arity(f, ("x",), "map", "f")
    return scan(lambda c, x: (c, f(x)), (), xs)[1]
