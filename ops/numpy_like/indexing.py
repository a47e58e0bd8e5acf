"""numpy indexing for Tensors: ``x[...]``, ``x.at[...]`` updates, take, take_along_axis (ops layer).

An index is first read into one entry per operand dim (plus the ``None``s):
a static slice, a static int, or an integer array (numpy data, lists, integer
Tensors; a constant boolean mask becomes its ``np.nonzero`` arrays). Basic
indexing costs a rev, a slice and a reshape; integer arrays add one gather
whose result dims follow numpy's rule (the broadcast index dims replace the
indexed dims where those are adjacent, else they go first). ``x.at[i].add(v)``
is one scatter with every operand dim described by the index vector.

Out-of-bounds integers that are known when the graph is built raise like
numpy; Tensor indices only known at run time wrap when negative, are clamped
by reads (StableHLO's gather) and dropped by updates (StableHLO's scatter),
as in JAX. Boolean Tensor masks are refused: the result's shape would depend
on data. Slices of a symbolic dim must take it whole (``:`` or ``::-1``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ...graph import Tensor, dtypes, register_overloads
from ...graph.dims import Dim, is_symbolic
from .. import indexing as prim
from .. import slicing as sl
from ..compare import convert
from ..constants import constant, dim_size
from ..shape import broadcast_in_dim, reshape, transpose
from .core import asarray, broadcast_shapes, broadcast_to, error, normalize_axis
from .ufuncs import add, greater_equal, less, logical_and, maximum, minimum, multiply, remainder, where


@dataclass(frozen=True)
class _Entry:
    """What one index item does to one operand dim (``new`` takes none)."""

    kind: str  # "new", "slice", "int" or "array"
    start: int = 0  # slice: first element; int: the index
    step: int = 1
    count: Dim = 0  # slice: number of elements taken
    value: object = None  # array: an int numpy array or an integer Tensor (already wrapped)


# -- reading an index ----------------------------------------------------------
def _bool_tensor_error(t: Tensor):
    return error(
        f"indexing with a boolean Tensor mask {t.type} is not supported: the result's shape would "
        "depend on the mask's values, known only at run time. Keep the shape and zero out the rest "
        "with snp.where(mask, x, 0) (or x * mask), or index with a constant numpy boolean mask"
    )


def _classify(item):
    """(kind, value) for one item of an index tuple."""
    if item is None:
        return "new", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, bool | np.bool_):
        raise error(f"a bool as an index ({item!r}) is not supported; use None (np.newaxis) to add a dim")
    if isinstance(item, numbers.Integral):
        return "int", int(item)
    if isinstance(item, slice):
        for v in (item.start, item.stop, item.step):
            if v is not None and not isinstance(v, numbers.Integral):
                raise error(
                    f"slice bounds must be static ints, got {item}; for a window at a run-time start "
                    "use dynamic_slice, or index with an integer Tensor"
                )
        return "slice", item
    if isinstance(item, list | tuple) and any(isinstance(v, Tensor) for v in _leaves(item)):
        item = asarray(item)
    if isinstance(item, Tensor):
        if item.dtype is dtypes.bool_:
            raise _bool_tensor_error(item)
        if not item.dtype.is_integer:
            raise error(f"an index Tensor must have an integer dtype, got {item.type}")
        return "array", item
    arr = np.asarray(item)
    if arr.dtype == np.bool_ and arr.ndim > 0:
        return "mask", arr
    if arr.size == 0 and arr.dtype.kind in "fb":
        arr = arr.astype(np.int32)
    if arr.dtype.kind in "iu" and arr.ndim == 0:
        return "int", int(arr)  # numpy reads a 0-d integer array as an int
    if arr.dtype.kind not in "iu":
        raise error(
            f"an index must be an int, slice, None, Ellipsis, integer array or Tensor, or a numpy "
            f"boolean mask; got {item!r}"
        )
    return "array", arr


def _leaves(seq):
    for v in seq:
        yield from (_leaves(v) if isinstance(v, list | tuple) else (v,))


def _index_dtype(dt) -> dtypes.DType:
    return dtypes.int64 if dt.bits == 64 or (dt.kind == "u" and dt.bits == 32) else dtypes.int32


def _wrap(t: Tensor, x: Tensor, d: int) -> Tensor:
    """An integer Tensor index with negative values counted from the end of dim d."""
    signed = t.dtype.kind == "i"
    t = convert(t, _index_dtype(t.dtype))
    if not signed:
        return t
    return where(less(t, 0), add(t, dim_size(x, d, t.dtype)), t)


def _out_of_bounds(i, d: int, n: int):
    return error(f"index {i} is out of bounds for axis {d} with size {n}")


def _array_entry(x: Tensor, d: int, v) -> _Entry:
    n = x.shape[d]
    if isinstance(v, Tensor):
        return _Entry("array", value=_wrap(v, x, d))
    if is_symbolic(n):  # bounds unknown: negative constants wrap at run time
        return _Entry("array", value=_wrap(constant(v), x, d) if (v < 0).any() else _small_ints(v))
    bad = (v < -n) | (v >= n)
    if bad.any():
        raise _out_of_bounds(v[bad].flat[0], d, n)
    return _Entry("array", value=_small_ints(np.where(v < 0, v + n, v)))


def _small_ints(v: np.ndarray) -> np.ndarray:
    fits = v.size == 0 or (v.min() >= np.iinfo(np.int32).min and v.max() <= np.iinfo(np.int32).max)
    return v.astype(np.int32 if fits else np.int64)


def _int_entry(x: Tensor, d: int, i: int) -> _Entry:
    n = x.shape[d]
    if is_symbolic(n):  # a static slice cannot cut a symbolic dim: read it with a gather
        return _array_entry(x, d, np.asarray(i))
    if not -n <= i < n:
        raise _out_of_bounds(i, d, n)
    return _Entry("int", start=i % n)


def _slice_entry(x: Tensor, d: int, s: slice) -> _Entry:
    n, step = x.shape[d], 1 if s.step is None else int(s.step)
    if step == 0:
        raise error("slice step cannot be zero")
    if not is_symbolic(n):
        start, stop, step = s.indices(n)
        return _Entry("slice", start=start, step=step, count=len(range(start, stop, step)))
    whole = (None, 0) if step == 1 else (None, -1)
    if step not in (1, -1) or s.start not in whole or s.stop is not None:
        raise error(
            f"cannot slice symbolic dim {d} ({n}) of {x.type} with {_spelled(s)}: its "
            "size is unknown until run time, so only ':' and '::-1' are allowed there"
        )
    return _Entry("slice", start=0, step=step, count=n)


def _spelled(s: slice) -> str:
    parts = ["" if v is None else str(v) for v in (s.start, s.stop, s.step)]
    return ":".join(parts if s.step is not None else parts[:2])


_ENTRY = {"int": _int_entry, "slice": _slice_entry, "array": _array_entry}


def _parse(x: Tensor, index) -> list[_Entry]:
    """One entry per operand dim, plus "new" entries for None, in index order."""
    items = [_classify(it) for it in (index if isinstance(index, tuple) else (index,))]
    if sum(k == "ellipsis" for k, _ in items) > 1:
        raise error("an index can only have a single ellipsis ('...')")
    used = sum(v.ndim if k == "mask" else 1 for k, v in items if k not in ("new", "ellipsis"))
    if used > x.ndim:
        raise error(f"too many indices for {x.type}: it has {x.ndim} dims but {used} were indexed")
    fill = [("slice", slice(None))] * (x.ndim - used)
    at = next((i for i, (k, _) in enumerate(items) if k == "ellipsis"), len(items))
    items = items[:at] + fill + items[at + 1 :]
    entries, d = [], 0
    for kind, v in items:
        if kind == "new":
            entries.append(_Entry("new"))
        elif kind == "mask":
            if tuple(x.shape[d : d + v.ndim]) != v.shape:
                raise error(f"boolean index of shape {v.shape} does not match dims {d}.. of {x.type}")
            entries += [_array_entry(x, d + j, a) for j, a in enumerate(np.nonzero(v))]
            d += v.ndim
        else:
            entries.append(_ENTRY[kind](x, d, v))
            d += 1
    if any(e.kind == "array" for e in entries):  # numpy: next to arrays, ints are 0-d arrays too
        entries = [
            _Entry("array", value=np.asarray(e.start, np.int32)) if e.kind == "int" else e for e in entries
        ]
    return entries


def _array_shape(entries) -> tuple:
    """The broadcast shape of the integer arrays of an index."""
    return broadcast_shapes(*(tuple(e.value.shape) for e in entries if e.kind == "array"))


def _adjacent(entries) -> bool:
    pos = [i for i, e in enumerate(entries) if e.kind == "array"]
    return pos == list(range(pos[0], pos[-1] + 1))


# -- reading: x[index] ---------------------------------------------------------
def getitem(x, index):
    """``x[index]`` with numpy's rules (basic and advanced indexing); see the module docstring."""
    x = asarray(x)
    entries = _parse(x, index)
    if any(e.kind == "new" for e in entries):
        x = reshape(x, _with_new_dims(x.shape, entries))
        entries = [_Entry("slice", count=1) if e.kind == "new" else e for e in entries]
    x, entries = _basic(x, entries)
    return _gather_arrays(x, entries) if any(e.kind == "array" for e in entries) else x


