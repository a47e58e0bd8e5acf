"""numpy's printing and file names on sg.numpy: array_repr, array_str, the print options, load,
save, savez, ndarray, ComplexWarning (ops layer).

Values live in a Session, not in the graph: these work on the numpy arrays a run returns (as
numpy's do), and on a graph Tensor they describe it (its name, type and where it was made), as
jax.numpy describes a traced value. The print options are numpy's own, so they shape how the
numpy results of ``sess.run`` print. ``load`` reads a file into numpy (a constant where the graph
uses it); ``save``/``savez`` write numpy values: a Tensor has no value to write and says to fetch
it with ``sess.run`` first.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor

ndarray = Tensor  # isinstance(x, snp.ndarray) holds for graph values, as jax.numpy's does for jax.Array
ComplexWarning = np.exceptions.ComplexWarning
printoptions, get_printoptions, set_printoptions = np.printoptions, np.get_printoptions, np.set_printoptions
load, save, savez = np.load, np.save, np.savez


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None) -> str:
    """numpy's array_repr of a value; for a graph Tensor, its description (it has no value yet)."""
    if isinstance(arr, Tensor):
        return repr(arr)
    return np.array_repr(np.asarray(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None) -> str:
    """numpy's array_str of a value; for a graph Tensor, its description (it has no value yet)."""
    if isinstance(a, Tensor):
        return repr(a)
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


__all__ = [
    "ComplexWarning", "array_repr", "array_str", "get_printoptions", "load", "ndarray", "printoptions", "save",
    "savez", "set_printoptions",
]  # fmt: skip
