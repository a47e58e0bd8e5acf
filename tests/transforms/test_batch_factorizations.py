"""Batch rules of the factorization primitives: vectorize equals a loop over lanes.

Every primitive (cholesky, triangular_solve, eigh, eig, svd, qr, lu, schur, hessenberg,
tridiagonal, householder_product, ormqr) takes
leading batch dims, so its rule moves the batch axis to the front; one
check_vectorize call covers them all (every in_axes choice, one graph, one run).
"""

from __future__ import annotations

import numpy as np

import stablegraph.numpy as snp
from stablegraph.ops.primitives import factorizations as fz
from stablegraph.test_util import check_vectorize


def _all_factorizations(a, b):
    spd = a @ snp.swapaxes(a, -1, -2) + 4 * snp.eye(4, dtype=a.dtype)
    low = fz.cholesky(spd)
    s, u, vh = fz.svd(b)
    q, r = fz.qr(b)
    lu, pivots, perm = fz.lu(a)
    w, v = fz.eig(a)
    vectors, values = fz.eigh(spd)
    t, z = fz.schur(a)
    packed, taus = fz.hessenberg(a)
    return {
        "cholesky": low,
        "triangular_solve": fz.triangular_solve(low, b, left_side=True, lower=True),
        "triangular_solve_right": fz.triangular_solve(
            low, snp.swapaxes(b, -1, -2), transpose_a=True, lower=True
        ),
        "eigh": (values, snp.abs(vectors)),  # eigenvectors are unique up to sign
        "eig": (w, v),
        "svd": (s, snp.abs(u), snp.abs(vh)),
        "qr": (snp.abs(q), snp.abs(r)),
        "lu": (lu, pivots, perm),
        "schur": (t, z),  # the same LAPACK call per lane: the same (non-unique) form
        "hessenberg": (packed, taus),
        "tridiagonal": fz.tridiagonal(spd),
        "householder_product": fz.householder_product(packed, taus),
        "ormqr": fz.ormqr(packed, taus, b),
    }


def test_factorizations_batch_like_a_loop():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 4))
    b = rng.normal(size=(4, 3))
    check_vectorize(_all_factorizations, [a, b], atol=1e-9, rtol=1e-9)