def _with_new_dims(shape, entries) -> tuple:
    dims = iter(shape)
    return tuple(1 if e.kind == "new" else next(dims) for e in entries)


def _window(e: _Entry, n: Dim):
    """(start, limit, stride) of the static slice that takes entry e (after rev for step < 0)."""
    if e.kind == "int":
        return e.start, e.start + 1, 1
    if e.kind == "array" or is_symbolic(n):
        return 0, n, 1
    if e.count == 0:
        return 0, 0, 1
    start, step = (e.start, e.step) if e.step > 0 else (n - 1 - e.start, -e.step)
    return start, start + (e.count - 1) * step + 1, step


def _basic(x: Tensor, entries):
    """Apply the slices and ints with rev/slice/reshape; keeps the array entries for a gather."""
    x = sl.rev(x, [d for d, e in enumerate(entries) if e.kind == "slice" and e.step < 0])
    windows = [_window(e, n) for e, n in zip(entries, x.shape)]
    if any(w != (0, n, 1) for w, n in zip(windows, x.shape)):
        x = sl.slice(x, *zip(*windows))
    kept = [(e, n) for e, n in zip(entries, x.shape) if e.kind != "int"]
    if len(kept) < x.ndim:
        x = reshape(x, tuple(n for _, n in kept))
    return x, [_Entry("slice", count=n) if e.kind == "slice" else e for e, n in kept]


