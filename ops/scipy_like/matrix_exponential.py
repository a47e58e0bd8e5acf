"""expm, the matrix exponential of sg.scipy.linalg (ops layer): the degree-13 Pade approximant
(degree 7 in single precision) with scaling and squaring (Higham 2005), in its own module so that the functions built on it
(matrix_functions.py's expm_frechet) and scipy.linalg's namespace (linalg.py) both import it.
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes
from ..control_api import cond, fori_loop
from ..numpy_like import linalg as nla
from ..numpy_like.core import asarray, broadcast_to
from ..numpy_like.creation import eye
from ..numpy_like.linalg_decomp import matrix_operand
from ..numpy_like.linalg_products import matmul
from ..numpy_like.manipulation import expand_dims
from ..numpy_like.reductions import max as reduce_max
from ..numpy_like.reductions import sum as reduce_sum
from ..numpy_like.ufuncs import absolute, add, ceil, log, maximum, multiply, subtract, true_divide, where

# -- expm: Pade approximant of degree 13 with scaling and squaring (Higham 2005) -----------------
_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
    10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)  # fmt: skip
_THETA13 = 5.371920351148152
# single precision (float32, complex64): degree 7 reaches its unit roundoff up to this 1-norm (Higham
# 2005, Table 2.1's single-precision column), two fewer products than degree 13
_PADE7 = (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0)
_THETA7_SINGLE = 3.925724783138660


def expm(A, max_squarings: int = 16):  # noqa: N803
    """The matrix exponential: Pade(13) (Pade(7) for float32/complex64) of A / 2^s, squared s times,
    s from the 1-norm (Higham 2005).

    As jax: the squarings are a loop of ``max_squarings`` steps (so it has a
    gradient), each matrix squaring only while its own s lasts, a step only
    running its product while some matrix needs it; a matrix that needs more
    squarings than that gives NaNs.
    """
    x = matrix_operand(A, "expm", square=True)
    n = x.shape[-1]
    norm1 = reduce_max(reduce_sum(absolute(x), axis=-2), axis=-1)
    real = norm1.dtype
    single = real.bits == 32
    theta = _THETA7_SINGLE if single else _THETA13
    log2 = true_divide(log(true_divide(norm1, asarray(theta, real))), asarray(np.log(2.0), real))
    s = maximum(ceil(log2), 0)
    scale = asarray(2.0, real) ** expand_dims(expand_dims(-s, -1), -1)
    a1 = multiply(x, asarray(scale, x.dtype))
    ident = broadcast_to(eye(n, dtype=x.dtype), x.shape)
    a2 = matmul(a1, a1)
    a4 = matmul(a2, a2)
    a6 = matmul(a4, a2)

    def poly(*terms):
        out = terms[0]
        for t in terms[1:]:
            out = add(out, t)
        return out

    if single:
        b = [asarray(c, x.dtype) for c in _PADE7]
        u = matmul(
            a1, poly(multiply(b[7], a6), multiply(b[5], a4), multiply(b[3], a2), multiply(b[1], ident))
        )
        v = poly(multiply(b[6], a6), multiply(b[4], a4), multiply(b[2], a2), multiply(b[0], ident))
    else:
        b = [asarray(c, x.dtype) for c in _PADE13]
        u_inner = poly(multiply(b[13], a6), multiply(b[11], a4), multiply(b[9], a2))
        u = matmul(a1, poly(matmul(a6, u_inner), multiply(b[7], a6), multiply(b[5], a4), multiply(b[3], a2),
                            multiply(b[1], ident)))  # fmt: skip
        v_inner = poly(multiply(b[12], a6), multiply(b[10], a4), multiply(b[8], a2))
        v = poly(
            matmul(a6, v_inner),
            multiply(b[6], a6),
            multiply(b[4], a4),
            multiply(b[2], a2),
            multiply(b[0], ident),
        )
    r = nla.solve(subtract(v, u), add(v, u))
    own = expand_dims(expand_dims(asarray(s, dtypes.int32), -1), -1)

    most = reduce_max(own)  # the loop squares while any matrix still needs it (jax: a cond per step)

    def square(i, m):
        return cond(i < most, lambda m: where(i < own, matmul(m, m), m), lambda m: m, m)

    out = fori_loop(0, max_squarings, square, r)
    return where(own > max_squarings, asarray(np.nan, x.dtype), out)
