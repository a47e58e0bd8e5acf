"""Reading a numpy index into one entry per operand dim (ops layer).

Both ``x[index]`` (indexing.py, a gather) and ``x.at[index]`` (index_update.py,
a scatter) start here, so the two agree on what an index means. An index is
read into one ``IndexEntry`` per operand dim (plus one per ``None``): a static
slice, a static int, or an integer array (numpy data, lists, integer Tensors; a
constant boolean mask becomes its ``np.nonzero`` arrays).

Out-of-bounds integers that are known when the graph is built raise like
numpy; Tensor indices only known at run time wrap when negative. Boolean
Tensor masks are refused: the result's shape would depend on data. A slice of
a symbolic dim has a dim expression for its size (``x[1:]`` of ``batch`` is
``batch - 1``, ``x[::2]`` is ``(batch + 1) // 2``); ints on a symbolic dim are
read with a gather.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ...graph import Tensor, dims, dtypes
from ...graph.dims import Dim, is_symbolic
from ..primitives import slicing as sl
from ..primitives.compare import convert
from ..primitives.constants import constant, dim_size
from ..primitives.shape import broadcast_in_dim
from .core import asarray, broadcast_shapes, error
from .ufuncs import add, less, where


@dataclass(frozen=True)
class IndexEntry:
    """What one index item does to one operand dim (``new`` takes none)."""

    kind: str  # "new", "slice", "int" or "array"
    start: int = 0  # slice: first element; int: the index
    step: int = 1
    count: Dim = 0  # slice: number of elements taken
    stop: Dim | None = None  # slice of a symbolic dim: where it stops (one past the last, in its direction)
    value: object = None  # array: an int numpy array or an integer Tensor (already wrapped)


# -- reading an index into entries ---------------------------------------------
def _bool_tensor_error(t: Tensor):
    return error(
        f"indexing with a boolean Tensor mask {t.type} is not supported: the result's shape would "
        "depend on the mask's values, known only at run time. Keep the shape and zero out the rest "
        "with snp.where(mask, x, 0) (or x * mask), or index with a constant numpy boolean mask"
    )


def classify_index(item):
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


def index_dtype(dt) -> dtypes.DType:
    """The integer dtype that holds every index of dtype ``dt`` (int64 where int32 might not)."""
    return dtypes.int64 if dt.bits == 64 or (dt.kind == "u" and dt.bits == 32) else dtypes.int32


def wrap_index(t: Tensor, x: Tensor, d: int) -> Tensor:
    """An integer Tensor index with negative values counted from the end of dim d."""
    signed = t.dtype.kind == "i"
    t = convert(t, index_dtype(t.dtype))
    if not signed:
        return t
    return where(less(t, 0), add(t, dim_size(x, d, t.dtype)), t)


def _out_of_bounds(i, d: int, n: int):
    return error(f"index {i} is out of bounds for axis {d} with size {n}")


def array_entry(x: Tensor, d: int, v) -> IndexEntry:
    """The entry of integer array ``v`` (numpy or Tensor) indexing dim d; constants are bounds-checked."""
    n = x.shape[d]
    if isinstance(v, Tensor):
        return IndexEntry("array", value=wrap_index(v, x, d))
    if is_symbolic(n):  # bounds unknown: negative constants wrap at run time
        return IndexEntry("array", value=wrap_index(constant(v), x, d) if (v < 0).any() else small_ints(v))
    bad = (v < -n) | (v >= n)
    if bad.any():
        raise _out_of_bounds(v[bad].flat[0], d, n)
    return IndexEntry("array", value=small_ints(np.where(v < 0, v + n, v)))


def small_ints(v: np.ndarray) -> np.ndarray:
    """``v`` as int32 where every value fits, else int64."""
    fits = v.size == 0 or (v.min() >= np.iinfo(np.int32).min and v.max() <= np.iinfo(np.int32).max)
    return v.astype(np.int32 if fits else np.int64)


def _int_entry(x: Tensor, d: int, i: int) -> IndexEntry:
    n = x.shape[d]
    if is_symbolic(n):  # a static slice cannot cut a symbolic dim: read it with a gather
        return array_entry(x, d, np.asarray(i))
    if not -n <= i < n:
        raise _out_of_bounds(i, d, n)
    return IndexEntry("int", start=i % n)


def _slice_entry(x: Tensor, d: int, s: slice) -> IndexEntry:
    n, step = x.shape[d], 1 if s.step is None else int(s.step)
    if step == 0:
        raise error("slice step cannot be zero")
    if not is_symbolic(n):
        start, stop, step = s.indices(n)
        return IndexEntry("slice", start=start, step=step, count=len(range(start, stop, step)))
    start, stop = _symbolic_bounds(n, s, step)
    return IndexEntry("slice", start=start, step=step, count=dims.range_length(start, stop, step), stop=stop)


def _symbolic_bounds(n: Dim, s: slice, step: int) -> tuple:
    """(first index, stop) of slice s on a symbolic dim of size n, as dims.

    Like JAX, bounds are taken to lie inside the dim (``x[2:5]`` on ``batch`` has 3
    elements): the dim is assumed large enough, and the slice checks it when the
    Session binds the symbols. Negative bounds count from the end (``n + i``).
    """

    def at(i):
        return i if i >= 0 else dims.add(n, i)

    if step > 0:
        return (0 if s.start is None else at(s.start)), (n if s.stop is None else at(s.stop))
    return (dims.sub(n, 1) if s.start is None else at(s.start)), (-1 if s.stop is None else at(s.stop))


def _spelled(s: slice) -> str:
    parts = ["" if v is None else str(v) for v in (s.start, s.stop, s.step)]
    return ":".join(parts if s.step is not None else parts[:2])


_ENTRY = {"int": _int_entry, "slice": _slice_entry, "array": array_entry}


def parse_index(x: Tensor, index) -> list[IndexEntry]:
    """One entry per operand dim, plus "new" entries for None, in index order."""
    items = [classify_index(it) for it in (index if isinstance(index, tuple) else (index,))]
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
            entries.append(IndexEntry("new"))
        elif kind == "mask":
            if tuple(x.shape[d : d + v.ndim]) != v.shape:
                raise error(f"boolean index of shape {v.shape} does not match dims {d}.. of {x.type}")
            entries += [array_entry(x, d + j, a) for j, a in enumerate(np.nonzero(v))]
            d += v.ndim
        else:
            entries.append(_ENTRY[kind](x, d, v))
            d += 1
    if any(e.kind == "array" for e in entries):  # numpy: next to arrays, ints are 0-d arrays too
        entries = [
            IndexEntry("array", value=np.asarray(e.start, np.int32)) if e.kind == "int" else e
            for e in entries
        ]
    return entries


# -- what reads (gather) and updates (scatter) share ----------------------------
def index_array_shape(entries) -> tuple:
    """The broadcast shape of the integer arrays of an index."""
    return broadcast_shapes(*(tuple(e.value.shape) for e in entries if e.kind == "array"))


def arrays_adjacent(entries) -> bool:
    """Whether the array entries sit next to each other (numpy then keeps their dims in place)."""
    pos = [i for i, e in enumerate(entries) if e.kind == "array"]
    return pos == list(range(pos[0], pos[-1] + 1))


def stack_indices(comps, batch) -> Tensor:
    """Index components (numpy arrays or Tensors broadcastable to ``batch``) stacked on a new last dim."""
    out_shape = tuple(batch) + (len(comps),)
    if all(isinstance(c, np.ndarray) for c in comps):
        return constant(small_ints(np.stack([np.broadcast_to(c, batch) for c in comps], axis=-1)))
    wide = any(
        (c.dtype if isinstance(c, Tensor) else dtypes.dtype(small_ints(c).dtype)).bits == 64 for c in comps
    )
    dt = dtypes.int64 if wide else dtypes.int32
    cols = []
    for c in comps:
        c = convert(c, dt) if isinstance(c, Tensor) else constant(c.astype(dt.np))
        lead = len(batch) - c.ndim
        cols.append(broadcast_in_dim(c, out_shape[:-1] + (1,), tuple(range(lead, len(batch)))))
    return sl.concatenate(cols, len(batch))
