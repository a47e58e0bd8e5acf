"""sg.lax: JAX's lax names for stablegraph's primitives and their helpers (ops layer, user-facing).

Code written against jax.lax ports by changing the import: the names, argument orders and
defaults are lax's. Most names are the primitives' own builders; the adapters below bridge
signatures that differ (lax's pad config, dimension-number tuples, the in_dim helpers, the
rounding method, a reduce_window given its computation). Elementwise functions take Tensors
of one dtype and shape as lax's do; Python numbers take the Tensor operand's dtype, and a
rank-0 operand is broadcast to the others' shape. The slicing and indexing adapters (pad,
the *_in_dim helpers, dynamic slices, gather and scatter with JAX's dimension numbers and
modes) live in ops/lax_indexing.py.
"""

from __future__ import annotations

import builtins
import enum

import numpy as np

from ..graph import GraphError, Tensor, dtypes, flatten, located, unflatten, user_location
from ..sharding import NamedSharding, PartitionSpec
from . import control_api, late_bound
from . import lax_linalg_api as linalg
from . import numpy_like as snp
from .lax_arrays import (
    approx_max_k,
    approx_min_k,
    broadcast_like,
    broadcast_shapes,
    broadcast_to_rank,
    collapse,
    conv_general_permutations,
    conv_general_shape_tuple,
    conv_shape_tuple,
    conv_transpose_shape_tuple,
    cumlogsumexp,
    dtype,
    empty,
    index_take,
    mulhi,
    reduce_window_shape_tuple,
    reduce_xor,
    split,
    stack,
    tile,
    unstack,
)
from .lax_convolution import (
    ConvDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_transpose,
    conv_with_general_padding,
    padtype_to_pads,
)
from .lax_dots import RaggedDotDimensionNumbers, ragged_dot, ragged_dot_general, scaled_dot
from .lax_indexing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    gather,
    index_in_dim,
    pad,
    scatter,
    scatter_add,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
    slice_in_dim,
)
from .lax_parallel import axis_size, pbroadcast, pcast, pshuffle, pswapaxes, ragged_all_to_all
from .lax_patches import conv_general_dilated_local, conv_general_dilated_patches
from .lax_precision import (
    AccuracyMode,
    DotAlgorithm,
    DotAlgorithmPreset,
    Tolerance,
    check_accuracy,
    check_precision,
)
from .lax_random import RandomAlgorithm, random_gamma_grad, rng_bit_generator, rng_uniform
from .lax_scans import associative_scan
from .lax_scatter_apply import scatter_apply
from .lax_staging import composite, dce_sink, optimization_barrier, platform_dependent, shape_as_value, stage
from .numpy_like import creation, manipulation
from .primitives import compare as _compare
from .primitives import constants, cumulative, shape, slicing
from .primitives import elementwise as ew
from .primitives import reduce as _reduce
from .primitives import sort as _sort
from .primitives import transcendental as tr
from .primitives.collectives import (
    all_gather,
    all_to_all,
    axis_index,
    pmax,
    pmean,
    pmin,
    ppermute,
    psum,
    psum_scatter,
)
from .primitives.complex_parts import complex, conj, imag, real
from .primitives.dot_general import dot_general as _dot_general
from .primitives.fft import fft as _fft
from .primitives.precision import reduce_precision
from .primitives.registry import bind
from .primitives.sharding_constraint import sharding_constraint
from .primitives.top_k import top_k
from .primitives.windowed import window_reduce


def _error(message: str) -> GraphError:
    """A build-time error at the user's line (for checks made before any node is built)."""
    return GraphError(located(message, user_location()))


# -- control flow, as sg spells it ----------------------------------------------
cond, switch, scan = control_api.cond, control_api.switch, control_api.scan
while_loop, fori_loop = control_api.while_loop, control_api.fori_loop
map = control_api.map  # noqa: A001
stop_gradient = ew.stop_gradient


