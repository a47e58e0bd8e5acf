"""sg.numpy.ufunc and frompyfunc: an elementwise function with numpy's ufunc methods (reduce,
accumulate, at, outer, reduceat), as jax.numpy.ufunc.

A ufunc built from a Python function on scalars (``frompyfunc(f, 2, 1)``) maps it over its
broadcast arguments with sg.numpy.vectorize, so it sits in the transforms layer and the
package's __init__ hangs it on sg.numpy. Its methods loop over the reduced axis (fori_loop
or scan), one step per element, in numpy's order: they work for any binary function,
associative or not. sg.numpy's own binary ufuncs (add, multiply, maximum, logaddexp, ...)
are ufunc objects too; where one of them has a direct reduction (add.reduce is sum) the
method uses it instead of the loop.
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor, dtypes
from ..ops.control_api import fori_loop, scan
from ..ops.numpy_like import append, arange, concatenate, take, where, zeros
from ..ops.numpy_like.core import asarray, error, normalize_axis
from ..ops.numpy_like.manipulation import broadcast_to, moveaxis, reshape
from . import numpy_mapping


class ufunc:  # noqa: N801  (numpy's and jax's name)
    """An elementwise function of ``nin`` arguments and ``nout`` results with numpy's ufunc
    methods; ``identity`` is what a reduction of nothing gives (None: no such value).
    ``call``, ``reduce``, ``accumulate``, ``at`` and ``reduceat`` replace the generic loops
    (a direct implementation of the same thing)."""

    def __init__(self, func, /, nin: int, nout: int, *, name=None, nargs=None, identity=None,
                 call=None, reduce=None, accumulate=None, at=None, reduceat=None):  # fmt: skip
        if not callable(func):
            raise error(f"ufunc wants a callable, got {func!r}")
        self._func = func
        self.__wrapped__ = func  # the plain function (sg.lax.reduce and reduce_window look it up)
        self.nin, self.nout = int(nin), int(nout)
        self.nargs = self.nin if nargs is None else int(nargs)
        self.identity = identity
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self.__doc__ = getattr(func, "__doc__", None)
        self._direct = dict(call=call, reduce=reduce, accumulate=accumulate, at=at, reduceat=reduceat)

    def __repr__(self) -> str:
        return f"<sg.numpy.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        """The function applied elementwise to broadcast ``args`` (``out=``/``where=``: not taken,
        as in jax: the result is a new Tensor)."""
        if out is not None or where is not None:
            raise error(f"{self.__name__}: out= and where= are not taken (use sg.numpy.where on the result)")
        if len(args) != self.nin:
            raise error(f"{self.__name__} takes {self.nin} arguments, got {len(args)}")
        if self._direct["call"] is not None:
            return self._direct["call"](*args)
        return numpy_mapping.vectorize(self._func)(*args)

    def _binary(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise error(f"{self.__name__}.{method} needs a function of two arguments and one result "
                        f"(nin=2, nout=1), this one has nin={self.nin}, nout={self.nout}")  # fmt: skip

    def _dtype(self, x: Tensor):
        """The dtype of the function's result on two elements of ``x``'s dtype."""
        z = asarray(np.zeros((), x.dtype.np))
        return self(z, z).dtype

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        """``a`` folded along ``axis`` (None: all of it; a tuple: each in turn) with the function,
        from ``initial`` (default: ``identity``; None: the first element)."""
        self._binary("reduce")
        if out is not None:
            raise error(f"{self.__name__}.reduce: out= is not taken")
        x = asarray(a)
        direct = self._direct["reduce"]
        if direct is not None and initial is None and where is None:
            return direct(x, axis=axis, dtype=dtype, keepdims=keepdims)
        if where is not None and initial is None and self.identity is None:
            raise error(f"{self.__name__}.reduce has no identity: where= needs initial=")
        start = self.identity if initial is None else initial
        mask = None if where is None else broadcast_to(asarray(where), tuple(x.shape))
        if mask is not None and mask.dtype.name != "bool":
            raise error(f"{self.__name__}.reduce: where= wants booleans, got {mask.type}")
        if axis is None:
            axes = tuple(range(x.ndim))
        else:
            axes = tuple(normalize_axis(ax, x.ndim) for ax in (axis if isinstance(axis, tuple) else (axis,)))
        dt = _dtype_of(dtype) or self._dtype(x)
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        for ax in sorted(axes, reverse=True):
            x, mask = self._fold(x, ax, dt, start, mask)
        return reshape(x, kept) if keepdims else x

    def _fold(self, x: Tensor, ax: int, dt, start, mask):
        """One reduction along ``ax``: the loop ``acc = f(acc, x[i])`` (masked lanes keep acc)."""
        xs = moveaxis(x, ax, 0).astype(dt)
        ms = None if mask is None else moveaxis(mask, ax, 0)
        n = xs.shape[0]
        rest = tuple(xs.shape[1:])
        if n == 0 and start is None:
            raise error(f"zero-size array to reduction operation {self.__name__} which has no identity")
        if start is None:
            acc, first = xs[0], 1
        else:
            acc, first = broadcast_to(asarray(start).astype(dt), rest), 0

        def step(i, acc):
            new = self(acc, xs[i]).astype(dt)
            return new if ms is None else where(ms[i], new, acc)

        out = fori_loop(first, n, step, acc) if n > first else acc
        return out, None  # the mask is spent: later axes fold what it kept

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running reduction along ``axis``: element i is the fold of elements 0..i."""
        self._binary("accumulate")
        if out is not None:
            raise error(f"{self.__name__}.accumulate: out= is not taken")
        if axis is None or isinstance(axis, tuple):
            raise error(f"{self.__name__}.accumulate wants one integer axis, got {axis!r}")
        x = asarray(a)
        direct = self._direct["accumulate"]
        if direct is not None:
            return direct(x, axis=axis, dtype=dtype)
        ax = normalize_axis(axis, x.ndim)
        dt = _dtype_of(dtype) or self._dtype(x)
        xs = moveaxis(x, ax, 0).astype(dt)
        if xs.shape[0] == 0:
            return x.astype(dt)

        def step(acc, xi):
            new = self(acc, xi).astype(dt)
            return new, new

        _, rest = scan(step, xs[0], xs[1:])
        return moveaxis(concatenate([reshape(xs[0], (1, *xs.shape[1:])), rest], 0), 0, ax)

    def outer(self, A, B, /):
        """The function on every pair of an element of ``A`` and one of ``B``: shape A.shape + B.shape."""
        self._binary("outer")
        a, b = asarray(A), asarray(B)
        return self(reshape(a, (*a.shape, *([1] * b.ndim))), b)

    def at(self, a, indices, b=None, /, *, inplace=True):
        """``a`` with ``a[indices] = f(a[indices], b)`` applied once per index, repeated indices
        each in turn (numpy's unbuffered ufunc.at); ``inplace=False`` is required, as in jax."""
        if inplace:
            raise error(f"{self.__name__}.at: Tensors do not change in place; call it with inplace=False")
        if (b is None) != (self.nin == 1):
            raise error(f"{self.__name__}.at takes {'no' if self.nin == 1 else 'one'} value argument b")
        x = asarray(a)
        direct = self._direct["at"]
        if direct is not None:
            return direct(x, indices, b)
        pos = reshape(arange(int(np.prod(x.shape, dtype=np.int64)), dtype="int32"), tuple(x.shape))[indices]
        pos = reshape(pos, (-1,))
        flat = reshape(x, (-1,))
        if b is None:

            def step(acc, p):
                return acc.at[p].set(self(acc[p]).astype(acc.dtype)), None

            return reshape(scan(step, flat, pos)[0], tuple(x.shape))
        vals = reshape(broadcast_to(asarray(b), _indexed_shape(x, indices)), (-1,))

        def step2(acc, pv):
            p, v = pv
            return acc.at[p].set(self(acc[p], v).astype(acc.dtype)), None

        return reshape(scan(step2, flat, (pos, vals))[0], tuple(x.shape))

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """Reductions of the slices ``a[indices[i]:indices[i+1]]`` along ``axis`` (the last to
        the end); where ``indices[i] >= indices[i+1]`` the result is ``a[indices[i]]`` (numpy's rule)."""
        self._binary("reduceat")
        if out is not None:
            raise error(f"{self.__name__}.reduceat: out= is not taken")
        if axis is None or isinstance(axis, tuple | list):
            raise error(f"{self.__name__}.reduceat wants one integer axis, got {axis!r}")
        x = asarray(a)
        if x.ndim == 0:
            raise error(f"{self.__name__}.reduceat wants an array of 1 or more dims, got {x.type}")
        idx = asarray(indices)
        if idx.ndim != 1 or idx.dtype.kind not in "iu":
            raise error(f"{self.__name__}.reduceat wants 1-d integer indices, got {idx.type}")
        direct = self._direct["reduceat"]
        if direct is not None:
            return direct(x, idx, axis=axis, dtype=dtype)
        ax = normalize_axis(axis, x.ndim)
        dt = _dtype_of(dtype) or x.dtype
        xs = moveaxis(x, ax, 0).astype(dt)
        n = xs.shape[0]
        idx = idx.astype("int32")
        starts = idx
        ends = append(idx[1:], np.int32(n))
        acc = take(xs, starts, axis=0)
        lanes = (-1, *([1] * (xs.ndim - 1)))
        lo, hi = reshape(starts, lanes), reshape(ends, lanes)

        def step(j, acc):
            inside = (j > lo) & (j < hi)
            return where(inside, self(acc, xs[j]).astype(dt), acc)

        return moveaxis(fori_loop(0, n, step, acc), 0, ax)