def _stack(comps, batch) -> Tensor:
    """Index components (numpy arrays or Tensors broadcastable to ``batch``) stacked on a new last dim."""
    out_shape = tuple(batch) + (len(comps),)
    if all(isinstance(c, np.ndarray) for c in comps):
        return constant(_small_ints(np.stack([np.broadcast_to(c, batch) for c in comps], axis=-1)))
    wide = any(
        (c.dtype if isinstance(c, Tensor) else dtypes.dtype(_small_ints(c).dtype)).bits == 64 for c in comps
    )
    dt = dtypes.int64 if wide else dtypes.int32
    cols = []
    for c in comps:
        c = convert(c, dt) if isinstance(c, Tensor) else constant(c.astype(dt.np))
        lead = len(batch) - c.ndim
        cols.append(broadcast_in_dim(c, out_shape[:-1] + (1,), tuple(range(lead, len(batch)))))
    return sl.concatenate(cols, len(batch))


def _gather_arrays(x: Tensor, entries) -> Tensor:
    """x indexed by the array entries (one entry per dim; the others take their dim whole)."""
    adv = [d for d, e in enumerate(entries) if e.kind == "array"]
    batch = _array_shape(entries)
    rest = [d for d in range(x.ndim) if d not in adv]
    first = adv[0] if _adjacent(entries) else 0
    offset_dims = [j + (len(batch) if d > first or not _adjacent(entries) else 0) for j, d in enumerate(rest)]
    return prim.gather(
        x, _stack([entries[d].value for d in adv], batch),
        offset_dims=offset_dims, collapsed_slice_dims=adv, start_index_map=adv,
        index_vector_dim=len(batch), slice_sizes=[1 if d in adv else n for d, n in enumerate(x.shape)],
    )  # fmt: skip


