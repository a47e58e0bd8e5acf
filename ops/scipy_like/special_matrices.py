"""scipy.linalg's special matrices on sg.scipy.linalg: toeplitz, circulant, hankel, companion,
leslie, fiedler, fiedler_companion, convolution_matrix, hilbert, invhilbert, pascal, invpascal,
helmert, hadamard, dft (ops layer).

Matrices made of an input array's entries (toeplitz, circulant, hankel, fiedler, the companions,
leslie, convolution_matrix) are gathers from it with index tables fixed at build time, so they
take Tensors with leading batch dims (as jax's do), differentiate and vectorize. Matrices of a
size alone (hilbert, pascal, helmert, hadamard, dft and the inverses) are constants computed
exactly on the host: integer ones in integer arithmetic (scipy's values; jax's float32 invpascal
is off in the last digits), in jax's dtypes (float32, int32 for hadamard, complex64 for dft) unless
a ``dtype`` is given.
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import Tensor, dtypes, library
from ..numpy_like.core import asarray, broadcast_to, error
from ..numpy_like.creation import zeros
from ..numpy_like.indexing import take
from ..numpy_like.manipulation import concatenate, flip
from ..numpy_like.math_ufuncs import conjugate
from ..numpy_like.ufuncs import absolute


def _vector(a, who: str, at_least: int = 1) -> Tensor:
    x = asarray(a)
    if x.ndim < 1 or not isinstance(x.shape[-1], int) or x.shape[-1] < at_least:
        raise error(
            f"sg.scipy.linalg.{who} wants an array of {at_least} or more entries along its last dim, got {x.type}"
        )
    return x


def _gather(values: Tensor, index: np.ndarray) -> Tensor:
    """values[..., index] for a fixed 2-d index table (leading batch dims kept)."""
    return take(values, asarray(index.astype(np.int32)), axis=-1)


def _size(n, who: str) -> int:
    if not isinstance(n, int | np.integer) or n < 0:
        raise error(f"sg.scipy.linalg.{who} wants a size n >= 0, got {n!r}")
    return int(n)


# -- matrices of an array's entries -----------------------------------------------
@library()
def toeplitz(c, r=None) -> Tensor:
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (default: conj(c)); r[0] is
    ignored, the diagonal is c[0]."""
    c = _vector(c, "toeplitz")
    r = conjugate(c) if r is None else _vector(r, "toeplitz")
    m, n = c.shape[-1], r.shape[-1]
    values = concatenate([flip(r[..., 1:], -1), c], axis=-1)  # r[n-1] ... r[1], c[0] ... c[m-1]
    i, j = np.indices((m, n))
    return _gather(values, i - j + n - 1)


@library()
def circulant(c) -> Tensor:
    """The circulant matrix with first column ``c``: C[i, j] = c[(i - j) mod n]."""
    c = _vector(c, "circulant")
    n = c.shape[-1]
    i, j = np.indices((n, n))
    return _gather(c, (i - j) % n)


@library()
def hankel(c, r=None) -> Tensor:
    """The Hankel matrix with first column ``c`` and last row ``r`` (default zeros); r[0] is ignored,
    H[i, j] = c[i + j] while that exists, else r[i + j - m + 1]."""
    c = _vector(c, "hankel")
    r = zeros(c.shape, c.dtype) if r is None else _vector(r, "hankel")
    m, n = c.shape[-1], r.shape[-1]
    values = concatenate([c, r[..., 1:]], axis=-1)
    i, j = np.indices((m, n))
    return _gather(values, i + j)


def _with_zero(a: Tensor, *more) -> Tensor:
    """a's entries followed by a 0 (and the numbers ``more``) along the last dim, for index tables
    that point at 'zero' with index len(a) (and at the others after it); batch dims kept."""
    tail = asarray(np.asarray((0, *more), a.dtype.np))
    return concatenate([a, broadcast_to(tail, tuple(a.shape[:-1]) + (1 + len(more),))], axis=-1)


