"""Matrix factorization primitives over jaxlib's LAPACK kernels (ops layer, one family).

cholesky, triangular_solve (cholesky.py), eigh, eig (eigen.py), svd (svd.py),
qr, lu (qr_lu.py), schur, hessenberg, tridiagonal, householder_product,
ormqr (schur.py); common.py holds the checks, matrix helpers and the batch
rule they share. Every primitive takes leading batch dims and lowers to a
custom call of a LAPACK kernel (ops/lapack.py).
"""

from .cholesky import cholesky, cholesky_op, triangular_solve, triangular_solve_op
from .eigen import eig, eig_op, eigh, eigh_op
from .qr_lu import lu, lu_op, qr, qr_op
from .schur import (
    hessenberg,
    hessenberg_op,
    householder_product,
    householder_product_op,
    ormqr,
    ormqr_op,
    schur,
    schur_op,
    tridiagonal,
    tridiagonal_op,
)  # fmt: skip
from .svd import svd, svd_op

__all__ = [
    "cholesky", "triangular_solve", "eigh", "eig", "svd", "qr", "lu",
    "cholesky_op", "triangular_solve_op", "eigh_op", "eig_op", "svd_op", "qr_op", "lu_op",
    "schur", "hessenberg", "tridiagonal", "householder_product", "ormqr",
    "schur_op", "hessenberg_op", "tridiagonal_op", "householder_product_op", "ormqr_op",
]  # fmt: skip