# -- elementwise ------------------------------------------------------------------
def _operands(*xs) -> list:
    """Python numbers take the first Tensor's dtype; rank-0 operands broadcast to the others' shape."""
    first = next((x for x in xs if isinstance(x, Tensor)), None)
    dt = first.dtype if first is not None else None
    ts = [
        x if isinstance(x, Tensor) else constants.constant(x if dt is None else np.asarray(x, dt.np))
        for x in xs
    ]
    full = builtins.max(ts, key=lambda t: t.ndim)
    return [shape.broadcast_in_dim(t, full.shape, ()) if t.ndim == 0 < full.ndim else t for t in ts]


def _lax_fn(op, name: str):
    def fn(*xs, accuracy=None):
        check_accuracy(accuracy, f"sg.lax.{name}")  # XLA's CPU has one accuracy (lax_precision.py)
        return bind(op, *_operands(*xs))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"jax.lax.{name}: the {op.name} primitive ({op.doc})"
    return fn


# lax's names for the elementwise primitives; "max" and "min" shadow the builtins here, as in jax.lax
_ELEMENTWISE = {
    "neg": ew.neg, "sign": ew.sign, "floor": ew.floor, "ceil": ew.ceil, "is_finite": ew.is_finite,
    "abs": ew.abs_, "exp": ew.exp, "expm1": ew.expm1, "log": ew.log, "log1p": ew.log1p, "sqrt": ew.sqrt,
    "rsqrt": ew.rsqrt, "cbrt": ew.cbrt, "sin": ew.sin, "cos": ew.cos, "tan": ew.tan, "tanh": ew.tanh,
    "logistic": ew.logistic, "erf": ew.erf, "erf_inv": ew.erf_inv, "add": ew.add, "sub": ew.sub,
    "mul": ew.mul, "div": ew.div, "rem": ew.rem, "atan2": ew.atan2, "max": ew.max_, "min": ew.min_,
    "bitwise_and": ew.and_, "bitwise_or": ew.or_, "bitwise_xor": ew.xor, "bitwise_not": ew.not_,
    "shift_left": ew.shift_left, "shift_right_arithmetic": ew.shift_right_arithmetic,
    "shift_right_logical": ew.shift_right_logical,
}  # fmt: skip
(neg, sign, floor, ceil, is_finite, abs, exp, expm1, log, log1p, sqrt, rsqrt, cbrt, sin, cos, tan,
 tanh, logistic, erf, erf_inv, add, sub, mul, div, rem, atan2, max, min, bitwise_and, bitwise_or,
 bitwise_xor, bitwise_not, shift_left, shift_right_arithmetic, shift_right_logical) = (
    _lax_fn(op, name) for name, op in _ELEMENTWISE.items()
)  # fmt: skip


_TRANSCENDENTAL = (
    "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "lgamma", "digamma", "erfc",
    "bessel_i0e", "bessel_i1e", "polygamma", "zeta", "nextafter", "igamma", "igammac", "igamma_grad_a",
    "betainc", "population_count", "clz",
)  # fmt: skip
(asin, acos, atan, sinh, cosh, asinh, acosh, atanh, lgamma, digamma, erfc, bessel_i0e, bessel_i1e, polygamma,
 zeta, nextafter, igamma, igammac, igamma_grad_a, betainc, population_count, clz) = (
    _lax_fn(getattr(tr, name), name) for name in _TRANSCENDENTAL
)  # fmt: skip


def _comparison(direction: str):
    def fn(x, y):
        return _compare.compare(*_operands(x, y), direction)

    fn.__name__ = fn.__qualname__ = direction.lower()
    fn.__doc__ = f"jax.lax.{direction.lower()}: x {direction} y elementwise, bool (NaN compares unequal)."
    return fn


eq, ne, lt, le, gt, ge = (_comparison(d) for d in ("EQ", "NE", "LT", "LE", "GT", "GE"))


def pow(x, y):  # noqa: A001
    """x ** y elementwise; an integer y is converted to x's floating dtype, as lax allows."""
    x, y = _operands(x, y)
    if x.dtype.is_inexact and not y.dtype.is_inexact:
        y = _compare.convert(y, x.dtype)
    return bind(ew.pow_, x, y)