# -- updating: x.at[index].set(values) -----------------------------------------
def _layout(entries) -> list:
    """numpy's dims of x[index], labelled: "new", an operand dim (int), or ("adv", j)."""
    has_arrays = any(e.kind == "array" for e in entries)
    adv = [("adv", j) for j in range(len(_array_shape(entries)))] if has_arrays else []
    adjacent = not has_arrays or _adjacent(entries)
    out, d, placed = [], 0, False
    for e in entries:
        if e.kind == "new":
            out.append("new")
            continue
        if e.kind == "slice":
            out.append(d)
        elif e.kind == "array" and adjacent and not placed:
            out, placed = out + adv, True
        d += 1
    return out if adjacent else adv + out


_SCALAR_COMBINE = {"set": lambda old, new: new, "add": add, "mul": multiply, "min": minimum, "max": maximum}


def _update(x, index, values, kind: str) -> Tensor:
    """x with ``x[index]`` combined with ``values`` (broadcast to its shape) by one scatter."""
    x = asarray(x)
    entries = _parse(x, index)
    batch = _array_shape(entries) if any(e.kind == "array" for e in entries) else ()
    dims = [e for e in entries if e.kind != "new"]
    labels = [lab for lab in _layout(entries) if lab != "new"]
    shape = [batch[lab[1]] if isinstance(lab, tuple) else dims[lab].count for lab in labels]
    u = _broadcast_values(asarray(values, x.dtype), entries, shape)
    if x.ndim == 0:
        return convert(_SCALAR_COMBINE[kind](x, u), x.dtype)
    windows = [d for d, e in enumerate(dims) if e.kind == "slice" and (abs(e.step) == 1 or e.count in (0, 1))]
    strided = [d for d, e in enumerate(dims) if e.kind == "slice" and d not in windows]
    scatter_batch = tuple(batch) + tuple(dims[d].count for d in strided)
    comps = [_component(d, e, strided) for d, e in enumerate(dims)]
    where_is = {lab: p for p, lab in enumerate(labels)}
    u = sl.rev(u, [where_is[d] for d in windows if dims[d].step < 0 and dims[d].count not in (0, 1)])
    order = [where_is[("adv", j)] for j in range(len(batch))] + [where_is[d] for d in strided + windows]
    return prim.scatter(
        x, _stack(comps, scatter_batch), transpose(u, order),
        update_window_dims=range(len(scatter_batch), len(scatter_batch) + len(windows)),
        inserted_window_dims=[d for d in range(x.ndim) if d not in windows],
        scattered_dims_to_operand_dims=range(x.ndim), index_vector_dim=len(scatter_batch),
        unique_indices=all(e.kind != "array" for e in dims), kind=kind,
    )  # fmt: skip