def _dtype_of(dtype):
    return None if dtype is None else dtypes.dtype(dtype)


def _indexed_shape(x: Tensor, indices) -> tuple:
    """The shape of ``x[indices]``."""
    return tuple(zeros(tuple(x.shape), "int8")[indices].shape)


def frompyfunc(func, /, nin: int, nout: int, *, identity=None) -> ufunc:
    """A ufunc from ``func``, a Python function of ``nin`` scalars giving ``nout`` results
    (mapped over arrays with sg.numpy.vectorize), with numpy's ufunc methods."""
    return ufunc(func, nin, nout, identity=identity)


__all__ = ["frompyfunc", "ufunc"]


def _reduction(fn, takes_dtype: bool = True):
    def reduce(x, axis, dtype, keepdims):
        if takes_dtype:
            return fn(x, axis=axis, dtype=dtype, keepdims=keepdims)
        out = fn(x, axis=axis, keepdims=keepdims)
        return out if dtype is None else out.astype(dtype)

    return reduce


def _scatter(method: str):
    def at(x, indices, b):
        return getattr(x.at[indices], method)(b)

    return at


def numpy_ufuncs(snp) -> dict[str, ufunc]:
    """sg.numpy's functions that jax.numpy makes ufunc objects, as ufuncs over the same functions
    (identities as jax's; direct reduce, accumulate and at where sg.numpy has them)."""
    direct = {  # name: (identity, reduce, accumulate, at)
        "add": (0, _reduction(snp.sum), snp.cumsum, _scatter("add")),
        "multiply": (1, _reduction(snp.prod), snp.cumprod, _scatter("multiply")),
        "maximum": (None, _reduction(snp.max), snp.cummax, _scatter("max")),
        "minimum": (None, _reduction(snp.min), snp.cummin, _scatter("min")),
        "logical_and": (True, _reduction(snp.all, False), None, None),
        "logical_or": (False, _reduction(snp.any, False), None, None),
        "bitwise_and": (-1, None, None, None),
        "bitwise_or": (0, None, None, None),
        "bitwise_xor": (0, None, None, None),
        "logaddexp": (-np.inf, None, None, None),
        "logaddexp2": (-np.inf, None, None, None),
        "logical_xor": (False, None, None, None),
        "subtract": (None, None, None, None),
    }
    out = {
        name: ufunc(
            getattr(snp, name),
            2,
            1,
            name=name,
            identity=identity,
            call=getattr(snp, name),
            reduce=red,
            accumulate=acc,
            at=at,
        )  # fmt: skip
        for name, (identity, red, acc, at) in direct.items()
    }
    out["negative"] = ufunc(snp.negative, 1, 1, name="negative", call=snp.negative)
    return out