def integer_pow(x, y: int):
    """x ** y for a Python int y, by repeated squaring; a negative y raises 1/x to -y, so at
    x = 0 the derivatives are infinities (-3 x**-4 = -inf), not 0 * inf from 1 / x**3."""
    base = reciprocal(x) if y < 0 else x
    result, n = None, builtins.abs(int(y))
    while n:
        if n & 1:
            result = base if result is None else bind(ew.mul, result, base)
        n >>= 1
        if n:
            base = bind(ew.mul, base, base)
    if result is None:
        return full_like(x, 1)
    return result


def square(x):
    return bind(ew.mul, x, x)


def reciprocal(x):
    return bind(ew.div, *_operands(1, x))


def exp2(x):
    return exp(mul(x, np.log(2.0)))


class RoundingMethod(enum.IntEnum):
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """Round to an integral value: halves away from zero (lax's default) or to even."""
    if RoundingMethod(rounding_method) is RoundingMethod.TO_NEAREST_EVEN:
        return bind(ew.round_, x)
    whole = bind(ew.mul, bind(ew.sign, x), bind(ew.floor, bind(ew.abs_, x)))  # trunc(x), exactly
    half_up = ge(bind(ew.abs_, bind(ew.sub, x, whole)), 0.5)
    return select(half_up, add(whole, bind(ew.sign, x)), whole)


# -- types, selection -------------------------------------------------------------
def convert_element_type(operand, new_dtype):
    return _compare.convert(_operands(operand)[0], new_dtype)


def bitcast_convert_type(operand, new_dtype):
    return _compare.bitcast_convert(operand, new_dtype)


def select(pred, on_true, on_false):
    """on_true where pred, else on_false (pred a bool Tensor of their shape, or a scalar)."""
    return _compare.select(pred, *_operands(on_true, on_false))


def select_n(which, *cases):
    """cases[which] elementwise: which is bool (two cases) or an int32 index into the cases."""
    if not cases:
        raise _error("sg.lax.select_n wants at least one case")
    out = cases[0]
    if which.dtype is dtypes.bool_:
        if len(cases) != 2:
            raise _error(f"sg.lax.select_n with a bool which wants 2 cases, got {len(cases)}")
        return select(which, cases[1], cases[0])
    for i, case in enumerate(cases[1:], 1):
        out = select(eq(which, i), case, out)
    return out


def clamp(min, x, max):  # noqa: A002
    lo, x, hi = _operands(min, x, max)
    return _compare.clamp(lo, x, hi)


# -- shapes -----------------------------------------------------------------------
broadcast_in_dim, transpose = shape.broadcast_in_dim, shape.transpose
squeeze, expand_dims = manipulation.squeeze, manipulation.expand_dims
rev, concatenate, slice = slicing.rev, slicing.concatenate, slicing.slice  # noqa: A001


def broadcast(operand, sizes):
    """operand repeated along new leading dims of ``sizes``."""
    sizes = tuple(sizes)
    return shape.broadcast_in_dim(
        operand, sizes + tuple(operand.shape), range(len(sizes), len(sizes) + operand.ndim)
    )


def reshape(operand, new_sizes, dimensions=None):
    """operand (transposed by ``dimensions`` first, if given) in the shape ``new_sizes``."""
    if dimensions is not None:
        operand = shape.transpose(operand, dimensions)
    return shape.reshape(operand, tuple(new_sizes))


def dynamic_update_index_in_dim(operand, update, index, axis: int, *, allow_negative_indices: bool = True):
    """``operand`` with its slice at ``index`` along ``axis`` replaced by ``update``, given with or
    without that dim (of size 1); indices clamp as dynamic_update_slice's do."""
    if update.ndim == operand.ndim - 1:
        update = manipulation.expand_dims(update, axis)
    return dynamic_update_slice_in_dim(
        operand, update, index, axis, allow_negative_indices=allow_negative_indices
    )


