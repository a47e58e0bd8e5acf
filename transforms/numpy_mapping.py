"""sg.numpy's vectorize and apply_along_axis: a Python function mapped over the lanes of its
arguments with sg.vectorize (transforms layer: they need the batching transform, so they sit
above it; the package's __init__ hangs them on sg.numpy beside the rest of numpy's names).

The lanes are the broadcast leading dims flattened, so any number of them, symbolic too, is one
batched computation.
"""

from __future__ import annotations

import re

from ..ops.numpy_like.core import asarray, broadcast_shapes, error, normalize_axis
from ..ops.numpy_like.manipulation import broadcast_to, moveaxis, reshape
from .vectorize import vectorize as vectorize_transform

_DIMS = re.compile(r"\(([^()]*)\)")


def _core_ndims(signature: str):
    ins, _, outs = signature.replace(" ", "").partition("->")
    count = [len([d for d in g.split(",") if d]) for g in _DIMS.findall(ins)]
    outs_n = [len([d for d in g.split(",") if d]) for g in _DIMS.findall(outs)]
    return count, outs_n


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """``pyfunc`` (written for single elements, or for core dims given by ``signature`` such as
    '(n),(n)->()') applied over all broadcast leading dims of its arguments; arguments named
    or numbered in ``excluded`` pass through unmapped."""

    def mapped(*args, **kwargs):
        fixed = {i for i in excluded if isinstance(i, int)}
        mapped_idx = [i for i in range(len(args)) if i not in fixed]
        xs = [asarray(args[i]) for i in mapped_idx]
        core, out_core = _core_ndims(signature) if signature else ([0] * len(xs), None)
        if len(core) != len(xs):
            raise error(f"vectorize signature {signature!r} names {len(core)} inputs, got {len(xs)}")
        batch = broadcast_shapes(*(tuple(x.shape[: x.ndim - c]) for x, c in zip(xs, core)))
        flat = [reshape(broadcast_to(x, batch + tuple(x.shape[x.ndim - c :])), (-1, *x.shape[x.ndim - c :]))
                for x, c in zip(xs, core)]  # fmt: skip

        def one(*lane):
            full = list(args)
            for i, v in zip(mapped_idx, lane):
                full[i] = v
            return pyfunc(*full, **kwargs)

        if not batch:
            return one(*xs)
        out = vectorize_transform(one)(*flat)
        if isinstance(out, tuple | list):
            return type(out)(reshape(o, batch + tuple(o.shape[1:])) for o in out)
        return reshape(out, batch + tuple(out.shape[1:]))

    mapped.__name__ = getattr(pyfunc, "__name__", "vectorized")
    mapped.__doc__ = getattr(pyfunc, "__doc__", None)
    return mapped


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """``func1d`` applied to every 1-d slice of ``arr`` along ``axis``; the dims it returns take
    the place of ``axis``."""
    x = asarray(arr)
    ax = normalize_axis(axis, x.ndim)
    moved = moveaxis(x, ax, -1)
    batch = tuple(moved.shape[:-1])
    flat = reshape(moved, (-1, moved.shape[-1]))
    out = vectorize_transform(lambda lane: asarray(func1d(lane, *args, **kwargs)))(flat)
    out = reshape(out, batch + tuple(out.shape[1:]))
    extra = out.ndim - len(batch)
    return moveaxis(out, tuple(range(len(batch), out.ndim)), tuple(range(ax, ax + extra))) if extra else out


__all__ = ["apply_along_axis", "vectorize"]
