"""Arguments of sg.vectorize: in_axes/out_axes against nests, batch sizes, chunks (transforms).

``in_axes`` and ``out_axes`` follow jax.vmap: an int (negative counts from
the end of the batched value), None (not mapped), or a nest that is a
prefix of the arguments' (results') structure, whose leaves apply to whole
sub-nests. Mistakes are GraphErrors that name the argument's path.
"""

from __future__ import annotations

from ..graph import GraphError, dims, located, user_location
from ..graph.tree import leaf_paths
from ..ops import shape, slicing
from ..ops.batching import moveaxis
from ..ops.control_api import scan
from ..ops.nests import tensor_leaves
from ..ops.numpy_like import concatenate


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _axis(a, ndim: int, where: str):
    if a is None:
        return None
    if not isinstance(a, int) or isinstance(a, bool):
        raise _error(f"vectorize wants {where} to be an int or None, got {a!r}")
    if not -ndim <= a < ndim:
        raise _error(f"vectorize: {where} = {a} is out of range for a batched value of rank {ndim}")
    return a % ndim


def _prefix_leaves(axes, value_tree, path: str) -> list:
    """The axis spec of each leaf of ``value_tree``, ``axes`` being a prefix nest of it."""
    if axes is None or isinstance(axes, int):
        n = len(leaf_paths(value_tree))
        return [axes] * n
    sub = _children(value_tree)
    if isinstance(axes, dict) != isinstance(sub, dict):
        raise _error(
            f"vectorize: the axes at {path or 'the top'} are a {type(axes).__name__}, the values are not"
        )
    keys = list(sub) if isinstance(sub, dict) else list(range(len(sub)))
    if (list(axes) if isinstance(axes, dict) else list(range(len(axes)))) != keys:
        raise _error(f"vectorize: the axes at {path or 'the top'} do not match the values' structure")
    out = []
    for k in keys:
        out += _prefix_leaves(axes[k], sub[k], f"{path}[{k!r}]")
    return out


def _children(treedef):
    if treedef is None or treedef == ("none",):
        raise _error("vectorize: an axes nest goes deeper than the values")
    if treedef[0] is dict:
        return dict(zip(treedef[1], treedef[2]))
    return list(treedef[1])


def axes_for(axes, ndims, what: str, tree=None) -> list:
    """One normalized axis (or None) per leaf; ``ndims`` are the batched leaves' ranks."""
    if tree is None:
        tree = (tuple, (None,) * len(ndims))
    specs = _prefix_leaves(tuple(axes) if isinstance(axes, list) else axes, tree, "")
    paths = leaf_paths(tree)
    return [_axis(a, n, f"{what}{p}") for a, n, p in zip(specs, ndims, paths)]


def leaves_of(args, in_axes):
    """The arguments' leaves as Tensors, their tree, and each leaf's batch axis."""
    leaves, tree = tensor_leaves(tuple(args), "args", "vectorize")
    axes = in_axes if not isinstance(in_axes, list) else tuple(in_axes)
    if isinstance(axes, tuple) and len(axes) != len(args):
        raise _error(f"vectorize: in_axes has {len(axes)} entries for {len(args)} arguments")
    return leaves, tree, axes_for(axes, [x.ndim for x in leaves], "in_axes", tree)


def check_sizes(leaves, bdims, axis_size, tree):
    """The one batch size of the mapped leaves (or ``axis_size``); an error naming any that differ."""
    paths = leaf_paths(tree)
    sizes = [(f"args{p}", x.shape[b]) for x, b, p in zip(leaves, bdims, paths) if b is not None]
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
