"""sg.numpy.linalg: numpy.linalg's names over primitives (ops layer).

This module is the namespace; the functions live in linalg_products.py
(matmul, dot, einsum, ...), linalg_decomp.py (cholesky, eigh, svd, qr, ...),
linalg_solve.py (solve, inv, det, lstsq, pinv, ...), linalg_norms.py (norm,
vector_norm, matrix_norm, cond) and linalg_misc.py (cross, vecdot,
diagonal, matrix_transpose). ``__all__`` lists what sg.numpy also exports at
its top level (the products); ``trace`` here is numpy's top-level trace
(axes 0 and 1), which equals numpy.linalg.trace for 2-d arrays.
"""

from __future__ import annotations

# ruff: noqa: F401  (this module re-exports)
from .linalg_decomp import (
    EighResult,
    EigResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    cholesky,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    qr,
    svd,
    svdvals,
)
from .linalg_misc import cross, diagonal, matrix_transpose, vecdot
from .linalg_norms import cond, matrix_norm, norm, vector_norm
from .linalg_products import dot, einsum, inner, matmul, outer, tensordot, trace, vdot
from .linalg_solve import (
    det,
    inv,
    lstsq,
    matrix_power,
    matrix_rank,
    multi_dot,
    pinv,
    slogdet,
    solve,
    tensorinv,
    tensorsolve,
)

_NAMESPACE = [
    "EighResult", "EigResult", "QRResult", "SlogdetResult", "SVDResult", "cholesky", "cond", "cross", "det",
    "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd",
    "svdvals", "tensorinv", "tensorsolve", "vecdot", "vector_norm",
]  # fmt: skip

__all__ = ["matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "trace"]
