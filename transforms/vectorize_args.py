"""Arguments of sg.vectorize: in_axes/out_axes against nests, batch sizes, chunks (transforms).

``in_axes`` and ``out_axes`` follow jax.vmap: an int (negative counts from
the end of the batched value), None (not mapped), or a nest that is a
prefix of the arguments' (results') structure, whose leaves apply to whole
sub-nests; keyword arguments are mapped at axis 0. Mistakes are GraphErrors
at the user's line that name the entry or the argument's path: a leaf that is
not an int or None already when sg.vectorize is called, as jax.vmap does.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..graph import GraphError, dims, located, user_location
from ..graph.tree import PrefixMismatch, describe, leaf_paths, prefix_leaves
from ..ops.control_api import scan
from ..ops.nests import tensor_leaves
from ..ops.numpy_like import concatenate
from ..ops.primitives import shape, slicing
from ..ops.primitives.batching import moveaxis


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _axis(a, ndim: int, where: str):
    if a is None:
        return None
    if not -ndim <= a < ndim:
        raise _error(f"vectorize: {where} = {a} is out of range for a batched value of rank {ndim}")
    return a % ndim


def check_axes(axes, what: str, top: bool = True):
    """GraphError at the user's line unless ``axes`` is an int, None or a nest of them; ints come back
    as Python ints (numpy integers are accepted). jax.vmap checks this when it is called, so do we."""
    return _checked(axes, what, what, top)


def _checked(axes, what: str, where: str, top: bool):
    if axes is None or isinstance(axes, numbers.Integral) and not isinstance(axes, bool | np.bool_):
        return None if axes is None else int(axes)
    if isinstance(axes, tuple | list) or (isinstance(axes, dict) and not top):
        items = axes.items() if isinstance(axes, dict) else enumerate(axes)
        out = {k: _checked(a, what, f"{where}[{k!r}]", False) for k, a in items}
        return out if isinstance(axes, dict) else type(axes)(out.values())
    got = f"vectorize: {where} is {axes!r} (a {type(axes).__name__})"
    if top:
        raise _error(
            f"{got}: give an int axis, None, or a tuple of them with one entry per positional argument"
        )
    raise _error(f"{got}: each entry must be an int axis or None")


def _prefix_leaves(axes, value_tree, what: str) -> list:
    """The axis spec of each leaf of ``value_tree``, ``axes`` being a prefix nest of it."""
    try:
        return prefix_leaves(axes, value_tree, lambda a: a is None or isinstance(a, int))
    except PrefixMismatch as e:
        where, tree = f"{what}{e.path}", e.subtree
        if e.problem == "leaf":
            value = "a single value, not a nest" if tree is None else "None"
            message = f"is a {type(e.entry).__name__} of axes, but the value there is {value}"
        elif e.problem == "kind":
            message = f"is a {type(e.entry).__name__} of axes, but the value there is structured as {describe(tree)}"
        else:
            message = f"= {e.entry!r} does not match the structure of the values there, {describe(tree)}"
        raise _error(f"vectorize: {where} {message}") from None


def axes_for(axes, ndims, what: str, tree=None) -> list:
    """One normalized axis (or None) per leaf; ``ndims`` are the batched leaves' ranks."""
    if tree is None:
        tree = (tuple, (None,) * len(ndims))
    axes = check_axes(axes, what)
    specs = _prefix_leaves(tuple(axes) if isinstance(axes, list) else axes, tree, what)
    paths = leaf_paths(tree)
    return [_axis(a, n, f"{what}{p}") for a, n, p in zip(specs, ndims, paths)]


def leaves_of(args, kwargs, in_axes):
    """The arguments' leaves as Tensors (positional, then keyword), their tree ``(args, kwargs)``,
    each leaf's batch axis (keyword arguments are mapped at axis 0, as jax.vmap maps them) and each
    leaf's path (``args[0]['w']``, ``kwargs['b']``)."""
    leaves, tree = tensor_leaves(tuple(args), "args", "vectorize")
    k_leaves, k_tree = tensor_leaves(dict(kwargs), "kwargs", "vectorize")
    axes = in_axes if not isinstance(in_axes, list) else tuple(in_axes)
    if isinstance(axes, tuple) and len(axes) != len(args):
        raise _error(f"vectorize: in_axes has {len(axes)} entries for {len(args)} positional arguments")
    bdims = axes_for(axes, [x.ndim for x in leaves], "in_axes", tree)
    bdims += axes_for(0, [x.ndim for x in k_leaves], "kwargs", k_tree)
    paths = [f"args{p}" for p in leaf_paths(tree)] + [f"kwargs{p}" for p in leaf_paths(k_tree)]
    return leaves + k_leaves, (tuple, (tree, k_tree)), bdims, paths


def check_sizes(leaves, bdims, axis_size, paths):
    """The one batch size of the mapped leaves (or ``axis_size``); an error naming any that differ."""
    sizes = [(p, x.shape[b]) for x, b, p in zip(leaves, bdims, paths) if b is not None]
    if axis_size is not None:
        sizes.append(("axis_size", axis_size))
    if not sizes:
        raise _error("vectorize needs a mapped argument (an in_axes entry that is not None) or axis_size")
    if len({s for _, s in sizes}) != 1:
        spelled = ", ".join(f"{where} has {s}" for where, s in sizes)
        raise _error(f"vectorize wants one batch size, got: {spelled}")
    return sizes[0][1]


def chunked(fn, params, bdims, out_bdims, size, chunk: int, run) -> list:
    """``run`` (one batched application) over chunks of ``chunk`` lanes in a scan, then the rest.

    The batch size may be symbolic: the scan then has ``size // chunk`` steps and the remainder
    ``size % chunk`` lanes (possibly none), both dim expressions the Session binds.
    """
    if any(w is None for w in out_bdims):
        raise _error("vectorize(chunk_size=) wants every result mapped (no out_axes=None)")
    full, covered = dims.floordiv(size, chunk), dims.mul(dims.floordiv(size, chunk), chunk)
    if isinstance(size, int) and (full == 0 or (full == 1 and covered == size)):
        return run(fn, params, bdims, out_bdims, size)  # one chunk holds the batch
    mapped = [b is not None for b in bdims]
    front = [moveaxis(x, b, 0) if m else x for x, b, m in zip(params, bdims, mapped)]
    lanes = [0 if m else None for m in mapped]
    fronts = [0] * len(out_bdims)
    stacked = [shape.reshape(_rows(x, 0, covered), (full, chunk, *x.shape[1:]))
               for x, m in zip(front, mapped) if m]  # fmt: skip

    def step(carry, xs):
        it = iter(xs)
        args = [next(it) if m else x for x, m in zip(front, mapped)]
        return carry, run(fn, args, lanes, fronts, chunk)

    _, ys = scan(step, (), stacked, length=full)
    outs = [shape.reshape(y, (covered, *y.shape[2:])) for y in ys]
    if covered != size:
        tail = [_rows(x, covered, size) if m else x for x, m in zip(front, mapped)]
        rest = next(t.shape[0] for t, m in zip(tail, mapped) if m)
        more = run(fn, tail, lanes, fronts, rest)
        outs = [concatenate([a, b], axis=0) for a, b in zip(outs, more)]
    return [moveaxis(o, 0, w) for o, w in zip(outs, out_bdims)]


def _rows(x, start, limit):
    """Rows ``start:limit`` of ``x`` (dims: ints or expressions)."""
    return slicing.slice(x, (start,) + (0,) * (x.ndim - 1), (limit, *x.shape[1:]))