@library()
def companion(a) -> Tensor:
    """The companion matrix of the polynomial with coefficients ``a`` (highest first, a[0] != 0):
    first row -a[1:] / a[0], ones below the diagonal; shape (n-1, n-1)."""
    a = _vector(a, "companion", 2)
    n = a.shape[-1] - 1
    first = -a[..., 1:] / a[..., :1]
    values = _with_zero(first, 1)
    index = np.full((n, n), n)  # the zero
    index[0] = np.arange(n)
    index[np.arange(1, n), np.arange(n - 1)] = n + 1  # the one
    return _gather(values, index)


@library()
def leslie(f, s) -> Tensor:
    """The Leslie matrix: fecundities ``f`` (n) on the first row, survivals ``s`` (n-1) below the
    diagonal."""
    f, s = _vector(f, "leslie", 2), _vector(s, "leslie")
    n = f.shape[-1]
    if s.shape[-1] != n - 1:
        raise error(f"sg.scipy.linalg.leslie wants len(s) == len(f) - 1, got {f.type} and {s.type}")
    values = _with_zero(concatenate([f, s.astype(f.dtype) if s.dtype is not f.dtype else s], axis=-1))
    index = np.full((n, n), 2 * n - 1)
    index[0] = np.arange(n)
    index[np.arange(1, n), np.arange(n - 1)] = n + np.arange(n - 1)
    return _gather(values, index)


@library()
def fiedler(a) -> Tensor:
    """The symmetric Fiedler matrix F[i, j] = |a[i] - a[j]|."""
    a = _vector(a, "fiedler", 0)
    return absolute(a[..., :, None] - a[..., None, :])


@library()
def fiedler_companion(a) -> Tensor:
    """Fiedler's five-diagonal companion matrix of the polynomial ``a`` (highest coefficient
    first): the eigenvalues of companion(a) in scipy's layout of -c1 ... -cn (c = a[1:] / a[0])."""
    a = _vector(a, "fiedler_companion", 2)
    n = a.shape[-1] - 1
    values = _with_zero(-(a[..., 1:] / a[..., :1]), 1)
    zero, one = n, n + 1
    index = np.full((n, n), zero)

    def put(row: int, col: int, entry: int) -> None:
        if row < n and col < n:
            index[row, col] = entry

    for row in range(0, n, 2):  # even rows: -c_{row+1}, -c_{row+2} and a one, moving right by two
        put(row, max(row - 1, 0), row)
        put(row, row + 1, row + 1)
        put(row, row + 2, one)
    for row in range(1, n, 2):  # odd rows: one one, under the pair of the row above
        put(row, 0 if row == 1 else row - 2, one)
    return _gather(values, index)