def _broadcast_values(u: Tensor, entries, shape) -> Tensor:
    """Updates broadcast to the shape of x[index], without the size-1 dims of None entries."""
    full = iter(shape)
    with_new = [1 if lab == "new" else next(full) for lab in _layout(entries)]
    fits = u.ndim <= len(with_new) and all(a in (1, b) for a, b in zip(reversed(u.shape), reversed(with_new)))
    if not fits:
        raise error(f"cannot broadcast updates {u.type} to the indexed shape {tuple(with_new)}")
    lead = len(with_new) - u.ndim
    u = broadcast_in_dim(u, tuple(with_new), tuple(range(lead, len(with_new))))
    return reshape(u, tuple(shape))


def _component(d: int, e: _Entry, strided) -> np.ndarray | Tensor:
    """Dim d's column of the scatter indices, shaped to broadcast against (array dims..., strided...)."""
    trail = (1,) * len(strided)
    if e.kind == "array":
        v = e.value
        return v.reshape(v.shape + trail) if isinstance(v, np.ndarray) else reshape(v, tuple(v.shape) + trail)
    if d in strided:
        j = strided.index(d)
        steps = np.arange(e.count, dtype=np.int64) * e.step + e.start
        return steps.reshape((-1,) + (1,) * (len(strided) - 1 - j))
    if e.kind == "slice" and e.step < 0 and not is_symbolic(e.count) and e.count:
        return np.asarray(e.start + (e.count - 1) * e.step)  # the window's lowest element
    return np.asarray(e.start)


class _IndexUpdateRef:
    """``x.at[index]``: functional updates of that part of x; each returns a new Tensor, as in JAX.

    ``values`` broadcast to the shape of ``x[index]``; with repeated indices ``add``,
    ``multiply``, ``min`` and ``max`` combine every update (like ``np.add.at``) and ``set``
    keeps one of them. Run-time indices out of bounds are dropped (negative ones wrap first).
    """

    __slots__ = ("x", "index")

    def __init__(self, x, index):
        self.x, self.index = x, index

    def get(self) -> Tensor:
        """``x[index]``."""
        return getitem(self.x, self.index)

    def set(self, values) -> Tensor:
        """x with ``x[index] = values``."""
        return _update(self.x, self.index, values, "set")

    def add(self, values) -> Tensor:
        """x with ``values`` added at ``index`` (repeats accumulate, like ``np.add.at``)."""
        return _update(self.x, self.index, values, "add")

    def multiply(self, values) -> Tensor:
        """x with ``x[index]`` multiplied by ``values`` (repeats accumulate)."""
        return _update(self.x, self.index, values, "mul")

    mul = multiply

    def min(self, values) -> Tensor:
        """x with ``x[index] = minimum(x[index], values)``."""
        return _update(self.x, self.index, values, "min")

    def max(self, values) -> Tensor:
        """x with ``x[index] = maximum(x[index], values)``."""
        return _update(self.x, self.index, values, "max")


class _IndexUpdateHelper:
    """``x.at``: index it (``x.at[i]``) to get the update methods."""

    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x

    def __getitem__(self, index) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.x, index)


# -- take, take_along_axis -----------------------------------------------------
_MODES = (None, "raise", "clip", "wrap", "fill")


def _fill_value(dt: dtypes.DType, fill_value):
    if fill_value is not None:
        return fill_value
    if dt.is_inexact:
        return np.nan
    if dt.kind == "b":
        return True
    return np.iinfo(dt.np).min if dt.kind == "i" else np.iinfo(dt.np).max


