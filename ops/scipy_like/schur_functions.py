"""scipy.linalg's Schur-based functions on sg.scipy.linalg (ops layer): schur, hessenberg,
rsf2csf, funm, sqrtm and solve_sylvester, each a library call over the schur, hessenberg and
householder_product primitives.

- rsf2csf turns the 2 x 2 blocks of a real Schur form into triangles by one Givens rotation each,
  from the last block up (scipy's order), the rotation built from an eigenvalue of the block and
  applied to the two rows and columns it mixes (dynamic slices: O(n) a step);
- funm is the Schur-Parlett method: f on the diagonal of the complex Schur form T, then
  F T = T F solved for F's strictly upper part one superdiagonal at a time;
- sqrtm is Bjorck and Hammarling's Schur method: U^2 = T solved the same way, so defective
  matrices work (an eigen-decomposition would need a full set of eigenvectors); a real matrix's
  complex Schur form comes from its real one through rsf2csf, as in scipy (real arithmetic makes
  the LAPACK part several times cheaper than jax's gees of the matrix made complex);
- solve_sylvester is Bartels and Stewart's: A X + X B = C becomes R Y + Y S = F with R, S the
  triangular Schur forms of A and B, solved one column of Y at a time by triangular solves.

The superdiagonal sweeps read one superdiagonal of a product, entry i being row i of one matrix
times column i + p of the other: the second matrix shifted p columns left (a dynamic slice) makes
that an elementwise product summed over rows, O(n^2) a superdiagonal, O(n^3) in all.

sqrtm and solve_sylvester carry their own gradients (a Schur form has none): X = sqrtm(A) gives
X dX + dX X = dA, so A's cotangent Y solves X^T Y + Y X^T = ct_X; X = solve_sylvester(A, B, C)
gives A dX + dX B = dC - dA X - X dB, so with Y solving A^T Y + Y B^T = ct_X the cotangents are
(-Y X^T, -X^T Y, Y). Both are the plain transposes jax's convention asks of complex functions.
"""

from __future__ import annotations

import numpy as np

from ...graph import GraphError, dtypes, library, located, user_location
from ..control_api import fori_loop
from ..custom_vjp import custom_vjp
from ..lax_indexing import dynamic_slice_in_dim, dynamic_update_slice_in_dim
from ..numpy_like.core import asarray, broadcast_shapes, broadcast_to, result_dtype
from ..numpy_like.creation import arange, eye, triu, zeros_like
from ..numpy_like.linalg_decomp import adjoint, matrix_operand
from ..numpy_like.linalg_products import matmul
from ..numpy_like.linalg_solve import inv, solve
from ..numpy_like.manipulation import concatenate, expand_dims, swapaxes
from ..numpy_like.math_ufuncs import conjugate as conj
from ..numpy_like.math_ufuncs import real
from ..numpy_like.padding import pad
from ..numpy_like.reductions import any as reduce_any
from ..numpy_like.reductions import max as reduce_max
from ..numpy_like.reductions import min as reduce_min
from ..numpy_like.reductions import sum as reduce_sum
from ..numpy_like.ufuncs import absolute, isfinite, logical_not, sqrt, where
from ..primitives import factorizations


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _complex(dt: dtypes.DType) -> dtypes.DType:
    return dt if dt.is_complex else (dtypes.complex128 if dt.name == "float64" else dtypes.complex64)


def _diagonal(x):
    """The main diagonal (..., n) of square matrices (..., n, n)."""
    n = x.shape[-1]
    return reduce_sum(where(eye(n, dtype=bool), x, zeros_like(x)), axis=-1)


def _offset(n: int):
    """col - row (n, n): the superdiagonal each entry is on."""
    idx = arange(n, dtype=dtypes.int32)
    return expand_dims(idx, 0) - expand_dims(idx, 1)


