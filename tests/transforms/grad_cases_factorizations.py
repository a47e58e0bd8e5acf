"""Finite-difference gradient cases of the matrix factorization primitives
(read by test_grad_registry.py).

Each input is shaped so the factorization is smooth at it: a positive definite
matrix for cholesky, a well-conditioned triangle for triangular_solve, a
symmetric matrix with distinct eigenvalues for eigh.
"""

import numpy as np

from stablegraph import numpy as snp
from stablegraph.ops.primitives import factorizations as fz

R = np.random.default_rng(5)


def normal(*shape):
    return R.normal(size=shape)


CASES = {
    "cholesky": [
        (lambda x: fz.cholesky(x @ x.T + 3 * snp.eye(3, dtype=x.dtype)), [normal(3, 3)]),
    ],
    "triangular_solve": [
        (lambda a, b: fz.triangular_solve(snp.tril(a) + 3 * snp.eye(3, dtype=a.dtype), b,
                                          left_side=True, lower=True),
         [normal(3, 3), normal(3, 2)]),
        (lambda a, b: fz.triangular_solve(snp.triu(a), b, transpose_a=True, unit_diagonal=True),
         [normal(3, 3), normal(2, 3)]),
    ],
    "eigh": [(lambda x: fz.eigh(x + x.T), [normal(3, 3)])],
    "svd": [(lambda x: fz.svd(x), [normal(4, 3)], dict(order=1))],
    "qr": [(lambda x: fz.qr(x), [normal(4, 3)])],
    "lu": [(lambda x: fz.lu(x)[0], [normal(3, 3)]), (lambda x: fz.lu(x)[0], [normal(4, 3)])],
    "eig": [(lambda x: fz.eig(x)[0], [normal(3, 3)], dict(order=1, modes="rev"))],
}  # fmt: skip
