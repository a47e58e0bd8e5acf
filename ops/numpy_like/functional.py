"""Applying Python functions over arrays: vectorize, apply_along_axis, apply_over_axes,
and matvec / vecmat (ops layer).

vectorize and apply_along_axis map a function over flattened batch lanes. The
ops layer cannot import the transforms, so the batching transform is handed
in at import time (``use_vectorize``, called by the top-level package); until
then each lane is built separately (a static number of lanes).
"""

from __future__ import annotations

import re

import numpy as np

from ...graph import Tensor
from . import math_ufuncs
from .core import asarray, broadcast_shapes, error, normalize_axis
from .linalg import matmul
from .manipulation import broadcast_to, expand_dims, moveaxis, reshape, squeeze, stack

_VECTORIZE: list = []


def use_vectorize(vectorize) -> None:
    """Install the batching transform (sg.vectorize) that snp.vectorize and apply_along_axis map with."""
    _VECTORIZE[:] = [vectorize]


def _map_lanes(fn, xs: list, n):
    """fn applied to lane i of every x in ``xs`` (their axis 0), results stacked on axis 0."""
    if _VECTORIZE:
        return _VECTORIZE[0](fn)(*xs)
    if n is None:
        raise error(
            "mapping over a symbolic number of lanes needs sg.vectorize installed (snp.use_vectorize); "
            "without it the lanes are built one by one and their count must be static"
        )
    lanes = [fn(*(x[i] for x in xs)) for i in range(n)]
    if isinstance(lanes[0], tuple | list):
        return type(lanes[0])(stack([lane[k] for lane in lanes]) for k in range(len(lanes[0])))
    return stack(lanes)


def _static_count(batch):
    """The number of lanes, or None when a dim is symbolic."""
    return int(np.prod(batch)) if all(isinstance(d, int) for d in batch) else None


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
        out = _map_lanes(one, flat, _static_count(batch))
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
    out = _map_lanes(lambda lane: asarray(func1d(lane, *args, **kwargs)), [flat], _static_count(batch))
    out = reshape(out, batch + tuple(out.shape[1:]))
    extra = out.ndim - len(batch)
    return moveaxis(out, tuple(range(len(batch), out.ndim)), tuple(range(ax, ax + extra))) if extra else out


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn, keeping the rank (a dropped axis is
    put back with size 1)."""
    x = asarray(a)
    for axis in np.atleast_1d(axes):
        ax = normalize_axis(int(axis), x.ndim)
        y = asarray(func(x, ax))
        if y.ndim == x.ndim - 1:
            y = expand_dims(y, ax)
        elif y.ndim != x.ndim:
            raise error(f"apply_over_axes wants func to keep or drop one dim, got {y.type} from {x.type}")
        x = y
    return x


def _conj(x: Tensor) -> Tensor:
    return math_ufuncs.conj(x) if x.dtype.is_complex else x


def matvec(x1, x2, /):
    """Matrix-vector products over the batch dims: (..., m, n) and (..., n) give (..., m)."""
    a, v = asarray(x1), asarray(x2)
    if a.ndim < 2 or v.ndim < 1:
        raise error(f"matvec wants a matrix and a vector, got {a.type} and {v.type}")
    return squeeze(matmul(a, expand_dims(v, -1)), -1)


def vecmat(x1, x2, /):
    """Vector-matrix products conj(x1) @ x2 over the batch dims: (..., n) and (..., n, m) give (..., m)."""
    v, a = asarray(x1), asarray(x2)
    if a.ndim < 2 or v.ndim < 1:
        raise error(f"vecmat wants a vector and a matrix, got {v.type} and {a.type}")
    return squeeze(matmul(expand_dims(_conj(v), -2), a), -2)


__all__ = ["apply_along_axis", "apply_over_axes", "matvec", "vecmat", "vectorize"]