def _shifted(x, p):
    """x[..., k, i + p] at [..., k, i], zero past the last column (p traced)."""
    n = x.shape[-1]
    widths = [(0, 0)] * (x.ndim - 1) + [(0, n)]
    return dynamic_slice_in_dim(pad(x, widths), p, n, axis=-1)


def _superdiagonal_of_product(a, b, p):
    """Entry i: sum_k a[i, k] b[k, i + p] (zero where i + p >= n), the p-th superdiagonal of a @ b."""
    return reduce_sum(a * swapaxes(_shifted(b, p), -1, -2), axis=-1)


def _set_superdiagonal(x, values, p):
    """x with its p-th superdiagonal [i, i + p] set to values[..., i]."""
    return where(_offset(x.shape[-1]) == p, expand_dims(values, -1), x)


# -- schur, hessenberg, rsf2csf ----------------------------------------------------------------------
@library()
def schur(a, output: str = "real"):
    """``(T, Z)`` with ``a = Z T Z^H``, Z unitary: T upper triangular for ``output='complex'``
    (or complex input), quasi upper triangular with 2 x 2 blocks for complex eigenvalue pairs of
    real input for ``output='real'``. ``a`` is (..., n, n)."""
    if output not in ("real", "complex", "r", "c"):
        raise _error(f"sg.scipy.linalg.schur: output must be 'real' or 'complex', got {output!r}")
    x = matrix_operand(a, "schur", square=True)
    if output in ("complex", "c"):
        x = asarray(x, _complex(x.dtype))
    return factorizations.schur(x)