def with_sharding_constraint(x, shardings):
    """jax.lax.with_sharding_constraint: every Tensor of the nest ``x`` laid out over the Session's
    mesh by ``shardings`` (one PartitionSpec or NamedSharding for all, or a nest like ``x``'s);
    see sg.sharding_constraint."""
    leaves, tree = flatten(x)
    specs, spec_tree = flatten(shardings, is_leaf=lambda s: isinstance(s, PartitionSpec | NamedSharding))
    if len(specs) == 1:
        specs = specs * len(leaves)
    elif spec_tree != tree:
        raise _error("sg.lax.with_sharding_constraint wants one sharding, or a nest of them shaped like x")
    return unflatten(tree, [sharding_constraint(v, getattr(s, "spec", s)) for v, s in zip(leaves, specs)])


class Precision(enum.Enum):
    """jax.lax.Precision: how precisely a dot or convolution multiplies (names accepted by the
    ``precision=`` arguments; XLA's CPU computes float32 products in full precision at all three)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


PrecisionLike = str | Precision | tuple | None
DotDimensionNumbers = tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]
ConvGeneralDilatedDimensionNumbers = tuple[str, str, str] | ConvDimensionNumbers | None


def _axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


# -- contractions -----------------------------------------------------------------
def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """Contract over ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)); the result
    dims are batch, then lhs's free dims, then rhs's. ``precision`` (a Precision, a pair, a
    DotAlgorithm or DotAlgorithmPreset, or a name) is checked and computed as XLA's CPU does: at
    full precision (ops/lax_precision.py)."""
    check_precision(precision, "sg.lax.dot_general")
    (lc, rc), (lb, rb) = dimension_numbers
    if preferred_element_type is not None:
        lhs, rhs = (_compare.convert(t, preferred_element_type) for t in (lhs, rhs))
    return _dot_general(lhs, rhs, ((tuple(lc), tuple(rc))), ((tuple(lb), tuple(rb))))


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None):
    """Vector/matrix products (lhs's last dim against rhs's first), or dot_general when
    ``dimension_numbers`` are given."""
    if dimension_numbers is None:
        if not (1 <= lhs.ndim <= 2 and 1 <= rhs.ndim <= 2):
            raise _error(f"sg.lax.dot wants rank-1 or rank-2 operands, got {lhs.type} and {rhs.type}")
        dimension_numbers = (((lhs.ndim - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the last two dims, the leading dims matched as batch dims."""
    if lhs.ndim < 2 or lhs.ndim != rhs.ndim:
        raise _error(f"sg.lax.batch_matmul wants operands of one rank >= 2, got {lhs.type} and {rhs.type}")
    batch = tuple(range(lhs.ndim - 2))
    return dot_general(lhs, rhs, (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch)), precision)


# -- reductions, running reductions, sorting --------------------------------------
def _reducer(kind: str):
    def fn(operand, axes):
        return _reduce.reduce(operand, kind, tuple(axes))

    fn.__name__ = fn.__qualname__ = f"reduce_{kind}"
    fn.__doc__ = f"jax.lax.reduce_{kind}: the {kind} over ``axes`` (stablehlo.reduce)."
    return fn


reduce_sum, reduce_prod, reduce_max, reduce_min, reduce_and, reduce_or = (
    _reducer(k) for k in ("sum", "prod", "max", "min", "and", "or"))  # fmt: skip


def reduce(operands, init_values, computation, dimensions):  # noqa: A001
    """jax.lax.reduce of one operand with sg.lax.add, mul, max, min, bitwise_and or bitwise_or (or
    their sg.numpy spellings): the reduction over ``dimensions``, combined with ``init_values``."""
    kind = _REDUCE_COMPUTATIONS.get(_plain(computation))
    if kind is None or isinstance(operands, list | tuple):
        raise _error(
            "sg.lax.reduce supports one operand and the computations sg.lax.add, mul, max, min, bitwise_and, "
            f"bitwise_or (or their sg.numpy spellings), got {computation!r}"
        )
    out = _reduce.reduce(operands, kind, tuple(dimensions))
    init = _init_number(init_values, "sg.lax.reduce")
    return out if init == _reduce.identity(kind, operands.dtype) else computation(out, init)


