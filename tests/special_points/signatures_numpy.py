"""The signature table of sg.numpy's sweep: every public function jax.numpy also has, with its
argument kinds (points.py), or in SKIPPED with the reason it has no special points to meet.

DIFFERENCES lists the mismatches stablegraph keeps on purpose, each with its reason; keys are
``name``, ``name[variant]``, ``name:part`` or ``name[variant]:part`` (part: value, d1, d2).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special as sp

from . import closed_forms as cf
from .harness import Sig

X, XX, XXX, INT, INT2, B, BB = ("x",), ("x", "x"), ("x", "x", "x"), ("i",), ("i", "i"), ("b",), ("b", "b")

_UNARY_FLOAT = (
    "abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh cbrt ceil "
    "conj conjugate cos cosh deg2rad degrees exp exp2 expm1 fabs floor i0 imag isfinite isinf isnan "
    "isneginf isposinf iscomplex isreal log log10 log1p log2 nan_to_num negative positive rad2deg radians "
    "real reciprocal rint round around sign signbit sin sinc sinh spacing sqrt square tan tanh trunc angle "
    "modf frexp"
).split()

_BINARY_FLOAT = (
    "add arctan2 atan2 copysign divide true_divide divmod equal float_power floor_divide fmax fmin fmod "
    "greater greater_equal heaviside hypot less less_equal logaddexp logaddexp2 maximum minimum mod "
    "multiply nextafter not_equal power pow remainder subtract isclose"
).split()

_BINARY_INT = (
    "bitwise_and bitwise_or bitwise_xor left_shift right_shift bitwise_left_shift bitwise_right_shift"
).split()

_INT_TOO = "add subtract multiply floor_divide remainder mod power pow divmod maximum minimum".split()


def _sinc_derivative(x, order: int):
    """sinc's first or second derivative in long double: its Maclaurin series for |pi x| < 1,
    the closed forms beyond (jax's own lose every digit near 0, where it special-cases 0 only)."""
    t = np.asarray(x, np.longdouble) * np.pi
    k = np.arange(1, 14)[:, None]
    coef = (-1.0) ** k / np.array([math.factorial(2 * n + 1) for n in range(1, 14)], np.longdouble)[:, None]
    if order == 1:
        series = np.pi * np.sum(coef * 2 * k * t ** (2 * k - 1), axis=0)
    else:
        series = np.pi**2 * np.sum(coef * 2 * k * (2 * k - 1) * t ** (2 * k - 2), axis=0)
    with np.errstate(all="ignore"):
        sinc = np.sin(t) / t
        d1 = (np.cos(t) - sinc) / np.asarray(x, np.longdouble)
        closed = d1 if order == 1 else -(np.pi**2) * sinc - 2 * d1 / np.asarray(x, np.longdouble)
    return [np.where(np.abs(t) < 1, series, closed).astype(np.float64)]


def _scaled(fn, x):
    """fn(x) e^|x| as fn(x) e^(|x|/2) e^(|x|/2): finite up to float64's overflow, where scipy's
    i0 and i1 overflow early."""
    half = np.exp(np.abs(x) / 2)
    return fn(x) * half * half


def _i0_second(x):
    with np.errstate(all="ignore"):
        return [np.where(x == 0, 0.5, _scaled(sp.i0e, x) - _scaled(sp.i1e, x) / x)]


def _frexp_slope(x):
    return [np.ldexp(1.0, -np.frexp(x)[1])]


NUMPY: dict[str, Sig] = {
    **{n: Sig(X) for n in _UNARY_FLOAT},
    **{n: Sig(XX) for n in _BINARY_FLOAT},
    **{n: Sig(INT2) for n in _BINARY_INT},
    **{f"{n}[int]": Sig(INT2, call=lambda xp, a, b, n=n: getattr(xp, n)(a, b)) for n in _INT_TOO},
    **{n: Sig(INT) for n in "invert bitwise_not bitwise_invert bitwise_count".split()},
    **{n: Sig(BB) for n in "logical_and logical_or logical_xor".split()},
    "logical_not": Sig(B),
    **{n: Sig(("j", "j")) for n in ("gcd", "lcm")},  # jax's Euclid loop never ends at the int minimum
    "ldexp": Sig(("x", "i"), d1ref=lambda x, n: [np.ldexp(np.ones_like(x), n)]),
    "sinc": Sig(X, d1ref=lambda x: _sinc_derivative(x, 1), d2ref=lambda x: _sinc_derivative(x, 2)),
    **{n: Sig(X, **cf.derivatives(cf.atan)) for n in ("atan", "arctan")},
    **{n: Sig(X, **cf.derivatives(cf.asinh)) for n in ("asinh", "arcsinh")},
    **{n: Sig(X, **cf.derivatives(cf.acosh)) for n in ("acosh", "arccosh")},
    **{n: Sig(XX, **cf.derivatives(cf.arctan2)) for n in ("atan2", "arctan2")},
    **{n: Sig(XX, **cf.derivatives(cf.divide)) for n in ("divide", "true_divide")},
    "angle": Sig(X, **cf.derivatives(cf.angle)),
    "expm1": Sig(X, **cf.derivatives(cf.expm1)),
    "hypot": Sig(XX, **cf.derivatives(cf.hypot)),
    "i0": Sig(X, ref=lambda x: _scaled(sp.i0e, x), d1ref=lambda x: [_scaled(sp.i1e, x)], d2ref=_i0_second),
    "frexp": Sig(X, flush=False, d1ref=_frexp_slope),
    "clip": Sig(XXX),
    "where": Sig(("b", "x", "x")),
}

SKIPPED: dict[str, str] = {}

_POWER_AT_ZERO = (
    "d/dx x**y is 0 where x == y == 0 and d2/dx2 is 0 where x == 0 and y is 0 or 1, and where y is 0 "
    "and x tiny (x**0 and x**1 are affine); jax's y * x**(y-1) is 0 * inf = NaN there"
)
_INFINITE_HESSIAN = (
    "at an infinite operand the mixed second derivative is 0 (the cotangent is divided by x*x + y*y "
    "first); jax's and the closed form's inf / inf is NaN"
)

DIFFERENCES: dict[str, str] = {
    **{
        f"{n}:{part}:nan": _POWER_AT_ZERO
        for n in ("power", "pow", "float_power@float64")
        for part in ("d1", "d2")
    },
    **{f"{n}:d2:nan": _INFINITE_HESSIAN for n in ("arctan2", "atan2")},
    "float_power@float32": "float_power computes in float64 as numpy does (explicit 64-bit dtypes are "
    "honoured, there is no x64 switch); jax without x64 gives float32, so every part differs",
    "modf:d1:ulps": "at +-inf the fraction is +-0 as numpy's (jax's is NaN), a constant whose "
    "derivative is 0; jax's 1 comes from differentiating inf - inf",
    "i0:d2": "within a factor of about 30 of the overflow (|x| near log(max)) the chain rule of the "
    "second derivative multiplies e^(|x|/2) twice into the cotangent and overflows (-inf); jax's is "
    "NaN there, the value and the first derivative stay finite and right",
}

DIFFERENCES.update(
    {
        **{
            f"{n}:d2": "where a row holds an infinity, the Hessian-vector product of a product multiplies a "
            "structural zero by inf (0 * inf = NaN) in the running products behind the gradient, which is "
            "exact at zeros (no division); jax's tree of products gives inf"
            for n in ("prod", "nanprod")
        },
        **{
            f"{n}:d2": "at rows holding +-inf ours is the true Hessian-vector product (+-inf: the products of "
            "the other elements, worked by hand for [+-inf, 1, 2, 3]); jax's scan transpose gives NaN"
            for n in ("cumprod", "cumulative_prod", "nancumprod")
        },
        **{
            f"{n}:d1:ulps": "among elements that compare equal (+0 and -0, a subnormal and 0, which XLA "
            "flushes) jax's top_k orders by bits and ours (a stable sort) by value, so the derivative goes "
            "to another of the tied elements; numpy leaves their order unspecified"
            for n in ("partition", "argpartition")
        },
    }
)

# fixed by the lead engineer in issue 20's part 1 (integer // 0, % 0 and ** of integers): the sweep
# reports them until that lands
DIFFERENCES.update(
    {
        n: "an integer to a negative exponent fed at run time: ours is XLA's integer power, the integer "
        "part of x ** y (0 for |x| > 1); jax reads only the exponent's low six bits (2 ** INT_MIN == 1); "
        "numpy refuses (a negative exponent known while building is a GraphError here too)"
        for n in ("power[int]", "pow[int]")
    }
)

PENDING: dict[str, str] = {}


ELEMENTWISE = dict(NUMPY)

# -- reductions, scans, sorting and products over special rows --------------------------------------
R, V, M, IR, BR, E, E2 = ("rows",), ("vec",), ("mat",), ("irows",), ("brows",), ("empty",), ("empty2",)


# reductions whose second derivative is not 0 almost everywhere (the others are linear or
# piecewise linear in the values: their d2 is compared only through these)
_CURVED = {"prod", "std", "var", "nanprod", "nanstd", "nanvar"}
# reductions also swept along axis 0 and over everything (the rest only along the last axis)
_EVERY_AXIS = {"max", "min", "sum", "prod", "mean", "var", "argmax", "median", "all"}


def _axes(name: str, kinds=R, empty: bool = True, **kw) -> dict:
    """A reduction along the last axis (also along axis 0 and over everything for _EVERY_AXIS),
    and over empty rows; second derivatives for _CURVED only."""
    order = 2 if name in _CURVED else 1
    fn = lambda ax: lambda xp, r: getattr(xp, name)(r, axis=ax, **kw)  # noqa: E731
    out = {name: Sig(kinds, call=fn(-1), order=order)}
    if name in _EVERY_AXIS:
        out[f"{name}[axis=0]"] = Sig(kinds, call=fn(0), order=order)
        out[f"{name}[all]"] = Sig(kinds, call=fn(None), order=order)
    if empty:
        out[f"{name}[empty]"] = Sig(E2, call=fn(-1), order=min(order, 1))
    return out


_FLOAT_REDUCTIONS = (
    "amax amin max min sum prod mean std var average median ptp nanmax nanmin nanmean nanmedian nanprod "
    "nanstd nansum nanvar argmax argmin nanargmax nanargmin all any count_nonzero"
).split()

REDUCTIONS: dict[str, Sig] = {
    **{k: v for n in _FLOAT_REDUCTIONS for k, v in _axes(n).items()},
    **{
        f"{n}[int]": Sig(IR, call=lambda xp, r, n=n: getattr(xp, n)(r, axis=-1))
        for n in ("sum", "prod", "max", "argmin", "mean")
    },
    **{
        f"{n}[bool]": Sig(BR, call=lambda xp, r, n=n: getattr(xp, n)(r, axis=-1))
        for n in ("all", "any", "sum")
    },
    **{k: v for n in ("quantile", "nanquantile") for k, v in _axes(n, q=0.25).items()},
    **{k: v for n in ("percentile", "nanpercentile") for k, v in _axes(n, q=75.0).items()},
    "std[ddof]": Sig(R, call=lambda xp, r: xp.std(r, axis=-1, ddof=1)),
    "var[ddof]": Sig(R, call=lambda xp, r: xp.var(r, axis=-1, ddof=1)),
    "average[weights]": Sig(R, call=lambda xp, r: xp.average(r, axis=-1, weights=xp.abs(r[::-1]))),
    **{
        n: Sig(R, call=lambda xp, r, n=n: getattr(xp, n)(r, axis=-1), order=2 if "prod" in n else 1)
        for n in (
            "cumsum",
            "cumprod",
            "cumulative_sum",
            "cumulative_prod",
            "nancumsum",
            "nancumprod",
            "sort",
            "argsort",
            "diff",
            "gradient",
            "trapezoid",
            "unwrap",
            "flip",
            "roll",
        )
    },  # fmt: skip
    **{
        f"{n}[all]": Sig(
            R, call=lambda xp, r, n=n: getattr(xp, n)(r, axis=None), order=2 if n == "cumprod" else 1
        )
        for n in ("cumsum", "cumprod", "sort", "argsort")
    },
    **{
        f"{n}[empty]": Sig(E2, call=lambda xp, r, n=n: getattr(xp, n)(r, axis=-1), order=1)
        for n in ("cumsum", "sort", "argsort")
    },
    "sort[descending]": Sig(R, call=lambda xp, r: xp.sort(r, axis=-1, descending=True), order=1),
    "argsort[stable]": Sig(R, call=lambda xp, r: xp.argsort(r, axis=-1, stable=True)),
    "partition": Sig(R, call=lambda xp, r: xp.partition(r, 1, axis=-1)[..., 1], order=1),
    "argpartition": Sig(
        R, call=lambda xp, r: xp.take_along_axis(r, xp.argpartition(r, 1, axis=-1), -1)[..., 1], order=1
    ),
    "diff[n=2]": Sig(R, call=lambda xp, r: xp.diff(r, n=2, axis=0), order=1),
    "ediff1d": Sig(V, order=1),
    "trace": Sig(M, call=lambda xp, m: xp.trace(m, axis1=-2, axis2=-1), order=1),
    "cross": Sig(("rows", "rows"), call=lambda xp, a, b: xp.cross(a[:, :3], b[::-1, 1:])),
    "dot": Sig(("rows", "rows"), call=lambda xp, a, b: xp.dot(a, b[:4].T)),
    "inner": Sig(("rows", "rows"), call=lambda xp, a, b: xp.inner(a, b[::-1])),
    "vdot": Sig(("rows", "rows"), call=lambda xp, a, b: xp.vdot(a[:3], b[-3:])),
    "matmul": Sig(("rows", "mat"), call=lambda xp, a, m: xp.matmul(a[:15].reshape(5, 3, 4)[..., :3], m)),
    "tensordot": Sig(("rows", "rows"), call=lambda xp, a, b: xp.tensordot(a, b[::-1], axes=([0], [0]))),
    "outer": Sig(("rows", "rows"), call=lambda xp, a, b: xp.outer(a[:3], b[-2:])),
    "kron": Sig(("mat", "mat"), call=lambda xp, a, b: xp.kron(a[1], b[4])),
    "vecdot": Sig(("rows", "rows"), call=lambda xp, a, b: xp.vecdot(a, b[::-1])),
    "matvec": Sig(("mat", "rows"), call=lambda xp, m, r: xp.matvec(m, r[:5, :3])),
    "vecmat": Sig(("rows", "mat"), call=lambda xp, r, m: xp.vecmat(r[:5, :3], m)),
    "einsum": Sig(("rows", "rows"), call=lambda xp, a, b: xp.einsum("ij,ij->i", a, b[::-1])),
    "convolve": Sig(("vec", "rows"), call=lambda xp, v, r: xp.convolve(v[:9], r[3])),
    "correlate": Sig(("vec", "rows"), call=lambda xp, v, r: xp.correlate(v[:9], r[12], mode="full")),
    "cov": Sig(R, call=lambda xp, r: xp.cov(r)),
    "corrcoef": Sig(R, call=lambda xp, r: xp.corrcoef(r[:6])),
}


# -- moving, joining, selecting and searching special values -----------------------------------------
def _moves(call, kinds=R) -> Sig:
    """A function that moves values (linear in them): its second derivative is 0, not compared."""
    return Sig(kinds, call=call, order=1)


ARRAYS: dict[str, Sig] = {
    "append": _moves(lambda xp, r: xp.append(r[:3], r[-3:], axis=0)),
    "atleast_1d": _moves(lambda xp, r: xp.atleast_1d(r[0, 0])),
    "atleast_2d": _moves(lambda xp, r: xp.atleast_2d(r[0])),
    "atleast_3d": _moves(lambda xp, r: xp.atleast_3d(r)),
    "broadcast_to": _moves(lambda xp, r: xp.broadcast_to(r[:, :1], (18, 3))),
    "broadcast_arrays": _moves(lambda xp, r: xp.broadcast_arrays(r[:, :1], r[:1, :3])),
    "column_stack": _moves(lambda xp, r: xp.column_stack([r[:, 0], r[:, 3]])),
    "concatenate": _moves(lambda xp, r: xp.concatenate([r, r[::-1]], axis=1)),
    "concat": _moves(lambda xp, r: xp.concat([r, r[::-1]], axis=0)),
    "delete": _moves(lambda xp, r: xp.delete(r, 1, axis=1)),
    "diag": _moves(lambda xp, r: xp.diag(r[:4], k=1)),
    "diagflat": _moves(lambda xp, r: xp.diagflat(r[5])),
    "diagonal": _moves(lambda xp, m: xp.diagonal(m, axis1=-2, axis2=-1), kinds=M),
    "dsplit": _moves(lambda xp, r: xp.dsplit(r[:16].reshape(2, 2, 16), 2)),
    "dstack": _moves(lambda xp, r: xp.dstack([r, r[::-1]])),
    "expand_dims": _moves(lambda xp, r: xp.expand_dims(r, 1)),
    "flip[all]": _moves(lambda xp, r: xp.flip(r)),
    "fliplr": _moves(lambda xp, r: xp.fliplr(r)),
    "flipud": _moves(lambda xp, r: xp.flipud(r)),
    "hsplit": _moves(lambda xp, r: xp.hsplit(r, 2)),
    "hstack": _moves(lambda xp, r: xp.hstack([r, r[::-1]])),
    "insert": _moves(lambda xp, r: xp.insert(r, 1, r[:, 3], axis=1)),
    "moveaxis": _moves(lambda xp, m: xp.moveaxis(m, 0, -1), kinds=M),
    "matrix_transpose": _moves(lambda xp, m: xp.matrix_transpose(m), kinds=M),
    "permute_dims": _moves(lambda xp, m: xp.permute_dims(m, (2, 0, 1)), kinds=M),
    "ravel": _moves(lambda xp, r: xp.ravel(r)),
    "repeat": _moves(lambda xp, r: xp.repeat(r, 2, axis=1)),
    "reshape": _moves(lambda xp, r: xp.reshape(r, (-1, 2))),
    "resize": _moves(lambda xp, r: xp.resize(r, (5, 7))),
    "roll[all]": _moves(lambda xp, r: xp.roll(r, 5)),
    "rollaxis": _moves(lambda xp, m: xp.rollaxis(m, 2), kinds=M),
    "rot90": _moves(lambda xp, r: xp.rot90(r)),
    "split": _moves(lambda xp, r: xp.split(r, 2, axis=1)),
    "array_split": _moves(lambda xp, r: xp.array_split(r, 3, axis=1)),
    "squeeze": _moves(lambda xp, r: xp.squeeze(r[:, :1])),
    "stack": _moves(lambda xp, r: xp.stack([r, r[::-1]], axis=-1)),
    "swapaxes": _moves(lambda xp, m: xp.swapaxes(m, 0, 2), kinds=M),
    "take": _moves(lambda xp, r: xp.take(r, xp.array([3, 0, 0, 2]), axis=1)),
    "take_along_axis": _moves(lambda xp, r: xp.take_along_axis(r, xp.argsort(r, axis=-1), -1)),
    "tile": _moves(lambda xp, r: xp.tile(r, (1, 2))),
    "transpose": _moves(lambda xp, r: xp.transpose(r)),
    "tril": _moves(lambda xp, r: xp.tril(r)),
    "triu": _moves(lambda xp, r: xp.triu(r, k=1)),
    "unstack": _moves(lambda xp, r: xp.unstack(r, axis=1)),
    "vsplit": _moves(lambda xp, r: xp.vsplit(r[:16], 2)),
    "vstack": _moves(lambda xp, r: xp.vstack([r, r[::-1]])),
    "block": _moves(lambda xp, r: xp.block([[r[:2], r[2:4]], [r[4:6], r[6:8]]])),
    "pad": _moves(lambda xp, r: xp.pad(r, ((1, 0), (0, 2)))),
    "pad[edge]": _moves(lambda xp, r: xp.pad(r, ((1, 0), (0, 2)), mode="edge")),
    "pad[reflect]": _moves(lambda xp, r: xp.pad(r, ((1, 0), (0, 2)), mode="reflect")),
    "astype": _moves(lambda xp, r: xp.astype(r, xp.float32)),
    "asarray": _moves(lambda xp, r: xp.asarray(r)),
    "array": _moves(lambda xp, r: xp.array(r)),
    "copy": _moves(lambda xp, r: xp.copy(r)),
    "select": _moves(lambda xp, r: xp.select([r > 1, r < 0], [r, -r], 7.0)),
    "choose": _moves(
        lambda xp, r, i: xp.choose(i % 2, [r[:6], r[6:12]], mode="clip"), kinds=("rows", "irows")
    ),
    "compress": _moves(lambda xp, r: xp.compress(xp.array([True, False, True, True]), r, axis=1)),
    "extract": _moves(lambda xp, r: xp.extract(r > 1, r, size=20)),
    "piecewise": _moves(
        lambda xp, v: xp.piecewise(v, [v < 0, v > 1], [lambda t: -t, lambda t: t * t, 0.5]), kinds=V
    ),
    "place": _moves(lambda xp, r: xp.place(r, r > 2, xp.array([9.0, 8.0]), inplace=False)),
    "put": _moves(lambda xp, r: xp.put(r, xp.array([0, 5, 9]), xp.array([1.5, -2.0, 0.0]), inplace=False)),
    "put_along_axis": _moves(
        lambda xp, r: xp.put_along_axis(r, xp.argmax(r, axis=1, keepdims=True), -1.0, axis=1, inplace=False)
    ),
    "fill_diagonal": _moves(lambda xp, r: xp.fill_diagonal(r[:4], 3.0, inplace=False)),
    "sort_complex": Sig(R, call=lambda xp, r: xp.sort_complex(r[:16].reshape(4, 4) + 0j), order=0),
    "lexsort": Sig(R, call=lambda xp, r: xp.lexsort([r[:, 0], r[:, 1]])),
    "searchsorted": Sig(
        ("rows", "vec"), call=lambda xp, r, v: xp.searchsorted(xp.array([-1.0, 0.0, 1.0, 2.0]), v)
    ),
    "searchsorted[right]": Sig(
        ("vec",), call=lambda xp, v: xp.searchsorted(xp.array([-1.0, 0.0, 1.0, 2.0]), v, side="right")
    ),
    "digitize": Sig(V, call=lambda xp, v: xp.digitize(v, xp.array([-1.0, 0.0, 1.0, 2.0]))),
    "bincount": Sig(IR, call=lambda xp, i: xp.bincount(xp.abs(i[:4, :3].ravel() % 7), length=8)),
    "isin": Sig(V, call=lambda xp, v: xp.isin(v, xp.array([0.0, 1.0, np.inf, np.nan]))),
    "histogram": Sig(V, call=lambda xp, v: xp.histogram(v, bins=4, range=(-2.0, 2.0))),
    "histogram_bin_edges": Sig(V, call=lambda xp, v: xp.histogram_bin_edges(v, bins=4, range=(-2.0, 2.0))),
    "histogram2d": Sig(V, call=lambda xp, v: xp.histogram2d(v, v[::-1], bins=3, range=((-2, 2), (-2, 2)))),
    "histogramdd": Sig(R, call=lambda xp, r: xp.histogramdd(r[:, :2], bins=3, range=((-2, 2), (-2, 2)))),
    "interp": Sig(V, call=lambda xp, v: xp.interp(v, xp.array([-1.0, 0.0, 2.0]), xp.array([1.0, -1.0, 3.0]))),
    "polyval": Sig(V, call=lambda xp, v: xp.polyval(xp.array([1.0, -2.0, 0.5]), v)),
    "polyadd": _moves(lambda xp, r: xp.polyadd(r[7], r[3][:3])),
    "polysub": _moves(lambda xp, r: xp.polysub(r[12], r[3][:3])),
    "polymul": Sig(R, call=lambda xp, r: xp.polymul(r[9], r[16])),
    "polyder": _moves(lambda xp, r: xp.polyder(r[9], 2)),
    "polyint": _moves(lambda xp, r: xp.polyint(r[7], 1)),
    "polydiv": Sig(R, call=lambda xp, r: xp.polydiv(r[9], r[0][:2])),
    "poly": Sig(R, call=lambda xp, r: xp.poly(r[13])),
    "roots": Sig(R, call=lambda xp, r: xp.sort_complex(xp.roots(r[0], strip_zeros=False)), order=0),
    "polyfit": Sig(V, call=lambda xp, v: xp.polyfit(xp.arange(5.0), v[40:45], 2), order=1),
    "vander": Sig(V, call=lambda xp, v: xp.vander(v[:8], 3)),
    "nonzero": Sig(R, call=lambda xp, r: xp.nonzero(r, size=40)),
    "argwhere": Sig(R, call=lambda xp, r: xp.argwhere(r, size=40)),
    "flatnonzero": Sig(R, call=lambda xp, r: xp.flatnonzero(r, size=40)),
    "count_nonzero[bool]": Sig(BR, call=lambda xp, b: xp.count_nonzero(b, axis=0)),
    "unique": Sig(V, call=lambda xp, v: xp.unique(v, size=40, fill_value=0.0), order=1),
    "unique_values": Sig(V, call=lambda xp, v: xp.unique_values(v, size=40, fill_value=0.0), order=1),
    "unique_counts": Sig(V, call=lambda xp, v: xp.unique_counts(v, size=40, fill_value=0.0), order=1),
    "unique_inverse": Sig(V, call=lambda xp, v: xp.unique_inverse(v, size=40, fill_value=0.0), order=1),
    "unique_all": Sig(V, call=lambda xp, v: xp.unique_all(v, size=40, fill_value=0.0), order=1),
    "intersect1d": Sig(
        V, call=lambda xp, v: xp.intersect1d(v[:30], v[20:], size=20, fill_value=0.0), order=1
    ),
    "union1d": Sig(V, call=lambda xp, v: xp.union1d(v[:30], v[20:], size=50, fill_value=0.0), order=1),
    "setdiff1d": Sig(V, call=lambda xp, v: xp.setdiff1d(v[:30], v[20:], size=20, fill_value=0.0), order=1),
    "setxor1d": Sig(V, call=lambda xp, v: xp.setxor1d(v[:30], v[20:], size=40, fill_value=0.0), order=1),
    "allclose": Sig(("rows", "rows"), call=lambda xp, a, b: xp.allclose(a[:8], b[:8])),
    "array_equal": Sig(("rows", "rows"), call=lambda xp, a, b: xp.array_equal(a[:8], b[:8], equal_nan=True)),
    "array_equiv": Sig(("rows", "rows"), call=lambda xp, a, b: xp.array_equiv(a[5], b[4])),
    "packbits": Sig(BR, call=lambda xp, b: xp.packbits(b, axis=-1)),
    "unpackbits": Sig(IR, call=lambda xp, i: xp.unpackbits(xp.abs(i).astype(xp.uint8), axis=-1)),
}


SKIPPED.update(
    {
        "trim_zeros": "jax's trim_zeros has a data-dependent shape and no size=, so it cannot be traced",
    }
)
DIFFERENCES.update(
    {
        **{
            n: "NaNs count as one value (equal_nan=True, numpy's default and the documented one); jax's "
            "traced unique with size= keeps every NaN apart, so the values, counts, indices and the "
            "derivative reaching each NaN differ"
            for n in ("unique_all", "unique_counts", "unique_inverse", "unique_values", "setxor1d")
        },
        **{
            f"{n}:d1": "NaNs count as one value (equal_nan=True, numpy's default and the documented one); "
            "jax's traced unique with size= keeps every NaN apart, so the derivative reaching each NaN "
            "differs (their values agree: the NaNs land in the same slots)"
            for n in ("unique", "union1d")
        },
        **{
            f"{n}:value:dtype": "the counts are floats, as numpy's histogram2d and histogramdd give (jax: ints)"
            for n in ("histogram2d", "histogramdd")
        },
    }
)

ARRAYS.update(
    {
        "apply_along_axis": Sig(
            R, call=lambda xp, r: xp.apply_along_axis(lambda v: xp.max(v) - xp.min(v), 1, r)
        ),
        "apply_over_axes": Sig(R, call=lambda xp, r: xp.apply_over_axes(xp.sum, r, [1])),
        "vectorize": Sig(XX, call=lambda xp, a, b: xp.vectorize(lambda s, t: s * t + 1)(a, b), empty=False),
        "frompyfunc": Sig(
            XX, call=lambda xp, a, b: xp.frompyfunc(lambda s, t: s * t + 1, 2, 1)(a, b), empty=False
        ),
        "meshgrid": _moves(lambda xp, v: xp.meshgrid(v[:5], v[30:33]), kinds=V),
        "linspace": Sig(XX, call=lambda xp, a, b: xp.linspace(a, b, 5, axis=-1), empty=False),
        "logspace": Sig(XX, call=lambda xp, a, b: xp.logspace(a, b, 4, axis=-1), empty=False),
        "geomspace": Sig(
            XX, call=lambda xp, a, b: xp.geomspace(a, b, 4, axis=-1), ref=cf.geomspace4, empty=False
        ),
        "unravel_index": Sig(INT, call=lambda xp, i: xp.unravel_index(i, (3, 4)), empty=False),
        "ravel_multi_index": Sig(
            INT2, call=lambda xp, i, j: xp.ravel_multi_index((i, j), (3, 4), mode="clip"), empty=False
        ),
    }
)

_SHAPES_ONLY = (
    "builds an array from shapes, sizes and Python scalars only: no array argument to meet special points"
)
_HOST = "a host-side query on dtypes, shapes or Python objects, answered while building: nothing is computed"
SKIPPED.update(
    {
        **dict.fromkeys(
            "arange empty eye full identity ones zeros tri indices fromfunction diag_indices tril_indices "
            "triu_indices mask_indices bartlett blackman hamming hanning kaiser".split(),
            _SHAPES_ONLY,
        ),
        **dict.fromkeys(
            "empty_like full_like ones_like zeros_like diag_indices_from tril_indices_from "
            "triu_indices_from".split(),
            "reads only the shape and dtype of its array argument",
        ),
        **dict.fromkeys(
            "broadcast_shapes can_cast einsum_path iscomplexobj isdtype isrealobj isscalar issubdtype iterable "
            "ndim promote_types result_type shape size ix_".split(),
            _HOST,
        ),
        **dict.fromkeys(
            "from_dlpack frombuffer fromiter fromstring".split(), "reads host data (bytes, iterators, dlpack)"
        ),
        **dict.fromkeys(
            "array_repr array_str get_printoptions printoptions set_printoptions load save savez".split(),
            "printing and files: numpy's own functions on host values (tests/test_census.py)",
        ),
    }
)

DIFFERENCES.update(
    {
        "linspace:value:zero sign": (
            "the midpoint of (-smallest normal, +smallest normal): ours start (1 - t) + stop t adds two "
            "products of subnormal size, which XLA flushes to -0 and +0 on CPU (the fused multiply-add "
            "keeps the first's sign: -0); numpy's and jax's start + i step give +0; the exact value is 0"
        ),
        "linspace@float64:value:ulps": (
            "start 1 + eps, -(1 + eps) and stop -+3 at t = 1/4: ours start (1 - t) + stop t is the exact "
            "+-0.75 eps = 1.665e-16; numpy's and jax's start + step (step = (stop - start) / 4 rounded) give "
            "+-eps, so the float64 reference itself is off there"
        ),
        "logspace@float64:value:ulps": (
            "10**y at y = linspace(3, 2, 4)[1] = 8/3 and its negative: ours 3 (1 - t) + 2 t rounds 8/3 to "
            "2.6666666666666670, numpy's 3 + t (2 - 3) to 2.6666666666666665, each within an ulp of 8/3; "
            "10**y multiplies that ulp by y ln 10 ~ 6 (464.1588833612782 against 464.15888336127773)"
        ),
    }
)

DIFFERENCES.update(
    {
        "geomspace:value:nan": "the first element where stop is +-inf (start 1, 0.5, 2, 3, the smallest "
        "normal, max, of either sign): ours is start itself, as numpy gives ([1, inf, inf, inf]); jax has no "
        "exact ends and its linspace makes 0 * inf = NaN there",
        "geomspace@float32:value:inf": "geomspace(+-inf, +-inf)[0]: ours is start itself (+-inf, as numpy "
        "gives); jax's linspace gives inf * 0 = NaN",
        "geomspace@float64:value:inf": "an end at +-max (start or stop): ours is that end itself, as numpy "
        "gives; jax's 10 ** log10(max) rounds up and overflows to +-inf",
        "geomspace@float64:d1": "ours the closed forms d/dstart = sum (1 - t) (stop/start)^t, d/dstop = sum t "
        "(start/stop)^(1-t), checked at every finite point of one sign against long double (with t and 1 - t "
        "rounded to float64 as the progression has them; tests/special_points/edges/test_pending3_edges.py): 0-2 "
        "ulps. jax is 9-60 ulps off at (0.5 .. 3, max) and (tiny, 1 .. 3) (its 10 ** linspace(log10 ...) "
        "carries log10(max)'s rounding times y ln 10), 0 at (tiny, tiny) (true 2, its subnormal middle "
        "terms flush), inf at (max, 1 .. 3) and (1 .. 3, max) (true 1: y ln 10 overflows), NaN at an infinite "
        "end (ours the limits: inf for d/dstart at stop = inf, 1 for the exact end's slope)",
        "geomspace:d2:nan": "ours the closed forms' second derivatives (0-2 ulps of long double at every "
        "finite point of one sign, as geomspace@float64:d1) where jax's are NaN: at float64's range ends "
        "(e.g. 3.9e-104 at (1, max), -7.1e204 at (max, 1)) and at an infinite end, where ours are the "
        "limits (-inf for d2/dstart2 at stop = inf, 0 for the others)",
        "geomspace@float32:d2:inf": "at an infinite end: ours the limits -inf of -(1 - t) t (stop/start)^t "
        "/ start at stop = inf (and of the stop side at start = inf); jax NaN",
        "geomspace@float64:d2:ulps": "ours within 0-2 ulps of long double closed forms (as "
        "geomspace@float64:d1); jax 0 where its subnormal intermediates flush (true -6.25e-104 at (1, tiny), "
        "2.0e307 at (tiny, tiny)), -4.9e-17 at (tiny, 3) (true -1.4e-104), 20-40 ulps off at (0.5 .. 3, max)",
        "geomspace@float32:d1": "an end at +-inf with the other finite: the slopes of the middle terms "
        "(2/3)(stop/start)**(1/3) and (1/3)(start/stop)**(2/3) tend to inf, ours; jax's are NaN "
        "(inf - inf and 0 * inf in its 10 ** linspace(log10 ...) chain)",
    }
)
PENDING.update(
    {
        "geomspace@float64:d2:inf": "at (+-tiny, +-max) only: d2/dstart dstop = sum (1 - t) t (stop/start)^t "
        "/ stop is 5.0e101, ours inf (the written-out slope's (stop/start)^(2/3) = 4e410 overflows before "
        "the division; jax nan); the other points of this key are right, the limits -inf of "
        "-(1 - t) t (stop/start)^t / start at start = tiny or stop = inf (and of the stop side at stop = tiny "
        "or start = inf)",
    }
)