@library()
def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The upper Hessenberg form H of ``a`` (..., n, n), zero below the first subdiagonal, and with
    ``calc_q`` the unitary Q with ``a = Q H Q^H``: ``H`` or ``(H, Q)``."""
    del overwrite_a, check_finite  # scipy's memory and input checks: nothing to do here
    x = matrix_operand(a, "hessenberg", square=True)
    n = x.shape[-1]
    if n == 0:
        return (x, x) if calc_q else x
    packed, taus = factorizations.hessenberg(x)
    h = triu(packed, -1)
    if not calc_q:
        return h
    inner = factorizations.householder_product(packed[..., 1:, :-1], taus)  # Q fixes the first axis
    corner = np.zeros((n, n))
    corner[0, 0] = 1
    q = pad(inner, [(0, 0)] * (x.ndim - 2) + [(1, 0), (1, 0)]) + asarray(corner, x.dtype)
    return h, q


def _givens(block, eps):
    """The rotation G (..., 2, 2) that makes the 2 x 2 block [[a, b], [c, d]] upper triangular
    (G block G^H); the identity where the block is triangular already (|c| <= eps (|a| + |d|))."""
    a, b = block[..., 0, 0], block[..., 0, 1]
    c, d = block[..., 1, 0], block[..., 1, 1]
    half = (a - d) / 2
    mu = half + sqrt(half * half + b * c)  # an eigenvalue of the block, less d
    norm = sqrt(real(mu * conj(mu)) + real(c * conj(c)))
    needed = absolute(c) > eps * (absolute(a) + absolute(d))
    safe = where(needed, norm, 1.0)
    cos = where(needed, mu / asarray(safe, mu.dtype), 1.0)
    sin = where(needed, c / asarray(safe, c.dtype), 0.0)
    top = concatenate([expand_dims(conj(cos), -1), expand_dims(sin, -1)], axis=-1)
    bottom = concatenate([expand_dims(-sin, -1), expand_dims(cos, -1)], axis=-1)
    return concatenate([expand_dims(top, -2), expand_dims(bottom, -2)], axis=-2)


@library()
def rsf2csf(T, Z, check_finite: bool = True):  # noqa: N803
    """The complex Schur form ``(T, Z)`` of a real one (``schur(a)``): each 2 x 2 block of T made
    triangular by a Givens rotation, applied to Z too, so that ``a = Z T Z^H`` still holds."""
    del check_finite
    t, z = matrix_operand(T, "rsf2csf", square=True), matrix_operand(Z, "rsf2csf", square=True)
    if t.shape[-1] != z.shape[-1]:
        raise _error(f"sg.scipy.linalg.rsf2csf wants T and Z of one size, got {t.type} and {z.type}")
    dt = _complex(result_dtype(t, z))
    batch = broadcast_shapes(tuple(t.shape[:-2]), tuple(z.shape[:-2]))
    n = t.shape[-1]
    t = broadcast_to(asarray(t, dt), (*batch, n, n))
    z = broadcast_to(asarray(z, dt), (*batch, n, n))
    if n < 2:
        return t, z
    eps = float(np.finfo(dtypes.real_part(dt).np).eps)
    index = arange(n, dtype=dtypes.int32)
    row_of = expand_dims(index, -1)  # (n, 1)
    pair = expand_dims(arange(2, dtype=dtypes.int32), 0)  # (1, 2)

    def rotate(i, tz):
        t, z = tz
        m = n - i  # rows and columns m - 1 and m, from the bottom up: O(n) slices of each
        rows = dynamic_slice_in_dim(t, m - 1, 2, axis=-2)  # (..., 2, n)
        g = _givens(dynamic_slice_in_dim(rows, m - 1, 2, axis=-1), eps)
        rows = where(index >= m - 1, matmul(g, rows), rows)
        t = dynamic_update_slice_in_dim(t, rows, m - 1, axis=-2)
        gh = adjoint(g)
        cols = dynamic_slice_in_dim(t, m - 1, 2, axis=-1)  # (..., n, 2)
        cols = where(row_of <= m, matmul(cols, gh), cols)
        cols = where((row_of == m) & (pair == 0), 0.0, cols)  # T[m, m - 1], rotated away
        t = dynamic_update_slice_in_dim(t, cols, m - 1, axis=-1)
        zc = dynamic_slice_in_dim(z, m - 1, 2, axis=-1)
        return t, dynamic_update_slice_in_dim(z, matmul(zc, gh), m - 1, axis=-1)

    return fori_loop(1, n, rotate, (t, z))


# -- funm ------------------------------------------------------------------------------------------
@library()
def funm(A, func, disp: bool = True):  # noqa: N803
    """f(A) for a scalar function ``func`` (applied elementwise to the eigenvalues) by the
    Schur-Parlett method: complex, as jax's. With ``disp=False`` also an estimate of the relative
    error (1 at worst; inf if the result is not finite), as scipy's. Close eigenvalues make the
    recurrence inaccurate, as in scipy."""
    x = matrix_operand(A, "funm", square=True)
    if x.ndim != 2:
        raise _error(f"sg.scipy.linalg.funm wants one square matrix (n, n), got {x.type}")
    t, z = rsf2csf(*factorizations.schur(x)) if not x.dtype.is_complex else factorizations.schur(x)
    n = x.shape[-1]
    d = _diagonal(t)
    f = eye(n, dtype=t.dtype) * expand_dims(asarray(func(d), t.dtype), -1)

    def parlett(p, f):
        s = _superdiagonal_of_product(t, f, p) - _superdiagonal_of_product(f, t, p)
        gap = _shifted(expand_dims(d, 0), p)[0] - d  # T[i + p, i + p] - T[i, i]
        return _set_superdiagonal(f, where(gap != 0, s / where(gap != 0, gap, 1.0), s), p)

    f = matmul(matmul(z, fori_loop(1, n, parlett, f)), adjoint(z))
    if disp:
        return f
    real_dt = dtypes.real_part(t.dtype)
    tol = float(np.finfo(real_dt.np).eps)
    gaps = absolute(expand_dims(d, 0) - expand_dims(d, 1))  # |T[j, j] - T[i, i]|, read for i < j
    minden = reduce_min(where(_offset(n) > 0, gaps, np.inf)) if n > 1 else asarray(np.inf, real_dt)
    minden = where(minden < absolute(d[0]), minden, absolute(d[0])) if n else asarray(tol, real_dt)
    minden = where(minden == 0, tol, minden)
    norm1 = reduce_max(reduce_sum(absolute(triu(t, 1)), axis=0)) if n else asarray(0, real_dt)
    err = where(reduce_any(logical_not(isfinite(f))), np.inf, _clip(tol / minden * norm1, tol, 1.0))
    return f, err


def _clip(x, low: float, high: float):
    return where(x < low, low, where(x > high, high, x))


# -- sqrtm -----------------------------------------------------------------------------------------
def _sqrt_triangular(t):
    """U upper triangular with U U = T (T upper triangular): the principal root on the diagonal,
    then U[i, j] = (T[i, j] - sum_{i<k<j} U[i, k] U[k, j]) / (U[i, i] + U[j, j]), a superdiagonal
    at a time; 0 where the numerator is (a zero pair of roots)."""
    n = t.shape[-1]
    root = sqrt(_diagonal(t))
    u = eye(n, dtype=t.dtype) * expand_dims(root, -1)

    def sweep(p, u):
        s = _superdiagonal_of_product(u, u, p)
        target = reduce_sum(where(_offset(n) == p, t, zeros_like(t)), axis=-1)  # T[i, i + p]
        total = root + _shifted(expand_dims(root, -2), p)[..., 0, :]
        value = where(target == s, 0.0, (target - s) / where(target == s, 1.0, total))
        return _set_superdiagonal(u, value, p)

    return fori_loop(1, n, sweep, u)


def _complex_schur(x):
    """The complex Schur form (T, Z) of x: of a real x through its real Schur form and rsf2csf (as
    scipy; real arithmetic makes LAPACK's part several times cheaper than gees of x as complex)."""
    if x.dtype.is_complex:
        return factorizations.schur(x)
    return rsf2csf(*factorizations.schur(x))


def _sqrtm_of(real_input: bool):
    """sqrtm of a real or a complex matrix with its own vjp: A's cotangent Y solves
    X^T Y + Y X^T = ct_X (its real part for a real A)."""

    def value(x):
        t, z = _complex_schur(x)
        return matmul(matmul(z, _sqrt_triangular(t)), adjoint(z))

    def fwd(x):
        root = value(x)
        return root, root

    def bwd(root, ct):
        rt = swapaxes(root, -1, -2)
        y = _sylvester(rt, rt, ct)
        return (real(y) if real_input else y,)

    f = custom_vjp(value)
    f.__name__ = "sqrtm"
    f.defvjp(fwd, bwd)
    return f


_SQRTM = {True: _sqrtm_of(True), False: _sqrtm_of(False)}


@library()
def sqrtm(A, blocksize: int = 1):  # noqa: N803
    """The principal square root X of ``A`` (..., n, n), X @ X = A, by the Schur method (complex
    result, as jax's): defective matrices work too. Differentiable (X dX + dX X = dA). ``blocksize``
    is accepted for scipy's signature; the recurrence runs a superdiagonal at a time."""
    del blocksize
    x = matrix_operand(A, "sqrtm", square=True)
    if x.shape[-1] == 0:
        return asarray(x, _complex(x.dtype))
    return _SQRTM[not x.dtype.is_complex](x)


# -- solve_sylvester -------------------------------------------------------------------------------
def _sylvester_triangular(r, s, f):
    """Y with R Y + Y S = F for upper triangular R (m, m) and S (n, n): column j solves
    (R + S[j, j] I) y_j = F[:, j] - sum_{k<j} y_k S[k, j], in turn."""
    m, n = r.shape[-1], s.shape[-1]
    cols = arange(n, dtype=dtypes.int32)
    ident = eye(m, dtype=r.dtype)

    def column(j, y):
        pick = asarray(cols == j, f.dtype)  # e_j (n,)
        s_j = matmul(s, expand_dims(pick, -1))  # S[:, j] (..., n, 1)
        rhs = matmul(f, expand_dims(pick, -1)) - matmul(y, s_j)  # y's columns >= j are still zero
        s_jj = reduce_sum(s_j[..., 0] * pick, axis=-1)
        shifted = r + ident * expand_dims(expand_dims(s_jj, -1), -1)
        y_j = factorizations.triangular_solve(shifted, rhs, left_side=True, lower=False)
        return y + y_j * pick

    return fori_loop(0, n, column, zeros_like(f))


def _sylvester_schur(a, b, c):
    r, u = factorizations.schur(a)
    s, v = factorizations.schur(b)
    y = _sylvester_triangular(r, s, matmul(matmul(adjoint(u), c), v))
    return matmul(matmul(u, y), adjoint(v)), _diagonal(r), _diagonal(s)


def _sylvester_eigen(a, b, c):
    wa, va = factorizations.eig(a)
    wb, vb = factorizations.eig(b)
    f = solve(va, matmul(c, vb))
    y = f / (expand_dims(wa, -1) + expand_dims(wb, -2))
    return matmul(matmul(va, y), inv(vb)), wa, wb


def _sylvester(a, b, c, method: str = "schur"):
    """X with A X + X B = C, all complex of one dtype and batch shape."""
    solve = _sylvester_schur if method == "schur" else _sylvester_eigen
    return solve(a, b, c)[0]


def _sylvester_fwd(a, b, c, method, tol):
    solve = _sylvester_schur if method == "schur" else _sylvester_eigen
    x, wa, wb = solve(a, b, c)
    close = reduce_any(absolute(expand_dims(wa, -1) + expand_dims(wb, -2)) < tol, axis=(-2, -1))
    x = where(expand_dims(expand_dims(close, -1), -1), np.nan, x)
    return x, (a, b, x)


def _solve_sylvester(a, b, c, method: str, tol: float):
    def value(a, b, c):
        return _sylvester_fwd(a, b, c, method, tol)[0]

    def fwd(a, b, c):
        return _sylvester_fwd(a, b, c, method, tol)

    def bwd(res, ct):
        a, b, x = res
        y = _sylvester(swapaxes(a, -1, -2), swapaxes(b, -1, -2), ct, method)
        return -matmul(y, swapaxes(x, -1, -2)), -matmul(swapaxes(x, -1, -2), y), y

    f = custom_vjp(value)
    f.__name__ = "solve_sylvester"
    f.defvjp(fwd, bwd)
    return f(a, b, c)


@library()
def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):  # noqa: N803
    """X with A X + X B = C for A (..., m, m), B (..., n, n), C (..., m, n) (batch dims broadcast):
    Bartels-Stewart over the complex Schur forms (``method='schur'``) or through eigenvectors
    (``'eigen'``). NaNs where an eigenvalue of A and one of B sum to less than ``tol`` in
    magnitude (no unique solution), as jax. Real when A, B and C are; differentiable."""
    if method not in ("schur", "eigen"):
        raise _error(f"sg.scipy.linalg.solve_sylvester: method must be 'schur' or 'eigen', got {method!r}")
    a, b = (
        matrix_operand(A, "solve_sylvester", square=True),
        matrix_operand(B, "solve_sylvester", square=True),
    )
    c = matrix_operand(C, "solve_sylvester")
    m, n = a.shape[-1], b.shape[-1]
    if c.shape[-2:] != (m, n):
        raise _error(
            f"sg.scipy.linalg.solve_sylvester wants C (..., {m}, {n}) for A {a.type} and B {b.type}, got {c.type}"
        )
    dt = result_dtype(a, b, c)
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]), tuple(c.shape[:-2]))
    work = _complex(dt)
    a, b, c = (broadcast_to(asarray(v, work), (*batch, *v.shape[-2:])) for v in (a, b, c))
    if m == 0 or n == 0:
        return asarray(c, dt)
    x = _solve_sylvester(a, b, c, method, float(tol))
    return x if dt.is_complex else real(x)


__all__ = ["funm", "hessenberg", "rsf2csf", "schur", "solve_sylvester", "sqrtm"]