@library()
def convolution_matrix(a, n: int, mode: str = "full") -> Tensor:
    """The matrix A with A @ v == numpy.convolve(a, v, mode) for every v of length ``n``."""
    a = _vector(a, "convolution_matrix")
    n = _size(n, "convolution_matrix")
    m = a.shape[-1]
    rows = {"full": m + n - 1, "same": max(m, n), "valid": max(m, n) - min(m, n) + 1}.get(mode)
    if rows is None:
        raise error(
            f"sg.scipy.linalg.convolution_matrix: mode must be 'full', 'same' or 'valid', got {mode!r}"
        )
    if n == 0:
        raise error("sg.scipy.linalg.convolution_matrix wants n >= 1")
    first = {"full": 0, "same": (m + n - 1 - rows) // 2, "valid": min(m, n) - 1}[mode]
    i, j = np.indices((rows, n))
    k = i + first - j
    return _gather(_with_zero(a), np.where((k >= 0) & (k < m), k, m))


# -- matrices of a size --------------------------------------------------------------
def _constant(values: np.ndarray, dtype, default) -> Tensor:
    return asarray(values.astype(dtypes.dtype(dtype if dtype is not None else default).np))


def hilbert(n: int, *, dtype=None) -> Tensor:
    """The Hilbert matrix H[i, j] = 1 / (i + j + 1) (float32 unless ``dtype``)."""
    i, j = np.indices((_size(n, "hilbert"),) * 2)
    return _constant(1.0 / (i + j + 1), dtype, dtypes.float32)


def invhilbert(n: int, *, dtype=None) -> Tensor:
    """The exact inverse of hilbert(n), from its closed form in Python's integers (rounded once)."""
    n = _size(n, "invhilbert")
    out = np.empty((n, n), object)
    for i in range(n):
        for j in range(n):
            s = i + j + 1
            out[i, j] = ((-1) ** (i + j) * s * math.comb(n + i, n - j - 1) * math.comb(n + j, n - i - 1)
                         * math.comb(s - 1, i) ** 2)  # fmt: skip
    return _constant(out.astype(np.float64), dtype, dtypes.float32)


def _pascal_lower(n: int) -> np.ndarray:
    return np.array([[math.comb(i, j) for j in range(n)] for i in range(n)], dtype=object).reshape(n, n)


def _pascal_kind(kind, who: str) -> str:
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise error(f"sg.scipy.linalg.{who}: kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    return kind


def pascal(n: int, kind: str | None = None, *, dtype=None) -> Tensor:
    """Pascal's matrix of binomial coefficients: symmetric (default), lower or upper triangular."""
    n, kind = _size(n, "pascal"), _pascal_kind(kind, "pascal")
    low = _pascal_lower(n)
    values = {"lower": low, "upper": low.T, "symmetric": low.dot(low.T) if n else low}[kind]
    return _constant(values.astype(np.float64), dtype, dtypes.float32)


def invpascal(n: int, kind: str | None = None, *, dtype=None) -> Tensor:
    """The exact inverse of pascal(n, kind), computed in integers."""
    n, kind = _size(n, "invpascal"), _pascal_kind(kind, "invpascal")
    signs = np.array([[(-1) ** (i + j) for j in range(n)] for i in range(n)], dtype=object).reshape(n, n)
    low_inv = _pascal_lower(n) * signs
    values = {"lower": low_inv, "upper": low_inv.T, "symmetric": low_inv.T.dot(low_inv) if n else low_inv}[
        kind
    ]
    return _constant(values.astype(np.float64), dtype, dtypes.float32)


def helmert(n: int, full: bool = False, *, dtype=None) -> Tensor:
    """The Helmert matrix: orthonormal rows, the first (dropped unless ``full``) all 1/sqrt(n)."""
    n = _size(n, "helmert")
    if n < 1:
        raise error(f"sg.scipy.linalg.helmert wants n >= 1, got {n}")
    h = np.tril(np.ones((n, n)), -1) - np.diag(np.arange(n))
    d = np.arange(n) * np.arange(1, n + 1)
    h[0] = 1
    d[0] = n
    out = h / np.sqrt(d)[:, None]
    return _constant(out if full else out[1:], dtype, dtypes.float32)


def hadamard(n: int, dtype=int) -> Tensor:
    """Sylvester's Hadamard matrix of order ``n`` (a power of 2) of +-1 entries."""
    n = _size(n, "hadamard")
    if n < 1 or n & (n - 1):
        raise error(f"sg.scipy.linalg.hadamard wants n a power of 2, got {n}")
    h = np.ones((1, 1), np.int64)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return _constant(h, dtypes.int32 if dtype is int else dtype, dtypes.int32)


def dft(n: int, scale: str | None = None, *, dtype=None) -> Tensor:
    """The discrete Fourier transform matrix exp(-2 pi i jk / n), scaled by 1 (None), 1/sqrt(n)
    ("sqrtn") or 1/n ("n"); complex64 unless ``dtype``."""
    n = _size(n, "dft")
    if scale not in (None, "sqrtn", "n"):
        raise error(f"sg.scipy.linalg.dft: scale must be None, 'sqrtn' or 'n', got {scale!r}")
    jk = np.outer(np.arange(n), np.arange(n)) % max(n, 1)  # reduced first: exact angles
    m = np.exp(-2j * np.pi * jk / max(n, 1))
    m = m / {None: 1.0, "sqrtn": math.sqrt(n) if n else 1.0, "n": float(n or 1)}[scale]
    return _constant(m, dtype, dtypes.complex64)


__all__ = [
    "circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion", "hadamard", "hankel",
    "helmert", "hilbert", "invhilbert", "invpascal", "leslie", "pascal", "toeplitz",
]  # fmt: skip
