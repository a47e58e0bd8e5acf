"""``x.at[index]`` functional updates: set, add, multiply, min, max, get (ops layer).

The index is read by index_spec.py, as for ``x[index]``; ``x.at[i].add(v)`` is
then one scatter with every operand dim described by the index vector.
Tensor indices only known at run time that fall out of bounds are dropped
(StableHLO's scatter), as in JAX.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dims, dtypes, register_overloads
from ..primitives import indexing as prim
from ..primitives import slicing as sl
from ..primitives.compare import convert
from ..primitives.constants import dim_value, iota
from ..primitives.shape import broadcast_in_dim, reshape, transpose
from .core import asarray, error
from .index_spec import IndexEntry, arrays_adjacent, index_array_shape, parse_index, stack_indices
from .indexing import getitem
from .ufuncs import add, maximum, minimum, multiply


# -- updating: x.at[index].set(values) -----------------------------------------
def _layout(entries) -> list:
    """numpy's dims of x[index], labelled: "new", an operand dim (int), or ("adv", j)."""
    has_arrays = any(e.kind == "array" for e in entries)
    adv = [("adv", j) for j in range(len(index_array_shape(entries)))] if has_arrays else []
    adjacent = not has_arrays or arrays_adjacent(entries)
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
    entries = parse_index(x, index)
    batch = index_array_shape(entries) if any(e.kind == "array" for e in entries) else ()
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
        x, stack_indices(comps, scatter_batch), transpose(u, order),
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


def _component(d: int, e: IndexEntry, strided) -> np.ndarray | Tensor:
    """Dim d's column of the scatter indices, shaped to broadcast against (array dims..., strided...)."""
    trail = (1,) * len(strided)
    if e.kind == "array":
        v = e.value
        return v.reshape(v.shape + trail) if isinstance(v, np.ndarray) else reshape(v, tuple(v.shape) + trail)
    if d in strided:
        j = strided.index(d)
        column = (-1,) if isinstance(e.count, int) else (e.count,)
        column += (1,) * (len(strided) - 1 - j)
        if isinstance(e.count, int) and isinstance(e.start, int):
            return (np.arange(e.count, dtype=np.int64) * e.step + e.start).reshape(column)
        start = e.start if isinstance(e.start, int) else dim_value(e.start)
        steps = add(multiply(iota(dtypes.int32, (e.count,)), e.step), start)
        return reshape(steps, column)
    if e.kind == "slice" and e.step < 0 and e.count != 0:  # the window's lowest element
        return _index(dims.add(e.start, dims.mul(dims.sub(e.count, 1), e.step)))
    return _index(e.start)


def _index(d) -> np.ndarray | Tensor:
    """A static index as numpy data, a symbolic one (``batch - 3``) as a dim_value scalar."""
    return np.asarray(d) if isinstance(d, int) else dim_value(d, dtypes.int32)


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


__all__: list[str] = []

register_overloads({"at": lambda x: _IndexUpdateHelper(x)})