def _take_index(a: Tensor, axis: int, indices, mode):
    """(index array, validity mask or None) for reading ``a`` along ``axis`` with ``mode``."""
    if mode not in _MODES:
        raise error(f"mode must be one of {_MODES}, got {mode!r}")
    kind, v = _classify(indices)
    if kind == "int":
        kind, v = "array", np.asarray(v)
    if kind != "array":
        raise error(f"indices must be an integer array or Tensor, got {indices!r}")
    n = a.shape[axis]
    if isinstance(v, np.ndarray) and not is_symbolic(n):
        if mode in (None, "raise"):
            return _array_entry(a, axis, v).value, None
        if mode == "fill":
            valid = (v >= -n) & (v < n)
            return _small_ints(np.where(v < 0, v + n, v) * valid), None if valid.all() else constant(valid)
        return _small_ints(np.clip(v, 0, n - 1) if mode == "clip" else np.mod(v, max(n, 1))), None
    if mode == "raise":
        raise error("mode='raise' cannot check indices known only at run time; use 'fill', 'clip' or 'wrap'")
    t = convert(asarray(v), _index_dtype(v.dtype if isinstance(v, Tensor) else dtypes.dtype(v.dtype)))
    size = dim_size(a, axis, t.dtype)
    if mode == "clip":
        return maximum(minimum(t, add(size, -1)), 0), None
    if mode == "wrap":
        return remainder(t, size), None
    t = _wrap(t, a, axis)
    return t, logical_and(greater_equal(t, 0), less(t, size))


def take(a, indices, axis=None, mode=None, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` when None).

    The result has shape ``a.shape[:axis] + indices.shape + a.shape[axis + 1:]``. Negative
    indices count from the end. ``mode``: None checks constant indices like numpy's "raise"
    and treats run-time ones as "fill" (out-of-bounds reads give ``fill_value``: NaN for
    floats, the most negative int, the largest unsigned, True), as JAX does; "clip" and "wrap"
    as numpy. Built from one gather.
    """
    a = asarray(a)
    if axis is None:
        a, axis = reshape(a, (a.size,)), 0
    axis = normalize_axis(int(axis), a.ndim)
    idx, valid = _take_index(a, axis, indices, mode)
    entries = [_Entry("slice", count=n) for n in a.shape]
    entries[axis] = _Entry("array", value=idx)
    out = _gather_arrays(a, entries)
    if valid is None:
        return out
    rest = a.ndim - axis - 1
    valid = reshape(valid, (1,) * axis + tuple(valid.shape) + (1,) * rest)
    return where(valid, out, asarray(_fill_value(a.dtype, fill_value), a.dtype))


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    """``arr`` read at ``indices`` along ``axis``, pairing every other dim (numpy's
    take_along_axis: ``indices`` has arr's rank and broadcasts with it outside ``axis``).

    ``mode`` and ``fill_value`` as in ``take``. One gather with batching dims.
    """
    a = asarray(arr)
    if axis is None:
        a, axis = reshape(a, (a.size,)), 0
    axis = normalize_axis(int(axis), a.ndim)
    ind_shape = tuple(np.shape(indices)) if not isinstance(indices, Tensor) else tuple(indices.shape)
    if len(ind_shape) != a.ndim:
        raise error(f"take_along_axis wants indices of rank {a.ndim} like {a.type}, got shape {ind_shape}")
    outer = broadcast_shapes(_drop(a.shape, axis), _drop(ind_shape, axis))
    a = broadcast_to(a, outer[:axis] + (a.shape[axis],) + outer[axis:])
    idx, valid = _take_index(a, axis, indices, mode)
    target = outer[:axis] + (ind_shape[axis],) + outer[axis:]
    idx = broadcast_to(asarray(idx), target)
    others = [d for d in range(a.ndim) if d != axis]
    out = prim.gather(
        a, idx, offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=others, start_indices_batching_dims=others, index_vector_dim=a.ndim,
        slice_sizes=(1,) * a.ndim,
    )  # fmt: skip
    if valid is None:
        return out
    return where(valid, out, asarray(_fill_value(a.dtype, fill_value), a.dtype))


def _drop(shape, axis: int) -> tuple:
    return tuple(shape[:axis]) + tuple(shape[axis + 1 :])


__all__ = ["take", "take_along_axis"]

register_overloads({"getitem": getitem, "at": lambda x: _IndexUpdateHelper(x)})