def argmax(operand, axis: int, index_dtype):
    return _sort.argmax(operand, _axis(axis, operand.ndim), index_dtype)


def argmin(operand, axis: int, index_dtype):
    return _sort.argmin(operand, _axis(axis, operand.ndim), index_dtype)


def _running(kind: str):
    def fn(operand, axis: int = 0, reverse: bool = False):
        return cumulative.cumulative(operand, kind, axis, reverse)

    name = {"sum": "cumsum", "prod": "cumprod", "max": "cummax", "min": "cummin"}[kind]
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"jax.lax.{name}: the running {kind} along ``axis`` (stablehlo.reduce_window)."
    return fn


cumsum, cumprod, cummax, cummin = (_running(k) for k in ("sum", "prod", "max", "min"))


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sort a Tensor, or a sequence of them by the first ``num_keys`` (stablehlo.sort)."""
    return _sort.sort(operand, dimension, is_stable, num_keys=num_keys)


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    return _sort.sort((keys, values), dimension, is_stable)


class FftType(enum.IntEnum):
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def fft(x, fft_type, fft_lengths):
    """jax.lax.fft: an FFT over the trailing ``len(fft_lengths)`` dims; ``fft_type`` is an
    FftType or its name ("FFT", "IFFT", "RFFT", "IRFFT", any case)."""
    name = FftType(fft_type).name if isinstance(fft_type, int) else str(fft_type).upper().split(".")[-1]
    return _fft(x, name, tuple(fft_lengths))


def _plain(computation):
    """The function a computation stands for: sg.numpy's ufunc objects (sg.numpy.add, ...) wrap the
    plain functions these tables name (sg.lax loads on first use, after they were made)."""
    return getattr(computation, "__wrapped__", computation)


_REDUCE_COMPUTATIONS = {
    add: "sum", mul: "prod", max: "max", min: "min", bitwise_and: "and", bitwise_or: "or",
    _plain(snp.add): "sum", _plain(snp.multiply): "prod", _plain(snp.maximum): "max", _plain(snp.minimum): "min",
}  # fmt: skip


# -- creation ----------------------------------------------------------------------
def iota(dtype, size):
    return constants.iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension: int):
    return constants.iota(dtype, tuple(shape), dimension)


def full(shape, fill_value, dtype=None):
    return creation.full(shape, fill_value, dtype)


def full_like(x, fill_value, dtype=None, shape=None):
    return creation.full_like(x, fill_value, dtype, shape)


def zeros_like_array(x):
    return creation.full_like(x, 0)


# -- windows -----------------------------------------------------------------------
_WINDOW_COMPUTATIONS = {add: "sum", max: "max", min: "min", _plain(snp.add): "sum", _plain(snp.maximum): "max",
                        _plain(snp.minimum): "min"}  # fmt: skip


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None, padding="VALID",
                  base_dilation=None, window_dilation=None):  # fmt: skip
    """Reduce over sliding windows, as jax.lax.reduce_window: ``computation`` is sg.lax.add,
    sg.lax.max or sg.lax.min (or sg.numpy.add / maximum / minimum); ``init_value`` a number (or
    a constant Tensor) that fills the padding and starts every window."""
    kind = _WINDOW_COMPUTATIONS.get(_plain(computation))
    if kind is None:
        raise _error(
            f"sg.lax.reduce_window supports the computations sg.lax.add, sg.lax.max, sg.lax.min (or "
            f"sg.numpy.add, sg.numpy.maximum, sg.numpy.minimum), got {computation!r}"
        )
    init = _init_number(init_value)
    if init == _reduce.identity(kind, operand.dtype):
        init = None
    window = (window_dimensions, window_strides, padding, base_dilation, window_dilation)
    return window_reduce(operand, kind, *window, init=init)


def _init_number(init_value, who: str = "sg.lax.reduce_window"):
    if isinstance(init_value, Tensor):
        node = init_value.node
        if node.op.name != "constant" or np.ndim(node.attrs.value) != 0:
            raise _error(
                f"{who} wants init_value as a number or a scalar constant, got {init_value.type} "
                f"from {node.op.name}"
            )
        init_value = node.attrs.value
    return np.asarray(init_value).item()


# jax.lax's solvers with implicit gradients need sg.vjp (transforms, a layer above): train/lax_solvers.py
# defines them and hands them in (ops/late_bound.py), looked up here when first read
_LATE_BOUND = ("custom_root", "custom_linear_solve")


def __getattr__(name: str):
    if name in _LATE_BOUND:
        return late_bound.provided(f"lax.{name}", "stablegraph.train.lax_solvers")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LATE_BOUND})


__all__ = [
    # control flow
    "cond", "switch", "while_loop", "fori_loop", "scan", "map", "stop_gradient",
    # elementwise
    "neg", "sign", "floor", "ceil", "round", "RoundingMethod", "is_finite", "abs", "exp", "exp2", "expm1",
    "log",
    "log1p", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan", "tanh", "logistic", "erf", "erf_inv", "add", "sub",
    "mul", "div", "rem", "pow", "integer_pow", "square", "reciprocal", "max", "min", "atan2", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right_arithmetic", "shift_right_logical",
    "eq", "ne", "lt", "le", "gt", "ge", "reduce_precision",
    # types, selection
    "convert_element_type", "bitcast_convert_type", "select", "select_n", "clamp",
    # shapes, slicing, indexing
    "broadcast", "broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims", "rev", "pad",
    "concatenate", "slice", "slice_in_dim", "index_in_dim", "dynamic_slice", "dynamic_update_slice",
    "dynamic_slice_in_dim", "dynamic_update_slice_in_dim", "dynamic_index_in_dim", "gather", "scatter",
    "scatter_add", "scatter_mul", "scatter_min", "scatter_max", "GatherDimensionNumbers",
    "ScatterDimensionNumbers", "GatherScatterMode",
    # contractions, reductions, sorting, windows
    "dot", "dot_general", "batch_matmul", "reduce_sum", "reduce_prod", "reduce_max", "reduce_min",
    "reduce_and", "reduce_or", "reduce", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin", "sort",
    "sort_key_val", "top_k", "reduce_window",
    # creation
    "iota", "broadcasted_iota", "full", "full_like", "zeros_like_array",
    # other families: collectives (inside sg.spmd), convolution, complex parts, FFT
    "psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter", "ppermute", "all_to_all", "axis_index",
    "conv_general_dilated", "conv", "conv_transpose", "conv_with_general_padding", "conv_dimension_numbers",
    "ConvDimensionNumbers", "padtype_to_pads", "linalg", "real", "imag", "complex", "conj", "fft", "FftType",
    *_TRANSCENDENTAL,
    # lax's array helpers and shape arithmetic (lax_arrays.py, lax_scans.py)
    "approx_max_k", "approx_min_k", "associative_scan", "broadcast_like", "broadcast_shapes",
    "broadcast_to_rank", "collapse", "conv_general_permutations", "conv_general_shape_tuple", "conv_shape_tuple",
    "conv_transpose_shape_tuple", "cumlogsumexp", "dtype", "dynamic_update_index_in_dim", "empty", "index_take", "mulhi",
    "reduce_window_shape_tuple", "reduce_xor", "scatter_sub", "with_sharding_constraint", "Precision",
    "PrecisionLike", "DotDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "split", "stack", "tile", "unstack",
    # the rest of jax.lax (issue 26): ragged and scaled dots, patches, random bits, staging, collectives
    "AccuracyMode", "DotAlgorithm", "DotAlgorithmPreset", "Tolerance", "RaggedDotDimensionNumbers", "ragged_dot",
    "ragged_dot_general", "scaled_dot", "conv_general_dilated_patches", "conv_general_dilated_local",
    "RandomAlgorithm", "rng_bit_generator", "rng_uniform", "random_gamma_grad", "scatter_apply",
    "optimization_barrier", "composite", "platform_dependent", "dce_sink", "shape_as_value", "stage",
    "axis_size", "pbroadcast", "pcast", "pshuffle", "pswapaxes", "ragged_all_to_all",
]  # fmt: skip
